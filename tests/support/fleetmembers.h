#pragma once
// Members of a test fleet on this machine: REAL multi-user open-terminal servers of the pinned
// version, each in a mount namespace of its own with a private /home (a temporary folder bound
// onto it) and its own account prefix (the accounts in /etc/passwd are shared, the homes are
// not), reached as root through `nsenter -t PID -m --`, the admin command of a member here.

#include "fleet/usermove.h"
#include "realserver.h"
#include "server/openterminalclient.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

#include <memory>
#include <unistd.h>

namespace sandscope::test {

struct TestMember {
    QString name;
    QTemporaryDir homes; // bound onto /home inside its namespace
    std::unique_ptr<RealServer> server;
    std::unique_ptr<OpenTerminalClient> client;

    bool start(const QString &memberName, QString *error, const QString &apiKey = {})
    {
        prepare(memberName, apiKey);
        if (!server->start(error))
            return false;
        client = std::make_unique<OpenTerminalClient>(server->connection());
        return true;
    }
    // Everything start() does but starting the server (startMembers() starts several at once).
    void prepare(const QString &memberName, const QString &apiKey = {})
    {
        name = memberName;
        // As /home is: every account passes through to its own home.
        QFile::setPermissions(homes.path(),
            QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadGroup
                | QFile::ExeGroup | QFile::ReadOther | QFile::ExeOther);
        server = std::make_unique<RealServer>(
            RealServer::pinnedVersion("OPEN_TERMINAL_VERSION"), RealServer::Mode::MultiUser);
        if (!apiKey.isEmpty())
            server->setApiKey(apiKey);
        server->setLaunchWrapper(
            {QStringLiteral("unshare"), QStringLiteral("-m"), QStringLiteral("--propagation"),
                QStringLiteral("private"), QStringLiteral("sh"), QStringLiteral("-c"),
                QStringLiteral("mount --bind '%1' /home && exec \"$0\" \"$@\"").arg(homes.path())});
    }
    void stop()
    {
        client.reset();
        server.reset();
    }
    QString adminCommand() const
    {
        return QStringLiteral("nsenter -t %1 -m --").arg(server->processId());
    }
    UserMoveSide side() const
    {
        UserMoveSide side;
        side.member = name;
        side.client = client.get();
        AdminAccess::fromCommand(adminCommand(), &side.admin);
        return side;
    }
    // The live wall's followers (python3 in agents mode) running in the member's namespace.
    QList<pid_t> liveFollowers() const
    {
        const auto mountNamespace = [](const QString &pid) {
            char target[128] = {};
            const QByteArray link = QStringLiteral("/proc/%1/ns/mnt").arg(pid).toLocal8Bit();
            const ssize_t size = ::readlink(link.constData(), target, sizeof target - 1);
            return size > 0 ? QByteArray(target, int(size)) : QByteArray();
        };
        const QByteArray own = mountNamespace(QString::number(server->processId()));
        QList<pid_t> found;
        for (const QString &entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
            bool number = false;
            const int pid = entry.toInt(&number);
            if (!number || own.isEmpty() || mountNamespace(entry) != own)
                continue;
            QFile commandLine(QStringLiteral("/proc/%1/cmdline").arg(entry));
            if (!commandLine.open(QIODevice::ReadOnly))
                continue;
            const QList<QByteArray> arguments = commandLine.readAll().split('\0');
            if (arguments.value(0).contains("python3") && arguments.contains("agents"))
                found << pid_t(pid);
        }
        return found;
    }
    // A shell script as root inside the member's namespace; its standard output.
    QString asRoot(const QString &script) const
    {
        QProcess process;
        process.start(QStringLiteral("nsenter"),
            {QStringLiteral("-t"), QString::number(server->processId()), QStringLiteral("-m"),
                QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"), script});
        process.waitForFinished(30000);
        return QString::fromUtf8(process.readAllStandardOutput());
    }
};

// start() for every member at once (RealServer::startAll: their start-ups overlap), each member
// named by `names`, in order.
inline bool startMembers(const QList<TestMember *> &members, const QStringList &names,
    QString *error, const QString &apiKey = {})
{
    QList<RealServer *> servers;
    for (int i = 0; i < members.size(); ++i) {
        members.at(i)->prepare(names.at(i), apiKey);
        servers.append(members.at(i)->server.get());
    }
    if (!RealServer::startAll(servers, error))
        return false;
    for (TestMember *member : members)
        member->client = std::make_unique<OpenTerminalClient>(member->server->connection());
    return true;
}

// stop() for every member at once (RealServer::stopAll: their shutdowns overlap).
inline void stopMembers(const QList<TestMember *> &members)
{
    QList<RealServer *> servers;
    for (TestMember *member : members) {
        if (member->server)
            servers.append(member->server.get());
    }
    RealServer::stopAll(servers);
    for (TestMember *member : members)
        member->stop();
}

// Members "member-a" and "member-b" of one fleet, with a new API key (in `apiKey`) they share;
// the audit log goes to `local`/audit.jsonl (SANDSCOPE_AUDIT_LOG).
inline bool startMembers(
    TestMember &a, TestMember &b, const QTemporaryDir &local, QString *apiKey, QString *error)
{
    qputenv("SANDSCOPE_AUDIT_LOG", local.filePath(QStringLiteral("audit.jsonl")).toUtf8());
    *apiKey = QStringLiteral("fleet-key-") + randomToken(16);
    return startMembers(
        {&a, &b}, {QStringLiteral("member-a"), QStringLiteral("member-b")}, error, *apiKey);
}

} // namespace sandscope::test
