// `sandscope fleet status` and `fleet move` (the real command line) on a fleet of two REAL
// members (tests/support/fleetmembers.h: each in a mount namespace with a private /home, one
// API key, admin command nsenter). The fleet file's router is member A's own URL: a router
// that sends every user to A, which is what `status` must notice of B.
//  * status lists both members with their version and the users whose homes they hold, and a
//    user with homes on both, and that B gets no traffic from the router;
//  * per-user verbs with --fleet go through the router (here: to A);
//  * move's dry run through the CLI changes nothing; --execute moves the home and the user
//    then lives on one member only;
//  * a stopped member is named with its error while the other is still listed (exit 3).

#include "fleetmembers.h"
#include "sandscopecli.h"
#include "testing.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace sandscope;
using namespace sandscope::test;

using CliResult = CliText;

class FleetStatusTest : public QObject {
    Q_OBJECT

private:
    TestMember m_a;
    TestMember m_b;
    QTemporaryDir m_local;
    QString m_fleetFile;
    QString m_key;

    // A user whose home is on `member`, made through its own URL. Eight letters: the pinned
    // servers' account is the prefix and the id's first eight (docs/server-behaviour.md), so
    // the id is what `status` can tell from the account.
    QString userOn(const TestMember &member, const QString &tag)
    {
        const QString userId = tag + randomToken(8 - int(tag.size()), true);
        shellLines(member.client.get(), {userId, QString()}, QStringLiteral("true"));
        const QStringList made = shellLines(member.client.get(), {userId, QString()},
            QStringLiteral("mkdir -p ~/chat-1 && echo on-%1 > ~/chat-1/where && echo made")
                .arg(member.name));
        return made.contains(QStringLiteral("made")) ? userId : QString();
    }

