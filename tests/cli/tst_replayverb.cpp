// `sandscope replay FILE --summary --json` run as a process on every real capture: the JSON
// equals the summary computed here from the capture with QJsonDocument (session, last result,
// distinct tool calls, failed and unanswered ones, cost, tokens per result from
// model_usage_since_last_result, turns, duration); the exit code is 0 exactly when the run
// succeeded; a recording of a capture gives the same summary; the outline and human summary
// name the calls; usage and file errors have their own exit codes and messages; a named pipe
// (or `<(...)`) gives what its file gives, none of its bytes taken before the reading.

#include "namedpipe.h"
#include "recordings/runrecording.h"
#include "sandscopecli.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest/QTest>

#include <csignal>

using namespace sandscope;

namespace {

QString capturePath(const QString &name)
{
    return QStringLiteral(SANDSCOPE_TEST_DATA_DIR) + QLatin1Char('/') + name;
}

QList<QByteArray> captureLines(const QString &name)
{
    QFile file(capturePath(name));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QList<QByteArray> lines = file.readAll().split('\n');
    while (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    return lines;
}

// QJsonValue::toInteger() is Qt 6 only; token counts and durations are exact in a double.
qint64 integer(const QJsonValue &value)
{
    return qint64(value.toDouble());
}

using Outcome = test::CliOutcome;
using test::runSandscope;

// The summary of a capture, computed from its JSON independently of the app's parser.
QJsonObject expectedSummary(const QList<QByteArray> &lines)
{
    QString sessionId;
    QJsonObject lastResult;
    QSet<QString> toolUses, answered, failed;
    qint64 inputTokens = 0, outputTokens = 0, cacheRead = 0, cacheCreation = 0, claudeMs = -1;
    int roundTrips = 0, turns = 0;
    qint64 nonBlank = 0;
    // The capture's clock: its lines' timestamps, never going back (docs/stream-json.md).
    qint64 firstMs = -1, lastMs = -1;
    QHash<QString, QPair<qint64, qint64>> messageUsage; // message.id -> max in/out
    for (const QByteArray &line : lines) {
        nonBlank += line.trimmed().isEmpty() ? 0 : 1;
        const QJsonObject json = QJsonDocument::fromJson(line).object();
        if (json.isEmpty())
            continue;
        if (sessionId.isEmpty())
            sessionId = json.value(QLatin1String("session_id")).toString();
        const QDateTime stamp = QDateTime::fromString(
            json.value(QLatin1String("timestamp")).toString(), Qt::ISODateWithMs);
        if (stamp.isValid()) {
            firstMs = firstMs < 0 ? stamp.toMSecsSinceEpoch() : firstMs;
            lastMs = std::max(lastMs, stamp.toMSecsSinceEpoch());
        }
        const QString type = json.value(QLatin1String("type")).toString();
        if (type == QLatin1String("system")
            && json.value(QLatin1String("subtype")).toString() == QLatin1String("init"))
            ++turns;
        const QJsonObject message = json.value(QLatin1String("message")).toObject();
        if (type == QLatin1String("assistant")) {
            const QJsonObject usage = message.value(QLatin1String("usage")).toObject();
            auto &seen = messageUsage[message.value(QLatin1String("id")).toString()];
            seen.first
                = std::max<qint64>(seen.first, integer(usage.value(QLatin1String("input_tokens"))));
            seen.second = std::max<qint64>(
                seen.second, integer(usage.value(QLatin1String("output_tokens"))));
        }
        for (const QJsonValue &value : message.value(QLatin1String("content")).toArray()) {
            const QJsonObject block = value.toObject();
            const QString blockType = block.value(QLatin1String("type")).toString();
            if (blockType == QLatin1String("tool_use"))
                toolUses.insert(block.value(QLatin1String("id")).toString());
            if (blockType == QLatin1String("tool_result")) {
                const QString id = block.value(QLatin1String("tool_use_id")).toString();
                answered.insert(id);
                if (block.value(QLatin1String("is_error")).toBool())
                    failed.insert(id);
            }
        }
        if (type == QLatin1String("result")) {
            lastResult = json;
            const QJsonObject sinceLast
                = json.value(QLatin1String("model_usage_since_last_result")).toObject();
            if (!sinceLast.isEmpty()) {
                for (const QJsonValue &model : sinceLast) {
                    const QJsonObject counts = model.toObject();
                    inputTokens += integer(counts.value(QLatin1String("inputTokens")));
                    outputTokens += integer(counts.value(QLatin1String("outputTokens")));
                    cacheRead += integer(counts.value(QLatin1String("cacheReadInputTokens")));
                    cacheCreation
                        += integer(counts.value(QLatin1String("cacheCreationInputTokens")));
                }
            } else {
                const QJsonObject usage = json.value(QLatin1String("usage")).toObject();
                inputTokens += integer(usage.value(QLatin1String("input_tokens")));
                outputTokens += integer(usage.value(QLatin1String("output_tokens")));
                cacheRead += integer(usage.value(QLatin1String("cache_read_input_tokens")));
                cacheCreation += integer(usage.value(QLatin1String("cache_creation_input_tokens")));
            }
            if (json.contains(QLatin1String("duration_ms")))
                claudeMs = std::max<qint64>(0, claudeMs)
                    + std::max<qint64>(0, integer(json.value(QLatin1String("duration_ms"))));
            roundTrips += std::max(0, json.value(QLatin1String("num_turns")).toInt());
        }
    }
    const bool hasResult = !lastResult.isEmpty();
    const bool isError = hasResult ? lastResult.value(QLatin1String("is_error")).toBool() : true;
    const QString subtype = lastResult.value(QLatin1String("subtype")).toString();
    const QString outcome = !hasResult ? QStringLiteral("interrupted: the last turn did not finish")
        : !isError                     ? QStringLiteral("succeeded")
        : subtype.startsWith(QLatin1String("error")) ? QStringLiteral("failed (%1)").arg(subtype)
                                                     : QStringLiteral("failed");
    if (!hasResult) {
        for (const auto &usage : messageUsage) {
            inputTokens += usage.first;
            outputTokens += usage.second;
        }
    }
    return QJsonObject {
        {QStringLiteral("type"), QStringLiteral("sandscope_summary")},
        {QStringLiteral("session_id"), sessionId},
        {QStringLiteral("result_subtype"),
            hasResult ? lastResult.value(QLatin1String("subtype")) : QJsonValue()},
        {QStringLiteral("is_error"), isError},
        {QStringLiteral("tool_calls"), toolUses.size()},
        {QStringLiteral("tool_errors"), (failed & toolUses).size()},
        {QStringLiteral("unmatched_tool_calls"), (toolUses - answered).size()},
        {QStringLiteral("cost_usd"),
            hasResult ? lastResult.value(QLatin1String("total_cost_usd")).toDouble() : 0.0},
        {QStringLiteral("input_tokens"), inputTokens},
        {QStringLiteral("output_tokens"), outputTokens},
        {QStringLiteral("cache_read_tokens"), cacheRead},
        {QStringLiteral("cache_creation_tokens"), cacheCreation},
        {QStringLiteral("turns"), turns},
        // claude reports its round trips only in result lines: without one, not recorded.
        {QStringLiteral("round_trips"), hasResult ? QJsonValue(roundTrips) : QJsonValue()},
        // The run ends at its last line: from the first line's time to the latest.
        {QStringLiteral("duration_ms"), firstMs < 0 ? 0 : lastMs - firstMs},
        {QStringLiteral("claude_duration_ms"), claudeMs >= 0 ? QJsonValue(claudeMs) : QJsonValue()},
        {QStringLiteral("outcome"), outcome},
        {QStringLiteral("lines"), nonBlank},
    };
}

} // namespace

class TestReplayVerb : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void jsonSummaryMatchesTheCapture_data();
    void jsonSummaryMatchesTheCapture();
    void recordingGivesTheSameSummary();
    void humanSummaryAndOutline();
    void usageAndFileErrors();
    void transcriptReplaysWithItsSubagents();
    void summaryFastPathMatchesTheOutlinePath();
    void aPipeReplaysLikeItsFile_data();
    void aPipeReplaysLikeItsFile();

private:
    QTemporaryDir m_dir;
};

