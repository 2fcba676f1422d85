#pragma once
// Every Claude Code session of the acting user found on the server (most started by Open WebUI,
// not by Sandscope), newest activity first: filterable as you type, sortable by any column, and
// refreshed every 15 s while the page is visible so "running now" stays true. Below it a search
// in the transcripts that runs on the server (sessionsearch); a hit opens its session at the
// tool call it belongs to. Listing and search run in the background as the acting user; their
// answers are dropped when the user or server changes or a newer request starts. The status
// line names the user whose sessions are shown. "All users" runs on every member of a fleet at
// once (FleetFanOut): each member's rows are merged in as its listing streams them (hits as it
// answers), with a Member column, and a member that fails is named in the page's message bar
// while the others' rows stay.

#include "server/adminaccess.h"
#include "server/connection.h"
#include "sessions/sessionsearch.h"
#include "sessions/sessionsource.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QTimer>
#include <QUrl>
#include <QWidget>

#include <functional>
#include <memory>

class QAction;
class QComboBox;
class QLineEdit;
class QTreeView;

namespace sandscope {

class FleetFanOut;
class MessageBar;
class OpenTerminalClient;
class SessionFilterProxy;
class SessionActivity;
class SessionListModel;
class SessionSearchModel;
struct DiscoveredSession;
struct SessionSearchHit;

namespace Ui {
class SessionsPage;
}

class SessionsPage : public QWidget {
    Q_OBJECT
public:
    static constexpr int defaultAutoRefreshMs = 15000;
    // While writes are pushed (SessionActivity), the listing only finds new sessions and
    // recounts: it runs this many times less often.
    static constexpr int pushedRefreshFactor = 4;
    // The titles take the width the other columns leave, at least this many characters.
    static constexpr int titleMinimumCharacters = 20;
    // With a fleet's Member column: the title gives it some room, so that the table still fits
    // a 1360-pixel window.
    static constexpr int titleMinimumCharactersWithMembers = 14;

    explicit SessionsPage(QWidget *parent = nullptr);
    ~SessionsPage() override;

    // Not owned; nullptr means "not connected". Another user or server clears the rows and
    // the search results and loads again when the page is visible.
    void setConnection(OpenTerminalClient *client, const Identity &identity);
    Identity identity() const { return m_identity; }
    void setAutoRefreshInterval(int ms) { m_refreshMs = ms; }
    // The admin channel for "All users" and the server's account prefix (a user id is the
    // account without it); where the homes are (tests: a folder of their own).
    void setAdminAccess(const AdminAccess &admin, const QString &accountPrefix);
    void setHomesRoot(const QString &homesRoot) { m_homesRoot = homesRoot; }
    // Where "All users" runs: ServerSession::createFanOut (a fleet's members, or the server).
    // Without one, the server of setConnection with the admin access of setAdminAccess.
    using FanOutFactory = std::function<FleetFanOut *(QObject *parent)>;
    void setFanOutFactory(FanOutFactory factory, bool isFleet);
    bool isFleet() const { return m_fleet; }
    // Every user's sessions instead of the acting user's.
    void setAllUsers(bool allUsers);
    bool isAllUsers() const;

    SessionListModel *model() const { return m_model; }
    SessionFilterProxy *proxy() const { return m_proxy; }
    QTreeView *view() const;
    SessionSearchModel *searchModel() const { return m_searchModel; }
    QTreeView *searchView() const;
    QLineEdit *filterEdit() const;
    // Names the members of a fleet that failed (the others' rows are shown).
    MessageBar *messageBar() const;
    QLineEdit *searchEdit() const;
    QComboBox *toolCombo() const;
    QAction *refreshAction() const { return m_refreshAction; }
    QAction *openAction() const { return m_openAction; }
    QAction *resumeAction() const { return m_resumeAction; }
    QAction *forkAction() const { return m_forkAction; }
    QAction *openFolderAction() const { return m_openFolderAction; }

    QString statusText() const;
    bool statusIsError() const { return !m_error.isEmpty(); }
    QString searchStatusText() const;
    bool isLoading() const { return m_request != nullptr; }
    bool isSearching() const { return m_searchRequest != nullptr; }

