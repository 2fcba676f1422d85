// PollBackoff: the pace ProcessStream and TranscriptFollower poll at. Checked by invariants
// over seeded random sequences of active and quiet polls on a driven clock, and by the three
// behaviours callers rely on: activity snaps back to the fast pace, silence doubles up to the
// ceiling, and a short pause within the grace keeps the fast pace.

#include "util/pollbackoff.h"

#include <QRandomGenerator>
#include <QtTest/QTest>

using namespace sandscope;

class TestPollBackoff : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void intervalsAreNormalised_data()
    {
        QTest::addColumn<int>("fast");
        QTest::addColumn<int>("idleMax");
        QTest::newRow("ordinary") << 250 << 5000;
        QTest::newRow("zero fast") << 0 << 100;
        QTest::newRow("negative fast") << -5 << -5;
        QTest::newRow("ceiling below fast") << 300 << 100;
    }

    void intervalsAreNormalised()
    {
        QFETCH(int, fast);
        QFETCH(int, idleMax);
        const PollBackoff backoff(fast, idleMax);
        QVERIFY(backoff.fastMs() >= 1);
        QVERIFY(backoff.fastMs() >= fast);
        QVERIFY(backoff.idleMaxMs() >= backoff.fastMs());
        QCOMPARE(backoff.delayMs(), backoff.fastMs());
    }

    // Whatever happens, a delay lies between the fast interval and the ceiling; after
    // activity it is the fast one raised to the floor; while quiet past the grace it doubles
    // (or stays at the ceiling); within the grace it stays fast.
    void delaysKeepTheirBoundsUnderRandomActivity_data()
    {
        QTest::addColumn<int>("grace");
        QTest::newRow("no grace (transcripts)") << 0;
        QTest::newRow("grace of 8 intervals (processes)") << 8;
    }

    void delaysKeepTheirBoundsUnderRandomActivity()
    {
        QFETCH(int, grace);
        for (quint32 seed = 1; seed <= 20; ++seed) {
            QRandomGenerator random(seed);
            const int fast = 1 + int(random.bounded(300));
            const int idleMax = fast + int(random.bounded(20000));
            PollBackoff backoff(fast, idleMax, grace);
            qint64 now = 0;
            qint64 lastActive = 0;
            int previous = backoff.delayMs();
            for (int step = 0; step < 500; ++step) {
                const bool active = random.bounded(4) == 0;
                const int floor = int(random.bounded(2 * idleMax));
                const int delay = backoff.nextAt(now, active, floor);
                QVERIFY2(delay >= fast && delay <= idleMax,
                    qPrintable(QStringLiteral("seed %1 step %2: %3 outside [%4, %5]")
                                   .arg(seed)
                                   .arg(step)
                                   .arg(delay)
                                   .arg(fast)
                                   .arg(idleMax)));
                QCOMPARE(backoff.delayMs(), delay);
                if (active)
                    lastActive = now;
                const bool withinGrace = now - lastActive < qint64(grace) * fast;
                if (active || withinGrace)
                    QCOMPARE(delay, qMax(fast, qMin(floor, idleMax)));
                else
                    QCOMPARE(delay, qMin(2 * previous, idleMax));
                previous = delay;
                now += delay;
            }
        }
    }

    void silenceDoublesUpToTheCeilingAndActivityResets()
    {
        PollBackoff backoff(250, 5000);
        QCOMPARE(backoff.nextAt(0, true), 250);
        QCOMPARE(backoff.nextAt(250, false), 500);
        QCOMPARE(backoff.nextAt(750, false), 1000);
        QCOMPARE(backoff.nextAt(1750, false), 2000);
        QCOMPARE(backoff.nextAt(3750, false), 4000);
        QCOMPARE(backoff.nextAt(7750, false), 5000);
        QCOMPARE(backoff.nextAt(12750, false), 5000);
        QCOMPARE(backoff.nextAt(17750, true), 250);
    }

    void aShortPauseKeepsTheFastPace()
    {
        PollBackoff backoff(100, 5000, 8);
        QCOMPARE(backoff.nextAt(0, true), 100);
        for (qint64 now = 100; now < 800; now += 100)
            QCOMPARE(backoff.nextAt(now, false), 100);
        QCOMPARE(backoff.nextAt(800, false), 200); // 8 intervals of silence: idle now
        QCOMPARE(backoff.nextAt(1000, false), 400);
    }

    void aSlowAnswerSetsTheFloorButNotPastTheCeiling()
    {
        PollBackoff backoff(250, 5000);
        QCOMPARE(backoff.nextAt(0, true, 900), 900);
        QCOMPARE(backoff.nextAt(900, true, 60000), 5000);
    }

    void newIntervalsStartFast()
    {
        PollBackoff backoff(10, 1000);
        backoff.nextAt(0, true);
        for (int i = 1; i < 10; ++i)
            backoff.nextAt(i * 1000, false);
        QCOMPARE(backoff.delayMs(), 1000);
        backoff.setIntervals(50, 500);
        QCOMPARE(backoff.delayMs(), 50);
        QCOMPARE(backoff.nextAt(20000, false), 100);
    }

    void theOwnClockAdvances()
    {
        PollBackoff backoff(5, 40);
        QCOMPARE(backoff.next(true), 5);
        QCOMPARE(backoff.next(false), 10);
    }
};

QTEST_GUILESS_MAIN(TestPollBackoff)
#include "tst_pollbackoff.moc"
