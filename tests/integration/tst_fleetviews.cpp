// The all-users views of the command line on a fleet of three REAL members
// (tests/support/fleetmembers.h: each in a mount namespace with a private /home, one API key,
// admin command nsenter): sessions, search, usage and chats with --all-users --fleet.
//  * every member's users are listed, each item with the member its home is on;
//  * what the fleet shows is what each member shows alone (the same sessions, hits, homes),
//    and its usage figures add up to the members' own;
//  * a member whose admin command fails, or hangs past --member-timeout, is named with its
//    error while the others are shown (exit 3).

#include "fleet/fleetconfig.h"
#include "fleet/fleetfanout.h"
#include "fleet/fleetlivewatcher.h"
#include "fleetmembers.h"
#include "putfile.h"
#include "sandscopecli.h"
#include "sessions/sessiondiscovery.h"
#include "testing.h"
#include "transcripthome.h"
#include "util/shellquote.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QUuid>
#include <QtTest>

#include <csignal>

using namespace sandscope;
using namespace sandscope::test;

namespace {

using CliResult = CliText;

// A user of a member with one chat session, its transcript a copy of transcript-basic.jsonl.
struct PlacedUser {
    QString userId;
    QString account;
    QString sessionId;
};

} // namespace

class FleetViewsTest : public QObject {
    Q_OBJECT

private:
    TestMember m_members[3];
    QTemporaryDir m_local;
    QString m_fleetFile;
    QString m_key;
    QHash<QString, PlacedUser> m_placed; // member name -> its user

