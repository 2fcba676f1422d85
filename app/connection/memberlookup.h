#pragma once
// Which member of a fleet holds the acting user's home, for the status bar: fleetroot.py
// `accounts` on every member at once (FleetFanOut), the lighter half of `fleet status` (no
// version, no route checks, which would make accounts through the router). The router decides
// a user's member on first use, so a user without a home yet, or a member that failed, leaves
// it not known, with the reason.

#include "fleet/fleetstatus.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <QVector>

namespace sandscope {

class FleetFanOut;

struct MemberLookupResult {
    QStringList members; // holding the account's home; two after a resize (fleet move)
    QStringList errors; // members that failed, each named
    QString reason; // why the member is not known, when `members` is empty
};

class MemberLookup : public QObject {
    Q_OBJECT
public:
    // Takes `fanOut` (made by ServerSession::createFanOut) as its child.
    MemberLookup(FleetFanOut *fanOut, QObject *parent = nullptr);

    // Finds `account` (the acting user's, as the server check observed it) or `userId`.
    void start(const QString &account, const QString &userId);

    // The members whose listing holds the account (pure).
    static QStringList membersHolding(
        const QVector<FleetMemberStatus> &members, const QString &account, const QString &userId);

Q_SIGNALS:
    // A member holding the home answered: shown before the slower members end.
    void found(const QString &member);
    void finished(const sandscope::MemberLookupResult &result);

private:
    FleetFanOut *m_fanOut;
};

} // namespace sandscope

Q_DECLARE_METATYPE(sandscope::MemberLookupResult)
