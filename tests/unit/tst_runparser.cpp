// RunParser and RunSummary: every line of the real CLI captures turns into the events its
// JSON (read independently with QJsonDocument) calls for; noise, corrupt, non-object, invalid
// UTF-8 and huge lines never break parsing; byte chunks split anywhere give the same events
// as whole lines; the summary of a file matches what the capture says.

#include "recordings/runrecording.h"
#include "streamjson/runparser.h"
#include "streamjson/runsummary.h"
#include "streamjson/summaryscanner.h"
#include "testing.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest/QTest>

using sandscope::RunEvent;
using sandscope::RunEventBatch;
using sandscope::RunParser;
using sandscope::RunSummary;

namespace {

QString dataPath(const QString &name)
{
    return QStringLiteral(SANDSCOPE_TEST_DATA_DIR) + QLatin1Char('/') + name;
}

QList<QByteArray> captureLines(const QString &name)
{
    QFile file(dataPath(name));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QList<QByteArray> lines = file.readAll().split('\n');
    if (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    return lines;
}

// The summary of a file through the event path (RecordingReader::readLine/eventsOf, RunParser,
// RunSummaryBuilder::add): what the fast path must equal.
struct ReferenceSummary {
    RunSummary summary;
    RunSummary whileRunning; // as a run not yet ended would show it (background tasks count)
    QStringList problems;
};

ReferenceSummary eventPathSummary(const QString &path)
{
    ReferenceSummary out;
    sandscope::RecordingReader reader;
    if (!reader.open(path))
        return out;
    RunParser parser;
    sandscope::RunSummaryBuilder builder;
    sandscope::RecordedLine line;
    qint64 lines = 0;
    while (reader.readLine(&line)) {
        if (!line.line.trimmed().isEmpty())
            ++lines;
        builder.add(reader.eventsOf(parser, line));
    }
    builder.add(reader.finishReading());
    out.summary = builder.summary();
    out.summary.lines = lines;
    out.whileRunning = builder.summary(false);
    out.whileRunning.lines = lines;
    out.problems = reader.problems();
    return out;
}

QString summaryText(const RunSummary &s)
{
    return QStringLiteral("session=%1 subtype=%2 hasResult=%3 results=%4 isError=%5 calls=%6 "
                          "errors=%7 unmatched=%8 cost=%9 in=%10 out=%11 duration=%12 trips=%13 "
                          "transcript=%14 open=%15 failed=%16 lines=%17 turns=%18 claude=%19 "
                          "cacheRead=%20 cacheWritten=%21 lastOpen=%22 apiErrors=%23")
        .arg(s.sessionId, s.resultSubtype)
        .arg(s.hasResult)
        .arg(s.resultCount)
        .arg(s.isError)
        .arg(s.toolCalls)
        .arg(s.toolErrors)
        .arg(s.unmatchedToolCalls)
        .arg(s.costUsd, 0, 'g', 17)
        .arg(s.inputTokens)
        .arg(s.outputTokens)
        .arg(s.durationMs)
        .arg(s.roundTrips)
        .arg(s.isTranscript)
        .arg(s.turnOpen)
        .arg(s.turnFailed)
        .arg(s.lines)
        .arg(s.turns)
        .arg(s.claudeDurationMs)
        .arg(s.cacheReadTokens)
        .arg(s.cacheCreationTokens)
        .arg(s.lastTurnOpen)
        .arg(s.apiErrors);
}

QStringList runFiles()
{
    return sandscope::test::runFilesInTestData();
}

// Lines the scanner must read exactly as RunParser does.
const char *const trickyLines[] = {
    R"({"type":"system","subtype":"init","session_id":null})",
    "   ",
    "\x1b[?25h{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s-1\"}\r",
    R"({"type":"assistant","message":{"id":"m1","model":"x","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}},{"type":"text","text":"hi"},5,{"type":"server_tool_use","id":"t2"},{"type":"mcp_tool_use","id":""}],"usage":{"input_tokens":10,"output_tokens":2}}})",
    R"({"type":"assistant","message":{"id":"m1","content":[],"usage":{"input_tokens":7,"output_tokens":9.5e0}}})",
    R"({"type":"assistant","message":{"id":"m2","model":"<synthetic>","content":[{"type":"text","text":"API Error"}],"usage":{"input_tokens":99}}})",
    R"({"type":"assistant","is_api_error_message":true,"message":{"id":"m3","content":"x"}})",
    R"({"type":"assistant","message":{"id":"m4","content":[{"type":"tool_use","id":"t3"}]},"parent_tool_use_id":"t1"})",
    R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","is_error":true},{"type":"tool_result","tool_use_id":"t2","is_error":"yes"},{"type":"tool_result"},{"type":"text","text":"x"}]}})",
    R"({"type":"user","message":{"content":"plain"}})",
    R"({"type":"user","message":{"content":{"type":"tool_result","tool_use_id":"t3"}}})",
    R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t3"}]},"parent_tool_use_id":"t1"})",
    R"({"type":"stream_event","event":{"type":"message_start","message":{"id":"m5","usage":{"input_tokens":3,"output_tokens":1}}}})",
    R"({"type":"stream_event","event":{"type":"message_delta","usage":{"output_tokens":40}}})",
    R"({"type":"stream_event","api_message_id":"m6","event":{"type":"message_delta","usage":{"output_tokens":4}}})",
    R"({"type":"stream_event","parent_tool_use_id":"t1","event":{"type":"message_delta","usage":{"output_tokens":4}},"message":{"id":"m7"}})",
    R"({"type":"assistant","message":{"id":"m8","content":[{"type":"tool_use","id":"t1"}],"usage":{"input_tokens":1}}} trailing)",
    R"({"type":"assistant","message":{"id":"m9","content":[{"type":"tool_use","id":"t9")",
    R"([{"type":"assistant"}])",
    "stderr: something",
    "{\"type\":\"assistant\",\"message\":{\"id\":\"m\xff\",\"content\":[]}}",
    R"({"type":"result","subtype":"error_max_turns","is_error":true,"total_cost_usd":1.5,"duration_ms":12.0,"num_turns":1e30,"usage":{"input_tokens":5,"output_tokens":6}})",
    R"({"type":"result","subtype":"success","is_error":false,"total_cost_usd":"free","duration_ms":-3,"model_usage_since_last_result":{"a":{"inputTokens":1,"outputTokens":2},"b":3}})",
    R"({"type":"rate_limit_event","session_id":"s-2"})",
    R"({"type":7,"session_id":"s-3"})",
    // Members read in one pass (RunSummaryScanner): the first of a name counts, as at_key's;
    // names written with escapes are the same names; members of the wrong type count as missing.
    R"({"type":"assistant","type":"result","message":{"id":"m10","id":"m11","content":[{"type":"tool_use","id":"t10"}],"content":[],"usage":{"input_tokens":3,"input_tokens":900}},"message":{"id":"m12"}})",
    R"({"type":"assistant","parent_tool_use_id":"t10","parent_tool_use_id":"t1","message":{"id":"m13","model":5,"model":"<synthetic>","content":[{"type":"tool_use","id":"t11"}]}})",
    R"({"type":"assistant","is_api_error_message":false,"is_api_error_message":true,"isApiErrorMessage":"yes","message":{"id":"m14","content":[{"type":"text","text":"x"}]}})",
    R"({"type":"result","subtype":"success","subtype":"error","is_error":"true","is_error":true,"total_cost_usd":null,"total_cost_usd":2,"duration_ms":"5","num_turns":[2],"usage":[1],"usage":{"input_tokens":4},"model_usage_since_last_result":[],"model_usage_since_last_result":{"a":{"inputTokens":8}}})",
    R"({"type":"result","subtype":9,"is_error":true,"total_cost_usd":-1,"duration_ms":1e300,"num_turns":-4,"usage":{"input_tokens":-1}})",
    R"({"type":"stream_event","event":"x","event":{"type":"message_start","message":{"id":"m15","usage":{"output_tokens":2}}}})",
    R"({"type":"stream_event","api_message_id":7,"api_message_id":"m16","event":{"type":"message_delta","usage":{"output_tokens":5}}})",
    R"({"type":"system","subtype":"task_started","tool_use_id":"t10","task_id":"k1","sessionId_":"not a transcript"})",
    R"({"type":"system","subtype":"task_updated","task_id":"k1","patch":{"status":"completed"},"timestamp":"2026-02-29T10:00:00.000Z"})",
    R"({"type":"system","subtype":"init","session_id":7,"session_id":"s-4","timestamp":"2028-02-29T10:00:00.000Z"})",
    "{\"type\":\"assistant\",\"message\":{\"id\":\"m\u0000\",\"content\":[{\"type\":\"tool_use\","
    "\"id\":\"t\u0000x\"}]}}",
    "{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":"
    "\"t\u0000x\",\"is_error\":true}]}}",
    // Numbers at the edges of int64 and double, -0, 01, 1., exponents, broken grammar deep
    // inside a line, two objects or garbage after one, leading blanks, a string cut across two
    // lines, invalid UTF-8, empty and non-object lines.
    R"({"type":"result","subtype":"success","num_turns":-0,"duration_ms":-7,"total_cost_usd":0.30000000000000004})",
    R"({"type":"result","subtype":"success","num_turns":2.0,"duration_ms":1.5,"total_cost_usd":3,"usage":{"input_tokens":123456789012345678,"output_tokens":1234567890123456789}})",
    R"({"type":"result","subtype":"success","num_turns":01})",
    R"({"type":"result","subtype":"success","num_turns":1.,"usage":{"input_tokens":-1.5}})",
    R"({"type":"result","subtype":"success","total_cost_usd":1e-3,"num_turns":-3,"usage":{"input_tokens":0.5}})",
    R"({"type":"assistant","message":{"id":"m20","content":[{"type":"tool_use","id":"t20"}],"usage":{"input_tokens":1,}}})",
    R"({"type":"assistant","message":{"id":"m21","content":[{"type":"tool_use","id":"t21"}]}} {"type":"user"})",
    R"(  {"type":"system","subtype":"init","session_id":"s-9","timestamp":"2026-01-01T00:00:00.000Z"})",
    "{\"type\":\"system\",\"subtype\":\"init\",\"timestamp\":\"2026-01-02T00:00:00.000Z\"}\v",
    R"({"type":"assistant","message":{"id":"m22","content":[{"type":"tool_use","id":"t22"}]},"x":[1,2,[3,{"a":tru}]]})",
    R"({"type":"assistant","message":{"id":"m23","content":[{"type":"tool_use","id":"t23"}]},"x":[1 2]})",
    R"({"type":"assistant","message":{"id":"m24","content":[{"type":"tool_use","id":"t24"}]},"x":{"a" 1}})",
    R"({"type":"assistant","message":{"id":"m25","content":[{"type":"tool_use","id":"t25"}]},"x":[}})",
    R"({"type":"assistant","message":{"id":"m26","content":[{"type":"tool_use","id":"t26"}],"usage":{"input_tokens":7}},"n":null,"t":true,"f":false,"e":{},"a":[],"s":"é ü"})",
    R"({"type":"assistant","message":{"id":"m27","content":[{"type":"tool_use","id":"t27"}]}}x)",
    R"({"type":"assistant","message":{"id":"m28","content":[{"type":"tool_use","id":"t28"}]},"x":"open)",
    R"(close"})",
    "{\"type\":\"assistant\",\"message\":{\"id\":\"m29\",\"content\":[{\"type\":\"tool_use\","
    "\"id\":\"t29\"}]},\"x\":\"\xc3\"}",
    R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t26","is_error":true}]},"x":[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]})",
    R"({})",
    R"([])",
    R"(12)",
};

