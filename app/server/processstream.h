#pragma once
// Runs one command through /execute and delivers its output in order, exactly once, by
// offset polling: fast while output flows, backing off while idle (the server's `wait`
// returns early only on exit). Drains after exit, follows `truncated`, never uses `tail`,
// and when the in-memory record is gone (404: expired after ~300 s, server restarted,
// 0.11.34 deletes it on kill) recovers the rest from the process log at `log_path`, or
// reports expiry instead of hanging.

#include "server/apierror.h"
#include "server/connection.h"
#include "server/openterminalclient.h"
#include "util/pollbackoff.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

namespace sandscope {

class ProcessStream : public QObject {
    Q_OBJECT
public:
    enum class State { Idle, Starting, Running, Stopping, Finished, Failed };
    Q_ENUM(State)

    ProcessStream(OpenTerminalClient *client, Identity identity, QObject *parent = nullptr);
    ~ProcessStream() override;

    void start(const QString &command, const ExecuteOptions &options = {});
    // Re-attach to a process started earlier (same identity!), reading from `offset`.
    // With its log path, output is recovered from the log when the record has expired.
    void attach(const QString &processId, qint64 offset = 0, const QString &logPath = {});

    // SIGTERM, then SIGKILL if it is still running after graceMs.
    void stop(int graceMs = 3000);
    void kill();
    // Forget the process without touching it (no more callbacks).
    void detach();
    void sendInput(const QString &text);

    State state() const { return m_state; }
    QString processId() const { return m_processId; }
    QString logPath() const { return m_logPath; }
    qint64 offset() const { return m_offset; }
    bool hasExitCode() const { return m_hasExitCode; }
    int exitCode() const { return m_exitCode; }
    ProcessStatus finalStatus() const { return m_finalStatus; }

    // Polling cadence. The defaults suit a run someone watches: at most 4 status requests
    // per second while output flows, the same pace through short pauses, then backing off
    // to one request per idleMaxMs (0.2 requests/s) while the process stays silent. Short
    // helper commands (scans, stat) use a faster cadence; tests shorten it.
    static constexpr int defaultFastMs = 250;
    static constexpr int defaultIdleMaxMs = 5000;
    void setPollIntervals(int fastMs, int idleMaxMs);
    // For short helper commands whose result is awaited (scripts, listings, stat): they end
    // within moments, so polling them fast costs few requests and saves the waiting.
    void useShortCommandCadence() { setPollIntervals(50, 500); }
    // Status requests sent so far (the benchmark reports the polling rate).
    int pollCount() const { return m_pollCount; }

Q_SIGNALS:
    void started(const QString &processId);
    void output(const QString &text); // raw PTY text in order, each chunk exactly once
    // After the final drain. When hasExitCode() is false (a newer server marked the process
    // killed but never reported its exit) exitCode is 0 and must not be read as success.
    void finished(int exitCode, sandscope::ProcessStatus status);
    void failed(const sandscope::ApiError &error); // includes Kind::ProcessExpired
    void notice(const QString &message); // e.g. "record expired, recovered from log"
    void stateChanged(sandscope::ProcessStream::State state);

private:
    void setState(State state);
    void schedulePoll(bool hadOutput);
    void poll();
    void handleSnapshot(const ProcessSnapshot &snapshot);
    void handleMissingRecord();
    void recoverFromLog(int attempt);
    void finish(int exitCode, ProcessStatus status);
    void fail(const ApiError &error);

    using Empty = OpenTerminalClient::Empty;

    OpenTerminalClient *m_client;
    Identity m_identity;
    State m_state = State::Idle;
    QString m_processId;
    QString m_logPath;
    qint64 m_offset = 0;
    bool m_hasExitCode = false;
    int m_exitCode = 0;
    ProcessStatus m_finalStatus = ProcessStatus::Unknown;
    bool m_draining = false;
    bool m_stopRequested = false;
    int m_consecutiveErrors = 0;
    QElapsedTimer m_killedSince;
    QElapsedTimer m_pollClock; // round trip of the last status request
    // Silence shorter than this many fast intervals is a pause, not idleness.
    static constexpr int quietGraceIntervals = 8;
    PollBackoff m_backoff {defaultFastMs, defaultIdleMaxMs, quietGraceIntervals};
    int m_pollCount = 0;
    QTimer m_pollTimer;
    QTimer m_escalateTimer;
    CallHandle m_inflight;
};

} // namespace sandscope
