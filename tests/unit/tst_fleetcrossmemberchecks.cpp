// The judging half of the isolation probe's checks across members (FleetCrossMemberChecks):
// which pairs run, what counts as an address of A's member, how B's view of A's member's API
// is read, and the verdicts. A reach is never a PASS; an answer without the key is always a
// FAIL; an API in reach is judged by whether users on B's member can read the key, and is
// never a PASS while that is not known. The checks themselves run against a real fleet in
// tests/integration/tst_fleetprobe.cpp.

#include "fleet/fleetcrossmemberchecks.h"

#include <QtTest>

using namespace sandscope;

namespace {

MemberApiAttempt attempt(
    const QString &url, const QString &health, bool openTerminal, const QString &withoutKey)
{
    MemberApiAttempt result;
    result.url = url;
    result.health = health;
    result.openTerminal = openTerminal;
    result.withoutKey = withoutKey;
    return result;
}

const QString reachedLine = QStringLiteral("sandscope-reached=10.0.0.7");

} // namespace

Q_DECLARE_METATYPE(Verdict)
Q_DECLARE_METATYPE(MemberApiAttempt)

class FleetCrossMemberChecksTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyDirectionBetweenMembersIsOnePair()
    {
        const QStringList users {QStringLiteral("a1"), QStringLiteral("a2"), QStringLiteral("b1"),
            QStringLiteral("c1"), QStringLiteral("lost")};
        const QMap<QString, QString> members {{QStringLiteral("a1"), QStringLiteral("A")},
            {QStringLiteral("a2"), QStringLiteral("A")},
            {QStringLiteral("b1"), QStringLiteral("B")},
            {QStringLiteral("c1"), QStringLiteral("C")}};
        const QStringList order {
            QStringLiteral("A"), QStringLiteral("B"), QStringLiteral("C"), QStringLiteral("D")};
        const QVector<CrossMemberPair> pairs
            = FleetCrossMemberChecks::pairsFor(users, members, order);
        // 3 members with users: 3 x 2 ordered pairs; D holds nobody, "lost" is unplaced.
        QCOMPARE(pairs.size(), 6);
        QSet<QString> directions;
        for (const CrossMemberPair &pair : pairs) {
            QVERIFY(pair.targetMember != pair.actorMember);
            QCOMPARE(members.value(pair.target), pair.targetMember);
            QCOMPARE(members.value(pair.actor), pair.actorMember);
            QVERIFY(pair.target != QLatin1String("a2")); // the first user of each member
            directions << pair.targetMember + pair.actorMember;
        }
        QCOMPARE(directions.size(), 6);
        QVERIFY(FleetCrossMemberChecks::pairsFor(
            {QStringLiteral("a1"), QStringLiteral("a2")}, members, order)
                    .isEmpty());
    }

    void onlyWellFormedOutsideAddressesAreUsed()
    {
        const QStringList lines {QStringLiteral("sandscope-address=10.1.2.3"),
            QStringLiteral("sandscope-address=127.0.0.1"),
            QStringLiteral("sandscope-address=10.1.2.3"),
            QStringLiteral("sandscope-address=10.0.0.1; rm -rf ~"),
            QStringLiteral("sandscope-address=fe80::1"), QStringLiteral("noise 10.9.9.9"),
            QStringLiteral("sandscope-address= 192.168.4.5 ")};
        QCOMPARE(FleetCrossMemberChecks::parseAddresses(lines),
            QStringList({QStringLiteral("10.1.2.3"), QStringLiteral("192.168.4.5")}));
    }

    void apiAttemptsAreReadFromBsOutput()
    {
        const QVector<MemberApiAttempt> attempts = FleetCrossMemberChecks::parseApiAttempts(
            {QStringLiteral("python3 -c 'print(\"sandscope-api \"+b)'"),
                QStringLiteral("sandscope-api http://x:8000 health=200+ nokey=401"),
                QStringLiteral("sandscope-api http://y:8000 health=unreachable:URLError "
                               "nokey=unreachable:URLError"),
                QStringLiteral("sandscope-api http://z health=200 nokey=200")});
        QCOMPARE(attempts.size(), 3);
        QCOMPARE(attempts.at(0).url, QStringLiteral("http://x:8000"));
        QCOMPARE(attempts.at(0).health, QStringLiteral("200"));
        QVERIFY(attempts.at(0).openTerminal);
        QCOMPARE(attempts.at(0).withoutKey, QStringLiteral("401"));
        QVERIFY(!attempts.at(1).openTerminal);
        QVERIFY(!attempts.at(2).openTerminal);
        QCOMPARE(attempts.at(2).withoutKey, QStringLiteral("200"));
    }

    void network_data()
    {
        QTest::addColumn<QStringList>("addresses");
        QTest::addColumn<QStringList>("listener");
        QTest::addColumn<QStringList>("connect");
        QTest::addColumn<bool>("ran");
        QTest::addColumn<Verdict>("verdict");
        const QStringList here {QStringLiteral("10.0.0.7")};
        const QStringList listening {QStringLiteral("sandscope-listening")};
        const QStringList accepted {
            QStringLiteral("sandscope-listening"), QStringLiteral("sandscope-accepted=10.0.0.9")};
        QTest::newRow("reached") << here << accepted << QStringList {reachedLine} << true
                                 << Verdict::Info;
        QTest::newRow("not reached")
            << here
            << QStringList {QStringLiteral("sandscope-listening"),
                   QStringLiteral("sandscope-timeout")}
            << QStringList {QStringLiteral("sandscope-unreached")} << true << Verdict::Pass;
        QTest::newRow("no address of A's member")
            << QStringList() << accepted << QStringList {reachedLine} << true << Verdict::Error;
        QTest::newRow("port in use")
            << here << QStringList {QStringLiteral("sandscope-busy")}
            << QStringList {QStringLiteral("sandscope-unreached")} << true << Verdict::Error;
        QTest::newRow("listener never started")
            << here << QStringList() << QStringList {QStringLiteral("sandscope-unreached")} << true
            << Verdict::Error;
        QTest::newRow("a command failed")
            << here << listening << QStringList() << false << Verdict::Error;
        // An address B claims that A's member did not report proves nothing.
        QTest::newRow("reached elsewhere")
            << here << listening << QStringList {QStringLiteral("sandscope-reached=10.9.9.9")}
            << true << Verdict::Pass;
        QTest::newRow("accepted someone, B saw nothing")
            << here << accepted << QStringList {QStringLiteral("sandscope-unreached")} << true
            << Verdict::Error;
    }

    void network()
    {
        QFETCH(QStringList, addresses);
        QFETCH(QStringList, listener);
        QFETCH(QStringList, connect);
        QFETCH(bool, ran);
        QFETCH(Verdict, verdict);
        const probe::Judgement judgement
            = FleetCrossMemberChecks::judgeNetwork(addresses, listener, connect, ran);
        QCOMPARE(judgement.verdict, verdict);
        QVERIFY(!judgement.explanation.isEmpty());
    }

    void api_data()
    {
        QTest::addColumn<QVector<MemberApiAttempt>>("attempts");
        QTest::addColumn<Verdict>("key");
        QTest::addColumn<Verdict>("verdict");
        const QVector<MemberApiAttempt> reached {
            attempt(QStringLiteral("http://a"), QStringLiteral("unreachable:URLError"), false,
                QStringLiteral("unreachable:URLError")),
            attempt(
                QStringLiteral("http://b"), QStringLiteral("200"), true, QStringLiteral("401"))};
        const QVector<MemberApiAttempt> none {attempt(QStringLiteral("http://a"),
            QStringLiteral("unreachable:URLError"), false, QStringLiteral("unreachable:URLError"))};
        // Something answers 200 at /health but is not open-terminal: not a reach.
        const QVector<MemberApiAttempt> foreign {attempt(
            QStringLiteral("http://c"), QStringLiteral("200"), false, QStringLiteral("404"))};
        const QVector<MemberApiAttempt> open {attempt(
            QStringLiteral("http://b"), QStringLiteral("200"), true, QStringLiteral("200"))};
        QTest::newRow("reached, key readable") << reached << Verdict::Fail << Verdict::Fail;
        QTest::newRow("reached, key not readable") << reached << Verdict::Pass << Verdict::Pass;
        QTest::newRow("reached, key not judged") << reached << Verdict::Error << Verdict::Error;
        QTest::newRow("reached, key info") << reached << Verdict::Info << Verdict::Error;
        QTest::newRow("not reached") << none << Verdict::Fail << Verdict::Pass;
        QTest::newRow("another service") << foreign << Verdict::Fail << Verdict::Pass;
        QTest::newRow("answers without the key") << open << Verdict::Pass << Verdict::Fail;
        QTest::newRow("nothing seen")
            << QVector<MemberApiAttempt>() << Verdict::Fail << Verdict::Error;
    }

    void api()
    {
        QFETCH(QVector<MemberApiAttempt>, attempts);
        QFETCH(Verdict, key);
        QFETCH(Verdict, verdict);
        const probe::Judgement judgement = FleetCrossMemberChecks::judgeApi(attempts, key, true);
        QCOMPARE(judgement.verdict, verdict);
        QVERIFY(!judgement.explanation.isEmpty());
        // Whatever B saw, a command that did not run is never judged.
        QCOMPARE(FleetCrossMemberChecks::judgeApi(attempts, key, false).verdict, Verdict::Error);
    }

    void checksAcrossMembersAreNeverPartOfOneServersProbe()
    {
        int across = 0;
        for (const CheckInfo &info : allChecks()) {
            if (!info.acrossMembers)
                continue;
            ++across;
            QVERIFY(!info.serverWide);
            QVERIFY(info.key.startsWith(QLatin1String("network.member")));
        }
        QCOMPARE(across, 2);
    }
};

QTEST_GUILESS_MAIN(FleetCrossMemberChecksTest)
#include "tst_fleetcrossmemberchecks.moc"
