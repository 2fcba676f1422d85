#include "fileoperations.h"

#include "files/pathguard.h"
#include "server/openterminalclient.h"

#include <QFile>
#include <QFileInfo>
#include <QTimer>

namespace sandscope {

namespace {

using Status = FileOperationResult::Status;

FileOperationResult makeResult(
    const QString &action, const QString &path, const QString &destination = {})
{
    FileOperationResult result;
    result.action = action;
    result.path = path;
    result.destination = destination;
    return result;
}

template <typename T>
FileOperationResult withOutcome(FileOperationResult result, const Result<T> &outcome)
{
    if (!outcome.ok()) {
        result.status
            = outcome.error.kind == ApiError::Kind::Conflict ? Status::Conflict : Status::Failed;
        result.error = outcome.error;
    }
    return result;
}

QString joinRemote(const QString &directory, const QString &name)
{
    if (directory.isEmpty())
        return name;
    if (directory.endsWith(QLatin1Char('/')))
        return directory + name;
    return directory + QLatin1Char('/') + name;
}

QString auditResult(const FileOperationResult &result)
{
    switch (result.status) {
    case Status::Ok:
        return QStringLiteral("ok");
    case Status::ReadOnly:
        return QStringLiteral("refused: read-only mode");
    case Status::Conflict:
        return QStringLiteral("conflict: %1 exists").arg(result.destination);
    case Status::OutsideHome:
        return QStringLiteral("refused: outside the home");
    case Status::Failed:
        break;
    }
    return result.error.toString();
}

} // namespace

QString FileOperationResult::message() const
{
    const QString target
        = destination.isEmpty() ? path : QString(path + QStringLiteral(" -> ") + destination);
    switch (status) {
    case Status::Ok:
        return QStringLiteral("%1 %2: done").arg(action, target);
    case Status::ReadOnly:
        return QStringLiteral("%1 %2 refused: read-only mode (nothing was sent to the server)")
            .arg(action, target);
    case Status::Conflict:
        return QStringLiteral("%1 already exists").arg(destination.isEmpty() ? path : destination);
    case Status::OutsideHome:
        return QStringLiteral("%1 %2").arg(action, refusal);
    case Status::Failed:
        break;
    }
    return QStringLiteral("%1 %2 failed: %3").arg(action, target, error.toString());
}

FileOperations::FileOperations(OpenTerminalClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
{
}

void FileOperations::setIdentity(const Identity &identity, Acting acting)
{
    m_identity = identity;
    m_acting = acting;
    setReadOnly(acting == Acting::AsOtherUser);
}

void FileOperations::setReadOnly(bool readOnly)
{
    if (readOnly == m_readOnly)
        return;
    m_readOnly = readOnly;
    Q_EMIT readOnlyChanged(readOnly);
}

void FileOperations::setAuditContext(const QString &profileName, const QString &serverText)
{
    m_profileName = profileName;
    m_serverText = serverText;
}

void FileOperations::record(const FileOperationResult &result)
{
    const QString target = result.destination.isEmpty()
        ? result.path
        : QString(result.path + QStringLiteral(" -> ") + result.destination);
    m_auditLog.append({m_profileName, m_serverText, m_identity.userId, result.action, target,
        auditResult(result)});
    Q_EMIT finished(result);
}

void FileOperations::recordRead(const QString &action, const QString &path, const QString &result)
{
    if (m_acting == Acting::AsOtherUser)
        m_auditLog.append({m_profileName, m_serverText, m_identity.userId, action, path, result});
}

void FileOperations::deliver(const FileOperationResult &result, const Reply &reply, bool mutating)
{
    if (mutating)
        record(result);
    else
        recordRead(result.action, result.path, auditResult(result));
    post(result, reply);
}

void FileOperations::post(const FileOperationResult &result, const Reply &reply)
{
    QTimer::singleShot(0, this, [result, reply] {
        if ((reply.hasContext && !reply.guard) || !reply.done)
            return;
        reply.done(result);
    });
}

bool FileOperations::refuseIfReadOnly(
    const QString &action, const QString &path, const QString &destination, const Reply &reply)
{
    if (!m_readOnly)
        return false;
    FileOperationResult result = makeResult(action, path, destination);
    result.status = Status::ReadOnly;
    deliver(result, reply, true);
    return true;
}

void FileOperations::whenInsideHome(const FileOperationResult &result, const QStringList &paths,
    const Reply &reply, bool mutating, std::function<void()> proceed)
{
    resolveThen(result, paths, reply, mutating, std::move(proceed), false);
}

void FileOperations::resolveThen(const FileOperationResult &result, const QStringList &paths,
    const Reply &reply, bool mutating, std::function<void()> proceed, bool linksBelow)
{
    // The server account is the admin's own explicit channel: its paths are taken as given.
    if (m_identity.isServerAccount()) {
        proceed();
        return;
    }
    const QString userId = m_identity.userId;
    pathguard::resolve(
        m_client, m_identity, paths, this,
        [this, result, reply, mutating, proceed, userId](const Result<PathResolution> &resolved) {
            FileOperationResult stopped = result;
            if (!resolved.ok()) {
                stopped.status = Status::Failed;
                stopped.error = resolved.error;
            } else if (const ResolvedPath *outside = resolved.value.firstOutside()) {
                stopped.status = Status::OutsideHome;
                stopped.refusal = resolved.value.refusal(*outside, userId);
            } else {
                proceed();
                return;
            }
            deliver(stopped, reply, mutating);
        },
        linksBelow ? pathguard::Extra::LinksBelowFirst : pathguard::Extra::None);
}

void FileOperations::uploadFiles(
    const QStringList &localPaths, const QString &remoteDirectory, QObject *context, Done done)
{
    const Reply reply(context, std::move(done));
    if (!refuseIfReadOnly(QStringLiteral("upload"), localPaths.join(QStringLiteral(", ")),
            remoteDirectory, reply))
        uploadNext(localPaths, remoteDirectory, reply);
}

// One file at a time: each is held in memory once, and a failure stops the rest.
void FileOperations::uploadNext(
    QStringList localPaths, const QString &remoteDirectory, const Reply &reply)
{
    if (localPaths.isEmpty()) {
        // Each upload was recorded as it happened.
        post(makeResult(QStringLiteral("upload"), QString(), remoteDirectory), reply);
        return;
    }
    const QString localPath = localPaths.takeFirst();
    const QString fileName = QFileInfo(localPath).fileName();
    FileOperationResult result
        = makeResult(QStringLiteral("upload"), localPath, joinRemote(remoteDirectory, fileName));
    QFile file(localPath);
    if (!file.open(QIODevice::ReadOnly)) {
        result.status = Status::Failed;
        result.error.kind = ApiError::Kind::BadRequest;
        result.error.message
            = QStringLiteral("Cannot read %1: %2").arg(localPath, file.errorString());
        deliver(result, reply, true);
        return;
    }
    const QByteArray bytes = file.readAll();
    whenInsideHome(result, {result.destination}, reply, true,
        [this, result, bytes, fileName, localPaths, remoteDirectory, reply] {
            m_client->uploadFile(m_identity, remoteDirectory, fileName, bytes, this,
                [this, result, localPaths, remoteDirectory, reply](
                    const Result<WriteResult> &outcome) {
                    const FileOperationResult uploaded = withOutcome(result, outcome);
                    if (!uploaded.ok()) {
                        deliver(uploaded, reply, true);
                        return;
                    }
                    record(uploaded);
                    uploadNext(localPaths, remoteDirectory, reply);
                });
        });
}

void FileOperations::uploadData(const QString &remoteDirectory, const QString &fileName,
    const QByteArray &bytes, QObject *context, Done done)
{
    const Reply reply(context, std::move(done));
    const QString destination = joinRemote(remoteDirectory, fileName);
    if (refuseIfReadOnly(QStringLiteral("upload"), destination, QString(), reply))
        return;
    const FileOperationResult result = makeResult(QStringLiteral("upload"), destination);
    whenInsideHome(result, {destination}, reply, true,
        [this, result, reply, remoteDirectory, fileName, bytes] {
            m_client->uploadFile(m_identity, remoteDirectory, fileName, bytes, this,
                [this, result, reply](const Result<WriteResult> &outcome) {
                    deliver(withOutcome(result, outcome), reply, true);
                });
        });
}

void FileOperations::makeDirectory(const QString &path, QObject *context, Done done)
{
    const Reply reply(context, std::move(done));
    if (refuseIfReadOnly(QStringLiteral("mkdir"), path, QString(), reply))
        return;
    const FileOperationResult result = makeResult(QStringLiteral("mkdir"), path);
    whenInsideHome(result, {path}, reply, true, [this, result, reply, path] {
        m_client->makeDirectory(m_identity, path, this,
            [this, result, reply](const Result<OpenTerminalClient::Empty> &outcome) {
                deliver(withOutcome(result, outcome), reply, true);
            });
    });
}

void FileOperations::move(const QString &source, const QString &destination, OnConflict onConflict,
    QObject *context, Done done)
{
    const Reply reply(context, std::move(done));
    if (refuseIfReadOnly(QStringLiteral("move"), source, destination, reply))
        return;
    whenInsideHome(makeResult(QStringLiteral("move"), source, destination), {source, destination},
        reply, true, [this, source, destination, onConflict, reply] {
            doMove(source, destination, onConflict, reply);
        });
}

void FileOperations::doMove(
    const QString &source, const QString &destination, OnConflict onConflict, const Reply &reply)
{
    const FileOperationResult result = makeResult(QStringLiteral("move"), source, destination);
    m_client->movePath(m_identity, source, destination, this,
        [this, result, reply, onConflict](const Result<MoveResult> &outcome) {
            const FileOperationResult moved = withOutcome(result, outcome);
            if (moved.status != Status::Conflict || onConflict != OnConflict::Replace) {
                deliver(moved, reply, true);
                return;
            }
            // Confirmed by the user: the existing destination goes first (the server has
            // no overwrite flag), then the move is tried once more.
            const FileOperationResult replaced
                = makeResult(QStringLiteral("delete"), result.destination);
            m_client->deletePath(m_identity, result.destination, this,
                [this, result, replaced, reply](const Result<OpenTerminalClient::Empty> &deleted) {
                    const FileOperationResult removal = withOutcome(replaced, deleted);
                    record(removal);
                    if (!removal.ok()) {
                        FileOperationResult failed = result;
                        failed.status = Status::Failed;
                        failed.error = removal.error;
                        deliver(failed, reply, true);
                        return;
                    }
                    doMove(result.path, result.destination, OnConflict::Report, reply);
                });
        });
}

void FileOperations::remove(const QString &path, QObject *context, Done done)
{
    const Reply reply(context, std::move(done));
    if (refuseIfReadOnly(QStringLiteral("delete"), path, QString(), reply))
        return;
    const FileOperationResult result = makeResult(QStringLiteral("delete"), path);
    whenInsideHome(result, {path}, reply, true, [this, result, reply, path] {
        m_client->deletePath(m_identity, path, this,
            [this, result, reply](const Result<OpenTerminalClient::Empty> &outcome) {
                deliver(withOutcome(result, outcome), reply, true);
            });
    });
}

void FileOperations::writeText(
    const QString &path, const QString &text, QObject *context, Done done)
{
    const Reply reply(context, std::move(done));
    if (refuseIfReadOnly(QStringLiteral("write"), path, QString(), reply))
        return;
    const FileOperationResult result = makeResult(QStringLiteral("write"), path);
    whenInsideHome(result, {path}, reply, true, [this, result, reply, path, text] {
        m_client->writeFile(m_identity, path, text, this,
            [this, result, reply](const Result<WriteResult> &outcome) {
                deliver(withOutcome(result, outcome), reply, true);
            });
    });
}

void FileOperations::downloadFile(const QString &path, QObject *context, Done done)
{
    const Reply reply(context, std::move(done));
    const FileOperationResult result = makeResult(QStringLiteral("download"), path);
    if (m_identity.isServerAccount()) {
        m_client->viewFile(
            m_identity, path, this, [this, result, reply](const Result<RawFile> &outcome) {
                FileOperationResult downloaded = withOutcome(result, outcome);
                downloaded.bytes = outcome.value.bytes;
                downloaded.fileName = outcome.value.fileName;
                deliver(downloaded, reply, false);
            });
        return;
    }
    // Read by the user's own shell: the kernel checks the user's permissions, and the path
    // is resolved and read in one command.
    const QString userId = m_identity.userId;
    pathguard::readAsUser(m_client, m_identity, path, this,
        [this, result, reply, userId](const Result<pathguard::ReadOutcome> &outcome) {
            FileOperationResult downloaded = withOutcome(result, outcome);
            if (outcome.ok() && outcome.value.refused) {
                downloaded.status = Status::OutsideHome;
                downloaded.refusal = outcome.value.resolution.refusal(
                    outcome.value.resolution.paths.at(0), userId);
            } else {
                downloaded.bytes = outcome.value.bytes;
                downloaded.fileName
                    = result.path.mid(result.path.lastIndexOf(QLatin1Char('/')) + 1);
            }
            deliver(downloaded, reply, false);
        });
}

void FileOperations::downloadFolderAsZip(const QString &path, QObject *context, Done done)
{
    const Reply reply(context, std::move(done));
    const FileOperationResult result = makeResult(QStringLiteral("archive"), path);
    // The server's archive follows the links inside the folder as root too: they are checked
    // as well.
    resolveThen(
        result, {path}, reply, false,
        [this, result, reply, path] {
            m_client->archive(
                m_identity, {path}, this, [this, result, reply](const Result<RawFile> &outcome) {
                    FileOperationResult downloaded = withOutcome(result, outcome);
                    downloaded.bytes = outcome.value.bytes;
                    downloaded.fileName = outcome.value.fileName;
                    deliver(downloaded, reply, false);
                });
        },
        true);
}

} // namespace sandscope
