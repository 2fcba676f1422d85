// RunPage loading a file faster than its tree grows: the reader waits while the tree's
// backlog is full (RunEventBatcher::backlogFull) and goes on once it is worked off (that
// nothing is read while paused is tst_runrecording's), and whatever the pauses, the page ends
// with every event of the file, in order: its tree equals the one a synchronous reading of the
// same file builds. A named pipe opened before its writer starts does not hold the page.

#include "namedpipe.h"
#include "recordings/runrecording.h"
#include "runs/runpage.h"
#include "runtree/runeventbatcher.h"
#include "runtree/runmodel.h"
#include "streamjson/runparser.h"

#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

using namespace sandscope;

namespace {

// Every node's kind and title, depth first, one line each.
QStringList treeLines(const QAbstractItemModel &model, const QModelIndex &parent, int depth = 0)
{
    QStringList lines;
    for (int row = 0; row < model.rowCount(parent); ++row) {
        const QModelIndex index = model.index(row, 0, parent);
        lines << QStringLiteral("%1%2 %3")
                     .arg(QString(depth, QLatin1Char(' ')))
                     .arg(index.data(RunModel::KindRole).toInt())
                     .arg(index.data(Qt::DisplayRole).toString());
        lines += treeLines(model, index, depth + 1);
    }
    return lines;
}

} // namespace

class TestRunPageLoading : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void aFileReadFasterThanTheTreeGrowsIsPausedAndLosesNothing_data()
    {
        QTest::addColumn<QString>("capture");
        QTest::addColumn<int>("copies");
        QTest::newRow("stream-json with a sub-agent")
            << QStringLiteral("stream-subagent.jsonl") << 1200;
        QTest::newRow("stream-json with many tool calls")
            << QStringLiteral("stream-basic.jsonl") << 2000;
    }

    void aFileReadFasterThanTheTreeGrowsIsPausedAndLosesNothing()
    {
        QFETCH(QString, capture);
        QFETCH(int, copies);
        QFile source(QStringLiteral(SANDSCOPE_TEST_DATA_DIR "/") + capture);
        QVERIFY(source.open(QIODevice::ReadOnly));
        const QByteArray lines = source.readAll();
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("run.jsonl"));
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            // Every copy with ids of its own: a copy is a turn of its own, not the same calls
            // again.
            for (int copy = 0; copy < copies; ++copy) {
                QByteArray copied = lines;
                const QByteArray tag = QByteArray::number(copy) + '_';
                copied
                    .replace(
                        QByteArrayLiteral("\"toolu_"), QByteArray(QByteArray("\"toolu_") + tag))
                    .replace(QByteArrayLiteral("\"msg_"), QByteArray(QByteArray("\"msg_") + tag));
                QVERIFY(file.write(copied) == copied.size());
            }
        }

        // The tree the file gives, read synchronously.
        RunModel reference;
        qsizetype eventCount = 0;
        {
            RecordingReader reader;
            QVERIFY(reader.open(path));
            RunParser parser;
            RecordedLine line;
            while (reader.readLine(&line)) {
                const RunEventBatch events = reader.eventsOf(parser, line);
                eventCount += events.size();
                reference.addEvents(events);
            }
            reference.addEvents(reader.finishReading());
        }
        QVERIFY2(eventCount > 4 * RunEventBatcher::backlogLimit,
            qPrintable(QString::number(eventCount)));

        RunPage page;
        // A slow tree (1 ms every fourth insertion): the reader outruns it for sure.
        int insertions = 0;
        connect(page.model(), &RunModel::rowsInserted, this, [&insertions] {
            if (++insertions % 4 == 0)
                QThread::msleep(1);
        });
        QSignalSpy finished(&page, &RunPage::loadFinished);
        QVERIFY(page.openFile(path));
        auto *reader = page.findChild<RecordingLoader *>();
        QVERIFY(reader);
        // Connected after the page: sees whether the page's slot paused the reader.
        int pauses = 0;
        connect(reader, &RecordingLoader::eventsReady, this,
            [&] { pauses += reader->isPaused() ? 1 : 0; });
        QVERIFY(finished.wait(120000));
        QCOMPARE(finished.first().first().toBool(), true);
        QVERIFY2(pauses > 0, "the reader never waited for the tree");
        QVERIFY(!reader->isPaused());
        QCOMPARE(page.model()->summary().toJson(), reference.summary().toJson());
        QCOMPARE(page.model()->nodeCount(), reference.nodeCount());
        QCOMPARE(treeLines(*page.model(), page.model()->runIndex()),
            treeLines(reference, reference.runIndex()));
    }

    // A named pipe opened before anything writes to it (claude ... > pipe, started later):
    // the page does not wait for its writer (opening it used to block the window until the
    // first line came) and shows what the writer sends once it does.
    void aPipeOpenedBeforeItsWriterDoesNotHoldThePage()
    {
        QFile source(QStringLiteral(SANDSCOPE_TEST_DATA_DIR "/stream-subagent.jsonl"));
        QVERIFY(source.open(QIODevice::ReadOnly));
        const QByteArray lines = source.readAll();
        QTemporaryDir dir;
        const QString fifo = dir.filePath(QStringLiteral("run.pipe"));
        QVERIFY(test::makeNamedPipe(fifo));
        const QString copy = dir.filePath(QStringLiteral("run.jsonl"));
        {
            QFile file(copy);
            QVERIFY(file.open(QIODevice::WriteOnly));
            QVERIFY(file.write(lines) == lines.size());
        }
        RunModel reference;
        {
            RecordingReader reader;
            QVERIFY(reader.open(copy));
            RunParser parser;
            RecordedLine line;
            while (reader.readLine(&line))
                reference.addEvents(reader.eventsOf(parser, line));
            reference.addEvents(reader.finishReading());
        }

        RunPage page;
        QSignalSpy finished(&page, &RunPage::loadFinished);
        QElapsedTimer clock;
        clock.start();
        QString error;
        QVERIFY2(page.openFile(fifo, &error), qPrintable(error));
        QVERIFY2(clock.elapsed() < 1000, qPrintable(QString::number(clock.elapsed())));
        QTest::qWait(200);
        QCOMPARE(finished.count(), 0);
        QVERIFY(test::writeAllAndClose(fifo, lines));
        QVERIFY(finished.wait(10000));
        QCOMPARE(finished.first().first().toBool(), true);
        QCOMPARE(page.model()->summary().toJson(), reference.summary().toJson());
        QCOMPARE(treeLines(*page.model(), page.model()->runIndex()),
            treeLines(reference, reference.runIndex()));
    }
};

QTEST_MAIN(TestRunPageLoading)
#include "tst_runpage_loading.moc"
