#pragma once
// One chat's live run, for the window and the command line alike: starts (or attaches to)
// each turn as a LiveRun, records every masked line before it is parsed, remembers the chat's
// Claude session as soon as the stream names it, escalates Stop (SIGTERM, then SIGKILL, then
// stop waiting) and reports how each turn ended as one RunOutcome. Follow-up turns resume the
// session. Each turn's prompt is shown as the user text a transcript starts the turn with.
// The owner applies the parsed events to its model (at once on the command line,
// batched in the run page, whose model also shows loaded files) and decides what to print.

#include "recordings/runrecording.h"
#include "runs/runsession.h"
#include "security/secretredactor.h"
#include "streamjson/runevents.h"
#include "streamjson/runoutcome.h"
#include "streamjson/runparser.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>

#include <memory>

namespace sandscope {

class OpenTerminalClient;

class RunController : public QObject {
    Q_OBJECT
public:
    // What one stop request did: the first sends SIGTERM (SIGKILL follows after the grace
    // period), the second SIGKILL, the third stops waiting (the turn ends as Stopped,
    // detached; the run may go on in the sandbox).
    enum class StopStep { None, Terminating, Killing, Detached };

    explicit RunController(OpenTerminalClient *client, QObject *parent = nullptr);
    ~RunController() override;

    // Every line of every turn is written here before it is parsed (RunRecorder's format).
    bool openRecording(const QString &path, const QJsonObject &metadata, QString *error);
    // openRecording with recordingMetadata(request, source) as the header.
    bool openRecording(
        const QString &path, const LiveRunRequest &request, const QString &source, QString *error);
    // The header of a recording of `request`'s turns, with the same keys whoever records:
    // source (who recorded it, e.g. "sandscope gui", "sandscope run"), server, user_id,
    // chat_id, resume_session_id and fork.
    static QJsonObject recordingMetadata(const LiveRunRequest &request, const QString &source);
    void closeRecording();
    QString recordingPath() const;

    void startTurn(const LiveRunRequest &request);
    // Follows a run started earlier (see rundiscovery) from its first line.
    void attachTurn(const LiveRunRequest &request, const RunHandle &handle);
    // The last turn's request continuing its session with `prompt`.
    LiveRunRequest followUpRequest(const QString &prompt) const;
    bool canFollowUp() const;

    StopStep requestStop(int graceMs = 3000);

    bool hasTurn() const { return m_live != nullptr; }
    bool isActive() const;
    // Whether the turn's claude process exists (started, or attached to).
    bool isLaunched() const;
    const LiveRunRequest *request() const;
    QString sessionId() const { return m_sessionId; }
    RunHandle handle() const;
    RunParser *parser() const { return m_parser; }

Q_SIGNALS:
    // The turn's claude process is known: started here, or attached to (`attached`).
    void turnStarted(const sandscope::RunHandle &handle, bool attached);
    // Each stream line in order, secrets masked, before it is recorded and parsed.
    void lineReady(const QByteArray &line, qint64 arrivalMs);
    void eventsReady(const sandscope::RunEventBatch &events);
    void sessionKnown(const QString &sessionId);
    void notice(const QString &message); // masked
    // Once per failure streak: lines are still parsed, but no longer recorded.
    void recordingFailed(const QString &message);
    void turnEnded(const sandscope::RunOutcome &outcome);

private:
    // The server's key; what a turn reports has the agent's secrets masked by its LiveRun.
    QString redact(const QString &text) const;
    LiveRun *newTurn(const LiveRunRequest &request);
    void onEvents(const RunEventBatch &parsed);
    // `events` with the turn's prompt as a user text after the turn's init line (once a turn).
    RunEventBatch withPrompt(const RunEventBatch &events);
    void endTurn(bool transportFailed, int exitCode, const QString &failure, bool detached = false,
        bool interrupted = false);

    OpenTerminalClient *m_client;
    QPointer<LiveRun> m_live; // the current (or last) turn
    RunParser *m_parser;
    RunRecorder m_recorder;
    RecordingFeed *m_feed;
    SecretRedactor m_redactor;
    QString m_sessionId;
    // The current turn.
    bool m_turnEnded = false;
    bool m_hasResult = false;
    bool m_promptShown = false; // the turn's prompt went out after its init
    ResultInfo m_result;
    int m_stopRequests = 0;
};

} // namespace sandscope
