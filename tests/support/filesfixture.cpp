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
    return startServer(RealServer::pinnedVersion("OPEN_TERMINAL_VERSION"), error);
}

void FilesFixture::swapCurrent(FilesFixture &other)
{
    std::swap(m_server, other.m_server);
    std::swap(m_client, other.m_client);
    std::swap(m_alice, other.m_alice);
    std::swap(m_bob, other.m_bob);
    std::swap(m_aliceHome, other.m_aliceHome);
    std::swap(m_bobHome, other.m_bobHome);
}

bool FilesFixture::useVersion(const QString &version, QString *error)
{
    if (m_server && m_server->version() == version)
        return true;
    for (const std::unique_ptr<FilesFixture> &parked : m_parked) {
        if (parked->m_server && parked->m_server->version() == version) {
            swapCurrent(*parked);
            return true;
        }
    }
    const QString sessionId = m_alice.sessionId;
    if (m_server) {
        m_parked.push_back(std::make_unique<FilesFixture>());
        swapCurrent(*m_parked.back());
    }
    if (!startServer(version, error))
        return false;
    if (!sessionId.isEmpty())
        m_alice.sessionId = randomToken(12);
    return true;
}

bool FilesFixture::startServer(const QString &version, QString *error)
{
    m_server = std::make_unique<RealServer>(version, RealServer::Mode::MultiUser);
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
    for (const std::unique_ptr<FilesFixture> &parked : m_parked)
        parked->stopFilesServer();
    m_parked.clear();
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
