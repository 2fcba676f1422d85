// RecordingLoader: a run file read and parsed on a worker thread gives the events of the
// synchronous reader, in order and in several slices, with progress; pausing stops the reading
// (the slices already handed over still arrive, nothing after them); the slices on their way
// are bounded while the loader's thread is busy; cancelling ends the load at once, also while
// paused or while the worker waits on a pipe; deleting a loader mid-load waits for nothing
// longer than a slice. A named pipe without a writer is opened by the worker, so open()
// returns at once and a cancel still ends the wait. Events given back are freed by the worker
// while it runs.

#include "capturelines.h"
#include "namedpipe.h"
#include "recordings/recordingloader.h"
#include "recordings/runrecording.h"
#include "streamjson/runparser.h"
#include "streamjson/runsummary.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest/QTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace sandscope;

namespace {

using sandscope::test::capture::captureLines;

// A recording of a capture repeated `rounds` times, each line a millisecond after the last.
bool writeRecording(const QString &path, const QString &capture, int rounds, qsizetype *lineCount)
{
    RunRecorder recorder;
    if (!recorder.open(path))
        return false;
    const QList<QByteArray> lines = captureLines(capture);
    qint64 clock = 1000;
    for (int round = 0; round < rounds; ++round) {
        for (const QByteArray &line : lines)
            recorder.record(line, ++clock);
    }
    if (lineCount)
        *lineCount = lines.size() * rounds;
    return !lines.isEmpty();
}

struct SyncRead {
    qint64 events = 0;
    QJsonObject summary;
    qint64 lastArrivalMs = 0;
};

SyncRead readSynchronously(const QString &path)
{
    SyncRead read;
    RecordingReader reader;
    if (!reader.open(path))
        return read;
    RunParser parser;
    RunSummaryBuilder summary;
    RecordedLine line;
    while (reader.readLine(&line)) {
        const RunEventBatch events = reader.eventsOf(parser, line);
        read.events += events.size();
        summary.add(events);
    }
    summary.add(reader.finishReading());
    read.summary = summary.summary().toJson();
    read.lastArrivalMs = reader.lastArrivalMs();
    return read;
}

} // namespace

class TestRecordingLoader : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

