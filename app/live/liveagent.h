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
    void setProblem(const QString &problem) { m_problem = problem; }
    qint64 offset() const { return m_offset; }
    LiveAgentRow row() const;

private:
    void take(const RunEventBatch &events);

    struct OpenCall {
        QString id;
        QString name;
        qint64 startedMs = 0;
    };

    LiveAgentInfo m_info;
    std::unique_ptr<RunParser> m_parser;
    RunSummaryBuilder m_builder;
    QByteArray m_pending; // bytes after the last complete line
    qint64 m_offset = 0;
    QVector<OpenCall> m_openCalls; // in the order they started
    QString m_lastLine;
    qint64 m_lastActivityMs = 0;
    QString m_problem;
};

} // namespace sandscope

Q_DECLARE_METATYPE(sandscope::LiveAgentRow)
