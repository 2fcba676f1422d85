#include "subagentsplicer.h"

#include "recordings/linesource.h"
#include "recordings/localfilecheck.h"
#include "streamjson/runparser.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

namespace sandscope {

namespace {

// Sub-agents spawning sub-agents: deeper than this is a loop in a hostile file, not a run.
constexpr int maxDepth = 16;

bool isAgentTool(const QString &name)
{
    return name == QLatin1String("Agent") || name == QLatin1String("Task");
}

QString agentIdOf(const QString &fileName)
{
    // agent-<id>.jsonl
    QString id = fileName;
    id.remove(0, int(qstrlen("agent-")));
    id.chop(int(qstrlen(".jsonl")));
    return id;
}

} // namespace

QVector<SubagentTranscript> SubagentSplicer::findLocal(const QString &transcriptPath)
{
    const QFileInfo transcript(transcriptPath);
    const QString session = transcript.completeBaseName();
    QVector<SubagentTranscript> found;
    // Each folder with the folder its files must stay in.
    const QString sessionFolder = transcript.path() + QLatin1Char('/') + session;
    const QList<QPair<QString, QString>> folders {
        {sessionFolder + QStringLiteral("/subagents"), sessionFolder},
        {transcript.path(), transcript.path()}};
    for (const auto &[folder, within] : folders) {
        const QDir dir(folder);
        // Unreadable entries too: each is reported where its sub-agent would be.
        const QStringList files = dir.entryList({QStringLiteral("agent-*.jsonl")},
            QDir::AllEntries | QDir::NoDotAndDotDot | QDir::System);
        for (const QString &fileName : files) {
            SubagentTranscript subagent;
            subagent.agentId = agentIdOf(fileName);
            subagent.path = dir.filePath(fileName);
            const QString shownName = QDir(transcript.path()).relativeFilePath(subagent.path);
            const QString why = LocalFileCheck::whyNotRead(subagent.path, within);
            if (!why.isEmpty()) {
                subagent.readError = why;
                subagent.skipped = shownName + QLatin1Char(' ') + why;
                subagent.path.clear();
                found.append(subagent);
                continue;
            }
            const QString metaPath = dir.filePath(
                QStringLiteral("agent-") + subagent.agentId + QStringLiteral(".meta.json"));
            const QString metaWhy = LocalFileCheck::whyNotRead(metaPath, within);
            QFile meta(metaPath);
            if (!metaWhy.isEmpty())
                subagent.skipped = QDir(transcript.path()).relativeFilePath(metaPath)
                    + QLatin1Char(' ') + metaWhy;
            else if (meta.open(QIODevice::ReadOnly))
                readMeta(meta.read(1024 * 1024), &subagent);
            found.append(subagent);
        }
        if (!found.isEmpty())
            break; // the sub-agents of this session, not siblings' files of an older layout
    }
    return found;
}

bool SubagentSplicer::readMeta(const QByteArray &json, SubagentTranscript *subagent)
{
    const QJsonDocument document = QJsonDocument::fromJson(json);
    if (!document.isObject())
        return false;
    const QJsonObject meta = document.object();
    subagent->toolUseId = meta.value(QStringLiteral("toolUseId")).toString();
    subagent->agentType = meta.value(QStringLiteral("agentType")).toString();
    subagent->description = meta.value(QStringLiteral("description")).toString();
    return true;
}

void SubagentSplicer::add(const SubagentTranscript &subagent)
{
    const int index = int(m_agents.size());
    m_agents.append(subagent);
    if (!subagent.toolUseId.isEmpty())
        m_byToolUseId.insert(subagent.toolUseId, index);
    if (!subagent.agentId.isEmpty())
        m_byAgentId.insert(subagent.agentId, index);
}

void SubagentSplicer::splice(RunEventBatch &events)
{
    if (m_agents.isEmpty()) {
        for (const RunEvent &event : std::as_const(events)) {
            if (event.kind == RunEvent::ToolUse && isAgentTool(event.toolName))
                m_agentCalls.append(event.toolUseId);
        }
        return;
    }
    events = spliceWith(m_merger, events, 0);
}

RunEventBatch SubagentSplicer::finish()
{
    return m_merger.flush();
}

// The sub-agent an event brings in: its call (by the meta file), or its call's result naming
// the agent (no meta file); -1 for every other event and for sub-agents already spliced.
int SubagentSplicer::agentFor(const RunEvent &event) const
{
    int agent = -1;
    if (event.kind == RunEvent::ToolUse) {
        agent = m_byToolUseId.value(event.toolUseId, -1);
    } else if (event.kind == RunEvent::ToolResult && !event.structuredResultJson.isEmpty()
        && event.structuredResultJson.contains("\"agentId\"")) {
        const QString agentId = QJsonDocument::fromJson(event.structuredResultJson)
                                    .object()
                                    .value(QStringLiteral("agentId"))
                                    .toString();
        agent = m_byAgentId.value(agentId, -1);
    }
    return agent >= 0 && !m_spliced.contains(agent) ? agent : -1;
}

RunEventBatch SubagentSplicer::spliceWith(
    SubagentMerger &merger, const RunEventBatch &events, int depth)
{
    for (const RunEvent &event : events) {
        const int agent = agentFor(event);
        if (event.kind == RunEvent::ToolUse && isAgentTool(event.toolName))
            m_agentCalls.append(event.toolUseId);
        if (agent >= 0)
            merger.addSubagentEvents(event.toolUseId, eventsOf(agent, event.toolUseId, depth));
    }
    return merger.merge(events);
}

RunEventBatch SubagentSplicer::eventsOf(int agent, const QString &toolUseId, int depth)
{
    m_spliced.insert(agent);
    m_servedCalls.insert(toolUseId);
    const SubagentTranscript &subagent = m_agents.at(agent);
    RunEventBatch parsed;
    auto problem = [&](const QString &why) {
        RunEvent event;
        event.kind = RunEvent::SystemNotice;
        event.type = QStringLiteral("sandscope");
        event.subtype = QStringLiteral("sub-agent transcript");
        event.text = QStringLiteral("agent-%1.jsonl %2").arg(subagent.agentId, why);
        event.isError = true;
        event.parentToolUseId = toolUseId;
        parsed.append(event);
        return parsed;
    };
    if (depth >= maxDepth)
        return problem(
            QStringLiteral("is nested deeper than %1 sub-agents: not shown").arg(maxDepth));
    if (!subagent.readError.isEmpty())
        return problem(subagent.readError);
    QByteArray content = subagent.content;
    if (!subagent.path.isEmpty()) {
        QFile file(subagent.path);
        if (!file.open(QIODevice::ReadOnly))
            return problem(QStringLiteral("cannot be read: ") + file.errorString());
        content = file.readAll();
    }

    const int source = m_lineSource && !subagent.path.isEmpty() ? m_lineSource->addFile(
                           subagent.path, RecordingFormat::Transcript, LineSource::Hold::PerRead)
                                                                : -1;
    RunParser parser;
    qsizetype start = 0;
    while (start < content.size()) {
        qsizetype end = content.indexOf('\n', start);
        if (end < 0)
            end = content.size(); // an unterminated last line is parsed as it is
        RunEventBatch events = parser.parseLine(content.mid(start, end - start), 0);
        if (source >= 0)
            LineSource::locate(
                events.begin(), events.end(), LineRef {source, 0, start, end - start}, m_keepLines);
        parsed += events;
        start = end + 1;
    }
    for (RunEvent &event : parsed) {
        if (event.parentToolUseId.isEmpty())
            event.parentToolUseId = toolUseId;
    }
    // A sub-agent's file is read whole: its own sub-agents are merged into it completely.
    SubagentMerger nested;
    RunEventBatch out = spliceWith(nested, parsed, depth + 1);
    out += nested.flush();
    return out;
}

QStringList SubagentSplicer::missingSubagents() const
{
    QStringList missing;
    for (const SubagentTranscript &subagent : m_agents) {
        if (!subagent.skipped.isEmpty())
            missing.append(subagent.skipped);
    }
    for (const QString &call : m_agentCalls) {
        if (!m_servedCalls.contains(call))
            missing.append(
                QStringLiteral("no sub-agent transcript found for call %1 (its subagents/ "
                               "folder is missing or incomplete)")
                    .arg(call));
    }
    return missing;
}

} // namespace sandscope
