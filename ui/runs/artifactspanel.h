#pragma once
// The Artifacts tab of a run page: the files of the chat workdir created or modified since the
// run started, sortable by path, size and time. Once watching a run it lists them with an
// ArtifactScanner as the run's user: at once, every refreshMs while a turn runs, when a turn
// ends and on Refresh. Activating one (double-click, Enter, Open) asks to open it in the Files
// tab's preview as the run's user.

#include "server/connection.h"

#include <QPointer>
#include <QTimer>
#include <QVector>
#include <QWidget>

class QLabel;
class QSortFilterProxyModel;
class QToolButton;
class QTreeView;

namespace sandscope {

class ArtifactListModel;
class ArtifactScanner;
class OpenTerminalClient;
struct ArtifactFile;

class ArtifactsPanel : public QWidget {
    Q_OBJECT
public:
    // Each listing is one command on the server.
    static constexpr int refreshMs = 30000;

    explicit ArtifactsPanel(QWidget *parent = nullptr);
    ~ArtifactsPanel() override;

    // Lists the files in `workDirectory` changed since `reference` was written, as `identity`.
    void watch(OpenTerminalClient *client, const Identity &identity, const QString &workDirectory,
        const QString &reference);
    // While a turn runs the list is refreshed periodically; when it ends, once more.
    void setTurnRunning(bool running);
    // Lists again now (nothing happens before watch()).
    void refresh();

    ArtifactListModel *model() const { return m_model; }
    QTreeView *view() const { return m_view; }
    QString statusText() const;
    // The absolute path of the current row, empty if none.
    QString currentPath() const;

    void setScanning();
    void setFiles(const QVector<sandscope::ArtifactFile> &files, bool truncated);
    void setError(const QString &message);
    // For pages without a live run (recordings): nothing to scan.
    void setUnavailable(const QString &why);

Q_SIGNALS:
    void openRequested(const QString &absolutePath);
    void countChanged(int count);
    // A listing arrived with `count` files.
    void listed(int count);

private:
    void setStatus(const QString &text, bool isError);

    ArtifactListModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QLabel *m_status;
    QToolButton *m_refresh;
    QToolButton *m_open;
    QTreeView *m_view;

    OpenTerminalClient *m_client = nullptr;
    Identity m_identity;
    QString m_workDirectory;
    QString m_reference;
    QPointer<ArtifactScanner> m_scanner;
    QTimer m_refreshTimer;
};

} // namespace sandscope
