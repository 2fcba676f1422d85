// The isolation probe on a fleet of two REAL members (tests/support/fleetmembers.h: each with a
// private /home and its own account prefix) behind the REAL nginx running the shipped router:
//  * fresh ids are made through the router until each member holds two; each is placed on the
//    member that really holds its home (checked here by looking into the members' /home);
//  * every pair check ran on one member with both of its users living there, and is judged
//    (no pair of users on different members is ever judged, so no PASS comes from a file
//    that simply is not where the attacker acts); server-wide checks run on every member;
//  * the fresh ids' accounts and homes are gone afterwards, and nothing of the probe is left;
//  * users given by the caller who live on different members are named as not probed (exit 2),
//    never PASS;
//  * the command line does the same with --fleet --fresh-users, its JSON naming the members.

#include "fleet/fleetfanout.h"
#include "fleet/fleetprobe.h"
#include "probefixture.h"
#include "routedfleet.h"
#include "sandscopecli.h"
#include "testing.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QSignalSpy>
#include <QtTest>

#include <functional>

using namespace sandscope;
using namespace sandscope::test;

class FleetProbeTest : public QObject {
    Q_OBJECT

private:
    RoutedFleet<2> m_fleet;
    TestMember *m_members = m_fleet.members.data();
    QString m_key;
    QTemporaryDir m_local;
    QString m_fleetFile;
    std::unique_ptr<OpenTerminalClient> m_client; // through the router
    std::unique_ptr<FleetFanOut> m_fanOut;
    // The checks across members judge the API with process.server-environ of B's member.
    const QVector<CheckId> m_checks {CheckId::FilesRead, CheckId::ShellRead, CheckId::AccountCase,
        CheckId::ServerEnvironApi, CheckId::MemberNetwork, CheckId::MemberApi};

    QStringList membersHolding(const QString &account) const
    {
        return m_fleet.membersHolding(account);
    }
    // Runs the fleet probe to its end; `onResult` sees each result as it is judged, while
    // the probe's users still exist.
    ProbeReport probe(const ProbeOptions &options, int freshPerMember,
        const std::function<void(const CheckResult &)> &onResult = {})
    {
        FleetProbe probe(m_client.get(), m_fanOut.get());
        QSignalSpy finished(&probe, &FleetProbe::finished);
        if (onResult)
            connect(&probe, &FleetProbe::resultReady, this, onResult);
        QString why;
        if (!probe.start(options, freshPerMember, &why)) {
            qWarning("the probe did not start: %s", qPrintable(why));
            return {};
        }
        if (!finished.wait(240000))
            qWarning("the probe did not end within 240 s");
        return probe.report();
    }
    // The account `user` had where the router sent it, as the placement's evidence says.
    static QString placedAccount(const CheckResult &result, const QString &user)
    {
        for (const Evidence &evidence : result.evidence) {
            if (!evidence.request.contains(QStringLiteral("X-User-Id: %1,").arg(user)))
                continue;
            for (const QString &line : evidence.response.split(QLatin1Char('\n'))) {
                if (line.startsWith(QLatin1String("sandscope-account=")))
                    return line.section(QLatin1Char('='), 1);
            }
        }
        return {};
    }

    // A check across members of the test fleet, whose members share the machine's network
    // and run the newest pinned server, where users read the key (process.server-environ).
    static void verifyAcrossMembers(const ProbeReport &report, const CheckResult &result)
    {
        const QString actorMember = report.userMembers.value(result.actor);
        const QString targetMember = report.userMembers.value(result.target);
        QCOMPARE(result.member, actorMember);
        QVERIFY(!targetMember.isEmpty() && targetMember != actorMember);
        QString evidence;
        for (const Evidence &step : result.evidence)
            evidence += step.request + QLatin1Char('\n') + step.response + QLatin1Char('\n');
        if (result.check == CheckId::MemberNetwork) {
            // A's marker read from B's member, at an address A's member reported.
            QCOMPARE(result.verdict, Verdict::Info);
            QVERIFY2(evidence.contains(QLatin1String("sandscope-reached=")), qPrintable(evidence));
            return;
        }
        QCOMPARE(result.check, CheckId::MemberApi);
        const CheckResult *key = nullptr;
        for (const CheckResult &own : report.results) {
            if (own.check == CheckId::ServerEnvironApi && own.member == actorMember)
                key = &own;
        }
        QVERIFY(key);
        QCOMPARE(key->verdict, Verdict::Fail);
        QVERIFY2(result.verdict == Verdict::Fail, qPrintable(result.explanation));
        // B's shell saw A's member's /health and was refused without the key.
        QVERIFY2(evidence.contains(QLatin1String("health=200+ nokey=401")), qPrintable(evidence));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString why;
        SANDSCOPE_REQUIRE(RealServer::canRunMultiUser(&why), why);
        SANDSCOPE_REQUIRE(!FleetRouter::nginx().isEmpty(), "needs nginx (scripts/install-deps.sh)");
        QVERIFY2(m_fleet.start(&why), qPrintable(why));
        m_key = m_fleet.key;
        m_fleetFile = m_fleet.fleetFile;
        m_client = std::make_unique<OpenTerminalClient>(m_fleet.routerConnection());
        m_fanOut = std::make_unique<FleetFanOut>(m_fleet.fleet, m_fleet.routerConnection());
    }
    void cleanupTestCase()
    {
        m_fanOut.reset();
        m_client.reset();
        m_fleet.stop();
    }

