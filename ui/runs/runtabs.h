#pragma once
// The main window's closable run tabs: recordings and captures opened from disk, sessions
// found on the server, live runs started, attached or continued here, and the Compare tabs;
// with the File menu's use cases on them (open, compare, export, recent runs). Each tab is a
// RunPage; the core does the work (RunController, CompareJob, ExportJob) and the tab shows it.

#include "export/runexporter.h"

#include <QHash>
#include <QObject>
#include <QPointer>

#include <memory>

class QMenu;
class QTabWidget;
class QWidget;

namespace sandscope {

class DesktopNotifier;
class ExportJob;
class FilesPage;
class MessageBar;
class RunPage;
class ServerSession;
class SessionListModel;
class WindowState;
struct LiveRunRequest;
struct RunHandle;
struct SessionSource;

class RunTabs : public QObject {
    Q_OBJECT
public:
    // Tabs go into `pages`, as the identity `session` acts as; messages to `messages`.
    RunTabs(QTabWidget *pages, ServerSession *session, MessageBar *messages,
        DesktopNotifier *notifier, WindowState *windowState, QObject *parent = nullptr);

    // The Files tab: a turn that may have changed files refreshes it, and its chat is the one
    // New Run offers when it is in front.
    void setFilesPage(FilesPage *files) { m_files = files; }
    // The Sessions page's rows: they learn what the tabs know of their sessions' processes (a
    // run started here has ended, a followed session's turn ended), which beats the listing's
    // "written in the last 30 s".
    void setSessionList(SessionListModel *sessions);

    // `base`, or "base (2)", "base (3)" … whichever is not taken yet.
    static QString uniqueTitle(const QString &base, const QStringList &taken);
    // The run tab in front, if any.
    RunPage *currentRun() const;

    // Opens a run recording or stream-json capture in a new, closable run tab.
    RunPage *openRunFile(const QString &path);
    // Opens each file in its own run tab (command line, drops, Open Recent); one message
    // names the files that could not be opened. Returns how many opened.
    int openRunFiles(const QStringList &paths);
    // Starts a live run in a new closable tab titled "<user> · <chat>"; several stream at once.
    // `attachments` are local files uploaded into the chat and named in the prompt.
    RunPage *startLiveRun(const LiveRunRequest &request, const QStringList &attachments = {});
    // Follows a run started earlier (its tab or the app was closed) in a new tab, from its
    // first line; Stop and follow-ups work as for a run started here.
    // `environment` is written for follow-ups (every turn rewrites the 0600 env file).
    RunPage *attachLiveRun(
        const RunHandle &handle, const QHash<QString, QString> &environment = {});
    // Shows a session found on the server (read as its user) in a new tab and follows it
    // while the tab is open; with a tool call id (or else a line of its transcript), that node
    // is selected once shown. A session that has a tab already is shown in that tab.
    RunPage *openSession(
        const SessionSource &source, const QString &toolUseId = {}, qint64 line = 0);
    // The tab showing the session of `source` (the same user's same transcript), if any.
    RunPage *sessionTab(const SessionSource &source) const;
    // Downloads a stream-json file of the acting user and shows it in a run tab.
    void openRemoteRun(const QString &remotePath);

    // Writes what `page` shows (also a live run, as far as it got); the page keeps everything
    // whether or not the file could be written. False with the reason.
    bool exportRun(const RunPage *page, const QString &path, RunExporter::Format format,
        bool redact, QString *why) const;
    // exportRun with the slow part on a worker thread (the dialog's way); the message bar
    // tells the result and exportFinished follows.
    void startExport(
        const RunPage *page, const QString &path, RunExporter::Format format, bool redact);

    // File › Open Recent: the runs opened last, each with its accelerator.
    void fillRecentMenu(QMenu *menu);
    // A tab with a close button, brought to the front.
    int addClosableTab(
        QWidget *page, const QString &title, const QString &toolTip, const QString &closeToolTip);

public Q_SLOTS:
    void showOpenRunDialog();
    // File → Compare Runs…: two open run tabs or files, shown side by side in a Compare tab.
    void showCompareDialog();
    // File › Export…: the run tab in front as HTML, Markdown or JSON (ExportRunDialog).
    void showExportDialog();
    // Asks for a live run as the current identity (File → New Run…, Ctrl+N).
    void showNewRunDialog();
    // Lists the acting user's runs in the sandbox to show one again (File → Attach to Run…).
    void showAttachRunDialog();
    // New Run for the session's chat that resumes it, or forks it (a new session with a copy
    // of its history).
    void showContinueSessionDialog(const sandscope::SessionSource &source, bool fork);

Q_SIGNALS:
    // An export started by startExport ended: written, failed or cancelled.
    void exportFinished(bool written);
    // A run asks to show a file (or folder) of `userId` in the Files tab.
    void openFileRequested(const QString &userId, const QString &absolutePath);

private:
    QWidget *window() const;
    RunPage *openRunFileReporting(const QString &path, QString *why);
    QString liveRunTitle(const QString &userId, const QString &chatId) const;
    int addRunTab(RunPage *page, const QString &title, const QString &toolTip);
    void showNewRunDialogLike(const LiveRunRequest *like);
    // Connected and acting as a sandbox user; otherwise says what `what` needs.
    bool canActOnRuns(const QString &what);
    RunPage *newLiveRunPage();
    QString currentChatId() const;
    void connectRunPage(RunPage *page);
    // What `page` knows of its session's process, told to the session list when it changed.
    void reportSession(RunPage *page);
    void forgetSession(QObject *page);
    void tellSessionList(const QString &sessionId);
    // What `page` shows, copied now, to export with the connection's key masked when `redact`.
    std::shared_ptr<ExportJob> exportJob(const RunPage *page, bool redact) const;

    QTabWidget *m_pages;
    ServerSession *m_session;
    MessageBar *m_messages;
    DesktopNotifier *m_notifier;
    WindowState *m_windowState;
    FilesPage *m_files = nullptr; // lives as long as the window
    QPointer<SessionListModel> m_sessionList; // its page may go before the run tabs do
    struct SessionKnowledge {
        QString sessionId;
        int knowledge = 0; // SessionListModel::Knowledge
    };
    QHash<QObject *, SessionKnowledge> m_sessionKnowledge; // by page
};

} // namespace sandscope
