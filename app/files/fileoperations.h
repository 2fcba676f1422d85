#pragma once
// The file actions of the browser and the CLI: upload, download (file bytes or a folder as
// ZIP), new folder, move/rename, delete, write text. Every mutating action is refused in
// read-only mode before anything is sent (acting as another user starts read-only), and
// every mutating action, refused or not, is written to the audit log with its result.
// A move onto an existing path ends in a Conflict result; replacing it (delete, then move)
// happens only when the caller asks for it, i.e. after the user confirmed.
// Reads (downloads, archives, and previews through recordRead) are audited too while acting as
// another user, so the log tells whose files were looked at, not only who was switched to.
// Acting as a user (not the server account), every path is first resolved as that user and
// refused when it leads out of the user's home, and files are read through the user's own
// shell (pathguard.h): the server's file API runs as root and follows symlinks.

#include "security/auditlog.h"
#include "server/apierror.h"
#include "server/connection.h"
#include "server/types.h"

#include <QObject>
#include <QPointer>
#include <QStringList>

#include <functional>

namespace sandscope {

class OpenTerminalClient;

struct FileOperationResult {
    // OutsideHome: the path's real location, resolved as the acting user, is outside the
    // user's home (see PathGuard); nothing was sent to the file API.
    enum class Status { Ok, Failed, Conflict, ReadOnly, OutsideHome };

    Status status = Status::Ok;
    QString action; // "upload", "mkdir", "move", "delete", "write", "download", "archive"
    QString path; // the remote path acted on (the source of a move)
    QString destination; // moves and uploads
    ApiError error; // Failed and Conflict
    QByteArray bytes; // downloads
    QString fileName; // downloads: the name the server suggested
    QString refusal; // OutsideHome: which link leads where

    bool ok() const { return status == Status::Ok; }
    // The action changes files (everything but downloads and archives): a chat's size and last
    // activity may have changed with it, also when it failed halfway.
    bool changesFiles() const
    {
        return action != QLatin1String("download") && action != QLatin1String("archive");
    }
    // One sentence for people; a Conflict says which path exists.
    QString message() const;
};

class FileOperations : public QObject {
    Q_OBJECT
public:
    using Done = std::function<void(const FileOperationResult &)>;
    enum class Acting { AsSelf, AsOtherUser };
    enum class OnConflict { Report, Replace };

    explicit FileOperations(OpenTerminalClient *client, QObject *parent = nullptr);

    // Acting as another user switches read-only mode on; it can be lifted with setReadOnly.
    void setIdentity(const Identity &identity, Acting acting);
    Identity identity() const { return m_identity; }
    void setReadOnly(bool readOnly);
    bool isReadOnly() const { return m_readOnly; }

    // Written into every audit line.
    void setAuditContext(const QString &profileName, const QString &serverText);
    void setAuditLogPath(const QString &path) { m_auditLog = AuditLog(path); }

    // Mutating (refused in read-only mode, audited). `done` runs once, later (never inside
    // the call), unless `context` is gone by then.
    // Each local file keeps its name; stops at the first failure.
    void uploadFiles(
        const QStringList &localPaths, const QString &remoteDirectory, QObject *context, Done done);
    void uploadData(const QString &remoteDirectory, const QString &fileName,
        const QByteArray &bytes, QObject *context, Done done);
    void makeDirectory(const QString &path, QObject *context, Done done);
    void move(const QString &source, const QString &destination, OnConflict onConflict,
        QObject *context, Done done);
    void remove(const QString &path, QObject *context, Done done);
    void writeText(const QString &path, const QString &text, QObject *context, Done done);

    // Reading (allowed in read-only mode; audited when acting as another user).
    void downloadFile(const QString &path, QObject *context, Done done);
    void downloadFolderAsZip(const QString &path, QObject *context, Done done);
    // A read done elsewhere (the browser's preview): audited like the reads above.
    void recordRead(const QString &action, const QString &path, const QString &result);
    bool actsAsOtherUser() const { return m_acting == Acting::AsOtherUser; }

Q_SIGNALS:
    // After every mutating action (refused ones included), e.g. to refresh a folder.
    void finished(const sandscope::FileOperationResult &result);
    void readOnlyChanged(bool readOnly);

private:
    // Where a result goes: the callback, as long as its context (if it had one) lives.
    struct Reply {
        Reply(QObject *context, Done callback)
            : guard(context)
            , hasContext(context != nullptr)
            , done(std::move(callback))
        {
        }
        QPointer<QObject> guard;
        bool hasContext;
        Done done;
    };

    // Delivers through the event loop so that callers never see their callback re-entered;
    // mutating results are audited and announced first.
    // Reads are recorded while acting as another user (recordRead).
    void deliver(const FileOperationResult &result, const Reply &reply, bool mutating);
    // Delivers without recording.
    void post(const FileOperationResult &result, const Reply &reply);
    bool refuseIfReadOnly(
        const QString &action, const QString &path, const QString &destination, const Reply &reply);
    void record(const FileOperationResult &result);
    void uploadNext(QStringList localPaths, const QString &remoteDirectory, const Reply &reply);
    // Calls `proceed` when every path stays in the acting user's home; otherwise delivers
    // `result` as OutsideHome (or Failed when the paths could not be resolved).
    void whenInsideHome(const FileOperationResult &result, const QStringList &paths,
        const Reply &reply, bool mutating, std::function<void()> proceed);
    // The same, and with `linksBelow` every symlink below the first path counts too.
    void resolveThen(const FileOperationResult &result, const QStringList &paths,
        const Reply &reply, bool mutating, std::function<void()> proceed, bool linksBelow);
    void doMove(const QString &source, const QString &destination, OnConflict onConflict,
        const Reply &reply);

    OpenTerminalClient *m_client;
    Identity m_identity;
    Acting m_acting = Acting::AsSelf;
    bool m_readOnly = false;
    QString m_profileName;
    QString m_serverText;
    AuditLog m_auditLog;
};

} // namespace sandscope

Q_DECLARE_METATYPE(sandscope::FileOperationResult)