void TestReplayVerb::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY(QFile::exists(QStringLiteral(SANDSCOPE_BINARY)));
}

void TestReplayVerb::jsonSummaryMatchesTheCapture_data()
{
    QTest::addColumn<QString>("capture");
    const QStringList captures = QDir(QStringLiteral(SANDSCOPE_TEST_DATA_DIR))
                                     .entryList({QStringLiteral("stream-*.jsonl")}, QDir::Files);
    QVERIFY(captures.size() >= 9);
    for (const QString &capture : captures)
        QTest::newRow(qPrintable(capture)) << capture;
}

void TestReplayVerb::jsonSummaryMatchesTheCapture()
{
    QFETCH(QString, capture);
    const Outcome outcome = runSandscope({QStringLiteral("replay"), capturePath(capture),
        QStringLiteral("--summary"), QStringLiteral("--json")});
    QVERIFY2(outcome.err.isEmpty(), outcome.err.constData());
    QVERIFY(outcome.out.endsWith('\n'));
    QCOMPARE(outcome.out.count('\n'), 1);
    QJsonParseError error;
    const QJsonObject actual = QJsonDocument::fromJson(outcome.out, &error).object();
    QCOMPARE(error.error, QJsonParseError::NoError);

    const QJsonObject expected = expectedSummary(captureLines(capture));
    QCOMPARE(actual.keys(), expected.keys());
    for (const QString &key : expected.keys()) {
        if (key == QLatin1String("cost_usd")) // printed from a double: compare as one
            QVERIFY2(
                qFuzzyCompare(1 + actual.value(key).toDouble(), 1 + expected.value(key).toDouble()),
                qPrintable(key));
        else
            QVERIFY2(actual.value(key) == expected.value(key),
                qPrintable(key + QStringLiteral(": ")
                    + QString::fromUtf8(QJsonDocument(QJsonObject {{key, actual.value(key)}})
                                            .toJson(QJsonDocument::Compact))));
    }
    QCOMPARE(outcome.exitCode, expected.value(QLatin1String("is_error")).toBool() ? 1 : 0);
}

