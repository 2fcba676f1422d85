#include "mainwindow.h"

#include "adminoverviewpage.h"
#include "cleanuppage.h"
#include "connection/serversession.h"
#include "connectiondialog.h"
#include "consolepage.h"
#include "desktopnotifier.h"
#include "files/filespage.h"
#include "fleet/fleetfanout.h"
#include "identitybar.h"
#include "isolation/probepage.h"
#include "live/livepage.h"
#include "messagebar.h"
#include "pagetabs.h"
#include "runs/runpage.h"
#include "runs/runtabs.h"
#include "runs/sessionspage.h"
#include "server/openterminalclient.h"
#include "serverstatusview.h"
#include "switchuserdialog.h"
#include "tabnavigator.h"
#include "terminal/followstatus.h"
#include "terminal/terminalpage.h"
#include "usage/usagepage.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QStatusBar>
#include <QStyle>
#include <QTabBar>
#include <QTabWidget>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

// The resources live in the static sandscope_gui library, whose initialiser the linker would
// drop; Q_INIT_RESOURCE must be used outside any namespace.
static void initGuiResources()
{
    Q_INIT_RESOURCE(resources);
}

namespace sandscope {

namespace {

MessageBar::Level messageLevel(ServerSession::Notice notice)
{
    switch (notice) {
    case ServerSession::Notice::Information:
        return MessageBar::Level::Information;
    case ServerSession::Notice::Warning:
        return MessageBar::Level::Warning;
    case ServerSession::Notice::Error:
        break;
    }
    return MessageBar::Level::Error;
}

} // namespace

MainWindow::MainWindow(const QString &settingsPath, QWidget *parent)
    : QMainWindow(parent)
    , m_session(new ServerSession(settingsPath, this))
    , m_windowState(settingsPath)
    , m_identityBar(new IdentityBar(this))
    , m_messageBar(new MessageBar(this))
    , m_pages(new PageTabs(this))
    , m_console(new ConsolePage(this))
    , m_terminal(new TerminalPage(this))
    , m_notifier(new DesktopNotifier(this))
{
    initGuiResources();
    setObjectName(QStringLiteral("mainWindow"));
    setWindowIcon(QIcon(QStringLiteral(":/sandscope/icons/sandscope.svg")));
    m_runs = new RunTabs(m_pages, m_session, m_messageBar, m_notifier, &m_windowState, this);
    connect(m_runs, &RunTabs::openFileRequested, this, &MainWindow::showRemoteFile);

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
    m_tabNavigator = new TabNavigator(m_pages, this);
    m_pages->addTab(m_console,
        QIcon::fromTheme(
            QStringLiteral("utilities-terminal"), style()->standardIcon(QStyle::SP_ComputerIcon)),
        tr("Console"));
    m_pages->addTab(m_terminal,
        QIcon::fromTheme(
            QStringLiteral("utilities-terminal"), style()->standardIcon(QStyle::SP_ComputerIcon)),
        tr("Terminal"));
    m_terminal->setAuditLog(m_session->auditLog(), QString());
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
    m_cleanup->setAdminAccess(m_session->adminAccess());

    createMenus();
    createStatusBar();
    followSession();
    updateTitle();
    m_messageBar->showMessage(tr("Not connected. Choose File › Connect… to pick a server."),
        MessageBar::Level::Information);
    resize(1100, 700);
    setAcceptDrops(true);
    m_windowState.restoreGeometry(this);
    for (QWidget *page : fixedPages())
        m_windowState.restoreSplitters(page);
}

MainWindow::~MainWindow()
{
    // The pages' streams, scans and runs use the client: they go first (the client is an
    // older child and would otherwise be destroyed before them). The live wall may not be a
    // tab at the moment: it goes first as well.
    delete m_live;
    delete m_pages;
}

QList<QWidget *> MainWindow::fixedPages() const
{
    return {m_files, m_isolation, m_admin, m_cleanup, m_sessions, m_usage};
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    m_terminal->closeAll(); // ends the shells on the server (and audits it)
    m_windowState.saveGeometry(this);
    for (QWidget *page : fixedPages())
        m_windowState.saveSplitters(page);
    // Run pages share one layout: the one in front (or any) is what the user arranged last.
    RunPage *run = m_runs->currentRun();
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
    if (m_runs->openRunFiles(paths) > 0 || !paths.isEmpty())
        event->acceptProposedAction();
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *connectAction = file->addAction(tr("&Connect…"), this, &MainWindow::showConnectDialog);
    connectAction->setShortcut(QKeySequence(tr("Ctrl+O")));
    QAction *switchAction
        = file->addAction(tr("S&witch User…"), this, &MainWindow::showSwitchUserDialog);
    switchAction->setShortcut(QKeySequence(tr("Ctrl+K")));
    QAction *newRun = file->addAction(tr("&New Run…"), m_runs, &RunTabs::showNewRunDialog);
    newRun->setShortcut(QKeySequence(tr("Ctrl+N")));
    QAction *attachRun
        = file->addAction(tr("&Attach to Run…"), m_runs, &RunTabs::showAttachRunDialog);
    attachRun->setShortcut(QKeySequence(tr("Ctrl+Shift+A")));
    file->addAction(tr("Open &Run Recording…"), m_runs, &RunTabs::showOpenRunDialog);
    QAction *compare = file->addAction(tr("Com&pare Runs…"), m_runs, &RunTabs::showCompareDialog);
    compare->setShortcut(QKeySequence(tr("Ctrl+Shift+D")));
    QMenu *recent = file->addMenu(tr("Open Rec&ent"));
    QAction *exportAction = file->addAction(tr("E&xport Run…"), m_runs, &RunTabs::showExportDialog);
    exportAction->setShortcut(QKeySequence(tr("Ctrl+Shift+E")));
    exportAction->setEnabled(false);
    // Only a run tab has something to export.
    connect(m_pages, &QTabWidget::currentChanged, exportAction,
        [this, exportAction] { exportAction->setEnabled(m_runs->currentRun()); });
    recent->setObjectName(QStringLiteral("recentRunsMenu"));
    connect(recent, &QMenu::aboutToShow, this, [this, recent] { m_runs->fillRecentMenu(recent); });
    m_runs->fillRecentMenu(recent);
    file->addAction(m_tabNavigator->closeAction());
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
    view->addAction(m_tabNavigator->nextAction());
    view->addAction(m_tabNavigator->previousAction());
    view->addMenu(m_tabNavigator->listMenu()); // every tab, also those the bar scrolled away
    view->addSeparator();
    QAction *live = view->addAction(tr("&Live Wall"), this, &MainWindow::showLiveWall);
    live->setToolTip(tr("Every running agent of every user, live (through the admin channel)"));
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
    m_serverStatus = new ServerStatusView(this);
    statusBar()->addPermanentWidget(m_serverStatus);
    m_serverStatus->showFacts(*m_session);
}

// What the session learns, every page shows: the session decides, the window only passes on.
void MainWindow::followSession()
{
    connect(m_session, &ServerSession::notice, this,
        [this](const QString &text, ServerSession::Notice level) {
            m_messageBar->showMessage(text, messageLevel(level));
        });
    connect(m_session, &ServerSession::busyChanged, this, &MainWindow::setBusy);
    connect(m_session, &ServerSession::connectionChanging, this, [this] {
        m_console->detachRunning(tr("the connection changed; the command keeps running"));
        // The Users page's members were the old fleet's: syncFilePages makes the new ones.
        m_adminFanOutStale = true;
    });
    connect(m_session, &ServerSession::connectionReset, this, &MainWindow::showNewConnection);
    connect(m_session, &ServerSession::adminAccessChanged, this, &MainWindow::showAdminAccess);
    connect(m_session, &ServerSession::identityChanged, this, &MainWindow::showIdentity);
    connect(m_session, &ServerSession::checked, this, &MainWindow::showCheck);
    connect(m_session, &ServerSession::actingMemberChanged, this,
        [this] { m_serverStatus->showFacts(*m_session); });
}

void MainWindow::showNewConnection()
{
    const QString profileName = m_session->profileName();
    m_console->setClient(nullptr);
    m_terminal->closeAll(); // its terminals belong to the previous server
    m_terminal->setConnection(nullptr, {}, {});
    m_terminal->setAuditLog(m_session->auditLog(), profileName);
    m_cleanup->setClient(nullptr);
    m_console->setApiKey(m_session->client()->connection().apiKey);
    m_console->setAuditLog(m_session->auditLog(), profileName);
    m_identityBar->setProfileName(profileName);
    m_identityBar->setNote({});
    m_identityBar->setConnected(false);
    m_messageBar->dismiss();
    m_serverStatus->showFacts(*m_session);
    m_serverStatus->watchFollowing(FollowStatus::of(m_session->client()));
}

void MainWindow::showAdminAccess()
{
    const AdminAccess &admin = m_session->adminAccess();
    const QString prefix = m_session->report().prefix;
    m_cleanup->setAdminAccess(admin);
    m_admin->setAdminAccess(admin);
    m_sessions->setAdminAccess(admin, prefix);
    m_usage->setAdminAccess(admin, prefix);
    m_live->setAdminAccess(admin, prefix);
}

void MainWindow::showIdentity()
{
    const Identity identity = m_session->identity();
    // What was said was about the previous user; the identity bar says who acts now.
    m_messageBar->dismiss();
    m_console->setIdentity(identity);
    m_terminal->setConnection(
        m_session->isConnected() ? m_session->client() : nullptr, identity, {});
    syncFilePages();
    m_cleanup->requireFreshDryRun(tr("the acting user changed"));
    m_identityBar->setIdentity(identity.userId);
    updateTitle();
}

void MainWindow::showCheck(bool ok)
{
    if (ok) {
        const ServerReport &report = m_session->report();
        const Identity identity = m_session->identity();
        m_console->setClient(m_session->client());
        m_cleanup->setClient(m_session->client());
        m_cleanup->setAuditContext(m_session->profileName(), report.url);
        syncFilePages();
        const QString account = m_session->actingAccount();
        m_identityBar->setIdentity(identity.userId, account);
        m_identityBar->setAccountUnknown(account.isEmpty());
        m_identityBar->setServerAccountRefused(m_session->serverAccountRefused());
        m_identityBar->setConnected(true);
        m_terminal->setConnection(m_session->client(), identity, account);
        m_identityBar->setNote(!identity.isServerAccount() && !report.multiUser
                ? tr("single-user server: the user id changes nothing")
                : QString());
    } else if (m_session->isConnected()) {
        // The server still answers; only learning about this user failed.
        m_identityBar->setAccount({});
        m_identityBar->setAccountUnknown(true);
    } else {
        m_identityBar->setConnected(false);
    }
    m_serverStatus->showFacts(*m_session);
    updateTitle();
    Q_EMIT serverChecked(ok);
}

void MainWindow::setBusy(bool busy, const QString &step)
{
    m_busyIndicator->setVisible(busy);
    m_busyLabel->setText(busy ? step : QString());
    if (m_serverStatus)
        m_serverStatus->showFacts(*m_session); // "connecting…" while the check runs
}

void MainWindow::updateTitle()
{
    QString title = QStringLiteral("Sandscope");
    const QString url = m_session->serverUrl();
    if (!url.isEmpty()) {
        const Identity identity = m_session->identity();
        const QString who = identity.isServerAccount() ? tr("server account") : identity.userId;
        const QString profile = m_session->profileName();
        title = tr("%1 — %2 — Sandscope").arg(who, profile.isEmpty() ? url : profile);
    }
    setWindowTitle(title);
}

void MainWindow::showAdminCommandField()
{
    showConnectDialog();
    if (auto *dialog = findChild<ConnectionDialog *>())
        dialog->focusAdminCommand();
}

void MainWindow::showConnectDialog()
{
    auto *dialog = new ConnectionDialog(m_session->profiles(), m_session->keys(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    const QUrl current = m_session->client()->connection().baseUrl;
    if (!m_session->profileName().isEmpty())
        dialog->selectProfile(m_session->profileName());
    else if (!current.isEmpty())
        dialog->prefill(current, m_session->identity().userId);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const Profile profile = dialog->profile();
        const QString key = dialog->enteredApiKey();
        const QString storage = ConnectionDialog::describeKeyStorage(
            dialog->keyStorage(), m_session->keys()->fallbackDir(), dialog->keyStorageError());
        m_session->openProfile(profile, key);
        if (!key.isEmpty() && dialog->keyStorage() != KeyStorage::Keyring)
            m_messageBar->showMessage(storage, MessageBar::Level::Warning);
    });
    dialog->open();
}

void MainWindow::showSwitchUserDialog()
{
    if (!m_session->isConnected() && m_session->serverUrl().isEmpty()) {
        m_messageBar->showMessage(
            tr("Connect to a server before choosing a user."), MessageBar::Level::Information);
        return;
    }
    auto *dialog = new SwitchUserDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setAccountPrefix(m_session->report().prefix);
    if (m_session->accountRuleKnown())
        dialog->setAccountRule(m_session->accountRule());
    dialog->setUserId(m_session->identity().userId);
    connect(dialog, &QDialog::accepted, this,
        [this, dialog] { m_session->switchUser(dialog->userId()); });
    dialog->open();
}

void MainWindow::showRemoteFile(const QString &userId, const QString &absolutePath)
{
    if (!m_session->isConnected())
        return;
    if (userId != m_session->identity().userId)
        m_session->switchUser(userId);
    if (userId != m_session->identity().userId)
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
            .arg(QStringLiteral(SANDSCOPE_VERSION), m_session->auditLog()->path().toHtmlEscaped()));
}

