#include "filepreviewloader.h"

#include "files/pathguard.h"
#include "files/remotefilemodel.h"
#include "previews/previewkind.h"
#include "previews/previewpage.h"
#include "previews/previewpane.h"

#include <QLocale>
#include <QMimeDatabase>

#include <algorithm>

namespace sandscope {

FilePreviewLoader::FilePreviewLoader(PreviewPane *pane, QObject *parent)
    : QObject(parent)
    , m_pane(pane)
{
}

FilePreviewLoader::~FilePreviewLoader()
{
    cancel();
}

void FilePreviewLoader::setClient(OpenTerminalClient *client)
{
    cancel();
    m_client = client;
}

void FilePreviewLoader::setIdentity(const Identity &identity)
{
    cancel();
    m_identity = identity;
}

bool FilePreviewLoader::prefersRawBytes(const QString &mimeType)
{
    static const QMimeDatabase database;
    const QMimeType type = database.mimeTypeForName(mimeType);
    // Unknown names (README, Makefile without a glob, …) are tried as text; a 415 falls back.
    if (!type.isValid() || type.isDefault())
        return false;
    if (type.inherits(QStringLiteral("text/plain"))
        && !mimeType.startsWith(QLatin1String("image/")))
        return false;
    return true;
}

void FilePreviewLoader::cancel()
{
    ++m_ticket;
    m_resolving = false;
    m_call.abort();
    m_call = CallHandle();
}

void FilePreviewLoader::show(const FileSelection &item, const RemoteFileModel *model)
{
    m_home = model ? model->homePath() : QString();
    cancel();
    if (!item.isValid() || !m_client || !model) {
        m_pane->clear();
        return;
    }
    const bool raw = prefersRawBytes(item.mimeType);
    if (item.isDirectory)
        showFolder(item, model);
    else if (!m_identity.isServerAccount())
        readAsUser(item, raw, previewLines);
    else if (raw)
        fetchRaw(item.path, item.name, item.size);
    else
        fetchText(item.path, item.name, item.size, previewLines);
}

void FilePreviewLoader::loadAll(const FileSelection &item)
{
    if (!item.isValid() || item.isDirectory || !m_client)
        return;
    if (!m_identity.isServerAccount())
        readAsUser(item, false, 0);
    else
        fetchText(item.path, item.name, item.size, 0);
}

void FilePreviewLoader::readAsUser(const FileSelection &item, bool raw, int lastLine)
{
    cancel();
    m_pane->clear();
    if (raw && tooLarge(item.path, item.size))
        return;
    const quint64 ticket = m_ticket;
    m_pane->messagePage()->setMessage(
        tr("Loading %1\u2026").arg(item.path), PreviewPage::Severity::Note);
    const QString userId = m_identity.userId;
    const qint64 maxBytes = raw || lastLine <= 0 ? maxRawPreviewBytes : previewTextBytes;
    m_resolving = true;
    pathguard::readAsUser(
        m_client, m_identity, item.path, this,
        [this, ticket, item, raw, lastLine, userId](const Result<pathguard::ReadOutcome> &read) {
            if (ticket != m_ticket)
                return; // another file was selected meanwhile
            m_resolving = false;
            if (m_readHook && read.error.kind != ApiError::Kind::Cancelled)
                m_readHook(item.path,
                    !read.ok()               ? read.error.toString()
                        : read.value.refused ? QStringLiteral("refused: leads out of the home")
                                             : QStringLiteral("ok"));
            if (!read.ok()) {
                // Forbidden here is the kernel refusing the user a file in its own home.
                m_pane->showError(read.error.kind == ApiError::Kind::Forbidden
                        ? read.error.message
                        : describePreviewFailure(item.path, read.error, m_home));
                return;
            }
            const pathguard::ReadOutcome &outcome = read.value;
            if (outcome.refused) {
                m_pane->showError(
                    outcome.resolution.refusal(outcome.resolution.paths.at(0), userId));
                return;
            }
            const qint64 size = std::max<qint64>(item.size, outcome.bytes.size());
            if (raw || !looksLikeText(outcome.bytes)) {
                m_pane->showContent(item.name, outcome.bytes, size, outcome.truncated);
                return;
            }
            QString text = QString::fromUtf8(outcome.bytes);
            qint64 totalLines = text.count(QLatin1Char('\n'));
            if (!text.isEmpty() && !text.endsWith(QLatin1Char('\n')))
                ++totalLines;
            bool partial = outcome.truncated;
            if (lastLine > 0 && totalLines > lastLine) {
                qsizetype end = -1;
                for (int line = 0; line < lastLine; ++line)
                    end = text.indexOf(QLatin1Char('\n'), end + 1);
                text.truncate(end + 1);
                partial = true;
            }
            m_pane->showText(item.name, text, totalLines, partial);
        },
        maxBytes);
}

bool FilePreviewLoader::tooLarge(const QString &path, qint64 size)
{
    if (size <= maxRawPreviewBytes)
        return false;
    m_pane->messagePage()->setMessage(tr("%1 is %2, too large to preview. Download it instead.")
                                          .arg(path, QLocale().formattedDataSize(size)),
        PreviewPage::Severity::Note);
    return true;
}

bool FilePreviewLoader::looksLikeText(const QByteArray &bytes)
{
    if (bytes.contains('\0'))
        return false;
    // Invalid UTF-8 decodes to U+FFFD; a file may hold that character itself, though.
    const QString text = QString::fromUtf8(bytes);
    return !text.contains(QChar::ReplacementCharacter) || bytes.contains("\xEF\xBF\xBD");
}

void FilePreviewLoader::showFolder(const FileSelection &item, const RemoteFileModel *model)
{
    const QString error = model->errorText(item.source);
    if (!error.isEmpty()) {
        m_pane->showError(error);
        return;
    }
    m_pane->clear();
    QString text;
    switch (model->loadState(item.source)) {
    case RemoteFileModel::LoadState::Loaded:
        text = tr("Folder %1 \u2014 %n item(s)", "", model->rowCount(item.source)).arg(item.path);
        break;
    case RemoteFileModel::LoadState::Loading:
        text = tr("Listing %1\u2026").arg(item.path);
        break;
    default:
        text = tr("Folder %1 \u2014 expand it to list its content").arg(item.path);
        break;
    }
    m_pane->messagePage()->setMessage(text, PreviewPage::Severity::Note);
}

void FilePreviewLoader::fetchText(
    const QString &path, const QString &name, qint64 size, int lastLine)
{
    cancel();
    const quint64 ticket = m_ticket;
    m_pane->clear();
    m_pane->messagePage()->setMessage(
        tr("Loading %1\u2026").arg(path), PreviewPage::Severity::Note);
    m_call = m_client->readFile(m_identity, path, lastLine > 0 ? 1 : 0, lastLine, this,
        [this, ticket, path, name, size, lastLine](const Result<FileContent> &result) {
            if (ticket != m_ticket)
                return; // another file was selected meanwhile
            m_call = CallHandle();
            readDone(path, result.error);
            if (!result.ok()) {
                if (result.error.kind == ApiError::Kind::Cancelled)
                    return;
                if (result.error.kind == ApiError::Kind::UnsupportedMediaType) {
                    fetchRaw(path, name, size); // not text to the server: its bytes will do
                    return;
                }
                m_pane->showError(describePreviewFailure(path, result.error, m_home));
                return;
            }
            if (!result.value.isText) { // raw image bytes from /files/read
                m_pane->showContent(name, result.value.bytes,
                    std::max<qint64>(size, result.value.bytes.size()), false);
                return;
            }
            const bool partial = lastLine > 0 && result.value.totalLines > lastLine;
            m_pane->showText(name, result.value.text, result.value.totalLines, partial);
        });
}

void FilePreviewLoader::fetchRaw(const QString &path, const QString &name, qint64 size)
{
    cancel();
    m_pane->clear();
    if (tooLarge(path, size))
        return;
    const quint64 ticket = m_ticket;
    m_pane->messagePage()->setMessage(
        tr("Loading %1\u2026").arg(path), PreviewPage::Severity::Note);
    m_call = m_client->viewFile(
        m_identity, path, this, [this, ticket, path, name, size](const Result<RawFile> &result) {
            if (ticket != m_ticket)
                return;
            m_call = CallHandle();
            readDone(path, result.error);
            if (!result.ok()) {
                if (result.error.kind != ApiError::Kind::Cancelled)
                    m_pane->showError(describePreviewFailure(path, result.error, m_home));
                return;
            }
            m_pane->showContent(
                name, result.value.bytes, std::max<qint64>(size, result.value.bytes.size()), false);
        });
}

void FilePreviewLoader::readDone(const QString &path, const ApiError &error)
{
    if (m_readHook && error.kind != ApiError::Kind::Cancelled)
        m_readHook(path, error.isError() ? error.toString() : QStringLiteral("ok"));
}

} // namespace sandscope
