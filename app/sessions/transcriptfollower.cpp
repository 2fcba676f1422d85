#include "transcriptfollower.h"

#include "files/pathguard.h"
#include "recordings/subagentsplicer.h"
#include "server/shortcommand.h"
#include "streamjson/runparser.h"
#include "terminal/followchannel.h"
#include "terminal/followedfile.h"
#include "util/format.h"
#include "util/shellquote.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <algorithm>
#include <limits>

namespace sandscope {

namespace {

// Consecutive failed looks before following gives up (a server restart takes a few seconds).
constexpr int maxFailedLooks = 4;
// A look that must not read a file (pushed): an offset no file reaches.
constexpr qint64 pushedOffset = std::numeric_limits<qint64>::max() / 2;

const QString fileMarker = QStringLiteral("SANDSCOPE-FILE");
const QString dataMarker = QStringLiteral("SANDSCOPE-DATA");
const QString metaMarker = QStringLiteral("SANDSCOPE-META");
const QString endMarker = QStringLiteral("SANDSCOPE-END");
const QString goneMarker = QStringLiteral("SANDSCOPE-GONE");
const QString deniedMarker = QStringLiteral("SANDSCOPE-DENIED");
const QString doneMarker = QStringLiteral("SANDSCOPE-LOOK-DONE");
const QString refusedMarker = QStringLiteral("SANDSCOPE-REFUSED");

bool isSafeAgentId(const QString &id)
{
    static const QRegularExpression safe(QStringLiteral("^[A-Za-z0-9_-]{1,128}$"));
    return safe.match(id).hasMatch();
}

// The complete lines of `buffer` (after adding `bytes`); the unterminated rest stays in it.
QList<QByteArray> takeLines(QByteArray &buffer, const QByteArray &bytes)
{
    buffer += bytes;
    const qsizetype last = buffer.lastIndexOf('\n');
    if (last < 0)
        return {};
    QList<QByteArray> lines = buffer.left(last).split('\n');
    buffer.remove(0, last + 1);
    return lines;
}

} // namespace

struct TranscriptFollower::Agent {
    QString id;
    QString toolUseId; // the spawning call; empty until known
    qint64 offset = 0;
    QByteArray pending;
    RunParser parser;
    RunEventBatch held; // events waiting for toolUseId
    bool reportedDenied = false;
    bool pushed = false;
};

// What one look printed.
struct TranscriptFollower::Look {
    struct File {
        QString name; // "main" or the agent id
        qint64 size = -1;
        QByteArray data; // bytes after the offset sent
        QByteArray meta; // new agents: their meta file
        bool denied = false;
    };
    bool gone = false;
    bool denied = false;
    bool refused = false; // the transcript leads out of the home: nothing was read
    QStringList refusals; // of the transcript or of sub-agents' files, as messages
    bool complete = false;
    QVector<File> files;
};

TranscriptFollower::TranscriptFollower(
    OpenTerminalClient *client, Identity identity, QString transcriptPath, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_identity(std::move(identity))
    , m_path(std::move(transcriptPath))
    , m_parser(std::make_unique<RunParser>())
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &TranscriptFollower::look);
    m_settleTimer.setSingleShot(true);
    m_settleTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_settleTimer, &QTimer::timeout, this, [this] {
        if (!m_pushed || !m_turnEnded || m_settleMs < 0)
            return;
        // A timer may fire a little early: what is left is waited for, never dropped.
        const qint64 left = m_settleMs - m_quietFor.elapsed();
        if (left <= 0)
            finish(true, QStringLiteral("the session stopped growing"));
        else
            m_settleTimer.start(int(left) + 1);
    });
}

TranscriptFollower::~TranscriptFollower() = default;

void TranscriptFollower::setPollIntervals(int fastMs, int idleMaxMs)
{
    m_backoff.setIntervals(fastMs, idleMaxMs);
}

