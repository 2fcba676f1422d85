// The live wall's core from a stream of follower frames in agents mode (the format
// tests/unit/tst_follower proves against the real follower): an agent that appears is a row
// with its user, chat and session; its transcript's figures equal what `replay --summary`
// computes from the same file (RunSummaryBuilder, the one place figures are made), whether
// the bytes come at once or cut mid-record; the call running now is shown until its result;
// an agent that ends leaves the wall (also in a stream recorded from the real follower); bursts are
// told in one batch per coalescing window; the model and its proxy stay consistent
// (QAbstractItemModelTester) and are never reset; the proxy puts the newest activity first; a
// damaged stream fails the watcher.

#include "live/liveagentmodel.h"
#include "live/liveagentproxy.h"
#include "live/liveagentwatcher.h"
#include "liveframes.h"
#include "recordings/runrecording.h"
#include "testing.h"
#include "util/format.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QtTest>

using namespace sandscope;
using namespace sandscope::test;

namespace {

QString transcriptOf(const QString &capture)
{
    return QDir(QStringLiteral(SANDSCOPE_TEST_DATA_DIR "/transcripts/") + capture
        + QStringLiteral("/transcript"))
        .entryInfoList({QStringLiteral("*.jsonl")}, QDir::Files)
        .value(0)
        .filePath();
}

QString bashTranscript()
{
    return transcriptOf(QStringLiteral("bash"));
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// A watcher feeding a model that QAbstractItemModelTester checks, and the model's resets.
struct TestedWall {
    LiveAgentWatcher watcher;
    LiveAgentModel model;
    QAbstractItemModelTester tester {
        &model, QAbstractItemModelTester::FailureReportingMode::QtTest};
    QSignalSpy resets {&model, &QAbstractItemModel::modelReset};
    TestedWall()
    {
        QObject::connect(
            &watcher, &LiveAgentWatcher::agentsChanged, &model, &LiveAgentModel::apply);
    }
};

// Runs the event loop until the watcher handled every frame and told every change.
bool settled(const LiveAgentWatcher &watcher)
{
    return QTest::qWaitFor([&watcher] { return watcher.isIdle(); }, 20000);
}

} // namespace

class TestLiveAgentModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // With sub-agents: their files come as the follower sends them (<agent>_<name>, after
    // their meta file), here interleaved with the main file's frames in both orders, and
    // without meta (an older CLI): the figures still equal the replay's, which splices them.
    void anAgentsFiguresEqualTheSummaryOfItsFileHoweverItsBytesCome_data()
    {
        QTest::addColumn<QString>("capture");
        QTest::addColumn<int>("chunk");
        QTest::addColumn<bool>("subagentsFirst");
        QTest::addColumn<bool>("withMeta");
        QTest::newRow("whole") << QStringLiteral("bash") << 100000 << false << true;
        QTest::newRow("7-byte frames") << QStringLiteral("bash") << 7 << false << true;
        QTest::newRow("1000-byte frames") << QStringLiteral("bash") << 1000 << false << true;
        for (const char *capture : {"subagent", "parallel-agents"}) {
            for (const int chunk : {100000, 333}) {
                for (const bool first : {false, true}) {
                    QTest::addRow("%s, %d-byte frames, sub-agents %s", capture, chunk,
                        first ? "first" : "after the main file's half")
                        << QString::fromLatin1(capture) << chunk << first << true;
                }
            }
            QTest::addRow("%s without meta files", capture)
                << QString::fromLatin1(capture) << 500 << false << false;
        }
    }
    void anAgentsFiguresEqualTheSummaryOfItsFileHoweverItsBytesCome()
    {
        QFETCH(QString, capture);
        QFETCH(int, chunk);
        QFETCH(bool, subagentsFirst);
        QFETCH(bool, withMeta);
        const QString path = transcriptOf(capture);
        RunSummary expected;
        QString error;
        QVERIFY2(summarizeRunFile(path, &expected, &error), qPrintable(error));
        QVERIFY(expected.inputTokens + expected.outputTokens > 0);
        QVERIFY(expected.costUsd > 0);

        TestedWall wall;
        LiveAgentWatcher &watcher = wall.watcher;
        LiveAgentModel &model = wall.model;
        watcher.feed(frame("R 1 99 inotify"));
        watcher.feed(appearFrames(
            "a1-1", 4242, QStringLiteral("alice"), QStringLiteral("c1"), QStringLiteral("s-1")));
        const QByteArray main = readAll(path);
        QByteArray subagents;
        const QDir folder(path.chopped(6) + QStringLiteral("/subagents"));
        const QStringList files
            = folder.entryList({QStringLiteral("agent-*.jsonl")}, QDir::Files, QDir::Name);
        QCOMPARE(files.isEmpty(), capture == QLatin1String("bash"));
        for (const QString &file : files) {
            const QByteArray id = "a1-1_" + file.mid(6).chopped(6).toLatin1();
            const QByteArray meta
                = readAll(folder.filePath(file.chopped(6) + QStringLiteral(".meta.json")));
            if (withMeta) {
                QVERIFY(!meta.isEmpty());
                subagents += frame("M " + id + ' ' + meta.toBase64());
            }
            subagents += frame("N " + id + " 78 0 0")
                + dataFrames(id, 0, readAll(folder.filePath(file)), chunk);
        }
        const int half = subagentsFirst ? 0 : int(main.size() / 2);
        watcher.feed(dataFrames("a1-1", 0, main.left(half), chunk));
        watcher.feed(subagents);
        watcher.feed(dataFrames("a1-1", half, main.mid(half), chunk));
        QVERIFY(settled(watcher));
        QCOMPARE(watcher.state(), LiveAgentWatcher::State::Watching);
        QCOMPARE(model.rowCount(), 1);
        const LiveAgentRow &row = model.agentAt(0);
        QCOMPARE(row.info.account, QStringLiteral("alice"));
        QCOMPARE(row.info.chatId(), QStringLiteral("c1"));
        QCOMPARE(row.info.sessionId, QStringLiteral("s-1"));
        QCOMPARE(row.summary.inputTokens, expected.inputTokens);
        QCOMPARE(row.summary.outputTokens, expected.outputTokens);
        QCOMPARE(row.summary.costUsd, expected.costUsd);
        QCOMPARE(row.summary.toolCalls, expected.toolCalls);
        QVERIFY(row.toolName.isEmpty()); // its only call got its result
        QVERIFY(!row.lastLine.isEmpty());
        QCOMPARE(
            model.index(0, LiveAgentModel::UserColumn).data().toString(), QStringLiteral("alice"));
        QCOMPARE(
            model.index(0, LiveAgentModel::TokensColumn).data().toString(), expected.tokensText());
        QCOMPARE(wall.resets.count(), 0);
    }