    void freshUsersAreProbedOnTheMemberTheyLiveOn()
    {
        ProbeOptions options;
        options.onlyChecks = m_checks;
        // Where each pair check's users live, looked into while they exist: user -> members
        // whose own /home holds the account's home.
        QHash<QString, QString> accountOf;
        QHash<QString, QStringList> holding;
        const ProbeReport report = probe(options, 2, [&](const CheckResult &result) {
            if (checkInfo(result.check).serverWide) // its actor is a variant id, not a user
                return;
            for (const QString &user : {result.actor, result.target}) {
                if (accountOf.contains(user))
                    continue;
                const QString account = placedAccount(result, user);
                accountOf.insert(user, account);
                holding.insert(user, account.isEmpty() ? QStringList() : membersHolding(account));
            }
        });
        QVERIFY2(report.notProbed.isEmpty(), qPrintable(report.notProbed.join(QLatin1Char('\n'))));
        QCOMPARE(report.users.size(), 4);
        QCOMPARE(accountOf.size(), 4);
        for (const QString &account : std::as_const(accountOf))
            QVERIFY(!account.isEmpty());

        // Two users on each member, each on the member that really holds its home.
        QHash<QString, int> perMember;
        for (const QString &user : report.users) {
            const QString member = report.userMembers.value(user);
            ++perMember[member];
            QCOMPARE(holding.value(user), QStringList {member});
        }
        QCOMPARE(perMember.value(m_members[0].name), 2);
        QCOMPARE(perMember.value(m_members[1].name), 2);

        // Every pair check: both users on the check's member, judged (never ERROR or INFO).
        int pairResults = 0;
        QSet<QString> serverSubjects;
        QStringList across;
        for (const CheckResult &result : report.results) {
            QVERIFY(!result.member.isEmpty());
            if (checkInfo(result.check).acrossMembers) {
                across << checkInfo(result.check).key + QLatin1Char(' ') + result.member;
                verifyAcrossMembers(report, result);
                continue;
            }
            if (checkInfo(result.check).serverWide) {
                serverSubjects << result.subject();
                QVERIFY2(result.verdict != Verdict::Error, qPrintable(result.explanation));
                continue;
            }
            ++pairResults;
            QCOMPARE(report.userMembers.value(result.actor), result.member);
            QCOMPARE(report.userMembers.value(result.target), result.member);
            QVERIFY2(result.verdict == Verdict::Pass || result.verdict == Verdict::Fail,
                qPrintable(checkInfo(result.check).key + QLatin1Char(' ') + result.subject()
                    + QStringLiteral(": ") + result.explanation));
        }
        // files.read and shell.read for each ordered pair of each member's two users.
        QCOMPARE(pairResults, 2 * 2 * 2);
        QCOMPARE(serverSubjects,
            (QSet<QString> {
                memberServerSubject(m_members[0].name), memberServerSubject(m_members[1].name)}));
        // Across members: each direction once, B acting on its own member.
        across.sort();
        QCOMPARE(across,
            QStringList({QStringLiteral("network.member %1").arg(m_members[0].name),
                QStringLiteral("network.member %1").arg(m_members[1].name),
                QStringLiteral("network.member-api %1").arg(m_members[0].name),
                QStringLiteral("network.member-api %1").arg(m_members[1].name)}));

        // The fresh ids are gone: their accounts, their homes, and what the probe made.
        const QStringList accountsAfter
            = accountsOf(*m_members[0].server) + accountsOf(*m_members[1].server);
        for (const QString &account : std::as_const(accountOf)) {
            QVERIFY2(!accountsAfter.contains(account), qPrintable(account));
            QVERIFY2(membersHolding(account).isEmpty(), qPrintable(account));
        }
        QVERIFY(nothingLeft(*m_members[0].server));
    }

