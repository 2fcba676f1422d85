// RunEventBatcher: events reach the model only in batches (on its timer or an explicit flush),
// one model update per batch, and an expensive batch makes the next one wait longer; a
// backlog is worked off in budgeted slices, in order, and drain() ends with drained() once,
// also when a flush takes the rest; a full backlog is signalled drained once down to half;
// each batch goes to the spent-batch sink once it is applied.

#include "runtree/runeventbatcher.h"
#include "runtree/runmodel.h"
#include "streamjson/runparser.h"

#include <QAbstractEventDispatcher>
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

// A session with `calls` Bash calls and their results: a backlog far bigger than one slice.
RunEventBatch manyCalls(int calls)
{
    RunEventBatch events;
    RunEvent init;
    init.kind = RunEvent::SessionInit;
    init.sessionId = QStringLiteral("s");
    events << init;
    for (int i = 0; i < calls; ++i) {
        RunEvent use;
        use.kind = RunEvent::ToolUse;
        use.toolName = QStringLiteral("Bash");
        use.toolUseId = QStringLiteral("call-%1").arg(i);
        use.input.command = QStringLiteral("echo %1").arg(i);
        RunEvent result;
        result.kind = RunEvent::ToolResult;
        result.toolUseId = use.toolUseId;
        result.resultText = QString::number(i);
        events << use << result;
    }
    return events;
}

