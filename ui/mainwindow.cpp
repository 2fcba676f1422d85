#include "mainwindow.h"

#include "adminoverviewpage.h"
#include "backgroundtask.h"
#include "cleanuppage.h"
#include "compare/comparejob.h"
#include "compare/comparepage.h"
#include "compare/comparerunsdialog.h"
#include "connectiondialog.h"
#include "consolepage.h"
#include "desktopnotifier.h"
#include "export/exportjob.h"
#include "export/exportrundialog.h"
#include "files/filespage.h"
#include "identitybar.h"
#include "isolation/probepage.h"
#include "messagebar.h"
#include "recordings/runrecording.h"
#include "runs/attachrundialog.h"
#include "runs/loadedrun.h"
#include "runs/newrundialog.h"
#include "runs/rundelegate.h"
#include "runs/runpage.h"
#include "runs/sessionspage.h"
#include "server/openterminalclient.h"
#include "switchuserdialog.h"
#include "terminal/terminalpage.h"
#include "usage/usagepage.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFrame>
#include <QKeySequence>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QProgressBar>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QTabBar>
#include <QTabWidget>
#include <QTime>
#include <QToolButton>
#include <QUrl>
#include <QUuid>
#include <QVBoxLayout>

#include <algorithm>
#include <atomic>
#include <memory>

// The resources live in the static sandscope_gui library, whose initialiser the linker would
// drop; Q_INIT_RESOURCE must be used outside any namespace.
static void initGuiResources()
{
    Q_INIT_RESOURCE(resources);
}

namespace sandscope {

namespace {

QString serverDisplay(const QUrl &url)
{
    return url.toString(QUrl::RemoveUserInfo | QUrl::StripTrailingSlash);
}

} // namespace

MainWindow::MainWindow(const QString &settingsPath, QWidget *parent)
    : QMainWindow(parent)
    , m_profiles(settingsPath)
    , m_windowState(settingsPath)
    , m_client(new OpenTerminalClient(ServerConnection {}, this))
    , m_identityBar(new IdentityBar(this))
    , m_messageBar(new MessageBar(this))
    , m_pages(new QTabWidget(this))
    , m_console(new ConsolePage(this))
    , m_terminal(new TerminalPage(this))
{
    m_notifier = new DesktopNotifier(this);
    initGuiResources();
    setObjectName(QStringLiteral("mainWindow"));
    setWindowIcon(QIcon(QStringLiteral(":/sandscope/icons/sandscope.svg")));

    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_identityBar);
    auto *messageHolder = new QVBoxLayout;
    messageHolder->setContentsMargins(8, 6, 8, 0);
    messageHolder->addWidget(m_messageBar);
    layout->addLayout(messageHolder);
    layout->addWidget(m_pages, 1);
    setCentralWidget(central);

    m_pages->setObjectName(QStringLiteral("pages"));
    m_pages->setDocumentMode(true);
    m_pages->addTab(m_console,
        QIcon::fromTheme(
            QStringLiteral("utilities-terminal"), style()->standardIcon(QStyle::SP_ComputerIcon)),
        tr("Console"));
    m_pages->addTab(m_terminal,
        QIcon::fromTheme(
            QStringLiteral("utilities-terminal"), style()->standardIcon(QStyle::SP_ComputerIcon)),
        tr("Terminal"));
    m_terminal->setAuditLog(&m_auditLog, QString());
    connect(m_terminal, &TerminalPage::consoleRequested, this,
        [this] { m_pages->setCurrentWidget(m_console); });

    connect(
        m_identityBar, &IdentityBar::switchUserRequested, this, &MainWindow::showSwitchUserDialog);
    addFilePages();
    // A command may have changed files: the Files tab lists what it shows again.
    connect(m_console, &ConsolePage::runningChanged, this, [this](bool running) {
        if (!running && m_files)
            m_files->refreshAfterChange();
    });
    m_cleanup = new CleanupPage(this);
    m_pages->addTab(m_cleanup,
        QIcon::fromTheme(QStringLiteral("edit-clear"), style()->standardIcon(QStyle::SP_TrashIcon)),
        tr("Cleanup"));

    createMenus();
    createStatusBar();
    updateStatusBar();
    updateTitle();
    m_messageBar->showMessage(tr("Not connected. Choose File › Connect… to pick a server."),
        MessageBar::Level::Information);
    resize(1100, 700);
    setAcceptDrops(true);
    m_windowState.restoreGeometry(this);
    for (QWidget *page : {static_cast<QWidget *>(m_files), static_cast<QWidget *>(m_isolation),
             static_cast<QWidget *>(m_admin), static_cast<QWidget *>(m_cleanup),
             static_cast<QWidget *>(m_sessions), static_cast<QWidget *>(m_usage)})
        m_windowState.restoreSplitters(page);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    m_terminal->closeAll(); // ends the shells on the server (and audits it)
    m_windowState.saveGeometry(this);
    for (QWidget *page : {static_cast<QWidget *>(m_files), static_cast<QWidget *>(m_isolation),
             static_cast<QWidget *>(m_admin), static_cast<QWidget *>(m_cleanup),
             static_cast<QWidget *>(m_sessions), static_cast<QWidget *>(m_usage)})
        m_windowState.saveSplitters(page);
    // Run pages share one layout: the one in front (or any) is what the user arranged last.
    auto *run = qobject_cast<RunPage *>(m_pages->currentWidget());
    if (!run)
        run = m_pages->findChild<RunPage *>();
    m_windowState.saveSplitters(run);
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && std::all_of(urls.cbegin(), urls.cend(), [](const QUrl &url) {
            return url.isLocalFile();
        }))
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    QStringList paths;
    const QList<QUrl> urls = event->mimeData()->urls();
    for (const QUrl &url : urls) {
        if (url.isLocalFile())
            paths << url.toLocalFile();
    }
    if (openRunFiles(paths) > 0 || !paths.isEmpty())
        event->acceptProposedAction();
}

