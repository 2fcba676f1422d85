#include "runtabs.h"

#include "backgroundtask.h"
#include "claude/demomodel.h"
#include "compare/comparejob.h"
#include "compare/comparepage.h"
#include "compare/comparerunsdialog.h"
#include "connection/serversession.h"
#include "desktopnotifier.h"
#include "export/exportjob.h"
#include "export/exportrundialog.h"
#include "files/filespage.h"
#include "files/pathguard.h"
#include "messagebar.h"
#include "recordings/runrecording.h"
#include "runs/attachrundialog.h"
#include "runs/newrundialog.h"
#include "runs/rundelegate.h"
#include "runs/runpage.h"
#include "server/openterminalclient.h"
#include "sessions/sessionlistmodel.h"
#include "windowstate.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QMenu>
#include <QPointer>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>
#include <QStyle>
#include <QTabBar>
#include <QTabWidget>
#include <QTime>
#include <QToolButton>

#include <atomic>

namespace sandscope {

RunTabs::RunTabs(QTabWidget *pages, ServerSession *session, MessageBar *messages,
    DesktopNotifier *notifier, WindowState *windowState, QObject *parent)
    : QObject(parent)
    , m_pages(pages)
    , m_session(session)
    , m_messages(messages)
    , m_notifier(notifier)
    , m_windowState(windowState)
{
}

QWidget *RunTabs::window() const
{
    return m_pages->window();
}

RunPage *RunTabs::currentRun() const
{
    return qobject_cast<RunPage *>(m_pages->currentWidget());
}

void RunTabs::showOpenRunDialog()
{
    const QString path = QFileDialog::getOpenFileName(window(), tr("Open Run Recording"),
        RunRecorder::defaultDirectory(),
        tr("Run recordings and stream-json captures (*.jsonl *.ndjson *.json);;All files (*)"));
    if (!path.isEmpty())
        openRunFile(path);
}

void RunTabs::showCompareDialog()
{
    QVector<CompareRunsDialog::OpenRun> runs;
    for (int i = 0; i < m_pages->count(); ++i) {
        if (auto *page = qobject_cast<RunPage *>(m_pages->widget(i)))
            runs.append({m_pages->tabText(i), page});
    }
    CompareRunsDialog dialog(runs, window());
    if (dialog.exec() != QDialog::Accepted)
        return;
    // A tab's tree is read now (it lives on this thread); files are read whole, and the runs
    // aligned, on a worker thread. Cancel drops the result.
    auto job = std::make_shared<CompareJob>();
    for (int side = 0; side < 2; ++side) {
        const CompareRunsDialog::Choice choice = side == 0 ? dialog.left() : dialog.right();
        if (choice.page)
            job->setRun(side, ComparedRun::fromModel(*choice.page->model()), choice.title);
        else
            job->setFile(side, choice.filePath, choice.title);
    }
    const QStringList files = job->filesToRead();
    auto compared = std::make_shared<bool>(false);
    BackgroundTask::start(
        window(),
        files.isEmpty()
            ? tr("Aligning the runs…")
            : tr("Reading %1 and aligning the runs…").arg(QLocale().createSeparatedList(files)),
        QStringLiteral("compareProgress"),
        [job, compared](const std::atomic_bool &cancelled) { *compared = job->run(&cancelled); },
        [this, job, compared](bool cancelled) {
            if (cancelled) {
                m_messages->showMessage(
                    tr("Comparison cancelled."), MessageBar::Level::Information);
            } else if (!*compared) {
                m_messages->showMessage(
                    tr("Cannot compare the runs: %1").arg(job->why()), MessageBar::Level::Error);
            } else {
                auto *page = new ComparePage(m_pages);
                page->setComparison(job->comparison());
                const QString &left = job->comparison().left().source;
                const QString &right = job->comparison().right().source;
                addClosableTab(page, tr("Compare: %1 ↔ %2").arg(left, right),
                    tr("A: %1\nB: %2").arg(left, right), tr("Close this comparison"));
            }
        });
}

RunPage *RunTabs::openRunFile(const QString &path)
{
    QString why;
    RunPage *page = openRunFileReporting(path, &why);
    if (!page)
        m_messages->showMessage(tr("Cannot open the run: %1").arg(why), MessageBar::Level::Error);
    return page;
}

RunPage *RunTabs::openRunFileReporting(const QString &path, QString *why)
{
    auto *page = new RunPage(m_pages);
    if (!page->openFile(path, why)) {
        delete page;
        return nullptr;
    }
    connectRunPage(page);
    addRunTab(page, QFileInfo(path).fileName(), path);
    m_windowState->addRecentRun(path);
    return page;
}

int RunTabs::openRunFiles(const QStringList &paths)
{
    int opened = 0;
    QStringList failures;
    for (const QString &path : paths) {
        QString why;
        if (openRunFileReporting(path, &why))
            ++opened;
        else
            failures << why;
    }
    if (failures.size() == 1)
        m_messages->showMessage(
            tr("Cannot open the run: %1").arg(failures.constFirst()), MessageBar::Level::Error);
    else if (!failures.isEmpty())
        m_messages->showMessage(tr("Cannot open %1 of %n file(s): %2", nullptr, int(paths.size()))
                                    .arg(failures.size())
                                    .arg(failures.join(QStringLiteral("; "))),
            MessageBar::Level::Error);
    return opened;
}

void RunTabs::showExportDialog()
{
    auto *page = qobject_cast<RunPage *>(m_pages->currentWidget());
    if (!page)
        return;
    QString baseName = m_pages->tabText(m_pages->currentIndex());
    baseName = QFileInfo(baseName).completeBaseName();
    baseName.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]+")), QStringLiteral("-"));
    QString directory = m_windowState->exportDirectory();
    if (directory.isEmpty() || !QDir(directory).exists())
        directory = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    if (!QDir(directory).exists()) // a fresh account may have no Documents folder yet
        directory = QDir::homePath();
    auto *dialog = new ExportRunDialog(
        directory, baseName.isEmpty() ? QStringLiteral("run") : baseName, window());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog, page = QPointer<RunPage>(page)] {
        if (page)
            startExport(page, dialog->path(), dialog->format(), dialog->redact());
    });
    dialog->open();
}