void TranscriptFollower::setState(State state)
{
    if (m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

void TranscriptFollower::start(bool follow, int settleMs)
{
    Q_ASSERT(m_state == State::Idle);
    m_follow = follow;
    m_settleMs = settleMs;
    m_quietFor.start();
    setState(State::Reading);
    look();
}

void TranscriptFollower::stop()
{
    if (m_state == State::Finished || m_state == State::Failed || m_state == State::Idle)
        return;
    finish(true, QStringLiteral("stopped following"));
}

QString TranscriptFollower::lookScript(const QString &path, qint64 offset, qint64 chunkBytes,
    const QHash<QString, qint64> &subagentOffsets)
{
    QStringList known;
    for (auto it = subagentOffsets.cbegin(); it != subagentOffsets.cend(); ++it) {
        if (isSafeAgentId(it.key()))
            known.append(it.key() + QLatin1Char('=') + QString::number(it.value()));
    }
    // One file: its size, then the bytes after the offset (at most n), base64 so the terminal
    // cannot alter them. Neither the transcript nor a sub-agent's file is read when it leads
    // out of the user's home (a link to another user's transcript, or to a file in /tmp).
    return pathguard::outsideFunctions()
        + QStringLiteral(
            "f=%1; o=%2; n=%3; known=%4; h=$(cd ~ && pwd -P) || exit 90; "
            "if sandscope_outside \"$h\" \"$f\"; then echo SANDSCOPE-REFUSED; "
            "echo SANDSCOPE-LOOK-DONE; exit 0; fi; "
            // Missing, or behind a folder this user may not enter (another user's home)?
            "if [ ! -e \"$f\" ]; then p=$f; while [ ! -e \"$p\" ] && [ -n \"$p\" ]; do "
            "p=${p%/*}; done; if [ -n \"$p\" ] && [ ! -x \"$p\" ]; then echo SANDSCOPE-DENIED; "
            "else echo SANDSCOPE-GONE; fi; echo SANDSCOPE-LOOK-DONE; exit 0; fi; "
            "if [ ! -r \"$f\" ]; then echo SANDSCOPE-DENIED; echo SANDSCOPE-LOOK-DONE; exit 0; fi; "
            "chunk() { s=$(stat -c %s \"$2\" 2>/dev/null) || return 0; "
            "printf 'SANDSCOPE-FILE\\t%s\\t%s\\n' \"$1\" \"$s\"; "
            "if [ \"$s\" -gt \"$3\" ]; then echo SANDSCOPE-DATA; "
            "tail -c +$(($3 + 1)) \"$2\" | head -c \"$n\" | base64; echo SANDSCOPE-END; fi; }; "
            "chunk main \"$f\" \"$o\"; "
            "for a in \"${f%.jsonl}\"/subagents/agent-*.jsonl; do [ -e \"$a\" ] || continue; "
            "id=${a##*/agent-}; id=${id%.jsonl}; "
            "case $id in ''|*[!A-Za-z0-9_-]*) continue;; esac; "
            "if [ -L \"$a\" ] || [ -L \"${a%/*}\" ] || [ -L \"${f%.jsonl}\" ]; then "
            "sandscope_outside \"$h\" \"$a\" && continue; fi; "
            "ao=-1; for kv in $known; do case $kv in \"$id=\"*) ao=${kv#*=};; esac; done; "
            "if [ ! -r \"$a\" ]; then printf 'SANDSCOPE-DENIED\\t%s\\n' \"$id\"; continue; fi; "
            "if [ \"$ao\" = -1 ]; then ao=0; m=${a%.jsonl}.meta.json; "
            "if [ -r \"$m\" ]; then printf 'SANDSCOPE-META\\t%s\\n' \"$id\"; "
            "head -c 65536 \"$m\" | base64; echo SANDSCOPE-END; fi; fi; "
            "chunk \"$id\" \"$a\" \"$ao\"; done; echo SANDSCOPE-LOOK-DONE")
              .arg(shell::quote(path))
              .arg(offset)
              .arg(chunkBytes)
              .arg(shell::quote(known.join(QLatin1Char(' '))));
}

void TranscriptFollower::look()
{
    if (m_lookInFlight || (m_state != State::Reading && m_state != State::Following))
        return;
    // Pushed files are not read by a look (their bytes would arrive twice).
    m_discoveryOnly = m_pushed;
    QHash<QString, qint64> offsets;
    for (const auto &[id, agent] : m_agents)
        offsets.insert(id, m_pushed ? pushedOffset : agent->offset);
    m_lookInFlight = true;
    ++m_looks;
    delete m_lookContext;
    m_lookContext = new QObject(this);
    runShortCommand(
        m_client, m_identity,
        lookScript(m_path, m_pushed ? pushedOffset : m_offset, m_chunkBytes, offsets),
        m_lookContext,
        [this](const Result<CommandOutput> &result) {
            // A look that ended after finish() (its context is deleted later) changes nothing.
            if (m_state == State::Finished || m_state == State::Failed)
                return;
            m_lookInFlight = false;
            if (!result.ok() || result.value.exitCode != 0) {
                const QString why = result.ok()
                    ? QStringLiteral("reading the transcript failed (exit status %1): %2")
                          .arg(result.value.exitCode)
                          .arg(result.value.lines.join(QLatin1Char('\n')).left(300))
                    : result.error.toString();
                if (++m_failedLooks >= maxFailedLooks) {
                    finish(false, why);
                } else {
                    Q_EMIT notice(why + QStringLiteral(" (trying again)"));
                    scheduleLook(false);
                }
                return;
            }
            m_failedLooks = 0;
            Look parsed;
            Look::File *current = nullptr;
            QByteArray *sink = nullptr;
            QByteArray base64;
            for (const QString &line : result.value.lines) {
                if (sink) {
                    if (line == endMarker) {
                        *sink = QByteArray::fromBase64(base64);
                        base64.clear();
                        sink = nullptr;
                    } else {
                        base64 += line.toLatin1();
                    }
                    continue;
                }
                const QStringList fields = line.split(QLatin1Char('\t'));
                QString refusal;
                if (pathguard::outsideRefusal(line, m_identity.userId, &refusal)) {
                    parsed.refusals << refusal;
                } else if (line == refusedMarker) {
                    parsed.refused = true;
                } else if (line == goneMarker) {
                    parsed.gone = true;
                } else if (line == deniedMarker) {
                    parsed.denied = true;
                } else if (fields.first() == deniedMarker && fields.size() == 2) {
                    parsed.files.append({fields.at(1), -1, {}, {}, true});
                } else if (fields.first() == metaMarker && fields.size() == 2) {
                    parsed.files.append({fields.at(1), -1, {}, {}, false});
                    current = &parsed.files.last();
                    sink = &current->meta;
                } else if (fields.first() == fileMarker && fields.size() == 3) {
                    if (!current || current->name != fields.at(1) || current->size >= 0) {
                        parsed.files.append({fields.at(1), -1, {}, {}, false});
                        current = &parsed.files.last();
                    }
                    current->size = fields.at(2).toLongLong();
                } else if (line == dataMarker && current) {
                    sink = &current->data;
                } else if (line == doneMarker) {
                    parsed.complete = true;
                }
            }
            if (!parsed.complete) {
                finish(false,
                    QStringLiteral("reading the transcript gave incomplete output: %1")
                        .arg(result.value.lines.join(QLatin1Char('\n')).left(300)));
                return;
            }
            handleLook(parsed);
        },
        120000);
}

void TranscriptFollower::handleLook(const Look &look)
{
    if (look.refused) {
        finish(false,
            look.refusals.isEmpty() ? QStringLiteral("%1 leads out of the home of %2; refused")
                                          .arg(m_path, m_identity.userId)
                                    : look.refusals.first());
        return;
    }
    for (const QString &refusal : look.refusals) {
        if (!m_reportedRefusals.contains(refusal)) {
            m_reportedRefusals.insert(refusal);
            Q_EMIT notice(refusal);
        }
    }
    if (look.gone) {
        finish(false,
            m_offset > 0 ? QStringLiteral("%1 was deleted while it was followed; what was read "
                                          "stays shown")
                               .arg(m_path)
                         : QStringLiteral("%1 does not exist (any more)").arg(m_path));
        return;
    }
    if (look.denied) {
        finish(false,
            QStringLiteral("%1 cannot be read as user %2: permission denied")
                .arg(m_path, m_identity.userId));
        return;
    }
    RunEventBatch events;
    bool grew = false;
    bool more = false; // a file has more bytes than this look could carry
    for (const Look::File &file : look.files) {
        if (file.name == QLatin1String("main")) {
            if (m_discoveryOnly && file.data.isEmpty())
                continue; // pushed: the look only looked for new sub-agents
            if (file.size < m_offset) {
                Q_EMIT notice(QStringLiteral("%1 became shorter (rewritten?); only new records "
                                             "are read from here on")
                                  .arg(m_path));
                m_offset = file.size;
                m_pending.clear();
            }
            m_size = file.size;
            m_offset += file.data.size();
            grew = grew || !file.data.isEmpty();
            more = more || m_offset < m_size;
            // -1: no time; RunParser gives each record its own (RecordingReader::readLine).
            for (const QByteArray &line : takeLines(m_pending, file.data))
                events += m_parser->parseLine(line, -1);
            continue;
        }
        auto it = m_agents.find(file.name);
        if (it == m_agents.end()) {
            auto agent = std::make_unique<Agent>();
            agent->id = file.name;
            SubagentTranscript meta;
            if (!file.meta.isEmpty() && SubagentSplicer::readMeta(file.meta, &meta))
                agent->toolUseId = meta.toolUseId;
            if (agent->toolUseId.isEmpty())
                agent->toolUseId = m_callByAgent.value(file.name);
            it = m_agents.emplace(file.name, std::move(agent)).first;
        }
        Agent &agent = *it->second;
        if (file.denied) {
            if (!agent.reportedDenied)
                Q_EMIT notice(QStringLiteral("sub-agent transcript agent-%1.jsonl cannot be "
                                             "read as user %2: permission denied")
                                  .arg(agent.id, m_identity.userId));
            agent.reportedDenied = true;
            continue;
        }
        if (file.size < 0)
            continue; // only its meta this time
        if (m_pushed && !agent.pushed) {
            agent.offset += file.data.size();
            pushAgent(agent); // found by this look: pushed from here on
        } else if (m_pushed && file.data.isEmpty()) {
            continue; // pushed: the look did not read it
        } else {
            agent.offset += file.data.size();
        }
        grew = grew || !file.data.isEmpty();
        more = more || agent.offset < file.size;
        for (const QByteArray &line : takeLines(agent.pending, file.data))
            agent.held += agent.parser.parseLine(line, 0);
    }

    // Sub-agents' events among the main file's where they happened (the main file's calls
    // first); what a sub-agent did after the main file's last record goes at the end.
    for (const RunEvent &event : std::as_const(events)) {
        if (event.kind != RunEvent::Transient)
            m_turnEnded = event.kind == RunEvent::SessionCost;
    }
    learnAgentCalls(events);
    for (auto &[id, agent] : m_agents) {
        if (agent->toolUseId.isEmpty())
            agent->toolUseId = m_callByAgent.value(id);
        if (agent->toolUseId.isEmpty() || agent->held.isEmpty())
            continue;
        for (RunEvent &event : agent->held) {
            if (event.parentToolUseId.isEmpty())
                event.parentToolUseId = agent->toolUseId;
        }
        m_merger.addSubagentEvents(agent->toolUseId, agent->held);
        agent->held.clear();
    }
    events = m_merger.merge(events);
    events += m_merger.flush();
    if (!events.isEmpty())
        Q_EMIT eventsReady(events);
    Q_EMIT progress(m_offset, m_size);

    if (grew)
        m_quietFor.start();
    if (more) {
        QTimer::singleShot(0, this, &TranscriptFollower::look); // still catching up
        return;
    }
    if (!m_follow) {
        if (!m_pending.isEmpty())
            Q_EMIT notice(QStringLiteral("the last record is still being written (not shown)"));
        finish(true, QString());
        return;
    }
    setState(State::Following);
    if (m_settleMs >= 0 && m_turnEnded && m_quietFor.elapsed() >= m_settleMs) {
        finish(true, QStringLiteral("the session stopped growing"));
        return;
    }
    if (m_pushed || startPush()) {
        if (m_settleMs >= 0 && m_turnEnded)
            m_settleTimer.start(qMax<qint64>(0, m_settleMs - m_quietFor.elapsed()) + 1);
        // A new Agent call: its sub-agent file is found by one look.
        if (std::any_of(events.cbegin(), events.cend(), [](const RunEvent &event) {
                return event.kind == RunEvent::ToolUse
                    && (event.toolName == QLatin1String("Agent")
                        || event.toolName == QLatin1String("Task"));
            }))
            m_timer.start(0);
        return;
    }
    scheduleLook(grew);
}

// --- push --------------------------------------------------------------------------------------

bool TranscriptFollower::startPush()
{
    FollowChannel *channel
        = m_pushAllowed ? FollowChannel::shared(m_client, m_identity.userId) : nullptr;
    if (!channel || channel->state() == FollowChannel::State::Unavailable)
        return false;
    m_pushed = true;
    m_pushContext = new QObject(this);
    FollowedFile *main = channel->follow(m_path, m_offset, m_pushContext);
    connect(main, &FollowedFile::data, this,
        [this](qint64, const QByteArray &bytes) { pushedBytes(QStringLiteral("main"), bytes); });
    connect(main, &FollowedFile::rewritten, this, [this](qint64 size) {
        Q_EMIT notice(QStringLiteral("%1 was rewritten (%2); only new records are read from "
                                     "here on")
                          .arg(m_path, format::byteSize(size)));
        m_pending.clear();
        m_offset = size;
        m_skipPushed = size; // the follower sends the new file from its start
    });
    connect(main, &FollowedFile::gone, this, [this] {
        finish(false,
            QStringLiteral("%1 was deleted while it was followed; what was read stays shown")
                .arg(m_path));
    });
    connect(main, &FollowedFile::failed, this,
        [this](const QString &message) { finish(false, message); });
    connect(main, &FollowedFile::interrupted, this, [this](const QString &reason) {
        Q_EMIT notice(
            QStringLiteral("the connection to the server was lost (%1); reconnecting").arg(reason));
    });
    connect(main, &FollowedFile::reconnected, this, [this](qint64 gapMs) {
        Q_EMIT notice(QStringLiteral("reconnected after %1; nothing written meanwhile is missed")
                          .arg(format::duration(gapMs)));
    });
    connect(main, &FollowedFile::unavailable, this, [this](const QString &reason) {
        Q_EMIT notice(
            QStringLiteral("following is polled: push is not available (%1)").arg(reason));
        stopPush();
        if (m_state == State::Following)
            scheduleLook(false);
    });
    for (auto &[id, agent] : m_agents)
        pushAgent(*agent);
    return true;
}

void TranscriptFollower::pushAgent(Agent &agent)
{
    FollowChannel *channel = FollowChannel::shared(m_client, m_identity.userId);
    if (!channel || !m_pushContext)
        return;
    agent.pushed = true;
    const QString id = agent.id;
    const QString path
        = m_path.chopped(6) + QStringLiteral("/subagents/agent-") + id + QStringLiteral(".jsonl");
    FollowedFile *file = channel->follow(path, agent.offset, m_pushContext);
    connect(file, &FollowedFile::data, this,
        [this, id](qint64, const QByteArray &bytes) { pushedBytes(id, bytes); });
    connect(file, &FollowedFile::failed, this, [this, id](const QString &message) {
        Q_EMIT notice(QStringLiteral("sub-agent transcript agent-%1.jsonl: %2").arg(id, message));
    });
}

// Pushed bytes take the path a look's take: parsed, merged, shown.
void TranscriptFollower::pushedBytes(const QString &name, const QByteArray &pushed)
{
    if (m_state != State::Following || !m_pushed)
        return;
    QByteArray bytes = pushed;
    if (name == QLatin1String("main") && m_skipPushed > 0) {
        const qint64 skipped = qMin<qint64>(m_skipPushed, bytes.size());
        bytes.remove(0, int(skipped));
        m_skipPushed -= skipped;
        if (bytes.isEmpty())
            return;
    }
    Look look;
    look.complete = true;
    Look::File file;
    file.name = name;
    if (name == QLatin1String("main")) {
        file.size = m_offset + bytes.size();
    } else {
        auto it = m_agents.find(name);
        file.size = it == m_agents.end() ? bytes.size() : it->second->offset + bytes.size();
    }
    file.data = bytes;
    look.files.append(file);
    const bool discovery = m_discoveryOnly;
    m_discoveryOnly = false;
    handleLook(look);
    m_discoveryOnly = discovery;
}

void TranscriptFollower::stopPush()
{
    m_pushed = false;
    m_settleTimer.stop();
    if (m_pushContext) // stopPush() runs inside a signal of one of its files
        m_pushContext->deleteLater();
    m_pushContext = nullptr;
    for (auto &[id, agent] : m_agents)
        agent->pushed = false;
}

// Sub-agents without a meta file are named by their call's result ({"agentId": …}).
void TranscriptFollower::learnAgentCalls(const RunEventBatch &events)
{
    for (const RunEvent &event : events) {
        if (event.kind != RunEvent::ToolResult
            || !event.structuredResultJson.contains("\"agentId\""))
            continue;
        const QString agentId = QJsonDocument::fromJson(event.structuredResultJson)
                                    .object()
                                    .value(QStringLiteral("agentId"))
                                    .toString();
        if (!agentId.isEmpty())
            m_callByAgent.insert(agentId, event.toolUseId);
    }
}

void TranscriptFollower::scheduleLook(bool grew)
{
    m_timer.start(m_backoff.next(grew));
}

void TranscriptFollower::finish(bool completed, const QString &message)
{
    m_timer.stop();
    if (m_pushContext) { // finish() may run inside a followed file's signal
        m_pushContext->deleteLater();
        m_pushContext = nullptr;
    }
    m_pushed = false;
    m_settleTimer.stop();
    // Abandons a look in flight; later, because finish() may run inside that look's callback.
    if (m_lookContext)
        m_lookContext->deleteLater();
    m_lookContext = nullptr;
    m_lookInFlight = false;
    setState(completed ? State::Finished : State::Failed);
    Q_EMIT finished(completed, message);
}

qint64 TranscriptFollower::linesParsed() const
{
    return m_parser->linesParsed();
}

} // namespace sandscope
