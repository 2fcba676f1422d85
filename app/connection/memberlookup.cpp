#include "memberlookup.h"

#include "fleet/fleetfanout.h"

#include <memory>

namespace sandscope {

MemberLookup::MemberLookup(FleetFanOut *fanOut, QObject *parent)
    : QObject(parent)
    , m_fanOut(fanOut)
{
    qRegisterMetaType<MemberLookupResult>("sandscope::MemberLookupResult");
    m_fanOut->setParent(this);
}

QStringList MemberLookup::membersHolding(
    const QVector<FleetMemberStatus> &members, const QString &account, const QString &userId)
{
    QStringList holding;
    for (const FleetMemberStatus &member : members) {
        for (const FleetAccount &held : member.accounts) {
            // Members may name the same user's account differently (their own prefixes).
            if ((!account.isEmpty() && held.account == account)
                || (!userId.isEmpty() && held.userId == userId)) {
                holding.append(member.name);
                break;
            }
        }
    }
    return holding;
}

void MemberLookup::start(const QString &account, const QString &userId)
{
    auto answered = std::make_shared<QVector<FleetMemberStatus>>();
    auto errors = std::make_shared<QStringList>();
    m_fanOut->runForValues<FleetMemberStatus>(fleetstatus::listAccounts,
        [this, answered, errors, account, userId](
            const FanOutMemberResult &result, const FleetMemberStatus &status) {
            if (!result.ok) {
                errors->append(result.error);
                return;
            }
            answered->append(status);
            if (!membersHolding({status}, account, userId).isEmpty())
                Q_EMIT found(status.name);
        });
    connect(m_fanOut, &FleetFanOut::finished, this, [this, answered, errors, account, userId] {
        MemberLookupResult result;
        result.members = membersHolding(*answered, account, userId);
        result.errors = *errors;
        const QString who = userId.isEmpty() ? account : userId;
        if (result.members.isEmpty() && !errors->isEmpty())
            result.reason = tr("No member that answered holds the home of %1; not every member "
                               "answered:\n%2")
                                .arg(who, errors->join(QLatin1Char('\n')));
        else if (result.members.isEmpty())
            result.reason = tr("No member holds a home of %1 yet: the router chooses the member "
                               "on the user's first use.")
                                .arg(who);
        Q_EMIT finished(result);
    });
}

} // namespace sandscope
