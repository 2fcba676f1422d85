#pragma once
// The isolation probe's checks across members of a fleet: what B, living on member Y, can
// reach of A, living on member X. Nothing of A's is on Y, so the files, processes and
// sessions of the same-member checks have no meaning there; what an attacker on Y would try
// is the network between the members:
// - network.member: A listens on all interfaces of X on a random port for a few seconds and
//   greets with a marker; B's shell on Y connects to every address X reports for itself. A
//   connection is INFO (the members reach each other), none is PASS for those addresses.
// - network.member-api: B's shell on Y asks X's API (at the member's URL, the router's URL,
//   and X's own addresses on the URL's port) for its health, and for a listing as A without
//   the key. An answer without the key is FAIL; an API in reach is FAIL when users on Y can
//   read the server's key (process.server-environ on member Y, judged by that member's own
//   probe), since the fleet's members share one key and X accepts it for every user.
// One pair per ordered pair of members (the first probed user of each), so every direction
// between members is judged once. Nothing is left behind: A's listener ends by itself.

#include "fleet/fleetfanout.h"
#include "probereport/probereport.h"
#include "probing/probejudgement.h"
#include "probing/probeoptions.h"

#include <QMap>
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QVector>

namespace sandscope {

class OpenTerminalClient;

struct CrossMemberPair {
    QString target; // A
    QString targetMember; // X
    QString actor; // B
    QString actorMember; // Y
};

// What B's shell saw of one address of X's API.
struct MemberApiAttempt {
    QString url;
    QString health; // HTTP status of /health, or "unreachable <why>"
    bool openTerminal = false; // /health answered as open-terminal does
    QString withoutKey; // HTTP status of a listing as A without the key
};

class FleetCrossMemberChecks : public QObject {
    Q_OBJECT
public:
    // `router` and the targets' clients are not owned and outlive the checks.
    FleetCrossMemberChecks(OpenTerminalClient *router, const QVector<FanOutTarget> &targets,
        QObject *parent = nullptr);

    // One pair per ordered pair of members holding users: the first user of each, in the
    // members' order.
    static QVector<CrossMemberPair> pairsFor(const QStringList &users,
        const QMap<QString, QString> &userMembers, const QStringList &memberOrder);

    // Runs both checks (as `wanted`) for every pair; `sameMember` holds the members' own
    // results (process.server-environ per member). finished() follows, also after cancel().
    void start(const QVector<CrossMemberPair> &pairs, const ProbeReport &sameMember,
        const ProbeOptions &options);
    void cancel();

    // Pure: the parts of the checks that judge what was seen.
    static QStringList parseAddresses(const QStringList &lines);
    static QVector<MemberApiAttempt> parseApiAttempts(const QStringList &lines);
    static probe::Judgement judgeNetwork(const QStringList &addresses,
        const QStringList &listenerLines, const QStringList &connectLines, bool ran);
    // `keyVerdict`: process.server-environ on B's member (Error when it did not run there).
    static probe::Judgement judgeApi(
        const QVector<MemberApiAttempt> &attempts, Verdict keyVerdict, bool ran);

Q_SIGNALS:
    void resultReady(const sandscope::CheckResult &result);
    void progress(const QString &step);
    void finished();

private:
    void nextPair();
    void checkNetwork(
        const CrossMemberPair &pair, const QStringList &addresses, const Evidence &addressEvidence);
    void checkApi(const CrossMemberPair &pair, const QStringList &addresses);
    void addResult(CheckId check, const CrossMemberPair &pair, const probe::Judgement &judgement,
        const QVector<Evidence> &evidence);
    const FanOutTarget *target(const QString &member) const;

    OpenTerminalClient *m_router;
    QVector<FanOutTarget> m_targets;
    QVector<CrossMemberPair> m_pairs;
    ProbeReport m_sameMember;
    ProbeOptions m_options;
    QPointer<QObject> m_work; // parent of the callbacks in flight; deleted on cancel
};

} // namespace sandscope
