// RunSummaryBuilder keeps its call counts and message token totals as ids arrive. Checked
// against counts made over the same ids afterwards, under seeded random orders in which results
// come before their calls, ids repeat, and a message's usage is reported more than once; also
// after reserving room for input that holds fewer ids than come (the tables grow past it) or
// many more.

#include "streamjson/runsummary.h"
#include "testing.h"

#include <QHash>
#include <QRandomGenerator>
#include <QSet>
#include <QtTest/QTest>

#include <algorithm>

using namespace sandscope;

class TestRunSummaryBuilder : public QObject {
    Q_OBJECT

private slots:
    void countsEqualACountOverTheIds_data();
    void countsEqualACountOverTheIds();
};

void TestRunSummaryBuilder::countsEqualACountOverTheIds_data()
{
    QTest::addColumn<quint32>("seed");
    QTest::addColumn<qint64>("reservedFor"); // reserveForInput's bytes (-1: not called)
    for (quint32 seed = 1; seed <= 8; ++seed)
        QTest::newRow(qPrintable(QStringLiteral("seed %1").arg(seed))) << seed << qint64(-1);
    QTest::newRow("room for a few ids") << 9u << qint64(20 * 1024);
    QTest::newRow("room for far more") << 10u << (qint64(1) << 30);
    QTest::newRow("a pipe's size") << 11u << qint64(0);
}

void TestRunSummaryBuilder::countsEqualACountOverTheIds()
{
    QFETCH(quint32, seed);
    QFETCH(qint64, reservedFor);
    QRandomGenerator random(seed);
    RunSummaryBuilder builder;
    if (reservedFor >= 0)
        builder.reserveForInput(reservedFor);
    QSet<QByteArray> calls;
    QSet<QByteArray> answered;
    QSet<QByteArray> failed;
    QHash<QByteArray, TokenUsage> messages; // the largest count seen of each, per field
    for (int step = 0; step < 3000; ++step) {
        // Few ids, so that they repeat and results meet their calls in either order.
        const QByteArray id = "toolu_" + QByteArray::number(random.bounded(400));
        switch (random.bounded(3)) {
        case 0:
            builder.addToolUse(id.toStdString());
            calls.insert(id);
            break;
        case 1: {
            const bool isError = random.bounded(4) == 0;
            builder.addToolResult(id.toStdString(), isError, random.bounded(2) == 0);
            answered.insert(id);
            if (isError)
                failed.insert(id);
            break;
        }
        default: {
            const QByteArray message = "msg_" + QByteArray::number(random.bounded(200));
            TokenUsage usage;
            usage.present = true;
            usage.inputTokens = random.bounded(1000);
            usage.outputTokens = random.bounded(1000);
            usage.cacheReadInputTokens = random.bounded(1000);
            usage.cacheCreationInputTokens = random.bounded(1000);
            builder.addMessageUsage(message.toStdString(), usage);
            TokenUsage &seen = messages[message];
            seen.present = true;
            seen.inputTokens = std::max(seen.inputTokens, usage.inputTokens);
            seen.outputTokens = std::max(seen.outputTokens, usage.outputTokens);
            seen.cacheReadInputTokens
                = std::max(seen.cacheReadInputTokens, usage.cacheReadInputTokens);
            seen.cacheCreationInputTokens
                = std::max(seen.cacheCreationInputTokens, usage.cacheCreationInputTokens);
            break;
        }
        }
        if (step % 97 != 0)
            continue;
        const RunSummary summary = builder.summary();
        QCOMPARE(summary.toolCalls, qint64(calls.size()));
        QCOMPARE(summary.toolErrors, qint64((calls & failed).size()));
        QCOMPARE(summary.unmatchedToolCalls, qint64((calls - answered).size()));
        TokenUsage total;
        for (const TokenUsage &usage : std::as_const(messages))
            total += usage;
        QCOMPARE(summary.inputTokens, total.inputTokens);
        QCOMPARE(summary.outputTokens, total.outputTokens);
        QCOMPARE(summary.cacheReadTokens, total.cacheReadInputTokens);
        QCOMPARE(summary.cacheCreationTokens, total.cacheCreationInputTokens);
    }
    QVERIFY(!(calls & failed).isEmpty());
    QVERIFY(!(calls - answered).isEmpty());
}

QTEST_GUILESS_MAIN(TestRunSummaryBuilder)
#include "tst_runsummarybuilder.moc"
