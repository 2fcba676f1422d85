#include "fleetstatus.h"

#include "fleet/fleetroot.h"
#include "server/accountnames.h"
#include "server/adminscript.h"
#include "server/openterminalclient.h"

#include <QSet>

namespace sandscope {

namespace {

constexpr int routeSamplesPerMember = 3;

// fleetroot.py writes names and paths as base64.
QString decodedText(const QString &base64)
{
    return QString::fromUtf8(QByteArray::fromBase64(base64.toLatin1()));
}

} // namespace

bool FleetStatusReport::anyFailed() const
{
    return std::any_of(members.cbegin(), members.cend(), [](const FleetMemberStatus &member) {
        return member.state == FleetMemberStatus::State::Failed;
    });
}

namespace fleetstatus {

bool parseAccounts(const QStringList &lines, FleetMemberStatus *member, QString *error)
{
    bool sawDisk = false;
    for (const QString &line : lines) {
        const QStringList w = line.split(QLatin1Char(' '));
        if (w.value(0) == QLatin1String("U") && w.size() == 6) {
            if (w.at(3) != QLatin1String("1"))
                continue; // an account of this machine whose home is elsewhere
            FleetAccount account;
            account.account = w.at(1);
            account.userId = userIdForAccount(account.account);
            account.homeId = w.at(4);
            account.home = decodedText(w.at(5));
            member->accounts.append(account);
        } else if (w.value(0) == QLatin1String("DISK") && w.size() == 3) {
            member->diskUsed = w.at(1).toLongLong();
            member->diskFree = w.at(2).toLongLong();
            sawDisk = true;
        } else if (w.value(0) == QLatin1String("AGENTS") && w.size() == 2) {
            member->agents = w.at(1).toInt();
        } else if (w.value(0) == QLatin1String("HOST") && w.size() == 2) {
            member->host = decodedText(w.at(1));
        }
    }
    if (!sawDisk)
        *error = QStringLiteral("its admin command gave no account listing");
    return sawDisk;
}

void listAccounts(const FanOutTarget &target, QObject *context,
    const FleetFanOut::ValueDone<FleetMemberStatus> &done)
{
    runAdminCommand(target.client, target.admin, fleetroot::script({QStringLiteral("accounts")}),
        context, [member = target.member, done](const Result<CommandOutput> &result) {
            FleetMemberStatus status;
            status.name = member;
            QString why;
            if (!result.ok())
                done(false, status, result.error.toString());
            else if (result.value.exitCode != 0
                || !parseAccounts(result.value.lines, &status, &why))
                done(false, status,
                    why.isEmpty() ? QStringLiteral("its admin command ended with status %1")
                                        .arg(result.value.exitCode)
                                  : why);
            else
                done(true, status, QString());
        });
}

} // namespace fleetstatus

FleetStatus::FleetStatus(FleetConfig fleet, QString apiKey, int timeoutMs, QObject *parent)
    : QObject(parent)
    , m_fleet(std::move(fleet))
    , m_apiKey(std::move(apiKey))
    , m_timeoutMs(timeoutMs)
{
    qRegisterMetaType<FleetMemberStatus>("sandscope::FleetMemberStatus");
    qRegisterMetaType<FleetStatusReport>("sandscope::FleetStatusReport");
}

FleetStatus::~FleetStatus() = default;

void FleetStatus::start()
{
    m_report = {};
    m_clients.clear();
    m_clocks = QVector<QElapsedTimer>(int(m_fleet.members.size()));
    for (const FleetMember &member : std::as_const(m_fleet.members)) {
        FleetMemberStatus status;
        status.name = member.name;
        status.url = member.url;
        m_report.members.append(status);
        m_clients.push_back(std::make_unique<OpenTerminalClient>(
            ServerConnection {member.url, m_apiKey, m_timeoutMs}));
    }
    m_clients.push_back(std::make_unique<OpenTerminalClient>(
        ServerConnection {m_fleet.router, m_apiKey, m_timeoutMs}));
    m_waiting = int(m_fleet.members.size());
    for (int i = 0; i < m_fleet.members.size(); ++i)
        askMember(i);
}

void FleetStatus::askMember(int index)
{
    m_clocks[index].start();
    OpenTerminalClient *client = m_clients.at(size_t(index)).get();
    // Its version first (openapi and config, which also proves it answers), then its accounts
    // as root.
    client->serverInfo(this, [this, index, client](const Result<ServerInfo> &info) {
        FleetMemberStatus &member = m_report.members[index];
        if (!info.ok()) {
            member.state = FleetMemberStatus::State::Failed;
            member.error = info.error.toString();
            memberDone(index);
            return;
        }
        member.version = info.value.version;
        runAdminCommand(client, m_fleet.members.at(index).admin,
            fleetroot::script({QStringLiteral("accounts")}), this,
            [this, index](const Result<CommandOutput> &result) {
                FleetMemberStatus &listed = m_report.members[index];
                QString why;
                if (!result.ok()) {
                    listed.state = FleetMemberStatus::State::Failed;
                    listed.error = result.error.toString();
                } else if (result.value.exitCode != 0
                    || !fleetstatus::parseAccounts(result.value.lines, &listed, &why)) {
                    listed.state = FleetMemberStatus::State::Failed;
                    listed.error = why.isEmpty()
                        ? QStringLiteral("its admin command ended with status %1: %2")
                              .arg(result.value.exitCode)
                              .arg(result.value.lines.mid(0, 3).join(QStringLiteral(" / ")))
                        : why;
                } else {
                    listed.state = FleetMemberStatus::State::Answered;
                }
                memberDone(index);
            });
    });
}

void FleetStatus::memberDone(int index)
{
    FleetMemberStatus &member = m_report.members[index];
    member.elapsedMs = m_clocks.at(index).elapsed();
    Q_EMIT memberAnswered(index, member);
    if (--m_waiting == 0)
        checkRoutes();
}

void FleetStatus::checkRoutes()
{
    OpenTerminalClient *router = m_clients.back().get();
    for (int i = 0; i < m_report.members.size(); ++i) {
        const FleetMemberStatus &member = m_report.members.at(i);
        if (member.state != FleetMemberStatus::State::Answered)
            continue;
        int samples = 0;
        for (const FleetAccount &account : member.accounts) {
            if (account.userId.isEmpty() || samples == routeSamplesPerMember)
                continue;
            ++samples;
            ++m_routesWaiting;
            Identity identity;
            identity.userId = account.userId;
            runShortCommand(router, identity,
                QStringLiteral("cat /proc/sys/kernel/hostname; stat -c %d:%i ~"), this,
                [this, i, key = account.key()](const Result<CommandOutput> &result) {
                    FleetMemberStatus &asked = m_report.members[i];
                    const QStringList lines = result.ok() ? result.value.lines : QStringList();
                    if (lines.size() == 2) {
                        const QString host = lines.at(0).trimmed();
                        const QString homeId = lines.at(1).trimmed();
                        for (const FleetMemberStatus &other : std::as_const(m_report.members)) {
                            const bool holds = std::any_of(other.accounts.cbegin(),
                                other.accounts.cend(), [&](const FleetAccount &held) {
                                    return held.key() == key && held.homeId == homeId;
                                });
                            if (other.host == host && holds) {
                                // One of its users reaching it is enough to say it gets traffic.
                                if (!asked.routeChecked || other.name == asked.name)
                                    asked.routedTo = other.name;
                                asked.routeChecked = true;
                            }
                        }
                    }
                    routeChecked();
                });
        }
    }
    if (m_routesWaiting == 0)
        routeChecked();
}

void FleetStatus::routeChecked()
{
    if (m_routesWaiting > 0 && --m_routesWaiting > 0)
        return;
    judge(&m_report);
    Q_EMIT finished(m_report);
}

void FleetStatus::judge(FleetStatusReport *report)
{
    report->users.clear();
    report->anomalies.clear();
    report->notKnown.clear();
    QSet<QString> versions;
    for (const FleetMemberStatus &member : std::as_const(report->members)) {
        if (member.state != FleetMemberStatus::State::Answered)
            continue;
        versions.insert(member.version);
        for (const FleetAccount &account : member.accounts)
            report->users[account.key()].append(member.name);
    }
    for (auto it = report->users.cbegin(); it != report->users.cend(); ++it) {
        if (it.value().size() > 1)
            report->anomalies.append({QStringLiteral("two-homes"), it.key(), it.value(),
                QStringLiteral("%1 has a home on %2: move it with `sandscope fleet move` "
                               "(the router sends the user to one of them)")
                    .arg(it.key(), it.value().join(QStringLiteral(" and ")))});
    }
    if (versions.size() > 1) {
        QStringList members;
        QStringList which;
        for (const FleetMemberStatus &member : std::as_const(report->members)) {
            if (member.state == FleetMemberStatus::State::Answered) {
                members << member.name;
                which << member.name + QLatin1Char(' ') + member.version;
            }
        }
        report->anomalies.append({QStringLiteral("versions"), QString(), members,
            QStringLiteral("members run different open-terminal versions: %1")
                .arg(which.join(QStringLiteral(", ")))});
    }
    for (const FleetMemberStatus &member : std::as_const(report->members)) {
        if (member.state != FleetMemberStatus::State::Answered)
            continue;
        if (!member.routeChecked) {
            report->notKnown << QStringLiteral("whether the router sends traffic to %1: %2")
                                    .arg(member.name,
                                        member.accounts.isEmpty()
                                            ? QStringLiteral("no user lives there")
                                            : QStringLiteral("its users could not be asked for "
                                                             "through the router"));
        } else if (member.routedTo != member.name) {
            report->anomalies.append(
                {QStringLiteral("not-routed"), QString(), {member.name, member.routedTo},
                    QStringLiteral("the router sends %1's users to %2: %1 gets no traffic (a new "
                                   "replica the router does not know, or a changed member list)")
                        .arg(member.name, member.routedTo)});
        }
    }
}

} // namespace sandscope
