#pragma once
// The live wall of a fleet: one LiveAgentWatcher (one follower process) per member, each
// through the member's own admin command, merged into one stream of changes. Each agent's
// id is prefixed with its member (two pods may run the same pid) and its row names the
// member; its times are moved onto this machine's clock by that member's heartbeat offset
// (members need not agree on the time, and the wall measures elapsed times on one clock). A
// member whose follower fails, ends or falls silent (a frozen pod) is named while the others
// go on; its agents leave the wall, since nothing says what they do any more.

#include "fleet/fleetfanout.h"
#include "live/liveagentwatcher.h"

#include <QObject>
#include <QPointer>

#include <memory>
#include <vector>

namespace sandscope {

class FleetLiveWatcher : public QObject {
    Q_OBJECT
public:
    // `fanOut` (not owned) names the members; one server works too (ids and times as they
    // are, no member).
    explicit FleetLiveWatcher(FleetFanOut *fanOut, QObject *parent = nullptr);
    ~FleetLiveWatcher() override;

    void start();
    void stop();
    // For every member's follower (LiveAgentWatcher::setSilenceLimitMs); before start().
    void setSilenceLimitMs(int ms) { m_silenceLimitMs = ms; }
    // Members whose follower is still watching.
    int watching() const;
    int processesStarted() const;
    const LiveAgentWatcher *watcher(int member) const
    {
        return m_watchers.at(size_t(member)).get();
    }
    // Now on this machine's clock for a fleet (rows are moved onto it), on the server's for
    // one server (rows keep its times).
    qint64 nowMs() const;

Q_SIGNALS:
    void agentsChanged(
        const QVector<sandscope::LiveAgentRow> &changed, const QList<QByteArray> &ended);
    // One member's follower failed or ended (the message names the member).
    void memberFailed(const QString &message);
    // Every member's follower failed.
    void failed(const QString &message);
    // A member's follower started watching.
    void memberWatching(int member);

private:
    void forward(int member, QVector<LiveAgentRow> changed, const QList<QByteArray> &ended);
    void memberDown(int member, const QString &message);

    QPointer<FleetFanOut> m_fanOut;
    std::vector<std::unique_ptr<LiveAgentWatcher>> m_watchers;
    QVector<QSet<QByteArray>> m_shown; // per member: the ids on the wall (prefixed)
    QStringList m_errors;
    int m_silenceLimitMs = followprotocol::silenceLimitMs;
};

} // namespace sandscope
