#pragma once
// The Live page (admins): every running Claude Code agent on the server, newest activity first,
// pushed by one follower process run as root through the admin channel (LiveAgentWatcher):
// user, chat, session, the call running now with its elapsed time, tokens, cost, last line.
// Watching starts with the Watch button (and is audited); a double-click asks to open the
// agent's session in a tab that follows it, read as the agent's user. On a fleet one follower
// runs on every member through its own admin command (FleetLiveWatcher): a Member column
// names where each agent runs, and a member whose follower fails is named in the message bar
// while the others' agents stay.

#include "server/adminaccess.h"
#include "sessions/sessionsource.h"

#include <QPointer>
#include <QStringList>
#include <QWidget>

#include <functional>
#include <memory>

class QTreeView;

namespace sandscope {

class FleetFanOut;
class FleetLiveWatcher;
class LiveAgentModel;
class LiveAgentProxy;
class LiveAgentWatcher;
class MessageBar;
class OpenTerminalClient;

namespace Ui {
class LivePage;
}

class LivePage : public QWidget {
    Q_OBJECT
public:
    explicit LivePage(QWidget *parent = nullptr);
    ~LivePage() override;

    // Not owned; nullptr means "not connected" (watching stops).
    void setClient(OpenTerminalClient *client);
    // The admin channel, and the server's account prefix (a user id is found from an account).
    void setAdminAccess(const AdminAccess &admin, const QString &accountPrefix);
    // Where the wall runs on a fleet: ServerSession::createFanOut, made anew at each start.
    // One server keeps to the client of setClient with the admin access of setAdminAccess.
    using FanOutFactory = std::function<FleetFanOut *(QObject *parent)>;
    void setFanOutFactory(FanOutFactory factory, bool isFleet);
    bool isFleet() const { return m_fleet; }
    // Called before watching starts (MainWindow writes the audit entry).
    void setAuditHook(std::function<void(const QString &target)> hook)
    {
        m_audit = std::move(hook);
    }

    LiveAgentModel *model() const { return m_model; }
    LiveAgentProxy *proxy() const { return m_proxy; }
    LiveAgentWatcher *watcher() const { return m_watcher.get(); }
    // The fleet's watcher while watching a fleet, else null.
    FleetLiveWatcher *fleetWatcher() const { return m_fleetWatcher.get(); }
    QTreeView *agentsView() const;
    MessageBar *messageBar() const;
    QString stateText() const;
    bool isWatching() const;

    // What a row of the view opens: its session as its user; false with the reason when no
    // user id is known for its account or its transcript is not known yet.
    bool sessionAt(const QModelIndex &viewIndex, SessionSource *source, QString *why) const;

public Q_SLOTS:
    void startWatching();
    void stopWatching();
    void openSessionAt(const QModelIndex &viewIndex);
    // Non-empty when the server refuses its own account and no admin command is set: what the
    // wall needs (AdminAccess::refusalAdvice), shown instead of a start that would be refused.
    void setAdminAdvice(const QString &advice);

Q_SIGNALS:
    void openSessionRequested(const sandscope::SessionSource &source);
    void adminCommandRequested();

private:
    void updateState();
    void startFleet();
    // A fleet: how many members' followers watch now.
    int membersWatching() const;

    std::unique_ptr<Ui::LivePage> m_ui;
    QPointer<OpenTerminalClient> m_client;
    AdminAccess m_admin;
    QString m_prefix;
    QString m_adminAdvice;
    std::function<void(const QString &)> m_audit;
    std::unique_ptr<LiveAgentWatcher> m_watcher;
    FanOutFactory m_fanOutFactory;
    bool m_fleet = false;
    std::unique_ptr<FleetFanOut> m_fanOut; // of the fleet watcher; outlives it
    std::unique_ptr<FleetLiveWatcher> m_fleetWatcher;
    // The model's clock on a fleet (the model may outlive the watcher while the page goes).
    std::shared_ptr<QPointer<FleetLiveWatcher>> m_fleetClock
        = std::make_shared<QPointer<FleetLiveWatcher>>();
    QStringList m_memberErrors; // of the fleet watcher's members that failed
    QString m_fleetError; // every member failed
    LiveAgentModel *m_model;
    LiveAgentProxy *m_proxy;
};

} // namespace sandscope
