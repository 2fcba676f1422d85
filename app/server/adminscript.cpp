#include "adminscript.h"

#include "server/processstream.h"

#include <QStandardPaths>
#include <QTimer>

#include <csignal>
#include <signal.h>

namespace sandscope {

namespace {

const QByteArray startedMarker = "SANDSCOPE-ADMIN-SCRIPT-STARTED";
// How long the local process tree gets after SIGTERM before SIGKILL.
constexpr int killGraceMs = 2000;
// What stderr adds to a failure message at most.
constexpr int stderrLimit = 4000;

} // namespace

AdminScript::AdminScript(OpenTerminalClient *client, AdminAccess access, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_access(std::move(access))
{
}

AdminScript::~AdminScript()
{
    abandon();
}

void AdminScript::start(const QString &script)
{
    Q_ASSERT(!m_running);
    m_running = true;
    m_cancelled = false;
    if (m_access.isLocalCommand())
        startLocal(script);
    else
        startOnServer(script);
}

void AdminScript::startOnServer(const QString &script)
{
    auto *stream = new ProcessStream(m_client, Identity(), this);
    m_stream = stream;
    stream->useShortCommandCadence();
    connect(stream, &ProcessStream::output, this, &AdminScript::output);
    connect(stream, &ProcessStream::finished, this, [this, stream](int exitCode, ProcessStatus) {
        m_running = false;
        if (!stream->hasExitCode()) {
            ApiError error;
            error.kind = ApiError::Kind::BadResponse;
            error.message = QStringLiteral("the server reported no exit status for the script");
            Q_EMIT failed(error);
            return;
        }
        Q_EMIT finished(exitCode);
    });
    connect(stream, &ProcessStream::failed, this, [this](const ApiError &error) {
        m_running = false;
        Q_EMIT failed(error);
    });
    stream->start(script);
}

void AdminScript::startLocal(const QString &script)
{
    m_process = std::make_unique<QProcess>();
    m_started = false;
    m_stderr.clear();
    m_pending[0].clear();
    m_pending[1].clear();
    connect(m_process.get(), &QProcess::readyReadStandardOutput, this,
        [this] { readChannel(QProcess::StandardOutput); });
    connect(m_process.get(), &QProcess::readyReadStandardError, this,
        [this] { readChannel(QProcess::StandardError); });
    connect(m_process.get(), qOverload<int, QProcess::ExitStatus>(&QProcess::finished), this,
        &AdminScript::localFinished);
    connect(m_process.get(), &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            fail(m_process->errorString());
    });
    // setsid: a session of its own, so no terminal to prompt on and one group to end.
    const QString setsid = QStandardPaths::findExecutable(QStringLiteral("setsid"));
    if (setsid.isEmpty()) {
        QTimer::singleShot(0, this, [this] {
            fail(QStringLiteral("setsid (util-linux) is not installed on this machine"));
        });
        return;
    }
    m_process->start(setsid, QStringList {QStringLiteral("-w")} + m_access.argv());
    m_process->write("echo " + startedMarker + "\n");
    m_process->write(script.toUtf8());
    if (!script.endsWith(QLatin1Char('\n')))
        m_process->write("\n");
    m_process->closeWriteChannel();
}

void AdminScript::readChannel(QProcess::ProcessChannel channel)
{
    m_process->setReadChannel(channel);
    const QByteArray chunk = m_process->readAll();
    QByteArray &pending = m_pending[channel == QProcess::StandardOutput ? 0 : 1];
    if (channel == QProcess::StandardError && m_stderr.size() < stderrLimit)
        m_stderr += chunk.left(stderrLimit - m_stderr.size());
    pending += chunk;
    const qsizetype last = pending.lastIndexOf('\n');
    if (last < 0)
        return;
    QByteArray lines = pending.left(last + 1);
    pending.remove(0, last + 1);
    if (!m_started && channel == QProcess::StandardOutput) {
        const qsizetype marker = lines.indexOf(QByteArray(startedMarker + '\n'));
        if (marker >= 0) {
            m_started = true;
            lines.remove(marker, startedMarker.size() + 1);
        }
    }
    if (!lines.isEmpty())
        Q_EMIT output(QString::fromUtf8(lines));
}

void AdminScript::localFinished(int exitCode, QProcess::ExitStatus status)
{
    readChannel(QProcess::StandardOutput);
    readChannel(QProcess::StandardError);
    for (QByteArray &rest : m_pending) {
        if (!rest.isEmpty() && m_started)
            Q_EMIT output(QString::fromUtf8(rest) + QLatin1Char('\n'));
        rest.clear();
    }
    if (!m_running)
        return;
    if (m_cancelled) {
        m_running = false;
        ApiError error;
        error.kind = ApiError::Kind::Cancelled;
        error.message = QStringLiteral("cancelled");
        Q_EMIT failed(error);
        return;
    }
    if (!m_started) {
        fail(status == QProcess::CrashExit
                ? QStringLiteral("it was killed by a signal")
                : QStringLiteral("it exited with status %1 before the script started")
                      .arg(exitCode));
        return;
    }
    m_running = false;
    Q_EMIT finished(status == QProcess::CrashExit ? 128 + SIGKILL : exitCode);
}

void AdminScript::fail(const QString &message)
{
    if (!m_running)
        return;
    m_running = false;
    ApiError error;
    error.kind = ApiError::Kind::AdminCommandFailed;
    error.message = QStringLiteral("The admin command `%1` could not run the script: %2")
                        .arg(m_access.commandLine(), message);
    error.detail = QString::fromUtf8(m_stderr).trimmed();
    if (!error.detail.isEmpty())
        error.message += QStringLiteral(". Its error output: ") + error.detail;
    Q_EMIT failed(error);
}

void AdminScript::cancel()
{
    if (!m_running)
        return;
    m_cancelled = true;
    if (m_stream) {
        m_stream->kill();
        return;
    }
    if (!m_process || m_process->state() == QProcess::NotRunning)
        return;
    // setsid made the process the leader of its own group: end the whole tree.
    const qint64 group = m_process->processId();
    if (group > 0) {
        ::kill(pid_t(-group), SIGTERM);
        QPointer<QProcess> process = m_process.get();
        QTimer::singleShot(killGraceMs, this, [process, group] {
            if (process && process->state() != QProcess::NotRunning)
                ::kill(pid_t(-group), SIGKILL);
        });
    }
}

void AdminScript::abandon()
{
    if (m_stream) {
        disconnect(m_stream, nullptr, this, nullptr);
        if (m_stream->state() == ProcessStream::State::Running)
            m_stream->kill();
        m_stream->detach();
    }
    if (m_process) {
        disconnect(m_process.get(), nullptr, this, nullptr);
        if (m_process->state() != QProcess::NotRunning) {
            const qint64 group = m_process->processId();
            if (group > 0)
                ::kill(pid_t(-group), SIGKILL);
            m_process->waitForFinished(killGraceMs);
        }
    }
    m_running = false;
}

void runAdminCommand(OpenTerminalClient *client, const AdminAccess &admin, const QString &script,
    QObject *context, std::function<void(const Result<CommandOutput> &)> done)
{
    auto *run = new AdminScript(client, admin, context);
    OutputLines output;
    // Delivers once, then lets the run go (it may be inside its own signal).
    auto deliver = [run, done](const Result<CommandOutput> &result) {
        QObject::disconnect(run, nullptr, nullptr, nullptr);
        run->deleteLater();
        done(result);
    };
    QObject::connect(run, &AdminScript::output, run,
        [output](const QString &text) mutable { output.feed(text); });
    QObject::connect(run, &AdminScript::finished, run, [output, deliver](int exitCode) mutable {
        deliver(Result<CommandOutput>::success(output.complete(exitCode)));
    });
    QObject::connect(run, &AdminScript::failed, run,
        [deliver](const ApiError &error) { deliver(Result<CommandOutput>::failure(error)); });
    run->start(script);
}

} // namespace sandscope