void TestReplayVerb::recordingGivesTheSameSummary()
{
    for (const QString &capture :
        {QStringLiteral("stream-subagent.jsonl"), QStringLiteral("stream-sigterm.jsonl")}) {
        const QString path = m_dir.filePath(capture + QStringLiteral(".rec"));
        RunRecorder recorder;
        QVERIFY(recorder.open(path));
        qint64 clock = 1000;
        for (const QByteArray &line : captureLines(capture))
            QVERIFY(recorder.record(line, clock += 5) > 0);
        recorder.close();
        const Outcome fromRecording
            = runSandscope({QStringLiteral("replay"), path, QStringLiteral("--json")});
        const Outcome fromCapture = runSandscope(
            {QStringLiteral("replay"), capturePath(capture), QStringLiteral("--json")});
        QCOMPARE(fromRecording.exitCode, fromCapture.exitCode);
        // The same figures, but on the recording's own clock: its arrival times, 5 ms apart.
        QJsonObject recorded = QJsonDocument::fromJson(fromRecording.out).object();
        QJsonObject expected = expectedSummary(captureLines(capture));
        QCOMPARE(recorded.value(QLatin1String("duration_ms")).toVariant().toLongLong(),
            qint64(5 * (captureLines(capture).size() - 1)));
        recorded.remove(QStringLiteral("duration_ms"));
        expected.remove(QStringLiteral("duration_ms"));
        QCOMPARE(recorded, expected);
    }
}

void TestReplayVerb::humanSummaryAndOutline()
{
    const Outcome summary = runSandscope({QStringLiteral("replay"),
        capturePath(QStringLiteral("stream-sigterm.jsonl")), QStringLiteral("--summary")});
    QCOMPARE(summary.exitCode, 1);
    const QString text = QString::fromUtf8(summary.out);
    QVERIFY2(text.contains(QStringLiteral("Outcome:")), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("interrupted: the last turn did not finish")));
    QVERIFY2(text.contains(
                 QRegularExpression(QStringLiteral("Tool calls: +1 \\(1 failed, 0 unanswered\\)"))),
        qPrintable(text));
    QVERIFY(!text.contains(QStringLiteral("Bash:"))); // --summary: no outline

    const Outcome outline = runSandscope(
        {QStringLiteral("replay"), capturePath(QStringLiteral("stream-subagent.jsonl"))});
    QCOMPARE(outline.exitCode, 0);
    const QStringList lines = QString::fromUtf8(outline.out).split(QLatin1Char('\n'));
    // The sub-agent's Bash call is indented one level deeper than its Agent call.
    int agentIndent = -1;
    int bashIndent = -1;
    for (const QString &line : lines) {
        const int indent = int(line.size() - line.trimmed().size());
        if (line.trimmed().startsWith(QLatin1String("Agent:")))
            agentIndent = indent;
        if (line.trimmed().startsWith(QLatin1String("Bash: echo sub")))
            bashIndent = indent;
    }
    QVERIFY2(agentIndent >= 0 && bashIndent == agentIndent + 2, outline.out.constData());
    QVERIFY2(QString::fromUtf8(outline.out)
                 .contains(QRegularExpression(QStringLiteral("Outcome: +succeeded\\n"))),
        outline.out.constData());
}

