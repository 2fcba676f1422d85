#pragma once
// The isolation probe on a fleet. Through the router, two users on different members cannot
// reach each other's files simply because the files are not there: a refusal would prove
// nothing about isolation, yet read as a PASS. So the fleet probe first finds where each user
// lives (the router decides on a user's first request): as the user, through the router, its
// account and the device and inode of its home; then fleetroot.py `accounts` on every member
// tells which member holds that very home. Then the whole probe (IsolationProbe) runs on each
// member holding at least two of the users, through that member's own URL and admin command,
// which reaches exactly the server the router sends those users to: every check's target is
// where the attacker acts. The account-mapping checks run there too, because an attacker
// sends variant ids until the router hashes one onto the target's member.
//
// A user on another member has less than that: its requests reach another server, where
// nothing of the target's is (the router keeps them apart, which is placement, not isolation);
// so users alone on their member are named as not probed, never counted as PASS. What a user
// on one member can reach of another member (its network, its API) is judged last, by
// FleetCrossMemberChecks, for every ordered pair of members.
//
// With fresh users the probe makes its own ids, through the router, until every member holds
// `freshPerMember` of them, and removes their accounts and homes afterwards (fleetroot.py
// `remove` on the member holding each); ids it made beyond that are removed too.

#include "fleet/fleetstatus.h"
#include "probereport/probereport.h"
#include "probing/probeoptions.h"

#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QVector>

#include <functional>

namespace sandscope {

class FleetCrossMemberChecks;
class FleetFanOut;
class IsolationProbe;
class OpenTerminalClient;

// Where one user lives, as the router decided, with the evidence.
struct ProbePlacement {
    QString userId;
    QString account;
    QString home;
    QString homeId; // device:inode of the home, as the user saw it through the router
    QString member; // empty when not known (see why)
    QString why;
    Evidence evidence;
};

class FleetProbe : public QObject {
    Q_OBJECT
public:
    static constexpr int maximumFreshPerMember = 4;

    // `router` is the client through the router, `fanOut` every member with its own URL and
    // admin command; neither is owned and both outlive the probe.
    FleetProbe(OpenTerminalClient *router, FleetFanOut *fanOut, QObject *parent = nullptr);
    ~FleetProbe() override;

    // Probes `options.users`, or with `freshPerMember` > 0 ids of its own instead (then
    // `options.users` must be empty). False (with `why`) on unusable options or while running.
    bool start(const ProbeOptions &options, int freshPerMember, QString *why = nullptr);
    // Stops the member's probe (which removes what it created), then removes the fresh ids.
    void cancel();
    bool isRunning() const { return m_running; }
    const ProbeReport &report() const { return m_report; }

    // Pure: the member holding each observed user's home (the account and the home's device
    // and inode both match); `why` for a user no member, or more than one, holds.
    static void placeOnMembers(
        QVector<ProbePlacement> *users, const QVector<FleetMemberStatus> &members);
    // The command a user runs through the router to say where it landed, and its parser.
    static QString placementCommand();
    static bool parsePlacement(const QStringList &lines, ProbePlacement *placement);

Q_SIGNALS:
    // Where the users to probe live, once placed (before the first result); `users` in order.
    void placed(const QStringList &users, const QMap<QString, QString> &userMembers);
    void resultReady(const sandscope::CheckResult &result);
    void progress(const QString &step);
    void finished(const sandscope::ProbeReport &report);

private:
    // Observes `ids` through the router, then lists every member's accounts and places them.
    void place(const QStringList &ids, const std::function<void()> &then);
    void placeFreshRound();
    void probeMembers();
    void probeNextMember();
    void probeAcrossMembers();
    void removeFreshUsers();
    void finish();
    QStringList usersOn(const QString &member) const;

    OpenTerminalClient *m_router;
    QPointer<FleetFanOut> m_fanOut;
    ProbeOptions m_options;
    int m_freshPerMember = 0;
    int m_freshRound = 0;
    bool m_running = false;
    bool m_cancelled = false;
    ProbeReport m_report;
    QVector<ProbePlacement> m_placed; // every id placed this run, in order
    QStringList m_probed; // the ids probed (fresh: those kept, `freshPerMember` per member)
    QStringList m_memberQueue;
    QMap<QString, QString> m_versions; // member -> open-terminal version
    QPointer<IsolationProbe> m_memberProbe;
    QPointer<FleetCrossMemberChecks> m_crossChecks;
    QPointer<QObject> m_work; // parent of the callbacks in flight; deleted on cancel
};

} // namespace sandscope
