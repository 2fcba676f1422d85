#include "promptattachments.h"

#include "files/fileoperations.h"
#include "server/openterminalclient.h"

#include <QFile>
#include <QFileInfo>
#include <QTimer>

namespace sandscope {

namespace promptattachments {

QString folderName()
{
    return QStringLiteral("attachments");
}

QString uniqueName(const QString &wanted, const QSet<QString> &taken)
{
    QString name = wanted;
    for (QChar &c : name) {
        if (c.category() == QChar::Other_Control || c == QLatin1Char('/'))
            c = QLatin1Char('_');
    }
    if (name.isEmpty() || name == QLatin1String(".") || name == QLatin1String(".."))
        name = QStringLiteral("attachment");
    if (!taken.contains(name))
        return name;
    // The stem ends at the first dot that is not the leading one of a hidden file.
    const qsizetype dot = name.indexOf(QLatin1Char('.'), 1);
    const QString stem = dot < 0 ? name : name.left(dot);
    const QString suffix = dot < 0 ? QString() : name.mid(dot);
    for (int number = 2;; ++number) {
        const QString candidate = stem + QLatin1Char('-') + QString::number(number) + suffix;
        if (!taken.contains(candidate))
            return candidate;
    }
}

QString promptWithReferences(const QString &prompt, const QStringList &relativePaths)
{
    if (relativePaths.isEmpty())
        return prompt;
    QString text = prompt;
    while (text.endsWith(QLatin1Char('\n')))
        text.chop(1);
    text += QLatin1Char('\n');
    for (const QString &path : relativePaths)
        text += QStringLiteral("\nAttached file: ") + path;
    return text;
}

QString checkLocalFiles(const QStringList &localPaths)
{
    for (const QString &path : localPaths) {
        const QFileInfo info(path);
        if (!info.exists())
            return QObject::tr("%1 does not exist").arg(path);
        if (!info.isFile())
            return QObject::tr("%1 is not a file").arg(path);
        if (!info.isReadable())
            return QObject::tr("%1 cannot be read").arg(path);
        if (info.size() > maxFileBytes)
            return QObject::tr("%1 is larger than %2 MB").arg(path).arg(maxFileBytes >> 20);
    }
    return {};
}

} // namespace promptattachments

AttachmentUpload::AttachmentUpload(
    OpenTerminalClient *client, FileOperations *operations, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_operations(operations)
{
}

void AttachmentUpload::start(
    const QString &home, const QString &chatId, const QStringList &localPaths)
{
    m_running = true;
    m_chatId = chatId;
    m_pending = localPaths;
    m_total = localPaths;
    m_taken.clear();
    m_uploaded.clear();
    const QString problem = promptattachments::checkLocalFiles(localPaths);
    if (!problem.isEmpty() || !m_operations) {
        const QString message = problem.isEmpty() ? tr("No file access for this run") : problem;
        QTimer::singleShot(0, this, [this, message] { fail(message); });
        return;
    }
    if (!home.isEmpty()) {
        m_folder = home + QStringLiteral("/chat-") + chatId + QLatin1Char('/')
            + promptattachments::folderName();
        QTimer::singleShot(0, this, &AttachmentUpload::listFolder);
        return;
    }
    // Without X-Session-Id the cwd is the account's home on every server version.
    Identity sessionless;
    sessionless.userId = m_operations->identity().userId;
    m_client->cwd(sessionless, this, [this](const Result<CwdInfo> &result) {
        if (!result.ok()) {
            fail(tr("Could not find the home folder: %1").arg(result.error.toString()));
            return;
        }
        QString resolved = result.value.home.isEmpty() ? result.value.cwd : result.value.home;
        while (resolved.size() > 1 && resolved.endsWith(QLatin1Char('/')))
            resolved.chop(1);
        m_folder = resolved + QStringLiteral("/chat-") + m_chatId + QLatin1Char('/')
            + promptattachments::folderName();
        listFolder();
    });
}

void AttachmentUpload::listFolder()
{
    if (!m_operations) {
        fail(tr("No file access for this run"));
        return;
    }
    Q_EMIT progress(0, int(m_total.size()), QFileInfo(m_pending.value(0)).fileName());
    m_client->listDirectory(
        m_operations->identity(), m_folder, this, [this](const Result<DirectoryListing> &result) {
            if (!result.ok() && result.error.kind != ApiError::Kind::NotFound) {
                fail(tr("Could not list %1: %2").arg(m_folder, result.error.toString()));
                return;
            }
            for (const FileEntry &entry : result.value.entries)
                m_taken.insert(entry.name);
            uploadNext();
        });
}

void AttachmentUpload::uploadNext()
{
    if (!m_operations) {
        fail(tr("No file access for this run"));
        return;
    }
    if (m_pending.isEmpty()) {
        m_running = false;
        Q_EMIT finished(m_uploaded);
        return;
    }
    const QString localPath = m_pending.takeFirst();
    QFile file(localPath);
    if (!file.open(QIODevice::ReadOnly)) {
        fail(tr("Cannot read %1: %2").arg(localPath, file.errorString()));
        return;
    }
    const QByteArray bytes = file.readAll();
    const QString name = promptattachments::uniqueName(QFileInfo(localPath).fileName(), m_taken);
    m_taken.insert(name);
    m_operations->uploadData(
        m_folder, name, bytes, this, [this, name](const FileOperationResult &result) {
            if (!result.ok()) {
                fail(result.message());
                return;
            }
            m_uploaded.append(promptattachments::folderName() + QLatin1Char('/') + name);
            Q_EMIT progress(int(m_uploaded.size()), int(m_total.size()),
                QFileInfo(m_pending.value(0)).fileName());
            uploadNext();
        });
}

void AttachmentUpload::fail(const QString &message)
{
    m_running = false;
    Q_EMIT failed(message);
}

} // namespace sandscope