    void usersOnDifferentMembersAreNotProbedAgainstEachOther()
    {
        // One id per member, found where its home appears.
        const QHash<QString, QString> byMember = m_fleet.oneUserPerMember(m_client.get());
        QCOMPARE(byMember.size(), 2);
        ProbeOptions options;
        options.users = byMember.values();
        options.onlyChecks = m_checks;
        const ProbeReport report = probe(options, 0);
        for (auto it = byMember.cbegin(); it != byMember.cend(); ++it)
            QCOMPARE(report.userMembers.value(it.value()), it.key());
        // No check of one member's judged them against each other, both named. Across
        // members: the network is judged; the API is not, as no member probe read the key.
        int across = 0;
        for (const CheckResult &result : report.results) {
            if (checkInfo(result.check).acrossMembers) {
                ++across;
                QCOMPARE(result.member, report.userMembers.value(result.actor));
                QVERIFY(result.member != report.userMembers.value(result.target));
                if (result.check == CheckId::MemberApi) {
                    QCOMPARE(result.verdict, Verdict::Error);
                    QVERIFY2(result.explanation.contains(QLatin1String("is not known")),
                        qPrintable(result.explanation));
                } else {
                    QCOMPARE(result.verdict, Verdict::Info);
                }
                continue;
            }
            QVERIFY2(checkInfo(result.check).serverWide, qPrintable(result.subject()));
        }
        QCOMPARE(across, 4);
        QCOMPARE(report.notProbed.size(), 2);
        for (const QString &user : options.users)
            QVERIFY(report.notProbed.join(QLatin1Char('\n')).contains(user));
        QCOMPARE(report.exitCode(), 2);
    }

    void theCommandLineProbesAFleetWithFreshUsers()
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("SANDSCOPE_API_KEY"), m_key);
        environment.insert(
            QStringLiteral("SANDSCOPE_AUDIT_LOG"), m_local.filePath(QStringLiteral("audit.jsonl")));
        const CliText run = cliText(runSandscope(
            {QStringLiteral("probe"), QStringLiteral("--fleet"), m_fleetFile,
                QStringLiteral("--fresh-users"), QStringLiteral("2"), QStringLiteral("--checks"),
                QStringLiteral("files.read"), QStringLiteral("--json")},
            environment, 240000));
        QVERIFY2(run.exitCode == 0 || run.exitCode == 1, qPrintable(run.err));
        const QJsonObject json = QJsonDocument::fromJson(run.out.toUtf8()).object();
        const QJsonObject members = json.value(QStringLiteral("user_members")).toObject();
        QCOMPARE(members.size(), 4);
        const QJsonArray results = json.value(QStringLiteral("results")).toArray();
        QCOMPARE(results.size(), 4); // files.read for 2 ordered pairs on each of 2 members
        for (const QJsonValue &value : results) {
            const QJsonObject result = value.toObject();
            const QString member = result.value(QStringLiteral("member")).toString();
            QCOMPARE(
                members.value(result.value(QStringLiteral("actor")).toString()).toString(), member);
            QCOMPARE(members.value(result.value(QStringLiteral("target")).toString()).toString(),
                member);
        }
        QVERIFY(!run.out.contains(m_key));
        QVERIFY(!run.err.contains(m_key));
    }

    void theCommandLineRefusesFreshUsersWithoutAFleet()
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("SANDSCOPE_API_KEY"), m_key);
        const CliText run
            = cliText(runSandscope({QStringLiteral("probe"), QStringLiteral("--server"),
                                       m_members[0].server->url().toString(),
                                       QStringLiteral("--fresh-users"), QStringLiteral("2")},
                environment));
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(
            run.err.contains(QLatin1String("--fresh-users is for a fleet")), qPrintable(run.err));
    }
};

QTEST_GUILESS_MAIN(FleetProbeTest)
#include "tst_fleetprobe.moc"
