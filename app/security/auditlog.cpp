#include "auditlog.h"

#include "security/credentialredactor.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QUrl>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sandscope {

namespace {

// Credentials must never reach the log, not even as user info inside a URL.
QString serverWithoutCredentials(const QString &server)
{
    const QUrl url(server);
    if (!url.isValid() || url.scheme().isEmpty())
        return server;
    return url.adjusted(QUrl::RemoveUserInfo).toString();
}

} // namespace

QString AuditLog::defaultPath()
{
    const QString overridden = qEnvironmentVariable("SANDSCOPE_AUDIT_LOG");
    if (!overridden.isEmpty())
        return overridden;
    // The generic location (not AppDataLocation) so the GUI and the CLI share one file
    // whatever organization name the application object carries.
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation)
        + QStringLiteral("/sandscope/audit.jsonl");
}

AuditLog::AuditLog(const QString &path)
    : m_path(path)
{
}

bool AuditLog::append(const AuditEntry &entry)
{
    const QJsonObject line {
        {QStringLiteral("time"), QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)},
        {QStringLiteral("profile"), entry.profile},
        {QStringLiteral("server"), serverWithoutCredentials(entry.server)},
        {QStringLiteral("user"), entry.userId},
        {QStringLiteral("action"), entry.action},
        // Command lines and messages may hold credentials (a token in a curl header, mysql -p…).
        {QStringLiteral("target"), CredentialRedactor().redact(entry.target)},
        {QStringLiteral("result"), CredentialRedactor().redact(entry.result)},
    };
    const QByteArray bytes = QJsonDocument(line).toJson(QJsonDocument::Compact) + '\n';

    if (!QDir().mkpath(QFileInfo(m_path).absolutePath()))
        return false;
    const int fd = ::open(QFile::encodeName(m_path).constData(),
        O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, S_IRUSR | S_IWUSR);
    if (fd < 0)
        return false;
    // An existing log with looser permissions is tightened: it tells who acted as whom.
    bool ok = ::fchmod(fd, S_IRUSR | S_IWUSR) == 0;
    // One write per line: O_APPEND keeps lines from concurrent writers (GUI + CLI) whole.
    ssize_t written = -1;
    do {
        written = ::write(fd, bytes.constData(), size_t(bytes.size()));
    } while (written < 0 && errno == EINTR);
    ok = ok && written == bytes.size();
    return ::close(fd) == 0 && ok;
}

} // namespace sandscope
