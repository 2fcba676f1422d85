// RunPlayback: for every capture and transcript in tests/data, the model after a jump to a
// random moment (in random order, backwards and forwards, restored from checkpoints a few events
// apart) equals a fresh RunModel fed only the events up to that moment, node by node and in its
// summary; so it does after playing forward. Steps land where a fresh model first shows the
// next tool call, turn or error. A damaged recording plays what it has and lists what was
// skipped. The seed is printed; SANDSCOPE_SEED repeats a run.

#include "namedpipe.h"
#include "playback/playbackpreparer.h"
#include "playback/runplayback.h"
#include "recordings/runrecording.h"
#include "runs/loadedrun.h"
#include "runtree/runfilterproxy.h"
#include "runtree/runmodel.h"
#include "runtreeshape.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest/QTest>

#include <functional>
#include <memory>

using namespace sandscope;
using Clock = LoadedRun::Clock;

namespace {

QString dataDir()
{
    return QStringLiteral(SANDSCOPE_TEST_DATA_DIR);
}

// Every capture and transcript in tests/data.
QStringList runFiles()
{
    QStringList files;
    const QDir dir(dataDir());
    for (const QString &name : dir.entryList({QStringLiteral("*.jsonl")}, QDir::Files, QDir::Name))
        files.append(dir.filePath(name));
    QDirIterator transcripts(dataDir() + QStringLiteral("/transcripts"),
        {QStringLiteral("*.jsonl")}, QDir::Files, QDirIterator::Subdirectories);
    while (transcripts.hasNext()) {
        const QString path = transcripts.next();
        // Main transcripts and streams; sub-agent files are spliced in by their transcript.
        if (!path.contains(QLatin1String("/subagents/"))
            && !path.endsWith(QLatin1String("requests.jsonl")))
            files.append(path);
    }
    files.sort();
    return files;
}

quint32 seed()
{
    static const quint32 value = qEnvironmentVariableIsSet("SANDSCOPE_SEED")
        ? quint32(qEnvironmentVariableIntValue("SANDSCOPE_SEED"))
        : QRandomGenerator::global()->generate();
    return value;
}

// What a model fed only the first `position` events shows (and the run's end when the file
// ended there).
void buildFresh(RunModel *model, const LoadedRun &run, int position)
{
    for (int index = 0; index < position; ++index)
        model->addEvent(run.events[index]);
    if (position == run.events.size())
        model->markRunEnded(run.lastArrivalMs);
}

QString summaryDifference(const RunModel &actual, const RunModel &expected)
{
    const RunSummary a = actual.summary();
    const RunSummary e = expected.summary();
    if (a.toJson() != e.toJson())
        return QStringLiteral("summary %1, expected %2")
            .arg(QString::fromUtf8(QJsonDocument(a.toJson()).toJson(QJsonDocument::Compact)),
                QString::fromUtf8(QJsonDocument(e.toJson()).toJson(QJsonDocument::Compact)));
    if (a.durationMs != e.durationMs || a.turns != e.turns || a.roundTrips != e.roundTrips
        || a.turnOpen != e.turnOpen || a.hasResult != e.hasResult
        || actual.runEnded() != expected.runEnded())
        return QStringLiteral("summary durations, turns or ending differ");
    return {};
}

// The model equals a fresh one at `position`; the message names the file and the position.
bool matchesFresh(const RunPlayback &playback, const LoadedRun &run, int position, QString *why)
{
    RunModel fresh;
    buildFresh(&fresh, run, position);
    QString difference = test::firstDifference(*playback.model(), fresh);
    if (difference.isEmpty())
        difference = summaryDifference(*playback.model(), fresh);
    if (difference.isEmpty())
        return true;
    *why = QStringLiteral("%1 at %2 of %3 events (seed %4): %5")
               .arg(QFileInfo(run.source).fileName())
               .arg(position)
               .arg(run.events.size())
               .arg(seed())
               .arg(difference);
    return false;
}

int countNodes(const QAbstractItemModel &model, const std::function<bool(const QModelIndex &)> &is,
    const QModelIndex &parent = QModelIndex())
{
    int count = 0;
    for (int row = 0; row < model.rowCount(parent); ++row) {
        const QModelIndex index = model.index(row, 0, parent);
        count += (is(index) ? 1 : 0) + countNodes(model, is, index);
    }
    return count;
}

bool isKind(const QModelIndex &index, RunModel::NodeKind kind)
{
    return index.data(RunModel::KindRole).toInt() == int(kind);
}

QVector<RunPlayback::End> endOf(const LoadedRun &run)
{
    return {RunPlayback::End {int(run.events.size()), run.lastArrivalMs}};
}

// A run's whole model, under QAbstractItemModelTester, with its playback.
struct Played {
    RunModel model;
    QAbstractItemModelTester tester {
        &model, QAbstractItemModelTester::FailureReportingMode::QtTest};
    RunPlayback playback {&model};