private Q_SLOTS:
    void loadGivesTheSynchronousReadersEventsInOrder_data()
    {
        QTest::addColumn<bool>("pausedAfterEachSlice");
        QTest::newRow("read straight through") << false;
        // As RunPage does while the tree's backlog is full.
        QTest::newRow("paused after every slice, resumed later") << true;
    }

    void loadGivesTheSynchronousReadersEventsInOrder()
    {
        QFETCH(bool, pausedAfterEachSlice);
        const QString path = m_dir.filePath(QStringLiteral("long.rec"));
        qsizetype lines = 0;
        QVERIFY(writeRecording(path, QStringLiteral("stream-subagent.jsonl"), 300, &lines));
        const SyncRead expected = readSynchronously(path);
        QVERIFY(expected.events > 0);

        RecordingLoader loader;
        QVERIFY(loader.open(path));
        RunSummaryBuilder summary;
        qint64 events = 0;
        int slices = 0;
        qint64 lastArrival = 0;
        bool ordered = true;
        connect(&loader, &RecordingLoader::eventsReady, this, [&](const RunEventBatch &batch) {
            ++slices;
            events += batch.size();
            summary.add(batch);
            for (const RunEvent &event : batch) {
                ordered = ordered && event.arrivalMs >= lastArrival;
                lastArrival = event.arrivalMs;
            }
            if (pausedAfterEachSlice) {
                loader.pause();
                QTimer::singleShot(2, &loader, [&loader] { loader.resume(); });
            }
        });
        QSignalSpy progress(&loader, &RecordingLoader::progress);
        QSignalSpy finished(&loader, &RecordingLoader::finished);
        loader.start(1);
        QVERIFY(loader.isRunning());
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.count(), 1);
        QCOMPARE(finished.first().first().toBool(), true);
        QVERIFY(!loader.isRunning());
        QVERIFY2(slices > 1, "the file was parsed in one go");
        QCOMPARE(events, expected.events);
        QVERIFY(ordered);
        QCOMPARE(summary.summary().toJson(), expected.summary);
        QCOMPARE(progress.last().at(0).toLongLong(), loader.totalBytes());
        QCOMPARE(loader.bytesRead(), loader.totalBytes());
        QCOMPARE(loader.lastArrivalMs(), expected.lastArrivalMs);
        QCOMPARE(loader.lastArrivalMs(), qint64(1000 + lines));
        QVERIFY(loader.problems().isEmpty());
        QVERIFY(loader.readError().isEmpty());
    }

    void pausedLoadReadsNothingFurtherUntilResumed()
    {
        const QString path = m_dir.filePath(QStringLiteral("paused.rec"));
        QVERIFY(writeRecording(path, QStringLiteral("stream-partial.jsonl"), 500, nullptr));
        const SyncRead expected = readSynchronously(path);
        RecordingLoader loader;
        QVERIFY(loader.open(path));
        qint64 events = 0;
        connect(&loader, &RecordingLoader::eventsReady, this,
            [&](const RunEventBatch &batch) { events += batch.size(); });
        QSignalSpy ready(&loader, &RecordingLoader::eventsReady);
        QSignalSpy finished(&loader, &RecordingLoader::finished);
        connect(&loader, &RecordingLoader::eventsReady, &loader, &RecordingLoader::pause);
        loader.start(1);
        QVERIFY(ready.wait(10000));
        // The slices handed over before the pause took effect arrive; then nothing more.
        QTest::qWait(100);
        const int delivered = ready.count();
        const qint64 read = loader.bytesRead();
        QVERIFY(read < loader.totalBytes());
        QTest::qWait(100);
        QCOMPARE(ready.count(), delivered);
        QCOMPARE(loader.bytesRead(), read);
        QVERIFY(loader.isRunning());
        QVERIFY(loader.isPaused());
        disconnect(&loader, &RecordingLoader::eventsReady, &loader, &RecordingLoader::pause);
        loader.resume();
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.first().first().toBool(), true);
        QCOMPARE(events, expected.events);
    }

    // Events given back while the worker runs are freed by it (it allocated them), also while
    // it is paused; given back after it ended, they are freed by the loader's thread.
    void eventsGivenBackAreFreedByTheWorkerWhileItRuns()
    {
        const QString path = m_dir.filePath(QStringLiteral("giveback.rec"));
        QVERIFY(writeRecording(path, QStringLiteral("stream-subagent.jsonl"), 100, nullptr));
        const SyncRead expected = readSynchronously(path);
        RecordingLoader loader;
        QVERIFY(loader.open(path));
        qint64 givenBack = 0;
        RunEventBatch kept;
        connect(&loader, &RecordingLoader::eventsReady, this, [&](const RunEventBatch &batch) {
            loader.pause(); // the worker waits: what comes back wakes it
            if (kept.isEmpty()) {
                kept = batch;
            } else {
                givenBack += batch.size();
                loader.giveBack(RunEventBatch(batch));
            }
            QTimer::singleShot(2, &loader, [&loader] { loader.resume(); });
        });
        QSignalSpy finished(&loader, &RecordingLoader::finished);
        loader.start(1);
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.first().first().toBool(), true);
        QCOMPARE(givenBack + kept.size(), expected.events);
        // Some may come back after the worker's last slice, before finished(): freed here.
        const qint64 byWorker = loader.eventsFreedByWorker();
        QVERIFY2(byWorker > 0 && byWorker <= givenBack,
            qPrintable(QStringLiteral("%1 of %2").arg(byWorker).arg(givenBack)));
        loader.giveBack(std::move(kept));
        QCOMPARE(loader.eventsFreedByWorker(), byWorker);
    }

    // The loader's thread busy (a long layout, say): the worker stops once inFlightLimit
    // events wait for it, instead of reading the whole file into memory.
    void eventsOnTheirWayAreBoundedWhileTheLoadersThreadIsBusy()
    {
        const QString path = m_dir.filePath(QStringLiteral("busy.rec"));
        QVERIFY(writeRecording(path, QStringLiteral("stream-partial.jsonl"), 2000, nullptr));
        const SyncRead expected = readSynchronously(path);
        QVERIFY2(expected.events > 4 * RecordingLoader::inFlightLimit,
            qPrintable(QString::number(expected.events)));
        RecordingLoader loader;
        QVERIFY(loader.open(path));
        QList<qsizetype> batches;
        connect(&loader, &RecordingLoader::eventsReady, this,
            [&](const RunEventBatch &batch) { batches.append(batch.size()); });
        QSignalSpy finished(&loader, &RecordingLoader::finished);
        loader.start(1);
        // No event loop meanwhile: nothing is delivered, and the worker reaches the limit (a
        // slow build, such as the sanitizers', takes longer).
        QElapsedTimer clock;
        clock.start();
        while (
            loader.eventsOnTheirWay() < RecordingLoader::inFlightLimit && clock.elapsed() < 30000)
            QThread::msleep(20);
        const qsizetype onTheirWay = loader.eventsOnTheirWay();
        QVERIFY2(
            onTheirWay >= RecordingLoader::inFlightLimit, qPrintable(QString::number(onTheirWay)));
        QThread::msleep(200);
        QCOMPARE(loader.eventsOnTheirWay(), onTheirWay); // the worker waits
        QVERIFY(onTheirWay > 0);
        QCoreApplication::processEvents(); // at least every slice handed over so far
        QVERIFY(!batches.isEmpty());
        const qsizetype largest = *std::max_element(batches.cbegin(), batches.cend());
        QVERIFY2(onTheirWay < RecordingLoader::inFlightLimit + largest,
            qPrintable(QStringLiteral("%1 events were on their way").arg(onTheirWay)));
        QVERIFY(loader.isRunning());
        QVERIFY(finished.wait(60000));
        qsizetype all = 0;
        for (const qsizetype size : batches)
            all += size;
        QCOMPARE(qint64(all), expected.events);
    }

    void cancelEndsTheLoadAtOnce_data()
    {
        QTest::addColumn<bool>("paused");
        QTest::newRow("reading") << false;
        QTest::newRow("paused") << true;
    }

    void cancelEndsTheLoadAtOnce()
    {
        QFETCH(bool, paused);
        const QString path = m_dir.filePath(QStringLiteral("cancel.rec"));
        QVERIFY(writeRecording(path, QStringLiteral("stream-partial.jsonl"), 500, nullptr));
        RecordingLoader loader;
        QVERIFY(loader.open(path));
        QSignalSpy ready(&loader, &RecordingLoader::eventsReady);
        QSignalSpy finished(&loader, &RecordingLoader::finished);
        connect(&loader, &RecordingLoader::eventsReady, &loader,
            paused ? &RecordingLoader::pause : &RecordingLoader::cancel);
        loader.start(1);
        QVERIFY(ready.wait(10000));
        if (paused) {
            QTest::qWait(20);
            QVERIFY(loader.isRunning());
            loader.cancel();
        }
        // finished(false) at once, from cancel() itself.
        QCOMPARE(finished.count(), 1);
        QCOMPARE(finished.first().first().toBool(), false);
        QVERIFY(!loader.isRunning());
        const int delivered = ready.count();
        const qint64 read = loader.bytesRead();
        QVERIFY(read < loader.totalBytes());
        loader.resume(); // after the end: nothing
        QTest::qWait(100); // no slice arrives after the cancel, and no second end
        QCOMPARE(ready.count(), delivered);
        QCOMPARE(finished.count(), 1);
        QCOMPARE(loader.bytesRead(), read);
    }

    void deletingALoaderMidLoadStopsItsWorker()
    {
        const QString path = m_dir.filePath(QStringLiteral("deleted.rec"));
        QVERIFY(writeRecording(path, QStringLiteral("stream-partial.jsonl"), 2000, nullptr));
        auto *loader = new RecordingLoader;
        QVERIFY(loader->open(path));
        QSignalSpy ready(loader, &RecordingLoader::eventsReady);
        loader->start(1);
        QVERIFY(ready.wait(10000));
        QElapsedTimer clock;
        clock.start();
        delete loader; // joins the worker, drops what it had handed over
        QVERIFY2(clock.elapsed() < 1000, qPrintable(QString::number(clock.elapsed())));
        QCoreApplication::processEvents();
    }

    // A pipe whose writer says nothing more: the worker waits on it, and a cancel still ends
    // the load, and deleting the loader does not wait for the writer.
    void cancelWhileTheWorkerWaitsOnAPipe()
    {
        const QString fifo = m_dir.filePath(QStringLiteral("quiet.pipe"));
        QVERIFY(test::makeNamedPipe(fifo));
        // Opened for writing first (non-blocking needs a reader: read-write instead), so that
        // the loader's open does not wait for a writer.
        const int writer = ::open(QFile::encodeName(fifo).constData(), O_RDWR);
        QVERIFY(writer >= 0);
        // A recording's header and entries (each with its time: nothing waits for a later one).
        const QString recording = m_dir.filePath(QStringLiteral("piped.rec"));
        QVERIFY(writeRecording(recording, QStringLiteral("stream-partial.jsonl"), 1, nullptr));
        QFile written(recording);
        QVERIFY(written.open(QIODevice::ReadOnly));
        const QByteArray bytes = written.readAll();
        QVERIFY(::write(writer, bytes.constData(), size_t(bytes.size())) == bytes.size());
        auto *loader = new RecordingLoader;
        QString error;
        QVERIFY2(loader->open(fifo, &error), qPrintable(error));
        QSignalSpy ready(loader, &RecordingLoader::eventsReady);
        QSignalSpy finished(loader, &RecordingLoader::finished);
        loader->start(1);
        QVERIFY(ready.wait(10000)); // the entries; then the pipe is quiet
        QTest::qWait(50);
        QVERIFY(loader->isRunning());
        loader->cancel();
        QCOMPARE(finished.count(), 1);
        QElapsedTimer clock;
        clock.start();
        delete loader;
        QVERIFY2(clock.elapsed() < 1000, qPrintable(QString::number(clock.elapsed())));
        ::close(writer);
    }

    // A named pipe nobody writes to yet: open() returns at once (the worker opens it and waits
    // there for its writer), and what a writer sends later is loaded in full, its format
    // told by its first line on the worker.
    void aPipeWithoutAWriterOpensAtOnceAndLoadsWhatItsWriterSendsLater()
    {
        const QString fifo = m_dir.filePath(QStringLiteral("later.pipe"));
        QVERIFY(test::makeNamedPipe(fifo));
        const QString recording = m_dir.filePath(QStringLiteral("later.rec"));
        QVERIFY(writeRecording(recording, QStringLiteral("stream-subagent.jsonl"), 3, nullptr));
        const SyncRead expected = readSynchronously(recording);
        QVERIFY(expected.events > 0);

        RecordingLoader loader;
        QSignalSpy ready(&loader, &RecordingLoader::eventsReady);
        QSignalSpy finished(&loader, &RecordingLoader::finished);
        QElapsedTimer clock;
        clock.start();
        QString error;
        QVERIFY2(loader.open(fifo, &error), qPrintable(error));
        QVERIFY2(clock.elapsed() < 1000, qPrintable(QString::number(clock.elapsed())));
        QCOMPARE(loader.format(), RecordingReader::Format::Unknown);
        loader.start(1);
        QTest::qWait(300);
        QVERIFY(loader.isRunning());
        QCOMPARE(ready.count(), 0);
        QCOMPARE(finished.count(), 0);

        // The read end is open (on the worker), so opening the write end does not wait.
        QFile written(recording);
        QVERIFY(written.open(QIODevice::ReadOnly));
        QVERIFY(test::writeAllAndClose(fifo, written.readAll()));
        QVERIFY(finished.wait(10000));
        QCOMPARE(finished.first().first().toBool(), true);
        qint64 events = 0;
        for (const QList<QVariant> &slice : std::as_const(ready))
            events += slice.first().value<RunEventBatch>().size();
        QCOMPARE(events, expected.events);
        QCOMPARE(loader.format(), RecordingReader::Format::Recording);
        QCOMPARE(loader.lastArrivalMs(), expected.lastArrivalMs);
    }

    // Waiting for a pipe's writer, a cancel still ends the load at once, and deleting the
    // loader does not wait for a writer that never comes.
    void cancelWhileTheWorkerWaitsForAPipesWriter()
    {
        const QString fifo = m_dir.filePath(QStringLiteral("nobody.pipe"));
        QVERIFY(test::makeNamedPipe(fifo));
        auto *loader = new RecordingLoader;
        QString error;
        QVERIFY2(loader->open(fifo, &error), qPrintable(error));
        QSignalSpy finished(loader, &RecordingLoader::finished);
        loader->start(1);
        QTest::qWait(150);
        QVERIFY(loader->isRunning());
        loader->cancel();
        QCOMPARE(finished.count(), 1);
        QCOMPARE(finished.first().first().toBool(), false);
        QElapsedTimer clock;
        clock.start();
        delete loader;
        QVERIFY2(clock.elapsed() < 1000, qPrintable(QString::number(clock.elapsed())));
    }
};

QTEST_MAIN(TestRecordingLoader)
#include "tst_recordingloader.moc"
