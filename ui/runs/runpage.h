#pragma once
// The run view: the run tree (RunModel behind RunFilterProxy) painted by RunDelegate, the
// detail pane of the current node, the summary bar, search, "errors only", next/previous
// error (F8 / Shift+F8), expand/collapse all and follow mode. It shows a recording or a
// stream-json capture loaded in the background, a session on the server (RunPageSession), or
// live events (enqueueEvents). Playback is RunPagePlayback's. A live chat (startLiveRun; LiveChat
// drives it) is recorded to its own file; Stop ends the running turn (SIGTERM, then SIGKILL), Send
// resumes the chat's session with a follow-up prompt as a new turn in the same page, New chat asks
// for another run. Local files can be attached to a turn (the first one too): they are uploaded
// into the chat folder before the turn starts and named in its prompt; a failed upload starts
// nothing and keeps the prompt and the attachments. The Artifacts tab lists the files of the chat
// folder created or changed since the run started (when a turn starts and ends, every 30 s while it
// runs, and on request). The file of a Read/Write/Edit/NotebookEdit node, or an artifact, opens
// through openFileRequested (context menu, the detail pane's button, Ctrl+Shift+O). The run's
// timeline (TimelineView) shares the top of the page with the tree as a second tab
// (Ctrl+Shift+L switches; Ctrl+Shift+R fits the run, Ctrl+Shift+S the selection); it selects
// what the tree selects, and the other way round.

#include "files/fileoperations.h"
#include "playback/runplayback.h"
#include "recordings/recordingloader.h"
#include "runs/runcontroller.h"
#include "runs/runsession.h"
#include "runtree/runeventbatcher.h"
#include "runtree/runfilterproxy.h"
#include "runtree/runmodel.h"
#include "sessions/sessionsource.h"
#include "sessions/transcriptfollower.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QList>
#include <QPersistentModelIndex>
#include <QPointer>
#include <QTimer>
#include <QWidget>

#include <memory>
#include <optional>

class QAction;
class QLineEdit;
class QPushButton;
class QToolButton;
class QTreeView;

namespace sandscope {

class ArtifactsPanel;
class AttachmentList;
class LiveChat;
class PlaybackBar;
class PlaybackPreparer;
class RunPagePlayback;
class RunPageSession;
class OpenTerminalClient;
class RunDetailPane;
class RunSummaryBar;
class RunPageSearch;
class TimelineModel;
class TimelineView;

namespace Ui {
class RunPage;
}

class RunPage : public QWidget {
    Q_OBJECT

public:
    explicit RunPage(QWidget *parent = nullptr);
    ~RunPage() override;

    // Reads a recording or a plain stream-json capture in time-boxed slices; loadFinished()
    // follows. Returns false (with a message, also shown on the page) when it cannot be opened
    // or the page already shows a run (one run per page).
    bool openFile(const QString &path, QString *errorMessage = nullptr);
    // From this size on, openFile leaves the file's lines out of memory and reads a node's
    // line again when its JSON is shown (16 MiB unless set; for tests).
    void setKeepLinesBelowBytes(qint64 bytes) { m_keepLinesBelowBytes = bytes; }
    // Above this many nodes a search that reads the run's file is applied a slice at a time
    // (RunPageSearch), below it at once when judged (75,000 unless set; for tests).
    void setSlicedSearchAboveNodes(qint64 nodes);
    bool isLoading() const;
    QString filePath() const { return m_filePath; }
    // What could not be read of the file (damaged lines, missing sub-agents, what a re-opened
    // export lists as skipped): exports list it.
    QStringList skippedLines() const { return m_skipped; }

    // Live events (parsed by the live chat's RunController, or by whoever feeds the page)
    // reach the model in batches.
    void enqueueEvents(const sandscope::RunEventBatch &events);
    // The process exited: open calls become interrupted.
    void endRun(qint64 arrivalMs);
    // Parsed events reach the model in batches (every 40 ms or more while events flood in);
    // this applies the pending ones now.
    void flushEvents();

    bool isFollowing() const { return m_following; }
    QString noticeText() const;

    RunModel *model() const { return m_model; }
    RunFilterProxy *proxy() const { return m_proxy; }
    QTreeView *treeView() const;
    // The run on a time axis, in the tab beside the tree's; it selects what the tree selects.
    TimelineView *timelineView() const;
    TimelineModel *timelineModel() const { return m_timeline; }
    // Whether the timeline's tab is shown (else the tree's).
    bool isTimelineShown() const;
    RunDetailPane *detailPane() const;
    RunSummaryBar *summaryBar() const;
    QLineEdit *searchEdit() const;
    QToolButton *followButton() const;
    QToolButton *errorsOnlyButton() const;
    // Stop, follow-up prompt, send and new chat: enabled as a live chat allows.
    QList<QWidget *> runControls() const;