// Nested arrays `depth` deep in an assistant line with one tool call (the DOM's limit is
// 1024).
QByteArray deepLine(int depth, const QByteArray &id)
{
    return "{\"type\":\"assistant\",\"message\":{\"id\":\"" + id
        + "\",\"content\":[{\"type\":\"tool_use\",\"id\":\"" + id
        + "\"}]},\"x\":" + QByteArray(depth, '[') + QByteArray(depth, ']') + "}";
}

QStringList streamCaptures()
{
    return QDir(QStringLiteral(SANDSCOPE_TEST_DATA_DIR))
        .entryList({QStringLiteral("stream-*.jsonl")}, QDir::Files, QDir::Name);
}

QJsonObject objectOf(const QByteArray &line)
{
    return QJsonDocument::fromJson(line).object();
}

QJsonArray contentBlocks(const QJsonObject &line)
{
    return line.value(QLatin1String("message"))
        .toObject()
        .value(QLatin1String("content"))
        .toArray();
}

int countKind(const RunEventBatch &events, RunEvent::Kind kind)
{
    return int(std::count_if(events.cbegin(), events.cend(),
        [kind](const RunEvent &event) { return event.kind == kind; }));
}

QString kindsOf(const RunEventBatch &events)
{
    QStringList kinds;
    for (const RunEvent &event : events)
        kinds.append(QString::number(int(event.kind)) + QLatin1Char(':') + event.toolUseId);
    return kinds.join(QLatin1Char(' '));
}

} // namespace

