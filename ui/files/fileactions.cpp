#include "fileactions.h"

#include "files/fileoperations.h"
#include "files/filepreviewloader.h"
#include "files/filesprompter.h"
#include "files/filetreeview.h"
#include "files/remotefilemodel.h"
#include "files/remotepaths.h"
#include "messagebar.h"
#include "previews/previewkind.h"
#include "server/openterminalclient.h"

#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QSaveFile>

#include <algorithm>

namespace sandscope {

using remotepaths::joinPath;
using remotepaths::parentPath;

namespace {

// A name the user typed for a new item: a relative path below the folder, never climbing out.
bool acceptableName(const QString &name, QString *why)
{
    if (name.isEmpty()) {
        *why = FileActions::tr("The name is empty.");
        return false;
    }
    const QStringList parts = name.split(QLatin1Char('/'));
    for (const QString &part : parts) {
        if (part.isEmpty() || part == QLatin1String(".") || part == QLatin1String("..")) {
            *why = FileActions::tr("\u201c%1\u201d is not a usable name.").arg(name);
            return false;
        }
    }
    return true;
}

} // namespace

FileActions::FileActions(FileActionsHost host, QObject *parent)
    : QObject(parent)
    , m_host(std::move(host))
{
}

FileActions::~FileActions() = default;

void FileActions::setSession(
    OpenTerminalClient *client, RemoteFileModel *model, FileOperations *operations)
{
    m_client = client;
    m_model = model;
    m_operations = operations;
}

// ---------------------------------------------------------------------------------------------
// The read-only guard and the busy state

bool FileActions::isReadOnly() const
{
    return m_operations && m_operations->isReadOnly();
}

void FileActions::warn(const QString &text)
{
    m_host.messageBar->showMessage(text, MessageBar::Level::Warning);
}

bool FileActions::refuseWhenReadOnly(const QString &what)
{
    if (!m_client || !m_operations) {
        warn(tr("Not connected: cannot %1.").arg(what));
        return true;
    }
    if (!isReadOnly())
        return false;
    warn(tr("Read-only mode: cannot %1. Turn off \u201cRead-only\u201d in the toolbar to change "
            "files; nothing was sent.")
             .arg(what));
    return true;
}

void FileActions::operationStarted(const QString &what)
{
    ++m_pendingOperations;
    m_host.busyIndicator->show();
    m_host.operationLabel->setText(what);
}

void FileActions::operationEnded()
{
    m_pendingOperations = std::max(0, m_pendingOperations - 1);
    m_host.busyIndicator->setVisible(m_pendingOperations > 0);
    m_host.operationLabel->clear();
}

void FileActions::operationDone(const FileOperationResult &result, const QString &doneText)
{
    operationEnded();
    switch (result.status) {
    case FileOperationResult::Status::Ok:
        m_host.operationLabel->setText(doneText.isEmpty() ? result.message() : doneText);
        break;
    case FileOperationResult::Status::ReadOnly:
        m_host.operationLabel->clear();
        warn(result.message());
        break;
    case FileOperationResult::Status::Conflict:
    case FileOperationResult::Status::Failed:
    case FileOperationResult::Status::OutsideHome:
        m_host.operationLabel->clear();
        m_host.messageBar->showMessage(result.message(), MessageBar::Level::Error);
        break;
    }
}

// ---------------------------------------------------------------------------------------------
// Transfers

void FileActions::upload()
{
    const QString folder = m_host.targetFolder();
    if (refuseWhenReadOnly(tr("upload")) || folder.isEmpty())
        return;
    const QStringList files = prompter()->askUploadFiles(m_host.page);
    if (!files.isEmpty())
        uploadFiles(files, folder);
}

void FileActions::dropFiles(const QMimeData *mime, const QModelIndex &source)
{
    const QStringList paths = FileTreeView::localFiles(mime);
    if (paths.isEmpty())
        return;
    QString folder;
    if (source.isValid() && m_model) {
        const QString path = m_model->pathOf(source);
        folder = source.data(RemoteFileModel::IsDirectoryRole).toBool() ? path : parentPath(path);
    } else {
        folder = m_host.rootFolder();
    }
    if (!folder.isEmpty())
        uploadFiles(paths, folder);
}

void FileActions::uploadFiles(const QStringList &localPaths, const QString &remoteDirectory)
{
    if (refuseWhenReadOnly(tr("upload")))
        return;
    const QModelIndex folder = m_model->indexForPath(remoteDirectory);
    QStringList accepted;
    QStringList skipped;
    for (const QString &path : localPaths) {
        const QFileInfo info(path);
        if (!info.isFile()) {
            skipped << info.fileName();
            continue;
        }
        if (folder.isValid() && childNamed(folder, info.fileName()).isValid()
            && !prompter()->confirm(m_host.page, tr("Replace File"),
                tr("Replace %1?\n%2 already has a file of that name; uploading replaces it.")
                    .arg(info.fileName(), remoteDirectory),
                tr("Replace"))) {
            continue;
        }
        accepted << path;
    }
    if (!skipped.isEmpty())
        warn(tr("Only files can be uploaded; skipped: %1").arg(skipped.join(QStringLiteral(", "))));
    if (accepted.isEmpty())
        return;
    const auto count = int(accepted.size());
    operationStarted(tr("Uploading %n file(s) to %1\u2026", "", count).arg(remoteDirectory));
    m_operations->uploadFiles(accepted, remoteDirectory, this,
        [this, count, remoteDirectory](const FileOperationResult &result) {
            operationDone(result, tr("Uploaded %n file(s) to %1", "", count).arg(remoteDirectory));
        });
}

QModelIndex FileActions::childNamed(const QModelIndex &folder, const QString &name) const
{
    for (int row = 0; row < m_model->rowCount(folder); ++row) {
        const QModelIndex child = m_model->index(row, 0, folder);
        if (child.data(Qt::EditRole).toString() == name)
            return child;
    }
    return QModelIndex();
}

void FileActions::download()
{
    const FileSelection item = m_host.selection();
    if (!item.isValid() || !m_operations || !m_client)
        return;
    const QString suggested = item.isDirectory ? item.name + QStringLiteral(".zip") : item.name;
    const QString localPath = prompter()->askSavePath(m_host.page, suggested);
    if (localPath.isEmpty())
        return;
    operationStarted(tr("Downloading %1\u2026").arg(item.path));
    const auto done = [this, localPath](const FileOperationResult &result) {
        if (!result.ok()) {
            operationDone(result);
            return;
        }
        saveDownload(result, localPath);
    };
    if (item.isDirectory)
        m_operations->downloadFolderAsZip(item.path, this, done);
    else
        m_operations->downloadFile(item.path, this, done);
}

void FileActions::saveDownload(const FileOperationResult &result, const QString &localPath)
{
    QSaveFile file(localPath);
    if (!file.open(QIODevice::WriteOnly) || file.write(result.bytes) != result.bytes.size()
        || !file.commit()) {
        FileOperationResult failed = result;
        failed.status = FileOperationResult::Status::Failed;
        failed.error.kind = ApiError::Kind::BadRequest;
        failed.error.message = tr("cannot write %1: %2").arg(localPath, file.errorString());
        operationDone(failed);
        return;
    }
    operationDone(result,
        tr("Saved %1 (%2) to %3")
            .arg(result.path, QLocale().formattedDataSize(result.bytes.size()), localPath));
}

// ---------------------------------------------------------------------------------------------
// New items and edits

QString FileActions::askNewName(const QString &title, const QString &label, const QString &initial)
{
    const QString name = prompter()->askName(m_host.page, title, label, initial);
    if (name.isEmpty())
        return QString();
    QString why;
    if (!acceptableName(name, &why)) {
        warn(why);
        return QString();
    }
    return name;
}

void FileActions::newFolder()
{
    const QString folder = m_host.targetFolder();
    if (refuseWhenReadOnly(tr("create a folder")) || folder.isEmpty())
        return;
    const QString name = askNewName(
        tr("New Folder"), tr("Name of the new folder in %1:").arg(folder), tr("New folder"));
    if (name.isEmpty())
        return;
    const QString path = joinPath(folder, name);
    operationStarted(tr("Creating %1\u2026").arg(path));
    m_operations->makeDirectory(path, this, [this, path](const FileOperationResult &result) {
        operationDone(result, tr("Created %1").arg(path));
        if (result.ok())
            m_host.goToPath(path);
    });
}

void FileActions::newTextFile()
{
    const QString folder = m_host.targetFolder();
    if (refuseWhenReadOnly(tr("create a file")) || folder.isEmpty())
        return;
    const QString name = askNewName(tr("New Text File"),
        tr("Name of the new file in %1:").arg(folder), QStringLiteral("untitled.txt"));
    if (name.isEmpty())
        return;
    const QString path = joinPath(folder, name);
    const QModelIndex existing = m_model->indexForPath(path);
    if (existing.isValid()
        && !prompter()->confirm(m_host.page, tr("Replace File"),
            tr("Replace %1?\n%2 exists; saving the new file replaces its content.").arg(name, path),
            tr("Replace"))) {
        return;
    }
    QString text;
    if (!prompter()->editText(m_host.page, tr("New File \u2014 %1").arg(path), &text))
        return;
    writeTextFile(path, text);
}

void FileActions::editSelected()
{
    const FileSelection item = m_host.selection();
    if (!item.isValid() || item.isDirectory || refuseWhenReadOnly(tr("edit files")))
        return;
    constexpr qint64 maxEditableBytes = 16 * 1024 * 1024;
    if (item.size > maxEditableBytes) {
        warn(tr("%1 is too large to edit here (%2).")
                 .arg(item.path, QLocale().formattedDataSize(item.size)));
        return;
    }
    operationStarted(tr("Reading %1\u2026").arg(item.path));
    const QString path = item.path;
    // Read as the preview reads (FileOperations::downloadFile): in the acting user's shell, so
    // a link out of the home is refused and the kernel applies the user's own permissions.
    m_operations->downloadFile(path, this, [this, path](const FileOperationResult &read) {
        operationEnded();
        if (!read.ok()) {
            m_host.messageBar->showMessage(read.message(), MessageBar::Level::Error);
            return;
        }
        if (!FilePreviewLoader::looksLikeText(read.bytes)) {
            m_host.messageBar->showMessage(
                tr("%1 is not a text file; it cannot be edited here.").arg(path),
                MessageBar::Level::Error);
            return;
        }
        const QString original = QString::fromUtf8(read.bytes);
        QString text = original;
        if (!prompter()->editText(m_host.page, tr("Edit \u2014 %1").arg(path), &text)
            || text == original)
            return;
        writeTextFile(path, text);
    });
}

void FileActions::writeTextFile(const QString &path, const QString &text)
{
    operationStarted(tr("Saving %1\u2026").arg(path));
    m_operations->writeText(path, text, this, [this, path](const FileOperationResult &result) {
        operationDone(result, tr("Saved %1").arg(path));
        if (!result.ok())
            return;
        const FileSelection item = m_host.selection();
        if (item.isValid() && item.path == path)
            m_host.previewSelected();
        else
            m_host.goToPath(path);
    });
}

// ---------------------------------------------------------------------------------------------
// Rename, move and delete

void FileActions::renameSelected()
{
    const FileSelection item = m_host.selection();
    if (!item.isValid() || item.isLocation || refuseWhenReadOnly(tr("rename")))
        return;
    const QString answer = prompter()->askName(m_host.page, tr("Rename or Move"),
        tr("New name for %1\n(a path relative to its folder, or an absolute path, moves it):")
            .arg(item.path),
        item.name);
    if (answer.isEmpty() || answer == item.name)
        return;
    QString destination;
    if (answer.startsWith(QLatin1Char('/'))) {
        destination = remotepaths::normalizedPath(answer);
    } else {
        QString why;
        if (!acceptableName(answer, &why)) {
            warn(why);
            return;
        }
        destination = joinPath(parentPath(item.path), answer);
    }
    if (destination == item.path)
        return;
    moveWithConfirmation(item.path, destination);
}

void FileActions::moveWithConfirmation(const QString &source, const QString &destination)
{
    operationStarted(tr("Moving %1\u2026").arg(source));
    m_operations->move(source, destination, FileOperations::OnConflict::Report, this,
        [this, source, destination](const FileOperationResult &result) {
            if (result.status != FileOperationResult::Status::Conflict) {
                operationDone(result, tr("Moved %1 to %2").arg(source, destination));
                return;
            }
            operationEnded();
            const QString name = QFileInfo(destination).fileName();
            if (!prompter()->confirm(m_host.page, tr("Replace"),
                    tr("Replace %1?\n%2 already exists. Replacing deletes it, then moves %3 "
                       "there.")
                        .arg(name, destination, source),
                    tr("Replace"))) {
                m_host.operationLabel->setText(
                    tr("Nothing was moved: %1 already exists").arg(destination));
                return;
            }
            operationStarted(tr("Replacing %1\u2026").arg(destination));
            m_operations->move(source, destination, FileOperations::OnConflict::Replace, this,
                [this, source, destination](const FileOperationResult &replaced) {
                    operationDone(
                        replaced, tr("Moved %1 to %2 (replaced)").arg(source, destination));
                });
        });
}

void FileActions::deleteSelected()
{
    const FileSelection item = m_host.selection();
    if (!item.isValid() || item.isLocation || refuseWhenReadOnly(tr("delete")))
        return;
    const QString question = item.isDirectory
        ? tr("Delete the folder %1 and everything in it?").arg(item.path)
        : tr("Delete the file %1?").arg(item.path);
    if (!prompter()->confirm(m_host.page, tr("Delete"), question, tr("Delete")))
        return;
    const QString path = item.path;
    operationStarted(tr("Deleting %1\u2026").arg(path));
    m_operations->remove(path, this, [this, path](const FileOperationResult &result) {
        operationDone(result, tr("Deleted %1").arg(path));
    });
}

} // namespace sandscope
