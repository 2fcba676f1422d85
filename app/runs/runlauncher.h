#pragma once
// Launches `claude -p` for one chat inside a sandbox account and delivers its stream-json
// output as numbered lines, exactly:
//
//  * prepare: ~/chat-<chat> and ~/.sandscope/runs/<chat> exist, an empty env file 0620;
//  * the environment (API key, base URL, …) is written into that file with /files/write,
//    which keeps the mode, then it is tightened to 0600 and checked with stat — the secret
//    is never on a command line, in a log or in an error message;
//  * the prompt is uploaded byte for byte (multipart) and fed to claude on stdin;
//  * the run prints a begin marker, then claude's stdout goes through `tee` into
//    ~/.sandscope/runs/<chat>/<run>.jsonl. Line N of the stream is line N of that file.
//
// PTY damage (a multibyte character split between two 4096-byte reads becomes U+FFFD) is
// repaired from the tee file: lines with U+FFFD at once, and every line once more when the
// run ends (lines the transport lost are added then). The tee file is fetched raw with
// /files/view and split at '\n': /files/read numbers lines differently (it also breaks at
// \r, \v, \f, \x1c-\x1e, U+0085, U+2028 and U+2029, which JSON.stringify leaves unescaped).
//
// A RunHandle can be persisted; reattach() continues a run after the app was closed: by
// process id while the server still knows it (or has its process log), otherwise by
// following the tee file until the exit file appears or the run's shell is gone.
//
// Pushed, not polled: where the user's FollowChannel opens, the tee, exit and pid files are
// followed by push (PushedRun), lines arrive byte for byte as claude wrote them (nothing to
// repair), and the process is polled only until its pid is known (about a second); an idle run
// then costs no request at all. The run's shell runs in a session of its own (`setsid -w`), so
// a server restarted in place does not end it: the channel reconnects and the run goes on
// where it was. A run whose shell is gone without an exit status was interrupted (its group
// killed, the sandbox restarted): interrupted() says so, and the chat can resume its session.
// When push cannot open, the launcher polls as before and says why in a notice.
//
// The request that starts the run may answer late (push can deliver the run first) or fail:
// it is never cut short, and when it fails the run's files decide. Its shell creates its pid
// file first thing; none at the next liveness check means it never started: its env file is
// removed and the run fails with the start's error (push alone would wait for it forever).

#include "claude/claudecommand.h"
#include "runs/pushedrun.h"
#include "server/connection.h"
#include "server/lineassembler.h"
#include "server/openterminalclient.h"
#include "server/processstream.h"

#include <QElapsedTimer>
#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QStringList>
#include <QTimer>

#include <functional>

namespace sandscope {

struct RunHandle {
    Identity identity; // the same X-User-Id / X-Session-Id pair for the run's whole life
    QString chatId;
    QString runId;
    QString processId; // empty once the server cannot know it any more
    QString logPath; // open-terminal's process log, if known
    QString home; // the account's home, absolute
    QString envFileName = QStringLiteral("agent.env");

    RunPaths paths() const { return RunPaths::make(home, chatId, runId, envFileName); }
    QString teePath() const { return paths().teeFile; }
    bool isValid(QString *why = nullptr) const;

    QJsonObject toJson() const;
    static RunHandle fromJson(const QJsonObject &object);
};

class RunLauncher : public QObject {
    Q_OBJECT
public:
    enum class State { Idle, Preparing, Streaming, FollowingTee, Finished, Failed, Interrupted };
    Q_ENUM(State)

    RunLauncher(OpenTerminalClient *client, Identity identity, QObject *parent = nullptr);
    ~RunLauncher() override;

    // Per profile, e.g. "work.env"; default "agent.env" (see claudecommand::isValidEnvFileName).
    void setEnvFileName(const QString &name) { m_envFileName = name; }
    // Polling of the process (and of the tee file when following it); the defaults are
    // ProcessStream's cadence for a watched run, tests shorten them.
    void setPollIntervals(int fastMs, int idleMaxMs);
    // How often a followed run is checked for being alive while its tee file does not grow.
    void setLivenessInterval(int ms) { m_livenessIntervalMs = ms; }
    // Off: lines are polled even where push works (tests and the benchmark of the polling path).
    void setPushAllowed(bool allowed) { m_pushAllowed = allowed; }
    // Lines arrive by push now (false before the start, and after a fallback to polling).
    bool isPushed() const { return m_pushLines; }

    // `environment` goes into the env file only (secrets belong there). Everything fails
    // through failed(); nothing is emitted synchronously.
    void launch(const QString &chatId, const QString &prompt, const ClaudeRunOptions &options,
        const QHash<QString, QString> &environment);
    // Continues a run; lines 1..linesAlreadySeen are not emitted again (they are still kept
    // in lines() and repaired).
    void reattach(const RunHandle &handle, qint64 linesAlreadySeen = 0);
    // Replaces line `number` (1-based) with the exact line from the tee file.
    void repairLine(qint64 number);

    // By process id while streaming; a run followed by its tee file gets the signal through
    // its shell's process group.
    void stop(int graceMs = 3000);
    void kill();
    // Forgets the run without touching it (it keeps running in the sandbox).
    void detach();