// The tree is copied here (it lives on this thread); redacting, rendering and writing, the
// slow part, run on a worker thread behind a progress dialog. Cancel writes nothing.
void RunTabs::startExport(
    const RunPage *page, const QString &path, RunExporter::Format format, bool redact)
{
    std::shared_ptr<ExportJob> job = exportJob(page, redact);
    auto written = std::make_shared<bool>(false);
    // A copy of another user's session leaves the server: recorded as the command line does.
    QString exported;
    if (const SessionSource *session = page->sessionSource();
        session && session->identity.userId != m_session->ownUserId())
        exported = QStringLiteral("%1 -> %2 (%3, %4)")
                       .arg(session->sessionId, QFileInfo(path).absoluteFilePath(),
                           RunExporter::suffix(format),
                           redact ? QStringLiteral("redacted") : QStringLiteral("not redacted"));
    BackgroundTask::start(
        window(), tr("Exporting the run to %1…").arg(QFileInfo(path).fileName()),
        QStringLiteral("exportProgress"),
        [job, written, path, format](
            const std::atomic_bool &cancelled) { *written = job->write(path, format, &cancelled); },
        [this, job, written, path, redact, exported](bool cancelled) {
            if (*written) {
                if (!exported.isEmpty())
                    m_session->audit(
                        QStringLiteral("export-session"), exported, QStringLiteral("ok"));
                m_windowState->setExportDirectory(QFileInfo(path).absolutePath());
                m_messages->showMessage(tr("Exported the run to %1%2.")
                                            .arg(QDir::toNativeSeparators(path),
                                                redact ? tr(" (secrets redacted)") : QString()),
                    MessageBar::Level::Information);
            } else if (cancelled) {
                m_messages->showMessage(
                    tr("Export cancelled: nothing was written."), MessageBar::Level::Information);
            } else {
                m_messages->showMessage(
                    tr("The run was not exported: %1. It is still shown here.").arg(job->why()),
                    MessageBar::Level::Error);
            }
            Q_EMIT exportFinished(*written);
        });
}

std::shared_ptr<ExportJob> RunTabs::exportJob(const RunPage *page, bool redact) const
{
    const QString source = page->filePath().isEmpty()
        ? (page->sessionSource() ? page->sessionSource()->identity.userId + QLatin1Char('/')
                    + page->sessionSource()->sessionId
                                 : page->recordingPath())
        : page->filePath();
    const bool local = !page->filePath().isEmpty() || !page->sessionSource();
    return std::make_shared<ExportJob>(*page->model(),
        local ? RunExporter::sourceOfFile(source) : source, page->skippedLines(), redact,
        QStringList {m_session->client()->connection().apiKey});
}

