#include "fleetfanout.h"

#include "server/openterminalclient.h"

#include <QTimer>

namespace sandscope {

FleetFanOut::FleetFanOut(OpenTerminalClient *client, const AdminAccess &admin, QObject *parent)
    : QObject(parent)
{
    qRegisterMetaType<FanOutMemberResult>("sandscope::FanOutMemberResult");
    m_targets.append(FanOutTarget {0, QString(), client, admin});
}

FleetFanOut::FleetFanOut(
    const FleetConfig &fleet, const ServerConnection &connection, QObject *parent)
    : QObject(parent)
    , m_isFleet(true)
{
    qRegisterMetaType<FanOutMemberResult>("sandscope::FanOutMemberResult");
    for (const FleetMember &member : fleet.members) {
        ServerConnection memberConnection = connection;
        memberConnection.baseUrl = member.url;
        m_ownedClients.push_back(std::make_unique<OpenTerminalClient>(memberConnection));
        m_targets.append(FanOutTarget {
            int(m_targets.size()), member.name, m_ownedClients.back().get(), member.admin});
    }
}

FleetFanOut::~FleetFanOut()
{
    cancel();
}

QStringList FleetFanOut::memberNames() const
{
    QStringList names;
    for (const FanOutTarget &target : m_targets)
        names.append(target.member);
    return names;
}

int FleetFanOut::failedCount() const
{
    return int(std::count_if(m_results.cbegin(), m_results.cend(),
        [](const FanOutMemberResult &result) { return !result.ok; }));
}

QString FleetFanOut::memberUrl(const FanOutTarget &target)
{
    return target.client
        ? target.client->connection().baseUrl.adjusted(QUrl::RemoveUserInfo).toString()
        : QString();
}

QString FleetFanOut::memberText(const FanOutTarget &target)
{
    const QString url = memberUrl(target);
    return url.isEmpty() ? QStringLiteral("member %1").arg(target.member)
                         : QStringLiteral("member %1 (%2)").arg(target.member, url);
}

QString FleetFanOut::memberError(const FanOutTarget &target, const QString &error)
{
    if (target.member.isEmpty())
        return error;
    const QString url = memberUrl(target);
    const QString name = memberText(target);
    return error.contains(url) && !url.isEmpty()
        ? QStringLiteral("member %1: %2").arg(target.member, error)
        : name + QStringLiteral(": ") + error;
}

void FleetFanOut::run(const Job &job)
{
    cancel();
    const quint64 generation = ++m_generation;
    const int count = int(m_targets.size());
    m_results = QVector<FanOutMemberResult>(count);
    m_clocks = QVector<QElapsedTimer>(count);
    m_contexts = QVector<QPointer<QObject>>(count);
    m_pending = count;
    for (int i = 0; i < count; ++i) {
        m_results[i].index = i;
        m_results[i].member = m_targets.at(i).member;
        m_clocks[i].start();
        auto *context = new QObject(this);
        m_contexts[i] = context;
        if (m_memberTimeoutMs > 0) {
            QTimer::singleShot(m_memberTimeoutMs, context, [this, i, generation] {
                memberEnded(i, generation, false, true,
                    tr("did not answer within %1 s").arg(m_memberTimeoutMs / 1000.0));
            });
        }
    }
    // Every job is started before any answer can be handled: answers come from the event loop.
    for (int i = 0; i < count; ++i) {
        QObject *context = m_contexts.at(i);
        if (!context)
            continue;
        job(m_targets.at(i), context, [this, i, generation](bool ok, const QString &error) {
            memberEnded(i, generation, ok, false, error);
        });
    }
}

void FleetFanOut::cancel()
{
    ++m_generation;
    m_pending = 0;
    for (const QPointer<QObject> &context : std::as_const(m_contexts))
        delete context.data();
    m_contexts.clear();
}

void FleetFanOut::memberEnded(
    int index, quint64 generation, bool ok, bool timedOut, const QString &error)
{
    if (generation != m_generation || index >= m_contexts.size() || !m_contexts.at(index))
        return; // cancelled, timed out already, or ended twice
    // The context goes after this call returns: the job that called us may still be using it.
    m_contexts[index]->deleteLater();
    m_contexts[index] = nullptr;
    FanOutMemberResult &result = m_results[index];
    result.ok = ok;
    result.timedOut = timedOut;
    result.error = ok ? QString() : memberError(m_targets.at(index), error);
    result.elapsedMs = m_clocks.at(index).elapsed();
    --m_pending;
    Q_EMIT memberFinished(result);
    if (m_pending == 0 && generation == m_generation)
        Q_EMIT finished(failedCount());
}

} // namespace sandscope
