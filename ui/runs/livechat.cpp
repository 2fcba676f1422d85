#include "livechat.h"

#include "claude/claudecommand.h"
#include "claude/demomodel.h"
#include "runs/attachmentlist.h"
#include "runs/promptattachments.h"
#include "runs/rundelegate.h"
#include "runtree/runmodel.h"

#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QToolButton>

#include <utility>

namespace sandscope {

LiveChat::LiveChat(const LiveChatWidgets &widgets, QObject *parent)
    : QObject(parent)
    , m_widgets(widgets)
{
    connect(m_widgets.stopButton, &QPushButton::clicked, this, &LiveChat::stop);
    connect(m_widgets.sendButton, &QPushButton::clicked, this,
        [this] { sendFollowUp(m_widgets.followUpEdit->text()); });
    connect(m_widgets.followUpEdit, &QLineEdit::returnPressed, this,
        [this] { sendFollowUp(m_widgets.followUpEdit->text()); });
    connect(m_widgets.newChatButton, &QPushButton::clicked, this, [this] {
        if (const LiveRunRequest *like = request())
            Q_EMIT newChatRequested(*like);
    });
    connect(m_widgets.attachButton, &QToolButton::clicked, m_widgets.attachmentList,
        &AttachmentList::chooseFiles);
    m_widgets.attachmentList->takeDropsFrom(m_widgets.followUpEdit);
    connect(m_widgets.attachmentList, &AttachmentList::pathsChanged, this,
        &LiveChat::updateAttachmentPanel);
    updateAttachmentPanel();
}

LiveChat::~LiveChat()
{
    // Whatever the upload or the controller still report on their way out (an aborted
    // request) must not reach the widgets, which may be gone.
    for (QObject *child :
        {static_cast<QObject *>(m_upload), static_cast<QObject *>(m_controller)}) {
        if (child)
            QObject::disconnect(child, nullptr, this, nullptr);
    }
}

void LiveChat::showNotice(const QString &text, bool isError)
{
    Q_EMIT noticeRequested(text, isError);
}

bool LiveChat::start(
    OpenTerminalClient *client, const LiveRunRequest &request, QString *errorMessage)
{
    QString why;
    if (!claudecommand::isValidChatId(request.chatId, &why))
        why = tr("chat \"%1\" refused: %2").arg(request.chatId, why);
    else if (request.prompt.trimmed().isEmpty())
        why = tr("the prompt is empty");
    else if (const QString problem = claudecommand::validate(request.options); !problem.isEmpty())
        why = problem;
    if (!why.isEmpty()) {
        if (errorMessage)
            *errorMessage = why;
        return false;
    }
    m_client = client;
    openRecording(request);
    beginTurn(request);
    return true;
}

bool LiveChat::attach(OpenTerminalClient *client, const LiveRunRequest &request,
    const RunHandle &handle, QString *errorMessage)
{
    QString why;
    if (!handle.isValid(&why)) {
        if (errorMessage)
            *errorMessage = why;
        return false;
    }
    m_client = client;
    openRecording(request);
    startTurn(request, &handle);
    return true;
}

void LiveChat::openRecording(const LiveRunRequest &request)
{
    ensureController();
    const QString directory
        = m_recordingDirectory.isEmpty() ? RunRecorder::defaultDirectory() : m_recordingDirectory;
    QDir().mkpath(directory);
    QString error;
    if (!m_controller->openRecording(RunRecorder::newRecordingPath(directory, request.chatId),
            request, QStringLiteral("sandscope gui"), &error))
        showNotice(tr("The run is not recorded: %1").arg(error), true);
}

void LiveChat::ensureController()
{
    if (m_controller)
        return;
    m_controller = new RunController(m_client, this);
    connect(m_controller, &RunController::eventsReady, this, &LiveChat::eventsReady);
    connect(m_controller, &RunController::sessionKnown, this, &LiveChat::updateControls);
    connect(m_controller, &RunController::recordingFailed, this, [this](const QString &message) {
        showNotice(tr("The run is no longer being recorded: %1").arg(message), true);
    });
    connect(m_controller, &RunController::notice, this,
        [this](const QString &text) { showNotice(text); });
    connect(m_controller, &RunController::turnStarted, this, [this](const RunHandle &handle) {
        const RunPaths paths = handle.paths();
        m_home = handle.home;
        m_workDirectory = paths.workDirectory;
        if (m_artifactsReference.isEmpty())
            m_artifactsReference = paths.promptFile; // written right before claude started
        Q_EMIT turnRunningChanged(true);
    });
    connect(m_controller, &RunController::turnEnded, this, &LiveChat::onTurnEnded);
}

QString LiveChat::resumePrompt()
{
    return tr("Your previous turn was interrupted before it finished (the sandbox restarted). "
              "Continue where you left off.");
}

bool LiveChat::sendFollowUp(const QString &prompt)
{
    if (isUploading())
        return false;
    if (!isLive() && m_unstartedFirstTurn) {
        // The first turn's upload failed: try again, with a new prompt if one was typed.
        LiveRunRequest retried = *m_unstartedFirstTurn;
        if (!prompt.trimmed().isEmpty())
            retried.prompt = prompt;
        m_unstartedFirstTurn.reset();
        beginTurn(retried);
        return true;
    }
    const QString text = prompt.trimmed().isEmpty() && m_interrupted ? resumePrompt() : prompt;
    if (!m_controller || !m_controller->canFollowUp() || text.trimmed().isEmpty())
        return false;
    m_interrupted = false;
    beginTurn(m_controller->followUpRequest(text));
    return true;
}

void LiveChat::beginTurn(const LiveRunRequest &request)
{
    const QStringList files = m_widgets.attachmentList->localPaths();
    if (files.isEmpty()) {
        if (isLive())
            m_widgets.followUpEdit->clear();
        startTurn(request);
        return;
    }
    ensureFileOperations(request.identity);
    m_uploadingTurn = std::make_unique<LiveRunRequest>(request);
    auto *upload = new AttachmentUpload(m_client, m_fileOperations, this);
    m_upload = upload;
    connect(upload, &AttachmentUpload::progress, this,
        [this](int uploaded, int total, const QString &current) {
            m_widgets.uploadProgress->setRange(0, total);
            m_widgets.uploadProgress->setValue(uploaded);
            m_widgets.uploadLabel->setStyleSheet(QString());
            m_widgets.uploadLabel->setText(current.isEmpty()
                    ? tr("Uploaded %1 of %n attachment(s)", nullptr, int(total)).arg(uploaded)
                    : tr("Uploading %1 (%2 of %3)…").arg(current).arg(uploaded + 1).arg(total));
        });
    connect(upload, &AttachmentUpload::finished, this, &LiveChat::onUploadFinished);
    connect(upload, &AttachmentUpload::failed, this, &LiveChat::onUploadFailed);
    showNotice(tr("Uploading %n attachment(s) into chat %1 before the turn starts…", nullptr,
        int(files.size()))
                   .arg(request.chatId));
    upload->start(m_home, request.chatId, files);
    updateAttachmentPanel();
    updateControls();
}

void LiveChat::onUploadFinished(const QStringList &relativePaths)
{
    if (m_upload)
        m_upload->deleteLater();
    LiveRunRequest request = *std::exchange(m_uploadingTurn, nullptr);
    request.prompt = promptattachments::promptWithReferences(request.prompt, relativePaths);
    m_widgets.attachmentList->clearPaths();
    if (isLive())
        m_widgets.followUpEdit->clear();
    updateAttachmentPanel();
    startTurn(request);
}

void LiveChat::onUploadFailed(const QString &message)
{
    if (m_upload)
        m_upload->deleteLater();
    std::unique_ptr<LiveRunRequest> request = std::exchange(m_uploadingTurn, nullptr);
    // Nothing typed is lost: the follow-up text and the attachments stay; a first turn is
    // kept whole and Send tries it again.
    if (!isLive())
        m_unstartedFirstTurn = std::move(request);
    const QString text = isLive()
        ? tr("The attachments were not uploaded, so the turn did not start: %1").arg(message)
        : tr("The attachments were not uploaded, so the run did not start: %1. Fix or remove "
             "them and press Send to try again (the prompt is kept).")
              .arg(message);
    showNotice(text, true);
    m_widgets.uploadLabel->setText(message);
    m_widgets.uploadLabel->setStyleSheet(QStringLiteral("QLabel { color: %1; }")
                                             .arg(RunDelegate::statusColor(RunModel::Status::Error,
                                                 m_widgets.attachmentPanel->palette())
                                                      .name()));
    updateAttachmentPanel();
    updateControls();
    Q_EMIT attachmentUploadFailed(message);
}

void LiveChat::updateAttachmentPanel()
{
    const bool uploading = isUploading();
    AttachmentList *list = m_widgets.attachmentList;
    QLabel *label = m_widgets.uploadLabel;
    const bool hasFiles = list->count() > 0;
    m_widgets.attachmentPanel->setVisible(hasFiles || uploading);
    m_widgets.uploadProgress->setVisible(uploading);
    list->setEnabled(!uploading);
    if (!hasFiles && !uploading)
        label->clear();
    else if (!uploading && label->styleSheet().isEmpty())
        label->setText(tr(
            "%n file(s) will be uploaded and named in the next prompt.", nullptr, list->count()));
}

bool LiveChat::isUploading() const
{
    return m_upload && m_upload->isRunning();
}

void LiveChat::setFileAccess(
    FileOperations::Acting acting, const QString &profileName, const QString &serverText)
{
    m_fileActing = acting;
    m_auditProfile = profileName;
    m_auditServer = serverText;
    if (m_fileOperations) {
        m_fileOperations->setIdentity(m_fileOperations->identity(), acting);
        m_fileOperations->setAuditContext(profileName, serverText);
    }
}

void LiveChat::ensureFileOperations(const Identity &identity)
{
    if (m_fileOperations)
        return;
    m_fileOperations = new FileOperations(m_client, this);
    m_fileOperations->setIdentity(identity, m_fileActing);
    m_fileOperations->setAuditContext(m_auditProfile, m_auditServer);
}

QString LiveChat::userId() const
{
    if (const LiveRunRequest *live = request())
        return live->identity.userId;
    if (m_uploadingTurn)
        return m_uploadingTurn->identity.userId;
    return m_unstartedFirstTurn ? m_unstartedFirstTurn->identity.userId : QString();
}

void LiveChat::stop()
{
    if (!isActive())
        return;
    switch (m_controller->requestStop(m_stopGraceMs)) {
    case RunController::StopStep::Terminating:
        showNotice(
            tr("Stopping the run (SIGTERM, then SIGKILL after %1 s)…").arg(m_stopGraceMs / 1000.0));
        break;
    case RunController::StopStep::Killing:
        showNotice(tr("Killing the run (SIGKILL)…"));
        break;
    case RunController::StopStep::Detached:
    case RunController::StopStep::None:
        break; // the turn's end says what happened
    }
}

QString LiveChat::recordingPath() const
{
    return m_controller ? m_controller->recordingPath() : QString();
}

const LiveRunRequest *LiveChat::request() const
{
    return m_controller ? m_controller->request() : nullptr;
}

void LiveChat::startTurn(const LiveRunRequest &request, const RunHandle *attachTo)
{
    ensureController();
    const QString &resumed = request.options.resumeSessionId;
    if (attachTo) {
        showNotice(tr("Attached to run %1 of chat %2 as %3 (reading %4)…")
                       .arg(attachTo->runId, request.chatId, request.identity.userId,
                           attachTo->teePath()));
        m_controller->attachTurn(request, *attachTo);
    } else {
        const QString notice = resumed.isEmpty()
            ? tr("Running chat %1 as %2").arg(request.chatId, request.identity.userId)
            : tr("Continuing session %1 of chat %2 as %3")
                  .arg(resumed, request.chatId, request.identity.userId);
        showNotice(DemoModel::isDemoModel(request.options.model)
                ? tr("%1 with the demo model (scripted answers, not Claude)…").arg(notice)
                : notice + QStringLiteral("…"));
        m_controller->startTurn(request);
    }
    updateControls();
    Q_EMIT liveTurnStarted();
}

void LiveChat::onTurnEnded(const RunOutcome &outcome)
{
    Q_EMIT turnEndedInView(outcome.hasResult);
    switch (outcome.kind) {
    case RunOutcome::Kind::TransportFailed:
        showNotice(tr("The run failed: %1").arg(outcome.failure), true);
        break;
    case RunOutcome::Kind::Stopped:
        showNotice(outcome.detached
                ? tr("Stopped waiting for the run; it may still be running in the sandbox "
                     "(File → Attach to Run).")
                : tr("The run was stopped before it produced a result."),
            true);
        break;
    case RunOutcome::Kind::NoResult:
        showNotice(
            tr("The run ended without a result (claude exit status %1).").arg(outcome.exitCode),
            true);
        break;
    case RunOutcome::Kind::Interrupted:
        m_interrupted = true;
        showNotice(outcome.failure
                + (outcome.sessionId.isEmpty()
                        ? QString()
                        : tr(" Resume continues session %1 as a new turn.").arg(outcome.sessionId)),
            true);
        break;
    case RunOutcome::Kind::Ok:
    case RunOutcome::Kind::ErrorResult:
        showNotice(outcome.sessionId.isEmpty()
                ? QString()
                : tr("Session %1 · send a follow-up to continue it.").arg(outcome.sessionId));
        break;
    }
    Q_EMIT turnRunningChanged(false);
    updateControls();
    Q_EMIT liveTurnFinished(outcome.ok());
}

void LiveChat::updateControls()
{
    const bool live = isLive();
    const bool uploading = isUploading();
    const bool retryFirst = !live && m_unstartedFirstTurn;
    const bool canFollowUp = !uploading && ((live && m_controller->canFollowUp()) || retryFirst);
    m_widgets.stopButton->setEnabled(isActive());
    m_widgets.followUpEdit->setEnabled(canFollowUp);
    m_widgets.sendButton->setEnabled(canFollowUp);
    m_widgets.attachButton->setEnabled(!uploading && (live || retryFirst));
    m_widgets.newChatButton->setEnabled(live);
    for (QWidget *control : std::initializer_list<QWidget *> {m_widgets.stopButton,
             m_widgets.followUpEdit, m_widgets.sendButton, m_widgets.newChatButton})
        control->setToolTip(QString());
    m_widgets.stopButton->setToolTip(tr("Stop the running turn (SIGTERM, then SIGKILL)"));
    // A follow-up runs as the run's user, whoever the window acts as now: say so where it is typed.
    if (live)
        m_widgets.followUpEdit->setPlaceholderText(
            tr("Follow-up prompt, sent as %1 (resumes the session)").arg(userId()));
    m_widgets.sendButton->setText(m_interrupted ? tr("Resume") : tr("Send"));
    m_widgets.sendButton->setToolTip(m_interrupted
            ? tr("Continue interrupted session %1 from its transcript (claude --resume), with the "
                 "follow-up prompt or, when it is empty: \"%2\"")
                  .arg(sessionId(), resumePrompt())
            : tr("Resume session %1 with the follow-up prompt")
                  .arg(sessionId().isEmpty() ? tr("(not known yet)") : sessionId()));
}

} // namespace sandscope
