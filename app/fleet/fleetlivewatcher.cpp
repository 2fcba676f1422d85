#include "fleetlivewatcher.h"

#include <QDateTime>

namespace sandscope {

namespace {

bool isFleetOf(const FleetFanOut *fanOut)
{
    return fanOut && fanOut->isFleet();
}

} // namespace

FleetLiveWatcher::FleetLiveWatcher(FleetFanOut *fanOut, QObject *parent)
    : QObject(parent)
    , m_fanOut(fanOut)
{
}

FleetLiveWatcher::~FleetLiveWatcher()
{
    stop();
}

void FleetLiveWatcher::start()
{
    stop();
    if (!m_fanOut)
        return;
    const int count = int(m_fanOut->targets().size());
    m_shown = QVector<QSet<QByteArray>>(count);
    m_errors.clear();
    for (int i = 0; i < count; ++i) {
        auto watcher = std::make_unique<LiveAgentWatcher>();
        watcher->setSilenceLimitMs(m_silenceLimitMs);
        connect(watcher.get(), &LiveAgentWatcher::agentsChanged, this,
            [this, i](const QVector<LiveAgentRow> &changed, const QList<QByteArray> &ended) {
                forward(i, changed, ended);
            });
        connect(watcher.get(), &LiveAgentWatcher::failed, this,
            [this, i](const QString &message) { memberDown(i, message); });
        connect(watcher.get(), &LiveAgentWatcher::stateChanged, this,
            [this, i](LiveAgentWatcher::State state) {
                if (state == LiveAgentWatcher::State::Watching)
                    Q_EMIT memberWatching(i);
            });
        m_watchers.push_back(std::move(watcher));
    }
    for (int i = 0; i < count; ++i) {
        const FanOutTarget &target = m_fanOut->targets().at(i);
        m_watchers.at(size_t(i))->start(target.client, target.admin);
    }
}

void FleetLiveWatcher::stop()
{
    for (const auto &watcher : m_watchers) {
        disconnect(watcher.get(), nullptr, this, nullptr);
        watcher->stop();
    }
    m_watchers.clear();
}

int FleetLiveWatcher::watching() const
{
    int count = 0;
    for (const auto &watcher : m_watchers)
        count += watcher->state() != LiveAgentWatcher::State::Failed ? 1 : 0;
    return count;
}

int FleetLiveWatcher::processesStarted() const
{
    int count = 0;
    for (const auto &watcher : m_watchers)
        count += watcher->processesStarted();
    return count;
}

qint64 FleetLiveWatcher::nowMs() const
{
    if (!isFleetOf(m_fanOut) && !m_watchers.empty())
        return m_watchers.front()->serverNowMs();
    return QDateTime::currentMSecsSinceEpoch();
}

void FleetLiveWatcher::forward(
    int member, QVector<LiveAgentRow> changed, const QList<QByteArray> &ended)
{
    if (!isFleetOf(m_fanOut)) {
        Q_EMIT agentsChanged(changed, ended);
        return;
    }
    const QString name = m_fanOut->targets().at(member).member;
    const QByteArray prefix = name.toUtf8() + '/';
    // The member's times onto this machine's clock.
    const qint64 offset = m_watchers.at(size_t(member))->clockOffsetMs();
    for (LiveAgentRow &row : changed) {
        row.info.id = prefix + row.info.id;
        row.info.member = name;
        if (row.toolStartedMs > 0)
            row.toolStartedMs -= offset;
        if (row.lastActivityMs > 0)
            row.lastActivityMs -= offset;
        m_shown[member].insert(row.info.id);
    }
    QList<QByteArray> gone;
    for (const QByteArray &id : ended) {
        gone.append(prefix + id);
        m_shown[member].remove(prefix + id);
    }
    Q_EMIT agentsChanged(changed, gone);
}

void FleetLiveWatcher::memberDown(int member, const QString &message)
{
    const FanOutTarget &target = m_fanOut->targets().at(member);
    const QString named = FleetFanOut::memberError(target, message);
    m_errors.append(named);
    // Nothing tells what its agents do any more: they leave the wall.
    const QList<QByteArray> gone = m_shown.value(member).values();
    m_shown[member].clear();
    if (!gone.isEmpty())
        Q_EMIT agentsChanged({}, gone);
    Q_EMIT memberFailed(named);
    if (watching() == 0)
        Q_EMIT failed(m_errors.join(QLatin1Char('\n')));
}

} // namespace sandscope
