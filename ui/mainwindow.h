#pragma once
// The main window: the permanent identity bar on top, a non-modal message bar, the pages
// (console, terminal, files, …) and the status bar with what the server is. It owns the one
// OpenTerminalClient and wires the server check, dialogs and pages to it; it parses nothing
// itself.

#include "export/runexporter.h"
#include "security/auditlog.h"
#include "security/profilestore.h"
#include "server/accountnames.h"
#include "server/adminaccess.h"
#include "server/connection.h"
#include "server/servercheck.h"
#include "windowstate.h"

#include <QHash>
#include <QList>
#include <QMainWindow>
#include <QPointer>

#include <memory>

class QFrame;
class QCloseEvent;
class QDragEnterEvent;
class QDropEvent;
class QLabel;
class QMenu;
class QProgressBar;
class QTabWidget;

namespace sandscope {

class AdminOverviewPage;
class CleanupPage;
class ConsolePage;
class FilesPage;
class ProbePage;
class SessionsPage;
class UsagePage;
class DesktopNotifier;
class TerminalPage;
class RunPage;
class ExportJob;
struct LiveRunRequest;
struct SessionSource;
struct RunHandle;
class IdentityBar;
class MessageBar;
class OpenTerminalClient;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // settingsPath selects the profile store (tests pass a temporary file); the audit log
    // follows AuditLog::defaultPath() (SANDSCOPE_AUDIT_LOG overrides it).
    explicit MainWindow(const QString &settingsPath = {}, QWidget *parent = nullptr);
    ~MainWindow() override;

    // Connects with this profile. An empty apiKey means: use the key stored for the profile.
    void openProfile(const Profile &profile, const QString &apiKey = {});
    // Connects with the profile used last (the one the Connect dialog saved or opened last);
    // false when there is none.
    bool openLastProfile();
    void connectToServer(
        const ServerConnection &connection, const QString &userId, const QString &profileName = {});
    // How admin scripts (Cleanup, Users) reach root in the sandbox; connecting with a profile
    // sets its admin command (or the server account).
    void setAdminAccess(const AdminAccess &admin);
    // Changes the acting user (empty = the server account); always audited.
    void switchUser(const QString &userId);

    bool isConnected() const { return m_connected; }
    bool isCheckingServer() const { return !m_serverCheck.isNull(); }
    const ServerReport &serverReport() const { return m_report; }
    Identity identity() const { return m_identity; }
    OpenTerminalClient *client() const { return m_client; }

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
    // Tells the desktop when a live run ends while the window is not active.
    DesktopNotifier *notifier() const { return m_notifier; }
    QTabWidget *pages() const { return m_pages; }
    // `base`, or "base (2)", "base (3)" … whichever is not taken yet.
    static QString uniqueTitle(const QString &base, const QStringList &taken);
    // The status bar's server facts as one line, e.g. "server … · open-terminal 0.14.5 · …".
    QString serverStatusText() const;

public Q_SLOTS:
    void showConnectDialog();
    void showSwitchUserDialog();
    void showAbout();
    void showOpenRunDialog();
    // File → Compare Runs…: two open run tabs or files, shown side by side in a Compare tab.
    void showCompareDialog();
    // Opens a run recording or stream-json capture in a new, closable run tab.
    RunPage *openRunFile(const QString &path);
    // Opens each file in its own run tab (command line, drops, Open Recent); one message
    // names the files that could not be opened. Returns how many opened.
    int openRunFiles(const QStringList &paths);
    // File › Export…: the run tab in front as HTML, Markdown or JSON (ExportRunDialog).
    void showExportDialog();
    WindowState *windowState() { return &m_windowState; }
    // Asks for a live run as the current identity (File → New Run…, Ctrl+N).
    void showNewRunDialog();
    // Starts a live run in a new closable tab titled "<user> · <chat>"; several stream at once.
    // `attachments` are local files uploaded into the chat and named in the prompt.
    RunPage *startLiveRun(
        const sandscope::LiveRunRequest &request, const QStringList &attachments = {});
    // Lists the acting user's runs in the sandbox to show one again (File → Attach to Run…).
    void showAttachRunDialog();
    // Follows a run started earlier (its tab or the app was closed) in a new tab, from its
    // first line; Stop and follow-ups work as for a run started here.
    // `environment` is written for follow-ups (every turn rewrites the 0600 env file).
    RunPage *attachLiveRun(
        const sandscope::RunHandle &handle, const QHash<QString, QString> &environment = {});
    // Shows a session found on the server (read as its user) in a new tab and follows it
    // while the tab is open; with a tool call id, that call is selected once shown.
    RunPage *openSession(const sandscope::SessionSource &source, const QString &toolUseId = {});
    // New Run for the session's chat that resumes it, or forks it (a new session with a copy
    // of its history).
    void showContinueSessionDialog(const sandscope::SessionSource &source, bool fork);
    // Downloads a stream-json file of the acting user and shows it in a run tab.
    void openRemoteRun(const QString &remotePath);
    // Shows a file in the Files tab and its preview as `userId` (switching to that user, which
    // is visible and audited, when another user acts now).
    void showRemoteFile(const QString &userId, const QString &absolutePath);

Q_SIGNALS:
    // After every server check (version, key, accounts), successful or not.
    void serverChecked(bool ok);
    // An export started by startExport ended: written, failed or cancelled.
    void exportFinished(bool written);

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

public:
    // Writes what `page` shows (also a live run, as far as it got); the page keeps everything
    // whether or not the file could be written. False with the reason.
    bool exportRun(const RunPage *page, const QString &path, RunExporter::Format format,
        bool redact, QString *why) const;
    // exportRun with the slow part on a worker thread (the dialog's way); the message bar
    // tells the result and exportFinished follows.
    void startExport(
        const RunPage *page, const QString &path, RunExporter::Format format, bool redact);

private:
    // What `page` shows, copied now, to export with the connection's key masked when `redact`.
    std::shared_ptr<ExportJob> exportJob(const RunPage *page, bool redact) const;