    State state() const { return m_state; }
    RunHandle handle() const { return m_handle; }
    // Every stream line so far; line N is lines().at(N - 1). Repairs are applied in place.
    const QStringList &lines() const { return m_lines; }
    bool hasExitCode() const { return m_hasExitCode; }
    int exitCode() const { return m_exitCode; }
    // claude's stderr, read when the run ended with a non-zero status (start-up errors).
    QString standardError() const { return m_standardError; }

Q_SIGNALS:
    // At most once per launch, before finished() or interrupted() (lines may come first: push
    // can deliver them before the start request answers). Not when the start request failed
    // and the run, started after all, is then followed by its files: that path does not
    // announce it. Persist the handle to reattach later.
    void started(const sandscope::RunHandle &handle);
    void lineReceived(qint64 number, const QString &line);
    void lineRepaired(qint64 number, const QString &line);
    void noise(const QString &text); // terminal lines outside the stream (e.g. sudo warnings)
    void notice(const QString &message);
    // After the last line and the final check against the tee file. exitCode is claude's
    // (negative: the run was killed by that signal).
    void finished(int exitCode);
    void failed(const QString &message);
    // The run's shell is gone without claude's exit status, and not by a signal from here:
    // its process group was ended (a container or service restart). Every line it wrote was
    // delivered; its Claude session can be resumed.
    void interrupted(const QString &message);
    void stateChanged(sandscope::RunLauncher::State state);

private:
    using Empty = OpenTerminalClient::Empty;
    struct ScriptOutcome {
        bool ok = false; // ran and exited 0
        QString output;
        QString error;
    };

    void setState(State state);
    void fail(const QString &message);
    void failLater(const QString &message);
    void runScript(const QString &script, std::function<void(const ScriptOutcome &)> done);

    void writeEnvironment(
        const QString &content, const QByteArray &prompt, const ClaudeRunOptions &options);
    void uploadPrompt(qint64 envBytes, const QByteArray &prompt, const ClaudeRunOptions &options);
    void verifyFiles(qint64 envBytes, qint64 promptBytes, const ClaudeRunOptions &options);
    void startRun(const ClaudeRunOptions &options);

    ProcessStream *makeStream();
    void announceStarted();
    void releaseStream();
    void abandonStream();
    void handleTerminalText(const QString &text);
    void acceptTerminalLine(const QString &line);
    void appendLine(const QString &line);
    void streamFinished(int exitCode);
    void streamFailed(const QString &message);

    void scheduleRepair();
    void fetchTee(std::function<void(bool ok, const QList<QByteArray> &lines)> done);
    void applyTee(const QList<QByteArray> &teeLines, bool final);

    void startPush();
    void stopPushing();
    void pushUnavailable(const QString &reason);
    void finishPushed(int exitCode);
    void pushedRunVanished();

    void followTee();
    // Each look at a followed tee file costs two requests (exit file, tee file).
    int followFastMs() const { return 2 * m_fastMs; }
    void followPoll();
    void checkLiveness();
    void discardUnstartedRun();
    // Sends the signal to the run's process group; a script that could not run (a dropped
    // connection, a busy server) is tried again, at most signalAttempts times in all.
    void signalFollowedRun(const QString &signalName, int graceMs, int attempt = 1);
    static constexpr int signalAttempts = 4;
    // The signal that ended a run found gone without an exit status: the last one sent, or
    // one still under way (its script may have done its work before the answer came back,
    // and a look at the run can see the result first). 0: none was asked for here.
    int signalEndingTheRun() const { return m_signalSent != 0 ? m_signalSent : m_signalUnderWay; }
    void finishWithTee(int exitCode);
    void completeReadingStandardError(int exitCode);
    void complete(int exitCode);

    OpenTerminalClient *m_client;
    Identity m_identity;
    QString m_envFileName = QStringLiteral("agent.env");
    State m_state = State::Idle;
    RunHandle m_handle;
    QPointer<ProcessStream> m_stream;
    bool m_streamStarting = false; // the start request has not answered yet
    bool m_releaseStreamOnStart = false; // not needed any more: detached once it answers
    bool m_startOwed = false; // a launch's started() is still to come
    QString m_startFailure; // why the start request failed (the run may still have started)
    QPointer<PushedRun> m_push;
    bool m_pushAllowed = true;
    bool m_pushLines = false; // lines come from m_push, the stream's output is not used
    bool m_reattaching = false;
    LineAssembler m_assembler;
    bool m_inStream = false; // the begin marker was seen
    QStringList m_lines;
    qint64 m_alreadySeen = 0;
    QSet<qint64> m_pendingRepairs;
    bool m_repairInFlight = false;
    int m_repairAttempts = 0;
    QTimer m_repairTimer;
    bool m_hasExitCode = false;
    int m_exitCode = 0;
    QString m_standardError;

    int m_fastMs = ProcessStream::defaultFastMs;
    int m_idleMaxMs = ProcessStream::defaultIdleMaxMs;
    int m_followDelayMs = ProcessStream::defaultFastMs;
    int m_livenessIntervalMs = 5000;
    QElapsedTimer m_sinceLivenessCheck;
    bool m_livenessDue = false; // a signal was sent: check at the next look
    int m_signalSent = 0; // the last signal sent to a followed run
    int m_signalUnderWay = 0; // a signal whose script has not answered yet
    QTimer m_followTimer;
    CallHandle m_inflight;
};

} // namespace sandscope

Q_DECLARE_METATYPE(sandscope::RunHandle)
