#include "shellverb.h"

#include "cli/clioutput.h"
#include "cli/connectionoptions.h"
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
        "terminal is restored on exit. Without a terminal on stdin (a pipe or a file) the\n"
        "input is sent as it is and its end ends the shell (Ctrl+D), so scripts work:\n"
        "  printf 'whoami\\nexit\\n' | sandscope shell --server URL --user ID\n"
        "Exits with the remote shell's exit status when the server reports it (open-terminal\n"
        "0.11.34 and 0.14.5 do not: then 0 once the shell has ended), 3 when the server or the\n"
        "connection failed, also mid-session. Acting as a user is recorded in the audit log."));
    const QCommandLineOption cwdOption(QStringLiteral("cwd"),
        QStringLiteral("Directory the shell starts in (default: the user's home)."),
        QStringLiteral("DIR"));
    parser.addOption(cwdOption);
    ConnectionOptions options;
    const int parsed = parseUserVerbArguments(parser, shellVerb, arguments,
        QStringLiteral("shell --server URL --user ID [--cwd DIR]"), options);
    if (parsed >= 0)
        return parsed;

    SecretRedactor redactor;
    redactor.addSecret(options.connection.apiKey);
    const bool interactive = ::isatty(STDIN_FILENO) == 1;

    OpenTerminalClient client(options.connection);
    Identity identity;
    identity.userId = options.userId;
    TerminalSession session(&client, identity);
    session.setWorkingDirectory(parser.value(cwdOption));
    int columns = 80;
    int rows = 24;
    if (windowSize(&columns, &rows))
        session.setInitialSize(columns, rows);

    QEventLoop loop;
    int exitCode = serverErrorExitCode;
    QString failure; // printed once the terminal is restored

    const auto audit = [&](const QString &action, const QString &result) {
        if (identity.userId.isEmpty())
            return;
        AuditLog log;
        const AuditEntry entry {options.profileName, options.serverText(), identity.userId, action,
            session.terminalId(), redactor.redact(result)};
        if (!log.append(entry))
            failure
                += QStringLiteral("warning: could not write the audit log %1\n").arg(log.path());
    };
    const auto durationText = [&] {
        return format::duration(session.openMilliseconds());
    };

    std::unique_ptr<RawTerminal> raw;
    QSocketNotifier input(STDIN_FILENO, QSocketNotifier::Read);
    input.setEnabled(false);
    QObject::connect(&input, &QSocketNotifier::activated, &loop, [&] {
        char buffer[65536];
        const ssize_t count = ::read(STDIN_FILENO, buffer, sizeof buffer);
        if (count > 0) {
            session.write(QByteArray(buffer, int(count)));
            return;
        }
        if (count < 0 && (errno == EINTR || errno == EAGAIN))
            return;
        // End of input: what Ctrl+D at the start of a line does.
        input.setEnabled(false);
        session.write(QByteArrayLiteral("\x04"));
    });

    QObject::connect(&session, &TerminalSession::opened, &loop, [&] {
        audit(QStringLiteral("terminal-open"), QStringLiteral("ok"));
        if (interactive)
            raw = std::make_unique<RawTerminal>();
    });
    QObject::connect(&session, &TerminalSession::output, &loop, [&](const QByteArray &bytes) {
        if (!writeBytes(stdout, bytes)) {
            failure = QStringLiteral("cannot write the output; closing the terminal");
            exitCode = 128 + SIGPIPE;
            loop.exit();
        }
    });
    QObject::connect(&session, &TerminalSession::ended, &loop, [&] {
        exitCode = session.hasExitStatus() ? session.exitStatus() : 0;
        audit(QStringLiteral("terminal-close"),
            QStringLiteral("shell ended after %1").arg(durationText()));
        loop.exit();
    });
    QObject::connect(
        &session, &TerminalSession::failed, &loop, [&](const ApiError &error, bool dropped) {
            audit(dropped ? QStringLiteral("terminal-close") : QStringLiteral("terminal-open"),
                dropped ? QStringLiteral("connection lost after %1: %2")
                              .arg(durationText(), error.toString())
                        : error.toString());
            QString text = error.toString();
            if (!error.detail.isEmpty() && !text.contains(error.detail))
                text += QStringLiteral(": ") + error.detail;
            failure += redactor.redact(serverMessage(text, options));
            exitCode = serverErrorExitCode;
            loop.exit();
        });

    const auto windowNotifier = interactive ? onWindowChange([&] {
        int c = 0;
        int r = 0;
        if (windowSize(&c, &r))
            session.resize(c, r);
    })
                                            : nullptr;
    const auto signalNotifier = onStopSignals([&](int signalNumber) {
        if (session.state() == TerminalSession::State::Open)
            audit(QStringLiteral("terminal-close"),
                QStringLiteral("closed after %1 (signal %2)")
                    .arg(durationText())
                    .arg(signalNumber));
        session.close();
        exitCode = 128 + signalNumber;
        loop.exit();
    });

    input.setEnabled(true);
    session.start();
    loop.exec();
    input.setEnabled(false);
    if (session.isActive()) {
        audit(QStringLiteral("terminal-close"),
            QStringLiteral("closed after %1").arg(durationText()));
        session.close();
        // Let the close frame and the DELETE leave before the process ends.
        QEventLoop drain;
        QTimer::singleShot(300, &drain, &QEventLoop::quit);
        drain.exec();
    }
    if (raw)
        raw->restore();
    if (!failure.isEmpty()) {
        if (interactive)
            writeBytes(stdout, QByteArrayLiteral("\r\n"));
        printError(failure.trimmed());
    }
    return exitCode;
}

} // namespace sandscope::cli
