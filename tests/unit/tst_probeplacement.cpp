// Where the fleet probe places a user (FleetProbe::placeOnMembers, pure): on the one member
// whose listing holds both the account and the home's device and inode the user saw through
// the router; an old copy of the home on another member (same account, other inode) does not
// count; no member, or two members with the same home, leave it not known with the reason;
// and the placement command's output is read as written.

#include "fleet/fleetprobe.h"

#include <QtTest>

using namespace sandscope;

namespace {

// A member whose listing holds `homes`: "account@device:inode" each.
FleetMemberStatus member(const QString &name, const QStringList &homes)
{
    FleetMemberStatus status;
    status.name = name;
    status.state = FleetMemberStatus::State::Answered;
    for (const QString &home : homes) {
        FleetAccount account;
        account.account = home.section(QLatin1Char('@'), 0, 0);
        account.homeId = home.section(QLatin1Char('@'), 1);
        account.home = QStringLiteral("/home/") + account.account;
        status.accounts.append(account);
    }
    return status;
}

} // namespace

class TestProbePlacement : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void placesOnTheMemberHoldingTheSameHome_data()
    {
        QTest::addColumn<QVector<FleetMemberStatus>>("members");
        QTest::addColumn<QString>("seen"); // account@homeId through the router
        QTest::addColumn<QString>("expected"); // member, or "" when not known
        QTest::addColumn<QString>("why"); // part of the reason when not known

        const QVector<FleetMemberStatus> fleet {
            member(QStringLiteral("m1"), {QStringLiteral("alice@10:5")}),
            member(QStringLiteral("m2"), {QStringLiteral("bob@20:5")})};
        QTest::newRow("on m1") << fleet << QStringLiteral("alice@10:5") << QStringLiteral("m1")
                               << QString();
        QTest::newRow("on m2") << fleet << QStringLiteral("bob@20:5") << QStringLiteral("m2")
                               << QString();
        // An old copy left by a move: same account, another home. The router's answer decides.
        const QVector<FleetMemberStatus> moved {
            member(QStringLiteral("m1"), {QStringLiteral("alice@10:5")}),
            member(QStringLiteral("m2"), {QStringLiteral("alice@20:7")})};
        QTest::newRow("old copy on m1")
            << moved << QStringLiteral("alice@20:7") << QStringLiteral("m2") << QString();
        QTest::newRow("nobody holds it")
            << fleet << QStringLiteral("carol@30:1") << QString() << QStringLiteral("no member");
        QTest::newRow("same inode, other account")
            << fleet << QStringLiteral("carol@10:5") << QString() << QStringLiteral("no member");
        const QVector<FleetMemberStatus> twins {
            member(QStringLiteral("m1"), {QStringLiteral("alice@10:5")}),
            member(QStringLiteral("m2"), {QStringLiteral("alice@10:5")})};
        QTest::newRow("two members, same device and inode")
            << twins << QStringLiteral("alice@10:5") << QString()
            << QStringLiteral("which one the router sends it to is not known");
    }
    void placesOnTheMemberHoldingTheSameHome()
    {
        QFETCH(QVector<FleetMemberStatus>, members);
        QFETCH(QString, seen);
        QFETCH(QString, expected);
        QFETCH(QString, why);
        ProbePlacement placement;
        placement.userId = QStringLiteral("user-1");
        placement.account = seen.section(QLatin1Char('@'), 0, 0);
        placement.homeId = seen.section(QLatin1Char('@'), 1);
        QVector<ProbePlacement> users {placement};
        FleetProbe::placeOnMembers(&users, members);
        QCOMPARE(users.constFirst().member, expected);
        if (expected.isEmpty())
            QVERIFY2(users.constFirst().why.contains(why), qPrintable(users.constFirst().why));
        else
            QVERIFY(users.constFirst().why.isEmpty());
    }

    void aUserTheRouterDidNotAnswerForIsNeverPlaced()
    {
        ProbePlacement placement;
        placement.userId = QStringLiteral("user-1");
        placement.why = QStringLiteral("its request through the router failed");
        QVector<ProbePlacement> users {placement};
        FleetProbe::placeOnMembers(&users, {member(QStringLiteral("m1"), {QStringLiteral("@")})});
        QVERIFY(users.constFirst().member.isEmpty());
        QCOMPARE(users.constFirst().why, placement.why);
    }

    void readsThePlacementCommandsOutput()
    {
        ProbePlacement placement;
        QVERIFY(FleetProbe::parsePlacement(
            {QStringLiteral("noise"), QStringLiteral("sandscope-account=sst_alice"),
                QStringLiteral("sandscope-home=/home/sst_alice"),
                QStringLiteral("sandscope-homeid=2049:131")},
            &placement));
        QCOMPARE(placement.account, QStringLiteral("sst_alice"));
        QCOMPARE(placement.home, QStringLiteral("/home/sst_alice"));
        QCOMPARE(placement.homeId, QStringLiteral("2049:131"));
        // A home stat could not read is not a placement.
        ProbePlacement partial;
        QVERIFY(!FleetProbe::parsePlacement(
            {QStringLiteral("sandscope-account=sst_alice"), QStringLiteral("sandscope-homeid=")},
            &partial));
        // Every key the parser reads is one the command prints.
        for (const QString &key : {QStringLiteral("sandscope-account="),
                 QStringLiteral("sandscope-home="), QStringLiteral("sandscope-homeid=")})
            QVERIFY(FleetProbe::placementCommand().contains(key));
    }
};

QTEST_GUILESS_MAIN(TestProbePlacement)
#include "tst_probeplacement.moc"
