#include "shellverb.h"

#include "cli/clioutput.h"
#include "cli/connectionoptions.h"
#include "cli/remotecommand.h"
#include "cli/verbsupport.h"
#include "security/auditlog.h"
#include "security/secretredactor.h"
#include "server/openterminalclient.h"
#include "terminal/terminalsession.h"
#include "util/format.h"

#include <QCommandLineParser>
#include <QEventLoop>
#include <QSocketNotifier>
#include <QTimer>

#include <csignal>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

namespace sandscope::cli {

const QString shellVerb = QStringLiteral("shell");

namespace {

int windowChangePipe[2] = {-1, -1};

void forwardWindowChange(int)
{
    const char byte = 1;
    [[maybe_unused]] const ssize_t written = ::write(windowChangePipe[1], &byte, 1);
}

// Puts stdin into raw mode for its lifetime and restores it afterwards.
class RawTerminal {
public:
    RawTerminal()
    {
        if (::tcgetattr(STDIN_FILENO, &m_saved) != 0)
            return;
        termios raw = m_saved;
        ::cfmakeraw(&raw);
        m_active = ::tcsetattr(STDIN_FILENO, TCSADRAIN, &raw) == 0;
    }
    ~RawTerminal() { restore(); }
    RawTerminal(const RawTerminal &) = delete;
    RawTerminal &operator=(const RawTerminal &) = delete;
    void restore()
    {
        if (m_active)
            ::tcsetattr(STDIN_FILENO, TCSADRAIN, &m_saved);
        m_active = false;
    }

private:
    termios m_saved {};
    bool m_active = false;
};

bool windowSize(int *columns, int *rows)
{
    winsize size {};
    for (int fd : {STDIN_FILENO, STDOUT_FILENO}) {
        if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0 && size.ws_row > 0) {
            *columns = size.ws_col;
            *rows = size.ws_row;
            return true;
        }
    }
    return false;
}

std::unique_ptr<QSocketNotifier> onWindowChange(std::function<void()> handler)
{
    if (windowChangePipe[0] < 0 && ::pipe2(windowChangePipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return nullptr;
    struct sigaction action { };
    action.sa_handler = forwardWindowChange;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(SIGWINCH, &action, nullptr);
    auto notifier = std::make_unique<QSocketNotifier>(windowChangePipe[0], QSocketNotifier::Read);
    QObject::connect(notifier.get(), &QSocketNotifier::activated, notifier.get(),
        [handler = std::move(handler)] {
            char byte = 0;
            bool any = false;
            while (::read(windowChangePipe[0], &byte, 1) == 1)
                any = true;
            if (any)
                handler();
        });
    return notifier;
}

// One interactive terminal between the local terminal and the server: stdin to the session,
// its output to stdout, window changes and Ctrl+C / SIGTERM, the audit log's open and close.
class ShellRelay {
public:
    ShellRelay(const ConnectionOptions &options, const QString &workingDirectory)
        : m_options(options)
        , m_client(options.connection)
        , m_identity(identityOf(options))
        , m_session(&m_client, m_identity)
        , m_interactive(::isatty(STDIN_FILENO) == 1)
        , m_input(STDIN_FILENO, QSocketNotifier::Read)
    {
        m_redactor.addSecret(options.connection.apiKey);
        m_session.setWorkingDirectory(workingDirectory);
        int columns = 80;
        int rows = 24;
        if (windowSize(&columns, &rows))
            m_session.setInitialSize(columns, rows);
        m_input.setEnabled(false);
        QObject::connect(&m_input, &QSocketNotifier::activated, &m_loop, [this] { readInput(); });
        connectSession();
    }

    // Runs the shell until it ends, fails or is stopped; returns the exit code.
    int exec()
    {
        const auto windowNotifier = m_interactive ? onWindowChange([this] {
            int c = 0;
            int r = 0;
            if (windowSize(&c, &r))
                m_session.resize(c, r);
        })
                                                  : nullptr;
        const auto signalNotifier = onStopSignals([this](int signalNumber) { stop(signalNumber); });
        m_input.setEnabled(true);
        m_session.start();
        m_loop.exec();
        m_input.setEnabled(false);
        closeAndDrain();
        if (m_raw)
            m_raw->restore();
        if (!m_failure.isEmpty()) {
            if (m_interactive)
                writeBytes(stdout, QByteArrayLiteral("\r\n"));
            printError(m_failure.trimmed());
        }
        return m_exitCode;
    }

private:
    static Identity identityOf(const ConnectionOptions &options)
    {
        Identity identity;
        identity.userId = options.userId;
        return identity;
    }

    QString durationText() const { return format::duration(m_session.openMilliseconds()); }

    void audit(const QString &action, const QString &result)
    {
        if (m_identity.userId.isEmpty())
            return;
        AuditLog log;
        const AuditEntry entry {m_options.profileName, m_options.serverText(), m_identity.userId,
            action, m_session.terminalId(), m_redactor.redact(result)};
        if (!log.append(entry))
            m_failure
                += QStringLiteral("warning: could not write the audit log %1\n").arg(log.path());
    }

    void readInput()
    {
        char buffer[65536];
        const ssize_t count = ::read(STDIN_FILENO, buffer, sizeof buffer);
        if (count > 0) {
            m_session.write(QByteArray(buffer, int(count)));
            return;
        }
        if (count < 0 && (errno == EINTR || errno == EAGAIN))
            return;
        // End of input: what Ctrl+D at the start of a line does.
        m_input.setEnabled(false);
        m_session.write(QByteArrayLiteral("\x04"));
    }

    void connectSession()
    {
        QObject::connect(&m_session, &TerminalSession::opened, &m_loop, [this] {
            audit(QStringLiteral("terminal-open"), QStringLiteral("ok"));
            if (m_interactive)
                m_raw = std::make_unique<RawTerminal>();
        });
        QObject::connect(
            &m_session, &TerminalSession::output, &m_loop, [this](const QByteArray &bytes) {
                if (!writeBytes(stdout, bytes)) {
                    m_failure = QStringLiteral("cannot write the output; closing the terminal");
                    m_exitCode = 128 + SIGPIPE;
                    m_loop.exit();
                }
            });
        QObject::connect(&m_session, &TerminalSession::ended, &m_loop, [this] {
            m_exitCode = m_session.hasExitStatus() ? m_session.exitStatus() : 0;
            audit(QStringLiteral("terminal-close"),
                QStringLiteral("shell ended after %1").arg(durationText()));
            m_loop.exit();
        });
        QObject::connect(&m_session, &TerminalSession::failed, &m_loop,
            [this](const ApiError &error, bool dropped) { fail(error, dropped); });
    }

    void fail(const ApiError &error, bool dropped)
    {
        audit(dropped ? QStringLiteral("terminal-close") : QStringLiteral("terminal-open"),
            dropped ? QStringLiteral("connection lost after %1: %2")
                          .arg(durationText(), error.toString())
                    : error.toString());
        QString text = error.toString();
        if (!error.detail.isEmpty() && !text.contains(error.detail))
            text += QStringLiteral(": ") + error.detail;
        m_failure += m_redactor.redact(serverMessage(text, m_options));
        m_exitCode = serverErrorExitCode;
        m_loop.exit();
    }

    void stop(int signalNumber)
    {
        if (m_session.state() == TerminalSession::State::Open)
            audit(QStringLiteral("terminal-close"),
                QStringLiteral("closed after %1 (signal %2)")
                    .arg(durationText())
                    .arg(signalNumber));
        m_session.close();
        m_exitCode = 128 + signalNumber;
        m_loop.exit();
    }

    void closeAndDrain()
    {
        if (!m_session.isActive())
            return;
        audit(QStringLiteral("terminal-close"),
            QStringLiteral("closed after %1").arg(durationText()));
        m_session.close();
        // Let the close frame and the DELETE leave before the process ends.
        QEventLoop drain;
        QTimer::singleShot(300, &drain, &QEventLoop::quit);
        drain.exec();
    }

    const ConnectionOptions &m_options;
    SecretRedactor m_redactor;
    OpenTerminalClient m_client;
    Identity m_identity;
    TerminalSession m_session;
    const bool m_interactive;
    QEventLoop m_loop;
    QSocketNotifier m_input;
    std::unique_ptr<RawTerminal> m_raw;
    int m_exitCode = serverErrorExitCode;
    QString m_failure; // printed once the terminal is restored
};

} // namespace

QString shellVerbSummary()
{
    return QStringLiteral(
        "  shell         Open an interactive login shell on the server as a user\n");
}

int runShell(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Opens an interactive login shell as --user through the server's terminal\n"
        "(open-terminal's /api/terminals WebSocket), like ssh. With a terminal on stdin the\n"
        "local terminal is put into raw mode: every key, Ctrl+C included, reaches the remote\n"
        "program, the window size is sent at the start and whenever it changes, and the\n"
        "terminal is restored on exit; it exits with 0 once the shell has ended (open-terminal\n"
        "0.11.34 and 0.14.5 report no exit status for a terminal). Without a terminal on stdin\n"
        "(a pipe or a file) there is no terminal either, as with ssh: the user's login shell\n"
        "reads the script from stdin (passed on byte for byte through a folder under\n"
        "~/.sandscope/stdin), its output arrives without echo, prompts or escape sequences,\n"
        "with LF line ends, and it exits with the shell's exit status:\n"
        "  printf 'whoami\\nexit 3\\n' | sandscope shell --server URL --user ID\n"
        "3 when the server or the connection failed, also mid-session. Acting as a user is\n"
        "recorded in the audit log."));
    const QCommandLineOption cwdOption(QStringLiteral("cwd"),
        QStringLiteral("Directory the shell starts in (default: the user's home)."),
        QStringLiteral("DIR"));
    parser.addOption(cwdOption);
    ConnectionOptions options;
    const int parsed = parseUserVerbArguments(parser, shellVerb, arguments,
        QStringLiteral("shell --server URL --user ID [--cwd DIR]"), options);
    if (parsed >= 0)
        return parsed;
    if (::isatty(STDIN_FILENO) != 1) {
        RemoteCommand script;
        script.command = QStringLiteral(
            "shell=$(getent passwd \"$(id -un)\" | cut -d: -f7); exec \"${shell:-/bin/sh}\" -l -s");
        script.auditAction = shellVerb;
        script.auditTarget = QStringLiteral("login shell, script on stdin");
        script.execute.cwd = parser.value(cwdOption);
        script.forwardStdin = true;
        script.undoTerminalLineEnds = true;
        Identity identity;
        identity.userId = options.userId;
        return runRemoteCommand(options, identity, script);
    }
    ShellRelay relay(options, parser.value(cwdOption));
    return relay.exec();
}

} // namespace sandscope::cli
