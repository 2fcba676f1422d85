#pragma once
// Every running Claude Code agent on the server, for the live wall: ONE follower process in
// agents mode (followprotocol.h) as root through the admin channel, for all users, pushes the
// agents that appear and end and their transcripts' bytes. Each agent is a LiveAgent; what
// changed is told in batches at most every `coalesceMs` (default 250 ms), and frames are
// worked through in slices of at most `sliceMs` of the event loop, so that a burst (a wall
// opened on 200 long transcripts, 200 agents writing at once) never stalls the main thread.

#include "live/liveagent.h"
#include "server/adminaccess.h"
#include "server/apierror.h"
#include "terminal/followprotocol.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QTimer>

#include <deque>
#include <memory>

namespace sandscope {

class AdminScript;
class OpenTerminalClient;

class LiveAgentWatcher : public QObject {
    Q_OBJECT
public:
    enum class State { Idle, Starting, Watching, Failed };
    Q_ENUM(State)

    explicit LiveAgentWatcher(QObject *parent = nullptr);
    ~LiveAgentWatcher() override;

    void setCoalesceMs(int ms) { m_coalesce.setInterval(ms); }
    void setSliceMs(int ms) { m_sliceMs = ms; }
    // A follower silent for this long (no heartbeat, which comes every 5 s; default
    // followprotocol::silenceLimitMs)
    // has failed: a frozen pod or a hung admin command never ends the process here.
    void setSilenceLimitMs(int ms) { m_silenceLimitMs = ms; }
    // Starts the follower through `admin` (a local admin command, or the server's account).
    void start(OpenTerminalClient *client, const AdminAccess &admin);
    // Ends the follower; no more signals.
    void stop();
    // Frames of a follower in agents mode, as they came (the recorded stream of a unit test,
    // or a follower run some other way): the same handling as the admin channel's output.
    void feed(const QByteArray &bytes);

    State state() const { return m_state; }
    QString error() const { return m_error; }
    // How many follower processes this watcher started (the wall needs exactly one).
    int processesStarted() const { return m_processesStarted; }
    int agentCount() const { return int(m_agents.size()); }
    // Now on the sandbox's clock, as its heartbeats tell it (the records' times are on it):
    // the wall's elapsed times do not depend on this machine's clock being right.
    qint64 serverNowMs() const { return QDateTime::currentMSecsSinceEpoch() + m_clockOffsetMs; }
    qint64 clockOffsetMs() const { return m_clockOffsetMs; }
    // Every frame received was handled and every change told.
    bool isIdle() const { return m_queue.empty() && !m_coalesce.isActive(); }
    QVector<LiveAgentRow> rows() const;

Q_SIGNALS:
    void stateChanged(sandscope::LiveAgentWatcher::State state);
    // At most every coalesceMs: rows of the agents that appeared or changed (also the last
    // state of one that ended meanwhile), and the ids of those that ended.
    void agentsChanged(
        const QVector<sandscope::LiveAgentRow> &changed, const QList<QByteArray> &ended);
    // The follower could not start, failed or ended.
    void failed(const QString &message);

private:
    void takeOutput(const QString &text);
    void work();
    void handle(const followprotocol::Frame &frame);
    // True when the agent's row changed.
    bool handleSubagent(LiveAgent &agent, const QString &name, const followprotocol::Frame &frame);
    void flush();
    void setState(State state);
    void fail(const QString &message);
    void endScript(); // the follower ended, its queued frames dropped

    QPointer<AdminScript> m_script;
    followprotocol::FrameReader m_reader;
    std::deque<followprotocol::Frame> m_queue;
    QHash<QByteArray, std::shared_ptr<LiveAgent>> m_agents;
    QSet<QByteArray> m_changed;
    QSet<QByteArray> m_ended;
    QVector<LiveAgentRow> m_finalRows; // of agents that ended with changes not told yet
    QTimer m_coalesce;
    QTimer m_worker; // 0 ms: the next slice of the queue
    QTimer m_silence; // restarted by every output of the follower
    int m_silenceLimitMs = followprotocol::silenceLimitMs;
    int m_sliceMs = 15;
    State m_state = State::Idle;
    QString m_error;
    int m_processesStarted = 0;
    qint64 m_clockOffsetMs = 0; // the sandbox's clock minus this machine's
};

} // namespace sandscope