void MainWindow::showLiveWall()
{
    int tab = m_pages->indexOf(m_live);
    if (tab < 0) {
        tab = m_pages->addTab(m_live,
            QIcon::fromTheme(
                QStringLiteral("view-refresh"), style()->standardIcon(QStyle::SP_BrowserReload)),
            tr("Live"));
        m_pages->setTabToolTip(tab, tr("Every running agent of every user"));
        auto *close = new QToolButton(m_pages);
        close->setAutoRaise(true);
        close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
        close->setToolTip(tr("Close the live wall (stops watching)"));
        connect(close, &QToolButton::clicked, this, [this] {
            m_live->stopWatching();
            m_pages->removeTab(m_pages->indexOf(m_live));
            m_live->hide();
        });
        m_pages->tabBar()->setTabButton(tab, QTabBar::RightSide, close);
    }
    m_pages->setCurrentIndex(tab);
}

void MainWindow::addFilePages()
{
    m_files = new FilesPage(this);
    m_runs->setFilesPage(m_files);
    m_admin = new AdminOverviewPage(this);
    m_pages->addTab(m_files,
        QIcon::fromTheme(QStringLiteral("folder"), style()->standardIcon(QStyle::SP_DirIcon)),
        tr("Files"));
    m_isolation = new ProbePage(this);
    m_pages->addTab(m_isolation,
        QIcon::fromTheme(
            QStringLiteral("security-high"), style()->standardIcon(QStyle::SP_MessageBoxWarning)),
        tr("Isolation"));
    connect(m_files, &FilesPage::openRunRequested, m_runs, &RunTabs::openRemoteRun);
    m_sessions = new SessionsPage(this);
    m_pages->insertTab(m_pages->indexOf(m_files) + 1, m_sessions,
        QIcon::fromTheme(QStringLiteral("view-history"),
            style()->standardIcon(QStyle::SP_FileDialogDetailedView)),
        tr("Sessions"));
    connect(m_sessions, &SessionsPage::openSessionRequested, m_runs,
        [this](const SessionSource &source, const QString &toolUseId, qint64 line) {
            m_runs->openSession(source, toolUseId, line);
        });
    m_runs->setSessionList(m_sessions->model());
    connect(
        m_sessions, &SessionsPage::resumeRequested, m_runs, &RunTabs::showContinueSessionDialog);
    connect(m_sessions, &SessionsPage::openFolderRequested, this, &MainWindow::showRemoteFile);
    connect(
        m_sessions, &SessionsPage::adminCommandRequested, this, &MainWindow::showAdminCommandField);
    connect(m_admin, &AdminOverviewPage::adminCommandRequested, this,
        &MainWindow::showAdminCommandField);
    m_usage = new UsagePage(this);
    connect(m_usage, &UsagePage::adminCommandRequested, this, &MainWindow::showAdminCommandField);
    m_pages->insertTab(m_pages->indexOf(m_sessions) + 1, m_usage,
        QIcon::fromTheme(QStringLiteral("office-chart-bar"),
            style()->standardIcon(QStyle::SP_FileDialogInfoView)),
        tr("Usage"));
    // Reading every home's transcripts as root is audited like acting as another user.
    // A fleet's members are read through their own admin commands: the page names them.
    m_usage->setAuditHook([this](const QString &homesRoot) {
        m_session->audit(QStringLiteral("usage-all-users"),
            m_session->isFleet()
                ? homesRoot
                : homesRoot + QStringLiteral(" ") + m_session->adminAccess().describe(),
            QStringLiteral("started"));
    });
    m_pages->addTab(m_admin,
        QIcon::fromTheme(
            QStringLiteral("system-users"), style()->standardIcon(QStyle::SP_FileDialogListView)),
        tr("Users"));
    // Not a fixed tab (the bar has no room for one more beside run tabs): View › Live Wall.
    m_live = new LivePage(this);
    m_live->hide();
    connect(m_live, &LivePage::adminCommandRequested, this, &MainWindow::showAdminCommandField);
    // An agent's session opens as its user in a tab that follows it (RunTabs' use case).
    connect(m_live, &LivePage::openSessionRequested, m_runs,
        [this](const SessionSource &source) { m_runs->openSession(source); });
    // Watching every user's agents as root is audited like acting as another user.
    m_live->setAuditHook([this](const QString &channel) {
        m_session->audit(QStringLiteral("live-all-users"), channel, QStringLiteral("started"));
    });
    connect(m_admin, &AdminOverviewPage::actAsUserRequested, this, [this](const QString &userId) {
        m_session->switchUser(userId);
        if (!userId.isEmpty() && m_session->identity().userId == userId)
            m_pages->setCurrentWidget(m_files);
    });
}

