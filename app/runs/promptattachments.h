#pragma once
// Local files attached to the next prompt of a chat. Before the turn starts they are uploaded
// byte for byte (multipart /files/upload) into ~/chat-<id>/attachments/, each under a name
// no entry there has yet (photo.png, photo-2.png, …; a file created by someone else between
// the listing and the upload is the only way to lose one), and the prompt gets one line per
// file naming it relative to the chat workdir, claude's working directory.
// Uploading is a mutating file action: it goes through FileOperations, so read-only mode
// refuses it before anything is sent and every upload is written to the audit log.

#include <QObject>
#include <QPointer>
#include <QSet>
#include <QStringList>

namespace sandscope {

class FileOperations;
class OpenTerminalClient;

namespace promptattachments {

// The folder inside the chat workdir.
QString folderName();
// Bigger local files are refused before anything is uploaded (the server holds an upload
// in memory, and so do we).
constexpr qint64 maxFileBytes = 100 * 1024 * 1024;

// A name based on `wanted` that is not in `taken`: control characters become '_', a clash
// gets "-2", "-3", … before the first suffix ("a.tar.gz" -> "a-2.tar.gz").
QString uniqueName(const QString &wanted, const QSet<QString> &taken);
// The prompt followed by a blank line and "Attached file: <path>" per file.
QString promptWithReferences(const QString &prompt, const QStringList &relativePaths);
// Empty when every local file can be attached; otherwise one sentence naming the first one
// that cannot (missing, a folder, unreadable, too big).
QString checkLocalFiles(const QStringList &localPaths);

} // namespace promptattachments

// One batch of uploads; it deletes nothing and deletes itself never (its parent owns it).
class AttachmentUpload : public QObject {
    Q_OBJECT
public:
    // `operations` acts as the chat's user (its identity) and decides read-only mode.
    AttachmentUpload(
        OpenTerminalClient *client, FileOperations *operations, QObject *parent = nullptr);

    // `home` is the account's home when known (from the run); empty: asked from the server.
    // Signals follow later, never inside the call.
    void start(const QString &home, const QString &chatId, const QStringList &localPaths);
    bool isRunning() const { return m_running; }

Q_SIGNALS:
    // After each file; the first one (0 of n) before any bytes are sent.
    void progress(int uploaded, int total, const QString &currentName);
    // The paths relative to the chat workdir ("attachments/<name>"), in the given order.
    void finished(const QStringList &relativePaths);
    void failed(const QString &message);

private:
    void listFolder();
    void uploadNext();
    void fail(const QString &message);

    OpenTerminalClient *m_client;
    QPointer<FileOperations> m_operations;
    bool m_running = false;
    QString m_chatId;
    QString m_folder; // absolute
    QStringList m_pending;
    QStringList m_total;
    QSet<QString> m_taken;
    QStringList m_uploaded; // relative paths
};

} // namespace sandscope