MainWindow::~MainWindow()
{
    // The pages' streams, scans and runs use the client: they go first (the client is an
    // older child and would otherwise be destroyed before them).
    delete m_pages;
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *connectAction = file->addAction(tr("&Connect…"), this, &MainWindow::showConnectDialog);
    connectAction->setShortcut(QKeySequence(tr("Ctrl+O")));
    QAction *switchAction
        = file->addAction(tr("S&witch User…"), this, &MainWindow::showSwitchUserDialog);
    switchAction->setShortcut(QKeySequence(tr("Ctrl+K")));
    QAction *newRun = file->addAction(tr("&New Run…"), this, &MainWindow::showNewRunDialog);
    newRun->setShortcut(QKeySequence(tr("Ctrl+N")));
    QAction *attachRun
        = file->addAction(tr("&Attach to Run…"), this, &MainWindow::showAttachRunDialog);
    attachRun->setShortcut(QKeySequence(tr("Ctrl+Shift+A")));
    file->addAction(tr("Open &Run Recording…"), this, &MainWindow::showOpenRunDialog);
    QAction *compare = file->addAction(tr("Com&pare Runs…"), this, &MainWindow::showCompareDialog);
    compare->setShortcut(QKeySequence(tr("Ctrl+Shift+D")));
    QMenu *recent = file->addMenu(tr("Open Rec&ent"));
    m_exportAction = file->addAction(tr("E&xport Run…"), this, &MainWindow::showExportDialog);
    m_exportAction->setShortcut(QKeySequence(tr("Ctrl+Shift+E")));
    m_exportAction->setEnabled(false);
    // Only a run tab has something to export.
    connect(m_pages, &QTabWidget::currentChanged, m_exportAction,
        [this] { m_exportAction->setEnabled(qobject_cast<RunPage *>(m_pages->currentWidget())); });
    recent->setObjectName(QStringLiteral("recentRunsMenu"));
    connect(recent, &QMenu::aboutToShow, this, [this, recent] { fillRecentMenu(recent); });
    fillRecentMenu(recent);
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    QAction *console
        = view->addAction(tr("&Console"), this, [this] { m_pages->setCurrentWidget(m_console); });
    console->setShortcut(QKeySequence(tr("Ctrl+1")));
    view->addAction(tr("C&lear Console Output"), m_console, &ConsolePage::clearOutput);
    QAction *terminal = view->addAction(tr("&Terminal"), this, [this] {
        m_pages->setCurrentWidget(m_terminal);
        if (m_terminal->terminalCount() == 0)
            m_terminal->openTerminal();
    });
    terminal->setShortcut(QKeySequence(tr("Ctrl+Shift+T")));
    view->addSeparator();
    QAction *statusBarAction = view->addAction(tr("&Status Bar"));
    statusBarAction->setCheckable(true);
    statusBarAction->setChecked(true);
    connect(statusBarAction, &QAction::toggled, statusBar(), &QStatusBar::setVisible);

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Sandscope"), this, &MainWindow::showAbout);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::createStatusBar()
{
    m_busyIndicator = new QProgressBar(this);
    m_busyIndicator->setObjectName(QStringLiteral("busyIndicator"));
    m_busyIndicator->setRange(0, 0);
    m_busyIndicator->setTextVisible(false);
    m_busyIndicator->setMaximumSize(90, 12);
    m_busyLabel = new QLabel(this);
    m_busyLabel->setObjectName(QStringLiteral("busyLabel"));
    statusBar()->addWidget(m_busyIndicator);
    statusBar()->addWidget(m_busyLabel, 1);
    setBusy(false);

    m_serverLabel = new QLabel(this);
    m_serverLabel->setObjectName(QStringLiteral("serverLabel"));
    m_versionLabel = new QLabel(this);
    m_versionLabel->setObjectName(QStringLiteral("versionLabel"));
    m_featuresLabel = new QLabel(this);
    m_featuresLabel->setObjectName(QStringLiteral("featuresLabel"));
    m_modeLabel = new QLabel(this);
    m_modeLabel->setObjectName(QStringLiteral("modeLabel"));
    bool first = true;
    for (QLabel *label : {m_serverLabel, m_versionLabel, m_featuresLabel, m_modeLabel}) {
        if (!first) {
            auto *separator = new QFrame(this);
            separator->setFrameShape(QFrame::VLine);
            separator->setFrameShadow(QFrame::Sunken);
            statusBar()->addPermanentWidget(separator);
            m_statusSeparators.append(separator);
        }
        first = false;
        label->setContentsMargins(4, 0, 4, 0);
        statusBar()->addPermanentWidget(label);
    }
}

bool MainWindow::openLastProfile()
{
    const QString last = m_profiles.lastUsed();
    if (last.isEmpty() || !m_profiles.contains(last))
        return false;
    openProfile(m_profiles.profile(last));
    m_messageBar->showMessage(
        tr("Opened the profile used last, %1. File › Connect… chooses another.").arg(last),
        MessageBar::Level::Information);
    return true;
}

void MainWindow::openProfile(const Profile &profile, const QString &apiKey)
{
    if (!profile.name.isEmpty() && m_profiles.contains(profile.name))
        m_profiles.setLastUsed(profile.name);
    QString why;
    if (!ConnectionDialog::validateServerUrl(profile.serverUrl.toString(), &why)) {
        m_messageBar->showMessage(tr("Cannot connect: %1").arg(why), MessageBar::Level::Error);
        return;
    }
    if (!profile.defaultUserId.isEmpty() && !validateUserId(profile.defaultUserId, &why)) {
        m_messageBar->showMessage(tr("Cannot act as \"%1\": %2").arg(profile.defaultUserId, why),
            MessageBar::Level::Error);
        return;
    }
    ServerConnection connection;
    connection.baseUrl = profile.serverUrl;
    connection.timeoutMs = profile.timeoutMs;
    if (!apiKey.isEmpty() || profile.name.isEmpty()) {
        connection.apiKey = apiKey;
        connectToServer(connection, profile.defaultUserId, profile.name);
        return;
    }
    setBusy(true, tr("Reading the stored API key…"));
    QPointer<MainWindow> self(this);
    m_keys.readKey(profile.name,
        [self, profile, connection](const QString &key, KeyStorage, const QString &error) mutable {
            if (!self)
                return;
            self->setBusy(false);
            if (key.isEmpty() && !error.isEmpty())
                self->m_messageBar->showMessage(
                    tr("The stored API key could not be read: %1").arg(error),
                    MessageBar::Level::Warning);
            connection.apiKey = key;
            self->connectToServer(connection, profile.defaultUserId, profile.name);
        });
}

void MainWindow::connectToServer(
    const ServerConnection &connection, const QString &userId, const QString &profileName)
{
    m_console->detachRunning(tr("the connection changed; the command keeps running"));
    m_client->setConnection(connection);
    m_profileName = profileName;
    m_connected = false;
    m_report = ServerReport {};
    m_report.url = serverDisplay(connection.baseUrl);
    m_knownMode.clear();
    m_knownModeEvidence.clear();
    m_serverAccountRefused = false;
    m_accountRuleKnown = false;
    m_console->setClient(nullptr);
    m_terminal->closeAll(); // its terminals belong to the previous server
    m_terminal->setConnection(nullptr, {}, {});
    m_terminal->setAuditLog(&m_auditLog, profileName);
    m_cleanup->setClient(nullptr);
    AdminAccess admin;
    const QString adminCommand
        = profileName.isEmpty() ? QString() : m_profiles.profile(profileName).adminCommand;
    if (adminCommand.trimmed().isEmpty() || !AdminAccess::fromCommand(adminCommand, &admin))
        admin = AdminAccess::serverAccount();
    setAdminAccess(admin);
    m_ownUserId = userId;
    m_console->setApiKey(connection.apiKey);
    m_console->setAuditLog(&m_auditLog, profileName);
    m_identityBar->setProfileName(profileName);
    m_identityBar->setNote({});
    m_identityBar->setConnected(false);
    m_messageBar->dismiss();
    setIdentity(userId);
    updateStatusBar();
    checkServer();
}

void MainWindow::switchUser(const QString &userId)
{
    if (userId == m_identity.userId)
        return;
    QString why;
    if (!userId.isEmpty() && !validateUserId(userId, &why)) {
        m_messageBar->showMessage(
            tr("Cannot act as \"%1\": %2").arg(userId, why), MessageBar::Level::Error);
        return;
    }
    setIdentity(userId);
    if (m_connected)
        checkServer();
}

void MainWindow::setIdentity(const QString &userId)
{
    // A fresh session per identity: X-Session-Id must never carry over between users.
    m_identity = Identity {userId, QUuid::createUuid().toString(QUuid::WithoutBraces)};
    // What was said was about the previous user; the identity bar says who acts now.
    m_messageBar->dismiss();
    m_console->setIdentity(m_identity);
    m_terminal->setConnection(m_connected ? m_client : nullptr, m_identity, {});
    syncFilePages(m_connected);
    m_cleanup->requireFreshDryRun(tr("the acting user changed"));
    m_identityBar->setIdentity(userId);
    audit(QStringLiteral("switch-user"),
        userId.isEmpty() ? QStringLiteral("(server account)") : userId, QStringLiteral("ok"));
    updateTitle();
}

void MainWindow::checkServer()
{
    if (m_serverCheck) {
        m_serverCheck->disconnect(this);
        m_serverCheck->deleteLater();
    }
    m_serverCheck = new ServerCheck(m_client, this);
    connect(m_serverCheck, &ServerCheck::progress, this,
        [this](const QString &step) { setBusy(true, step); });
    connect(m_serverCheck, &ServerCheck::finished, this, &MainWindow::applyReport);
    connect(m_serverCheck, &ServerCheck::failed, this, &MainWindow::serverCheckFailed);
    setBusy(true, tr("Connecting to %1…").arg(m_report.url));
    m_serverCheck->run(m_identity.userId);
}

void MainWindow::applyReport(const ServerReport &report)
{
    if (m_serverCheck) {
        m_serverCheck->deleteLater();
        m_serverCheck = nullptr;
    }
    setBusy(false);
    m_report = report;
    m_connected = true;
    m_console->setClient(m_client);
    m_cleanup->setClient(m_client);
    m_cleanup->setAuditContext(m_profileName, m_report.url);
    syncFilePages(true);

    const QString account
        = m_identity.isServerAccount() ? report.serverAccount : report.observedAccount;
    m_identityBar->setIdentity(m_identity.userId, account);
    m_identityBar->setAccountUnknown(account.isEmpty());
    if (report.serverAccountRefused)
        m_serverAccountRefused = true; // a fact about this server, whoever is acted as now
    m_identityBar->setServerAccountRefused(m_serverAccountRefused);
    if (report.ruleKnown) {
        m_accountRuleKnown = true;
        m_accountRule = report.rule;
    }
    m_identityBar->setConnected(true);
    m_terminal->setConnection(m_client, m_identity, account);
    m_identityBar->setNote(!m_identity.isServerAccount() && !report.multiUser
            ? tr("single-user server: the user id changes nothing")
            : QString());
    if (!report.keyAccepted)
        m_messageBar->showMessage(tr("The server did not accept the API key; commands and files "
                                     "will be refused."),
            MessageBar::Level::Warning);
    updateStatusBar();
    updateTitle();
    Q_EMIT serverChecked(true);
}

void MainWindow::serverCheckFailed(const ApiError &error)
{
    if (m_serverCheck) {
        m_serverCheck->deleteLater();
        m_serverCheck = nullptr;
    }
    setBusy(false);
    if (m_connected) {
        // The server still answers; only learning about this user failed.
        m_identityBar->setAccount({});
        m_identityBar->setAccountUnknown(true);
        m_messageBar->showMessage(
            tr("Could not check the account of %1: %2")
                .arg(m_identity.isServerAccount() ? tr("the server account") : m_identity.userId,
                    error.toString()),
            MessageBar::Level::Error);
    } else {
        m_identityBar->setConnected(false);
        m_messageBar->showMessage(
            tr("Could not connect to %1: %2").arg(m_report.url, error.toString()),
            MessageBar::Level::Error);
    }
    updateStatusBar();
    Q_EMIT serverChecked(false);
}

void MainWindow::setBusy(bool busy, const QString &step)
{
    m_busyIndicator->setVisible(busy);
    m_busyLabel->setText(busy ? step : QString());
}

QString MainWindow::serverStatusText() const
{
    QStringList parts;
    for (const QLabel *label : {m_serverLabel, m_versionLabel, m_featuresLabel, m_modeLabel}) {
        if (!label->text().isEmpty())
            parts << label->text();
    }
    return parts.join(QStringLiteral(" · "));
}

void MainWindow::updateStatusBar()
{
    updateStatusLabels();
    const QLabel *const separated[] = {m_versionLabel, m_featuresLabel, m_modeLabel};
    for (int i = 0; i < m_statusSeparators.size(); ++i)
        m_statusSeparators.at(i)->setVisible(!separated[i]->text().isEmpty());
}

void MainWindow::updateStatusLabels()
{
    if (m_report.url.isEmpty()) {
        m_serverLabel->setText(tr("not connected"));
        m_versionLabel->clear();
        m_featuresLabel->clear();
        m_modeLabel->clear();
        return;
    }
    m_serverLabel->setText(tr("server %1").arg(m_report.url));
    if (!m_connected) {
        m_versionLabel->setText(isCheckingServer() ? tr("connecting…") : tr("not connected"));
        m_featuresLabel->clear();
        m_modeLabel->clear();
        return;
    }
    const ServerInfo &info = m_report.info;
    m_versionLabel->setText(
        tr("open-terminal %1")
            .arg(info.version.isEmpty() ? tr("(unknown version)") : info.version));
    QStringList features;
    if (info.features.terminal)
        features << tr("terminal");
    if (info.features.notebooks)
        features << tr("notebooks");
    if (info.features.system)
        features << tr("system");
    m_featuresLabel->setText(features.isEmpty()
            ? tr("no optional features")
            : tr("features: %1").arg(features.join(QStringLiteral(", "))));
    if (!m_report.userId.isEmpty()) {
        m_knownMode = m_report.multiUser ? tr("multi-user") : tr("single-user");
        m_knownModeEvidence = m_report.multiUserEvidence;
    } else if (m_serverAccountRefused) {
        m_knownMode = tr("multi-user");
        m_knownModeEvidence = tr("The server refuses requests without a user id, which only "
                                 "multi-user servers do.");
    }
    if (m_knownMode.isEmpty()) {
        m_modeLabel->setText(tr("mode not determined"));
        m_modeLabel->setToolTip(tr("The mode is found by comparing a user's account with the "
                                   "server's; switch to a user to find out."));
    } else {
        m_modeLabel->setText(m_knownMode);
        m_modeLabel->setToolTip(m_knownModeEvidence);
    }
}

void MainWindow::updateTitle()
{
    QString title = QStringLiteral("Sandscope");
    if (!m_report.url.isEmpty()) {
        const QString who = m_identity.isServerAccount() ? tr("server account") : m_identity.userId;
        title = tr("%1 — %2 — Sandscope")
                    .arg(who, m_profileName.isEmpty() ? m_report.url : m_profileName);
    }
    setWindowTitle(title);
}

void MainWindow::setAdminAccess(const AdminAccess &admin)
{
    m_adminAccess = admin;
    m_cleanup->setAdminAccess(admin);
    if (m_admin)
        m_admin->setAdminAccess(admin);
    if (m_sessions)
        m_sessions->setAdminAccess(admin, m_report.prefix);
    if (m_usage)
        m_usage->setAdminAccess(admin, m_report.prefix);
}

void MainWindow::showConnectDialog()
{
    auto *dialog = new ConnectionDialog(&m_profiles, &m_keys, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (!m_profileName.isEmpty())
        dialog->selectProfile(m_profileName);
    else if (!m_client->connection().baseUrl.isEmpty())
        dialog->prefill(m_client->connection().baseUrl, m_identity.userId);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const Profile profile = dialog->profile();
        const QString key = dialog->enteredApiKey();
        const QString storage = ConnectionDialog::describeKeyStorage(
            dialog->keyStorage(), m_keys.fallbackDir(), dialog->keyStorageError());
        openProfile(profile, key);
        if (!key.isEmpty() && dialog->keyStorage() != KeyStorage::Keyring)
            m_messageBar->showMessage(storage, MessageBar::Level::Warning);
    });
    dialog->open();
}

