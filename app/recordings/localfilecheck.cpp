#include "localfilecheck.h"

#include <QDir>
#include <QFileInfo>

#include <sys/stat.h>

namespace sandscope {

namespace {

QString kindOf(mode_t mode)
{
    if (S_ISDIR(mode))
        return QStringLiteral("a folder");
    if (S_ISFIFO(mode))
        return QStringLiteral("a FIFO");
    if (S_ISCHR(mode))
        return QStringLiteral("a character device");
    if (S_ISBLK(mode))
        return QStringLiteral("a block device");
    if (S_ISSOCK(mode))
        return QStringLiteral("a socket");
    return QStringLiteral("not a regular file");
}

} // namespace

bool LocalFileCheck::isNamedPipe(const QString &path)
{
    struct stat target { };
    return ::stat(QFile::encodeName(path).constData(), &target) == 0 && S_ISFIFO(target.st_mode);
}

QString LocalFileCheck::whyNotRead(const QString &path, const QString &folder, bool allowPipe)
{
    struct stat target { };
    if (::stat(QFile::encodeName(path).constData(), &target) != 0)
        return {}; // missing or unreadable: opening it says why
    if (!S_ISREG(target.st_mode) && !(allowPipe && S_ISFIFO(target.st_mode)))
        return QStringLiteral("is %1, not read").arg(kindOf(target.st_mode));
    if (folder.isEmpty())
        return {};
    const QString canonicalFolder = QFileInfo(folder).canonicalFilePath();
    const QString canonical = QFileInfo(path).canonicalFilePath();
    if (canonicalFolder.isEmpty() || canonical.isEmpty()
        || !canonical.startsWith(canonicalFolder + QLatin1Char('/')))
        return QStringLiteral("is a link to %1, outside the session's folder: not read")
            .arg(canonical.isEmpty() ? QFileInfo(path).symLinkTarget() : canonical);
    return {};
}

} // namespace sandscope
