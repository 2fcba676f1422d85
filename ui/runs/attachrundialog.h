#pragma once
// Lists the runs a user has in the sandbox (rundiscovery, one command as that user) so one can
// be shown again after its tab or the app was closed: a running run is followed live, a
// finished one is read to its end. The list loads in the background; refresh reloads it.

#include "runs/rundiscovery.h"
#include "server/connection.h"

#include <QDialog>

#include <memory>

class QSortFilterProxyModel;

namespace sandscope {

class OpenTerminalClient;

namespace Ui {
class AttachRunDialog;
}

class AttachRunDialog : public QDialog {
    Q_OBJECT
public:
    AttachRunDialog(
        OpenTerminalClient *client, const Identity &identity, QWidget *parent = nullptr);
    ~AttachRunDialog() override;

    // The chosen run, ready for LiveRun::attach; invalid (empty run id) before a choice.
    RunHandle selectedHandle() const;
    DiscoveredRunModel *model() const { return m_model; }
    bool isLoading() const { return m_loading; }

public slots:
    void refresh();

Q_SIGNALS:
    void listingFinished(bool ok);

private:
    void updateButtons();

    std::unique_ptr<Ui::AttachRunDialog> m_ui;
    OpenTerminalClient *m_client;
    Identity m_identity;
    DiscoveredRunModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QObject *m_request = nullptr; // owns the listing in flight; deleting it drops the answer
    bool m_loading = false;
};

} // namespace sandscope
