#pragma once
// One running Claude Code agent on the live wall: who runs it and where (what the follower's
// agents mode announced, followprotocol.h), and what its transcript says so far. Its lines are
// parsed by RunParser and its figures come from RunSummaryBuilder, as everywhere else
// (docs/stream-json.md, "Figures"); LiveAgent only keeps what the wall adds: the call running
// now and the last line.

#include "streamjson/runparser.h"
#include "streamjson/runsummary.h"

#include <QByteArray>
#include <QDateTime>
#include <QMetaType>
#include <QString>
#include <QVector>

#include <map>
#include <memory>

namespace sandscope {

// What the follower announced of an agent (an `A` frame's JSON).
struct LiveAgentInfo {
    QByteArray id; // the follower's id for it: pid and start time
    qint64 pid = 0;
    qint64 uid = -1;
    QString account; // the Linux account
    QString home; // its $HOME
    QString cwd;
    QString transcript; // empty while not known
    QString sessionId;
    QDateTime started; // UTC
    QString member; // the fleet member it runs on; empty for one server

    // False with the reason for JSON that is not an announcement.
    static bool fromJson(
        const QByteArray &id, const QByteArray &json, LiveAgentInfo *info, QString *why);
    // The chat of a working directory <home>/chat-<id> (RunLauncher's); empty otherwise.
    QString chatId() const;
};

// The wall's row of an agent, as a value (LiveAgentModel keeps these).
struct LiveAgentRow {
    LiveAgentInfo info;
    QString toolName; // the call running now; empty when none
    qint64 toolStartedMs = -1; // its record's time, ms since the epoch
    RunSummary summary; // tokens, cost, calls so far (RunSummaryBuilder)
    QString lastLine; // the newest text, tool call or result, one line
    qint64 lastActivityMs = 0; // the newest record's time (or the start), ms since the epoch
    QString problem; // why its transcript cannot be read, when it cannot
};

class LiveAgent {
public:
    explicit LiveAgent(LiveAgentInfo info);
    ~LiveAgent();
    LiveAgent(const LiveAgent &) = delete;
    LiveAgent &operator=(const LiveAgent &) = delete;

    // A new announcement: another transcript starts everything over.
    void setInfo(const LiveAgentInfo &info);
    // The transcript was replaced or truncated: read again from its start.
    void restart();
    // Bytes of the transcript at `offset`. False when they do not follow the bytes before
    // (a gap): nothing was taken.
    bool feed(qint64 offset, const QByteArray &bytes);
    // A sub-agent transcript of the session (<session>/subagents/agent-<name>.jsonl), read
    // like the transcript: its events are the Agent call's that started it (its meta file's
    // toolUseId), as in a replay, so its tokens and calls count in the agent's figures.
    bool feedSubagent(const QString &name, qint64 offset, const QByteArray &bytes);
    void setSubagentMeta(const QString &name, const QByteArray &json);
    // The sub-agent's file was replaced or truncated: read again from its start. What was
    // counted of it stays counted, and the row says so.
    void restartSubagent(const QString &name);
    qint64 subagentOffset(const QString &name) const;
    void setProblem(const QString &problem) { m_problem = problem; }
    qint64 offset() const { return m_main.offset; }
    LiveAgentRow row() const;

private:
    // One file's bytes to complete records.
    struct Reader {
        std::unique_ptr<RunParser> parser = std::make_unique<RunParser>();
        QByteArray pending; // bytes after the last complete line
        qint64 offset = 0;
        // False on a gap; else the events of the records completed by `bytes`.
        bool read(qint64 at, const QByteArray &bytes, RunEventBatch *events);
    };
    struct Subagent {
        Reader reader;
        QString toolUseId; // the Agent call that started it; empty while not known
    };

    void take(const RunEventBatch &events);

    struct OpenCall {
        QString id;
        QString name;
        qint64 startedMs = 0;
    };

    LiveAgentInfo m_info;
    Reader m_main;
    std::map<QString, Subagent> m_subagents; // by agent-<name>.jsonl's name
    RunSummaryBuilder m_builder;
    QVector<OpenCall> m_openCalls; // in the order they started
    QString m_lastLine;
    qint64 m_lastActivityMs = 0;
    QString m_problem;
};

} // namespace sandscope

Q_DECLARE_METATYPE(sandscope::LiveAgentRow)
