#include "cleanupfixture.h"

#include "server/adminscript.h"
#include "testing.h"

#include <QFileInfo>

namespace sandscope::test {

QString CleanupFixture::scriptPath()
{
    return QFileInfo(QStringLiteral(SANDSCOPE_VERSIONS_FILE)).absolutePath()
        + QStringLiteral("/cleanup.sh");
}

bool CleanupFixture::startServer(QString *error)
{
    m_auditPath = m_local.filePath(QStringLiteral("audit.jsonl"));
    qputenv("SANDSCOPE_AUDIT_LOG", m_auditPath.toUtf8());
    const bool adminCommand
        = qgetenv("SANDSCOPE_CLEANUP_CHANNEL") == QByteArrayLiteral("admin-command");
    m_admin = AdminAccess::serverAccount();
    if (adminCommand)
        AdminAccess::fromCommand(QStringLiteral("sudo -n"), &m_admin);
    m_server = std::make_unique<RealServer>(
        RealServer::pinnedVersion(
            adminCommand ? "OPEN_TERMINAL_VERSION" : "OPEN_TERMINAL_LEGACY_VERSION"),
        RealServer::Mode::MultiUser);
    if (!m_server->start(error))
        return false;
    m_client = std::make_unique<OpenTerminalClient>(m_server->connection());
    const QString suffix = randomToken(3, true);
    m_alice.userId = QStringLiteral("alice") + suffix;
    m_bob.userId = QStringLiteral("bob") + suffix;
    m_aliceHome = homeOf(m_alice);
    m_bobHome = homeOf(m_bob);
    for (const QString &home : {m_aliceHome, m_bobHome}) {
        if (!home.startsWith(QLatin1String("/home/") + m_server->prefix())) {
            *error = QStringLiteral("\"%1\" is not the home of a test account").arg(home);
            return false;
        }
    }
    return true;
}

void CleanupFixture::stopServer()
{
    m_client.reset();
    m_server.reset();
}

QStringList CleanupFixture::shell(const Identity &who, const QString &command)
{
    if (!who.userId.isEmpty() || !m_admin.isLocalCommand())
        return shellLines(m_client.get(), who, command);
    bool done = false;
    Result<CommandOutput> output;
    runAdminCommand(
        m_client.get(), m_admin, command, m_client.get(), [&](const Result<CommandOutput> &result) {
            output = result;
            done = true;
        });
    if (!QTest::qWaitFor([&] { return done; }, 90000) || !output.ok()) {
        qWarning() << "admin command failed:" << command << output.error.toString();
        return {};
    }
    return output.value.lines;
}

bool CleanupFixture::exists(const QString &path)
{
    return shell(Identity {}, QStringLiteral("test -e '%1' && echo yes || echo no").arg(path))
        .contains(QStringLiteral("yes"));
}

QString CleanupFixture::homeOf(const Identity &who)
{
    for (const QString &line : shell(who, QStringLiteral("echo HOME=/home/$(id -un)"))) {
        if (line.startsWith(QLatin1String("HOME=")))
            return line.mid(5);
    }
    return QString();
}

void CleanupFixture::makeChat(const Identity &who, const QString &name, int days)
{
    shell(who,
        QStringLiteral("h=/home/$(id -un); mkdir -p \"$h/%1/sub\" && printf 'hello' > "
                       "\"$h/%1/sub/a.txt\" && touch -d '%2 days ago' \"$h/%1/sub/a.txt\" "
                       "\"$h/%1/sub\" \"$h/%1\"")
            .arg(name)
            .arg(days));
}

void CleanupFixture::makeSessions(
    const Identity &who, const QString &agedId, int days, const QString &freshId)
{
    shell(who,
        QStringLiteral("p=/home/$(id -un)/.claude/projects/-home-x-chat-demo; mkdir -p "
                       "\"$p/%1/subagents\" && printf '{}\\n' > \"$p/%1.jsonl\" && printf "
                       "'abc' > \"$p/%1/subagents/a.jsonl\" && touch -d '%3 days ago' "
                       "\"$p/%1.jsonl\" \"$p/%1/subagents/a.jsonl\" \"$p/%1/subagents\" "
                       "\"$p/%1\" && printf '{}\\n' > \"$p/%2.jsonl\"")
            .arg(agedId, freshId)
            .arg(days));
}

QList<QJsonObject> CleanupFixture::auditLines() const
{
    return auditEntries(m_auditPath);
}

} // namespace sandscope::test
