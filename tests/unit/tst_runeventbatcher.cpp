// RunEventBatcher: events reach the model only in batches (on its timer or an explicit flush),
// one model update per batch, and an expensive batch makes the next one wait longer.

#include "runs/runeventbatcher.h"
#include "runs/runmodel.h"
#include "runs/runparser.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QSignalSpy>
#include <QThread>
#include <QtTest>

using namespace sandscope;

namespace {

// The events of the basic capture, parsed once.
RunEventBatch captureEvents()
{
    QFile file(QStringLiteral(SANDSCOPE_TEST_DATA_DIR "/stream-basic.jsonl"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    RunParser parser;
    RunEventBatch events;
    QObject::connect(&parser, &RunParser::eventsReady,
        [&events](const RunEventBatch &batch) { events += batch; });
    qint64 number = 0;
    while (!file.atEnd())
        parser.feedLine(file.readLine(), ++number);
    return events;
}

} // namespace

class TestRunEventBatcher : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void eventsWaitForTheTimerAndArriveAsOneBatch()
    {
        const RunEventBatch events = captureEvents();
        QVERIFY(events.size() > 3);
        RunModel model;
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        RunEventBatcher batcher(&model);
        QSignalSpy applied(&batcher, &RunEventBatcher::batchApplied);
        for (const RunEvent &event : events)
            batcher.enqueue({event});
        QVERIFY(batcher.hasPending());
        QCOMPARE(model.rowCount(model.runIndex()), 0); // nothing before the batch
        QVERIFY(applied.wait(5000));
        QCOMPARE(applied.count(), 1);
        QVERIFY(!batcher.hasPending());
        QVERIFY(model.rowCount(model.runIndex()) > 0);
        QCOMPARE(model.summary().toolCalls, qint64(1));
    }

    void flushAppliesAtOnceAndOnlyWhenSomethingIsPending()
    {
        RunModel model;
        RunEventBatcher batcher(&model);
        QSignalSpy applied(&batcher, &RunEventBatcher::batchApplied);
        batcher.flush();
        QCOMPARE(applied.count(), 0);
        batcher.enqueue(captureEvents());
        batcher.flush();
        QCOMPARE(applied.count(), 1);
        QVERIFY(model.rowCount(model.runIndex()) > 0);
        QTest::qWait(2 * RunEventBatcher::minIntervalMs);
        QCOMPARE(applied.count(), 1); // the timer was stopped with the flush
    }

    void anExpensiveBatchMakesTheNextOneWaitLonger()
    {
        RunModel model;
        RunEventBatcher batcher(&model);
        QCOMPARE(batcher.intervalMs(), RunEventBatcher::minIntervalMs);
        // The handlers' time counts: a batch whose relayout took 100 ms.
        connect(&batcher, &RunEventBatcher::batchApplied, this, [] { QThread::msleep(100); });
        batcher.enqueue(captureEvents());
        batcher.flush();
        QVERIFY2(batcher.intervalMs() >= 100 * RunEventBatcher::costFactor,
            qPrintable(QString::number(batcher.intervalMs())));
        QVERIFY(batcher.intervalMs() <= RunEventBatcher::maxIntervalMs);
    }
};

QTEST_GUILESS_MAIN(TestRunEventBatcher)
#include "tst_runeventbatcher.moc"
