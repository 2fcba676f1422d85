#pragma once
// One live turn of a chat: starts `claude -p` through RunLauncher as the request's user,
// hands its stream lines on in order with every agent secret masked, and records the chat's
// Claude session in the SessionStore as soon as it is known (so a stopped run can still be
// resumed). A line the PTY damaged (U+FFFD) is held back briefly for its repair from the tee
// file, like the `run` verb does. Starting, stopping and killing a run are audited.

#include "claude/claudecommand.h"
#include "runs/runlauncher.h"
#include "security/auditlog.h"
#include "security/secretredactor.h"
#include "server/connection.h"
#include "sessions/sessionstore.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QString>
#include <QTimer>

namespace sandscope {

class OpenTerminalClient;

// Everything needed to start a run; the New Run dialog produces it, tests build it directly.
struct LiveRunRequest {
    Identity identity; // the sandbox user the run acts as
    SessionScope scope; // where its session is recorded (profile or server, user)
    QString chatId;
    QString prompt;
    ClaudeRunOptions options;
    QHash<QString, QString> environment; // goes into the 0600 env file only
    QString envFileName = QStringLiteral("agent.env");
};

class LiveRun : public QObject {
    Q_OBJECT
public:
    // How long a damaged line waits for its repair before it is shown as it is.
    static constexpr int repairHoldMs = 4000;

    LiveRun(OpenTerminalClient *client, LiveRunRequest request, QObject *parent = nullptr);
    ~LiveRun() override;

    // Agent variables whose names say they hold credentials (…KEY, …TOKEN, …SECRET, …).
    static bool isSecretName(const QString &name);
    // NAME=VALUE lines (blank lines and # comments skipped, "export " allowed, one pair of
    // matching surrounding quotes removed). Errors name the line, never a value.
    static bool parseEnvironment(
        const QString &text, QHash<QString, QString> *environment, QString *why);
    static QString environmentText(const QHash<QString, QString> &environment);

    const LiveRunRequest &request() const { return m_request; }
    RunLauncher *launcher() { return &m_launcher; }
    QString redact(const QString &text) const { return m_redactor.redact(text); }

    void start();
    // Continues a run started earlier (its tab or the app was closed), e.g. one found by
    // rundiscovery, from its first line; the request names its user, scope and chat.
    void attach(const RunHandle &handle);
    // SIGTERM, then SIGKILL after graceMs; a stop before the run started waits for the start.
    void stop(int graceMs = 3000);
    void kill();
    bool isActive() const { return m_active; }
    // The claude process exists: started here, or attached to.
    bool isLaunched() const { return m_launched; }
    bool wasStopped() const { return m_stopRequested; }

    // Records the session in the store (once per distinct id); the page calls it as soon as
    // the stream names the session.
    void rememberSession(const QString &sessionId);
    QString sessionId() const { return m_sessionId; }

Q_SIGNALS:
    void started(const sandscope::RunHandle &handle);
    // A stream line, secrets masked, in stream order.
    void lineReady(const QByteArray &line, qint64 arrivalMs);
    void notice(const QString &message); // masked
    // exitCode is claude's (negative: killed by that signal); failed() ends a run instead.
    void finished(int exitCode);
    void failed(const QString &message); // masked
    // The run's process ended without an exit status, not from here (RunLauncher::interrupted).
    void interrupted(const QString &message); // masked

private:
    void pump(bool force);
    void audit(const QString &action, const QString &result);

    LiveRunRequest m_request;
    RunLauncher m_launcher;
    SecretRedactor m_redactor;
    bool m_active = false;
    bool m_launched = false;
    bool m_stopRequested = false;
    int m_stopGraceMs = 3000;
    qint64 m_nextLine = 1;
    QElapsedTimer m_heldFor;
    QTimer m_holdTimer;
    QString m_sessionId;
    AuditLog m_auditLog;
};

} // namespace sandscope
