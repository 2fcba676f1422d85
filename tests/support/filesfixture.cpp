#include "filesfixture.h"

#include "testing.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonDocument>
#include <QRandomGenerator>

namespace sandscope::test {

QByteArray allByteValues()
{
    QByteArray bytes;
    for (int value = 0; value < 256; ++value)
        bytes.append(char(value));
    return bytes;
}

QByteArray randomBytes(qsizetype size)
{
    QByteArray bytes(size, Qt::Uninitialized);
    for (qsizetype i = 0; i < size; ++i)
        bytes.data()[i] = char(QRandomGenerator::global()->bounded(256));
    return bytes;
}

QString sha256(const QByteArray &bytes)
{
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

bool FilesFixture::startFilesServer(QString *error)
{
    if (!m_local.isValid()) {
        *error = QStringLiteral("no temporary folder: ") + m_local.errorString();
        return false;
    }
    m_auditPath = m_local.filePath(QStringLiteral("audit.jsonl"));
    qputenv("SANDSCOPE_AUDIT_LOG", m_auditPath.toUtf8());
    m_server = std::make_unique<RealServer>(
        RealServer::pinnedVersion("OPEN_TERMINAL_VERSION"), RealServer::Mode::MultiUser);
    if (!m_server->start(error))
        return false;
    m_client = std::make_unique<OpenTerminalClient>(m_server->connection());
    const QString suffix = randomToken(5, true);
    m_alice = Identity {QStringLiteral("alice") + suffix, {}};
    m_bob = Identity {QStringLiteral("bob") + suffix, {}};
    m_aliceHome = homeOf(m_alice);
    m_bobHome = homeOf(m_bob);
    for (const QString &home : {m_aliceHome, m_bobHome}) {
        if (!home.startsWith(QLatin1String("/home/"))) {
            *error = QStringLiteral("not a home below /home/: \"%1\"").arg(home);
            return false;
        }
    }
    return true;
}

void FilesFixture::stopFilesServer()
{
    m_client.reset();
    m_server.reset();
}

QStringList FilesFixture::shell(
    const Identity &who, const QString &command, OpenTerminalClient *client)
{
    int exitCode = 0;
    const QStringList lines
        = shellLines(client ? client : m_client.get(), who, command, 90000, &exitCode);
    if (exitCode != 0)
        qWarning() << "command exited with" << exitCode << command << lines;
    return lines;
}

QString FilesFixture::homeOf(const Identity &who, OpenTerminalClient *client)
{
    OpenTerminalClient *through = client ? client : m_client.get();
    const auto cwd = await<CwdInfo>([&](auto done) {
        return through->cwd(Identity {who.userId, {}}, through, done);
    });
    if (!cwd.ok())
        return QString();
    return cwd.value.home.isEmpty() ? cwd.value.cwd : cwd.value.home;
}

QString FilesFixture::freshFolder(const QString &name, const QString &fill)
{
    const QString path = m_aliceHome + QLatin1Char('/') + name;
    QString command = QStringLiteral("rm -rf %1 && mkdir -p %1").arg(path);
    if (!fill.isEmpty())
        command += QStringLiteral(" && cd %1 && %2").arg(path, fill);
    shell(m_alice, command);
    return path;
}

QStringList FilesFixture::snapshot(const QString &path)
{
    QStringList lines = shell(
        m_alice, QStringLiteral("cd %1 && find . -printf '%p|%s|%T@|%y\\n' | sort").arg(path));
    lines.removeAll(QString());
    return lines;
}

QList<QJsonObject> FilesFixture::auditLines() const
{
    return auditEntries(m_auditPath);
}

} // namespace sandscope::test
