#include "processstream.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

namespace sandscope {

namespace {
// Transient transport failures while polling are retried this many times before giving up.
constexpr int maxConsecutivePollErrors = 5;
// The log's end record can lag the 404 by a moment (the server writes it after the exit).
constexpr int maxLogRecoveryAttempts = 5;
constexpr int logRecoveryDelayMs = 1000;
// A killed record without exit code is polled this long before it is reported as such.
constexpr int killedWithoutExitCodeGraceMs = 5000;

bool isTransient(ApiError::Kind kind)
{
    switch (kind) {
    case ApiError::Kind::ConnectionClosed:
    case ApiError::Kind::Network:
    case ApiError::Kind::Timeout:
    case ApiError::Kind::ServerError:
        return true;
    default:
        return false;
    }
}
} // namespace

ProcessStream::ProcessStream(OpenTerminalClient *client, Identity identity, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_identity(std::move(identity))
{
    m_pollTimer.setSingleShot(true);
    // A coarse timer may fire up to 5 % early, and the backed-off pace is a promise (at most
    // one request per idle interval: bench_runlag measured 0.2004/s against 0.2 once).
    m_pollTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_pollTimer, &QTimer::timeout, this, &ProcessStream::poll);
    m_escalateTimer.setSingleShot(true);
    connect(&m_escalateTimer, &QTimer::timeout, this, [this] {
        if (m_state == State::Stopping)
            kill();
    });
}

ProcessStream::~ProcessStream()
{
    m_inflight.abort();
}

void ProcessStream::setPollIntervals(int fastMs, int idleMaxMs)
{
    m_backoff.setIntervals(fastMs, idleMaxMs);
}

void ProcessStream::setState(State state)
{
    if (m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

void ProcessStream::start(const QString &command, const ExecuteOptions &options)
{
    Q_ASSERT(m_state == State::Idle);
    setState(State::Starting);
    m_inflight = m_client->execute(
        m_identity, command, options, this, [this](const Result<ProcessSnapshot> &result) {
            m_inflight = {};
            if (!result.ok()) {
                fail(result.error);
                return;
            }
            m_processId = result.value.info.id;
            setState(State::Running);
            Q_EMIT started(m_processId);
            handleSnapshot(result.value);
        });
}

void ProcessStream::attach(const QString &processId, qint64 offset, const QString &logPath)
{
    Q_ASSERT(m_state == State::Idle);
    m_processId = processId;
    m_logPath = logPath;
    m_offset = offset;
    setState(State::Running);
    Q_EMIT started(m_processId);
    poll();
}

void ProcessStream::schedulePoll(bool hadOutput)
{
    // While output flows, poll again soon, but never sooner than the last answer took: older
    // servers re-read the whole process log for every status request, so hammering them
    // with a big log slows the process itself down.
    const int lastRoundTrip = m_pollClock.isValid()
        ? int(qMin<qint64>(m_pollClock.elapsed(), m_backoff.idleMaxMs()))
        : 0;
    // Short pauses (an agent between two tool calls) keep the fast pace, so the next line
    // shows without delay; only a longer silence backs off, doubling up to idleMaxMs.
    m_pollTimer.start(m_backoff.next(hadOutput, lastRoundTrip));
}

void ProcessStream::poll()
{
    if (m_state != State::Running && m_state != State::Stopping)
        return;
    m_pollClock.start();
    ++m_pollCount;
    m_inflight = m_client->processStatus(
        m_identity, m_processId, m_offset, 0, this, [this](const Result<ProcessSnapshot> &result) {
            m_inflight = {};
            if (result.ok()) {
                m_consecutiveErrors = 0;
                handleSnapshot(result.value);
                return;
            }
            const ApiError &error = result.error;
            if (error.kind == ApiError::Kind::Cancelled)
                return;
            if (error.kind == ApiError::Kind::NotFound) {
                handleMissingRecord();
                return;
            }
            if (isTransient(error.kind) && ++m_consecutiveErrors < maxConsecutivePollErrors) {
                Q_EMIT notice(tr("Polling failed (%1); retrying.").arg(error.toString()));
                schedulePoll(false);
                return;
            }
            fail(error);
        });
}

void ProcessStream::handleSnapshot(const ProcessSnapshot &snapshot)
{
    if (!snapshot.info.logPath.isEmpty())
        m_logPath = snapshot.info.logPath;
    for (const OutputChunk &chunk : snapshot.output) {
        if (!chunk.data.isEmpty())
            Q_EMIT output(chunk.data);
    }
    const bool hadOutput = !snapshot.output.isEmpty();
    // next_offset is authoritative; fall back to counting when a server omits it.
    m_offset
        = snapshot.nextOffset > m_offset ? snapshot.nextOffset : m_offset + snapshot.output.size();
    if (m_state != State::Running && m_state != State::Stopping)
        return; // detached or already finished while the request was in flight

    if (snapshot.truncated) { // byte budget hit: more is already there
        m_pollTimer.start(0);
        return;
    }
    const ProcessInfo &info = snapshot.info;
    if (info.status == ProcessStatus::Running || info.status == ProcessStatus::Unknown) {
        schedulePoll(hadOutput);
        return;
    }
    if (info.status == ProcessStatus::Killed && !info.hasExitCode) {
        // Newer servers mark the record killed at once, before the process has exited.
        if (!m_killedSince.isValid())
            m_killedSince.start();
        if (m_killedSince.elapsed() < killedWithoutExitCodeGraceMs) {
            schedulePoll(hadOutput);
            return;
        }
        Q_EMIT notice(tr("The server marks the process as killed but reports no exit: it may "
                         "still be running as this user."));
    }
    m_hasExitCode = info.hasExitCode;
    m_exitCode = info.exitCode;
    m_finalStatus = info.status;
    // Drain: one more read at the final offset catches output written just before the exit.
    if (!m_draining || hadOutput) {
        m_draining = true;
        m_pollTimer.start(0);
        return;
    }
    finish(m_exitCode, m_finalStatus);
}

void ProcessStream::handleMissingRecord()
{
    if (m_logPath.isEmpty()) {
        ApiError error;
        error.kind = ApiError::Kind::ProcessExpired;
        error.message = tr("Process %1 is no longer known to the server (its record expires "
                           "300 s after the exit and is lost on restart), and it has no log to "
                           "read the rest from.")
                            .arg(m_processId);
        fail(error);
        return;
    }
    Q_EMIT notice(
        tr("Process record gone; reading the rest of the output from %1.").arg(m_logPath));
    recoverFromLog(0);
}

// The process log is JSON lines: {"type":"start"}, {"type":"output","data":...} per chunk (the
// n-th one is offset n), and a final {"type":"end","exit_code":...}.
void ProcessStream::recoverFromLog(int attempt)
{
    m_inflight = m_client->readFile(
        m_identity, m_logPath, 0, 0, this, [this, attempt](const Result<FileContent> &result) {
            m_inflight = {};
            if (!result.ok()) {
                if (result.error.kind == ApiError::Kind::Cancelled)
                    return;
                ApiError error = result.error;
                error.kind = ApiError::Kind::ProcessExpired;
                error.message = tr("Process %1 is no longer known to the server and its log %2 "
                                   "could not be read: %3")
                                    .arg(m_processId, m_logPath, result.error.toString());
                fail(error);
                return;
            }
            qint64 index = 0;
            bool ended = false;
            int exitCode = 0;
            bool hasExitCode = false;
            QStringList missed;
            const auto lines = QStringView(result.value.text).split(QLatin1Char('\n'));
            for (const QStringView line : lines) {
                if (line.trimmed().isEmpty())
                    continue;
                const QJsonObject record = QJsonDocument::fromJson(line.toUtf8()).object();
                const QString type = record.value(QLatin1String("type")).toString();
                if (record.contains(QLatin1String("data")) && type != QLatin1String("start")) {
                    if (index >= m_offset)
                        missed.append(record.value(QLatin1String("data")).toString());
                    ++index;
                } else if (type == QLatin1String("end")) {
                    ended = true;
                    const QJsonValue code = record.value(QLatin1String("exit_code"));
                    hasExitCode = code.isDouble();
                    exitCode = code.toInt();
                }
            }
            if (!ended && attempt + 1 < maxLogRecoveryAttempts) {
                QTimer::singleShot(
                    logRecoveryDelayMs, this, [this, attempt] { recoverFromLog(attempt + 1); });
                return;
            }
            for (const QString &data : std::as_const(missed))
                Q_EMIT output(data);
            m_offset = qMax(m_offset, index);
            if (!ended) {
                ApiError error;
                error.kind = ApiError::Kind::ProcessExpired;
                // 0.11.x forgets a process it could not stop with SIGTERM (e.g. one that
                // ignores it), so neither an exit nor a SIGKILL can be obtained any more.
                error.message = m_stopRequested
                    ? tr("The server dropped process %1 when asked to stop it and recorded no "
                         "exit: it may still be running as this user.")
                          .arg(m_processId)
                    : tr("Process %1 is no longer known to the server and its log has no end "
                         "record; the process may have been lost in a server restart.")
                          .arg(m_processId);
                fail(error);
                return;
            }
            m_hasExitCode = hasExitCode;
            m_exitCode = exitCode;
            finish(exitCode, exitCode < 0 ? ProcessStatus::Killed : ProcessStatus::Done);
        });
}

void ProcessStream::stop(int graceMs)
{
    if (m_state != State::Running)
        return;
    setState(State::Stopping);
    m_stopRequested = true;
    const QString id = m_processId;
    m_client->killProcess(m_identity, id, false, this, [this](const Result<Empty> &result) {
        if (!result.ok() && result.error.kind != ApiError::Kind::NotFound)
            Q_EMIT notice(tr("Stop failed: %1").arg(result.error.toString()));
        if (m_state == State::Stopping && !m_inflight.isRunning())
            m_pollTimer.start(0);
    });
    m_escalateTimer.start(graceMs);
}

void ProcessStream::kill()
{
    if (m_state != State::Running && m_state != State::Stopping)
        return;
    setState(State::Stopping);
    m_stopRequested = true;
    m_client->killProcess(m_identity, m_processId, true, this, [this](const Result<Empty> &result) {
        if (!result.ok() && result.error.kind != ApiError::Kind::NotFound)
            Q_EMIT notice(tr("Kill failed: %1").arg(result.error.toString()));
        if (m_state == State::Stopping && !m_inflight.isRunning())
            m_pollTimer.start(0);
    });
}

void ProcessStream::detach()
{
    m_pollTimer.stop();
    m_escalateTimer.stop();
    m_inflight.abort();
    m_inflight = {};
    setState(State::Idle);
}

void ProcessStream::sendInput(const QString &text)
{
    if (m_state != State::Running)
        return;
    m_client->sendInput(m_identity, m_processId, text, this, [this](const Result<Empty> &result) {
        if (!result.ok())
            Q_EMIT notice(tr("Input not delivered: %1").arg(result.error.toString()));
    });
}

void ProcessStream::finish(int exitCode, ProcessStatus status)
{
    m_pollTimer.stop();
    m_escalateTimer.stop();
    m_finalStatus = status;
    setState(State::Finished);
    Q_EMIT finished(exitCode, status);
}

void ProcessStream::fail(const ApiError &error)
{
    m_pollTimer.stop();
    m_escalateTimer.stop();
    setState(State::Failed);
    Q_EMIT failed(error);
}

} // namespace sandscope
