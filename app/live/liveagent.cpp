#include "liveagent.h"

#include "recordings/subagentsplicer.h"
#include "runtree/runnodetext.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace sandscope {

bool LiveAgentInfo::fromJson(
    const QByteArray &id, const QByteArray &json, LiveAgentInfo *info, QString *why)
{
    QJsonParseError error {};
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    const QJsonObject object = document.object();
    if (error.error != QJsonParseError::NoError || !object.value(QLatin1String("pid")).isDouble()) {
        *why = QStringLiteral("an agent announcement is not a JSON object with a pid");
        return false;
    }
    LiveAgentInfo out;
    out.id = id;
    out.pid = qint64(object.value(QLatin1String("pid")).toDouble());
    out.uid = qint64(object.value(QLatin1String("uid")).toDouble(-1));
    out.account = object.value(QLatin1String("account")).toString();
    out.home = object.value(QLatin1String("home")).toString();
    out.cwd = object.value(QLatin1String("cwd")).toString();
    out.transcript = object.value(QLatin1String("transcript")).toString();
    out.sessionId = object.value(QLatin1String("session")).toString();
    const double started = object.value(QLatin1String("started")).toDouble(-1);
    if (started >= 0)
        out.started = QDateTime::fromMSecsSinceEpoch(qint64(started * 1000), Qt::UTC);
    *info = out;
    return true;
}

QString LiveAgentInfo::chatId() const
{
    const QString prefix = home + QStringLiteral("/chat-");
    if (home.isEmpty() || !cwd.startsWith(prefix) || cwd.size() == prefix.size())
        return {};
    const QString chat = cwd.mid(prefix.size());
    return chat.contains(QLatin1Char('/')) ? QString() : chat;
}

LiveAgent::LiveAgent(LiveAgentInfo info)
    : m_info(std::move(info))
{
    if (m_info.started.isValid())
        m_lastActivityMs = m_info.started.toMSecsSinceEpoch();
}

LiveAgent::~LiveAgent() = default;

void LiveAgent::setInfo(const LiveAgentInfo &info)
{
    const bool another = info.transcript != m_info.transcript;
    m_info = info;
    if (another)
        restart();
}

void LiveAgent::restart()
{
    m_main = Reader();
    m_subagents.clear();
    m_builder = RunSummaryBuilder();
    m_openCalls.clear();
    m_lastLine.clear();
    m_problem.clear();
}

bool LiveAgent::Reader::read(qint64 at, const QByteArray &bytes, RunEventBatch *events)
{
    if (at > offset)
        return false;
    if (at + bytes.size() <= offset)
        return true; // had them already
    pending += bytes.mid(int(offset - at));
    offset = at + bytes.size();
    const qsizetype end = pending.lastIndexOf('\n');
    if (end < 0)
        return true; // a record still being written
    const QList<QByteArray> lines = pending.left(end).split('\n');
    pending.remove(0, end + 1);
    for (const QByteArray &line : lines) {
        if (!line.trimmed().isEmpty())
            *events += parser->parseLine(line, -1); // records carry their time
    }
    return true;
}

bool LiveAgent::feed(qint64 offset, const QByteArray &bytes)
{
    RunEventBatch events;
    if (!m_main.read(offset, bytes, &events))
        return false;
    take(events);
    return true;
}

bool LiveAgent::feedSubagent(const QString &name, qint64 offset, const QByteArray &bytes)
{
    Subagent &subagent = m_subagents[name];
    RunEventBatch events;
    if (!subagent.reader.read(offset, bytes, &events))
        return false;
    // Until its meta file names the call, the sub-agent is a thread of its own: its figures
    // count the same, only which turn they belong to is not known (the wall shows no turns).
    const QString parent
        = subagent.toolUseId.isEmpty() ? QStringLiteral("agent-") + name : subagent.toolUseId;
    for (RunEvent &event : events) {
        if (event.parentToolUseId.isEmpty())
            event.parentToolUseId = parent;
    }
    take(events);
    return true;
}

void LiveAgent::setSubagentMeta(const QString &name, const QByteArray &json)
{
    SubagentTranscript meta;
    Subagent &subagent = m_subagents[name];
    if (subagent.toolUseId.isEmpty() && SubagentSplicer::readMeta(json, &meta))
        subagent.toolUseId = meta.toolUseId;
}

void LiveAgent::restartSubagent(const QString &name)
{
    Subagent &subagent = m_subagents[name];
    if (subagent.reader.offset == 0)
        return;
    subagent.reader = Reader();
    m_problem = QStringLiteral("sub-agent transcript agent-%1.jsonl was rewritten: what it "
                               "said before is still counted")
                    .arg(name);
}

qint64 LiveAgent::subagentOffset(const QString &name) const
{
    const auto found = m_subagents.find(name);
    return found == m_subagents.end() ? 0 : found->second.reader.offset;
}

void LiveAgent::take(const RunEventBatch &events)
{
    m_builder.add(events);
    for (const RunEvent &event : events) {
        if (event.arrivalMs > 0)
            m_lastActivityMs = std::max(m_lastActivityMs, event.arrivalMs);
        QString text;
        switch (event.kind) {
        case RunEvent::ToolUse: {
            if (event.parentToolUseId.isEmpty()) // a sub-agent's call runs inside its Agent's
                m_openCalls.append({event.toolUseId, event.toolName, event.arrivalMs});
            const QString what = runtext::toolSummary(
                runtext::toolKindOf(event.toolName), event.input, event.inputJson);
            text = what.isEmpty() ? event.toolName : event.toolName + QStringLiteral(": ") + what;
            break;
        }
        case RunEvent::ToolResult: {
            const QString id = event.toolUseId;
            m_openCalls.erase(std::remove_if(m_openCalls.begin(), m_openCalls.end(),
                                  [&id](const OpenCall &call) { return call.id == id; }),
                m_openCalls.end());
            text = event.resultText;
            break;
        }
        case RunEvent::SessionInit: // a transcript's prompt
        case RunEvent::AssistantText:
        case RunEvent::UserText:
        case RunEvent::ApiError:
            text = event.text;
            break;
        case RunEvent::Result:
        case RunEvent::SessionCost:
        case RunEvent::TurnDuration:
            if (event.parentToolUseId.isEmpty())
                m_openCalls.clear(); // the turn ended: a call without a result was interrupted
            break;
        default:
            break;
        }
        const QString line = runtext::oneLine(text);
        if (!line.isEmpty())
            m_lastLine = line;
    }
}

LiveAgentRow LiveAgent::row() const
{
    LiveAgentRow row;
    row.info = m_info;
    if (!m_openCalls.isEmpty()) {
        row.toolName = m_openCalls.constLast().name;
        row.toolStartedMs = m_openCalls.constLast().startedMs;
    }
    row.summary = m_builder.summary(false);
    row.lastLine = m_lastLine;
    row.lastActivityMs = m_lastActivityMs;
    row.problem = m_problem;
    return row;
}

} // namespace sandscope