void TestReplayVerb::usageAndFileErrors()
{
    const Outcome noFile = runSandscope({QStringLiteral("replay")});
    QCOMPARE(noFile.exitCode, 2);
    QVERIFY(noFile.err.contains("replay needs a FILE"));

    const Outcome twoFiles
        = runSandscope({QStringLiteral("replay"), QStringLiteral("a"), QStringLiteral("b")});
    QCOMPARE(twoFiles.exitCode, 2);

    const Outcome badOption = runSandscope({QStringLiteral("replay"), QStringLiteral("--nope"),
        capturePath(QStringLiteral("stream-basic.jsonl"))});
    QCOMPARE(badOption.exitCode, 2);

    const QString missing = m_dir.filePath(QStringLiteral("missing.jsonl"));
    const Outcome unreadable
        = runSandscope({QStringLiteral("replay"), missing, QStringLiteral("--json")});
    QCOMPARE(unreadable.exitCode, 1);
    QVERIFY(unreadable.out.isEmpty());
    QVERIFY(unreadable.err.contains(missing.toUtf8()));

    const Outcome help = runSandscope({QStringLiteral("replay"), QStringLiteral("--help")});
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.startsWith("Usage: sandscope replay FILE"));
    const Outcome topHelp = runSandscope({QStringLiteral("--help")});
    QVERIFY(topHelp.out.contains("  replay "));
}

// The transcript of the sub-agent capture: the sub-agent's call counts, the cost is the last
// cost-state record's, and the outline shows the sub-agent's call under the Agent call.
void TestReplayVerb::transcriptReplaysWithItsSubagents()
{
    const QString transcript = capturePath(
        QStringLiteral("transcript-subagent/4babb74a-6fa5-4352-a0d3-723caf885db8.jsonl"));
    double lastCost = -1;
    for (const QByteArray &line : captureLines(
             QStringLiteral("transcript-subagent/4babb74a-6fa5-4352-a0d3-723caf885db8.jsonl"))) {
        const QJsonObject record = QJsonDocument::fromJson(line).object();
        if (record.value(QStringLiteral("type")).toString() == QLatin1String("cost-state"))
            lastCost = record.value(QStringLiteral("totalCostUSD")).toDouble();
    }
    QVERIFY(lastCost > 0);

    const Outcome json = runSandscope({QStringLiteral("replay"), transcript,
        QStringLiteral("--summary"), QStringLiteral("--json")});
    QVERIFY2(json.err.isEmpty(), json.err.constData());
    QCOMPARE(json.exitCode, 0);
    const QJsonObject summary = QJsonDocument::fromJson(json.out).object();
    QCOMPARE(summary.value(QStringLiteral("type")).toString(), QStringLiteral("sandscope_summary"));
    QCOMPARE(summary.value(QStringLiteral("session_id")).toString(),
        QStringLiteral("4babb74a-6fa5-4352-a0d3-723caf885db8"));
    QCOMPARE(summary.value(QStringLiteral("tool_calls")).toInt(), 2); // Agent + its Bash
    QCOMPARE(summary.value(QStringLiteral("unmatched_tool_calls")).toInt(), 0);
    QCOMPARE(summary.value(QStringLiteral("is_error")).toBool(), false);
    QVERIFY(qFuzzyCompare(summary.value(QStringLiteral("cost_usd")).toDouble(), lastCost));

    const Outcome outline = runSandscope({QStringLiteral("replay"), transcript});
    QCOMPARE(outline.exitCode, 0);
    const QList<QByteArray> lines = outline.out.split('\n');
    qsizetype agentIndent = -1;
    bool nestedBash = false;
    for (const QByteArray &line : lines) {
        const qsizetype indent = line.size() - line.trimmed().size();
        if (line.trimmed().startsWith("Agent"))
            agentIndent = indent;
        else if (agentIndent >= 0 && line.trimmed().startsWith("Bash"))
            nestedBash = nestedBash || indent > agentIndent;
    }
    QVERIFY2(nestedBash, outline.out.constData());
    QVERIFY2(QString::fromUtf8(outline.out)
                 .contains(QRegularExpression(QStringLiteral("Outcome: +succeeded\\n"))),
        outline.out.constData());
}

