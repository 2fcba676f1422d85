// CompareJob, the comparison the Compare tab and `sandscope compare` share:
// - each capture read from its file compares as RunComparison does over the same runs read
//   by the test (same rows, same verdict), the titles become the sides' sources;
// - a side already read (a tab's tree) and a side read from a file mix;
// - a file that is empty, or holds no run, is refused with the reason and its name;
// - a corrupt line is named among the side's corrupt lines, not its reader's problems;
// - cancelling before the job runs compares nothing;
// - a side that is a named pipe: Cancel ends the wait for its writer, and for the rest of a run
//   whose writer has gone quiet; the part read is not compared.

#include "compare/comparejob.h"
#include "namedpipe.h"
#include "runs/loadedrun.h"
#include "runtree/runmodel.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest/QTest>

#include <atomic>
#include <thread>

using namespace sandscope;

namespace {

const QString dataDir = QStringLiteral(SANDSCOPE_TEST_DATA_DIR);

QString capture(const QString &name)
{
    return QDir(dataDir).filePath(name);
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate)
        && file.write(bytes) == bytes.size();
}

ComparedRun readSide(const QString &path)
{
    LoadedRun run;
    QString why;
    if (!LoadedRun::fromFile(path, &run, &why))
        qWarning() << why;
    return ComparedRun::fromLoadedRun(run);
}

} // namespace

