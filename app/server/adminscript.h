#pragma once
// Runs one admin script as root in the sandbox, through the AdminAccess channel, and streams
// its output: through open-terminal as the server account (ProcessStream without a user), or
// through the local admin command (`<prefix> sh -s`, the script on its standard input).
//
// The local command runs in a session of its own (setsid), so it has no terminal to prompt
// on (an ssh or sudo that wants a password fails instead of hanging) and Cancel ends its
// whole process tree. The script first prints a marker: when the command ends without it,
// the script never ran (missing program, refused login, no such container), and `failed`
// names the exact command line and its stderr; otherwise `finished` carries the script's own
// exit status.

#include "server/adminaccess.h"
#include "server/apierror.h"
#include "server/shortcommand.h"

#include <QObject>
#include <QPointer>
#include <QProcess>

#include <memory>

namespace sandscope {

class OpenTerminalClient;
class ProcessStream;

class AdminScript : public QObject {
    Q_OBJECT
public:
    AdminScript(OpenTerminalClient *client, AdminAccess access, QObject *parent = nullptr);
    ~AdminScript() override;

    const AdminAccess &access() const { return m_access; }
    // The script (POSIX sh). Through the server account it runs as that account: scripts
    // that need root elevate themselves (`sudo -n` when not root).
    void start(const QString &script);
    // Ends the script: the remote process, or the local process tree (SIGTERM, then SIGKILL).
    void cancel();
    // No more signals; the script is cancelled.
    void abandon();
    bool isRunning() const { return m_running; }

Q_SIGNALS:
    // Output text in order. The local command delivers complete lines (stdout and stderr,
    // each line whole); the server account delivers the terminal's text as it comes.
    void output(const QString &text);
    void finished(int exitCode);
    void failed(const sandscope::ApiError &error);

private:
    void startLocal(const QString &script);
    void startOnServer(const QString &script);
    void readChannel(QProcess::ProcessChannel channel);
    void localFinished(int exitCode, QProcess::ExitStatus status);
    void fail(const QString &message);

    OpenTerminalClient *m_client;
    AdminAccess m_access;
    bool m_running = false;
    bool m_cancelled = false;
    QPointer<ProcessStream> m_stream;
    std::unique_ptr<QProcess> m_process;
    QByteArray m_pending[2]; // unterminated stdout / stderr
    QByteArray m_stderr; // kept for the failure message
    bool m_started = false; // the marker arrived: the script runs
};

// Runs an admin script to completion and returns its output lines, like runShortCommand.
// `done` runs once, unless `context` is destroyed first.
void runAdminCommand(OpenTerminalClient *client, const AdminAccess &admin, const QString &script,
    QObject *context, std::function<void(const Result<CommandOutput> &)> done);

// runListingScript as root through the admin channel.
template <typename Listing>
void runAdminListingScript(OpenTerminalClient *client, const AdminAccess &admin,
    const QString &script, const QString &what, bool (*parse)(const QString &, Listing *),
    QObject *context,
    std::function<void(bool ok, const Listing &listing, const QString &error)> done)
{
    runAdminCommand(client, admin, script, context, listingParser(what, parse, done));
}

} // namespace sandscope