class TestRunParser : public QObject {
    Q_OBJECT

private slots:
    void captureLinesBecomeTheEventsTheirJsonDescribes_data()
    {
        QTest::addColumn<QString>("capture");
        const QStringList captures = streamCaptures();
        QVERIFY(captures.size() >= 9);
        for (const QString &name : captures)
            QTest::newRow(qPrintable(name)) << name;
    }

    void captureLinesBecomeTheEventsTheirJsonDescribes()
    {
        QFETCH(QString, capture);
        const QList<QByteArray> lines = captureLines(capture);
        QVERIFY(!lines.isEmpty());
        RunParser parser;
        qint64 arrival = 1000;
        for (const QByteArray &line : lines) {
            arrival += 7;
            const RunEventBatch events = parser.parseLine(line, arrival);
            const QJsonObject json = objectOf(line);
            QVERIFY2(!json.isEmpty(), line.left(80).constData());
            QVERIFY(!events.isEmpty());
            for (const RunEvent &event : events) {
                QCOMPARE(event.arrivalMs, arrival);
                QCOMPARE(event.lineNumber, parser.linesParsed());
                QCOMPARE(event.raw, line);
                QCOMPARE(event.sessionId, json.value(QLatin1String("session_id")).toString());
                QCOMPARE(event.parentToolUseId,
                    json.value(QLatin1String("parent_tool_use_id")).toString());
                QVERIFY2(event.kind != RunEvent::Unknown && event.kind != RunEvent::NotJson,
                    line.left(120).constData());
            }

            const QString type = json.value(QLatin1String("type")).toString();
            const QString subtype = json.value(QLatin1String("subtype")).toString();
            if (type == QLatin1String("assistant")) {
                const QJsonArray blocks = contentBlocks(json);
                if (json.value(QLatin1String("is_api_error_message")).toBool()) {
                    QCOMPARE(countKind(events, RunEvent::ApiError), 1);
                    QCOMPARE(events.first().errorStatus,
                        json.value(QLatin1String("api_error_status")).toInt());
                    QCOMPARE(
                        events.first().errorCode, json.value(QLatin1String("error")).toString());
                    QCOMPARE(events.first().text,
                        blocks.first().toObject().value(QLatin1String("text")).toString());
                    continue;
                }
                int texts = 0;
                int thinking = 0;
                QStringList toolIds;
                for (const QJsonValue &value : blocks) {
                    const QJsonObject block = value.toObject();
                    const QString blockType = block.value(QLatin1String("type")).toString();
                    texts += blockType == QLatin1String("text") ? 1 : 0;
                    thinking += blockType == QLatin1String("thinking") ? 1 : 0;
                    if (blockType == QLatin1String("tool_use"))
                        toolIds.append(block.value(QLatin1String("id")).toString());
                }
                QCOMPARE(countKind(events, RunEvent::AssistantText), texts);
                QCOMPARE(countKind(events, RunEvent::Thinking), thinking);
                QStringList parsedToolIds;
                for (const RunEvent &event : events) {
                    if (event.kind == RunEvent::ToolUse)
                        parsedToolIds.append(event.toolUseId);
                    QCOMPARE(event.messageId,
                        json.value(QLatin1String("message"))
                            .toObject()
                            .value(QLatin1String("id"))
                            .toString());
                }
                QCOMPARE(parsedToolIds, toolIds);
                QCOMPARE(countKind(events, RunEvent::MessageUsage), 1);
            } else if (type == QLatin1String("user")) {
                QStringList resultIds;
                QList<bool> resultErrors;
                for (const QJsonValue &value : contentBlocks(json)) {
                    const QJsonObject block = value.toObject();
                    if (block.value(QLatin1String("type")).toString()
                        == QLatin1String("tool_result")) {
                        resultIds.append(block.value(QLatin1String("tool_use_id")).toString());
                        resultErrors.append(block.value(QLatin1String("is_error")).toBool());
                    }
                }
                QStringList parsedIds;
                QList<bool> parsedErrors;
                for (const RunEvent &event : events) {
                    if (event.kind == RunEvent::ToolResult) {
                        parsedIds.append(event.toolUseId);
                        parsedErrors.append(event.isError);
                    }
                }
                QCOMPARE(parsedIds, resultIds);
                QCOMPARE(parsedErrors, resultErrors);
            } else if (type == QLatin1String("result")) {
                QCOMPARE(events.size(), 1);
                const sandscope::ResultInfo &result = events.first().result;
                QCOMPARE(events.first().kind, RunEvent::Result);
                QCOMPARE(result.subtype, subtype);
                QCOMPARE(result.isError, json.value(QLatin1String("is_error")).toBool());
                QCOMPARE(
                    result.totalCostUsd, json.value(QLatin1String("total_cost_usd")).toDouble());
                QCOMPARE(
                    result.durationMs, qint64(json.value(QLatin1String("duration_ms")).toDouble()));
                QCOMPARE(result.numTurns, json.value(QLatin1String("num_turns")).toInt());
                QCOMPARE(result.resultText, json.value(QLatin1String("result")).toString());
                QCOMPARE(result.usage.inputTokens,
                    qint64(json.value(QLatin1String("usage"))
                               .toObject()
                               .value(QLatin1String("input_tokens"))
                               .toDouble()));
                QCOMPARE(
                    result.errors.size(), json.value(QLatin1String("errors")).toArray().size());
            } else if (type == QLatin1String("system") && subtype == QLatin1String("init")) {
                QCOMPARE(events.first().kind, RunEvent::SessionInit);
                QCOMPARE(events.first().model, json.value(QLatin1String("model")).toString());
            } else if (type == QLatin1String("system") && subtype == QLatin1String("api_retry")) {
                QCOMPARE(events.first().kind, RunEvent::ApiRetry);
                QCOMPARE(events.first().attempt, json.value(QLatin1String("attempt")).toInt());
                QCOMPARE(
                    events.first().maxRetries, json.value(QLatin1String("max_retries")).toInt());
                QCOMPARE(
                    events.first().errorStatus, json.value(QLatin1String("error_status")).toInt());
            } else if (type == QLatin1String("system")
                && subtype.startsWith(QLatin1String("task_"))) {
                QCOMPARE(events.first().kind, RunEvent::Task);
                QCOMPARE(
                    events.first().task.taskId, json.value(QLatin1String("task_id")).toString());
                QCOMPARE(
                    events.first().toolUseId, json.value(QLatin1String("tool_use_id")).toString());
            }
        }
    }

