#include "liveagentwatcher.h"

#include "server/adminscript.h"

namespace sandscope {

using followprotocol::Frame;

LiveAgentWatcher::LiveAgentWatcher(QObject *parent)
    : QObject(parent)
{
    qRegisterMetaType<QVector<LiveAgentRow>>("QVector<sandscope::LiveAgentRow>");
    qRegisterMetaType<QList<QByteArray>>("QList<QByteArray>");
    m_coalesce.setInterval(250);
    m_coalesce.setSingleShot(true);
    connect(&m_coalesce, &QTimer::timeout, this, &LiveAgentWatcher::flush);
    m_worker.setInterval(0);
    m_worker.setSingleShot(true);
    connect(&m_worker, &QTimer::timeout, this, &LiveAgentWatcher::work);
    m_silence.setSingleShot(true);
    connect(&m_silence, &QTimer::timeout, this, [this] {
        fail(m_state == State::Watching
                ? tr("no heartbeat from the agents follower for %1 s (is its pod or admin "
                     "command still there?)")
                      .arg(m_silenceLimitMs / 1000.0)
                : tr("the agents follower did not start within %1 s")
                      .arg(2 * m_silenceLimitMs / 1000.0));
    });
}

LiveAgentWatcher::~LiveAgentWatcher()
{
    stop();
}

void LiveAgentWatcher::start(OpenTerminalClient *client, const AdminAccess &admin)
{
    stop();
    m_reader = followprotocol::FrameReader();
    m_error.clear();
    auto *script = new AdminScript(client, admin, this);
    m_script = script;
    ++m_processesStarted;
    connect(script, &AdminScript::output, this, &LiveAgentWatcher::takeOutput);
    connect(script, &AdminScript::finished, this, [this](int exitCode) {
        fail(tr("the agents follower ended (exit status %1)").arg(exitCode));
    });
    connect(
        script, &AdminScript::failed, this, [this](const ApiError &error) { fail(error.message); });
    setState(State::Starting);
    // Starting through a slow admin command (kubectl exec) gets twice the limit.
    m_silence.start(2 * m_silenceLimitMs);
    script->start(followprotocol::agentsScript());
}

void LiveAgentWatcher::endScript()
{
    if (m_script) {
        m_script->abandon();
        m_script->deleteLater();
        m_script.clear();
    }
    m_queue.clear();
    m_worker.stop();
    m_silence.stop();
}

void LiveAgentWatcher::stop()
{
    endScript();
    m_coalesce.stop();
    if (m_state == State::Starting || m_state == State::Watching)
        setState(State::Idle);
}

void LiveAgentWatcher::takeOutput(const QString &text)
{
    if (m_state == State::Watching)
        m_silence.start(m_silenceLimitMs);
    feed(text.toUtf8());
}

void LiveAgentWatcher::feed(const QByteArray &bytes)
{
    m_reader.feed(bytes);
    for (Frame &frame : m_reader.takeFrames())
        m_queue.push_back(std::move(frame));
    if (m_reader.isDamaged()) {
        fail(m_reader.damage());
        return;
    }
    if (!m_queue.empty() && !m_worker.isActive())
        m_worker.start();
}

void LiveAgentWatcher::work()
{
    QElapsedTimer slice;
    slice.start();
    while (!m_queue.empty() && slice.elapsed() < m_sliceMs) {
        const Frame frame = std::move(m_queue.front());
        m_queue.pop_front();
        handle(frame);
    }
    if (!m_queue.empty())
        m_worker.start();
    if ((!m_changed.isEmpty() || !m_ended.isEmpty()) && !m_coalesce.isActive()
        && m_state != State::Failed)
        m_coalesce.start();
}

void LiveAgentWatcher::handle(const Frame &frame)
{
    switch (frame.kind) {
    case Frame::Kind::Ready:
        setState(State::Watching);
        if (m_script)
            m_silence.start(m_silenceLimitMs);
        return;
    case Frame::Kind::Fatal:
        fail(tr("the agents follower failed: %1").arg(frame.text));
        return;
    case Frame::Kind::Heartbeat:
        // Records carry the sandbox's time; elapsed times are measured on its clock too.
        // (A follower older than the ms heartbeat sends seconds.)
        if (frame.offset > 0) {
            const qint64 serverMs
                = frame.offset < 100000000000LL ? frame.offset * 1000 : frame.offset;
            m_clockOffsetMs = serverMs - QDateTime::currentMSecsSinceEpoch();
        }
        return;
    case Frame::Kind::Agent: {
        LiveAgentInfo info;
        QString why;
        if (!LiveAgentInfo::fromJson(frame.id, frame.data, &info, &why)) {
            fail(why);
            return;
        }
        auto &agent = m_agents[frame.id];
        if (agent)
            agent->setInfo(info);
        else
            agent = std::make_shared<LiveAgent>(info);
        m_changed.insert(frame.id);
        return;
    }
    case Frame::Kind::ProcessGone:
        if (const auto agent = m_agents.take(frame.id)) {
            // What it wrote last (the follower sends it before the end) is still told.
            if (m_changed.remove(frame.id))
                m_finalRows.append(agent->row());
            m_ended.insert(frame.id);
        }
        return;
    default:
        break;
    }
    // <agent id>_<name>: the agent's sub-agent transcript agent-<name>.jsonl.
    const int split = frame.id.indexOf('_');
    const auto found = m_agents.constFind(split < 0 ? frame.id : frame.id.left(split));
    if (found == m_agents.constEnd())
        return;
    LiveAgent &agent = **found;
    if (split >= 0) {
        if (handleSubagent(agent, QString::fromLatin1(frame.id.mid(split + 1)), frame))
            m_changed.insert(found.key());
        return;
    }
    switch (frame.kind) {
    case Frame::Kind::Opened:
        if (frame.offset == 0 && agent.offset() > 0)
            agent.restart(); // another file under the same name
        agent.setProblem({});
        break;
    case Frame::Kind::Truncated:
        agent.restart();
        break;
    case Frame::Kind::Data:
        if (!agent.feed(frame.offset, frame.data)) {
            fail(tr("the agents follower skipped bytes of %1").arg(QString::fromLatin1(frame.id)));
            return;
        }
        break;
    case Frame::Kind::Error:
        agent.setProblem(frame.text);
        break;
    default:
        return;
    }
    m_changed.insert(frame.id);
}

bool LiveAgentWatcher::handleSubagent(LiveAgent &agent, const QString &name, const Frame &frame)
{
    switch (frame.kind) {
    case Frame::Kind::SubagentMeta:
        agent.setSubagentMeta(name, frame.data);
        return false; // nothing to show yet
    case Frame::Kind::Opened:
        if (frame.offset == 0 && agent.subagentOffset(name) > 0)
            agent.restartSubagent(name); // another file under the same name
        return false;
    case Frame::Kind::Truncated:
        agent.restartSubagent(name);
        break;
    case Frame::Kind::Data:
        if (!agent.feedSubagent(name, frame.offset, frame.data)) {
            fail(tr("the agents follower skipped bytes of %1").arg(QString::fromLatin1(frame.id)));
            return false;
        }
        break;
    case Frame::Kind::Error:
        agent.setProblem(tr("sub-agent transcript agent-%1.jsonl: %2").arg(name, frame.text));
        break;
    default:
        return false;
    }
    return true;
}

void LiveAgentWatcher::flush()
{
    QVector<LiveAgentRow> changed = std::exchange(m_finalRows, {});
    changed.reserve(changed.size() + m_changed.size());
    for (const QByteArray &id : std::as_const(m_changed)) {
        if (const auto agent = m_agents.value(id))
            changed.append(agent->row());
    }
    const QList<QByteArray> ended(m_ended.cbegin(), m_ended.cend());
    m_changed.clear();
    m_ended.clear();
    if (!changed.isEmpty() || !ended.isEmpty())
        Q_EMIT agentsChanged(changed, ended);
}

QVector<LiveAgentRow> LiveAgentWatcher::rows() const
{
    QVector<LiveAgentRow> rows;
    for (const auto &agent : m_agents)
        rows.append(agent->row());
    return rows;
}

void LiveAgentWatcher::setState(State state)
{
    if (state == m_state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

void LiveAgentWatcher::fail(const QString &message)
{
    if (m_state == State::Failed)
        return;
    endScript();
    m_error = message;
    flush();
    setState(State::Failed);
    Q_EMIT failed(message);
}

} // namespace sandscope
