// Token counts and costs a file can lie about (issue 27): 1e308, negative, 18 and more digits,
// fractions, strings. They are shown as invalid and left out of the sums, never summed into a
// negative or wrapped total, and the summary fast path (summarizeRunFile) and the event path
// (RunParser → RunSummaryBuilder) agree on every such file, as tst_runparser checks for the
// real captures.

#include "recordings/runrecording.h"
#include "runs/loadedrun.h"
#include "runtree/runnodetext.h"
#include "streamjson/runsummary.h"

#include <QFile>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest/QTest>

using namespace sandscope;

namespace {

// A capture of `results` turns whose assistant message and result carry `tokens` (JSON text)
// as input_tokens, and whose result costs `cost` (JSON text).
QByteArray capture(const QByteArray &tokens, const QByteArray &cost, int results)
{
    QByteArray out = R"({"type":"system","subtype":"init","session_id":"s1","model":"m"})"
                     "\n";
    for (int i = 0; i < results; ++i) {
        const QByteArray n = QByteArray::number(i);
        out += R"({"type":"assistant","session_id":"s1","message":{"id":"msg_)" + n
            + R"(","role":"assistant","content":[{"type":"text","text":"hi"}],"usage":{"input_tokens":)"
            + tokens + R"(,"output_tokens":1}}})" + "\n";
        out += R"({"type":"result","subtype":"success","is_error":false,"session_id":"s1",)"
               R"("num_turns":1,"duration_ms":5,"total_cost_usd":)"
            + cost + R"(,"usage":{"input_tokens":)" + tokens + R"(,"output_tokens":1}})" + "\n";
    }
    return out;
}

struct Summaries {
    RunSummary fast;
    RunSummary events;
};

bool summarise(const QByteArray &bytes, Summaries *out)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("numbers.jsonl"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
        return false;
    file.close();
    QString why;
    if (!summarizeRunFile(path, &out->fast, &why)) {
        qWarning() << why;
        return false;
    }
    LoadedRun run;
    if (!LoadedRun::fromFile(path, &run, &why)) {
        qWarning() << why;
        return false;
    }
    RunSummaryBuilder builder;
    builder.add(run.events);
    out->events = builder.summary(true);
    return true;
}

} // namespace

class TestSummaryNumbers : public QObject {
    Q_OBJECT

private slots:
    void outOfRangeIsInvalid_data();
    void outOfRangeIsInvalid();
    void largeValidCountsNeverWrap();
    void saturatingAddStopsAtTheLimits();
    void invalidTokensShowAsInvalid();
};

void TestSummaryNumbers::outOfRangeIsInvalid_data()
{
    QTest::addColumn<QByteArray>("tokens");
    QTest::addColumn<QByteArray>("cost");
    QTest::addColumn<bool>("invalid");
    QTest::newRow("valid") << QByteArray("1000") << QByteArray("0.5") << false;
    QTest::newRow("whole double") << QByteArray("12.0") << QByteArray("0") << false;
    QTest::newRow("1e308 tokens") << QByteArray("1e308") << QByteArray("0.5") << true;
    QTest::newRow("negative tokens") << QByteArray("-5") << QByteArray("0.5") << true;
    QTest::newRow("18 digits") << QByteArray("123456789012345678") << QByteArray("0.5") << true;
    QTest::newRow("int64 max") << QByteArray("9223372036854775807") << QByteArray("0.5") << true;
    QTest::newRow("uint64") << QByteArray("18446744073709551615") << QByteArray("0.5") << true;
    QTest::newRow("fraction") << QByteArray("1.5") << QByteArray("0.5") << true;
    QTest::newRow("string") << QByteArray("\"12\"") << QByteArray("0.5") << true;
    QTest::newRow("1e308 cost") << QByteArray("10") << QByteArray("1e308") << true;
    QTest::newRow("negative cost") << QByteArray("10") << QByteArray("-3") << true;
}

void TestSummaryNumbers::outOfRangeIsInvalid()
{
    QFETCH(QByteArray, tokens);
    QFETCH(QByteArray, cost);
    QFETCH(bool, invalid);
    Summaries summaries;
    QVERIFY(summarise(capture(tokens, cost, 3), &summaries));
    for (const RunSummary &summary : {summaries.fast, summaries.events}) {
        QCOMPARE(summary.invalidNumbers, invalid);
        QVERIFY(summary.inputTokens >= 0);
        QVERIFY(summary.outputTokens >= 0);
        QVERIFY(summary.costUsd >= 0 && summary.costUsd <= 1e9);
        QCOMPARE(summary.tokensText().startsWith(QLatin1String("invalid")), invalid);
    }
    QCOMPARE(QJsonDocument(summaries.fast.toJson()).toJson(),
        QJsonDocument(summaries.events.toJson()).toJson());
    QCOMPARE(summaries.fast.toJson().contains(QLatin1String("invalid_numbers")), invalid);
}

// 20,000 results of just under 10^15 tokens each add up past 2^63: held at the largest count,
// never wrapped into a negative total.
void TestSummaryNumbers::largeValidCountsNeverWrap()
{
    // The largest valid count, 100 times: both paths sum it exactly (a sum that would pass
    // qint64's range saturates instead: saturatingAddStopsAtTheLimits). Few lines, so the
    // sanitizer build's run stays short.
    Summaries summaries;
    QVERIFY(summarise(capture("999999999999999", "1", 100), &summaries));
    for (const RunSummary &summary : {summaries.fast, summaries.events}) {
        QVERIFY(!summary.invalidNumbers);
        QCOMPARE(summary.inputTokens, qint64(99999999999999900));
        QCOMPARE(summary.outputTokens, qint64(100));
    }
}

void TestSummaryNumbers::saturatingAddStopsAtTheLimits()
{
    const qint64 max = std::numeric_limits<qint64>::max();
    const qint64 min = std::numeric_limits<qint64>::min();
    QCOMPARE(saturatingAdd(max, 1), max);
    QCOMPARE(saturatingAdd(max - 5, 10), max);
    QCOMPARE(saturatingAdd(min, -1), min);
    QCOMPARE(saturatingAdd(max, -1), max - 1);
    QCOMPARE(saturatingAdd(40, 2), qint64(42));
    TokenUsage sum;
    TokenUsage big;
    big.present = true;
    big.inputTokens = 999999999999999;
    for (int i = 0; i < 10000; ++i)
        sum += big;
    QCOMPARE(sum.inputTokens, max);
}

void TestSummaryNumbers::invalidTokensShowAsInvalid()
{
    TokenUsage usage;
    usage.present = true;
    usage.inputTokens = 5;
    QVERIFY(!runtext::tokenText(usage).contains(QLatin1String("invalid")));
    usage.invalid = true;
    QVERIFY(runtext::tokenText(usage).contains(QLatin1String("invalid")));
    TokenUsage sum;
    sum += usage;
    QVERIFY(sum.invalid);
}

QTEST_GUILESS_MAIN(TestSummaryNumbers)
#include "tst_summarynumbers.moc"
