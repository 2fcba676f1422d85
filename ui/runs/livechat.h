#pragma once
// The live chat of a run page: its turns through a RunController (start, attach, follow-up,
// Stop, New chat), the chat's recording, the attachments uploaded into the chat folder before
// a turn starts (AttachmentUpload through FileOperations) and the controls that drive it all.
// A failed upload starts nothing and keeps the prompt and the attachments; for a first turn
// Send tries again. The page keeps the view: the chat reaches it only through its signals.

#include "files/fileoperations.h"
#include "runs/runcontroller.h"
#include "streamjson/runevents.h"

#include <QObject>
#include <QPointer>

#include <memory>

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QToolButton;
class QWidget;

namespace sandscope {

class AttachmentList;
class AttachmentUpload;
class OpenTerminalClient;

// The widgets a live chat drives; they belong to the page and outlive the chat's use of them.
struct LiveChatWidgets {
    QPushButton *stopButton = nullptr; // Stop the running turn
    QLineEdit *followUpEdit = nullptr; // the follow-up prompt (Return sends it)
    QPushButton *sendButton = nullptr; // Send: resume the session with the follow-up
    QToolButton *attachButton = nullptr; // choose local files for the next turn
    QPushButton *newChatButton = nullptr; // ask for another chat like this one
    AttachmentList *attachmentList = nullptr; // the files for the next turn
    QWidget *attachmentPanel = nullptr; // holds the list, the label and the progress
    QProgressBar *uploadProgress = nullptr;
    QLabel *uploadLabel = nullptr;
};

class LiveChat : public QObject {
    Q_OBJECT

public:
    LiveChat(const LiveChatWidgets &widgets, QObject *parent = nullptr);
    ~LiveChat() override;

    // Checks the request (chat id, prompt, options), opens the recording and begins the first
    // turn (after its attachments). False with a message when the request is refused.
    bool start(OpenTerminalClient *client, const LiveRunRequest &request, QString *errorMessage);
    // Follows a run started earlier instead of starting one.
    bool attach(OpenTerminalClient *client, const LiveRunRequest &request, const RunHandle &handle,
        QString *errorMessage);
    // Resumes the session with `prompt`; after an interrupted turn an empty prompt sends
    // resumePrompt().
    bool sendFollowUp(const QString &prompt);
    static QString resumePrompt();
    // The last turn was interrupted: Send reads "Resume".
    bool wasInterrupted() const { return m_interrupted; }
    void stop();

    bool isLive() const { return m_controller && m_controller->hasTurn(); }
    bool isActive() const { return m_controller && m_controller->isActive(); }
    bool isUploading() const;
    // A turn waits for its attachments, or a first turn's upload failed.
    bool hasPendingTurn() const { return m_uploadingTurn || m_unstartedFirstTurn; }
    QString sessionId() const { return m_controller ? m_controller->sessionId() : QString(); }
    QString recordingPath() const;
    const LiveRunRequest *request() const;
    QString userId() const;
    OpenTerminalClient *client() const { return m_client; }

    void setRecordingDirectory(const QString &directory) { m_recordingDirectory = directory; }
    void setStopGraceMs(int ms) { m_stopGraceMs = ms; }
    void setFileAccess(
        FileOperations::Acting acting, const QString &profileName, const QString &serverText);
    FileOperations *fileOperations() const { return m_fileOperations; }

    // Where the run's linked paths resolve, once the first turn started: the account's home,
    // claude's working directory (the chat folder), and the first turn's prompt file, whose
    // time is "since the run started" for the artifacts.
    QString home() const { return m_home; }
    QString workDirectory() const { return m_workDirectory; }
    QString artifactsReference() const { return m_artifactsReference; }

Q_SIGNALS:
    // Parsed events of the live turns, for the page's model.
    void eventsReady(const sandscope::RunEventBatch &events);
    void noticeRequested(const QString &text, bool isError);
    // A turn ended: without a result the view ends the run (open calls become interrupted).
    void turnEndedInView(bool hasResult);
    // The turn's process runs (true, the linked-path bases are known) or ended (false).
    void turnRunningChanged(bool running);
    void liveTurnStarted();
    void liveTurnFinished(bool ok);
    void newChatRequested(const sandscope::LiveRunRequest &like);
    void attachmentUploadFailed(const QString &message);

private:
    void showNotice(const QString &text, bool isError = false);
    // Uploads the attachments (if any), then starts the turn.
    void beginTurn(const LiveRunRequest &request);
    // Starts the turn, or with `attachTo` follows that run instead of starting one.
    void startTurn(const LiveRunRequest &request, const RunHandle *attachTo = nullptr);
    void openRecording(const LiveRunRequest &request);
    void ensureController();
    void ensureFileOperations(const Identity &identity);
    void onUploadFinished(const QStringList &relativePaths);
    void onUploadFailed(const QString &message);
    void onTurnEnded(const sandscope::RunOutcome &outcome);
    void updateAttachmentPanel();
    void updateControls();

    LiveChatWidgets m_widgets;
    OpenTerminalClient *m_client = nullptr;
    RunController *m_controller = nullptr; // once a chat started
    QString m_recordingDirectory;
    int m_stopGraceMs = 3000;

    // A turn waiting for its attachments, and a first turn whose upload failed (Send retries).
    std::unique_ptr<LiveRunRequest> m_uploadingTurn;
    std::unique_ptr<LiveRunRequest> m_unstartedFirstTurn;
    QPointer<AttachmentUpload> m_upload;
    FileOperations *m_fileOperations = nullptr;
    FileOperations::Acting m_fileActing = FileOperations::Acting::AsOtherUser;
    QString m_auditProfile;
    QString m_auditServer;

    bool m_interrupted = false;
    QString m_home;
    QString m_workDirectory;
    QString m_artifactsReference;
};

} // namespace sandscope
