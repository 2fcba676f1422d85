// FleetFanOut's promises, with jobs that end when the test says (no server involved: what is
// tested is the fan-out, not a member): each member is reported once, as it ends, in the order
// members end, not the fleet file's; `finished` comes once, after the last; a member that
// outlasts the timeout is named and its late answer dropped; a cancelled run says nothing
// more; values reach onMember with their own member; errors name the member and its URL and
// never the key.

#include "fleet/fleetfanout.h"

#include <QSignalSpy>
#include <QTimer>
#include <QtTest>

#include <memory>
#include <numeric>

using namespace sandscope;

Q_DECLARE_METATYPE(QVector<int>)

namespace {

const QString secretKey = QStringLiteral("sk-fanout-secret-1234");

FleetConfig fleetOf(int members)
{
    FleetConfig fleet;
    fleet.router = QUrl(QStringLiteral("http://router.invalid:8000"));
    for (int i = 0; i < members; ++i) {
        FleetMember member;
        member.name = QStringLiteral("m%1").arg(i);
        member.url = QUrl(QStringLiteral("http://m%1.invalid:8000").arg(i));
        fleet.members.append(member);
    }
    return fleet;
}

std::unique_ptr<FleetFanOut> fanOutOf(int members)
{
    return std::make_unique<FleetFanOut>(
        fleetOf(members), ServerConnection {QUrl(), secretKey, 30000});
}

} // namespace

class FleetFanOutTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Members end after the given delays in ms (a negative one: fails after -delay ms).
    // Reports come in the order they end.
    void eachMemberIsReportedOnceAsItEnds_data()
    {
        QTest::addColumn<QVector<int>>("delays");
        QTest::newRow("in file order") << QVector<int> {10, 40, 70};
        QTest::newRow("reversed") << QVector<int> {70, 40, 10};
        QTest::newRow("one fails first") << QVector<int> {60, -5, 30};
        QTest::newRow("all fail") << QVector<int> {-30, -10, -20};
        QTest::newRow("one member") << QVector<int> {5};
        QTest::newRow("at once") << QVector<int> {0, 0, 0, 0};
    }
    void eachMemberIsReportedOnceAsItEnds()
    {
        QFETCH(QVector<int>, delays);
        const auto fanOut = fanOutOf(int(delays.size()));
        QSignalSpy members(fanOut.get(), &FleetFanOut::memberFinished);
        QSignalSpy finished(fanOut.get(), &FleetFanOut::finished);
        fanOut->run(
            [&delays](const FanOutTarget &target, QObject *context, const FleetFanOut::Done &done) {
                const int delay = delays.at(target.index);
                QTimer::singleShot(std::abs(delay), context, [delay, done] {
                    done(delay >= 0, delay >= 0 ? QString() : QStringLiteral("refused"));
                });
            });
        QVERIFY(fanOut->isRunning());
        QVERIFY(finished.wait(5000));
        QCOMPARE(finished.count(), 1);
        QCOMPARE(members.count(), delays.size());

        QVector<int> order(delays.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
            [&delays](int a, int b) { return std::abs(delays.at(a)) < std::abs(delays.at(b)); });
        int failed = 0;
        for (int i = 0; i < members.count(); ++i) {
            const auto result = members.at(i).at(0).value<FanOutMemberResult>();
            if (delays.at(order.at(i)) != delays.at(result.index)) // ties may come either way
                QCOMPARE(result.index, order.at(i));
            QCOMPARE(result.member, QStringLiteral("m%1").arg(result.index));
            QCOMPARE(result.ok, delays.at(result.index) >= 0);
            QVERIFY(!result.timedOut);
            if (!result.ok) {
                ++failed;
                QCOMPARE(result.error,
                    QStringLiteral("member m%1 (http://m%1.invalid:8000): refused")
                        .arg(result.index));
            }
        }
        QCOMPARE(finished.at(0).at(0).toInt(), failed);
        QCOMPARE(fanOut->failedCount(), failed);
        QVERIFY(!fanOut->isRunning());
    }

    void aMemberPastTheTimeoutIsNamedAndItsLateAnswerDropped()
    {
        const auto fanOut = fanOutOf(3);
        fanOut->setMemberTimeout(100);
        QSignalSpy members(fanOut.get(), &FleetFanOut::memberFinished);
        QSignalSpy finished(fanOut.get(), &FleetFanOut::finished);
        FleetFanOut::Done slowDone;
        fanOut->run([&slowDone](const FanOutTarget &target, QObject *context,
                        const FleetFanOut::Done &done) {
            if (target.index == 1) {
                slowDone = done; // answers only after the timeout
                return;
            }
            QTimer::singleShot(10, context, [done] { done(true, QString()); });
        });
        QVERIFY(finished.wait(5000));
        QCOMPARE(members.count(), 3);
        const auto slow = members.at(2).at(0).value<FanOutMemberResult>();
        QCOMPARE(slow.index, 1);
        QVERIFY(slow.timedOut);
        QVERIFY(!slow.ok);
        QVERIFY2(slow.error.contains(QLatin1String("did not answer within 0.1 s")),
            qPrintable(slow.error));
        QVERIFY(slow.error.startsWith(QLatin1String("member m1 (http://m1.invalid:8000)")));
        QVERIFY(slow.elapsedMs >= 100);
        QCOMPARE(finished.at(0).at(0).toInt(), 1);
        slowDone(true, QString());
        QTest::qWait(20);
        QCOMPARE(members.count(), 3);
        QCOMPARE(finished.count(), 1);
        QVERIFY(!fanOut->results().at(1).ok);
    }

    void aMemberEndingTwiceIsReportedOnce()
    {
        const auto fanOut = fanOutOf(2);
        QSignalSpy members(fanOut.get(), &FleetFanOut::memberFinished);
        QSignalSpy finished(fanOut.get(), &FleetFanOut::finished);
        fanOut->run([](const FanOutTarget &, QObject *context, const FleetFanOut::Done &done) {
            QTimer::singleShot(5, context, [done] {
                done(true, QString());
                done(false, QStringLiteral("again"));
            });
        });
        QVERIFY(finished.wait(5000));
        QTest::qWait(20);
        QCOMPARE(members.count(), 2);
        QCOMPARE(finished.count(), 1);
        QCOMPARE(fanOut->failedCount(), 0);
    }

    void aCancelledRunSaysNothingMoreAndDropsItsWork()
    {
        const auto fanOut = fanOutOf(3);
        QSignalSpy members(fanOut.get(), &FleetFanOut::memberFinished);
        QSignalSpy finished(fanOut.get(), &FleetFanOut::finished);
        QVector<QPointer<QObject>> contexts;
        FleetFanOut::Done keptDone;
        fanOut->run([&](const FanOutTarget &, QObject *context, const FleetFanOut::Done &done) {
            contexts.append(context);
            keptDone = done;
            QTimer::singleShot(30, context, [done] { done(true, QString()); });
        });
        fanOut->cancel();
        QVERIFY(!fanOut->isRunning());
        for (const QPointer<QObject> &context : std::as_const(contexts))
            QVERIFY(context.isNull()); // the members' work went with them
        keptDone(true, QString());
        QTest::qWait(60);
        QCOMPARE(members.count(), 0);
        QCOMPARE(finished.count(), 0);

        // A new run after it reports as usual, and an old answer does not count in it.
        fanOut->run([](const FanOutTarget &, QObject *context, const FleetFanOut::Done &done) {
            QTimer::singleShot(5, context, [done] { done(true, QString()); });
        });
        keptDone(false, QStringLiteral("stale"));
        QVERIFY(finished.wait(5000));
        QCOMPARE(members.count(), 3);
        QCOMPARE(fanOut->failedCount(), 0);
    }

    void valuesReachTheirOwnMember()
    {
        const auto fanOut = fanOutOf(4);
        QHash<QString, QString> seen;
        QSignalSpy finished(fanOut.get(), &FleetFanOut::finished);
        fanOut->runForValues<QString>(
            [](const FanOutTarget &target, QObject *context,
                const FleetFanOut::ValueDone<QString> &done) {
                // The later members answer first.
                QTimer::singleShot(40 - 10 * target.index, context, [target, done] {
                    if (target.index == 2)
                        done(false, QStringLiteral("lost"), QStringLiteral("broken"));
                    else
                        done(true, QStringLiteral("value of ") + target.member, QString());
                });
            },
            [&seen](const FanOutMemberResult &result, const QString &value) {
                QVERIFY(!seen.contains(result.member));
                seen.insert(result.member, value);
            });
        QVERIFY(finished.wait(5000));
        QCOMPARE(seen.size(), 4);
        for (int i = 0; i < 4; ++i) {
            const QString member = QStringLiteral("m%1").arg(i);
            // A failed member's value is never handed over.
            QCOMPARE(seen.value(member), i == 2 ? QString() : QStringLiteral("value of ") + member);
        }
    }

    void oneServerIsAFleetOfOneUnnamedMember()
    {
        FleetFanOut fanOut(nullptr, AdminAccess::serverAccount());
        QVERIFY(!fanOut.isFleet());
        QCOMPARE(fanOut.targets().size(), 1);
        QVERIFY(fanOut.targets().constFirst().member.isEmpty());
        QSignalSpy members(&fanOut, &FleetFanOut::memberFinished);
        fanOut.run([](const FanOutTarget &, QObject *, const FleetFanOut::Done &done) {
            done(false, QStringLiteral("server said no")); // at once: still one report
        });
        QCOMPARE(members.count(), 1);
        // One server's error is its own (the caller names the server).
        QCOMPARE(members.at(0).at(0).value<FanOutMemberResult>().error,
            QStringLiteral("server said no"));
        QVERIFY(!fanOut.isRunning());
    }

    // Neither the key nor credentials written into a member's URL reach a message.
    void errorsNeverCarryTheKeyOrCredentials()
    {
        FleetConfig fleet = fleetOf(2);
        fleet.members[1].url = QUrl(QStringLiteral("http://admin:hunter2@m1.invalid:8000"));
        const auto fanOut
            = std::make_unique<FleetFanOut>(fleet, ServerConnection {QUrl(), secretKey, 30000});
        QSignalSpy finished(fanOut.get(), &FleetFanOut::finished);
        fanOut->run([](const FanOutTarget &, QObject *context, const FleetFanOut::Done &done) {
            QTimer::singleShot(0, context, [done] { done(false, QStringLiteral("401")); });
        });
        QVERIFY(finished.wait(5000));
        for (const FanOutMemberResult &result : fanOut->results()) {
            QVERIFY(!result.error.contains(secretKey));
            QVERIFY2(!result.error.contains(QLatin1String("hunter2")), qPrintable(result.error));
            QVERIFY2(result.error.contains(QStringLiteral("m%1.invalid").arg(result.index)),
                qPrintable(result.error));
        }
    }
};

QTEST_GUILESS_MAIN(FleetFanOutTest)
#include "tst_fleetfanout.moc"