    // Starts the first turn of a live chat in this page (one chat per page). Its lines are
    // recorded to a new file in recordingDirectory() (default: RunRecorder's) before they
    // are shown. False with a message when the page already shows something.
    bool startLiveRun(OpenTerminalClient *client, const sandscope::LiveRunRequest &request,
        QString *errorMessage = nullptr);
    // Shows a run started earlier (its page or the app was closed; see rundiscovery) from its
    // first line and follows it while it runs; Stop and follow-ups work as for a run started
    // here. `request` names the user, scope and chat (and the environment for follow-ups).
    bool attachLiveRun(OpenTerminalClient *client, const sandscope::LiveRunRequest &request,
        const sandscope::RunHandle &handle, QString *errorMessage = nullptr);
    // Shows a session's transcript, read in the sandbox as its user, and follows it while
    // the page is open (a run Open WebUI started can be watched as it happens). The
    // Artifacts tab lists the files of its working directory changed since it started.
    bool openSession(
        OpenTerminalClient *client, const SessionSource &source, QString *errorMessage = nullptr);
    // The session this page shows (null for other pages).
    const SessionSource *sessionSource() const;
    // Selects (and scrolls to) the tool call once it is shown: now, or when it arrives; without
    // one (or when it is not in the run) the last node made from `line` (1-based, a line of
    // the run's own file: a search hit's line in the session's transcript).
    void revealToolCall(const QString &toolUseId, qint64 line = 0);
    TranscriptFollower *sessionFollower() const;
    // Resumes the chat's session (--resume) with a follow-up prompt as a new turn. False
    // while a turn runs or before the session is known.
    bool sendFollowUp(const QString &prompt);
    void stopRun();
    bool isLive() const;
    bool isRunActive() const;
    // The chat's Claude session as the stream named it (empty until then).
    QString sessionId() const;
    QString recordingPath() const;
    void setRecordingDirectory(const QString &directory);
    void setStopGraceMs(int ms);
    const LiveRunRequest *liveRequest() const;
    // The sandbox user the page's run acts as (empty for recordings).
    QString userId() const;

    // Local files for the next turn; for the first one, call before startLiveRun.
    void addAttachments(const QStringList &localPaths);
    QStringList attachments() const;
    AttachmentList *attachmentList() const;
    bool isUploading() const;
    // Attachment uploads are mutating file actions (FileOperations): acting as another user
    // they are refused (and audited as refused) until read-only mode is lifted through
    // fileOperations(). Until this is called the page acts as if for another user.
    void setFileAccess(
        FileOperations::Acting acting, const QString &profileName, const QString &serverText);
    FileOperations *fileOperations() const; // null before a run

    ArtifactsPanel *artifactsPanel() const;
    // Lists the artifacts again (live chats whose first turn has started).
    void refreshArtifacts();
    // The file of a Read/Write/Edit/MultiEdit/NotebookEdit node (a RunModel index) as an
    // absolute path: relative paths resolve against claude's working directory (the chat
    // folder), "~/" against the home. Empty for other nodes.
    QString linkedFilePath(const QModelIndex &sourceIndex) const;
    QAction *openFileAction() const { return m_openFileAction; }

