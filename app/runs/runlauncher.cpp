#include "runlauncher.h"

#include "files/pathguard.h"
#include "server/processstream.h"
#include "terminal/followchannel.h"
#include "util/format.h"

#include <QJsonValue>
#include <QRegularExpression>

#include <memory>

namespace sandscope {

namespace {

constexpr QChar replacementCharacter(0xFFFD);
// The tee file can lag the terminal by a moment; a pending repair is retried this often.
constexpr int maxRepairAttempts = 10;
constexpr int repairRetryMs = 300;
// Exit status of the run script when cd, the env file or the pid file failed.
constexpr int setupFailedExitCode = 125;
// A signal script that did not answer is sent again after this, times its attempt.
constexpr int signalRetryDelayMs = 1000;

QString field(const QJsonObject &object, const char *name)
{
    return object.value(QLatin1String(name)).toString();
}

} // namespace

bool RunHandle::isValid(QString *why) const
{
    if (!claudecommand::isValidChatId(chatId, why) || !claudecommand::isValidRunId(runId, why)
        || !claudecommand::isValidEnvFileName(envFileName, why))
        return false;
    if (!home.startsWith(QLatin1Char('/'))) {
        if (why)
            *why = QStringLiteral("The run's home directory is not an absolute path");
        return false;
    }
    return true;
}

QJsonObject RunHandle::toJson() const
{
    return QJsonObject {{QStringLiteral("userId"), identity.userId},
        {QStringLiteral("sessionId"), identity.sessionId}, {QStringLiteral("chatId"), chatId},
        {QStringLiteral("runId"), runId}, {QStringLiteral("processId"), processId},
        {QStringLiteral("logPath"), logPath}, {QStringLiteral("home"), home},
        {QStringLiteral("envFileName"), envFileName}, {QStringLiteral("teePath"), teePath()}};
}

RunHandle RunHandle::fromJson(const QJsonObject &object)
{
    RunHandle handle;
    handle.identity.userId = field(object, "userId");
    handle.identity.sessionId = field(object, "sessionId");
    handle.chatId = field(object, "chatId");
    handle.runId = field(object, "runId");
    handle.processId = field(object, "processId");
    handle.logPath = field(object, "logPath");
    handle.home = field(object, "home");
    const QString envFileName = field(object, "envFileName");
    if (!envFileName.isEmpty())
        handle.envFileName = envFileName;
    return handle;
}

RunLauncher::RunLauncher(OpenTerminalClient *client, Identity identity, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_identity(std::move(identity))
{
    m_repairTimer.setSingleShot(true);
    connect(&m_repairTimer, &QTimer::timeout, this, &RunLauncher::scheduleRepair);
    m_followTimer.setSingleShot(true);
    connect(&m_followTimer, &QTimer::timeout, this, &RunLauncher::followPoll);
}

RunLauncher::~RunLauncher()
{
    m_inflight.abort();
    if (m_stream)
        m_stream->detach();
}

void RunLauncher::setPollIntervals(int fastMs, int idleMaxMs)
{
    m_fastMs = qMax(1, fastMs);
    m_idleMaxMs = qMax(m_fastMs, idleMaxMs);
}

void RunLauncher::setState(State state)
{
    if (m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

void RunLauncher::fail(const QString &message)
{
    m_followTimer.stop();
    m_repairTimer.stop();
    abandonStream();
    setState(State::Failed);
    Q_EMIT failed(message);
}

void RunLauncher::failLater(const QString &message)
{
    QTimer::singleShot(0, this, [this, message] { fail(message); });
}

void RunLauncher::runScript(const QString &script, std::function<void(const ScriptOutcome &)> done)
{
    auto *stream = new ProcessStream(m_client, m_identity, this);
    stream->useShortCommandCadence();
    auto outcome = std::make_shared<ScriptOutcome>();
    connect(stream, &ProcessStream::output, this,
        [outcome](const QString &text) { outcome->output += text; });
    connect(stream, &ProcessStream::finished, this,
        [stream, outcome, done](int exitCode, ProcessStatus) {
            outcome->ok = exitCode == 0 && stream->hasExitCode();
            if (!outcome->ok)
                outcome->error = QStringLiteral("exit status %1").arg(exitCode);
            stream->deleteLater();
            done(*outcome);
        });
    connect(stream, &ProcessStream::failed, this, [stream, outcome, done](const ApiError &error) {
        outcome->error = error.toString();
        stream->deleteLater();
        done(*outcome);
    });
    stream->start(script);
}

// --- launching -------------------------------------------------------------------------------

void RunLauncher::launch(const QString &chatId, const QString &prompt,
    const ClaudeRunOptions &options, const QHash<QString, QString> &environment)
{
    Q_ASSERT(m_state == State::Idle);
    setState(State::Preparing);
    QString why;
    QString envContent;
    if (!claudecommand::isValidChatId(chatId, &why)
        || !claudecommand::isValidEnvFileName(m_envFileName, &why)) {
        failLater(why);
        return;
    }
    if (const QString problem = claudecommand::validate(options); !problem.isEmpty()) {
        failLater(problem);
        return;
    }
    if (prompt.isEmpty()) {
        failLater(QStringLiteral("The prompt is empty"));
        return;
    }
    if (!claudecommand::envFileContent(environment, &envContent, &why)) {
        failLater(why);
        return;
    }
    m_handle = RunHandle();
    m_startFailure.clear();
    m_handle.identity = m_identity;
    m_handle.chatId = chatId;
    m_handle.runId = claudecommand::newRunId();
    m_handle.envFileName = m_envFileName;

    const QByteArray promptBytes = prompt.toUtf8();
    runScript(claudecommand::prepareScript(chatId, m_envFileName),
        [this, envContent, promptBytes, options](const ScriptOutcome &outcome) {
            static const QRegularExpression homeLine(
                QStringLiteral("SANDSCOPE-HOME=(/[^\\r\\n]*)"));
            const QRegularExpressionMatch home = homeLine.match(outcome.output);
            if (!outcome.ok || !home.hasMatch()) {
                fail(QStringLiteral("Preparing the chat directory failed (%1): %2")
                         .arg(outcome.error, outcome.output.trimmed()));
                return;
            }
            m_handle.home = home.captured(1);
            startPush(); // the channel opens while the files are written
            writeEnvironment(envContent, promptBytes, options);
        });
}

void RunLauncher::writeEnvironment(
    const QString &content, const QByteArray &prompt, const ClaudeRunOptions &options)
{
    const qint64 envBytes = content.toUtf8().size();
    m_inflight = m_client->writeFile(m_identity, m_handle.paths().envFile, content, this,
        [this, envBytes, prompt, options](const Result<WriteResult> &result) {
            m_inflight = {};
            if (!result.ok()) { // the server's error names the path, never the content
                fail(
                    QStringLiteral("Writing the env file failed: %1").arg(result.error.toString()));
                return;
            }
            uploadPrompt(envBytes, prompt, options);
        });
}

void RunLauncher::uploadPrompt(
    qint64 envBytes, const QByteArray &prompt, const ClaudeRunOptions &options)
{
    const RunPaths paths = m_handle.paths();
    m_inflight = m_client->uploadFile(m_identity, paths.runDirectory,
        m_handle.runId + QLatin1String(".prompt"), prompt, this,
        [this, envBytes, promptBytes = qint64(prompt.size()), options](
            const Result<WriteResult> &result) {
            m_inflight = {};
            if (!result.ok()) {
                fail(
                    QStringLiteral("Uploading the prompt failed: %1").arg(result.error.toString()));
                return;
            }
            verifyFiles(envBytes, promptBytes, options);
        });
}

void RunLauncher::verifyFiles(qint64 envBytes, qint64 promptBytes, const ClaudeRunOptions &options)
{
    const RunPaths paths = m_handle.paths();
    runScript(claudecommand::verifyScript(paths),
        [this, paths, envBytes, promptBytes, options](const ScriptOutcome &outcome) {
            static const QRegularExpression statLine(
                QStringLiteral("SANDSCOPE-STAT (\\d+) (\\d+) ([^\\r\\n]*)"));
            QHash<QString, QPair<QString, qint64>> stats;
            auto matches = statLine.globalMatch(outcome.output);
            while (matches.hasNext()) {
                const QRegularExpressionMatch match = matches.next();
                stats.insert(
                    match.captured(3), {match.captured(1), match.captured(2).toLongLong()});
            }
            const auto env = stats.value(paths.envFile, {QString(), -1});
            const auto prompt = stats.value(paths.promptFile, {QString(), -1});
            if (!outcome.ok || env.first != QLatin1String("600") || env.second != envBytes) {
                fail(QStringLiteral("The env file %1 is not private and complete (mode %2, %3 of "
                                    "%4 bytes; %5)")
                         .arg(paths.envFile, env.first)
                         .arg(env.second)
                         .arg(envBytes)
                         .arg(outcome.ok ? QStringLiteral("checked") : outcome.error));
                return;
            }
            if (prompt.second != promptBytes) {
                fail(QStringLiteral("The uploaded prompt has %1 bytes instead of %2")
                         .arg(prompt.second)
                         .arg(promptBytes));
                return;
            }
            startRun(options);
        });
}

void RunLauncher::startRun(const ClaudeRunOptions &options)
{
    ProcessStream *stream = makeStream();
    connect(stream, &ProcessStream::started, this, [this](const QString &processId) {
        m_streamStarting = false;
        m_handle.processId = processId;
        // The log path arrives with the first snapshot, handled right after this signal.
        QTimer::singleShot(0, this, [this] {
            if (m_stream)
                m_handle.logPath = m_stream->logPath();
            if (m_releaseStreamOnStart) {
                m_releaseStreamOnStart = false;
                if (m_stream)
                    m_stream->detach();
            }
            announceStarted();
        });
    });
    m_streamStarting = true;
    m_startOwed = true;
    setState(State::Streaming);
    stream->start(claudecommand::detachedCommand(
        claudecommand::runScript(options, m_handle.paths(), m_handle.runId)));
}

// --- streaming -------------------------------------------------------------------------------

ProcessStream *RunLauncher::makeStream()
{
    m_stream = new ProcessStream(m_client, m_identity, this);
    m_stream->setPollIntervals(m_fastMs, m_idleMaxMs);
    connect(m_stream, &ProcessStream::output, this, &RunLauncher::handleTerminalText);
    connect(m_stream, &ProcessStream::notice, this, &RunLauncher::notice);
    connect(m_stream, &ProcessStream::finished, this,
        [this](int exitCode, ProcessStatus) { streamFinished(exitCode); });
    connect(m_stream, &ProcessStream::failed, this,
        [this](const ApiError &error) { streamFailed(error.toString()); });
    return m_stream;
}

// Once: with the process id when the start request answers first, without it when push saw
// the run end (or vanish) before that answer.
void RunLauncher::announceStarted()
{
    if (!m_startOwed)
        return;
    m_startOwed = false;
    Q_EMIT started(m_handle);
}

// The start request is never cut short: it may have started the run already, and only its
// answer gives the process id. A stream no longer needed is let go once that answer came.
void RunLauncher::releaseStream()
{
    if (!m_stream)
        return;
    if (m_streamStarting)
        m_releaseStreamOnStart = true;
    else
        m_stream->detach();
}

// The run is given up here (failed, or forgotten): its stream stops at once.
void RunLauncher::abandonStream()
{
    m_streamStarting = false;
    m_releaseStreamOnStart = false;
    if (m_stream)
        m_stream->detach();
}

void RunLauncher::handleTerminalText(const QString &text)
{
    if (m_releaseStreamOnStart)
        return; // the run is followed otherwise; this stream only brings the process id
    const QStringList completed = m_assembler.feed(text);
    for (const QString &line : completed)
        acceptTerminalLine(line);
}

void RunLauncher::acceptTerminalLine(const QString &line)
{
    if (!m_inStream) {
        if (line.contains(claudecommand::beginMarker(m_handle.runId)))
            m_inStream = true;
        else if (!line.isEmpty())
            Q_EMIT noise(line);
        return;
    }
    if (!m_pushLines) // pushed lines come from the tee file itself
        appendLine(line);
}

void RunLauncher::appendLine(const QString &line)
{
    m_lines.append(line);
    const qint64 number = m_lines.size();
    if (number > m_alreadySeen)
        Q_EMIT lineReceived(number, line);
    if (!m_pushLines && line.contains(replacementCharacter)) {
        m_pendingRepairs.insert(number);
        scheduleRepair();
    }
}

void RunLauncher::streamFinished(int exitCode)
{
    if (m_releaseStreamOnStart) {
        m_releaseStreamOnStart = false;
        if (m_stream)
            m_stream->deleteLater();
        return; // the run is followed otherwise
    }
    const QString rest = m_assembler.flush();
    if (!rest.isEmpty())
        acceptTerminalLine(rest);
    if (m_stream) {
        m_handle.logPath = m_stream->logPath();
        m_stream->deleteLater();
    }
    if (exitCode == setupFailedExitCode && !m_inStream) {
        fail(QStringLiteral("The run could not start in the sandbox (the chat directory, the env "
                            "file or the run directory is missing)"));
        return;
    }
    if (m_pushLines)
        return; // the exit file comes by push, after every line
    finishWithTee(exitCode);
}

void RunLauncher::streamFailed(const QString &message)
{
    if (m_streamStarting) // the run may not have started: its files will tell
        m_startFailure = message;
    m_streamStarting = false;
    if (m_stream)
        m_stream->deleteLater();
    if (m_releaseStreamOnStart) {
        m_releaseStreamOnStart = false;
        return; // the run is followed otherwise
    }
    if (m_pushLines) {
        if (m_push && m_push->isWatchingProcess())
            return; // the run is followed by push meanwhile
        // Push has not seen the run's shell and would wait for it forever if it never started.
        stopPushing();
    }
    if (m_handle.home.isEmpty()) {
        fail(message);
        return;
    }
    Q_EMIT notice(tr("Following the run's tee file instead of the process: %1").arg(message));
    followTee();
}

// --- the tee file ----------------------------------------------------------------------------

void RunLauncher::repairLine(qint64 number)
{
    if (number < 1 || number > m_lines.size())
        return;
    m_pendingRepairs.insert(number);
    m_repairAttempts = 0;
    scheduleRepair();
}

void RunLauncher::scheduleRepair()
{
    if (m_repairInFlight || m_pendingRepairs.isEmpty() || m_handle.home.isEmpty())
        return;
    m_repairInFlight = true;
    fetchTee([this](bool ok, const QList<QByteArray> &teeLines) {
        m_repairInFlight = false;
        if (ok)
            applyTee(teeLines, false);
        if (!m_pendingRepairs.isEmpty() && ++m_repairAttempts < maxRepairAttempts
            && m_state != State::Finished && m_state != State::Failed)
            m_repairTimer.start(repairRetryMs);
    });
}

// The whole file, raw, split at '\n'; the last element is the unterminated rest (often "").
void RunLauncher::fetchTee(std::function<void(bool, const QList<QByteArray> &)> done)
{
    m_client->viewFile(
        m_identity, m_handle.paths().teeFile, this, [done](const Result<RawFile> &result) {
            if (!result.ok()) {
                // Not there yet: claude has not written anything.
                done(result.error.kind == ApiError::Kind::NotFound, {QByteArray()});
                return;
            }
            done(true, result.value.bytes.split('\n'));
        });
}

// Lines the stream has are compared (all of them when `final`, else only pending repairs);
// lines it lacks are added when following the file or at the end.
void RunLauncher::applyTee(const QList<QByteArray> &teeLines, bool final)
{
    if (teeLines.isEmpty())
        return;
    const bool addMissing = final || m_state == State::FollowingTee;
    qint64 complete = teeLines.size() - 1;
    if (final && !teeLines.constLast().isEmpty())
        ++complete; // the run was cut off in the middle of a line
    for (qint64 number = 1; number <= complete; ++number) {
        const QString exact = QString::fromUtf8(teeLines.at(number - 1));
        if (number <= m_lines.size()) {
            if (!final && !m_pendingRepairs.contains(number))
                continue;
            m_pendingRepairs.remove(number);
            if (m_lines.at(number - 1) != exact) {
                m_lines[number - 1] = exact;
                Q_EMIT lineRepaired(number, exact);
            }
        } else if (addMissing) {
            m_lines.append(exact);
            if (number > m_alreadySeen)
                Q_EMIT lineReceived(number, exact);
        }
    }
}

void RunLauncher::finishWithTee(int exitCode)
{
    fetchTee([this, exitCode](bool ok, const QList<QByteArray> &teeLines) {
        if (m_state == State::Idle)
            return; // detached meanwhile
        if (ok)
            applyTee(teeLines, true);
        else
            Q_EMIT notice(tr("The output could not be checked against the tee file %1.")
                              .arg(m_handle.paths().teeFile));
        m_pendingRepairs.clear();
        completeReadingStandardError(exitCode);
    });
}

// claude's stderr tells why a run failed: read it before completing a run that did.
void RunLauncher::completeReadingStandardError(int exitCode)
{
    if (exitCode == 0) {
        complete(exitCode);
        return;
    }
    m_client->viewFile(m_identity, m_handle.paths().stderrFile, this,
        [this, exitCode](const Result<RawFile> &result) {
            if (result.ok())
                m_standardError = QString::fromUtf8(result.value.bytes);
            complete(exitCode);
        });
}

void RunLauncher::complete(int exitCode)
{
    m_repairTimer.stop();
    m_followTimer.stop();
    m_hasExitCode = true;
    m_exitCode = exitCode;
    setState(State::Finished);
    Q_EMIT finished(exitCode);
}

// --- re-attaching ----------------------------------------------------------------------------

void RunLauncher::reattach(const RunHandle &handle, qint64 linesAlreadySeen)
{
    Q_ASSERT(m_state == State::Idle);
    QString why;
    if (!handle.isValid(&why)) {
        setState(State::Preparing);
        failLater(why);
        return;
    }
    m_handle = handle;
    m_identity = handle.identity;
    m_alreadySeen = qMax<qint64>(0, linesAlreadySeen);
    // The run's files are read through the file API, which runs as root and follows links:
    // first they are resolved in the user's own shell, and a run whose files lead out of the
    // user's home (a link planted in ~/.sandscope/runs) is refused before anything is read.
    setState(State::Preparing);
    const RunPaths paths = handle.paths();
    pathguard::resolve(m_client, m_identity, {paths.teeFile, paths.exitFile, paths.stderrFile},
        this, [this](const Result<PathResolution> &resolved) {
            if (!resolved.ok()) {
                fail(tr("Cannot check the run's files as user %1: %2")
                         .arg(m_identity.userId, resolved.error.toString()));
                return;
            }
            if (const ResolvedPath *outside = resolved.value.firstOutside()) {
                fail(resolved.value.refusal(*outside, m_identity.userId));
                return;
            }
            m_reattaching = true;
            startPush();
            if (m_pushLines) {
                setState(State::Streaming);
                return;
            }
            if (m_handle.processId.isEmpty()) {
                followTee();
                return;
            }
            setState(State::Streaming);
            makeStream()->attach(m_handle.processId, 0, m_handle.logPath);
        });
}

void RunLauncher::followTee()
{
    releaseStream();
    m_assembler = LineAssembler(); // a partial line comes complete from the file
    m_followDelayMs = followFastMs();
    m_sinceLivenessCheck.start();
    setState(State::FollowingTee);
    followPoll();
}

void RunLauncher::followPoll()
{
    if (m_state != State::FollowingTee)
        return;
    // The exit file first: once it exists, tee has written everything.
    m_client->viewFile(
        m_identity, m_handle.paths().exitFile, this, [this](const Result<RawFile> &exit) {
            bool exited = false;
            const int exitCode = exit.ok() ? exit.value.bytes.trimmed().toInt(&exited) : 0;
            const qint64 before = m_lines.size();
            fetchTee([this, exited, exitCode, before](bool ok, const QList<QByteArray> &teeLines) {
                if (m_state != State::FollowingTee)
                    return;
                if (ok)
                    applyTee(teeLines, exited);
                if (exited) {
                    finishWithTee(exitCode);
                    return;
                }
                if (m_lines.size() > before) {
                    m_followDelayMs = followFastMs();
                    m_sinceLivenessCheck.start();
                } else {
                    m_followDelayMs = qMin(m_followDelayMs * 2, m_idleMaxMs);
                }
                if (m_livenessDue || m_sinceLivenessCheck.elapsed() >= m_livenessIntervalMs)
                    checkLiveness();
                else
                    m_followTimer.start(m_followDelayMs);
            });
        });
}

void RunLauncher::checkLiveness()
{
    m_livenessDue = false;
    m_sinceLivenessCheck.start();
    runScript(claudecommand::livenessScript(m_handle.paths(), m_handle.runId),
        [this](const ScriptOutcome &outcome) {
            if (m_state != State::FollowingTee)
                return;
            const bool neverRan = outcome.output.contains(QLatin1String("SANDSCOPE-NEVER-RAN"));
            if (neverRan && !m_startFailure.isEmpty()) {
                discardUnstartedRun();
                return;
            }
            if (!outcome.output.contains(QLatin1String("SANDSCOPE-GONE")) && !neverRan) {
                if (!outcome.output.contains(QLatin1String("SANDSCOPE-ALIVE")))
                    Q_EMIT notice(
                        tr("Could not check whether the run is alive: %1").arg(outcome.error));
                m_followTimer.start(m_followDelayMs);
                return;
            }
            // Gone: it may have written its exit file since the last look.
            m_client->viewFile(
                m_identity, m_handle.paths().exitFile, this, [this](const Result<RawFile> &exit) {
                    if (exit.ok()) {
                        followPoll();
                        return;
                    }
                    if (const int signal = signalEndingTheRun()) { // killed from here
                        finishWithTee(-signal);
                        return;
                    }
                    fetchTee([this](bool ok, const QList<QByteArray> &teeLines) {
                        if (ok)
                            applyTee(teeLines, true);
                        fail(tr("The run ended without recording claude's exit status (it was "
                                "killed, or the sandbox restarted); its output up to then was "
                                "read from %1.")
                                 .arg(m_handle.paths().teeFile));
                    });
                });
        });
}

// Its start failed and its shell never ran: nothing will come. Its env file goes (a shell that
// started after all would then stop at once, without the secrets), then the run fails.
void RunLauncher::discardUnstartedRun()
{
    m_followTimer.stop();
    runScript(claudecommand::discardScript(m_handle.paths()), [this](const ScriptOutcome &outcome) {
        if (m_state != State::FollowingTee)
            return;
        QString message = tr("The run did not start: %1. Its shell never created its pid file %2.")
                              .arg(m_startFailure, m_handle.paths().pidFile);
        if (!outcome.output.contains(QLatin1String("SANDSCOPE-DISCARDED")))
            message += QLatin1Char(' ')
                + tr("Its env file %1 could not be removed: %2")
                      .arg(m_handle.paths().envFile,
                          outcome.error.isEmpty() ? outcome.output.trimmed() : outcome.error);
        fail(message);
    });
}

// The run's shell is in a session of its own (setsid), which the server's kill of the process
// does not reach: the signal goes to the shell's process group, found through its pid file.
void RunLauncher::stop(int graceMs)
{
    if (m_state != State::Streaming && m_state != State::FollowingTee)
        return;
    signalFollowedRun(QStringLiteral("TERM"), graceMs);
    QTimer::singleShot(graceMs, this, [this] {
        if (m_state == State::Streaming || m_state == State::FollowingTee)
            signalFollowedRun(QStringLiteral("KILL"), 0);
    });
}

void RunLauncher::kill()
{
    if (m_state == State::Streaming || m_state == State::FollowingTee)
        signalFollowedRun(QStringLiteral("KILL"), 0);
}

void RunLauncher::signalFollowedRun(const QString &signalName, int graceMs, int attempt)
{
    m_signalUnderWay = signalName == QLatin1String("KILL") ? 9 : 15;
    runScript(claudecommand::signalScript(m_handle.paths(), m_handle.runId, signalName),
        [this, signalName, graceMs, attempt](const ScriptOutcome &outcome) {
            if (m_state != State::FollowingTee && m_state != State::Streaming)
                return;
            const bool gone = outcome.output.contains(QLatin1String("SANDSCOPE-GONE"));
            if (!outcome.output.contains(QLatin1String("SANDSCOPE-SIGNALLED")) && !gone) {
                // Neither answer: the script did not run to its end, so nothing is known
                // about the run. Giving up here would leave it running behind a Stop.
                if (attempt < signalAttempts) {
                    QTimer::singleShot(
                        signalRetryDelayMs * attempt, this, [this, signalName, graceMs, attempt] {
                            if (m_state == State::FollowingTee || m_state == State::Streaming)
                                signalFollowedRun(signalName, graceMs, attempt + 1);
                        });
                    return;
                }
                m_signalUnderWay = 0; // not known to have been sent
                Q_EMIT notice(tr("Could not send SIG%1 to the run (%2 attempts): %3")
                                  .arg(signalName)
                                  .arg(attempt)
                                  .arg(outcome.error));
                return;
            }
            // No shell yet (still reading its env file): the process the server knows.
            if (gone && m_stream && m_state == State::Streaming) {
                if (signalName == QLatin1String("KILL"))
                    m_stream->kill();
                else
                    m_stream->stop(graceMs);
            }
            m_signalSent = signalName == QLatin1String("KILL") ? 9 : 15;
            if (m_signalUnderWay == m_signalSent)
                m_signalUnderWay = 0;
            if (m_state != State::FollowingTee)
                return;
            // Look again soon: the exit file or the gone shell ends the run.
            m_livenessDue = true;
            m_followDelayMs = followFastMs();
            if (m_followTimer.isActive()) // else a look is under way and schedules the next
                m_followTimer.start(m_followDelayMs);
        });
}

// --- push ------------------------------------------------------------------------------------

void RunLauncher::startPush()
{
    FollowChannel *channel
        = m_pushAllowed ? FollowChannel::shared(m_client, m_identity.userId) : nullptr;
    if (!channel || channel->state() == FollowChannel::State::Unavailable)
        return;
    m_push = new PushedRun(channel, m_handle.paths(), m_handle.runId, this);
    m_pushLines = true;
    connect(m_push, &PushedRun::line, this,
        [this](const QByteArray &line) { appendLine(QString::fromUtf8(line)); });
    connect(m_push, &PushedRun::watchingProcess, this, [this] {
        // The end of the run comes by push now: the process is no longer polled.
        releaseStream();
    });
    connect(m_push, &PushedRun::ended, this, &RunLauncher::finishPushed);
    connect(m_push, &PushedRun::vanished, this, &RunLauncher::pushedRunVanished);
    connect(m_push, &PushedRun::teeDamaged, this,
        [this](const QString &what) { Q_EMIT notice(tr("Lines may be missing: %1.").arg(what)); });
    connect(m_push, &PushedRun::interrupted, this, [this](const QString &reason) {
        Q_EMIT notice(tr("The connection to the server was lost (%1); reconnecting. The run goes "
                         "on in the sandbox.")
                          .arg(reason));
    });
    connect(m_push, &PushedRun::reconnected, this, [this](qint64 gapMs) {
        Q_EMIT notice(tr("Server restarted or network back: reconnected after %1; every line "
                         "written meanwhile is shown, none twice.")
                          .arg(format::duration(gapMs)));
    });
    connect(m_push, &PushedRun::unavailable, this, &RunLauncher::pushUnavailable);
}

void RunLauncher::stopPushing()
{
    if (m_push)
        m_push->deleteLater();
    m_pushLines = false;
}

void RunLauncher::pushUnavailable(const QString &reason)
{
    stopPushing();
    Q_EMIT notice(tr("Live output is polled: push is not available (%1).").arg(reason));
    if (m_state == State::Streaming)
        followTee(); // the lines pushed so far are kept; the tee file gives the rest
}

void RunLauncher::finishPushed(int exitCode)
{
    releaseStream();
    if (m_state != State::Streaming && m_state != State::FollowingTee)
        return;
    announceStarted(); // it ran: its exit file is there
    m_pendingRepairs.clear();
    completeReadingStandardError(exitCode);
}

void RunLauncher::pushedRunVanished()
{
    releaseStream();
    if (m_state != State::Streaming && m_state != State::FollowingTee)
        return;
    announceStarted(); // it ran: its shell wrote its pid file
    if (const int signal = signalEndingTheRun()) { // ended from here: killed by that signal
        finishPushed(-signal);
        return;
    }
    m_repairTimer.stop();
    m_followTimer.stop();
    setState(State::Interrupted);
    Q_EMIT interrupted(tr("The run was interrupted: its process ended without claude's exit "
                          "status (its process group was ended, e.g. the sandbox or its service "
                          "restarted). Every line it wrote up to then is shown, from %1.")
                           .arg(m_handle.paths().teeFile));
}

void RunLauncher::detach()
{
    m_followTimer.stop();
    m_repairTimer.stop();
    m_inflight.abort();
    abandonStream();
    m_startOwed = false;
    if (m_push)
        m_push->deleteLater();
    m_pushLines = false;
    setState(State::Idle);
}

} // namespace sandscope