void MainWindow::syncFilePages()
{
    const Identity identity = m_session->identity();
    const QString url = m_session->serverUrl();
    const QString prefix = m_session->report().prefix;
    OpenTerminalClient *client = m_session->isConnected() ? m_session->client() : nullptr;
    m_files->setAuditContext(m_session->profileName(), url);
    m_files->setClient(client);
    m_files->setIdentity(identity,
        m_session->actingAsSelf() ? FileOperations::Acting::AsSelf
                                  : FileOperations::Acting::AsOtherUser);
    syncAdminFanOut(client != nullptr);
    m_admin->setClient(client);
    // A server that refuses its own account: each all-users view says what to do instead of
    // asking (and being refused) while no admin command is set.
    const auto advice = [this](const QString &view) {
        return m_session->serverAccountRefused() ? AdminAccess::refusalAdvice(
                   view, QUrl(m_session->serverUrl()), m_session->report().setup)
                                                 : QString();
    };
    m_admin->setAdminAdvice(advice(tr("The users overview")));
    m_sessions->setAdminAdvice(advice(tr("Listing every user's sessions")));
    m_usage->setAdminAdvice(advice(tr("Usage of all users")));
    m_live->setAdminAdvice(advice(tr("The live wall")));
    m_live->setClient(client);
    m_live->setAdminAccess(m_session->adminAccess(), prefix);
    // All users: every member of a fleet, or the server.
    const auto fanOutFactory = [session = m_session](QObject *parent) {
        return session->createFanOut(parent);
    };
    m_sessions->setFanOutFactory(fanOutFactory, m_session->isFleet());
    m_usage->setFanOutFactory(fanOutFactory, m_session->isFleet());
    m_live->setFanOutFactory(fanOutFactory, m_session->isFleet());
    m_isolation->setFanOutFactory(fanOutFactory, m_session->isFleet());
    m_cleanup->setFanOutFactory(fanOutFactory, m_session->isFleet());
    m_sessions->setConnection(client, identity);
    m_sessions->setAdminAccess(m_session->adminAccess(), prefix);
    m_usage->setConnection(client, identity);
    m_usage->setAdminAccess(m_session->adminAccess(), prefix);
    m_isolation->setIdentityContext(m_session->profileName(), url);
    m_isolation->setClient(client);
    m_admin->setAccountPrefix(prefix);
    m_admin->setIdentity(identity);
}