    CliResult fleet(const QStringList &arguments, const QString &auditLog = QString())
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("SANDSCOPE_API_KEY"), m_key);
        environment.insert(QStringLiteral("SANDSCOPE_AUDIT_LOG"),
            auditLog.isEmpty() ? m_local.filePath(QStringLiteral("audit.jsonl")) : auditLog);
        return cliText(runSandscope(QStringList {QStringLiteral("fleet")} + arguments
                + QStringList {QStringLiteral("--fleet"), m_fleetFile},
            environment, 180000));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString why;
        SANDSCOPE_REQUIRE(RealServer::canRunMultiUser(&why), why);
        m_key = QStringLiteral("fleet-key-") + randomToken(16);
        QString error;
        QVERIFY2(startMembers({&m_a, &m_b},
                     {QStringLiteral("member-a"), QStringLiteral("member-b")}, &error, m_key),
            qPrintable(error));
        m_fleetFile = m_local.filePath(QStringLiteral("fleet.json"));
        QFile file(m_fleetFile);
        QVERIFY(file.open(QIODevice::WriteOnly));
        const QJsonArray members {QJsonObject {{QStringLiteral("name"), m_a.name},
                                      {QStringLiteral("url"), m_a.server->url().toString()},
                                      {QStringLiteral("admin_exec"), m_a.adminCommand()}},
            QJsonObject {{QStringLiteral("name"), m_b.name},
                {QStringLiteral("url"), m_b.server->url().toString()},
                {QStringLiteral("admin_exec"), m_b.adminCommand()}}};
        file.write(
            QJsonDocument(QJsonObject {{QStringLiteral("router"), m_a.server->url().toString()},
                              {QStringLiteral("members"), members}})
                .toJson());
    }

    void cleanupTestCase() { stopMembers({&m_a, &m_b}); }

    void statusListsEachMembersUsersAndWhatIsWrong()
    {
        const QString onA = userOn(m_a, QStringLiteral("ona"));
        const QString onB = userOn(m_b, QStringLiteral("onb"));
        const QString onBoth = userOn(m_a, QStringLiteral("both"));
        QVERIFY(!onA.isEmpty() && !onB.isEmpty() && !onBoth.isEmpty());
        // After a resize the router sent it to B for a while: a second home there.
        shellLines(m_b.client.get(), {onBoth, QString()}, QStringLiteral("true"));
        QVERIFY(shellLines(m_b.client.get(), {onBoth, QString()},
            QStringLiteral("echo on-b > ~/second && echo ok"))
                    .contains(QStringLiteral("ok")));

        const CliResult result = fleet({QStringLiteral("status"), QStringLiteral("--json")});
        QCOMPARE(result.exitCode, 1); // problems found
        const QJsonObject report = QJsonDocument::fromJson(result.out.toUtf8()).object();
        QVERIFY2(!report.isEmpty(), qPrintable(result.all()));
        const QJsonArray members = report.value(QLatin1String("members")).toArray();
        QCOMPARE(members.size(), 2);
        for (const QJsonValue &value : members) {
            const QJsonObject member = value.toObject();
            QVERIFY2(member.value(QLatin1String("healthy")).toBool(), qPrintable(result.all()));
            QCOMPARE(member.value(QLatin1String("version")).toString(),
                RealServer::pinnedVersion("OPEN_TERMINAL_VERSION"));
            QVERIFY(member.value(QLatin1String("disk_free_bytes")).toDouble() > 0);
            QCOMPARE(member.value(QLatin1String("running_agents")).toInt(-1) >= 0, true);
        }
        const QJsonObject users = report.value(QLatin1String("users")).toObject();
        QCOMPARE(users.value(onA).toArray(), QJsonArray({m_a.name}));
        QCOMPARE(users.value(onB).toArray(), QJsonArray({m_b.name}));
        QCOMPARE(users.value(onBoth).toArray(), QJsonArray({m_a.name, m_b.name}));
        QStringList kinds;
        for (const QJsonValue &value : report.value(QLatin1String("anomalies")).toArray()) {
            const QJsonObject anomaly = value.toObject();
            const QString kind = anomaly.value(QLatin1String("kind")).toString();
            kinds << kind;
            if (kind == QLatin1String("two-homes"))
                QCOMPARE(anomaly.value(QLatin1String("user")).toString(), onBoth);
            if (kind == QLatin1String("not-routed"))
                QCOMPARE(
                    anomaly.value(QLatin1String("members")).toArray().first().toString(), m_b.name);
        }
        QVERIFY2(kinds.contains(QLatin1String("two-homes")), qPrintable(result.out));
        QVERIFY2(kinds.contains(QLatin1String("not-routed")), qPrintable(result.out));
        QVERIFY(!kinds.contains(QLatin1String("versions")));
        // A is reached through the router; it says so.
        QCOMPARE(
            members.at(0).toObject().value(QLatin1String("router_sends_to")).toString(), m_a.name);
        QVERIFY(!result.all().contains(m_key));

        // The text form names each member as it answered, and the problems.
        const CliResult text = fleet({QStringLiteral("status")});
        QCOMPARE(text.exitCode, 1);
        QVERIFY2(text.out.contains(m_a.name + QStringLiteral("  up")), qPrintable(text.out));
        QVERIFY2(text.out.contains(QLatin1String("PROBLEM (two-homes)")), qPrintable(text.out));
    }

    void perUserVerbsGoThroughTheRouter()
    {
        const QString onA = userOn(m_a, QStringLiteral("via"));
        QVERIFY(!onA.isEmpty());
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("SANDSCOPE_API_KEY"), m_key);
        environment.insert(
            QStringLiteral("SANDSCOPE_AUDIT_LOG"), m_local.filePath(QStringLiteral("audit.jsonl")));
        const CliResult cat = cliText(runSandscope(
            {QStringLiteral("files"), QStringLiteral("cat"), QStringLiteral("chat-1/where"),
                QStringLiteral("--fleet"), m_fleetFile, QStringLiteral("--user"), onA},
            environment));
        QCOMPARE(cat.exitCode, 0);
        QCOMPARE(cat.out.trimmed(), QStringLiteral("on-member-a"));
    }

    void moveThroughTheCommandLine()
    {
        const QString userId = userOn(m_a, QStringLiteral("cli"));
        QVERIFY(!userId.isEmpty());
        const QStringList move {QStringLiteral("move"), QStringLiteral("--user"), userId,
            QStringLiteral("--from"), m_a.name, QStringLiteral("--to"), m_b.name};
        const CliResult dry = fleet(move);
        QCOMPARE(dry.exitCode, 0);
        QVERIFY2(dry.out.contains(QLatin1String("no account yet")), qPrintable(dry.out));
        QVERIFY(!m_b.asRoot(QStringLiteral("ls /home")).contains(userId.toLower()));

        const QString report = m_local.filePath(userId + QStringLiteral(".jsonl"));
        const CliResult moved = fleet(move
            + QStringList {QStringLiteral("--execute"), QStringLiteral("--report"), report,
                QStringLiteral("--json")});
        QVERIFY2(moved.exitCode == 0, qPrintable(moved.all()));
        QVERIFY(QFile::exists(report));
        QCOMPARE(
            shellLines(m_b.client.get(), {userId, QString()}, QStringLiteral("cat ~/chat-1/where")),
            QStringList({QStringLiteral("on-member-a")}));
        const CliResult status = fleet({QStringLiteral("status"), QStringLiteral("--json")});
        const QJsonObject users = QJsonDocument::fromJson(status.out.toUtf8())
                                      .object()
                                      .value(QLatin1String("users"))
                                      .toObject();
        QCOMPARE(users.value(userId).toArray(), QJsonArray({m_b.name}));
    }

    void aMoveThatCannotBeAuditedDoesNotStart()
    {
        const QString userId = userOn(m_a, QStringLiteral("aud"));
        QVERIFY(!userId.isEmpty());
        // A folder where the log file should be: not writable, even as root.
        const QString unwritable = m_local.filePath(QStringLiteral("audit-is-a-folder"));
        QVERIFY(QDir().mkpath(unwritable));
        const CliResult refused = fleet(
            {QStringLiteral("move"), QStringLiteral("--user"), userId, QStringLiteral("--from"),
                m_a.name, QStringLiteral("--to"), m_b.name, QStringLiteral("--execute")},
            unwritable);
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(
            refused.err.contains(QLatin1String("Not moved")) && refused.err.contains(unwritable),
            qPrintable(refused.all()));
        QVERIFY(!m_b.asRoot(QStringLiteral("ls /home")).contains(userId.toLower()));
        QCOMPARE(
            shellLines(m_a.client.get(), {userId, QString()}, QStringLiteral("cat ~/chat-1/where")),
            QStringList({QStringLiteral("on-member-a")}));
    }

    // Last: a member stops.
    void aStoppedMemberIsNamedWhileTheOtherIsListed()
    {
        m_b.server->stop();
        const CliResult result = fleet({QStringLiteral("status"), QStringLiteral("--json")});
        QCOMPARE(result.exitCode, 3);
        const QJsonArray members = QJsonDocument::fromJson(result.out.toUtf8())
                                       .object()
                                       .value(QLatin1String("members"))
                                       .toArray();
        QCOMPARE(members.size(), 2);
        QVERIFY2(members.at(0).toObject().value(QLatin1String("healthy")).toBool(),
            qPrintable(result.all()));
        const QJsonObject down = members.at(1).toObject();
        QVERIFY(!down.value(QLatin1String("healthy")).toBool());
        QVERIFY2(!down.value(QLatin1String("error")).toString().isEmpty(), qPrintable(result.out));
    }
};

QTEST_GUILESS_MAIN(FleetStatusTest)
#include "tst_fleetstatus.moc"