    CliResult run(const QStringList &arguments, int timeoutMs = 180000)
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("SANDSCOPE_API_KEY"), m_key);
        environment.insert(
            QStringLiteral("SANDSCOPE_AUDIT_LOG"), m_local.filePath(QStringLiteral("audit.jsonl")));
        return cliText(runSandscope(arguments, environment, timeoutMs));
    }
    // `arguments` of every user (cleanup always is) on the fleet.
    static QStringList everyUser(const QStringList &arguments)
    {
        return arguments.constFirst() == QLatin1String("cleanup")
            ? arguments
            : arguments + QStringList {QStringLiteral("--all-users")};
    }
    CliResult onFleet(const QStringList &arguments, const QString &fleetFile = {})
    {
        return run(everyUser(arguments)
            + QStringList {
                QStringLiteral("--fleet"), fleetFile.isEmpty() ? m_fleetFile : fleetFile});
    }
    // The same view of one member alone, as for one server.
    CliResult onMember(const TestMember &member, const QStringList &arguments)
    {
        return run(arguments
            + QStringList {QStringLiteral("--all-users"), QStringLiteral("--server"),
                member.server->url().toString(), QStringLiteral("--admin-exec"),
                member.adminCommand()});
    }

    static QJsonObject memberJson(const QString &name, const QString &url, const QString &admin)
    {
        return QJsonObject {{QStringLiteral("name"), name}, {QStringLiteral("url"), url},
            {QStringLiteral("admin_exec"), admin}};
    }
    // A fleet file of the three members, member `index` with `admin` as its admin command
    // when given (a broken or hanging one).
    QString writeFleetFile(const QString &name, int index = -1, const QString &admin = {})
    {
        QJsonArray members;
        for (int i = 0; i < 3; ++i)
            members.append(memberJson(m_members[i].name, m_members[i].server->url().toString(),
                i == index ? admin : m_members[i].adminCommand()));
        const QString path = m_local.filePath(name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly))
            return {};
        file.write(QJsonDocument(
            QJsonObject {{QStringLiteral("router"), m_members[0].server->url().toString()},
                {QStringLiteral("members"), members}})
                       .toJson());
        return path;
    }

    // A user made through the member's own URL, with one chat session installed as root.
    PlacedUser placeUser(const TestMember &member, const QString &tag)
    {
        PlacedUser user;
        user.userId = tag + randomToken(8 - int(tag.size()), true);
        shellLines(member.client.get(), {user.userId, QString()}, QStringLiteral("true"));
        const QStringList home = shellLines(member.client.get(), {user.userId, QString()},
            QStringLiteral("mkdir -p ~/chat-1 && echo \"$HOME\""));
        if (home.isEmpty())
            return {};
        const QString remoteHome = home.constLast();
        user.account = remoteHome.mid(remoteHome.lastIndexOf(QLatin1Char('/')) + 1);
        user.sessionId = QUuid::createUuid().toString(QUuid::WithoutBraces);
        // Seen from here, the member's /home is its temporary folder.
        const QString localHome = member.homes.filePath(user.account);
        const QString escaped
            = sessiondiscovery::projectDirectoryName(remoteHome + QStringLiteral("/chat-1"));
        if (installBasicTranscript(localHome, escaped, user.sessionId).isEmpty())
            return {};
        member.asRoot(QStringLiteral("chown -R %1: /home/%1/.claude").arg(user.account));
        return user;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString why;
        SANDSCOPE_REQUIRE(RealServer::canRunMultiUser(&why), why);
        m_key = QStringLiteral("fleet-key-") + randomToken(16);
        const QStringList names {
            QStringLiteral("member-a"), QStringLiteral("member-b"), QStringLiteral("member-c")};
        QString error;
        QVERIFY2(startMembers({&m_members[0], &m_members[1], &m_members[2]}, names, &error, m_key),
            qPrintable(error));
        m_fleetFile = writeFleetFile(QStringLiteral("fleet.json"));
        QVERIFY(!m_fleetFile.isEmpty());
        for (int i = 0; i < 3; ++i) {
            const PlacedUser user = placeUser(m_members[i], QStringLiteral("fv%1").arg(i));
            QVERIFY2(!user.userId.isEmpty(), qPrintable(m_members[i].name));
            m_placed.insert(m_members[i].name, user);
        }
    }

    void cleanupTestCase() { stopMembers({&m_members[0], &m_members[1], &m_members[2]}); }

    void sessionsOfEveryMemberCarryTheirMember()
    {
        const CliResult result = onFleet({QStringLiteral("sessions"), QStringLiteral("--json")});
        QVERIFY2(result.exitCode == 0, qPrintable(result.all()));
        const QJsonObject root = result.json();
        QHash<QString, QString> memberOfSession;
        for (const QJsonValue &value : root.value(QLatin1String("sessions")).toArray()) {
            const QJsonObject session = value.toObject();
            memberOfSession.insert(session.value(QLatin1String("session_id")).toString(),
                session.value(QLatin1String("member")).toString());
        }
        for (auto placed = m_placed.cbegin(); placed != m_placed.cend(); ++placed)
            QCOMPARE(memberOfSession.value(placed->sessionId), placed.key());
        const QJsonArray members = root.value(QLatin1String("members")).toArray();
        QCOMPARE(members.size(), 3);
        for (const QJsonValue &member : members)
            QVERIFY(member.toObject().value(QLatin1String("ok")).toBool());

        // The fleet shows exactly what each member shows alone.
        QSet<QString> alone;
        for (const TestMember &member : m_members) {
            const CliResult own
                = onMember(member, {QStringLiteral("sessions"), QStringLiteral("--json")});
            QVERIFY2(own.exitCode == 0, qPrintable(own.all()));
            for (const QJsonValue &value : own.json().value(QLatin1String("sessions")).toArray()) {
                const QJsonObject session = value.toObject();
                QVERIFY(!session.contains(QLatin1String("member"))); // one server: no member
                alone.insert(member.name + QLatin1Char('/')
                    + session.value(QLatin1String("path")).toString());
            }
        }
        QSet<QString> merged;
        for (const QJsonValue &value : root.value(QLatin1String("sessions")).toArray()) {
            const QJsonObject session = value.toObject();
            merged.insert(session.value(QLatin1String("member")).toString() + QLatin1Char('/')
                + session.value(QLatin1String("path")).toString());
        }
        QCOMPARE(merged, alone);

        // The table names the member of every row.
        const CliResult text = onFleet({QStringLiteral("sessions")});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.startsWith(QLatin1String("MEMBER")), qPrintable(text.out));
        for (auto placed = m_placed.cbegin(); placed != m_placed.cend(); ++placed) {
            const QStringList rows = text.out.split(QLatin1Char('\n')).filter(placed->account);
            QVERIFY2(!rows.isEmpty(), qPrintable(text.out));
            QVERIFY2(rows.constFirst().startsWith(placed.key()), qPrintable(rows.constFirst()));
        }
        QVERIFY(!text.all().contains(m_key));
    }

    void searchFindsEveryMembersLinesWithTheirMember()
    {
        // A text in every copy of transcript-basic.jsonl.
        const CliResult result
            = onFleet({QStringLiteral("search"), QStringLiteral("--json"), QStringLiteral("Bash")});
        QVERIFY2(result.exitCode == 0, qPrintable(result.all()));
        QHash<QString, QSet<QString>> membersOfSession;
        for (const QJsonValue &value : result.json().value(QLatin1String("hits")).toArray()) {
            const QJsonObject hit = value.toObject();
            membersOfSession[hit.value(QLatin1String("session_id")).toString()].insert(
                hit.value(QLatin1String("member")).toString());
        }
        for (auto placed = m_placed.cbegin(); placed != m_placed.cend(); ++placed)
            QCOMPARE(membersOfSession.value(placed->sessionId), QSet<QString>({placed.key()}));
    }

    void usageOfTheFleetIsTheSumOfItsMembers()
    {
        const CliResult fleet = onFleet({QStringLiteral("usage"), QStringLiteral("--json")});
        QVERIFY2(fleet.exitCode == 0, qPrintable(fleet.all()));
        const QJsonObject report = fleet.json();
        QVERIFY(report.value(QLatin1String("complete")).toBool());
        // Every placed user has rows, each naming the member the home is on.
        QHash<QString, QSet<QString>> membersOfUser;
        for (const QJsonValue &value : report.value(QLatin1String("days")).toArray()) {
            const QJsonObject day = value.toObject();
            membersOfUser[day.value(QLatin1String("user")).toString()].insert(
                day.value(QLatin1String("member")).toString());
        }
        for (auto placed = m_placed.cbegin(); placed != m_placed.cend(); ++placed)
            QCOMPARE(membersOfUser.value(placed->account), QSet<QString>({placed.key()}));

        const QStringList figures {QStringLiteral("sessions"), QStringLiteral("turns"),
            QStringLiteral("tool_calls"), QStringLiteral("errors"), QStringLiteral("input_tokens"),
            QStringLiteral("output_tokens"), QStringLiteral("cache_read_tokens"),
            QStringLiteral("cache_creation_tokens")};
        QHash<QString, double> sum;
        double cost = 0;
        for (const TestMember &member : m_members) {
            const CliResult own
                = onMember(member, {QStringLiteral("usage"), QStringLiteral("--json")});
            QVERIFY2(own.exitCode == 0, qPrintable(own.all()));
            const QJsonObject total = own.json().value(QLatin1String("total")).toObject();
            for (const QString &figure : figures)
                sum[figure] += total.value(figure).toDouble();
            cost += total.value(QLatin1String("cost_usd")).toDouble();
        }
        const QJsonObject total = report.value(QLatin1String("total")).toObject();
        QVERIFY(total.value(QLatin1String("turns")).toDouble() >= 3); // one session per member
        for (const QString &figure : figures)
            QCOMPARE(total.value(figure).toDouble(), sum.value(figure));
        QVERIFY(qAbs(total.value(QLatin1String("cost_usd")).toDouble() - cost) < 1e-9);

        // The table and the CSV name the member.
        const CliResult csv = onFleet({QStringLiteral("usage"), QStringLiteral("--csv")});
        QCOMPARE(csv.exitCode, 0);
        QVERIFY2(csv.out.startsWith(QLatin1String("member,user,day,")), qPrintable(csv.out));
    }

    void chatsOfEveryHomeCarryTheirMember()
    {
        const CliResult result = onFleet({QStringLiteral("chats"), QStringLiteral("--json")});
        QVERIFY2(result.exitCode == 0, qPrintable(result.all()));
        QHash<QString, QSet<QString>> membersOfAccount;
        for (const QJsonValue &value : result.json().value(QLatin1String("accounts")).toArray()) {
            const QJsonObject account = value.toObject();
            membersOfAccount[account.value(QLatin1String("account")).toString()].insert(
                account.value(QLatin1String("member")).toString());
            if (account.value(QLatin1String("account")).toString()
                == m_placed.value(m_members[1].name).account) {
                QCOMPARE(account.value(QLatin1String("chat_count")).toInt(), 1);
                QCOMPARE(account.value(QLatin1String("sessions")).toInt(), 1);
            }
        }
        for (auto placed = m_placed.cbegin(); placed != m_placed.cend(); ++placed)
            QCOMPARE(membersOfAccount.value(placed->account), QSet<QString>({placed.key()}));
    }

    // One plan per member, made at once; executed on its own member only.
    void cleanupPlansEveryMemberAndExecutesOnTheOneNamed()
    {
        const QString plans = m_local.filePath(QStringLiteral("plans"));
        const QStringList dryRun {QStringLiteral("cleanup"), QStringLiteral("--fleet"), m_fleetFile,
            QStringLiteral("--shipped-script"), QStringLiteral("--chat-ttl"), QStringLiteral("0"),
            QStringLiteral("--session-ttl"), QStringLiteral("100000")};
        const CliResult json = run(dryRun + QStringList {QStringLiteral("--json")});
        QVERIFY2(json.exitCode == 0, qPrintable(json.all()));
        // Every member's chat is an item of its own member's plan.
        QHash<QString, QString> memberOfChat;
        for (const QString &line : json.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
            const QJsonObject item = QJsonDocument::fromJson(line.toUtf8()).object();
            if (item.value(QLatin1String("kind")).toString() == QLatin1String("chat"))
                memberOfChat.insert(item.value(QLatin1String("path")).toString(),
                    item.value(QLatin1String("member")).toString());
        }
        for (auto placed = m_placed.cbegin(); placed != m_placed.cend(); ++placed)
            QCOMPARE(memberOfChat.value(QStringLiteral("/home/%1/chat-1").arg(placed->account)),
                placed.key());

        const CliResult saved = run(dryRun + QStringList {QStringLiteral("--save-plan"), plans});
        QVERIFY2(saved.exitCode == 0, qPrintable(saved.all()));
        for (const TestMember &member : m_members) {
            QVERIFY2(saved.out.contains(QStringLiteral("== member %1: ").arg(member.name)),
                qPrintable(saved.out));
            QVERIFY(QFile::exists(
                plans + QLatin1Char('/') + member.name + QStringLiteral(".plan.jsonl")));
        }
        // Executing needs the member; then only that member's chat goes.
        const QString planB
            = plans + QLatin1Char('/') + m_members[1].name + QStringLiteral(".plan.jsonl");
        const QStringList execute {QStringLiteral("cleanup"), QStringLiteral("--fleet"),
            m_fleetFile, QStringLiteral("--shipped-script"), QStringLiteral("--chat-ttl"),
            QStringLiteral("0"), QStringLiteral("--session-ttl"), QStringLiteral("100000"),
            QStringLiteral("--execute"), QStringLiteral("--plan"), planB, QStringLiteral("--yes")};
        const CliResult unnamed = run(execute);
        QCOMPARE(unnamed.exitCode, 2);
        QVERIFY2(unnamed.err.contains(QLatin1String("--member NAME")), qPrintable(unnamed.err));
        const CliResult executed
            = run(execute + QStringList {QStringLiteral("--member"), m_members[1].name});
        QVERIFY2(executed.exitCode == 0, qPrintable(executed.all()));
        const QString chatB
            = QStringLiteral("/home/%1/chat-1").arg(m_placed.value(m_members[1].name).account);
        const QString chatA
            = QStringLiteral("/home/%1/chat-1").arg(m_placed.value(m_members[0].name).account);
        QCOMPARE(
            m_members[1].asRoot(QStringLiteral("test -e %1 && echo there").arg(chatB)), QString());
        QCOMPARE(m_members[0].asRoot(QStringLiteral("test -e %1 && echo there").arg(chatA)),
            QStringLiteral("there\n"));
        QFile audit(m_local.filePath(QStringLiteral("audit.jsonl")));
        QVERIFY(audit.open(QIODevice::ReadOnly));
        const QByteArray log = audit.readAll();
        QVERIFY2(log.contains("cleanup-execute") && log.contains("member-b"), log.constData());
        // Put the chat back for the views after this one.
        QVERIFY(shellLines(m_members[1].client.get(),
            {m_placed.value(m_members[1].name).userId, QString()},
            QStringLiteral("mkdir -p ~/chat-1 && echo ok"))
                    .contains(QStringLiteral("ok")));
    }

    // Two members each run a real claude agent (started through the member's own URL, as Open
    // WebUI's pipe would through the router); `live --all-users --fleet` shows each agent
    // once, with its own member, and never another member's agent as its own (the members
    // here share process ids, as pods on one node may: each follower keeps to the agents of
    // its own mount namespace).
    void theLiveWallShowsEveryMembersAgentsWithTheirMember()
    {
        SANDSCOPE_REQUIRE(!QStandardPaths::findExecutable(QStringLiteral("claude")).isEmpty(),
            "needs the claude CLI (scripts/install-deps.sh)");
        ScriptedModelServer model;
        QString error;
        QVERIFY2(model.start(&error), qPrintable(error));
        QHash<QString, QString> memberOfSession;
        for (int i = 0; i < 2; ++i) {
            const PlacedUser &user = m_placed[m_members[i].name];
            const QString session = QUuid::createUuid().toString(QUuid::WithoutBraces);
            memberOfSession.insert(session, m_members[i].name);
            QByteArray envFile;
            const QHash<QString, QString> environment
                = model.agentEnvironment(QStringLiteral("sk-ant-fleet-") + randomToken(16));
            for (auto it = environment.cbegin(); it != environment.cend(); ++it)
                envFile += it.key().toUtf8() + '=' + shell::quote(it.value()).toUtf8() + '\n';
            const Identity who {user.userId, QString()};
            QVERIFY(putFile(m_members[i].client.get(), who,
                QStringLiteral("/home/%1/.agent-env").arg(user.account), envFile));
            ExecuteOptions options;
            options.cwd = QStringLiteral("/home/") + user.account;
            const QString command
                = QStringLiteral("chmod 600 ~/.agent-env && set -a && . ~/.agent-env && set +a && "
                                 "mkdir -p chat-live && cd chat-live && claude -p %1 "
                                 "--session-id %2 --output-format stream-json --verbose "
                                 "--allowedTools Bash > /dev/null 2>&1 < /dev/null")
                      .arg(shell::quote(QStringLiteral("CMD: sleep 20; echo done")), session);
            OpenTerminalClient *client = m_members[i].client.get();
            const Result<ProcessSnapshot> started = sandscope::await<ProcessSnapshot>(
                [&](auto done) { return client->execute(who, command, options, client, done); });
            QVERIFY2(started.ok(), qPrintable(started.error.toString()));
        }

        QProcess cli;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("SANDSCOPE_API_KEY"), m_key);
        environment.insert(
            QStringLiteral("SANDSCOPE_AUDIT_LOG"), m_local.filePath(QStringLiteral("audit.jsonl")));
        cli.setProcessEnvironment(environment);
        cli.start(QStringLiteral(SANDSCOPE_BINARY),
            {QStringLiteral("live"), QStringLiteral("--all-users"), QStringLiteral("--fleet"),
                m_fleetFile, QStringLiteral("--json")});
        QVERIFY(cli.waitForStarted(10000));
        QHash<QString, QSet<QString>> seen; // session -> members it was shown on
        QString badTimes;
        QByteArray pending;
        const bool both = QTest::qWaitFor(
            [&] {
                pending += cli.readAllStandardOutput();
                qsizetype end = 0;
                while ((end = pending.indexOf('\n')) >= 0) {
                    const QJsonObject line = QJsonDocument::fromJson(pending.left(end)).object();
                    pending.remove(0, end + 1);
                    const QString session = line.value(QLatin1String("session")).toString();
                    if (!memberOfSession.contains(session))
                        continue;
                    seen[session].insert(line.value(QLatin1String("member")).toString());
                    // Times on this machine's clock: a running call's elapsed time is sane.
                    const QJsonValue elapsed = line.value(QLatin1String("elapsed_ms"));
                    if (!elapsed.isNull())
                        badTimes += elapsed.toDouble() < 0 || elapsed.toDouble() > 600000
                            ? QString::number(elapsed.toDouble(), 'g', 17) + QLatin1Char(' ')
                            : QString();
                    const QDateTime activity = QDateTime::fromString(
                        line.value(QLatin1String("last_activity")).toString(), Qt::ISODate);
                    if (qAbs(activity.secsTo(QDateTime::currentDateTimeUtc())) > 3600)
                        badTimes += line.value(QLatin1String("last_activity")).toString()
                            + QLatin1Char(' ');
                }
                return seen.size() == memberOfSession.size();
            },
            60000);
        ::kill(pid_t(cli.processId()), SIGINT);
        QVERIFY(cli.waitForFinished(20000));
        QVERIFY2(both, cli.readAllStandardError().constData());
        for (auto it = memberOfSession.cbegin(); it != memberOfSession.cend(); ++it)
            QCOMPARE(seen.value(it.key()), QSet<QString>({it.value()}));
        QVERIFY2(badTimes.isEmpty(), qPrintable(badTimes));
    }

    // A pod that freezes (its follower stopped: no end, no heartbeat) and one whose follower
    // ends are each named on the live wall, while the third member goes on being watched.
    void aLiveMemberThatFreezesOrEndsIsNamedWhileTheOthersWatch()
    {
        QFile file(m_fleetFile);
        QVERIFY(file.open(QIODevice::ReadOnly));
        FleetConfig fleet;
        QString error;
        QVERIFY2(FleetConfig::fromJson(file.readAll(), &fleet, &error), qPrintable(error));
        FleetFanOut fanOut(fleet, ServerConnection {fleet.router, m_key, 30000});
        FleetLiveWatcher watcher(&fanOut);
        watcher.setSilenceLimitMs(8000); // over the 5 s between heartbeats
        QSignalSpy watching(&watcher, &FleetLiveWatcher::memberWatching);
        QSignalSpy down(&watcher, &FleetLiveWatcher::memberFailed);
        watcher.start();
        QTRY_COMPARE_WITH_TIMEOUT(watching.count(), 3, 60000);
        QList<pid_t> frozen;
        QList<pid_t> ended;
        QTRY_VERIFY_WITH_TIMEOUT(!(frozen = m_members[1].liveFollowers()).isEmpty(), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!(ended = m_members[2].liveFollowers()).isEmpty(), 10000);
        QVERIFY(!m_members[0].liveFollowers().isEmpty());
        for (const pid_t pid : std::as_const(frozen))
            ::kill(pid, SIGSTOP);
        for (const pid_t pid : std::as_const(ended))
            ::kill(pid, SIGKILL);
        QTRY_COMPARE_WITH_TIMEOUT(down.count(), 2, 30000);
        QString messages;
        for (const QList<QVariant> &signal : std::as_const(down))
            messages += signal.value(0).toString() + QLatin1Char('\n');
        for (const pid_t pid : std::as_const(frozen))
            ::kill(pid, SIGKILL);
        QVERIFY2(messages.contains(
                     QRegularExpression(QStringLiteral("member member-b \\([^\n]*no heartbeat"))),
            qPrintable(messages));
        QVERIFY2(
            messages.contains(QRegularExpression(QStringLiteral("member member-c \\([^\n]*ended"))),
            qPrintable(messages));
        QCOMPARE(watcher.watching(), 1);
        // Member A's follower, heartbeating, is not taken for silent.
        QTest::qWait(10000);
        QCOMPARE(down.count(), 2);
        QCOMPARE(watcher.watching(), 1);
        watcher.stop();
    }

    // A member whose admin command fails, and one whose admin command hangs (a frozen pod):
    // each named with its error, the others listed, exit 3.
    void aFailingOrHangingMemberIsNamedWhileTheOthersAreShown_data()
    {
        QTest::addColumn<QString>("verb");
        QTest::newRow("sessions") << QStringLiteral("sessions");
        QTest::newRow("usage") << QStringLiteral("usage");
        QTest::newRow("chats") << QStringLiteral("chats");
        QTest::newRow("search") << QStringLiteral("search");
        QTest::newRow("cleanup") << QStringLiteral("cleanup");
    }
    void aFailingOrHangingMemberIsNamedWhileTheOthersAreShown()
    {
        QFETCH(QString, verb);
        QStringList arguments {verb, QStringLiteral("--json")};
        if (verb == QLatin1String("search"))
            arguments << QStringLiteral("Bash");
        if (verb == QLatin1String("cleanup")) // every chat an item: each home is named
            arguments << QStringLiteral("--shipped-script") << QStringLiteral("--chat-ttl")
                      << QStringLiteral("0");
        // C's admin command cannot reach it (no such process); B's never answers.
        const QString broken = writeFleetFile(
            QStringLiteral("broken.json"), 2, QStringLiteral("nsenter -t 999999999 -m --"));
        QVERIFY(!broken.isEmpty());
        const CliResult failing = onFleet(arguments, broken);
        QCOMPARE(failing.exitCode, 3);
        QVERIFY2(failing.err.contains(QLatin1String("member member-c (")), qPrintable(failing.err));
        QVERIFY2(failing.out.contains(m_placed.value(m_members[0].name).account),
            qPrintable(failing.all()));
        QVERIFY(failing.out.contains(m_placed.value(m_members[1].name).account));
        QVERIFY(!failing.out.contains(m_placed.value(m_members[2].name).account));

        const QString hanging = writeFleetFile(
            QStringLiteral("hanging.json"), 1, QStringLiteral("sh -c 'sleep 600' --"));
        QElapsedTimer clock;
        clock.start();
        const CliResult slow = run(everyUser(arguments)
            + QStringList {QStringLiteral("--fleet"), hanging, QStringLiteral("--member-timeout"),
                QStringLiteral("3")});
        QCOMPARE(slow.exitCode, 3);
        QVERIFY2(slow.err.contains(QLatin1String("member member-b (")), qPrintable(slow.err));
        QVERIFY2(
            slow.err.contains(QLatin1String("did not answer within 3 s")), qPrintable(slow.err));
        QVERIFY(slow.out.contains(m_placed.value(m_members[0].name).account));
        QVERIFY(slow.out.contains(m_placed.value(m_members[2].name).account));
        QVERIFY2(clock.elapsed() < 60000, "the hanging member was waited for");
        const QJsonArray members = slow.json().value(QLatin1String("members")).toArray();
        if (!members.isEmpty()) { // chats and the others list them
            QCOMPARE(members.size(), 3);
            QVERIFY(!members.at(1).toObject().value(QLatin1String("ok")).toBool());
        }
    }
};

QTEST_GUILESS_MAIN(FleetViewsTest)
#include "tst_fleetviews.moc"