class TestCompareJob : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void filesCompareAsTheirRunsDo_data()
    {
        QTest::addColumn<QString>("left");
        QTest::addColumn<QString>("right");
        QTest::newRow("the same capture") << "stream-basic.jsonl"
                                          << "stream-basic.jsonl";
        QTest::newRow("two runs") << "stream-basic.jsonl"
                                  << "stream-subagent.jsonl";
        QTest::newRow("sub-agents") << "stream-subagent.jsonl"
                                    << "stream-subagent-forward.jsonl";
        QTest::newRow("an error run") << "stream-err-401.jsonl"
                                      << "stream-maxturns.jsonl";
    }

    void filesCompareAsTheirRunsDo()
    {
        QFETCH(QString, left);
        QFETCH(QString, right);
        CompareJob job;
        job.setFile(0, capture(left), QStringLiteral("A"));
        job.setFile(1, capture(right), QStringLiteral("B"));
        QCOMPARE(job.filesToRead(), QStringList({capture(left), capture(right)}));
        QVERIFY2(job.run(), qPrintable(job.why()));
        const RunComparison expected
            = RunComparison::compare(readSide(capture(left)), readSide(capture(right)));
        const RunComparison &comparison = job.comparison();
        QCOMPARE(comparison.left().source, QStringLiteral("A"));
        QCOMPARE(comparison.right().source, QStringLiteral("B"));
        QCOMPARE(comparison.same(), expected.same());
        QCOMPARE(comparison.rows().size(), expected.rows().size());
        for (qsizetype i = 0; i < expected.rows().size(); ++i) {
            QCOMPARE(comparison.rows().at(i).left, expected.rows().at(i).left);
            QCOMPARE(comparison.rows().at(i).right, expected.rows().at(i).right);
            QCOMPARE(comparison.rows().at(i).state, expected.rows().at(i).state);
        }
        if (left == right)
            QVERIFY(comparison.same());
    }

    void aTreeAndAFileMix()
    {
        LoadedRun loaded;
        QString why;
        QVERIFY2(LoadedRun::fromFile(capture(QStringLiteral("stream-basic.jsonl")), &loaded, &why),
            qPrintable(why));
        RunModel model;
        loaded.buildModel(&model);
        CompareJob job;
        job.setRun(0, ComparedRun::fromModel(model), QStringLiteral("tab"));
        job.setFile(1, capture(QStringLiteral("stream-basic.jsonl")), QStringLiteral("file"));
        QCOMPARE(job.filesToRead().size(), 1);
        QVERIFY2(job.run(), qPrintable(job.why()));
        QCOMPARE(job.comparison().left().source, QStringLiteral("tab"));
        QVERIFY(job.comparison().same());
    }

    void whatIsNotARunIsRefusedByName_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("reason");
        QTest::newRow("empty") << QByteArray() << QStringLiteral("is empty: not a Claude Code run");
        QTest::newRow("other JSON") << QByteArray("{\"hello\":1}\n{\"world\":2}\n")
                                    << QStringLiteral("is not a Claude Code run");
        QTest::newRow("text") << QByteArray("just some text\n")
                              << QStringLiteral("is not a Claude Code run");
    }

    void whatIsNotARunIsRefusedByName()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("not-a-run.jsonl"));
        QVERIFY(writeFile(path, content));
        CompareJob job;
        job.setFile(0, capture(QStringLiteral("stream-basic.jsonl")), QStringLiteral("A"));
        job.setFile(1, path, QStringLiteral("B"));
        QVERIFY(!job.run());
        QVERIFY2(job.why().contains(path) && job.why().contains(reason), qPrintable(job.why()));
    }

    void aCorruptLineIsNamedAsCorrupt()
    {
        QFile source(capture(QStringLiteral("stream-basic.jsonl")));
        QVERIFY(source.open(QIODevice::ReadOnly));
        QByteArray bytes = source.readAll();
        bytes.insert(bytes.indexOf('\n') + 1, "{\"type\":\"assistant\",\"message\":{\"cont\n");
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("corrupt.jsonl"));
        QVERIFY(writeFile(path, bytes));
        LoadedRun loaded;
        QString why;
        QVERIFY2(LoadedRun::fromFile(path, &loaded, &why), qPrintable(why));
        CompareJob job;
        job.setLoadedRun(0, loaded, QStringLiteral("corrupt"));
        job.setFile(1, path, QStringLiteral("again"));
        QVERIFY2(job.run(), qPrintable(job.why()));
        for (int side = 0; side < 2; ++side) {
            const QStringList corrupt = job.corruptLines(side);
            QCOMPARE(corrupt.size(), 1);
            QVERIFY2(corrupt.constFirst().startsWith(QLatin1String("line 2:")),
                qPrintable(corrupt.constFirst()));
        }
    }

    void cancelledBeforeItRunsComparesNothing()
    {
        CompareJob job;
        job.setFile(0, capture(QStringLiteral("stream-basic.jsonl")), QStringLiteral("A"));
        job.setFile(1, capture(QStringLiteral("stream-basic.jsonl")), QStringLiteral("B"));
        const std::atomic_bool cancelled {true};
        QVERIFY(!job.run(&cancelled));
        QVERIFY(job.comparison().rows().isEmpty());
    }

    void cancelEndsTheReadingOfAPipe_data()
    {
        QTest::addColumn<bool>("writerStays");
        QTest::newRow("no writer yet") << false;
        QTest::newRow("a writer gone quiet mid-run") << true;
    }

    void cancelEndsTheReadingOfAPipe()
    {
        QFETCH(bool, writerStays);
        QTemporaryDir dir;
        const QString pipe = dir.filePath(QStringLiteral("run.jsonl"));
        QVERIFY(test::makeNamedPipe(pipe));
        QFile source(capture(QStringLiteral("stream-basic.jsonl")));
        QVERIFY(source.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = source.readAll().split('\n');
        std::unique_ptr<test::HeldPipeWriter> writer;
        if (writerStays) {
            writer = std::make_unique<test::HeldPipeWriter>(pipe);
            QVERIFY(writer->isOpen());
            QVERIFY(writer->write(lines.mid(0, lines.size() / 2).join('\n') + '\n'));
        }
        CompareJob job;
        job.setFile(0, pipe, QStringLiteral("A"));
        job.setFile(1, source.fileName(), QStringLiteral("B"));
        std::atomic_bool cancelled {false};
        std::atomic_bool done {false};
        bool compared = true;
        std::thread worker([&] {
            compared = job.run(&cancelled);
            done = true;
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        const bool waitedForThePipe = !done;
        QElapsedTimer sinceCancel;
        sinceCancel.start();
        {
            const test::PipeRelease release(5000, [&] {
                if (writer)
                    writer->close();
                else
                    test::endForReaders(pipe);
            });
            cancelled = true;
            while (!done && sinceCancel.elapsed() < 5000)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        const qint64 cancelTookMs = sinceCancel.elapsed();
        worker.join();
        QVERIFY(waitedForThePipe);
        QVERIFY2(cancelTookMs < 1000, qPrintable(QString::number(cancelTookMs)));
        QVERIFY(!compared);
        QCOMPARE(job.why(), QStringLiteral("cancelled"));
        QVERIFY(job.comparison().rows().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestCompareJob)
#include "tst_comparejob.moc"