// `replay --json` and `--summary` take the summary fast path (RecordingReader::summarize); the
// outline form builds events and the tree. Both must print the same summary.
void TestReplayVerb::summaryFastPathMatchesTheOutlinePath()
{
    const QDir data(QStringLiteral(SANDSCOPE_TEST_DATA_DIR));
    QStringList files;
    for (const QString &name : data.entryList({QStringLiteral("stream-*.jsonl")}, QDir::Files))
        files.append(data.filePath(name));
    files.append(capturePath(
        QStringLiteral("transcript-subagent/4babb74a-6fa5-4352-a0d3-723caf885db8.jsonl")));
    files.append(capturePath(QStringLiteral("transcript-basic.jsonl")));
    for (const QString &file : std::as_const(files)) {
        const Outcome fast
            = runSandscope({QStringLiteral("replay"), file, QStringLiteral("--json")});
        // The outline form prints the tree, a blank line, then the human summary; its JSON is
        // not printed, so compare the human summaries of both forms instead.
        const Outcome human
            = runSandscope({QStringLiteral("replay"), file, QStringLiteral("--summary")});
        const Outcome outline = runSandscope({QStringLiteral("replay"), file});
        QVERIFY2(outline.out.endsWith(human.out), qPrintable(file));
        QCOMPARE(fast.exitCode, outline.exitCode);
        QCOMPARE(fast.err, outline.err);
        QVERIFY(!fast.out.isEmpty());
    }
}

void TestReplayVerb::aPipeReplaysLikeItsFile_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("options");
    const QString recording = m_dir.filePath(QStringLiteral("piped.rec"));
    {
        RunRecorder recorder;
        QVERIFY(recorder.open(recording));
        qint64 clock = 1000;
        for (const QByteArray &line : captureLines(QStringLiteral("stream-subagent.jsonl")))
            QVERIFY(recorder.record(line, clock += 5) > 0);
    }
    const QStringList summary {QStringLiteral("--summary"), QStringLiteral("--json")};
    const QStringList outline {QStringLiteral("--json")};
    const QString capture = capturePath(QStringLiteral("stream-subagent.jsonl"));
    QTest::newRow("capture-summary") << capture << summary;
    QTest::newRow("capture-outline") << capture << outline;
    QTest::newRow("recording-summary") << recording << summary;
    QTest::newRow("recording-outline") << recording << outline;
}

// The pipe is made before the reader starts and written once it waits: the checks done before
// reading (an export or not) must neither wait for the writer nor take the first bytes.
void TestReplayVerb::aPipeReplaysLikeItsFile()
{
    QFETCH(QString, file);
    QFETCH(QStringList, options);
    QFile source(file);
    QVERIFY(source.open(QIODevice::ReadOnly));
    const QByteArray bytes = source.readAll();
    const Outcome fromFile = runSandscope(QStringList {QStringLiteral("replay"), file} + options);
    QVERIFY2(!fromFile.out.isEmpty(), fromFile.err.constData());

    const QString fifo
        = m_dir.filePath(QString::fromLatin1(QTest::currentDataTag()) + QStringLiteral(".pipe"));
    QVERIFY(test::makeNamedPipe(fifo));
    std::signal(SIGPIPE, SIG_IGN); // a reader that let go of the pipe fails the write, not us
    QProcess process;
    process.start(
        QStringLiteral(SANDSCOPE_BINARY), QStringList {QStringLiteral("replay"), fifo} + options);
    QVERIFY(process.waitForStarted());
    QVERIFY(test::writeAllAndClose(fifo, bytes));
    QVERIFY(process.waitForFinished(30000));
    QCOMPARE(process.readAllStandardError(), fromFile.err);
    QCOMPARE(process.readAllStandardOutput(), fromFile.out);
    QCOMPARE(process.exitCode(), fromFile.exitCode);
}

QTEST_GUILESS_MAIN(TestReplayVerb)
#include "tst_replayverb.moc"
