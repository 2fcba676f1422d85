#pragma once
// Every account under /home with its chats, total size and last activity, scanned as the
// server account (no X-User-Id). Rows appear while the server's scan streams; the table sorts
// on the raw values. A double-click asks to browse that user's files as that user (the main
// window switches identity, which is audited and shown in the identity bar). Servers that
// require X-User-Id refuse the scan; the page then says so instead of showing an empty table.

#include "fleet/fleetfanout.h"
#include "server/adminaccess.h"
#include "server/connection.h"

#include <QPointer>
#include <QWidget>

#include <memory>

class QSortFilterProxyModel;
class QTreeView;
class QTreeWidget;

namespace sandscope {

class AdminOverviewModel;
class MessageBar;
class OpenTerminalClient;

namespace Ui {
class AdminOverviewPage;
}

class AdminOverviewPage : public QWidget {
    Q_OBJECT
public:
    explicit AdminOverviewPage(QWidget *parent = nullptr);
    ~AdminOverviewPage() override;

    // Not owned; nullptr means "not connected".
    void setClient(OpenTerminalClient *client);
    // Through the server account the scan is offered only while acting as it; through an
    // admin command (setAdminAccess) whoever is acted as.
    void setIdentity(const Identity &identity);
    void setAdminAccess(const AdminAccess &admin);
    // A fleet: every member is scanned through `fanOut` (not owned) and a Member column
    // shows where each home is; null for one server.
    void setFanOut(FleetFanOut *fanOut);
    // The server's account prefix (OPEN_TERMINAL_USER_PREFIX), if known; helps to find the
    // user id of an account.
    void setAccountPrefix(const QString &prefix) { m_prefix = prefix; }
    // Where the homes are (tests scan a folder of their own).
    void setHomesRoot(const QString &path);

    AdminOverviewModel *model() const { return m_model; }
    QSortFilterProxyModel *proxy() const { return m_proxy; }
    QTreeView *accountsView() const;
    QTreeWidget *chatsView() const;
    MessageBar *messageBar() const;
    QString stateText() const;

    // A user id whose account is `account` (sandscope::userIdForAccount). Empty if none fits.
    static QString userIdForAccount(const QString &account, const QString &knownPrefix = {});

public Q_SLOTS:
    void reload();
    // What a double-click on a row (of the sorted view) does.
    void browseAccountAt(const QModelIndex &viewIndex);

    // Non-empty when the server refuses its own account: what the all-users view needs
    // (AdminAccess::refusalAdvice). Shown instead of a request that would be refused while no
    // admin command is set.
    void setAdminAdvice(const QString &advice);

Q_SIGNALS:
    // The user asked to set the admin command (File › Connect…).
    void adminCommandRequested();
    // Empty = the server account.
    void actAsUserRequested(const QString &userId);

protected:
    void showEvent(QShowEvent *event) override;

private:
    QString m_adminAdvice;
    void updateState();
    bool canScan() const;
    void showChatsOf(const QModelIndex &viewIndex);

    std::unique_ptr<Ui::AdminOverviewPage> m_ui;
    QPointer<OpenTerminalClient> m_client;
    Identity m_identity;
    AdminAccess m_adminAccess;
    QPointer<FleetFanOut> m_fanOut;
    QStringList m_memberErrors; // of the scan in progress or last
    QString m_prefix;
    QString m_homesRoot;
    AdminOverviewModel *m_model = nullptr;
    QSortFilterProxyModel *m_proxy;
    bool m_scanned = false; // for this client and identity
};

} // namespace sandscope
