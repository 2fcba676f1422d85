#pragma once
// The main window: the permanent identity bar on top, a non-modal message bar, the pages
// (console, terminal, files, …) and the status bar with what the server is. It wires pages to
// the ServerSession (who is connected and acting as whom) and to RunTabs (the run tabs and
// the File menu's use cases on them); it decides and parses nothing itself.

#include "security/profilestore.h"
#include "server/adminaccess.h"
#include "server/connection.h"
#include "server/servercheck.h"
#include "windowstate.h"

#include <QList>
#include <QMainWindow>

class QCloseEvent;
class QDragEnterEvent;
class QDropEvent;
class QLabel;
class QProgressBar;
class QTabWidget;

namespace sandscope {

class AdminOverviewPage;
class CleanupPage;
class ConsolePage;
class DesktopNotifier;
class FilesPage;
class FleetFanOut;
class IdentityBar;
class LivePage;
class MessageBar;
class OpenTerminalClient;
class ProbePage;
class RunTabs;
class ServerSession;
class ServerStatusView;
class SessionsPage;
class TabNavigator;
class TerminalPage;
class UsagePage;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // settingsPath selects the profile store (tests pass a temporary file); the audit log
    // follows AuditLog::defaultPath() (SANDSCOPE_AUDIT_LOG overrides it).
    explicit MainWindow(const QString &settingsPath = {}, QWidget *parent = nullptr);
    ~MainWindow() override;

    ServerSession *session() const { return m_session; }
    RunTabs *runTabs() const { return m_runs; }

    // The session's calls, kept on the window for main.cpp and the tests.
    void openProfile(const Profile &profile, const QString &apiKey = {});
    bool openLastProfile();
    void connectToServer(
        const ServerConnection &connection, const QString &userId, const QString &profileName = {});
    void setAdminAccess(const AdminAccess &admin);
    void switchUser(const QString &userId);
    bool isConnected() const;
    bool isCheckingServer() const;
    const ServerReport &serverReport() const;
    Identity identity() const;
    OpenTerminalClient *client() const;

    IdentityBar *identityBar() const { return m_identityBar; }
    MessageBar *messageBar() const { return m_messageBar; }
    ConsolePage *consolePage() const { return m_console; }
    TerminalPage *terminalPage() const { return m_terminal; }
    FilesPage *filesPage() const { return m_files; }
    AdminOverviewPage *adminOverviewPage() const { return m_admin; }
    CleanupPage *cleanupPage() const { return m_cleanup; }
    ProbePage *isolationPage() const { return m_isolation; }
    SessionsPage *sessionsPage() const { return m_sessions; }
    UsagePage *usagePage() const { return m_usage; }
    LivePage *livePage() const { return m_live; }
    // Tells the desktop when a live run ends while the window is not active.
    DesktopNotifier *notifier() const { return m_notifier; }
    QTabWidget *pages() const { return m_pages; }
    // The keys and the corner list that reach every tab.
    TabNavigator *tabNavigator() const { return m_tabNavigator; }
    WindowState *windowState() { return &m_windowState; }
    // The status bar's server facts as one line, e.g. "server … · open-terminal 0.14.5 · …".
    QString serverStatusText() const;

public Q_SLOTS:
    void showConnectDialog();
    // File › Connect… with the admin command field focused (the all-users views offer it).
    void showAdminCommandField();
    void showSwitchUserDialog();
    void showAbout();
    // View › Live Wall: the Live tab (every running agent, for admins), a closable tab like
    // the run tabs (the bar has no room for another fixed page); closing it stops watching.
    void showLiveWall();
    // Shows a file in the Files tab and its preview as `userId` (switching to that user, which
    // is visible and audited, when another user acts now).
    void showRemoteFile(const QString &userId, const QString &absolutePath);

Q_SIGNALS:
    // After every server check (version, key, accounts), successful or not.
    void serverChecked(bool ok);

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createMenus();
    void createStatusBar();
    void followSession();
    // The session's changes, shown: a new connection, admin access, identity, a check's end.
    void showNewConnection();
    void showAdminAccess();
    void showIdentity();
    void showCheck(bool ok);
    void setBusy(bool busy, const QString &step = {});
    void updateTitle();
    // The Files, Sessions, Usage, Isolation, Users and Live tabs: created once, then kept in step
    // with the session's client and identity.
    void addFilePages();
    void syncFilePages();
    // The Users page's fan-out: a fleet's members while connected to one, else none.
    void syncAdminFanOut(bool connected);
    // The pages that are always there (their splitters are kept between starts).
    QList<QWidget *> fixedPages() const;

    ServerSession *m_session;
    WindowState m_windowState;
    IdentityBar *m_identityBar;
    MessageBar *m_messageBar;
    QTabWidget *m_pages;
    TabNavigator *m_tabNavigator = nullptr;
    ConsolePage *m_console;
    TerminalPage *m_terminal; // interactive shells, each as the user acting when it opened
    DesktopNotifier *m_notifier;
    RunTabs *m_runs = nullptr;
    FilesPage *m_files = nullptr;
    AdminOverviewPage *m_admin = nullptr;
    CleanupPage *m_cleanup = nullptr; // runs as the server account, whoever is acted as
    ProbePage *m_isolation = nullptr; // acts as the users it is given, whoever is acted as
    SessionsPage *m_sessions = nullptr; // the acting user's Claude sessions on the server
    UsagePage *m_usage = nullptr; // usage over time from the transcripts on the server
    LivePage *m_live = nullptr; // every running agent, through the admin channel; a tab on demand
    FleetFanOut *m_adminFanOut = nullptr; // the Users page's members of a fleet (owned)
    bool m_adminFanOutStale = false; // the connection changed since it was made
    QLabel *m_busyLabel = nullptr;
    QProgressBar *m_busyIndicator = nullptr;
    ServerStatusView *m_serverStatus = nullptr;
};

} // namespace sandscope