    void toolInputDetailsAreExtracted()
    {
        RunParser parser;
        for (const QString &capture : streamCaptures()) {
            for (const QByteArray &line : captureLines(capture)) {
                const RunEventBatch events = parser.parseLine(line, 0);
                for (const QJsonValue &value : contentBlocks(objectOf(line))) {
                    const QJsonObject block = value.toObject();
                    if (block.value(QLatin1String("type")).toString() != QLatin1String("tool_use"))
                        continue;
                    const QJsonObject input = block.value(QLatin1String("input")).toObject();
                    const auto found
                        = std::find_if(events.cbegin(), events.cend(), [&](const RunEvent &event) {
                              return event.toolUseId == block.value(QLatin1String("id")).toString();
                          });
                    QVERIFY(found != events.cend());
                    QCOMPARE(found->toolName, block.value(QLatin1String("name")).toString());
                    QCOMPARE(
                        found->input.command, input.value(QLatin1String("command")).toString());
                    QCOMPARE(found->input.prompt, input.value(QLatin1String("prompt")).toString());
                    QCOMPARE(found->input.subagentType,
                        input.value(QLatin1String("subagent_type")).toString());
                    QCOMPARE(QJsonDocument::fromJson(found->inputJson).object(), input);
                }
            }
        }
    }