    // tests/data/livewall/agent-frames.txt, recorded from the real follower (record.py there):
    // a process named like the CLI appears, its transcript (the bash capture) is written up to
    // its Bash call, then to its end, and the process ends. Fed frame by frame: the wall showed
    // the call while it ran, the figures at the end equal the file's, and the agent leaves.
    void aRecordedStreamOfAnAgentThatAppearsGrowsAndEnds()
    {
        const QList<QByteArray> frames
            = readAll(QStringLiteral(SANDSCOPE_TEST_DATA_DIR "/livewall/agent-frames.txt"))
                  .split('\n');
        QVERIFY(frames.size() > 8);
        RunSummary expected;
        QString error;
        QVERIFY2(summarizeRunFile(bashTranscript(), &expected, &error), qPrintable(error));
        TestedWall wall;
        QStringList toolsSeen;
        LiveAgentRow last;
        QObject::connect(&wall.watcher, &LiveAgentWatcher::agentsChanged, &wall.model,
            [&](const QVector<LiveAgentRow> &changed) {
                for (const LiveAgentRow &row : changed) {
                    toolsSeen.append(row.toolName);
                    last = row;
                }
            });
        for (const QByteArray &line : frames) {
            if (line.startsWith("@SSF X "))
                QCOMPARE(wall.model.rowCount(), 1); // there until its end is handled
            wall.watcher.feed(line + '\n');
            QVERIFY(settled(wall.watcher));
        }
        QCOMPARE(wall.watcher.state(), LiveAgentWatcher::State::Watching);
        QVERIFY2(toolsSeen.contains(QStringLiteral("Bash")),
            qPrintable(toolsSeen.join(QLatin1Char(','))));
        QCOMPARE(last.info.chatId(), QStringLiteral("rec"));
        QCOMPARE(last.info.sessionId, QStringLiteral("5e55a0b1-0000-4000-8000-00000000c0de"));
        QVERIFY(last.toolName.isEmpty());
        QCOMPARE(last.summary.inputTokens, expected.inputTokens);
        QCOMPARE(last.summary.outputTokens, expected.outputTokens);
        QCOMPARE(last.summary.costUsd, expected.costUsd);
        QCOMPARE(wall.model.rowCount(), 0);
        QCOMPARE(wall.resets.count(), 0);
    }