bool RunTabs::exportRun(const RunPage *page, const QString &path, RunExporter::Format format,
    bool redact, QString *why) const
{
    const std::shared_ptr<ExportJob> job = exportJob(page, redact);
    const bool written = job->write(path, format);
    if (why)
        *why = job->why();
    return written;
}

void RunTabs::fillRecentMenu(QMenu *menu)
{
    menu->clear();
    const QStringList runs = m_windowState->recentRuns();
    for (int i = 0; i < runs.size(); ++i) {
        const QString path = runs.at(i);
        // &1 … &9, then &0: each entry has its own accelerator.
        QAction *action = menu->addAction(
            QStringLiteral("&%1  %2").arg((i + 1) % 10).arg(QFileInfo(path).fileName()), this,
            [this, path] { openRunFile(path); });
        action->setToolTip(path);
        action->setStatusTip(path);
    }
    if (runs.isEmpty())
        menu->addAction(tr("(none)"))->setEnabled(false);
    menu->addSeparator();
    QAction *clear
        = menu->addAction(tr("&Clear List"), this, [this] { m_windowState->clearRecentRuns(); });
    clear->setEnabled(!runs.isEmpty());
}

QString RunTabs::liveRunTitle(const QString &userId, const QString &chatId) const
{
    // "alice · demo · 14:05", and " (2)", " (3)" … while that is taken: every tab says whose
    // run it is and tells itself apart from the chat's other runs.
    const QString base
        = QStringLiteral("%1 · %2 · %3")
              .arg(userId, chatId,
                  QLocale::c().toString(QTime::currentTime(), QStringLiteral("HH:mm")));
    QStringList taken;
    for (int i = 0; i < m_pages->count(); ++i)
        taken << m_pages->tabText(i);
    return uniqueTitle(base, taken);
}

QString RunTabs::uniqueTitle(const QString &base, const QStringList &taken)
{
    QString title = base;
    for (int n = 2; taken.contains(title); ++n)
        title = QStringLiteral("%1 (%2)").arg(base).arg(n);
    return title;
}

int RunTabs::addRunTab(RunPage *page, const QString &title, const QString &toolTip)
{
    const int tab = addClosableTab(page, title, toolTip, tr("Close this run"));
    m_windowState->restoreSplitters(page);
    return tab;
}

