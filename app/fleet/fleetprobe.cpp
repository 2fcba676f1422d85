#include "fleetprobe.h"

#include "fleet/fleetcrossmemberchecks.h"
#include "fleet/fleetfanout.h"
#include "fleet/fleetroot.h"
#include "isolation/isolationprobe.h"
#include "probing/probepair.h"
#include "server/adminscript.h"
#include "server/openterminalclient.h"
#include "server/shortcommand.h"

#include <QSet>
#include <QUuid>

#include <memory>

namespace sandscope {

namespace {

constexpr int maximumFreshRounds = 6;

const QString accountKey = QStringLiteral("sandscope-account=");
const QString homeKey = QStringLiteral("sandscope-home=");
const QString homeIdKey = QStringLiteral("sandscope-homeid=");

// A fresh id: its first eight letters and digits are random, so it gets an account of its own
// (the server names accounts after them), and its tail says what made it.
QString freshUserId()
{
    return probe::randomToken(8) + QStringLiteral("-probe");
}

} // namespace

FleetProbe::FleetProbe(OpenTerminalClient *router, FleetFanOut *fanOut, QObject *parent)
    : QObject(parent)
    , m_router(router)
    , m_fanOut(fanOut)
{
}

FleetProbe::~FleetProbe() = default;

QString FleetProbe::placementCommand()
{
    return QStringLiteral("printf '%1%s\\n%2%s\\n%3%s\\n' \"$(id -un)\" \"$HOME\" "
                          "\"$(stat -c %d:%i \"$HOME\")\"")
        .arg(accountKey, homeKey, homeIdKey);
}

bool FleetProbe::parsePlacement(const QStringList &lines, ProbePlacement *placement)
{
    for (const QString &line : lines) {
        if (line.startsWith(accountKey))
            placement->account = line.mid(accountKey.size());
        else if (line.startsWith(homeKey))
            placement->home = line.mid(homeKey.size());
        else if (line.startsWith(homeIdKey))
            placement->homeId = line.mid(homeIdKey.size());
    }
    return !placement->account.isEmpty() && !placement->homeId.isEmpty();
}

void FleetProbe::placeOnMembers(
    QVector<ProbePlacement> *users, const QVector<FleetMemberStatus> &members)
{
    for (ProbePlacement &user : *users) {
        if (!user.member.isEmpty() || user.account.isEmpty())
            continue;
        QStringList holding;
        for (const FleetMemberStatus &member : members) {
            for (const FleetAccount &account : member.accounts) {
                if (account.account == user.account && account.homeId == user.homeId) {
                    holding << member.name;
                    break;
                }
            }
        }
        if (holding.size() == 1) {
            user.member = holding.constFirst();
            user.why.clear();
        } else if (holding.isEmpty()) {
            user.why = tr("no member that answered holds the home %1 (%2) that the router "
                          "showed it")
                           .arg(user.home, user.homeId);
        } else {
            user.why = tr("the members %1 each hold a home %2 with the same device and inode: "
                          "which one the router sends it to is not known")
                           .arg(holding.join(QStringLiteral(", ")), user.homeId);
        }
    }
}

bool FleetProbe::start(const ProbeOptions &options, int freshPerMember, QString *why)
{
    const auto refuse = [why](const QString &reason) {
        if (why)
            *why = reason;
        return false;
    };
    if (m_running)
        return refuse(tr("A probe is already running."));
    if (!m_fanOut || !m_fanOut->isFleet())
        return refuse(tr("The fleet probe needs the fleet's members."));
    if (freshPerMember > 0) {
        if (!options.users.isEmpty())
            return refuse(tr("Give either user ids or a number of fresh users per member."));
        if (freshPerMember < 2 || freshPerMember > maximumFreshPerMember)
            return refuse(
                tr("Fresh users per member: between 2 and %1.").arg(maximumFreshPerMember));
    } else {
        QString invalid;
        if (!probe::checkUserIds(options.users, &invalid))
            return refuse(invalid);
        if (options.users.size() < 2)
            return refuse(tr("The probe needs at least two user ids."));
    }
    m_options = options;
    m_freshPerMember = freshPerMember;
    m_freshRound = 0;
    m_cancelled = false;
    m_running = true;
    m_report = {};
    m_report.server = m_router->connection().baseUrl.adjusted(QUrl::RemoveUserInfo).toString();
    m_report.startedAt = QDateTime::currentDateTimeUtc();
    m_placed.clear();
    m_probed.clear();
    m_versions.clear();
    delete m_work;
    m_work = new QObject(this);
    if (freshPerMember > 0) {
        placeFreshRound();
    } else {
        m_probed = options.users;
        place(options.users, [this] { probeMembers(); });
    }
    return true;
}

void FleetProbe::cancel()
{
    if (!m_running || m_cancelled)
        return;
    m_cancelled = true;
    Q_EMIT progress(tr("Cancelled: removing what the probe created"));
    if (m_memberProbe && m_memberProbe->isRunning()) {
        m_memberProbe->cancel(); // its finished() goes on to the removal of the fresh ids
        return;
    }
    if (m_crossChecks) {
        m_crossChecks->cancel(); // its finished() goes on to the removal of the fresh ids
        return;
    }
    // Placement in flight: its answers are dropped; what it created is removed.
    delete m_work;
    m_work = new QObject(this);
    if (m_fanOut)
        m_fanOut->cancel();
    removeFreshUsers();
}

void FleetProbe::place(const QStringList &ids, const std::function<void()> &then)
{
    Q_EMIT progress(tr("Finding where the router sends %n user(s)", nullptr, int(ids.size())));
    const int first = int(m_placed.size());
    for (const QString &id : ids) {
        ProbePlacement placement;
        placement.userId = id;
        m_placed << placement;
    }
    auto waiting = std::make_shared<int>(int(ids.size()));
    const auto listMembers = [this, first, then] {
        auto answered = std::make_shared<QVector<FleetMemberStatus>>();
        QObject *work = m_work;
        m_fanOut->runForValues<FleetMemberStatus>(fleetstatus::listAccounts,
            [this, answered, work](
                const FanOutMemberResult &result, const FleetMemberStatus &status) {
                if (!work)
                    return;
                if (result.ok)
                    answered->append(status);
                else
                    Q_EMIT progress(result.error);
            });
        // One connection per listing: disconnected by its first call.
        auto connection = std::make_shared<QMetaObject::Connection>();
        *connection = connect(
            m_fanOut, &FleetFanOut::finished, m_work, [this, answered, first, then, connection] {
                disconnect(*connection);
                QVector<ProbePlacement> batch = m_placed.mid(first);
                placeOnMembers(&batch, *answered);
                for (int i = 0; i < batch.size(); ++i) {
                    ProbePlacement &placement = batch[i];
                    if (!placement.member.isEmpty())
                        placement.evidence.note
                            = tr("where the router sends \"%1\": account %2, "
                                 "home %3 (device:inode %4), held by member %5")
                                  .arg(placement.userId, placement.account, placement.home,
                                      placement.homeId, placement.member);
                    m_placed[first + i] = placement;
                }
                then();
            });
    };
    for (int i = 0; i < ids.size(); ++i) {
        const int index = first + i;
        Identity identity {ids.at(i), QUuid::createUuid().toString(QUuid::WithoutBraces)};
        runShortCommand(
            m_router, identity, placementCommand(), m_work,
            [this, index, waiting, listMembers](const Result<CommandOutput> &result) {
                ProbePlacement &placement = m_placed[index];
                placement.evidence.request
                    = QStringLiteral("%1  (X-User-Id: %2, through the router)")
                          .arg(placementCommand(), placement.userId);
                if (!result.ok()) {
                    placement.why = tr("its request through the router failed: %1")
                                        .arg(result.error.toString());
                    placement.evidence.response = placement.why;
                } else {
                    placement.evidence.response = result.value.lines.join(QLatin1Char('\n'));
                    if (!parsePlacement(result.value.lines, &placement))
                        placement.why = tr("it did not say its account and home");
                }
                if (--*waiting == 0)
                    listMembers();
            },
            m_options.commandTimeoutMs);
    }
}

void FleetProbe::placeFreshRound()
{
    const QStringList members = m_fanOut->memberNames();
    QMap<QString, int> kept;
    for (const QString &id : std::as_const(m_probed)) {
        for (const ProbePlacement &placement : std::as_const(m_placed)) {
            if (placement.userId == id)
                ++kept[placement.member];
        }
    }
    int missing = 0;
    for (const QString &member : members)
        missing += std::max(0, m_freshPerMember - kept.value(member));
    if (missing == 0 || m_freshRound >= maximumFreshRounds) {
        for (const QString &member : members) {
            if (kept.value(member) < m_freshPerMember)
                m_report.notProbed << tr("member %1: of %2 fresh ids made through the router, "
                                         "it was sent %3 (wanted %4): does the router reach it?")
                                          .arg(member)
                                          .arg(m_placed.size())
                                          .arg(kept.value(member))
                                          .arg(m_freshPerMember);
        }
        probeMembers();
        return;
    }
    ++m_freshRound;
    // Twice what is missing: the router spreads the ids about evenly over the members.
    QStringList ids;
    for (int i = 0; i < 2 * missing; ++i)
        ids << freshUserId();
    place(ids, [this, ids] {
        if (m_cancelled)
            return;
        for (const QString &id : ids) {
            for (const ProbePlacement &placement : std::as_const(m_placed)) {
                if (placement.userId != id || placement.member.isEmpty())
                    continue;
                if (usersOn(placement.member).size() < m_freshPerMember)
                    m_probed << id;
            }
        }
        placeFreshRound();
    });
}

QStringList FleetProbe::usersOn(const QString &member) const
{
    QStringList users;
    for (const QString &id : m_probed) {
        for (const ProbePlacement &placement : m_placed) {
            if (placement.userId == id && placement.member == member)
                users << id;
        }
    }
    return users;
}

void FleetProbe::probeMembers()
{
    if (m_cancelled)
        return;
    m_memberQueue.clear();
    for (const ProbePlacement &placement : std::as_const(m_placed)) {
        if (!m_probed.contains(placement.userId))
            continue;
        if (placement.member.isEmpty()) {
            m_report.notProbed
                << tr("%1: where it lives is not known: %2").arg(placement.userId, placement.why);
            continue;
        }
        m_report.userMembers.insert(placement.userId, placement.member);
    }
    // Grouped by member in the fleet's order, so a matrix shows each member's pairs together.
    for (const QString &member : m_fanOut->memberNames())
        m_report.users << usersOn(member);
    Q_EMIT placed(m_report.users, m_report.userMembers);
    for (const QString &member : m_fanOut->memberNames()) {
        const QStringList users = usersOn(member);
        if (users.size() >= 2)
            m_memberQueue << member;
        else if (users.size() == 1)
            m_report.notProbed << tr(
                "%1 is the only one of the users on member %2: the router sends the "
                "others' requests to other members, where nothing of %1's is, so a "
                "refusal there would prove nothing; probe it with users of its member")
                                      .arg(users.constFirst(), member);
    }
    probeNextMember();
}

void FleetProbe::probeNextMember()
{
    if (m_cancelled) {
        removeFreshUsers();
        return;
    }
    if (m_memberQueue.isEmpty()) {
        probeAcrossMembers();
        return;
    }
    const QString member = m_memberQueue.takeFirst();
    const FanOutTarget *target = nullptr;
    for (const FanOutTarget &candidate : m_fanOut->targets()) {
        if (candidate.member == member)
            target = &candidate;
    }
    Q_ASSERT(target);
    ProbeOptions options = m_options;
    options.users = usersOn(member);
    options.hasAdmin = true;
    options.admin = target->admin;
    // The placement is the precondition of every check on this member: shown with them.
    QVector<Evidence> placement;
    for (const ProbePlacement &placed : std::as_const(m_placed)) {
        if (options.users.contains(placed.userId))
            placement << placed.evidence;
    }
    auto *probe = new IsolationProbe(target->client, m_work);
    m_memberProbe = probe;
    connect(probe, &IsolationProbe::resultReady, this,
        [this, member, placement](const CheckResult &result) {
            CheckResult onMember = result;
            onMember.member = member;
            onMember.evidence = placement + onMember.evidence;
            m_report.results << onMember;
            Q_EMIT resultReady(onMember);
        });
    connect(probe, &IsolationProbe::progress, this, [this, member](const QString &step) {
        Q_EMIT progress(tr("member %1: %2").arg(member, step));
    });
    connect(
        probe, &IsolationProbe::finished, this, [this, member, probe](const ProbeReport &report) {
            m_versions.insert(member, report.serverVersion);
            probe->deleteLater();
            probeNextMember();
        });
    QString why;
    Q_EMIT progress(
        tr("Probing member %1 with %2").arg(member, options.users.join(QStringLiteral(", "))));
    if (!probe->start(options, &why)) {
        m_report.notProbed << tr("member %1: %2").arg(member, why);
        probe->deleteLater();
        probeNextMember();
    }
}

void FleetProbe::probeAcrossMembers()
{
    const QVector<CrossMemberPair> pairs = FleetCrossMemberChecks::pairsFor(
        m_report.users, m_report.userMembers, m_fanOut->memberNames());
    const bool wanted = m_options.onlyChecks.isEmpty()
        || m_options.onlyChecks.contains(CheckId::MemberNetwork)
        || m_options.onlyChecks.contains(CheckId::MemberApi);
    if (pairs.isEmpty() || !wanted) {
        removeFreshUsers();
        return;
    }
    auto *checks = new FleetCrossMemberChecks(m_router, m_fanOut->targets(), m_work);
    m_crossChecks = checks;
    connect(checks, &FleetCrossMemberChecks::resultReady, this, [this](const CheckResult &result) {
        // The placement of both users is the precondition, shown with the result.
        CheckResult placed = result;
        QVector<Evidence> placement;
        for (const ProbePlacement &user : std::as_const(m_placed)) {
            if (user.userId == result.target || user.userId == result.actor)
                placement << user.evidence;
        }
        placed.evidence = placement + placed.evidence;
        m_report.results << placed;
        Q_EMIT resultReady(placed);
    });
    connect(checks, &FleetCrossMemberChecks::progress, this, &FleetProbe::progress);
    connect(checks, &FleetCrossMemberChecks::finished, this, [this, checks] {
        checks->deleteLater();
        removeFreshUsers();
    });
    checks->start(pairs, m_report, m_options);
}

void FleetProbe::removeFreshUsers()
{
    if (m_freshPerMember == 0) {
        finish();
        return;
    }
    auto waiting = std::make_shared<int>(0);
    for (const ProbePlacement &placement : std::as_const(m_placed)) {
        if (placement.member.isEmpty()) {
            // Its first request may have made it an account on a member nobody named.
            m_report.leftBehind << tr("where the fresh id %1 lives is not known, so "
                                      "its account (%2) may be left")
                                       .arg(placement.userId,
                                           placement.account.isEmpty() ? tr("name not known")
                                                                       : placement.account);
            continue;
        }
        for (const FanOutTarget &target : m_fanOut->targets()) {
            if (target.member != placement.member)
                continue;
            ++*waiting;
            const QString script = fleetroot::script({QStringLiteral("remove"), placement.account,
                QString::fromLatin1(placement.home.toUtf8().toBase64())});
            runAdminCommand(target.client, target.admin, script, this,
                [this, waiting, placement](const Result<CommandOutput> &result) {
                    if (!result.ok() || !result.value.lines.contains(QStringLiteral("REMOVED")))
                        m_report.leftBehind
                            << tr("the probe's account %1 on member %2: %3")
                                   .arg(placement.account, placement.member,
                                       result.ok() ? result.value.lines.join(QLatin1Char(' '))
                                                   : result.error.toString());
                    if (--*waiting == 0)
                        finish();
                });
        }
    }
    if (*waiting == 0)
        finish();
}

void FleetProbe::finish()
{
    QStringList versions;
    for (auto it = m_versions.cbegin(); it != m_versions.cend(); ++it) {
        if (!versions.contains(it.value()))
            versions << it.value();
    }
    m_report.serverVersion = versions.join(QStringLiteral(", "));
    m_report.cancelled = m_cancelled;
    m_report.finishedAt = QDateTime::currentDateTimeUtc();
    m_running = false;
    Q_EMIT finished(m_report);
}

} // namespace sandscope