    Played(const LoadedRun &run, int spacing, qint64 budget = RunPlayback::defaultBudgetBytes)
    {
        run.buildModel(&model);
        playback.setMinimumSpacing(spacing);
        playback.setBudgetBytes(budget);
        playback.setRun(run.events, run.clock, endOf(run));
    }
};

} // namespace

class TestRunPlayback : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        qInfo("seed %u (set SANDSCOPE_SEED to repeat)", seed());
        QVERIFY(runFiles().size() >= 15);
    }

    void jumpsMatchAFreshModel_data()
    {
        QTest::addColumn<QString>("path");
        for (const QString &path : runFiles())
            QTest::newRow(qPrintable(QDir(dataDir()).relativeFilePath(path))) << path;
    }

    void jumpsMatchAFreshModel()
    {
        QFETCH(QString, path);
        LoadedRun run;
        QString error;
        QVERIFY2(LoadedRun::fromFile(path, &run, &error), qPrintable(error));
        QVERIFY(!run.events.isEmpty());
        QRandomGenerator random(seed() ^ quint32(qHash(QFileInfo(path).fileName())));
        Played played(run, 1 + int(random.bounded(5)));
        RunModel &model = played.model;
        RunPlayback &playback = played.playback;
        QCOMPARE(playback.position(), int(run.events.size()));
        QVERIFY(playback.checkpointCount() >= 2 || run.events.size() < 10);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);

        QString why;
        const int count = int(run.events.size());
        QList<int> positions {0, count, count / 2, 1, count - 1, 0};
        for (int i = 0; i < 40; ++i)
            positions.append(int(random.bounded(count + 1)));
        for (int position : positions) {
            playback.jumpToPosition(position);
            QCOMPARE(playback.position(), position);
            QVERIFY2(matchesFresh(playback, run, position, &why), qPrintable(why));
        }
        QVERIFY(resets.count() > 0); // backwards jumps reset the model

        // By time: the position holds every event whose (non-decreasing) time has passed.
        for (int i = 0; i < 10; ++i) {
            const qint64 span = std::max<qint64>(1, playback.endTime() - playback.startTime());
            const qint64 time = playback.startTime() + qint64(random.bounded(double(span + 1)));
            playback.jumpToTime(time);
            int expected = 0;
            qint64 latest = 0;
            for (const RunEvent &event : run.events) {
                latest
                    = run.clock == Clock::Order ? expected + 1 : std::max(latest, event.arrivalMs);
                if (latest > time && (run.clock == Clock::Order || latest > 0))
                    break;
                ++expected;
            }
            QCOMPARE(playback.position(), expected);
            QVERIFY2(matchesFresh(playback, run, expected, &why), qPrintable(why));
        }
    }

    // Playing applies events as they come (rows inserted, no reset) and reaches the end.
    void playingForwardMatchesAFreshModel_data() { jumpsMatchAFreshModel_data(); }
    void playingForwardMatchesAFreshModel()
    {
        QFETCH(QString, path);
        LoadedRun run;
        QVERIFY(LoadedRun::fromFile(path, &run));
        Played played(run, 2);
        RunModel &model = played.model;
        RunPlayback &playback = played.playback;
        playback.jumpToPosition(0);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy ended(&playback, &RunPlayback::reachedEnd);
        playback.setSpeed(100);
        int last = 0;
        QString why;
        for (int tick = 0; tick < 100000 && ended.isEmpty(); ++tick) {
            playback.advance(33);
            QVERIFY(playback.position() >= last);
            last = playback.position();
            QVERIFY2(matchesFresh(playback, run, last, &why), qPrintable(why));
        }
        QCOMPARE(ended.count(), 1);
        QCOMPARE(playback.position(), int(run.events.size()));
        QCOMPARE(resets.count(), 0);
    }

    // Jumps, steps and play read the run's events where they are: a copy of a 100,000-event
    // run is 63 MB, and making it stalled the first jump for 60 ms (bench_playback).
    void playbackReadsTheRunsEventsWithoutCopyingThem()
    {
        LoadedRun run;
        QVERIFY(LoadedRun::fromFile(dataDir() + QStringLiteral("/stream-subagent.jsonl"), &run));
        Played played(run, 4);
        RunPlayback &playback = played.playback;
        const int count = int(run.events.size());
        playback.jumpToPosition(count / 2);
        playback.jumpToPosition(count / 5);
        QVERIFY(playback.step(RunPlayback::Step::ToolCall, true));
        playback.advance(5000);
        playback.jumpToPosition(count);
        QCOMPARE(playback.events().constData(), run.events.constData());
    }

    // Idle gaps longer than idleGapMs are skipped while playing: a 1x play of a run with an
    // hour-long pause still takes seconds.
    void idleGapsAreSkippedAt1x()
    {
        LoadedRun run;
        QVERIFY(LoadedRun::fromFile(dataDir() + QStringLiteral("/stream-subagent.jsonl"), &run));
        const qint64 start = 1'700'000'000'000;
        for (int i = 0; i < run.events.size(); ++i)
            run.events[i].arrivalMs
                = start + i * 100 + (i >= run.events.size() / 2 ? 3'600'000 : 0);
        run.lastArrivalMs = run.events.last().arrivalMs;
        RunModel model;
        run.buildModel(&model);
        RunPlayback playback(&model);
        playback.setRun(run.events, Clock::Arrival, endOf(run));
        playback.jumpToPosition(0);
        qint64 played = 0;
        QSignalSpy ended(&playback, &RunPlayback::reachedEnd);
        while (ended.isEmpty() && played < 600'000) {
            playback.advance(100);
            played += 100;
        }
        QCOMPARE(ended.count(), 1);
        const qint64 expected = qint64(run.events.size()) * 100 + RunPlayback::idleGapMs;
        QVERIFY2(played <= expected + 200, qPrintable(QString::number(played)));
        QVERIFY(played >= expected - 300);
    }

    // Each step lands just after the event that made a fresh model show one more tool call,
    // turn or error than before it, and passes none.
    void stepsLandOnTheRightEvent_data() { jumpsMatchAFreshModel_data(); }
    void stepsLandOnTheRightEvent()
    {
        QFETCH(QString, path);
        LoadedRun run;
        QVERIFY(LoadedRun::fromFile(path, &run));
        const int count = int(run.events.size());
        using Counter = std::function<bool(const QModelIndex &)>;
        const QList<QPair<RunPlayback::Step, Counter>> kinds {
            {RunPlayback::Step::ToolCall,
                [](const QModelIndex &i) {
                    return isKind(i, RunModel::NodeKind::ToolCall);
                }},
            {RunPlayback::Step::Turn,
                [](const QModelIndex &i) {
                    return isKind(i, RunModel::NodeKind::Turn);
                }},
            {RunPlayback::Step::Error, &RunFilterProxy::isErrorIndex},
        };
        RunModel model;
        run.buildModel(&model);
        RunPlayback playback(&model);
        playback.setMinimumSpacing(3);
        playback.setRun(run.events, run.clock, endOf(run));
        for (const auto &[step, counts] : kinds) {
            QList<int> expected;
            RunModel fresh;
            int before = 0;
            for (int position = 1; position <= count; ++position) {
                fresh.addEvent(run.events[position - 1]);
                if (position == count)
                    fresh.markRunEnded(run.lastArrivalMs);
                const int now = countNodes(fresh, counts);
                if (now > before)
                    expected.append(position);
                before = now;
            }
            QList<int> forward;
            playback.jumpToPosition(0);
            while (playback.step(step, true))
                forward.append(playback.position());
            QCOMPARE(forward, expected);
            QList<int> backward;
            while (playback.step(step, false))
                backward.prepend(playback.position());
            if (!expected.isEmpty())
                expected.removeLast(); // backwards from the last one
            QCOMPARE(backward, expected);
        }
    }

    // A small budget keeps fewer checkpoints further apart; jumps stay exact.
    void budgetThinsCheckpoints()
    {
        LoadedRun run;
        QVERIFY(LoadedRun::fromFile(dataDir() + QStringLiteral("/stream-partial.jsonl"), &run));
        RunModel model;
        run.buildModel(&model);
        RunPlayback dense(&model);
        dense.setMinimumSpacing(1);
        dense.setRun(run.events, run.clock, endOf(run));
        RunPlayback sparse(&model);
        sparse.setMinimumSpacing(1);
        sparse.setBudgetBytes(dense.checkpointBytes() / 4);
        sparse.setRun(run.events, run.clock, endOf(run));
        QVERIFY(sparse.checkpointCount() < dense.checkpointCount());
        QVERIFY(sparse.checkpointSpacing() > 1);
        QVERIFY(sparse.checkpointBytes() <= dense.checkpointBytes() / 4);
        QString why;
        for (int position : {int(run.events.size()) - 1, 3, 0, int(run.events.size())}) {
            sparse.jumpToPosition(position);
            QVERIFY2(matchesFresh(sparse, run, position, &why), qPrintable(why));
        }
    }

    // Every capture one after the other (a run of turns, sub-agents, errors and resumes) with a
    // budget that thins the checkpoints while they are built: random jumps, steps and plays
    // in any order still match fresh models.
    void longRunUnderATightBudget()
    {
        LoadedRun run;
        for (const QString &path : runFiles()) {
            LoadedRun part;
            QVERIFY(LoadedRun::fromFile(path, &part));
            run.events += part.events;
        }
        run.source = QStringLiteral("all captures");
        run.clock = Clock::Order;
        run.lastArrivalMs = 0;
        for (RunEvent &event : run.events)
            event.arrivalMs = 0;
        const Played unbounded(run, 4);
        Played played(run, 4, unbounded.playback.checkpointBytes() / 3);
        RunPlayback &playback = played.playback;
        QVERIFY(playback.checkpointSpacing() > 4);
        QVERIFY(playback.checkpointBytes() <= unbounded.playback.checkpointBytes() / 3);
        QRandomGenerator random(seed());
        const int count = int(run.events.size());
        QString why;
#if defined(__SANITIZE_ADDRESS__)
        const int rounds = 10; // each round builds a fresh model of every capture: slow in ASan
#else
        const int rounds = 60;
#endif
        for (int i = 0; i < rounds; ++i) {
            switch (random.bounded(3)) {
            case 0:
                playback.jumpToPosition(int(random.bounded(count + 1)));
                break;
            case 1:
                playback.step(RunPlayback::Step(random.bounded(3)), random.bounded(2) == 0);
                break;
            default:
                for (int tick = 0; tick < 5; ++tick)
                    playback.advance(1000); // 10 events a second at 1x
            }
            QVERIFY2(matchesFresh(playback, run, playback.position(), &why), qPrintable(why));
        }
    }

    // A live run grows while it is played: the model stays where it is, the run gets longer.
    void liveRunGrowsWhilePlayed()
    {
        LoadedRun run;
        QVERIFY(LoadedRun::fromFile(dataDir() + QStringLiteral("/stream-partial.jsonl"), &run));
        const int half = int(run.events.size()) / 2;
        RunModel model;
        model.addEvents(run.events.mid(0, half));
        RunPlayback playback(&model);
        playback.setMinimumSpacing(2);
        playback.setRun(run.events.mid(0, half), run.clock, {});
        playback.jumpToPosition(half / 2);
        playback.appendEvents(run.events.mid(half));
        playback.appendEnd(run.lastArrivalMs);
        QCOMPARE(playback.position(), half / 2);
        QCOMPARE(playback.eventCount(), int(run.events.size()));
        QString why;
        QVERIFY2(matchesFresh(playback, run, half / 2, &why), qPrintable(why));
        playback.jumpToPosition(playback.eventCount());
        QVERIFY2(matchesFresh(playback, run, playback.eventCount(), &why), qPrintable(why));
        QVERIFY(playback.step(RunPlayback::Step::ToolCall, false));
    }

    // Prepared on a worker thread (PlaybackPreparer), a run plays exactly as one prepared on
    // the spot: same checkpoints, same step targets, jumps that match a fresh model; a live run
    // keeps its builder, which the owner's thread drives as the run grows.
    void preparedOnAWorkerPlaysTheSame_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<bool>("fromFile");
        for (const char *name : {"stream-subagent.jsonl", "transcript-basic.jsonl"}) {
            QTest::addRow("%s, file", name) << dataDir() + u'/' + QLatin1String(name) << true;
            QTest::addRow("%s, events", name) << dataDir() + u'/' + QLatin1String(name) << false;
        }
        QTest::addRow("parallel sub-agents transcript, file") << dataDir()
                + QStringLiteral("/transcripts/parallel-agents/transcript/"
                                 "5a842f9e-5bf9-4864-8ec9-b285374e1b87.jsonl")
                                                              << true;
    }

    void preparedOnAWorkerPlaysTheSame()
    {
        QFETCH(QString, path);
        QFETCH(bool, fromFile);
        LoadedRun run;
        QVERIFY(LoadedRun::fromFile(path, &run));
        RunModel model;
        run.buildModel(&model);
        RunModel syncModel;
        run.buildModel(&syncModel);
        RunPlayback sync(&syncModel);
        sync.setMinimumSpacing(3);
        // A file ends where it ends; the events of a live page have no end yet.
        const QVector<RunPlayback::End> ends = fromFile ? endOf(run) : QVector<RunPlayback::End>();
        sync.setRun(run.events, run.clock, ends);

        PlaybackPreparer preparer;
        RunPlayback::Options options;
        options.densestSpacing = 3;
        preparer.setOptions(options);
        QSignalSpy finished(&preparer, &PlaybackPreparer::finished);
        QSignalSpy progress(&preparer, &PlaybackPreparer::progress);
        if (fromFile)
            preparer.startFromFile(path, true);
        else
            preparer.startFromEvents(run.events, run.clock, ends);
        QVERIFY(preparer.isRunning());
        QVERIFY(finished.wait(30000));
        QCOMPARE(finished.first().at(0).toBool(), true);
        QVERIFY(!preparer.isRunning());
        QVERIFY(!progress.isEmpty());
        RunPlayback::Prepared prepared = preparer.takeResult();
        QCOMPARE(prepared.events.size(), run.events.size());
        QCOMPARE(prepared.clock, run.clock);

        RunPlayback playback(&model);
        playback.setRun(std::move(prepared));
        QCOMPARE(playback.checkpointCount(), sync.checkpointCount());
        QCOMPARE(playback.checkpointSpacing(), sync.checkpointSpacing());
        for (const auto step :
            {RunPlayback::Step::ToolCall, RunPlayback::Step::Error, RunPlayback::Step::Turn})
            QCOMPARE(playback.targets(step), sync.targets(step));
        QString why;
        for (int position : {0, int(run.events.size()) / 3, int(run.events.size()) / 2}) {
            playback.jumpToPosition(position);
            QVERIFY2(matchesFresh(playback, run, position, &why), qPrintable(why));
        }
        if (!fromFile) {
            // The builder came back to this thread: the run can grow and end.
            playback.appendEnd(run.lastArrivalMs);
            playback.jumpToPosition(playback.eventCount());
            QVERIFY2(matchesFresh(playback, run, playback.eventCount(), &why), qPrintable(why));
        }
    }

    // Without options, checkpoints are the documented minimum apart and within the default
    // budget, prepared here or on a worker.
    void defaultOptionsSpaceCheckpointsAtTheMinimum()
    {
        LoadedRun run;
        QVERIFY(LoadedRun::fromFile(dataDir() + QStringLiteral("/stream-subagent.jsonl"), &run));
        RunModel model;
        run.buildModel(&model);
        RunPlayback playback(&model);
        playback.setRun(run.events, run.clock, endOf(run));
        QCOMPARE(playback.checkpointSpacing(), int(RunPlayback::minimumSpacing));
        QCOMPARE(
            playback.checkpointCount(), 1 + int(run.events.size()) / RunPlayback::minimumSpacing);
        PlaybackPreparer preparer;
        QSignalSpy finished(&preparer, &PlaybackPreparer::finished);
        preparer.startFromEvents(run.events, run.clock, endOf(run));
        QVERIFY(finished.wait(30000));
        RunPlayback prepared(&model);
        prepared.setRun(preparer.takeResult());
        QCOMPARE(prepared.checkpointSpacing(), int(RunPlayback::minimumSpacing));
    }

    // Cancelled, the preparer says so with no error and hands out nothing; a file that cannot
    // be read is an error; deleting a preparer that is still at work waits for its worker.
    void preparingCanBeCancelledAndFailsClearly()
    {
        LoadedRun run;
        QVERIFY(LoadedRun::fromFile(dataDir() + QStringLiteral("/stream-subagent.jsonl"), &run));
        PlaybackPreparer preparer;
        QSignalSpy finished(&preparer, &PlaybackPreparer::finished);
        preparer.startFromEvents(run.events, run.clock, endOf(run));
        preparer.cancel();
        QVERIFY(finished.wait(30000));
        QCOMPARE(finished.first().at(0).toBool(), false);
        QCOMPARE(finished.first().at(1).toString(), QString());
        QVERIFY(!preparer.takeResult().index);

        finished.clear();
        preparer.startFromFile(dataDir() + QStringLiteral("/no-such-run.jsonl"), true);
        QVERIFY(finished.wait(30000));
        QCOMPARE(finished.first().at(0).toBool(), false);
        QVERIFY(!finished.first().at(1).toString().isEmpty());

        auto busy = std::make_unique<PlaybackPreparer>();
        busy->startFromEvents(run.events, run.clock, endOf(run));
        busy.reset();
    }

    // A named pipe whose writer has not come, or has gone quiet mid-run: cancel() ends the
    // reading at once (finished(false, "")), and so does deleting the preparer.
    void preparingFromAWaitingPipeCanBeCancelled_data()
    {
        QTest::addColumn<bool>("writerStays");
        QTest::addColumn<bool>("byDeleting");
        QTest::newRow("no writer yet, cancel()") << false << false;
        QTest::newRow("a writer gone quiet, cancel()") << true << false;
        QTest::newRow("no writer yet, preparer deleted") << false << true;
    }

    void preparingFromAWaitingPipeCanBeCancelled()
    {
        QFETCH(bool, writerStays);
        QFETCH(bool, byDeleting);
        QTemporaryDir dir;
        const QString pipe = dir.filePath(QStringLiteral("run.jsonl"));
        QVERIFY(test::makeNamedPipe(pipe));
        std::unique_ptr<test::HeldPipeWriter> writer;
        if (writerStays) {
            QFile capture(dataDir() + QStringLiteral("/stream-subagent.jsonl"));
            QVERIFY(capture.open(QIODevice::ReadOnly));
            writer = std::make_unique<test::HeldPipeWriter>(pipe);
            QVERIFY(writer->write(capture.read(4096).split('\n').mid(0, 3).join('\n') + '\n'));
        }
        const test::PipeRelease release(5000, [&] {
            if (writer)
                writer->close();
            else
                test::endForReaders(pipe);
        });
        auto preparer = std::make_unique<PlaybackPreparer>();
        QSignalSpy finished(preparer.get(), &PlaybackPreparer::finished);
        preparer->startFromFile(pipe, true);
        QVERIFY(!finished.wait(300)); // it waits for the pipe
        QElapsedTimer sinceCancel;
        sinceCancel.start();
        if (byDeleting) {
            preparer.reset();
            QVERIFY2(
                sinceCancel.elapsed() < 1000, qPrintable(QString::number(sinceCancel.elapsed())));
            return;
        }
        preparer->cancel();
        QVERIFY(finished.wait(5000));
        QVERIFY2(sinceCancel.elapsed() < 1000, qPrintable(QString::number(sinceCancel.elapsed())));
        QCOMPARE(finished.first().at(0).toBool(), false);
        QCOMPARE(finished.first().at(1).toString(), QString());
        QVERIFY(!preparer->takeResult().index);
    }

    // A recording cut mid-line with a damaged entry plays every event it has and says which
    // lines were skipped.
    void damagedRecordingPlaysWhatItHas()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("damaged.jsonl"));
        {
            RunRecorder recorder;
            QVERIFY(recorder.open(path));
            QFile capture(dataDir() + QStringLiteral("/stream-subagent.jsonl"));
            QVERIFY(capture.open(QIODevice::ReadOnly));
            qint64 t = 1'700'000'000'000;
            for (const QByteArray &line : capture.readAll().split('\n')) {
                if (!line.isEmpty())
                    recorder.record(line, t += 250);
            }
        }
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QList<QByteArray> lines = file.readAll().split('\n');
        file.close();
        lines.insert(4, QByteArrayLiteral("{\"t\":17000000,\"li"));
        QByteArray damaged = lines.join('\n');
        damaged.chop(40); // the last entry cut short
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(damaged);
        file.close();

        LoadedRun run;
        QString error;
        QVERIFY2(LoadedRun::fromFile(path, &run, &error), qPrintable(error));
        QCOMPARE(run.clock, Clock::Arrival);
        QVERIFY(!run.problems.isEmpty());
        Played played(run, 2);
        QString why;
        for (int position = 0; position <= run.events.size(); ++position) {
            played.playback.jumpToPosition(position);
            QVERIFY2(matchesFresh(played.playback, run, position, &why), qPrintable(why));
        }
    }
};

QTEST_GUILESS_MAIN(TestRunPlayback)
#include "tst_runplayback.moc"
