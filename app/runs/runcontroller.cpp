#include "runcontroller.h"

#include "server/openterminalclient.h"

#include <QJsonDocument>

namespace sandscope {

RunController::RunController(OpenTerminalClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_parser(new RunParser(this))
    , m_feed(new RecordingFeed(m_parser, nullptr, this))
{
    m_redactor.addSecret(client->connection().apiKey);
    connect(m_parser, &RunParser::eventsReady, this, &RunController::onEvents);
    connect(m_feed, &RecordingFeed::recordingFailed, this, &RunController::recordingFailed);
}

RunController::~RunController()
{
    // The turns below die after the signals' receivers may have: nothing more to report.
    if (m_live)
        QObject::disconnect(m_live, nullptr, this, nullptr);
}

bool RunController::openRecording(const QString &path, const QJsonObject &metadata, QString *error)
{
    if (!m_recorder.open(path, metadata)) {
        if (error)
            *error = m_recorder.errorString();
        m_feed->setRecorder(nullptr);
        return false;
    }
    m_feed->setRecorder(&m_recorder);
    return true;
}

bool RunController::openRecording(
    const QString &path, const LiveRunRequest &request, const QString &source, QString *error)
{
    return openRecording(path, recordingMetadata(request, source), error);
}

QJsonObject RunController::recordingMetadata(const LiveRunRequest &request, const QString &source)
{
    return {{QStringLiteral("source"), source}, {QStringLiteral("server"), request.scope.server},
        {QStringLiteral("user_id"), request.identity.userId},
        {QStringLiteral("chat_id"), request.chatId},
        {QStringLiteral("resume_session_id"), request.options.resumeSessionId},
        {QStringLiteral("fork"), request.options.forkSession}};
}

void RunController::closeRecording()
{
    m_feed->setRecorder(nullptr);
    m_recorder.close();
}

QString RunController::recordingPath() const
{
    return m_recorder.isOpen() ? m_recorder.path() : QString();
}

LiveRun *RunController::newTurn(const LiveRunRequest &request)
{
    if (m_live) {
        QObject::disconnect(m_live, nullptr, this, nullptr);
        m_live->deleteLater();
    }
    auto *run = new LiveRun(m_client, request, this);
    m_live = run;
    m_turnEnded = false;
    m_hasResult = false;
    m_promptShown = false;
    m_result = ResultInfo();
    m_stopRequests = 0;

    connect(run, &LiveRun::lineReady, this, [this](const QByteArray &line, qint64 arrivalMs) {
        // LiveRun masked the agent's secrets; the server's key is masked here.
        const QByteArray masked = m_redactor.redact(QString::fromUtf8(line)).toUtf8();
        Q_EMIT lineReady(masked, arrivalMs);
        m_feed->feedLine(masked, arrivalMs);
    });
    connect(run, &LiveRun::started, this,
        [this](const RunHandle &handle) { Q_EMIT turnStarted(handle, false); });
    connect(run, &LiveRun::notice, this,
        [this](const QString &message) { Q_EMIT notice(redact(message)); });
    connect(run, &LiveRun::finished, this,
        [this](int exitCode) { endTurn(false, exitCode, QString()); });
    connect(run, &LiveRun::failed, this,
        [this](const QString &message) { endTurn(true, 0, redact(message)); });
    connect(run, &LiveRun::interrupted, this,
        [this](const QString &message) { endTurn(false, 0, redact(message), false, true); });
    return run;
}

void RunController::startTurn(const LiveRunRequest &request)
{
    newTurn(request)->start();
}

void RunController::attachTurn(const LiveRunRequest &request, const RunHandle &handle)
{
    newTurn(request)->attach(handle);
    Q_EMIT turnStarted(handle, true);
}

LiveRunRequest RunController::followUpRequest(const QString &prompt) const
{
    LiveRunRequest next = m_live ? m_live->request() : LiveRunRequest();
    next.prompt = prompt;
    next.options.resumeSessionId = m_sessionId;
    next.options.forkSession = false;
    return next;
}

bool RunController::canFollowUp() const
{
    return m_live && !isActive() && !m_sessionId.isEmpty();
}

RunController::StopStep RunController::requestStop(int graceMs)
{
    if (!isActive())
        return StopStep::None;
    ++m_stopRequests;
    if (m_stopRequests == 1) {
        m_live->stop(graceMs); // waits for the start when it is still being prepared
        return StopStep::Terminating;
    }
    if (m_stopRequests == 2 && m_live->isLaunched()) {
        m_live->kill();
        return StopStep::Killing;
    }
    m_live->launcher()->detach();
    endTurn(false, 0, QString(), true);
    return StopStep::Detached;
}

bool RunController::isActive() const
{
    return m_live && m_live->isActive() && !m_turnEnded;
}

bool RunController::isLaunched() const
{
    return m_live && m_live->isLaunched();
}

const LiveRunRequest *RunController::request() const
{
    return m_live ? &m_live->request() : nullptr;
}

RunHandle RunController::handle() const
{
    return m_live ? m_live->launcher()->handle() : RunHandle();
}

QString RunController::redact(const QString &text) const
{
    return m_redactor.redact(text);
}

// A transcript's turn starts with the prompt record: a turn node with the prompt as its first
// child (RunParser). The stream never repeats the prompt, but the turn's request holds it: it
// goes right after the turn's init, where the session's tab has it, so a live run and its
// session show the same nodes. A user text adds to no figure (RunSummaryBuilder).
RunEventBatch RunController::withPrompt(const RunEventBatch &events)
{
    if (m_promptShown || !m_live || m_live->request().prompt.isEmpty())
        return events;
    for (qsizetype i = 0; i < events.size(); ++i) {
        const RunEvent &init = events.at(i);
        if (init.kind != RunEvent::SessionInit || !init.parentToolUseId.isEmpty())
            continue;
        m_promptShown = true;
        RunEvent prompt;
        prompt.kind = RunEvent::UserText;
        prompt.type = QStringLiteral("user");
        prompt.arrivalMs = init.arrivalMs;
        prompt.lineNumber = init.lineNumber;
        prompt.sessionId = init.sessionId;
        prompt.text = redact(m_live->redact(m_live->request().prompt));
        // Not a line of the stream: the node's JSON says where it came from.
        prompt.raw = QJsonDocument(
            QJsonObject {{QStringLiteral("type"), QStringLiteral("sandscope_prompt")},
                {QStringLiteral("prompt"), prompt.text}})
                         .toJson(QJsonDocument::Compact);
        RunEventBatch shown = events;
        shown.insert(i + 1, prompt);
        return shown;
    }
    return events;
}

void RunController::onEvents(const RunEventBatch &parsed)
{
    const RunEventBatch events = withPrompt(parsed);
    for (const RunEvent &event : events) {
        if (event.kind == RunEvent::Result) {
            m_hasResult = true;
            m_result = event.result;
        }
        // Recorded as soon as it is known, so a stopped run can still be resumed.
        if (!event.sessionId.isEmpty() && event.sessionId != m_sessionId) {
            m_sessionId = event.sessionId;
            if (m_live)
                m_live->rememberSession(m_sessionId);
            Q_EMIT sessionKnown(m_sessionId);
        }
    }
    Q_EMIT eventsReady(events);
}

void RunController::endTurn(
    bool transportFailed, int exitCode, const QString &failure, bool detached, bool interrupted)
{
    if (m_turnEnded || !m_live)
        return;
    m_turnEnded = true;
    RunOutcome outcome;
    outcome.kind = RunOutcome::classify(transportFailed, m_live->wasStopped() || detached,
        m_hasResult, m_result.isError, interrupted);
    outcome.hasResult = m_hasResult;
    outcome.result = m_result;
    outcome.exitCode = exitCode;
    outcome.detached = detached;
    outcome.failure = failure;
    outcome.standardError = redact(m_live->redact(m_live->launcher()->standardError()));
    outcome.sessionId = m_sessionId;
    Q_EMIT turnEnded(outcome);
}

} // namespace sandscope
