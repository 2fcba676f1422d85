#include "remotecommand.h"

#include "cli/clioutput.h"
#include "cli/verbsupport.h"
#include "security/auditlog.h"
#include "security/secretredactor.h"
#include "server/openterminalclient.h"
#include "server/remotestdin.h"

#include <QEventLoop>
#include <QSocketNotifier>
#include <QTimer>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <unistd.h>

namespace sandscope::cli {

namespace {

// The exact inverse of a terminal's output processing (ONLCR: LF becomes CR LF, nothing else
// changes), fed in pieces: a CR at the end of a piece waits for the next one.
class TerminalLineEnds {
public:
    QString feed(const QString &text)
    {
        QString out = m_heldCr ? QStringLiteral("\r") + text : text;
        m_heldCr = out.endsWith(QLatin1Char('\r'));
        if (m_heldCr)
            out.chop(1);
        out.replace(QLatin1String("\r\n"), QLatin1String("\n"));
        return out;
    }
    QString finish()
    {
        const bool held = m_heldCr;
        m_heldCr = false;
        return held ? QStringLiteral("\r") : QString();
    }

private:
    bool m_heldCr = false;
};

} // namespace

int shellExitCode(int exitCode)
{
    return exitCode < 0 ? 128 - exitCode : exitCode;
}

int runRemoteCommand(
    const ConnectionOptions &options, const Identity &identity, const RemoteCommand &remote)
{
    SecretRedactor redactor;
    redactor.addSecret(options.connection.apiKey);
    OpenTerminalClient client(options.connection);
    ProcessStream stream(&client, identity);
    QEventLoop loop;
    int exitCode = serverErrorExitCode;
    bool started = false;
    bool stopWhenStarted = false;
    int stopRequests = 0;

    // Acting as a user id is privileged (the key can become anyone): keep a record.
    const auto audit = [&](const QString &result) {
        if (identity.userId.isEmpty())
            return;
        AuditLog log;
        const AuditEntry entry {options.profileName, options.serverText(), identity.userId,
            remote.auditAction, redactor.redact(remote.auditTarget), result};
        if (!log.append(entry))
            printError(QStringLiteral("warning: could not write the audit log %1").arg(log.path()));
    };
    const auto stopRemote = [&] {
        printError(QStringLiteral("stopping the remote process (SIGTERM, then SIGKILL)"));
        stream.stop();
    };
    // First request: SIGTERM (SIGKILL follows after a grace period); second: SIGKILL now;
    // third: stop waiting for the server.
    const auto requestStop = [&](int signalNumber) {
        ++stopRequests;
        const ProcessStream::State state = stream.state();
        if (stopRequests == 1 && state == ProcessStream::State::Running) {
            stopRemote();
        } else if (stopRequests == 1 && state == ProcessStream::State::Starting) {
            stopWhenStarted = true; // acted on as soon as the process id is known
        } else if (stopRequests == 2
            && (state == ProcessStream::State::Running
                || state == ProcessStream::State::Stopping)) {
            printError(QStringLiteral("killing the remote process (SIGKILL)"));
            stream.kill();
        } else {
            if (started)
                printError(QStringLiteral("giving up; remote process %1 may still be running")
                               .arg(stream.processId()));
            exitCode = 128 + signalNumber;
            loop.exit();
        }
    };

    QObject::connect(&stream, &ProcessStream::started, &loop, [&](const QString &) {
        started = true;
        audit(QStringLiteral("ok"));
        if (stopWhenStarted)
            stopRemote();
    });
    TerminalLineEnds lineEnds;
    const auto show = [&](const QString &text) {
        return writeText(stdout, remote.undoTerminalLineEnds ? lineEnds.feed(text) : text);
    };
    const auto flush = [&] {
        show(redactor.finish());
        writeText(stdout, lineEnds.finish());
    };
    QObject::connect(&stream, &ProcessStream::output, &loop, [&](const QString &text) {
        if (!show(redactor.feed(text)) && stopRequests == 0)
            requestStop(SIGPIPE);
    });
    QObject::connect(&stream, &ProcessStream::notice, &loop,
        [&](const QString &message) { printError(redactor.redact(message)); });
    QObject::connect(&stream, &ProcessStream::finished, &loop, [&](int code, ProcessStatus status) {
        flush();
        exitCode = shellExitCode(code);
        if (!stream.hasExitCode()) {
            printError(QStringLiteral("the server reported no exit code for the command"));
            exitCode = status == ProcessStatus::Killed ? 128 + SIGKILL : 1;
        }
        loop.exit();
    });
    QObject::connect(&stream, &ProcessStream::failed, &loop, [&](const ApiError &error) {
        flush();
        if (!started)
            audit(redactor.redact(error.toString()));
        exitCode = serverError(error, options);
        loop.exit();
    });

    const auto signalNotifier = onStopSignals(requestStop);

    std::unique_ptr<RemoteStdin> input;
    std::unique_ptr<QSocketNotifier> inputReady;
    bool inputEnded = false;
    QString remoteCommand = RemoteStdin::withoutInput(remote.command);
    if (remote.forwardStdin) {
        input = std::make_unique<RemoteStdin>(&client, identity);
        remoteCommand = input->wrap(remote.command);
        inputReady = std::make_unique<QSocketNotifier>(STDIN_FILENO, QSocketNotifier::Read);
        const qint64 highWater = 4 * RemoteStdin::chunkBytes;
        QObject::connect(inputReady.get(), &QSocketNotifier::activated, &loop, [&] {
            QByteArray buffer(RemoteStdin::chunkBytes, Qt::Uninitialized);
            const ssize_t n = ::read(STDIN_FILENO, buffer.data(), size_t(buffer.size()));
            if (n < 0 && (errno == EINTR || errno == EAGAIN))
                return;
            if (n <= 0) {
                if (n < 0)
                    printError(QStringLiteral("reading standard input failed: %1; ending the "
                                              "command's input there")
                                   .arg(QString::fromLocal8Bit(std::strerror(errno))));
                inputEnded = true;
                inputReady->setEnabled(false);
                input->close();
                return;
            }
            buffer.truncate(int(n));
            input->write(buffer);
            if (input->pendingBytes() > highWater)
                inputReady->setEnabled(false); // until the server has taken some of it
        });
        QObject::connect(
            input.get(), &RemoteStdin::pendingBytesChanged, &loop, [&](qint64 pending) {
                if (pending <= highWater / 2 && !inputEnded && stopRequests == 0)
                    inputReady->setEnabled(true);
            });
        // The command ended before reading everything: like a pipe whose reader is gone, the
        // rest is not read either (the command's own exit status is what the run returns).
        QObject::connect(input.get(), &RemoteStdin::readerGone, &loop, [&] {
            inputEnded = true;
            inputReady->setEnabled(false);
        });
        QObject::connect(input.get(), &RemoteStdin::failed, &loop, [&](const QString &message) {
            printError(message);
            inputEnded = true;
            inputReady->setEnabled(false);
            if (stopRequests == 0)
                requestStop(SIGPIPE);
        });
    }

    stream.start(remoteCommand, remote.execute);
    loop.exec();
    if (input && !input->isClosed()) {
        // The command ended (or was stopped) before all input was passed: remove the chunks
        // it left behind before exiting.
        inputReady->setEnabled(false);
        QEventLoop cleanup;
        QObject::connect(input.get(), &RemoteStdin::discarded, &cleanup, &QEventLoop::quit);
        QTimer::singleShot(10000, &cleanup, &QEventLoop::quit);
        input->discard();
        cleanup.exec();
    }
    return exitCode;
}

} // namespace sandscope::cli