void MainWindow::showSwitchUserDialog()
{
    if (!m_connected && m_report.url.isEmpty()) {
        m_messageBar->showMessage(
            tr("Connect to a server before choosing a user."), MessageBar::Level::Information);
        return;
    }
    auto *dialog = new SwitchUserDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setAccountPrefix(m_report.prefix);
    if (m_accountRuleKnown)
        dialog->setAccountRule(m_accountRule);
    dialog->setUserId(m_identity.userId);
    connect(dialog, &QDialog::accepted, this, [this, dialog] { switchUser(dialog->userId()); });
    dialog->open();
}

void MainWindow::showOpenRunDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Run Recording"),
        RunRecorder::defaultDirectory(),
        tr("Run recordings and stream-json captures (*.jsonl *.ndjson *.json);;All files (*)"));
    if (!path.isEmpty())
        openRunFile(path);
}

void MainWindow::showCompareDialog()
{
    QVector<CompareRunsDialog::OpenRun> runs;
    for (int i = 0; i < m_pages->count(); ++i) {
        if (auto *page = qobject_cast<RunPage *>(m_pages->widget(i)))
            runs.append({m_pages->tabText(i), page});
    }
    CompareRunsDialog dialog(runs, this);
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
        this,
        files.isEmpty()
            ? tr("Aligning the runs…")
            : tr("Reading %1 and aligning the runs…").arg(QLocale().createSeparatedList(files)),
        QStringLiteral("compareProgress"),
        [job, compared](const std::atomic_bool &cancelled) { *compared = job->run(&cancelled); },
        [this, job, compared](bool cancelled) {
            if (cancelled) {
                m_messageBar->showMessage(
                    tr("Comparison cancelled."), MessageBar::Level::Information);
            } else if (!*compared) {
                m_messageBar->showMessage(
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

RunPage *MainWindow::openRunFile(const QString &path)
{
    QString why;
    RunPage *page = openRunFileReporting(path, &why);
    if (!page)
        m_messageBar->showMessage(tr("Cannot open the run: %1").arg(why), MessageBar::Level::Error);
    return page;
}

RunPage *MainWindow::openRunFileReporting(const QString &path, QString *why)
{
    auto *page = new RunPage(m_pages);
    if (!page->openFile(path, why)) {
        delete page;
        return nullptr;
    }
    connectRunPage(page);
    addRunTab(page, QFileInfo(path).fileName(), path);
    m_windowState.addRecentRun(path);
    return page;
}

int MainWindow::openRunFiles(const QStringList &paths)
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
        m_messageBar->showMessage(
            tr("Cannot open the run: %1").arg(failures.constFirst()), MessageBar::Level::Error);
    else if (!failures.isEmpty())
        m_messageBar->showMessage(tr("Cannot open %1 of %2 files: %3")
                                      .arg(failures.size())
                                      .arg(paths.size())
                                      .arg(failures.join(QStringLiteral("; "))),
            MessageBar::Level::Error);
    return opened;
}

void MainWindow::showExportDialog()
{
    auto *page = qobject_cast<RunPage *>(m_pages->currentWidget());
    if (!page)
        return;
    QString baseName = m_pages->tabText(m_pages->currentIndex());
    baseName = QFileInfo(baseName).completeBaseName();
    baseName.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]+")), QStringLiteral("-"));
    QString directory = m_windowState.exportDirectory();
    if (directory.isEmpty() || !QDir(directory).exists())
        directory = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    if (!QDir(directory).exists()) // a fresh account may have no Documents folder yet
        directory = QDir::homePath();
    auto *dialog = new ExportRunDialog(
        directory, baseName.isEmpty() ? QStringLiteral("run") : baseName, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog, page = QPointer<RunPage>(page)] {
        if (page)
            startExport(page, dialog->path(), dialog->format(), dialog->redact());
    });
    dialog->open();
}

// The tree is copied here (it lives on this thread); redacting, rendering and writing, the
// slow part, run on a worker thread behind a progress dialog. Cancel writes nothing.
void MainWindow::startExport(
    const RunPage *page, const QString &path, RunExporter::Format format, bool redact)
{
    std::shared_ptr<ExportJob> job = exportJob(page, redact);
    auto written = std::make_shared<bool>(false);
    // A copy of another user's session leaves the server: recorded as the command line does.
    QString exported;
    if (const SessionSource *session = page->sessionSource();
        session && session->identity.userId != m_ownUserId)
        exported = QStringLiteral("%1 -> %2 (%3, %4)")
                       .arg(session->sessionId, QFileInfo(path).absoluteFilePath(),
                           RunExporter::suffix(format),
                           redact ? QStringLiteral("redacted") : QStringLiteral("not redacted"));
    BackgroundTask::start(
        this, tr("Exporting the run to %1…").arg(QFileInfo(path).fileName()),
        QStringLiteral("exportProgress"),
        [job, written, path, format](
            const std::atomic_bool &cancelled) { *written = job->write(path, format, &cancelled); },
        [this, job, written, path, redact, exported](bool cancelled) {
            if (*written) {
                if (!exported.isEmpty())
                    audit(QStringLiteral("export-session"), exported, QStringLiteral("ok"));
                m_windowState.setExportDirectory(QFileInfo(path).absolutePath());
                m_messageBar->showMessage(tr("Exported the run to %1%2.")
                                              .arg(QDir::toNativeSeparators(path),
                                                  redact ? tr(" (secrets redacted)") : QString()),
                    MessageBar::Level::Information);
            } else if (cancelled) {
                m_messageBar->showMessage(
                    tr("Export cancelled: nothing was written."), MessageBar::Level::Information);
            } else {
                m_messageBar->showMessage(
                    tr("The run was not exported: %1. It is still shown here.").arg(job->why()),
                    MessageBar::Level::Error);
            }
            Q_EMIT exportFinished(*written);
        });
}

std::shared_ptr<ExportJob> MainWindow::exportJob(const RunPage *page, bool redact) const
{
    const QString source = page->filePath().isEmpty()
        ? (page->sessionSource() ? page->sessionSource()->identity.userId + QLatin1Char('/')
                    + page->sessionSource()->sessionId
                                 : page->recordingPath())
        : page->filePath();
    const bool local = !page->filePath().isEmpty() || !page->sessionSource();
    return std::make_shared<ExportJob>(*page->model(),
        local ? RunExporter::sourceOfFile(source) : source, page->skippedLines(), redact,
        QStringList {m_client->connection().apiKey});
}

bool MainWindow::exportRun(const RunPage *page, const QString &path, RunExporter::Format format,
    bool redact, QString *why) const
{
    const std::shared_ptr<ExportJob> job = exportJob(page, redact);
    const bool written = job->write(path, format);
    if (why)
        *why = job->why();
    return written;
}

void MainWindow::fillRecentMenu(QMenu *menu)
{
    menu->clear();
    const QStringList runs = m_windowState.recentRuns();
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
        = menu->addAction(tr("&Clear List"), this, [this] { m_windowState.clearRecentRuns(); });
    clear->setEnabled(!runs.isEmpty());
}

QString MainWindow::liveRunTitle(const QString &userId, const QString &chatId) const
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

QString MainWindow::uniqueTitle(const QString &base, const QStringList &taken)
{
    QString title = base;
    for (int n = 2; taken.contains(title); ++n)
        title = QStringLiteral("%1 (%2)").arg(base).arg(n);
    return title;
}

int MainWindow::addRunTab(RunPage *page, const QString &title, const QString &toolTip)
{
    const int tab = addClosableTab(page, title, toolTip, tr("Close this run"));
    m_windowState.restoreSplitters(page);
    return tab;
}

int MainWindow::addClosableTab(
    QWidget *page, const QString &title, const QString &toolTip, const QString &closeToolTip)
{
    const int tab = m_pages->addTab(page, RunDelegate::icon(QStringLiteral("run")), title);
    m_pages->setTabToolTip(tab, toolTip);
    auto *close = new QToolButton(m_pages);
    close->setAutoRaise(true);
    close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    close->setToolTip(closeToolTip);
    connect(close, &QToolButton::clicked, page, &QObject::deleteLater);
    m_pages->tabBar()->setTabButton(tab, QTabBar::RightSide, close);
    m_pages->setCurrentWidget(page);
    return tab;
}

// The chat the person is looking at: the run tab in front (its user acting), or the chat the
// Files tab is rooted at.
QString MainWindow::currentChatId() const
{
    if (auto *run = qobject_cast<RunPage *>(m_pages->currentWidget())) {
        if (const LiveRunRequest *request = run->liveRequest();
            request && request->identity.userId == m_identity.userId)
            return request->chatId;
        if (const SessionSource *session = run->sessionSource();
            session && session->identity.userId == m_identity.userId)
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

void MainWindow::showNewRunDialog()
{
    showNewRunDialogLike(nullptr);
}

bool MainWindow::canActOnRuns(const QString &what)
{
    if (m_connected && !m_identity.userId.isEmpty())
        return true;
    m_messageBar->showMessage(
        tr("Connect and act as a sandbox user to %1.").arg(what), MessageBar::Level::Error);
    return false;
}

void MainWindow::showNewRunDialogLike(const LiveRunRequest *like)
{
    if (!canActOnRuns(tr("start a run")))
        return;
    const SessionScope scope {m_profileName, m_report.url, m_identity.userId};
    auto *dialog = new NewRunDialog(m_client, m_identity, scope, &m_keys, this);
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

RunPage *MainWindow::startLiveRun(const LiveRunRequest &request, const QStringList &attachments)
{
    RunPage *page = newLiveRunPage();
    page->addAttachments(attachments);
    QString why;
    if (!page->startLiveRun(m_client, request, &why)) {
        delete page;
        m_messageBar->showMessage(
            tr("Cannot start the run: %1").arg(why), MessageBar::Level::Error);
        return nullptr;
    }
    connectRunPage(page);
    addRunTab(page, liveRunTitle(request.identity.userId, request.chatId),
        tr("Chat %1 as %2").arg(request.chatId, request.identity.userId));
    return page;
}

RunPage *MainWindow::newLiveRunPage()
{
    auto *page = new RunPage(m_pages);
    // Attachments are uploaded as the acting user: read-only when acting as someone else.
    page->setFileAccess(m_identity.userId == m_ownUserId ? FileOperations::Acting::AsSelf
                                                         : FileOperations::Acting::AsOtherUser,
        m_profileName, m_report.url);
    return page;
}

void MainWindow::connectRunPage(RunPage *page)
{
    // A turn may have changed the acting user's files: the Files tab shows it.
    connect(page, &RunPage::liveTurnFinished, this, [this, page] {
        if (m_files && page->userId() == m_identity.userId)
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
    connect(page, &RunPage::openFileRequested, this, &MainWindow::showRemoteFile);
}

void MainWindow::showAttachRunDialog()
{
    if (!canActOnRuns(tr("attach to one of its runs")))
        return;
    auto *dialog = new AttachRunDialog(m_client, m_identity, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const RunHandle handle = dialog->selectedHandle();
        if (handle.runId.isEmpty())
            return;
        // Follow-ups need the agent environment; the one saved for New Run is used.
        const SessionScope scope {m_profileName, m_report.url, handle.identity.userId};
        QPointer<MainWindow> self(this);
        m_keys.readKey(NewRunDialog::environmentKeyName(scope),
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

RunPage *MainWindow::attachLiveRun(
    const RunHandle &handle, const QHash<QString, QString> &environment)
{
    LiveRunRequest request;
    request.identity = handle.identity;
    request.scope = {m_profileName, m_report.url, handle.identity.userId};
    request.chatId = handle.chatId;
    request.envFileName = handle.envFileName;
    request.environment = environment;
    RunPage *page = newLiveRunPage();
    QString why;
    if (!page->attachLiveRun(m_client, request, handle, &why)) {
        delete page;
        m_messageBar->showMessage(
            tr("Cannot attach to the run: %1").arg(why), MessageBar::Level::Error);
        return nullptr;
    }
    connectRunPage(page);
    addRunTab(page, liveRunTitle(handle.identity.userId, handle.chatId),
        tr("Run %1 of chat %2 as %3 (attached; output from %4)")
            .arg(handle.runId, handle.chatId, handle.identity.userId, handle.teePath()));
    return page;
}

RunPage *MainWindow::openSession(const SessionSource &source, const QString &toolUseId)
{
    auto *page = new RunPage(m_pages);
    QString why;
    if (!page->openSession(m_client, source, &why)) {
        delete page;
        m_messageBar->showMessage(
            tr("Cannot open session %1: %2").arg(source.sessionId, why), MessageBar::Level::Error);
        return nullptr;
    }
    connectRunPage(page);
    connect(page, &RunPage::continueSessionRequested, this, &MainWindow::showContinueSessionDialog);
    connect(page, &RunPage::openFolderRequested, this, &MainWindow::showRemoteFile);
    const QString place = source.chatId.isEmpty() ? source.sessionId.left(8) : source.chatId;
    const QString who
        = source.identity.isServerAccount() ? tr("server account") : source.identity.userId;
    addRunTab(page, QStringLiteral("%1 · %2").arg(who, place),
        tr("Session %1 of %2, read from %3 as %2")
            .arg(source.sessionId, who, source.transcriptPath));
    // Another user's session, also while acting as that user (issue 27).
    if (source.identity.userId != m_ownUserId)
        audit(QStringLiteral("read-session"), source.transcriptPath,
            tr("as %1 (acting as %2)").arg(who, m_identity.userId));
    page->revealToolCall(toolUseId);
    return page;
}

void MainWindow::showContinueSessionDialog(const SessionSource &source, bool fork)
{
    if (source.chatId.isEmpty()) {
        m_messageBar->showMessage(tr("Session %1 is not in a chat folder (its working directory "
                                     "is %2): only chat sessions are resumed here.")
                                      .arg(source.sessionId, source.cwd),
            MessageBar::Level::Error);
        return;
    }
    if (!canActOnRuns(fork ? tr("fork a session") : tr("resume a session")))
        return;
    const SessionScope scope {m_profileName, m_report.url, source.identity.userId};
    auto *dialog = new NewRunDialog(m_client, source.identity, scope, &m_keys, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->continueSession(source.chatId, source.sessionId, fork);
    connect(dialog, &QDialog::accepted, this,
        [this, dialog] { startLiveRun(dialog->request(), dialog->attachments()); });
    dialog->open();
}

void MainWindow::openRemoteRun(const QString &remotePath)
{
    if (!m_connected)
        return;
    const Identity identity = m_identity;
    m_messageBar->showMessage(
        tr("Downloading %1 to show it as a run…").arg(remotePath), MessageBar::Level::Information);
    m_client->viewFile(
        identity, remotePath, this, [this, identity, remotePath](const Result<RawFile> &result) {
            if (!result.ok()) {
                m_messageBar->showMessage(
                    tr("Cannot open %1 as a run: %2").arg(remotePath, result.error.toString()),
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
                m_messageBar->showMessage(
                    tr("Cannot keep a local copy of %1: %2").arg(remotePath, file.errorString()),
                    MessageBar::Level::Error);
                return;
            }
            m_messageBar->dismiss();
            if (RunPage *page = openRunFile(file.fileName())) {
                m_pages->setTabToolTip(m_pages->indexOf(page),
                    tr("%1 of %2 (local copy: %3)")
                        .arg(remotePath, identity.userId, file.fileName()));
            }
        });
}

void MainWindow::showRemoteFile(const QString &userId, const QString &absolutePath)
{
    if (!m_connected || !m_files)
        return;
    if (userId != m_identity.userId)
        switchUser(userId);
    if (userId != m_identity.userId)
        return; // refused; the message bar says why
    m_files->showHome();
    m_files->goToPath(absolutePath);
    m_pages->setCurrentWidget(m_files);
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About Sandscope"),
        tr("<h3>Sandscope %1</h3><p>Inspect and drive Claude Code sandbox sessions in "
           "open-terminal.</p><p>Every action taken as another user is shown in the banner "
           "and recorded in the audit log:<br><tt>%2</tt></p>")
            .arg(QStringLiteral(SANDSCOPE_VERSION), m_auditLog.path().toHtmlEscaped()));
}

void MainWindow::audit(const QString &action, const QString &target, const QString &result)
{
    AuditEntry entry;
    entry.profile = m_profileName;
    entry.server = m_report.url;
    entry.userId = m_identity.userId;
    entry.action = action;
    entry.target = target;
    entry.result = result;
    if (!m_auditLog.append(entry))
        m_messageBar->showMessage(tr("The audit log %1 cannot be written.").arg(m_auditLog.path()),
            MessageBar::Level::Warning);
}

void MainWindow::addFilePages()
{
    m_files = new FilesPage(this);
    m_admin = new AdminOverviewPage(this);
    m_pages->addTab(m_files,
        QIcon::fromTheme(QStringLiteral("folder"), style()->standardIcon(QStyle::SP_DirIcon)),
        tr("Files"));
    m_isolation = new ProbePage(this);
    m_pages->addTab(m_isolation,
        QIcon::fromTheme(
            QStringLiteral("security-high"), style()->standardIcon(QStyle::SP_MessageBoxWarning)),
        tr("Isolation"));
    connect(m_files, &FilesPage::openRunRequested, this,
        [this](const QString &remotePath) { openRemoteRun(remotePath); });
    m_sessions = new SessionsPage(this);
    m_pages->insertTab(m_pages->indexOf(m_files) + 1, m_sessions,
        QIcon::fromTheme(QStringLiteral("view-history"),
            style()->standardIcon(QStyle::SP_FileDialogDetailedView)),
        tr("Sessions"));
    connect(m_sessions, &SessionsPage::openSessionRequested, this,
        [this](const SessionSource &source, const QString &toolUseId) {
            openSession(source, toolUseId);
        });
    connect(
        m_sessions, &SessionsPage::resumeRequested, this, &MainWindow::showContinueSessionDialog);
    connect(m_sessions, &SessionsPage::openFolderRequested, this, &MainWindow::showRemoteFile);
    m_usage = new UsagePage(this);
    m_pages->insertTab(m_pages->indexOf(m_sessions) + 1, m_usage,
        QIcon::fromTheme(QStringLiteral("office-chart-bar"),
            style()->standardIcon(QStyle::SP_FileDialogInfoView)),
        tr("Usage"));
    // Reading every home's transcripts as root is audited like acting as another user.
    m_usage->setAuditHook([this](const QString &homesRoot) {
        audit(QStringLiteral("usage-all-users"),
            homesRoot + QStringLiteral(" ") + m_adminAccess.describe(), QStringLiteral("started"));
    });
    m_pages->addTab(m_admin,
        QIcon::fromTheme(
            QStringLiteral("system-users"), style()->standardIcon(QStyle::SP_FileDialogListView)),
        tr("Users"));
    connect(m_admin, &AdminOverviewPage::actAsUserRequested, this, [this](const QString &userId) {
        switchUser(userId);
        if (!userId.isEmpty() && m_identity.userId == userId)
            m_pages->setCurrentWidget(m_files);
    });
}

void MainWindow::syncFilePages(bool connected)
{
    if (!m_files)
        return;
    OpenTerminalClient *client = connected ? m_client : nullptr;
    m_files->setAuditContext(m_profileName, m_report.url);
    m_files->setClient(client);
    m_files->setIdentity(m_identity,
        m_identity.userId == m_ownUserId ? FileOperations::Acting::AsSelf
                                         : FileOperations::Acting::AsOtherUser);
    m_admin->setClient(client);
    m_sessions->setConnection(client, m_identity);
    m_sessions->setAdminAccess(m_adminAccess, m_report.prefix);
    m_usage->setConnection(client, m_identity);
    m_usage->setAdminAccess(m_adminAccess, m_report.prefix);
    m_isolation->setIdentityContext(m_profileName, m_report.url);
    m_isolation->setClient(client);
    m_admin->setAccountPrefix(m_report.prefix);
    m_admin->setIdentity(m_identity);
}

} // namespace sandscope