void MainWindow::syncAdminFanOut(bool connected)
{
    const bool wanted = connected && m_session->isFleet();
    if (wanted == (m_adminFanOut != nullptr) && !(wanted && m_adminFanOutStale))
        return;
    // The page is given the new fan-out (or none) before the old one goes, so that it never
    // scans through a fan-out being deleted.
    FleetFanOut *old = m_adminFanOut;
    m_adminFanOut = wanted ? m_session->createFanOut(this) : nullptr;
    m_adminFanOutStale = false;
    m_admin->setFanOut(m_adminFanOut);
    delete old;
}

// The window's public calls, kept for main.cpp and the tests: each goes to the class that
// holds the use case.
void MainWindow::openProfile(const Profile &profile, const QString &apiKey)
{
    m_session->openProfile(profile, apiKey);
}
bool MainWindow::openLastProfile()
{
    return m_session->openLastProfile();
}
void MainWindow::connectToServer(
    const ServerConnection &connection, const QString &userId, const QString &profileName)
{
    m_session->connectToServer(connection, userId, profileName);
}
void MainWindow::setAdminAccess(const AdminAccess &admin)
{
    m_session->setAdminAccess(admin);
}
void MainWindow::switchUser(const QString &userId)
{
    m_session->switchUser(userId);
}
bool MainWindow::isConnected() const
{
    return m_session->isConnected();
}
bool MainWindow::isCheckingServer() const
{
    return m_session->isChecking();
}
const ServerReport &MainWindow::serverReport() const
{
    return m_session->report();
}
Identity MainWindow::identity() const
{
    return m_session->identity();
}
OpenTerminalClient *MainWindow::client() const
{
    return m_session->client();
}
QString MainWindow::serverStatusText() const
{
    return m_serverStatus->text();
}

} // namespace sandscope