    void theCallRunningNowIsShownUntilItsResultAndAnEndedAgentLeaves()
    {
        const QByteArray whole = readAll(bashTranscript());
        // Up to and including the record of the call (the first tool_use's line).
        const qsizetype call = whole.indexOf("\"type\":\"tool_use\"");
        QVERIFY(call > 0);
        const qsizetype cut = whole.indexOf('\n', call) + 1;
        TestedWall wall;
        LiveAgentWatcher &watcher = wall.watcher;
        LiveAgentModel &model = wall.model;
        watcher.feed(appearFrames(
            "a2-1", 7, QStringLiteral("bob"), QStringLiteral("c2"), QStringLiteral("s-2")));
        watcher.feed(dataFrames("a2-1", 0, whole.left(cut), 4096));
        QVERIFY(settled(watcher));
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.agentAt(0).toolName, QStringLiteral("Bash"));
        QVERIFY(model.agentAt(0).lastLine.startsWith(QLatin1String("Bash: ")));
        model.setClock([&] { return model.agentAt(0).toolStartedMs + 65000; });
        QCOMPARE(model.index(0, LiveAgentModel::ToolColumn).data().toString(),
            QStringLiteral("Bash · ") + format::duration(65000));
        QCOMPARE(model.index(0, LiveAgentModel::ToolColumn)
                     .data(LiveAgentModel::ToolElapsedRole)
                     .toLongLong(),
            65000);
        // The elapsed time on the sandbox's clock, as its heartbeat tells it, whatever this
        // machine's clock says (here the sandbox is 65 s after the call's record).
        watcher.feed(frame("H " + QByteArray::number(model.agentAt(0).toolStartedMs + 65000)));
        QVERIFY(settled(watcher));
        model.setClock([&watcher] { return watcher.serverNowMs(); });
        const qint64 elapsed = model.index(0, LiveAgentModel::ToolColumn)
                                   .data(LiveAgentModel::ToolElapsedRole)
                                   .toLongLong();
        QVERIFY2(elapsed >= 65000 && elapsed < 70000, qPrintable(QString::number(elapsed)));
        watcher.feed(dataFrames("a2-1", cut, whole.mid(cut), 4096));
        QVERIFY(settled(watcher));
        QVERIFY(model.agentAt(0).toolName.isEmpty());
        QVERIFY(model.index(0, LiveAgentModel::ToolColumn).data().toString().isEmpty());
        watcher.feed(frame("X a2-1"));
        QVERIFY(settled(watcher));
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(watcher.agentCount(), 0);
        QCOMPARE(wall.resets.count(), 0);
    }

    void aBurstIsToldInCoalescedBatchesAndTheNewestActivityComesFirst()
    {
        const QByteArray whole = readAll(bashTranscript());
        LiveAgentWatcher watcher;
        watcher.setCoalesceMs(200);
        LiveAgentModel model;
        LiveAgentProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(
            &proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QList<qint64> batches; // when each was told
        QElapsedTimer clock;
        clock.start();
        QObject::connect(&watcher, &LiveAgentWatcher::agentsChanged, &watcher,
            [&] { batches.append(clock.elapsed()); });
        QObject::connect(
            &watcher, &LiveAgentWatcher::agentsChanged, &model, &LiveAgentModel::apply);
        QByteArray burst;
        for (int i = 0; i < 20; ++i) {
            const QByteArray id = "b" + QByteArray::number(i);
            burst += appearFrames(id, 100 + i, QStringLiteral("u%1").arg(i), QStringLiteral("c"),
                QStringLiteral("s%1").arg(i));
            // Each agent's records are shifted by i days: the last one is the newest.
            QByteArray shifted = whole;
            shifted.replace("2026-12-01T",
                QByteArray("2026-12-" + QByteArray::number(i + 1).rightJustified(2, '0') + 'T'));
            burst += dataFrames(id, 0, shifted, 1000);
        }
        watcher.feed(burst);
        QVERIFY(settled(watcher));
        QCOMPARE(model.rowCount(), 20);
        // Over 600 frames, told in batches at least the coalescing interval apart.
        QVERIFY(!batches.isEmpty() && batches.size() < 20);
        for (int i = 1; i < batches.size(); ++i)
            QVERIFY2(batches.at(i) - batches.at(i - 1) >= 190,
                qPrintable(QStringLiteral("batches at %1 and %2 ms")
                               .arg(batches.at(i - 1))
                               .arg(batches.at(i))));
        QCOMPARE(
            proxy.index(0, LiveAgentModel::UserColumn).data().toString(), QStringLiteral("u19"));
        QCOMPARE(
            proxy.index(19, LiveAgentModel::UserColumn).data().toString(), QStringLiteral("u0"));
        // The oldest is prompted again: it moves to the top, with the prompt as its last line.
        const qsizetype promptAt = whole.indexOf("{\"parentUuid\":null");
        QByteArray prompt = whole.mid(promptAt, whole.indexOf('\n', promptAt) + 1 - promptAt);
        prompt.replace("\"CMD: echo hi\"", "\"again\"").replace("2026-12-01T", "2026-12-30T");
        watcher.feed(dataFrames("b0", whole.size(), prompt, 1000));
        QVERIFY(settled(watcher));
        QCOMPARE(
            proxy.index(0, LiveAgentModel::UserColumn).data().toString(), QStringLiteral("u0"));
        QCOMPARE(proxy.index(0, LiveAgentModel::LastLineColumn).data().toString(),
            QStringLiteral("again"));
    }

    void aGapOrADamagedFrameFailsTheWatcherWithAMessage_data()
    {
        QTest::addColumn<QByteArray>("stream");
        QTest::newRow("gap") << appearFrames("g", 1, QStringLiteral("a"), QStringLiteral("c"),
                                    QStringLiteral("s"))
                + dataFrames("g", 10, "late\n", 10);
        QByteArray damaged = frame("H 1");
        damaged[8] = 'x';
        QTest::newRow("checksum") << damaged;
        QTest::newRow("announcement without pid")
            << frame("A g " + QByteArray("{\"cwd\":\"/\"}").toBase64());
        QTest::newRow("fatal") << frame("F " + QByteArray("boom").toBase64());
    }
    void aGapOrADamagedFrameFailsTheWatcherWithAMessage()
    {
        QFETCH(QByteArray, stream);
        LiveAgentWatcher watcher;
        QSignalSpy failed(&watcher, &LiveAgentWatcher::failed);
        watcher.feed(stream);
        QTRY_COMPARE(failed.count(), 1);
        QCOMPARE(watcher.state(), LiveAgentWatcher::State::Failed);
        QVERIFY(!watcher.error().isEmpty());
    }

    void aNameWithControlsIsShownVisibly()
    {
        LiveAgentWatcher watcher;
        LiveAgentModel model;
        QObject::connect(
            &watcher, &LiveAgentWatcher::agentsChanged, &model, &LiveAgentModel::apply);
        watcher.feed(appearFrames(
            "e", 1, QStringLiteral("ev\x1b[2Jil"), QStringLiteral("c\nx"), QStringLiteral("s")));
        QTRY_COMPARE(model.rowCount(), 1);
        for (int column = 0; column < LiveAgentModel::ColumnCount; ++column) {
            const QString text = model.index(0, column).data().toString();
            QVERIFY2(
                !text.contains(QChar(0x1b)) && !text.contains(QLatin1Char('\n')), qPrintable(text));
        }
    }
};

QTEST_GUILESS_MAIN(TestLiveAgentModel)
#include "tst_liveagentmodel.moc"