    // Playback (RunPlayback, the playback bar): the run as it was at any moment, played at
    // 1x to 100x. A file is read again for it; a live run or session keeps its events (shared
    // with the parsed batches) and goes on arriving underneath, frozen in the view until
    // playback is left ("Live"), which shows the whole run again. Entering prepares playback
    // on a worker thread (PlaybackPreparer: about a second at 100,000 events) with progress
    // and Cancel in the load panel; the run stays shown and usable meanwhile, and
    // playbackPrepared() tells how it went. False with a message while the run is still being
    // read or has no events.
    bool enterPlayback(QString *errorMessage = nullptr);
    void leavePlayback();
    bool isPreparingPlayback() const;
    bool isInPlayback() const { return playback() != nullptr; }
    RunPlayback *playback() const;
    PlaybackBar *playbackBar() const;
    QToolButton *playbackButton() const;

public slots:
    void setFollowing(bool following);
    void setTimelineShown(bool shown);
    void nextError();
    void previousError();
    void expandAll();
    void collapseAll();
    void cancelLoading();
    void focusSearch();
    // Emits openFileRequested for the current node's file (see linkedFilePath).
    void openFileOfCurrentNode();
    void setPlaybackActive(bool active);

Q_SIGNALS:
    void loadFinished(bool completed);
    // Entering playback ended: in playback, or not (failed or cancelled; the notice says).
    void playbackPrepared(bool inPlayback);
    // A session page's Resume…, Fork… and Open Folder in Files.
    void continueSessionRequested(const sandscope::SessionSource &source, bool fork);
    void openFolderRequested(const QString &userId, const QString &absolutePath);
    void followingChanged(bool following);
    // A live turn started, and ended (ok: a successful result).
    void liveTurnStarted();
    void liveTurnFinished(bool ok);
    // New chat was pressed: `like` is this chat's request (user, options, environment).
    void newChatRequested(const sandscope::LiveRunRequest &like);
    // Open this file (absolute) in the Files tab's browser and preview, acting as userId
    // (empty: the page shows a recording; use the current user).
    void openFileRequested(const QString &userId, const QString &absolutePath);
    // The Artifacts tab was refreshed with `count` files.
    void artifactsListed(int count);
    // The attachments of a turn could not be uploaded; the turn did not start.
    void attachmentUploadFailed(const QString &message);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void showLoadProgress(qint64 done, qint64 total);
    void onBatchApplied();
    void onViewCaughtUp();
    void setupTree();
    void setupTimeline();
    void onTimelineCurrentChanged(const QModelIndex &current);
    void setupActions();
    void onRowsInserted(const QModelIndex &parent, int first, int last);
    void onCurrentChanged(const QModelIndex &current);
    void onSourceDataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight);
    void onScrollValueChanged(int value);
    void scheduleFollowScroll();
    void applyPendingViewWork();
    void applyPendingExpansions();
    void updateSummary();
    void goToError(bool forward);
    void selectNode(const QModelIndex &proxyIndex);
    void showNotice(const QString &text, bool isError = false);
    void onLoadFinished(bool completed);
    bool openExport(const QString &path, QString *errorMessage);
    // Creates the live chat on the control row's widgets and shows what it reports.
    void setupLiveChat();
    bool refuseSecondRun(QString *errorMessage);
    void showTreeMenu(const QPoint &position);

    std::unique_ptr<Ui::RunPage> m_ui;
    RunModel *m_model;
    RunFilterProxy *m_proxy;
    TimelineModel *m_timeline;
    bool m_syncingSelection = false; // the tree and the timeline select each other's node
    QPointer<RecordingLoader> m_reader;
    bool m_drainingLoad = false; // the file is parsed; the tree takes the rest in slices
    bool m_loadCompletedBeforeDrain = false;
    QString m_filePath;
    qint64 m_keepLinesBelowBytes = 16 * 1024 * 1024;
    QStringList m_skipped;

    bool m_following = true;
    bool m_autoScrolling = false;
    RunEventBatcher *m_batcher;
    QTimer m_viewTimer; // coalesces follow scrolling and auto-expansion per batch
    QTimer m_catchUpTimer; // the turn after a batch's, once the tree laid its rows out
    QElapsedTimer m_sinceBatch;
    QTimer m_summaryTimer;
    QTimer m_progressTimer; // shows m_loadPermille in the load panel's bar
    int m_loadPermille = 0;
    QTimer m_detailTimer;
    QTimer m_searchTimer;
    RunPageSearch *m_search = nullptr;
    QList<QPersistentModelIndex> m_pendingExpand;
    QList<QPersistentModelIndex> m_autoExpandedTurns;
    // The calls opened here since the current turn started (they fold with their turn).
    QList<QPersistentModelIndex> m_autoExpandedCalls;
    bool m_pendingScroll = false;

    LiveChat *m_chat = nullptr; // stop, follow-ups, new chat and the attachment uploads
    friend class RunPageSession; // drives the load panel, the notice and the control row
    RunPageSession *m_sessionView = nullptr; // a session page's reading and controls
    // A tool call to select once it is shown, or the line to select once it is read.
    std::pair<QString, qint64> m_pendingReveal;
    QAction *m_openFileAction = nullptr;

    void onModelReset();
    friend class RunPageSearch; // the search field, its count, the tree
    friend class RunPagePlayback; // drives the load panel and the playback controls
    RunPagePlayback *m_replay;
    bool m_loadCompleted = false;
    QString m_currentToolUseId; // kept across a playback jump
};

} // namespace sandscope
