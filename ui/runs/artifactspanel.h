#pragma once
// The Artifacts tab of a run page: the files of the chat workdir created or modified since the
// run started (ArtifactScanner fills it), sortable by path, size and time. Activating one
// (double-click, Enter, Open) asks to open it in the Files tab's preview as the run's user.

#include <QVector>
#include <QWidget>

class QLabel;
class QSortFilterProxyModel;
class QToolButton;
class QTreeView;

namespace sandscope {

class ArtifactListModel;
struct ArtifactFile;

class ArtifactsPanel : public QWidget {
    Q_OBJECT
public:
    explicit ArtifactsPanel(QWidget *parent = nullptr);

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
    void refreshRequested();
    void countChanged(int count);

private:
    void setStatus(const QString &text, bool isError);

    ArtifactListModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QLabel *m_status;
    QToolButton *m_refresh;
    QToolButton *m_open;
    QTreeView *m_view;
};

} // namespace sandscope
