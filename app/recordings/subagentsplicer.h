#pragma once
// A transcript keeps each sub-agent's records in a file of its own,
// <session>/subagents/agent-<id>.jsonl, linked to the spawning Agent/Task call by
// agent-<id>.meta.json ("toolUseId") or by the call's result ("agentId"); stream-json instead
// interleaves them, marked with that call's id (docs/stream-json.md, "Transcripts on disk").
// SubagentSplicer puts a sub-agent's events under its call, so a transcript gives the same tree
// as the stream, and among the main thread's events in the order they happened
// (SubagentMerger); nested sub-agents the same way.

#include "streamjson/runevents.h"
#include "streamjson/subagentmerger.h"

#include <QHash>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QVector>

#include <memory>

namespace sandscope {

class LineSource;

struct SubagentTranscript {
    QString agentId; // <id> of agent-<id>.jsonl
    QString toolUseId; // the spawning call, from the meta file; empty without one
    QString agentType;
    QString description;
    QString path; // a local file, read when spliced, or
    QByteArray content; // the file's bytes, fetched from a server
    QString readError; // why the content could not be fetched
    // A local file (or its meta file) that was not read, and why (a FIFO, a device, a link out
    // of the session's folder): "subagents/agent-x.jsonl is a FIFO, not read".
    QString skipped;
};

class SubagentSplicer {
public:
    // The sub-agents next to a local transcript: <dir>/<session>/subagents/agent-*.jsonl with
    // their meta files (older CLIs: agent-*.jsonl beside the transcript, without meta). No
    // folder is normal (a session without sub-agents). Only regular files inside the session's
    // folder are read (LocalFileCheck); the others are listed with why (skipped).
    static QVector<SubagentTranscript> findLocal(const QString &transcriptPath);
    // Fills toolUseId, agentType and description from a meta file's JSON; false when it is
    // not a JSON object.
    static bool readMeta(const QByteArray &json, SubagentTranscript *subagent);

    void add(const SubagentTranscript &subagent);
    // Events from a local sub-agent file say where their line is (RunEvent::rawRef): the file
    // joins `source` (the main transcript's reader's), and unless keepLines the line is left
    // out of the events, as RecordingReader::setKeepLines does for the main transcript's.
    void setLineSource(std::shared_ptr<LineSource> source) { m_lineSource = std::move(source); }
    void setKeepLines(bool keep) { m_keepLines = keep; }
    bool isEmpty() const { return m_agents.isEmpty(); }

    // Inserts the known sub-agents' events into `events` (the main transcript's next events)
    // where they happened; a sub-agent's events later than the batch's last event are held
    // until the main transcript gets past them, or finish().
    void splice(RunEventBatch &events);
    // At the end of the transcript: the events still held, in time order.
    [[nodiscard]] RunEventBatch finish();
    // Local sub-agent and meta files that were not read, then Agent/Task calls seen whose
    // sub-agent transcript was never found, one message each.
    QStringList missingSubagents() const;

private:
    RunEventBatch eventsOf(int agent, const QString &toolUseId, int depth);
    RunEventBatch spliceWith(SubagentMerger &merger, const RunEventBatch &events, int depth);
    int agentFor(const RunEvent &event) const;

    QVector<SubagentTranscript> m_agents;
    QHash<QString, int> m_byToolUseId;
    QHash<QString, int> m_byAgentId;
    QSet<int> m_spliced;
    QStringList m_agentCalls; // Agent/Task tool_use ids in order
    QSet<QString> m_servedCalls;
    SubagentMerger m_merger;
    std::shared_ptr<LineSource> m_lineSource;
    bool m_keepLines = true;
};

} // namespace sandscope