int RunTabs::addClosableTab(
    QWidget *page, const QString &title, const QString &toolTip, const QString &closeToolTip)
{
    const int tab = m_pages->addTab(page, RunDelegate::icon(QStringLiteral("run")), title);
    m_pages->setTabToolTip(tab, toolTip);
    auto *close = new QToolButton(m_pages);
    close->setAutoRaise(true);
    close->setIcon(m_pages->style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    close->setToolTip(closeToolTip);
    connect(close, &QToolButton::clicked, page, &QObject::deleteLater);
    m_pages->tabBar()->setTabButton(tab, QTabBar::RightSide, close);
    m_pages->setCurrentWidget(page);
    return tab;
}

// The chat the person is looking at: the run tab in front (its user acting), or the chat the
// Files tab is rooted at.
QString RunTabs::currentChatId() const
{
    if (auto *run = qobject_cast<RunPage *>(m_pages->currentWidget())) {
        if (const LiveRunRequest *request = run->liveRequest();
            request && request->identity.userId == m_session->identity().userId)
            return request->chatId;
        if (const SessionSource *session = run->sessionSource();
            session && session->identity.userId == m_session->identity().userId)
            return session->chatId;
        return {};
    }
    if (m_pages->currentWidget() == m_files) {
        const QString root = m_files->rootPath();
        const QString name = root.mid(root.lastIndexOf(QLatin1Char('/')) + 1);
        if (name.startsWith(QLatin1String("chat-")))
            return name.mid(5);
    }
    return {};
}

void RunTabs::showNewRunDialog()
{
    showNewRunDialogLike(nullptr);
}

bool RunTabs::canActOnRuns(const QString &what)
{
    if (m_session->isConnected() && !m_session->identity().userId.isEmpty())
        return true;
    m_messages->showMessage(
        tr("Connect and act as a sandbox user to %1.").arg(what), MessageBar::Level::Error);
    return false;
}

void RunTabs::showNewRunDialogLike(const LiveRunRequest *like)
{
    if (!canActOnRuns(tr("start a run")))
        return;
    const SessionScope scope {
        m_session->profileName(), m_session->serverUrl(), m_session->identity().userId};
    auto *dialog = new NewRunDialog(
        m_session->client(), m_session->identity(), scope, m_session->keys(), window());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (like) {
        dialog->useOptionsOf(*like);
    } else if (const QString chat = currentChatId(); !chat.isEmpty()) {
        dialog->selectChat(chat); // the chat in front, as the user it belongs to
    }
    connect(dialog, &QDialog::accepted, this,
        [this, dialog] { startLiveRun(dialog->request(), dialog->attachments()); });
    dialog->open();
}

RunPage *RunTabs::startLiveRun(const LiveRunRequest &request, const QStringList &attachments)
{
    RunPage *page = newLiveRunPage();
    page->addAttachments(attachments);
    QString why;
    if (!page->startLiveRun(m_session->client(), request, &why)) {
        delete page;
        m_messages->showMessage(tr("Cannot start the run: %1").arg(why), MessageBar::Level::Error);
        return nullptr;
    }
    connectRunPage(page);
    const bool demo = DemoModel::isDemoModel(request.options.model);
    const QString title = liveRunTitle(request.identity.userId, request.chatId);
    const QString tip = tr("Chat %1 as %2").arg(request.chatId, request.identity.userId);
    addRunTab(page, demo ? tr("%1 · demo model").arg(title) : title,
        demo ? tr("%1, with the demo model (scripted answers, not Claude)").arg(tip) : tip);
    return page;
}

RunPage *RunTabs::newLiveRunPage()
{
    auto *page = new RunPage(m_pages);
    // Attachments are uploaded as the acting user: read-only when acting as someone else.
    page->setFileAccess(m_session->identity().userId == m_session->ownUserId()
            ? FileOperations::Acting::AsSelf
            : FileOperations::Acting::AsOtherUser,
        m_session->profileName(), m_session->serverUrl());
    return page;
}

void RunTabs::setSessionList(SessionListModel *sessions)
{
    m_sessionList = sessions;
}

void RunTabs::reportSession(RunPage *page)
{
    using Knowledge = SessionListModel::Knowledge;
    SessionKnowledge known;
    if (page->isLive()) { // its own process: running until the controller saw it end
        known = {page->sessionId(),
            int(page->isRunActive() ? Knowledge::RunningHere : Knowledge::EndedHere)};
    } else if (const SessionSource *source = page->sessionSource()) {
        const TranscriptFollower *follower = page->sessionFollower();
        known = {source->sessionId,
            int(follower && follower->turnEnded() ? Knowledge::EndSeen : Knowledge::Unknown)};
    }
    if (known.sessionId.isEmpty())
        return;
    const SessionKnowledge before = m_sessionKnowledge.value(page);
    if (before.sessionId == known.sessionId && before.knowledge == known.knowledge)
        return;
    m_sessionKnowledge.insert(page, known);
    if (!before.sessionId.isEmpty() && before.sessionId != known.sessionId)
        tellSessionList(before.sessionId); // the page shows another session now (a fork)
    tellSessionList(known.sessionId);
}

void RunTabs::forgetSession(QObject *page)
{
    const QString sessionId = m_sessionKnowledge.take(page).sessionId;
    if (!sessionId.isEmpty())
        tellSessionList(sessionId);
}

// Several tabs may show one session: a process running here outweighs an end, a run here
// ending outweighs a followed end.
void RunTabs::tellSessionList(const QString &sessionId)
{
    using Knowledge = SessionListModel::Knowledge;
    const auto weight = [](int knowledge) {
        switch (Knowledge(knowledge)) {
        case Knowledge::RunningHere:
            return 3;
        case Knowledge::EndedHere:
            return 2;
        case Knowledge::EndSeen:
            return 1;
        case Knowledge::Unknown:
            break;
        }
        return 0;
    };
    int knowledge = int(Knowledge::Unknown);
    for (const SessionKnowledge &known : std::as_const(m_sessionKnowledge)) {
        if (known.sessionId == sessionId && weight(known.knowledge) > weight(knowledge))
            knowledge = known.knowledge;
    }
    if (m_sessionList
        && m_sessionList->knowledge(sessionId) != SessionListModel::Knowledge(knowledge))
        m_sessionList->setKnowledge(sessionId, SessionListModel::Knowledge(knowledge));
}

void RunTabs::connectRunPage(RunPage *page)
{
    // What the page knows of its session's process: when a turn starts or ends, and as
    // events arrive (a followed session's cost record, the session id of a new run).
    const auto report = [this, page] {
        reportSession(page);
    };
    connect(page, &RunPage::liveTurnStarted, this, report);
    connect(page, &RunPage::liveTurnFinished, this, report);
    connect(page->model(), &RunModel::summaryChanged, this, report);
    connect(page, &QObject::destroyed, this, &RunTabs::forgetSession);
    // A turn may have changed the acting user's files: the Files tab shows it.
    connect(page, &RunPage::liveTurnFinished, this, [this, page] {
        if (m_files && page->userId() == m_session->identity().userId)
            m_files->refreshAfterChange();
    });
    // Someone who started a run and went elsewhere learns when its turn is over.
    connect(page, &RunPage::liveTurnFinished, this, [this, page](bool ok) {
        const int tab = m_pages->indexOf(page);
        const QString title = tab >= 0 ? m_pages->tabText(tab) : QString();
        m_notifier->notifyIfUnfocused(
            ok ? tr("Run finished: %1").arg(title) : tr("Run failed: %1").arg(title),
            ok ? tr("The turn ended with a result.") : page->noticeText());
    });
    connect(page, &RunPage::newChatRequested, this,
        [this](const LiveRunRequest &like) { showNewRunDialogLike(&like); });
    connect(page, &RunPage::openFileRequested, this, &RunTabs::openFileRequested);
}

void RunTabs::showAttachRunDialog()
{
    if (!canActOnRuns(tr("attach to one of its runs")))
        return;
    auto *dialog = new AttachRunDialog(m_session->client(), m_session->identity(), window());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const RunHandle handle = dialog->selectedHandle();
        if (handle.runId.isEmpty())
            return;
        // Follow-ups need the agent environment; the one saved for New Run is used.
        const SessionScope scope {
            m_session->profileName(), m_session->serverUrl(), handle.identity.userId};
        QPointer<RunTabs> self(this);
        m_session->keys()->readKey(NewRunDialog::environmentKeyName(scope),
            [self, handle](const QString &text, KeyStorage, const QString &) {
                if (!self)
                    return;
                QHash<QString, QString> environment;
                QString why;
                if (!LiveRun::parseEnvironment(text, &environment, &why))
                    environment.clear();
                self->attachLiveRun(handle, environment);
            });
    });
    dialog->open();
}