QStringList toolIds(const RunModel &model)
{
    QStringList ids;
    const QModelIndex run = model.runIndex();
    for (int turn = 0; turn < model.rowCount(run); ++turn) {
        const QModelIndex turnIndex = model.index(turn, 0, run);
        for (int row = 0; row < model.rowCount(turnIndex); ++row)
            ids << model.index(row, 0, turnIndex).data(RunModel::ToolUseIdRole).toString();
    }
    return ids;
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

    void aBacklogIsAppliedInSeveralSlicesInOrder()
    {
        const RunEventBatch events = manyCalls(4000);
        RunModel model;
        RunEventBatcher batcher(&model);
        // Slow model updates (1 ms per insertion) make the backlog outlast one slice's budget.
        connect(&model, &RunModel::rowsInserted, this, [] { QThread::msleep(1); });
        QSignalSpy applied(&batcher, &RunEventBatcher::batchApplied);
        QSignalSpy drained(&batcher, &RunEventBatcher::drained);
        batcher.enqueue(events);
        batcher.drain();
        QVERIFY(drained.wait(20000));
        QCOMPARE(drained.count(), 1);
        QVERIFY2(applied.count() >= 2, qPrintable(QString::number(applied.count())));
        QVERIFY(!batcher.hasPending());

        RunModel reference;
        reference.addEvents(events);
        QCOMPARE(toolIds(model), toolIds(reference));
        QCOMPARE(model.summary().toolCalls, qint64(4000));
    }

    void aFlushDuringADrainAppliesTheRestAndEndsTheDrain()
    {
        const RunEventBatch events = manyCalls(2000);
        RunModel model;
        RunEventBatcher batcher(&model);
        QSignalSpy drained(&batcher, &RunEventBatcher::drained);
        batcher.enqueue(events);
        batcher.drain();
        batcher.flush();
        QCOMPARE(drained.count(), 1);
        QCOMPARE(model.summary().toolCalls, qint64(2000));
        QTest::qWait(2 * RunEventBatcher::minIntervalMs);
        QCOMPARE(drained.count(), 1);
    }

    // Batches are kept as they came and freed one by one as they are applied; a flush in the
    // middle of one takes the rest of it and all later ones, in order.
    void manySmallBatchesAreAppliedInOrderAcrossSlicesAndFlushes()
    {
        const RunEventBatch events = manyCalls(1500);
        RunModel model;
        RunEventBatcher batcher(&model);
        connect(&model, &RunModel::rowsInserted, this, [] { QThread::msleep(1); });
        for (int first = 0; first < events.size(); first += 77)
            batcher.enqueue(events.mid(first, 77));
        batcher.enqueue({}); // nothing to keep
        QSignalSpy applied(&batcher, &RunEventBatcher::batchApplied);
        batcher.drain();
        QVERIFY(applied.wait(10000));
        QVERIFY(batcher.hasPending()); // one budget did not take 1,500 calls at 1 ms each
        batcher.flush();
        QVERIFY(!batcher.hasPending());
        RunModel reference;
        reference.addEvents(events);
        QCOMPARE(toolIds(model), toolIds(reference));
    }

    // Each enqueued batch reaches the spent-batch sink once, whole, in order, and only after
    // its last event is in the model: across budgeted slices and a final flush.
    void eachBatchGoesToTheSinkOnceAfterItIsApplied()
    {
        const RunEventBatch events = manyCalls(1500);
        RunModel model;
        RunEventBatcher batcher(&model);
        connect(&model, &RunModel::rowsInserted, this, [] { QThread::msleep(1); });
        QList<RunEventBatch> enqueued;
        for (int first = 0; first < events.size(); first += 77) {
            enqueued.append(events.mid(first, 77));
            batcher.enqueue(enqueued.last());
        }
        QList<RunEventBatch> spent;
        bool appliedFirst = true;
        batcher.setSpentBatchSink([&](RunEventBatch &&batch) {
            const RunEvent &last = batch.constLast();
            appliedFirst = appliedFirst
                && (last.kind != RunEvent::ToolResult
                    || model.indexForToolUseId(last.toolUseId).isValid());
            spent.append(std::move(batch));
        });
        batcher.drain();
        QTRY_VERIFY_WITH_TIMEOUT(!spent.isEmpty(), 10000);
        QVERIFY(batcher.hasPending()); // 1,500 calls at 1 ms each: seconds of slices
        QVERIFY(spent.size() < enqueued.size()); // the ones still pending are kept
        batcher.flush();
        QCOMPARE(spent.size(), enqueued.size());
        for (int i = 0; i < spent.size(); ++i) // the same batches (shared, never copied)
            QVERIFY(spent.at(i).constData() == enqueued.at(i).constData());
        QVERIFY(appliedFirst);
    }

    // What a slice sets off at once (a view's delayed layout is a zero timer) runs in an event
    // loop pass before the next slice's, not in the same pass: the two would add up to one
    // freeze.
    void whatASliceSetsOffRunsInAPassOfItsOwn()
    {
        const RunEventBatch events = manyCalls(1500);
        RunModel model;
        RunEventBatcher batcher(&model);
        connect(&model, &RunModel::rowsInserted, this, [] { QThread::msleep(1); });
        int pass = 0;
        // Disconnected when the test ends: the dispatcher outlives this function's variables.
        QObject scope;
        connect(QAbstractEventDispatcher::instance(), &QAbstractEventDispatcher::awake, &scope,
            [&pass] { ++pass; });
        QList<int> slicePasses;
        QList<int> followUpPasses;
        connect(&batcher, &RunEventBatcher::batchApplied, &scope, [&] {
            slicePasses.append(pass);
            QTimer::singleShot(0, &scope, [&] { followUpPasses.append(pass); });
        });
        QSignalSpy drained(&batcher, &RunEventBatcher::drained);
        batcher.enqueue(events);
        batcher.drain();
        QVERIFY(drained.wait(20000));
        QTRY_COMPARE(followUpPasses.size(), slicePasses.size());
        QVERIFY(slicePasses.size() >= 3);
        for (int slice = 1; slice < slicePasses.size(); ++slice)
            QVERIFY2(followUpPasses[slice - 1] < slicePasses[slice],
                qPrintable(QStringLiteral("slice %1 ran in pass %2 with the follow-up of the one "
                                          "before")
                               .arg(slice)
                               .arg(slicePasses[slice])));
    }

    // A producer that waits while the backlog is full (a file being read) is told once it may
    // go on: the backlog is then down to half the limit, and pendingEvents() always counts what
    // is enqueued and not yet applied, through slices and flushes.
    void aFullBacklogIsWorkedOffAndSignalledOnceDownToHalf()
    {
        const int calls = RunEventBatcher::backlogLimit; // two events each
        const RunEventBatch events = manyCalls(calls);
        RunModel model;
        RunEventBatcher batcher(&model);
        QCOMPARE(batcher.pendingEvents(), qsizetype(0));
        QVERIFY(!batcher.backlogFull());
        qsizetype applied = 0;
        connect(&batcher, &RunEventBatcher::batchApplied, this,
            [&] { applied = model.summary().toolCalls; });
        QList<qsizetype> pendingWhenDrained;
        connect(&batcher, &RunEventBatcher::backlogDrained, this,
            [&] { pendingWhenDrained.append(batcher.pendingEvents()); });
        qsizetype enqueued = 0;
        for (qsizetype first = 0; first < events.size() && !batcher.backlogFull(); first += 100) {
            const RunEventBatch part = events.mid(first, 100);
            batcher.enqueue(part);
            enqueued += part.size();
            QCOMPARE(batcher.pendingEvents(), enqueued);
        }
        QVERIFY(batcher.backlogFull());
        QVERIFY(pendingWhenDrained.isEmpty());
        // Slow model updates: the backlog takes several slices.
        connect(&model, &RunModel::rowsInserted, this, [] { QThread::msleep(1); });
        QTRY_VERIFY_WITH_TIMEOUT(!pendingWhenDrained.isEmpty(), 30000);
        QCOMPARE(pendingWhenDrained.size(), 1);
        QVERIFY2(pendingWhenDrained.first() <= RunEventBatcher::backlogLimit / 2,
            qPrintable(QString::number(pendingWhenDrained.first())));
        QVERIFY(!batcher.backlogFull());
        batcher.flush();
        QCOMPARE(batcher.pendingEvents(), qsizetype(0));
        QCOMPARE(pendingWhenDrained.size(), 1); // not again: it was told already
        QCOMPARE(model.summary().toolCalls, qint64(enqueued / 2));
        QCOMPARE(applied, qsizetype(enqueued / 2));
        RunModel reference;
        reference.addEvents(events.mid(0, enqueued));
        QCOMPARE(toolIds(model), toolIds(reference));
    }

    // A flush that takes a full backlog at once also tells the waiting producer.
    void aFlushOfAFullBacklogSignalsItDrained()
    {
        RunModel model;
        RunEventBatcher batcher(&model);
        QSignalSpy drained(&batcher, &RunEventBatcher::backlogDrained);
        batcher.enqueue(manyCalls(RunEventBatcher::backlogLimit));
        QVERIFY(batcher.backlogFull());
        batcher.flush();
        QCOMPARE(drained.count(), 1);
        QCOMPARE(batcher.pendingEvents(), qsizetype(0));
    }

    // The view's work after a batch (laid out in later turns) counts toward its cost.
    void aCostlyFollowUpMakesTheNextBatchWaitLonger()
    {
        RunModel model;
        RunEventBatcher batcher(&model);
        batcher.enqueue(captureEvents());
        batcher.flush();
        QCOMPARE(batcher.intervalMs(), RunEventBatcher::minIntervalMs); // a cheap batch
        batcher.setFollowUpCostMs(100);
        QVERIFY2(batcher.intervalMs() >= 100 * RunEventBatcher::costFactor,
            qPrintable(QString::number(batcher.intervalMs())));
        QVERIFY(batcher.intervalMs() <= RunEventBatcher::maxIntervalMs);
    }
};

QTEST_GUILESS_MAIN(TestRunEventBatcher)
#include "tst_runeventbatcher.moc"
