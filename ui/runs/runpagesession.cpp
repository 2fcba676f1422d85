#include "runpagesession.h"

#include "runs/artifactspanel.h"
#include "runs/runpage.h"
#include "ui_runpage.h"

#include <QPushButton>

namespace sandscope {

RunPageSession::RunPageSession(
    RunPage *page, OpenTerminalClient *client, const SessionSource &source)
    : QObject(page)
    , m_page(page)
    , m_client(client)
    , m_source(source)
{
}

void RunPageSession::start()
{
    auto *follower
        = new TranscriptFollower(m_client, m_source.identity, m_source.transcriptPath, m_page);
    m_follower = follower;
    connect(follower, &TranscriptFollower::eventsReady, m_page, &RunPage::enqueueEvents);
    connect(follower, &TranscriptFollower::progress, m_page, &RunPage::showLoadProgress);
    connect(follower, &TranscriptFollower::notice, this,
        [this](const QString &text) { m_page->showNotice(text, true); });
    connect(
        follower, &TranscriptFollower::stateChanged, this, [this](TranscriptFollower::State state) {
            if (state != TranscriptFollower::State::Following)
                return;
            m_page->flushEvents();
            m_page->m_ui->loadPanel->hide();
            m_page->showNotice(
                RunPage::tr("Following session %1 as %2: new records appear as they are written.")
                    .arg(m_source.sessionId,
                        m_source.identity.isServerAccount() ? RunPage::tr("the server account")
                                                            : m_source.identity.userId));
            m_page->updateSummary();
            Q_EMIT m_page->loadFinished(true);
        });
    connect(follower, &TranscriptFollower::finished, this,
        [this](bool completed, const QString &message) {
            m_page->flushEvents();
            m_page->m_ui->loadPanel->hide();
            // Calls still open stay so: the run itself may go on without this page.
            if (!message.isEmpty())
                m_page->showNotice(message, !completed);
            m_page->updateSummary();
        });
    if (!m_source.cwd.isEmpty() && m_source.started.isValid())
        m_page->m_ui->artifactsPanel->watch(m_client, m_source.identity, m_source.cwd,
            QLatin1Char('@') + QString::number(m_source.started.toSecsSinceEpoch()));
    else
        m_page->m_ui->artifactsPanel->setUnavailable(
            RunPage::tr("The session's working directory or start is not known."));
    setupControls();
    m_page->m_ui->loadLabel->setText(
        RunPage::tr("Reading session %1 as %2…")
            .arg(m_source.sessionId,
                m_source.identity.isServerAccount() ? RunPage::tr("the server account")
                                                    : m_source.identity.userId));
    m_page->m_ui->loadProgress->setValue(0);
    m_page->m_ui->loadPanel->show();
    follower->start(true);
}

// A session page continues its session in a new run (New Run for its chat), not in the page:
// the live controls give way to Resume…, Fork… and the folder.
void RunPageSession::setupControls()
{
    for (QWidget *control : m_page->runControls())
        control->hide();
    m_page->m_ui->attachButton->hide();
    m_page->m_ui->attachmentPanel->hide();
    const bool inChat = !m_source.chatId.isEmpty();
    const QString onlyChats
        = RunPage::tr("Only sessions in a chat folder (~/chat-<id>) can be continued");
    auto *resume = new QPushButton(RunPage::tr("Res&ume…"), m_page);
    resume->setObjectName(QStringLiteral("resumeSessionButton"));
    resume->setEnabled(inChat);
    resume->setToolTip(
        inChat ? RunPage::tr("Continue this session with a new prompt, as a new run") : onlyChats);
    auto *fork = new QPushButton(RunPage::tr("F&ork…"), m_page);
    fork->setObjectName(QStringLiteral("forkSessionButton"));
    fork->setEnabled(inChat);
    fork->setToolTip(inChat
            ? RunPage::tr("Continue a copy of this session; the original stays as it is")
            : onlyChats);
    auto *folder = new QPushButton(RunPage::tr("Open Folder in Files"), m_page);
    folder->setObjectName(QStringLiteral("sessionFolderButton"));
    folder->setEnabled(!m_source.cwd.isEmpty());
    folder->setToolTip(m_source.cwd);
    m_page->m_ui->controlRow->addWidget(resume);
    m_page->m_ui->controlRow->addWidget(fork);
    m_page->m_ui->controlRow->addWidget(folder);
    m_page->m_ui->controlRow->addStretch(1);
    connect(resume, &QPushButton::clicked, this,
        [this] { Q_EMIT m_page->continueSessionRequested(m_source, false); });
    connect(fork, &QPushButton::clicked, this,
        [this] { Q_EMIT m_page->continueSessionRequested(m_source, true); });
    connect(folder, &QPushButton::clicked, this,
        [this] { Q_EMIT m_page->openFolderRequested(m_source.identity.userId, m_source.cwd); });
}

} // namespace sandscope