RunPage *RunTabs::attachLiveRun(const RunHandle &handle, const QHash<QString, QString> &environment)
{
    LiveRunRequest request;
    request.identity = handle.identity;
    request.scope = {m_session->profileName(), m_session->serverUrl(), handle.identity.userId};
    request.chatId = handle.chatId;
    request.envFileName = handle.envFileName;
    request.environment = environment;
    RunPage *page = newLiveRunPage();
    QString why;
    if (!page->attachLiveRun(m_session->client(), request, handle, &why)) {
        delete page;
        m_messages->showMessage(
            tr("Cannot attach to the run: %1").arg(why), MessageBar::Level::Error);
        return nullptr;
    }
    connectRunPage(page);
    addRunTab(page, liveRunTitle(handle.identity.userId, handle.chatId),
        tr("Run %1 of chat %2 as %3 (attached; output from %4)")
            .arg(handle.runId, handle.chatId, handle.identity.userId, handle.teePath()));
    return page;
}

RunPage *RunTabs::sessionTab(const SessionSource &source) const
{
    for (int i = 0; i < m_pages->count(); ++i) {
        auto *page = qobject_cast<RunPage *>(m_pages->widget(i));
        const SessionSource *shown = page ? page->sessionSource() : nullptr;
        if (shown && shown->identity.userId == source.identity.userId
            && shown->transcriptPath == source.transcriptPath)
            return page;
    }
    return nullptr;
}

