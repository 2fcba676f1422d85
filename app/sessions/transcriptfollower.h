#pragma once
// Reads a session transcript that lives in a user's home on the server (a session Open WebUI
// or anyone else started), and with follow() keeps reading while it grows, so a run can be
// watched as it happens. Each look is one short command as the user that prints only the
// bytes after what was already read (ranged: `tail -c +N | head -c LIMIT`, base64 so no byte
// is altered by the terminal), for the main file and every file in its subagents/ folder.
// A transcript that leads out of the user's home (resolved in the user's shell, in the same
// command) is refused, naming the link and its target; so is a sub-agent's file.
// Sub-agent events are tagged with their Agent call (from agent-<id>.meta.json, or the call's
// result naming the agent), the way stream-json marks them.
//
// Once caught up, following is pushed where the user's FollowChannel opens: the transcript
// and each known sub-agent file arrive byte by byte as they are written, with no request while
// the session is idle; a new sub-agent (an Agent call in the transcript) costs one look, which
// reads only the new sub-agent files. Where push cannot open, looks are polled: a look costs
// about three requests (execute, status, drain), so looks are 750 ms apart while the file grows
// (≤ 4 requests/s) and back off to one per 15 s (0.2 requests/s) while it does not.

#include "server/connection.h"
#include "streamjson/runevents.h"
#include "streamjson/subagentmerger.h"
#include "util/pollbackoff.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QSet>
#include <QString>
#include <QTimer>

#include <map>
#include <memory>

namespace sandscope {

class OpenTerminalClient;
class RunParser;

class TranscriptFollower : public QObject {
    Q_OBJECT

public:
    enum class State {
        Idle,
        Reading, // catching up with what is on disk
        Following, // caught up; watching for growth
        Finished, // read to the end (and, when following, stopped)
        Failed,
    };
    Q_ENUM(State)

    static constexpr int defaultFastMs = 750;
    static constexpr int defaultIdleMaxMs = 15000;
    // At most this many new bytes of one file travel per look; they are parsed at once, so
    // the chunk is kept small enough to parse in a few milliseconds (a 100 MB transcript
    // reads in 50 looks).
    static constexpr qint64 defaultChunkBytes = qint64(2) * 1024 * 1024;

    TranscriptFollower(OpenTerminalClient *client, Identity identity, QString transcriptPath,
        QObject *parent = nullptr);
    ~TranscriptFollower() override;

    // Reads to the end, then finishes (follow=false) or keeps watching (follow=true) until
    // stop(), or until the session settles: its last record ends a turn (cost-state) and it
    // has not grown for settleMs (settleMs < 0: never settles, e.g. an open run tab).
    void start(bool follow, int settleMs = -1);
    void stop();

    void setPollIntervals(int fastMs, int idleMaxMs);
    void setChunkBytes(qint64 bytes) { m_chunkBytes = qMax<qint64>(1024, bytes); }
    // Off: following polls even where push works (tests of the polling path).
    void setPushAllowed(bool allowed) { m_pushAllowed = allowed; }
    // Following by push now.
    bool isPushed() const { return m_pushed; }

    State state() const { return m_state; }
    QString transcriptPath() const { return m_path; }
    qint64 bytesRead() const { return m_offset; }
    qint64 totalBytes() const { return m_size; }
    int looks() const { return m_looks; }
    // Lines of the main transcript parsed so far (sub-agent files not counted).
    qint64 linesParsed() const;
    // Whether the last complete record read ended a turn (a cost-state record).
    bool turnEnded() const { return m_turnEnded; }

    // The shell command of one look (public for tests of the script itself).
    static QString lookScript(const QString &path, qint64 offset, qint64 chunkBytes,
        const QHash<QString, qint64> &subagentOffsets);

Q_SIGNALS:
    void eventsReady(const sandscope::RunEventBatch &events);
    void progress(qint64 bytesRead, qint64 totalBytes);
    void stateChanged(sandscope::TranscriptFollower::State state);
    // Something the user should know that does not end reading (e.g. an unreadable
    // sub-agent file, the transcript rewritten).
    void notice(const QString &message);
    // Reading ended for good: completed, or with a message that says why (what was shown
    // stays shown).
    void finished(bool completed, const QString &message);

private:
    struct Agent;
    struct Look;

    void setState(State state);
    void look();
    void scheduleLook(bool grew);
    void handleLook(const Look &look);
    void feedMain(const QByteArray &bytes);
    void feedAgent(Agent &agent, const QByteArray &bytes);
    void learnAgentCalls(const RunEventBatch &events);
    bool startPush();
    void pushAgent(Agent &agent);
    void pushedBytes(const QString &name, const QByteArray &bytes);
    void stopPush();
    void finish(bool completed, const QString &message);

    OpenTerminalClient *m_client;
    Identity m_identity;
    QString m_path;
    State m_state = State::Idle;
    bool m_follow = false;
    int m_settleMs = -1;
    PollBackoff m_backoff {defaultFastMs, defaultIdleMaxMs};
    qint64 m_chunkBytes = defaultChunkBytes;
    qint64 m_offset = 0;
    qint64 m_size = 0;
    int m_looks = 0;
    int m_failedLooks = 0; // in a row
    bool m_turnEnded = false;
    bool m_lookInFlight = false;
    QByteArray m_pending; // main file: bytes after the last newline
    std::unique_ptr<RunParser> m_parser;
    std::map<QString, std::unique_ptr<Agent>> m_agents; // by agent id
    QHash<QString, QString> m_callByAgent; // agent id → Agent call id, from results
    QSet<QString> m_reportedRefusals; // sub-agents' files not read, each said once
    SubagentMerger m_merger;
    QElapsedTimer m_quietFor;
    QTimer m_timer;
    QObject *m_lookContext = nullptr; // owns the running look; deleted to abandon it
    bool m_pushAllowed = true;
    bool m_pushed = false;
    qint64 m_skipPushed = 0; // of a rewritten transcript: what was there when it was rewritten
    bool m_discoveryOnly = false; // the look in flight reads only new sub-agent files
    QObject *m_pushContext = nullptr; // owns the followed files
    QTimer m_settleTimer; // pushed: the session settles without a look
};

} // namespace sandscope