    void editWriteAndTodoInputsAreExtracted()
    {
        const QByteArray line = R"({"type":"assistant","message":{"id":"m1","content":[
            {"type":"tool_use","id":"t_edit","name":"Edit","input":{"file_path":"/w/a.txt","old_string":"x","new_string":"y","replace_all":true}},
            {"type":"tool_use","id":"t_write","name":"Write","input":{"file_path":"/w/b.txt","content":"hello\n"}},
            {"type":"tool_use","id":"t_todo","name":"TodoWrite","input":{"todos":[{"content":"one","status":"pending","activeForm":"Doing one"},{"content":"two","status":"completed","activeForm":"Doing two"}]}}
            ]},"parent_tool_use_id":null})";
        RunParser parser;
        const RunEventBatch events = parser.parseLine(QByteArray(line).replace('\n', ' '), 0);
        QCOMPARE(countKind(events, RunEvent::ToolUse), 3);
        QCOMPARE(events[0].input.filePath, QStringLiteral("/w/a.txt"));
        QCOMPARE(events[0].input.oldString, QStringLiteral("x"));
        QCOMPARE(events[0].input.newString, QStringLiteral("y"));
        QVERIFY(events[0].input.replaceAll);
        QCOMPARE(events[1].input.content, QStringLiteral("hello\n"));
        QCOMPARE(events[2].input.todos.size(), 2);
        QCOMPARE(events[2].input.todos[1].status, QStringLiteral("completed"));
        QCOMPARE(events[2].input.todos[0].activeForm, QStringLiteral("Doing one"));
    }

    void partialMessagesReportTheFinalOutputTokens()
    {
        // message_delta carries the response's final output count; the per-block assistant
        // lines only the provisional one.
        RunParser parser;
        QHash<QString, qint64> deltaOutput;
        for (const QByteArray &line : captureLines(QStringLiteral("stream-partial.jsonl"))) {
            const QJsonObject json = objectOf(line);
            const QJsonObject event = json.value(QLatin1String("event")).toObject();
            const RunEventBatch events = parser.parseLine(line, 0);
            if (event.value(QLatin1String("type")).toString() == QLatin1String("message_delta")) {
                QCOMPARE(events.size(), 1);
                QCOMPARE(events.first().kind, RunEvent::MessageUsage);
                QCOMPARE(events.first().messageId,
                    json.value(QLatin1String("api_message_id")).toString());
                QCOMPARE(events.first().usage.outputTokens,
                    qint64(event.value(QLatin1String("usage"))
                               .toObject()
                               .value(QLatin1String("output_tokens"))
                               .toDouble()));
                deltaOutput.insert(events.first().messageId, events.first().usage.outputTokens);
            } else if (json.value(QLatin1String("type")).toString()
                == QLatin1String("stream_event")) {
                QVERIFY(events.first().kind == RunEvent::Transient
                    || events.first().kind == RunEvent::MessageUsage);
            }
        }
        QCOMPARE(deltaOutput.size(), 2);
    }

    void junkNeverBreaksParsing_data()
    {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<int>("expectedKind"); // -1: no event at all
        QTest::addColumn<bool>("corrupt");

        const QByteArray init = captureLines(QStringLiteral("stream-basic.jsonl")).value(0);
        QVERIFY(!init.isEmpty());
        QTest::newRow("empty") << QByteArray() << -1 << false;
        QTest::newRow("blank") << QByteArray(" \t\r\n") << -1 << false;
        QTest::newRow("stderr warning")
            << QByteArray("Warning: something odd happened") << int(RunEvent::NotJson) << false;
        QTest::newRow("cursor show sequence")
            << QByteArray("\x1b[?25h") << int(RunEvent::NotJson) << false;
        QTest::newRow("cursor sequence glued to a line")
            << QByteArray("\x1b[?25h") + init << int(RunEvent::SessionInit) << false;
        QTest::newRow("crlf line") << init + "\r\n" << int(RunEvent::SessionInit) << false;
        QTest::newRow("truncated JSON")
            << init.left(init.size() / 2) << int(RunEvent::NotJson) << true;
        QTest::newRow("invalid UTF-8 in a string")
            << QByteArray("{\"type\":\"assistant\",\"x\":\"\xff\xfe\"}") << int(RunEvent::NotJson)
            << true;
        QTest::newRow("array") << QByteArray("[1,2,3]") << int(RunEvent::NotJson) << false;
        QTest::newRow("number") << QByteArray("42") << int(RunEvent::NotJson) << false;
        QTest::newRow("string") << QByteArray("\"result\"") << int(RunEvent::NotJson) << false;
        QTest::newRow("object without type")
            << QByteArray("{\"a\":1}") << int(RunEvent::Unknown) << false;
        QTest::newRow("unknown type") << QByteArray(R"({"type":"hologram","session_id":"s"})")
                                      << int(RunEvent::Unknown) << false;
        QTest::newRow("type of the wrong JSON type")
            << QByteArray(R"({"type":7})") << int(RunEvent::Unknown) << false;
        QTest::newRow("unknown system subtype")
            << QByteArray(R"({"type":"system","subtype":"brand_new","content":"hi"})")
            << int(RunEvent::SystemNotice) << false;
        QTest::newRow("assistant without message")
            << QByteArray(R"({"type":"assistant","message":5})") << int(RunEvent::Unknown) << false;
        QTest::newRow("assistant with string content and bad usage") << QByteArray(
            R"({"type":"assistant","message":{"id":"m","content":"x","usage":{"input_tokens":"many","output_tokens":1e300}}})")
                                                                     << int(RunEvent::MessageUsage)
                                                                     << false;
        QTest::newRow("user with numeric content")
            << QByteArray(R"({"type":"user","message":{"content":12}})") << int(RunEvent::Unknown)
            << false;
        QTest::newRow("tool_result with odd content") << QByteArray(
            R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[1,{"type":"image"}],"is_error":"yes"}]},"tool_use_result":[]})")
                                                      << int(RunEvent::ToolResult) << false;
        QTest::newRow("result with nulls") << QByteArray(
            R"({"type":"result","subtype":null,"total_cost_usd":null,"usage":null,"errors":[1,"x"],"num_turns":-99999999999999})")
                                           << int(RunEvent::Result) << false;
        QTest::newRow("stream_event without event")
            << QByteArray(R"({"type":"stream_event"})") << int(RunEvent::Transient) << false;
        QTest::newRow("keep_alive")
            << QByteArray(R"({"type":"keep_alive"})") << int(RunEvent::Transient) << false;
    }

    void junkNeverBreaksParsing()
    {
        QFETCH(QByteArray, line);
        QFETCH(int, expectedKind);
        QFETCH(bool, corrupt);
        RunParser parser;
        QSignalSpy spy(&parser, &RunParser::eventsReady);
        parser.feedLine(line, 5);
        if (expectedKind < 0) {
            QCOMPARE(spy.count(), 0);
            return;
        }
        QCOMPARE(spy.count(), 1);
        const RunEventBatch events = spy.first().first().value<RunEventBatch>();
        QVERIFY(!events.isEmpty());
        QCOMPARE(int(events.last().kind), expectedKind);
        if (expectedKind == RunEvent::NotJson) {
            QCOMPARE(events.first().corrupt, corrupt);
            QVERIFY(!events.first().text.isEmpty()); // the reason
            QCOMPARE(events.first().raw, line);
        }
    }

    void hugeLinesAreParsedWhole()
    {
        const QString text(20 * 1024 * 1024, QLatin1Char('a'));
        const QByteArray line = "{\"type\":\"assistant\",\"message\":{\"id\":\"m\",\"content\":[{"
                                "\"type\":\"text\",\"text\":\""
            + text.toLatin1() + "\"}]}}";
        RunParser parser;
        const RunEventBatch events = parser.parseLine(line, 0);
        QCOMPARE(countKind(events, RunEvent::AssistantText), 1);
        QCOMPARE(events.first().text.size(), text.size());

        // A line cut off in the middle (lost output) is reported as corrupt, not dropped.
        const RunEventBatch cut = parser.parseLine(line.left(line.size() - 10), 0);
        QCOMPARE(cut.size(), 1);
        QCOMPARE(cut.first().kind, RunEvent::NotJson);
        QVERIFY(cut.first().corrupt);
    }

    void chunksSplitAnywhereGiveTheSameEventsAsLines_data()
    {
        QTest::addColumn<QString>("capture");
        for (const QString &name : streamCaptures())
            QTest::newRow(qPrintable(name)) << name;
    }

    void chunksSplitAnywhereGiveTheSameEventsAsLines()
    {
        QFETCH(QString, capture);
        const QList<QByteArray> lines = captureLines(capture);
        RunParser lineParser;
        RunEventBatch expected;
        for (const QByteArray &line : lines)
            expected += lineParser.parseLine(line, 0);

        // Under a PTY: CRLF line ends and a trailing ESC[?25h without a newline.
        QByteArray stream;
        for (const QByteArray &line : lines)
            stream += line + "\r\n";
        stream += "\x1b[?25h";

        for (quint32 seed = 1; seed <= 5; ++seed) {
            QRandomGenerator random(seed);
            RunParser chunkParser;
            QSignalSpy spy(&chunkParser, &RunParser::eventsReady);
            qsizetype position = 0;
            while (position < stream.size()) {
                const qsizetype size = 1 + random.bounded(4096);
                chunkParser.feedBytes(stream.mid(position, size), 0);
                position += size;
            }
            chunkParser.finish(0);
            RunEventBatch got;
            for (const QList<QVariant> &arguments : std::as_const(spy))
                got += arguments.first().value<RunEventBatch>();
            QCOMPARE(got.size(), expected.size() + 1);
            QCOMPARE(got.last().kind, RunEvent::NotJson); // the cursor sequence
            got.removeLast();
            QCOMPARE(kindsOf(got), kindsOf(expected));
            for (qsizetype i = 0; i < got.size(); ++i)
                QCOMPARE(got[i].raw, expected[i].raw);
        }
    }

    void oneBatchPerFeedCall()
    {
        const QList<QByteArray> lines = captureLines(QStringLiteral("stream-basic.jsonl"));
        RunParser parser;
        QSignalSpy spy(&parser, &RunParser::eventsReady);
        parser.feedLines(lines, 9);
        QCOMPARE(spy.count(), 1);
        const RunEventBatch events = spy.first().first().value<RunEventBatch>();
        QCOMPARE(events.first().lineNumber, qint64(1));
        QCOMPARE(events.last().lineNumber, qint64(lines.size()));
        parser.feedLine(QString::fromUtf8(lines.first()), 10);
        QCOMPARE(spy.count(), 2);
        QCOMPARE(spy.last().first().value<RunEventBatch>().first().arrivalMs, qint64(10));
    }

    void summaryOfEachCaptureMatchesItsJson_data()
    {
        QTest::addColumn<QString>("capture");
        for (const QString &name : streamCaptures())
            QTest::newRow(qPrintable(name)) << name;
    }

    void summaryOfEachCaptureMatchesItsJson()
    {
        QFETCH(QString, capture);
        QString sessionId;
        QSet<QString> toolUses;
        QSet<QString> answered;
        QSet<QString> failed;
        QJsonObject lastResult;
        qint64 resultInput = 0;
        qint64 resultOutput = 0;
        QHash<QString, QJsonObject> messageUsage;
        for (const QByteArray &line : captureLines(capture)) {
            const QJsonObject json = objectOf(line);
            if (sessionId.isEmpty())
                sessionId = json.value(QLatin1String("session_id")).toString();
            const QJsonObject message = json.value(QLatin1String("message")).toObject();
            if (json.value(QLatin1String("type")).toString() == QLatin1String("assistant"))
                messageUsage.insert(message.value(QLatin1String("id")).toString(),
                    message.value(QLatin1String("usage")).toObject());
            for (const QJsonValue &value : contentBlocks(json)) {
                const QJsonObject block = value.toObject();
                const QString type = block.value(QLatin1String("type")).toString();
                if (type == QLatin1String("tool_use"))
                    toolUses.insert(block.value(QLatin1String("id")).toString());
                if (type == QLatin1String("tool_result")) {
                    answered.insert(block.value(QLatin1String("tool_use_id")).toString());
                    if (block.value(QLatin1String("is_error")).toBool())
                        failed.insert(block.value(QLatin1String("tool_use_id")).toString());
                }
            }
            if (json.value(QLatin1String("type")).toString() == QLatin1String("result")) {
                lastResult = json;
                const QJsonObject perModel
                    = json.value(QLatin1String("model_usage_since_last_result")).toObject();
                for (const QJsonValue &usage : perModel) {
                    const QJsonObject counts = usage.toObject();
                    resultInput += qint64(counts.value(QLatin1String("inputTokens")).toDouble());
                    resultOutput += qint64(counts.value(QLatin1String("outputTokens")).toDouble());
                }
            }
        }

        RunSummary summary;
        QString error;
        QVERIFY2(
            sandscope::summarizeRunFile(dataPath(capture), &summary, &error), qPrintable(error));
        QCOMPARE(summary.sessionId, sessionId);
        QCOMPARE(summary.toolCalls, qint64(toolUses.size()));
        QCOMPARE(summary.unmatchedToolCalls, qint64((toolUses - answered).size()));
        QCOMPARE(summary.toolErrors, qint64((toolUses & failed).size()));
        QCOMPARE(summary.hasResult, !lastResult.isEmpty());
        if (lastResult.isEmpty()) {
            QVERIFY(summary.isError); // ended without a result: aborted
            qint64 input = 0;
            for (const QJsonObject &usage : std::as_const(messageUsage))
                input += qint64(usage.value(QLatin1String("input_tokens")).toDouble());
            QCOMPARE(summary.inputTokens, input);
        } else {
            QCOMPARE(summary.resultSubtype, lastResult.value(QLatin1String("subtype")).toString());
            QCOMPARE(summary.isError, lastResult.value(QLatin1String("is_error")).toBool());
            QCOMPARE(summary.costUsd, lastResult.value(QLatin1String("total_cost_usd")).toDouble());
            QCOMPARE(summary.roundTrips, lastResult.value(QLatin1String("num_turns")).toInt());
            QCOMPARE(summary.claudeDurationMs,
                qint64(lastResult.value(QLatin1String("duration_ms")).toDouble()));
            QCOMPARE(summary.inputTokens, resultInput);
            QCOMPARE(summary.outputTokens, resultOutput);
        }

        const QJsonObject json = summary.toJson();
        QStringList keys = json.keys();
        keys.sort();
        QCOMPARE(keys,
            QStringList(
                {QStringLiteral("cache_creation_tokens"), QStringLiteral("cache_read_tokens"),
                    QStringLiteral("claude_duration_ms"), QStringLiteral("cost_usd"),
                    QStringLiteral("duration_ms"), QStringLiteral("input_tokens"),
                    QStringLiteral("is_error"), QStringLiteral("output_tokens"),
                    QStringLiteral("result_subtype"), QStringLiteral("round_trips"),
                    QStringLiteral("session_id"), QStringLiteral("tool_calls"),
                    QStringLiteral("tool_errors"), QStringLiteral("turns"), QStringLiteral("type"),
                    QStringLiteral("unmatched_tool_calls")}));
        QCOMPARE(json.value(QLatin1String("type")).toString(), QStringLiteral("sandscope_summary"));
        QCOMPARE(json.value(QLatin1String("result_subtype")).isNull(), lastResult.isEmpty());
        QCOMPARE(json.value(QLatin1String("tool_calls")).toInt(), int(toolUses.size()));
    }

    // The fast path (RecordingReader::summarize through summarizeRunFile) gives the summary
    // of the event path on every run file in tests/data, as recordings too, and when the
    // file is read in blocks that split lines anywhere.
    void fastSummaryEqualsEventPath()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QStringList files = runFiles();
        QVERIFY(files.size() >= 20);
        const int captures = int(files.size());
        for (int i = 0; i < captures; ++i) { // each file as a recording as well
            const QString path = dir.filePath(QStringLiteral("rec-%1.jsonl").arg(i));
            sandscope::RunRecorder recorder;
            QVERIFY(recorder.open(path));
            QFile source(files.at(i));
            QVERIFY(source.open(QIODevice::ReadOnly));
            qint64 t = 1000;
            for (const QByteArray &line : source.readAll().split('\n'))
                recorder.record(line, t += 7);
            recorder.close();
            files.append(path);
        }
        QByteArray tricky;
        for (const char *line : trickyLines)
            tricky += QByteArray(line) + '\n';
        for (const int depth : {510, 511, 512, 513, 1100})
            tricky += deepLine(depth, "d" + QByteArray::number(depth)) + '\n';
        tricky += "{\"type\":\"result\",\"subtype\":\"success\"}"; // no final newline
        QByteArray crlf = tricky;
        crlf.replace("\n", "\r\n");
        // Raw NUL bytes in and between lines, a line of 300 KiB (longer than the blocks the
        // readers read at a time: RecordingReader reads ahead 256 KiB) and one cut short at the
        // end of the file.
        QByteArray raw = tricky + "\n";
        const QByteArray nul(1, char(0));
        raw += "{\"type\":\"assistant\",\"message\":{\"id\":\"m" + nul + "\",\"content\":[]}}\n";
        raw += nul + nul + nul + "\n";
        raw += "{\"type\":\"assistant\",\"message\":{\"id\":\"big\",\"content\":[{\"type\":"
               "\"tool_use\",\"id\":\"tb\"},{\"type\":\"text\",\"text\":\""
            + QByteArray(300 * 1024, 'x') + "\"}],\"usage\":{\"input_tokens\":1}}}\n";
        raw += "{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\","
               "\"tool_use_id\":\"tb\"";
        // Background tasks that end after the last turn did move the run's end: each status
        // is the first patch's, else the first status member, the first of each name counting
        // (a wrong one shows in the duration).
        const QByteArray tasks = QByteArrayLiteral(
            "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\","
            "\"timestamp\":\"2026-03-01T09:00:00.000Z\"}\n"
            "{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"content\":[{\"type\":"
            "\"tool_use\",\"id\":\"t1\"},{\"type\":\"tool_use\",\"id\":\"t2\"}]}}\n"
            "{\"type\":\"system\",\"subtype\":\"task_started\",\"tool_use_id\":\"t1\","
            "\"task_id\":\"k1\"}\n"
            "{\"type\":\"system\",\"subtype\":\"task_started\",\"tool_use_id\":\"t2\","
            "\"task_id\":\"k2\"}\n"
            "{\"type\":\"result\",\"subtype\":\"success\",\"timestamp\":"
            "\"2026-03-01T09:01:00.000Z\"}\n"
            "{\"type\":\"system\",\"subtype\":\"task_updated\",\"task_id\":\"k1\","
            "\"status\":\"running\",\"patch\":{\"status\":\"completed\"},\"patch\":"
            "{\"status\":\"running\"},\"timestamp\":\"2026-03-01T10:00:00.000Z\"}\n"
            "{\"type\":\"system\",\"subtype\":\"task_updated\",\"task_id\":\"k2\","
            "\"status\":\"completed\",\"patch\":{\"status\":\"running\"},"
            "\"timestamp\":\"2026-03-01T10:30:00.000Z\"}\n"
            "{\"type\":\"system\",\"subtype\":\"task_notification\",\"tool_use_id\":5,"
            "\"tool_use_id\":\"t9\",\"task_id\":\"k9\",\"task_id\":\"k1\",\"status\":"
            "\"completed\",\"timestamp\":\"2026-03-01T11:00:00.000Z\"}\n"
            "{\"type\":\"system\",\"subtype\":\"task_notification\",\"task_id\":\"k9\","
            "\"status\":\"completed\",\"timestamp\":\"2026-03-01T12:00:00.000Z\"}\n");
        for (const QByteArray &content : {tricky, crlf, raw, tasks}) {
            const QString path = dir.filePath(QStringLiteral("tricky-%1.jsonl").arg(files.size()));
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(content);
            file.close();
            files.append(path);
        }

        QRandomGenerator random(20261201);
        for (const QString &path : std::as_const(files)) {
            const ReferenceSummary reference = eventPathSummary(path);
            RunSummary fast;
            QString error;
            QStringList problems;
            QVERIFY2(
                sandscope::summarizeRunFile(path, &fast, &error, &problems), qPrintable(error));
            QCOMPARE(summaryText(fast), summaryText(reference.summary));
            QCOMPARE(problems, reference.problems);
            QVERIFY2(fast.lines > 0, qPrintable(path));

            for (int round = 0; round < 4; ++round) {
                sandscope::RecordingReader reader;
                QVERIFY(reader.open(path));
                sandscope::RunSummaryBuilder builder;
                qint64 lines = 0;
                const qint64 block = 1 + random.bounded(round == 0 ? 8 : 700);
                if (!reader.summarize(&builder, &lines, block)) {
                    // transcripts, and recordings of them: the event path
                    QFile file(path);
                    QVERIFY(file.open(QIODevice::ReadOnly));
                    QVERIFY(reader.format() == sandscope::RecordingReader::Format::Transcript
                        || file.readAll().contains("sessionId"));
                    break;
                }
                RunSummary chunked = builder.summary();
                chunked.lines = lines;
                QVERIFY2(summaryText(chunked) == summaryText(reference.summary),
                    qPrintable(QStringLiteral("%1 in blocks of %2").arg(path).arg(block)));
                RunSummary running = builder.summary(false);
                running.lines = lines;
                QVERIFY2(summaryText(running) == summaryText(reference.whileRunning),
                    qPrintable(
                        QStringLiteral("%1 in blocks of %2, as a run not yet ended: %3 / %4")
                            .arg(path)
                            .arg(block)
                            .arg(summaryText(running), summaryText(reference.whileRunning))));
                QCOMPARE(reader.problems(), reference.problems);
            }
        }
    }

    // A capture holding a transcript record goes the event path as a whole.
    void fastSummaryFallsBackOnTranscriptRecords()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("mixed.jsonl"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"type":"system","subtype":"init","session_id":"s"})"
                   "\n"
                   R"({"type":"cost-state","totalCostUSD":0.5})"
                   "\n");
        file.close();
        sandscope::RecordingReader reader;
        QVERIFY(reader.open(path));
        QCOMPARE(reader.format(), sandscope::RecordingReader::Format::StreamJson);
        sandscope::RunSummaryBuilder builder;
        qint64 lines = 0;
        QVERIFY(!reader.summarize(&builder, &lines));
        RunSummary summary;
        QVERIFY(sandscope::summarizeRunFile(path, &summary));
        QCOMPARE(summaryText(summary), summaryText(eventPathSummary(path).summary));
        QVERIFY(summary.isTranscript);
        QCOMPARE(summary.lines, 2);
    }

    void summaryOfAMissingFileFails()
    {
        RunSummary summary;
        QString error;
        QVERIFY(!sandscope::summarizeRunFile(
            dataPath(QStringLiteral("no-such-file.jsonl")), &summary, &error));
        QVERIFY(error.contains(QLatin1String("no-such-file.jsonl")));
    }
};

QTEST_GUILESS_MAIN(TestRunParser)
#include "tst_runparser.moc"
