// What `fleet status` concludes from the members' answers (FleetStatus::judge, pure): the user
// -> member map, and each anomaly exactly when its condition holds: a user with homes on two
// members, members on different versions, a member whose sampled users the router sends
// elsewhere; what could not be checked is said, not guessed; a member that failed is left out
// of every conclusion; and fleetroot.py's account listing is read as written.

#include "fleet/fleetstatus.h"

#include <QtTest>

using namespace sandscope;

namespace {

FleetMemberStatus answered(const QString &name, const QString &version, const QStringList &users,
    const QString &routedTo = {})
{
    FleetMemberStatus member;
    member.name = name;
    member.state = FleetMemberStatus::State::Answered;
    member.version = version;
    for (const QString &user : users)
        member.accounts.append({QStringLiteral("sst_") + user, user,
            QStringLiteral("/home/sst_") + user, QStringLiteral("1:2")});
    member.routeChecked = !routedTo.isEmpty();
    member.routedTo = routedTo;
    return member;
}

QStringList kinds(const FleetStatusReport &report)
{
    QStringList out;
    for (const FleetAnomaly &anomaly : report.anomalies)
        out << anomaly.kind;
    return out;
}

} // namespace

class TestFleetJudge : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void aHealthyFleetHasNoAnomaly()
    {
        FleetStatusReport report;
        report.members = {answered(QStringLiteral("m0"), QStringLiteral("0.14.5"),
                              {QStringLiteral("alice")}, QStringLiteral("m0")),
            answered(QStringLiteral("m1"), QStringLiteral("0.14.5"), {QStringLiteral("bob")},
                QStringLiteral("m1"))};
        FleetStatus::judge(&report);
        QVERIFY(report.anomalies.isEmpty());
        QVERIFY(report.notKnown.isEmpty());
        QCOMPARE(report.users.value(QStringLiteral("alice")), QStringList {QStringLiteral("m0")});
        QCOMPARE(report.users.value(QStringLiteral("bob")), QStringList {QStringLiteral("m1")});
    }

    void eachAnomalyExactlyWhenItHolds()
    {
        FleetStatusReport report;
        report.members
            = {answered(QStringLiteral("m0"), QStringLiteral("0.14.5"),
                   {QStringLiteral("alice"), QStringLiteral("carol")}, QStringLiteral("m0")),
                answered(QStringLiteral("m1"), QStringLiteral("0.11.34"),
                    {QStringLiteral("bob"), QStringLiteral("carol")}, QStringLiteral("m0")),
                answered(QStringLiteral("m2"), QStringLiteral("0.14.5"), {})};
        FleetStatus::judge(&report);
        QCOMPARE(kinds(report),
            QStringList({QStringLiteral("two-homes"), QStringLiteral("versions"),
                QStringLiteral("not-routed")}));
        QCOMPARE(report.anomalies.at(0).user, QStringLiteral("carol"));
        QCOMPARE(report.anomalies.at(0).members,
            QStringList({QStringLiteral("m0"), QStringLiteral("m1")}));
        QVERIFY(report.anomalies.at(1).text.contains(QLatin1String("m1 0.11.34")));
        QCOMPARE(report.anomalies.at(2).members,
            QStringList({QStringLiteral("m1"), QStringLiteral("m0")}));
        // A member without users is not known to get traffic, and not said to lack it.
        QCOMPARE(report.notKnown.size(), 1);
        QVERIFY(report.notKnown.first().contains(QLatin1String("m2")));
        QVERIFY(report.notKnown.first().contains(QLatin1String("no user lives there")));
    }

    void aFailedMemberIsLeftOutOfEveryConclusion()
    {
        FleetStatusReport report;
        FleetMemberStatus down
            = answered(QStringLiteral("m1"), QStringLiteral("0.11.34"), {QStringLiteral("alice")});
        down.state = FleetMemberStatus::State::Failed;
        down.error = QStringLiteral("connection refused");
        report.members = {answered(QStringLiteral("m0"), QStringLiteral("0.14.5"),
                              {QStringLiteral("alice")}, QStringLiteral("m0")),
            down};
        FleetStatus::judge(&report);
        QVERIFY(report.anomalies.isEmpty());
        QVERIFY(report.anyFailed());
        QCOMPARE(report.users.value(QStringLiteral("alice")), QStringList {QStringLiteral("m0")});
    }

    void theAccountListingIsReadAsWritten()
    {
        FleetMemberStatus member;
        QString error;
        const QString home = QString::fromLatin1(QByteArray("/home/sstab_alice").toBase64());
        QVERIFY(fleetstatus::parseAccounts(
            {QStringLiteral("U sstab_alice 1001 1 2049:77 ") + home,
                QStringLiteral("U sstab_gone 1002 0 - ") + home, QStringLiteral("DISK 1000 2000"),
                QStringLiteral("AGENTS 3"),
                QStringLiteral("HOST ") + QString::fromLatin1(QByteArray("pod-0").toBase64())},
            &member, &error));
        QCOMPARE(member.accounts.size(), 1); // the one whose home is here
        QCOMPARE(member.accounts.first().account, QStringLiteral("sstab_alice"));
        QCOMPARE(member.accounts.first().homeId, QStringLiteral("2049:77"));
        QCOMPARE(member.accounts.first().home, QStringLiteral("/home/sstab_alice"));
        QCOMPARE(member.diskUsed, qint64(1000));
        QCOMPARE(member.diskFree, qint64(2000));
        QCOMPARE(member.agents, 3);
        QCOMPARE(member.host, QStringLiteral("pod-0"));
        FleetMemberStatus cut;
        QVERIFY(!fleetstatus::parseAccounts(
            {QStringLiteral("U sstab_alice 1001 1 1:2 -")}, &cut, &error));
        QVERIFY(!error.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestFleetJudge)
#include "tst_fleetjudge.moc"
