#pragma once
// `fleet status`: every member of a fleet asked in parallel (health, open-terminal version,
// the accounts whose homes it holds, running agents, the disk of /home), each told as soon as
// it answers; a member that is down or slow is named with its error while the others are
// shown. Then the user -> member map and what is wrong with the fleet:
//   two-homes        a user with a home on two members (after a resize: see UserMove)
//   versions         members on different open-terminal versions
//   not-routed       a member whose users the router sends elsewhere: up to three of its users
//                    are asked for through the router, and the member that answers is told by
//                    its host name and the user's home (device and inode). Where the router is
//                    wrong, the member it picks makes the user an account, as the user's next
//                    request would anyway. A member without users cannot be checked: said so.
// The members' side is fleetroot.py `accounts`, run through each member's admin command.

#include "fleet/fleetconfig.h"
#include "fleet/fleetfanout.h"

#include <QElapsedTimer>
#include <QMap>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QVector>

#include <memory>

namespace sandscope {

class OpenTerminalClient;

struct FleetAccount {
    QString account;
    QString userId; // empty when the account name does not tell it (accountnames.h)
    QString home;
    QString homeId; // device:inode, to recognise the home through the router
    QString key() const { return userId.isEmpty() ? QStringLiteral("account:") + account : userId; }
};

struct FleetMemberStatus {
    QString name;
    QUrl url;
    enum class State { Waiting, Answered, Failed };
    State state = State::Waiting;
    QString version;
    QString error; // Failed: why (the member named, never the key)
    QVector<FleetAccount> accounts; // those whose home is on this member
    qint64 diskUsed = -1;
    qint64 diskFree = -1;
    int agents = -1; // claude CLI processes running, sub-agents' not counted apart
    QString host;
    qint64 elapsedMs = 0;
    QString routedTo; // not-routed check: the member the router sent its users to; "" unknown
    bool routeChecked = false;
};

struct FleetAnomaly {
    QString kind; // two-homes, versions, not-routed
    QString user; // two-homes: the user (FleetAccount::key)
    QStringList members;
    QString text;
};

struct FleetStatusReport {
    QVector<FleetMemberStatus> members;
    QMap<QString, QStringList> users; // FleetAccount::key -> members holding a home
    QVector<FleetAnomaly> anomalies;
    QStringList notKnown; // what could not be checked, and why
    bool anyFailed() const;
};

class FleetStatus : public QObject {
    Q_OBJECT
public:
    FleetStatus(
        FleetConfig fleet, QString apiKey, int timeoutMs = 30000, QObject *parent = nullptr);
    ~FleetStatus() override;

    void start();
    const FleetStatusReport &report() const { return m_report; }

    // The map and the anomalies of members as they answered (pure; the route checks are
    // read from each member's routedTo).
    static void judge(FleetStatusReport *report);

Q_SIGNALS:
    void memberAnswered(int index, const sandscope::FleetMemberStatus &member);
    void finished(const sandscope::FleetStatusReport &report);

private:
    void askMember(int index);
    void memberDone(int index);
    void checkRoutes();
    void routeChecked();

    FleetConfig m_fleet;
    QString m_apiKey;
    int m_timeoutMs;
    std::vector<std::unique_ptr<OpenTerminalClient>> m_clients; // per member, then the router
    FleetStatusReport m_report;
    QVector<QElapsedTimer> m_clocks;
    int m_waiting = 0;
    int m_routesWaiting = 0;
};

namespace fleetstatus {
// fleetroot.py accounts' output into `member` (accounts with a home here, figures).
bool parseAccounts(const QStringList &lines, FleetMemberStatus *member, QString *error);
// fleetroot.py accounts on one member of a fan-out, as a FleetFanOut::runForValues job: the
// member's listing, or its error.
void listAccounts(const FanOutTarget &target, QObject *context,
    const FleetFanOut::ValueDone<FleetMemberStatus> &done);
} // namespace fleetstatus

} // namespace sandscope

Q_DECLARE_METATYPE(sandscope::FleetMemberStatus)
Q_DECLARE_METATYPE(sandscope::FleetStatusReport)