    void createMenus();
    void fillRecentMenu(QMenu *menu);
    RunPage *openRunFileReporting(const QString &path, QString *why);
    QString liveRunTitle(const QString &userId, const QString &chatId) const;
    void createStatusBar();
    void setIdentity(const QString &userId);
    void checkServer();
    void applyReport(const ServerReport &report);
    void serverCheckFailed(const ApiError &error);
    void setBusy(bool busy, const QString &step = {});
    void updateStatusBar();
    void updateStatusLabels();
    void updateTitle();
    void audit(const QString &action, const QString &target, const QString &result);
    // The Files and Users tabs: created once, then kept in step with client and identity.
    void addFilePages();
    void syncFilePages(bool connected);
    // A tab with a close button, brought to the front.
    int addClosableTab(
        QWidget *page, const QString &title, const QString &toolTip, const QString &closeToolTip);
    int addRunTab(RunPage *page, const QString &title, const QString &toolTip);
    void showNewRunDialogLike(const sandscope::LiveRunRequest *like);
    // Connected and acting as a sandbox user; otherwise says what `what` needs.
    bool canActOnRuns(const QString &what);
    RunPage *newLiveRunPage();
    QString currentChatId() const;
    void connectRunPage(RunPage *page);

    ProfileStore m_profiles;
    WindowState m_windowState;
    KeyStore m_keys;
    AuditLog m_auditLog;
    OpenTerminalClient *m_client;
    QPointer<ServerCheck> m_serverCheck;
    ServerReport m_report;
    QString m_profileName;
    Identity m_identity;
    bool m_connected = false;
    // Single/multi-user is learnt from a user's account; kept while acting as the server.
    QString m_knownMode;
    QString m_knownModeEvidence;

    IdentityBar *m_identityBar;
    MessageBar *m_messageBar;
    QTabWidget *m_pages;
    QAction *m_exportAction = nullptr;
    ConsolePage *m_console;
    TerminalPage *m_terminal; // interactive shells, each as the user acting when it opened
    FilesPage *m_files = nullptr;
    AdminOverviewPage *m_admin = nullptr;
    CleanupPage *m_cleanup = nullptr; // runs as the server account, whoever is acted as
    ProbePage *m_isolation = nullptr; // acts as the users it is given, whoever is acted as
    SessionsPage *m_sessions = nullptr; // the acting user's Claude sessions on the server
    UsagePage *m_usage = nullptr; // usage over time from the transcripts on the server
    DesktopNotifier *m_notifier = nullptr;
    AdminAccess m_adminAccess;
    // Learned from the checks of this server, whoever was acted as at the time.
    bool m_serverAccountRefused = false;
    bool m_accountRuleKnown = false;
    AccountRule m_accountRule = AccountRule::FirstEightAlnum;
    // The user the profile connects as; any other identity browses files read-only at first.
    QString m_ownUserId;
    QLabel *m_busyLabel;
    QProgressBar *m_busyIndicator;
    QLabel *m_serverLabel;
    QLabel *m_versionLabel;
    QLabel *m_featuresLabel;
    QLabel *m_modeLabel;
    QList<QFrame *> m_statusSeparators; // before the version, features and mode labels
};

} // namespace sandscope