RunPage *RunTabs::openSession(const SessionSource &source, const QString &toolUseId, qint64 line)
{
    if (RunPage *shown = sessionTab(source)) { // one tab per session: it is followed already
        m_pages->setCurrentWidget(shown);
        shown->revealToolCall(toolUseId, line);
        return shown;
    }
    auto *page = new RunPage(m_pages);
    QString why;
    if (!page->openSession(m_session->client(), source, &why)) {
        delete page;
        m_messages->showMessage(
            tr("Cannot open session %1: %2").arg(source.sessionId, why), MessageBar::Level::Error);
        return nullptr;
    }
    connectRunPage(page);
    connect(page, &RunPage::continueSessionRequested, this, &RunTabs::showContinueSessionDialog);
    connect(page, &RunPage::openFolderRequested, this, &RunTabs::openFileRequested);
    const QString place = source.chatId.isEmpty() ? source.sessionId.left(8) : source.chatId;
    const QString who
        = source.identity.isServerAccount() ? tr("server account") : source.identity.userId;
    addRunTab(page, QStringLiteral("%1 · %2").arg(who, place),
        tr("Session %1 of %2, read from %3 as %2")
            .arg(source.sessionId, who, source.transcriptPath));
    // Another user's session, also while acting as that user (issue 27).
    if (source.identity.userId != m_session->ownUserId())
        m_session->audit(QStringLiteral("read-session"), source.transcriptPath,
            tr("as %1 (acting as %2)").arg(who, m_session->identity().userId));
    page->revealToolCall(toolUseId, line);
    return page;
}

void RunTabs::showContinueSessionDialog(const SessionSource &source, bool fork)
{
    if (source.chatId.isEmpty()) {
        m_messages->showMessage(tr("Session %1 is not in a chat folder (its working directory "
                                   "is %2): only chat sessions are resumed here.")
                                    .arg(source.sessionId, source.cwd),
            MessageBar::Level::Error);
        return;
    }
    if (!canActOnRuns(fork ? tr("fork a session") : tr("resume a session")))
        return;
    const SessionScope scope {
        m_session->profileName(), m_session->serverUrl(), source.identity.userId};
    auto *dialog = new NewRunDialog(
        m_session->client(), source.identity, scope, m_session->keys(), window());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->continueSession(source.chatId, source.sessionId, fork);
    connect(dialog, &QDialog::accepted, this,
        [this, dialog] { startLiveRun(dialog->request(), dialog->attachments()); });
    dialog->open();
}

void RunTabs::openRemoteRun(const QString &remotePath)
{
    if (!m_session->isConnected())
        return;
    const Identity identity = m_session->identity();
    m_messages->showMessage(
        tr("Downloading %1 to show it as a run…").arg(remotePath), MessageBar::Level::Information);
    // Read in the user's shell, not through the file API (root): a link out of the home is
    // refused and the kernel checks the user's own permissions.
    pathguard::readAsUser(m_session->client(), identity, remotePath, this,
        [this, identity, remotePath](const Result<pathguard::ReadOutcome> &result) {
            if (!result.ok() || result.value.refused) {
                const QString why = result.ok() ? result.value.resolution.refusal(
                                        result.value.resolution.paths.at(0), identity.userId)
                                                : result.error.toString();
                m_messages->showMessage(tr("Cannot open %1 as a run: %2").arg(remotePath, why),
                    MessageBar::Level::Error);
                return;
            }
            // A local copy: the run view reads files in the background, like recordings.
            const QString directory
                = QStandardPaths::writableLocation(QStandardPaths::CacheLocation)
                + QStringLiteral("/remote-runs/")
                + (identity.userId.isEmpty() ? QStringLiteral("server") : identity.userId);
            QDir().mkpath(directory);
            QSaveFile file(directory + QLatin1Char('/') + QFileInfo(remotePath).fileName());
            if (!file.open(QIODevice::WriteOnly) || file.write(result.value.bytes) < 0
                || !file.commit()) {
                m_messages->showMessage(
                    tr("Cannot keep a local copy of %1: %2").arg(remotePath, file.errorString()),
                    MessageBar::Level::Error);
                return;
            }
            m_messages->dismiss();
            if (RunPage *page = openRunFile(file.fileName())) {
                m_pages->setTabToolTip(m_pages->indexOf(page),
                    tr("%1 of %2 (local copy: %3)")
                        .arg(remotePath, identity.userId, file.fileName()));
            }
        });
}

} // namespace sandscope