    // What the signals carry for a listed session, and for a search hit (its main session,
    // also for a hit in a sub-agent's file; built from the hit when the session is not listed).
    SessionSource sourceFor(const DiscoveredSession &session) const;
    SessionSource sourceForHit(const SessionSearchHit &hit) const;
    // …/<session>/subagents/agent-<id>.jsonl -> …/<session>.jsonl; other paths unchanged.
    static QString mainTranscriptPath(const QString &path);

public Q_SLOTS:
    void refresh();
    // Searches the acting user's transcripts on the server; an empty tool means any tool.
    void search(const QString &query, const QString &toolName = {});

    // Non-empty when the server refuses its own account: what the all-users view needs
    // (AdminAccess::refusalAdvice). Shown instead of a request that would be refused while no
    // admin command is set.
    void setAdminAdvice(const QString &advice);

Q_SIGNALS:
    // The user asked to set the admin command (File › Connect…).
    void adminCommandRequested();
    // toolUseId and line are empty and 0 for a plain open; for a search hit, its tool call and
    // its line in the session's transcript (0 for a hit in a sub-agent's file).
    void openSessionRequested(
        const sandscope::SessionSource &source, const QString &toolUseId, qint64 line = 0);
    void resumeRequested(const sandscope::SessionSource &source, bool fork);
    void openFolderRequested(const QString &userId, const QString &absolutePath);
    void listingFinished(bool ok);
    void searchFinished(bool ok);

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    QString m_adminAdvice;
    bool m_needsAdminCommand = false;
    void setupViews();
    void setupActions();
    void searchFromWidgets();
    // The all-users listing and search on every member of the fan-out at once.
    void listAllUsers();
    void searchAllUsers(const QString &query, const sessionsearch::Options &options,
        const QString &quoted, const QString &toolName);
    FleetFanOut *createFanOut(QObject *parent) const;
    // The Member columns are as wide as the longest member name seen.
    void noteMemberNames(const FleetFanOut *fanOut);
    // The members that failed in the last all-users listing, or none.
    void showMemberErrors(const QStringList &errors);
    // The summary of a finished search.
    QString searchSummary(
        int count, bool truncated, const QString &quoted, const QString &toolName) const;
    void scheduleAutoRefresh();
    // The pause between listings: longer while writes are pushed.
    int refreshDelayMs() const;
    void updateStatus();
    void setSearchStatus(const QString &text, bool isError);
    void updateActions();
    void showContextMenu(const QPoint &position);
    void openHitAt(const QModelIndex &viewIndex);
    void updateSearchTitles();
    // The selected row of the sessions table as a row of model(), or -1.
    int selectedRow() const;
    QString folderOf(const DiscoveredSession &session) const;
    QString userText() const;

    std::unique_ptr<Ui::SessionsPage> m_ui;
    QPointer<OpenTerminalClient> m_client;
    QUrl m_serverUrl;
    Identity m_identity;
    SessionListModel *m_model;
    SessionActivity *m_activity;
    SessionFilterProxy *m_proxy;
    SessionSearchModel *m_searchModel;
    QAction *m_refreshAction = nullptr;
    QAction *m_openAction = nullptr;
    QAction *m_resumeAction = nullptr;
    QAction *m_forkAction = nullptr;
    QAction *m_openFolderAction = nullptr;
    QTimer m_autoRefresh;
    int m_refreshMs = defaultAutoRefreshMs;
    QElapsedTimer m_sinceListing; // invalid until the first listing of this connection
    QObject *m_request = nullptr; // owns the listing in flight; deleting it drops the answer
    QObject *m_searchRequest = nullptr; // the same for the search
    QString m_error; // of the last listing; empty when it succeeded
    QStringList m_refused; // transcripts not listed: they lead out of the home
    bool m_listed = false; // a listing of this connection succeeded
    AdminAccess m_adminAccess;
    QString m_accountPrefix;
    QString m_homesRoot = QStringLiteral("/home");
    FanOutFactory m_fanOutFactory;
    bool m_fleet = false; // the fan-out factory makes a fleet's
    int m_membersAnswered = 0; // in the all-users listing in flight
    int m_membersAsked = 0;
    QString m_longestMember = QStringLiteral("member");
};

} // namespace sandscope
