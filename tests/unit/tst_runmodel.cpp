// RunModel: the tree built from every real capture (line by line and in random byte chunks)
// passes QAbstractItemModelTester in Fatal mode, grows only by row inserts and dataChanged
// (never a reset), nests sub-agent work under its Agent/Task call, matches results by id in
// any order, counts usage once per message.id, and shows retries, API errors, denials,
// interrupted calls and several results as such. Expectations come from the capture JSON.

#include "capturelines.h"
#include "runtree/runmodel.h"
#include "runtree/runnodedetails.h"
#include "streamjson/runparser.h"
#include "testing.h"
#include "util/format.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QRandomGenerator>
#include <QSet>
#include <QSignalSpy>
#include <QtTest/QTest>

#include <functional>
#include <memory>

using sandscope::RunModel;
using sandscope::RunNodeDetails;
using sandscope::RunParser;
using Kind = RunModel::NodeKind;
using Status = RunModel::Status;
namespace capture = sandscope::test::capture;

namespace {

using sandscope::test::capture::captureLines;

QStringList streamCaptures()
{
    return QDir(QStringLiteral(SANDSCOPE_TEST_DATA_DIR))
        .entryList({QStringLiteral("stream-*.jsonl")}, QDir::Files, QDir::Name);
}

QJsonObject objectOf(const QByteArray &line)
{
    return QJsonDocument::fromJson(line).object();
}

QString str(const QJsonObject &object, const char *key)
{
    return object.value(QLatin1String(key)).toString();
}

QJsonArray contentBlocks(const QJsonObject &line)
{
    return line.value(QLatin1String("message"))
        .toObject()
        .value(QLatin1String("content"))
        .toArray();
}

// tool_use blocks of a capture: id → {name, parent_tool_use_id of the line}
struct ToolUseInFile {
    QString name;
    QString parentToolUseId;
    int lineIndex = 0;
};

QHash<QString, ToolUseInFile> toolUsesIn(const QList<QByteArray> &lines)
{
    QHash<QString, ToolUseInFile> uses;
    for (int i = 0; i < lines.size(); ++i) {
        const QJsonObject json = objectOf(lines[i]);
        if (str(json, "type") != QLatin1String("assistant"))
            continue;
        for (const QJsonValue &value : contentBlocks(json)) {
            const QJsonObject block = value.toObject();
            if (str(block, "type") == QLatin1String("tool_use"))
                uses.insert(
                    str(block, "id"), {str(block, "name"), str(json, "parent_tool_use_id"), i});
        }
    }
    return uses;
}

// tool_result blocks: tool_use_id → is_error
QHash<QString, bool> toolResultsIn(const QList<QByteArray> &lines)
{
    QHash<QString, bool> results;
    for (const QByteArray &line : lines) {
        for (const QJsonValue &value : contentBlocks(objectOf(line))) {
            const QJsonObject block = value.toObject();
            if (str(block, "type") == QLatin1String("tool_result"))
                results.insert(
                    str(block, "tool_use_id"), block.value(QLatin1String("is_error")).toBool());
        }
    }
    return results;
}

int countLines(const QList<QByteArray> &lines, const char *type, const char *subtype = nullptr)
{
    return int(std::count_if(lines.cbegin(), lines.cend(), [&](const QByteArray &line) {
        const QJsonObject json = objectOf(line);
        return str(json, "type") == QLatin1String(type)
            && (!subtype || str(json, "subtype") == QLatin1String(subtype));
    }));
}

// A parser wired to a model under QAbstractItemModelTester (Fatal), with spies on the
// structural signals.
struct Harness {
    RunParser parser;
    RunModel model;
    std::unique_ptr<QAbstractItemModelTester> tester;
    QSignalSpy rowsInserted {&model, &QAbstractItemModel::rowsInserted};
    QSignalSpy dataChanged {&model, &QAbstractItemModel::dataChanged};
    QSignalSpy modelReset {&model, &QAbstractItemModel::modelReset};
    int layoutChanges = 0; // layoutChanged's argument types are not spy-able in Qt 5
    QSignalSpy rowsRemoved {&model, &QAbstractItemModel::rowsRemoved};

    explicit Harness(bool withTester = true)
    {
        if (withTester) {
            tester = std::make_unique<QAbstractItemModelTester>(
                &model, QAbstractItemModelTester::FailureReportingMode::Fatal);
        }
        QObject::connect(&parser, &RunParser::eventsReady, &model, &RunModel::addEvents);
        QObject::connect(
            &model, &QAbstractItemModel::layoutChanged, &model, [this] { ++layoutChanges; });
    }

    // Line i arrives at i * 100 ms.
    void feedLines(const QList<QByteArray> &lines)
    {
        for (int i = 0; i < lines.size(); ++i)
            parser.feedLine(lines[i], qint64(i) * 100);
    }

    void feedChunks(const QList<QByteArray> &lines, quint32 seed)
    {
        QByteArray stream;
        for (const QByteArray &line : lines)
            stream += line + '\n';
        QRandomGenerator random(seed);
        qsizetype position = 0;
        while (position < stream.size()) {
            const qsizetype size = 1 + random.bounded(3000);
            parser.feedBytes(stream.mid(position, size), position);
            position += size;
        }
        parser.finish(position);
    }

    void end(qint64 at = 1000000) { model.markRunEnded(at); }

    bool structureOnlyGrew() const
    {
        return modelReset.isEmpty() && layoutChanges == 0 && rowsRemoved.isEmpty();
    }
};

// Depth-first walk over every index of the model.
void forEachIndex(const QAbstractItemModel &model,
    const std::function<void(const QModelIndex &)> &visit,
    const QModelIndex &parent = QModelIndex())
{
    for (int row = 0; row < model.rowCount(parent); ++row) {
        const QModelIndex index = model.index(row, 0, parent);
        visit(index);
        forEachIndex(model, visit, index);
    }
}

QList<QModelIndex> indexesOfKind(const QAbstractItemModel &model, Kind kind)
{
    QList<QModelIndex> found;
    forEachIndex(model, [&](const QModelIndex &index) {
        if (index.data(RunModel::KindRole).toInt() == int(kind))
            found.append(index);
    });
    return found;
}

Status statusOf(const QModelIndex &index)
{
    return Status(index.data(RunModel::StatusRole).toInt());
}

qint64 inputTokensOf(const QModelIndex &index)
{
    return index.data(RunModel::InputTokensRole).toLongLong();
}

} // namespace

class TestRunModel : public QObject {
    Q_OBJECT

private slots:
    void everyCaptureBuildsAConsistentTree_data()
    {
        QTest::addColumn<QString>("capture");
        QTest::addColumn<int>("seed"); // 0: line by line, else random byte chunks
        for (const QString &name : streamCaptures()) {
            QTest::newRow(qPrintable(name + QStringLiteral(" lines"))) << name << 0;
            for (int seed = 1; seed <= 3; ++seed)
                QTest::newRow(qPrintable(name + QStringLiteral(" chunks ") + QString::number(seed)))
                    << name << seed;
        }
    }

    void everyCaptureBuildsAConsistentTree()
    {
        QFETCH(QString, capture);
        QFETCH(int, seed);
        const QList<QByteArray> lines = captureLines(capture);
        QVERIFY(!lines.isEmpty());
        Harness harness;
        if (seed == 0)
            harness.feedLines(lines);
        else
            harness.feedChunks(lines, quint32(seed));
        QVERIFY(harness.structureOnlyGrew());
        QVERIFY(harness.rowsInserted.count() > 0);
        QVERIFY(harness.dataChanged.count() > 0);
        harness.end();
        QVERIFY(harness.structureOnlyGrew());

        const RunModel &model = harness.model;
        QCOMPARE(model.rowCount(), 1); // the run
        const QModelIndex run = model.runIndex();
        QCOMPARE(run.data(RunModel::KindRole).toInt(), int(Kind::Run));
        const int inits = countLines(lines, "system", "init");
        QCOMPARE(model.rowCount(run), qMax(1, inits));

        // One node per tool_use id, carrying its name; results matched to it.
        const QHash<QString, ToolUseInFile> uses = toolUsesIn(lines);
        const QHash<QString, bool> results = toolResultsIn(lines);
        QCOMPARE(indexesOfKind(model, Kind::ToolCall).size(), uses.size());
        for (auto it = uses.cbegin(); it != uses.cend(); ++it) {
            const QModelIndex tool = model.indexForToolUseId(it.key());
            QVERIFY2(tool.isValid(), qPrintable(it.key()));
            QCOMPARE(tool.data(RunModel::ToolNameRole).toString(), it->name);
            QCOMPARE(tool.data(RunModel::ToolUseIdRole).toString(), it.key());
            if (results.contains(it.key())) {
                QCOMPARE(statusOf(tool), results.value(it.key()) ? Status::Error : Status::Ok);
                QCOMPARE(tool.data(RunModel::IsErrorRole).toBool(), results.value(it.key()));
            } else {
                QCOMPARE(statusOf(tool), Status::Interrupted);
            }
        }
        QCOMPARE(indexesOfKind(model, Kind::Result).size(), countLines(lines, "result"));
        QCOMPARE(
            indexesOfKind(model, Kind::ApiRetry).size(), countLines(lines, "system", "api_retry"));
        QVERIFY(indexesOfKind(model, Kind::Raw).isEmpty()); // real captures hold no junk

        const sandscope::RunSummary summary = model.summary();
        QCOMPARE(summary.toolCalls, qint64(uses.size()));
        QCOMPARE(summary.sessionId, str(objectOf(lines.first()), "session_id"));
    }

    void subAgentWorkNestsUnderTheAgentCall_data()
    {
        QTest::addColumn<QString>("capture");
        QTest::addColumn<bool>("renameToTask"); // older CLIs call the tool "Task"
        QTest::newRow("subagent") << QStringLiteral("stream-subagent.jsonl") << false;
        QTest::newRow("subagent-forward")
            << QStringLiteral("stream-subagent-forward.jsonl") << false;
        QTest::newRow("subagent as Task") << QStringLiteral("stream-subagent.jsonl") << true;
    }

    void subAgentWorkNestsUnderTheAgentCall()
    {
        QFETCH(QString, capture);
        QFETCH(bool, renameToTask);
        QList<QByteArray> lines = captureLines(capture);
        if (renameToTask) {
            for (QByteArray &line : lines)
                line.replace("\"name\":\"Agent\"", "\"name\":\"Task\"");
        }
        Harness harness;
        harness.feedLines(lines);
        harness.end();
        const RunModel &model = harness.model;

        int nested = 0;
        const QHash<QString, ToolUseInFile> uses = toolUsesIn(lines);
        for (auto it = uses.cbegin(); it != uses.cend(); ++it) {
            const QModelIndex tool = model.indexForToolUseId(it.key());
            if (it->parentToolUseId.isEmpty()) {
                QCOMPARE(tool.parent().data(RunModel::KindRole).toInt(), int(Kind::Turn));
                continue;
            }
            ++nested;
            const QModelIndex agent = tool.parent();
            QCOMPARE(agent.data(RunModel::ToolUseIdRole).toString(), it->parentToolUseId);
            QCOMPARE(agent.data(RunModel::ToolNameRole).toString(),
                renameToTask ? QStringLiteral("Task") : QStringLiteral("Agent"));
            QCOMPARE(agent.data(RunModel::ToolKindRole).toInt(), int(RunModel::ToolKind::Agent));
            QCOMPARE(tool.data(RunModel::ParentToolUseIdRole).toString(), it->parentToolUseId);
        }
        QVERIFY(nested > 0);

        // Every line with a parent_tool_use_id contributes children to that call only: the
        // sub-agent's prompt, its calls and (when forwarded) its text.
        QHash<QString, int> linesPerAgent;
        for (const QByteArray &line : lines) {
            const QJsonObject json = objectOf(line);
            if (!str(json, "parent_tool_use_id").isEmpty())
                ++linesPerAgent[str(json, "parent_tool_use_id")];
        }
        for (auto it = linesPerAgent.cbegin(); it != linesPerAgent.cend(); ++it) {
            const QModelIndex agent = model.indexForToolUseId(it.key());
            const int toolResultsUnderAgent = int(std::count_if(uses.cbegin(), uses.cend(),
                [&](const ToolUseInFile &use) { return use.parentToolUseId == it.key(); }));
            // Results attach to their call instead of adding rows.
            QCOMPARE(model.rowCount(agent), it.value() - toolResultsUnderAgent);
            const QModelIndex prompt = model.index(0, 0, agent);
            QCOMPARE(prompt.data(RunModel::KindRole).toInt(), int(Kind::UserText));
            const auto details = agent.data(RunModel::DetailRole).value<RunNodeDetails>();
            QCOMPARE(prompt.data(RunModel::TextRole).toString(), details.input.prompt);
            // Task events land on the call.
            QCOMPARE(details.task.status, QStringLiteral("completed"));
            QVERIFY(details.input.prompt.startsWith(QLatin1String("SUBTASK")));
        }
    }

    void resultsMatchByIdInAnyOrder()
    {
        // Two parallel calls whose results come back reversed, and a third whose result
        // arrives before its tool_use line.
        const QList<QByteArray> lines = {
            R"({"type":"system","subtype":"init","session_id":"s","model":"m"})",
            R"({"type":"assistant","message":{"id":"msg1","content":[{"type":"tool_use","id":"A","name":"Bash","input":{"command":"echo a"}}]},"parent_tool_use_id":null})",
            R"({"type":"assistant","message":{"id":"msg1","content":[{"type":"tool_use","id":"B","name":"Read","input":{"file_path":"/tmp/b"}}]},"parent_tool_use_id":null})",
            R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"B","content":"bee","is_error":true}]},"parent_tool_use_id":null})",
            R"({"type":"user","message":{"content":[{"tool_use_id":"C","type":"tool_result","content":[{"type":"text","text":"early"}]}]},"parent_tool_use_id":null})",
            R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"A","content":"a-out"}]},"parent_tool_use_id":null})",
            R"({"type":"assistant","message":{"id":"msg2","content":[{"type":"tool_use","id":"C","name":"Grep","input":{"pattern":"x+","path":"/src"}}]},"parent_tool_use_id":null})",
        };
        Harness harness;
        harness.feedLines(lines);
        const RunModel &model = harness.model;
        QCOMPARE(indexesOfKind(model, Kind::ToolCall).size(), 3);

        const QModelIndex a = model.indexForToolUseId(QStringLiteral("A"));
        QCOMPARE(statusOf(a), Status::Ok);
        QCOMPARE(a.data(RunModel::TextRole).toString(), QStringLiteral("a-out"));
        QCOMPARE(a.data(RunModel::DurationMsRole).toLongLong(), qint64(500 - 100)); // lines 1 → 5
        const auto aDetails = a.data(RunModel::DetailRole).value<RunNodeDetails>();
        QCOMPARE(aDetails.input.command, QStringLiteral("echo a"));
        QCOMPARE(aDetails.output, QStringLiteral("a-out"));
        QCOMPARE(a.data(RunModel::ToolKindRole).toInt(), int(RunModel::ToolKind::Shell));
        QVERIFY(a.data(Qt::DisplayRole).toString().contains(QLatin1String("echo a")));

        const QModelIndex b = model.indexForToolUseId(QStringLiteral("B"));
        QCOMPARE(statusOf(b), Status::Error);
        QCOMPARE(b.data(RunModel::FilePathRole).toString(), QStringLiteral("/tmp/b"));
        QCOMPARE(b.data(RunModel::DurationMsRole).toLongLong(), qint64(300 - 200));

        const QModelIndex c = model.indexForToolUseId(QStringLiteral("C"));
        QCOMPARE(statusOf(c), Status::Ok);
        QCOMPARE(c.data(RunModel::ToolNameRole).toString(), QStringLiteral("Grep"));
        QCOMPARE(c.data(RunModel::TextRole).toString(), QStringLiteral("early"));
        QVERIFY(!c.data(RunModel::DurationMsRole).isValid()); // result before use: unknown
        QVERIFY(c.data(Qt::DisplayRole).toString().contains(QLatin1String("x+ in /src")));
        QVERIFY(harness.structureOnlyGrew());
    }

    void reorderedCaptureLinesStillMatch()
    {
        // stream-basic with its tool_result moved in front of the tool_use line.
        QList<QByteArray> lines = captureLines(QStringLiteral("stream-basic.jsonl"));
        const QHash<QString, ToolUseInFile> uses = toolUsesIn(lines);
        QCOMPARE(uses.size(), 1);
        const int useLine = uses.cbegin()->lineIndex;
        lines.move(useLine + 1, useLine);
        Harness harness;
        harness.feedLines(lines);
        harness.end();
        const QModelIndex tool = harness.model.indexForToolUseId(uses.cbegin().key());
        QCOMPARE(statusOf(tool), Status::Ok);
        QCOMPARE(tool.data(RunModel::ToolNameRole).toString(), uses.cbegin()->name);
        QCOMPARE(indexesOfKind(harness.model, Kind::ToolCall).size(), 1);
        QCOMPARE(harness.model.summary().unmatchedToolCalls, qint64(0));
    }

    void usageIsCountedOncePerMessage_data()
    {
        QTest::addColumn<QString>("capture");
        for (const QString &name : streamCaptures()) {
            if (countLines(captureLines(name), "result") > 0)
                QTest::newRow(qPrintable(name)) << name;
        }
    }

    void usageIsCountedOncePerMessage()
    {
        QFETCH(QString, capture);
        const QList<QByteArray> lines = captureLines(capture);
        Harness harness;
        harness.feedLines(lines);
        const RunModel &model = harness.model;

        // Independently: the usage of each message.id once (the lines of one response repeat it).
        QHash<QString, QJsonObject> perMessage;
        qint64 inputOnEveryLine = 0;
        QJsonObject result;
        for (const QByteArray &line : lines) {
            const QJsonObject json = objectOf(line);
            if (str(json, "type") == QLatin1String("result"))
                result = json;
            if (str(json, "type") != QLatin1String("assistant"))
                continue;
            const QJsonObject message = json.value(QLatin1String("message")).toObject();
            const QJsonObject usage = message.value(QLatin1String("usage")).toObject();
            perMessage.insert(str(message, "id"), usage);
            inputOnEveryLine += qint64(usage.value(QLatin1String("input_tokens")).toDouble());
        }
        qint64 dedupInput = 0;
        for (const QJsonObject &usage : std::as_const(perMessage))
            dedupInput += qint64(usage.value(QLatin1String("input_tokens")).toDouble());
        const QModelIndex run = model.runIndex();
        // Without a result the run's tokens are its API responses', each message.id once; a
        // turn with its result shows the result's (tst_runfigures), all models included.
        if (result.isEmpty()) {
            QCOMPARE(inputTokensOf(run), dedupInput);
            if (perMessage.size() < countLines(lines, "assistant")) // several blocks
                QVERIFY(inputTokensOf(run) < inputOnEveryLine);
        }

        // result.usage covers the main loop of the turn (doc section 5): the turn's API
        // responses minus what its sub-agents used. Output counts on per-block lines are
        // provisional, so they only match when partial messages delivered the final counts.
        const QModelIndex turn = model.index(0, 0, run);
        qint64 subAgentInput = 0;
        for (const QModelIndex &tool : indexesOfKind(model, Kind::ToolCall)) {
            if (tool.data(RunModel::ToolKindRole).toInt() == int(RunModel::ToolKind::Agent)
                && tool.parent() == turn) {
                subAgentInput += inputTokensOf(tool);
            }
        }
        const QJsonObject resultUsage = result.value(QLatin1String("usage")).toObject();
        QCOMPARE(dedupInput - subAgentInput,
            qint64(resultUsage.value(QLatin1String("input_tokens")).toDouble()));

        // With the sub-agent's text forwarded every response is visible, so the run total
        // equals the per-turn usage including sub-agents.
        if (capture == QLatin1String("stream-subagent-forward.jsonl")) {
            qint64 allModels = 0;
            const QJsonObject since
                = result.value(QLatin1String("model_usage_since_last_result")).toObject();
            for (const QJsonValue &usage : since)
                allModels
                    += qint64(usage.toObject().value(QLatin1String("inputTokens")).toDouble());
            QCOMPARE(inputTokensOf(run), allModels);
            QVERIFY(subAgentInput > 0);
        }

        // Cost: the run shows the cumulative total of the result line.
        QCOMPARE(run.data(RunModel::CostUsdRole).toDouble(),
            result.value(QLatin1String("total_cost_usd")).toDouble());
    }

    void callsErrorsAndCacheTokensPerTurnAndSubAgent_data()
    {
        QTest::addColumn<QString>("capture");
        QTest::addColumn<bool>("corruptLine");
        QStringList names = streamCaptures();
        for (const QString &scenario : sandscope::test::scenariosWithStream())
            names.append(QStringLiteral("transcripts/%1/stream.jsonl").arg(scenario));
        for (const QString &name : std::as_const(names)) {
            QTest::newRow(qPrintable(name)) << name << false;
            QTest::newRow(qPrintable(name + QStringLiteral(" + corrupt"))) << name << true;
        }
    }

    // Per turn, per sub-agent (its Agent call) and for the run: the tree's calls, errors and
    // tokens (cache included) equal sums taken here from the same lines.
    void callsErrorsAndCacheTokensPerTurnAndSubAgent()
    {
        QFETCH(QString, capture);
        QFETCH(bool, corruptLine);
        QList<QByteArray> lines = captureLines(capture);
        QVERIFY(!lines.isEmpty());
        if (corruptLine) // in the middle of the first turn
            lines.insert(lines.size() / 2, QByteArrayLiteral("{\"type\":\"assistant\",\"mess"));
        Harness harness;
        harness.feedLines(lines);
        harness.end();
        const RunModel &model = harness.model;

        // Independently: a "scope" is a turn (lines from one system/init to the next) or a
        // sub-agent (lines whose parent_tool_use_id is its Agent call, and its nested ones).
        struct Scope {
            QSet<QString> calls;
            QSet<QString> failed;
            qint64 otherErrors = 0; // API error messages, corrupt lines
            QHash<QString, QJsonObject> usage; // message.id → the largest usage seen
        };
        QVector<Scope> turns;
        QHash<QString, Scope> agents; // Agent tool_use id → its sub-agent
        QHash<QString, QString> parentOf; // tool_use id → the sub-agent it runs in
        QHash<QString, QString> firstScopeOf; // message.id → where it counts (first sighting)
        const auto max = [](const QJsonObject &a, const QJsonObject &b) {
            QJsonObject merged = a;
            for (auto it = b.begin(); it != b.end(); ++it)
                if (it.value().toDouble() > merged.value(it.key()).toDouble())
                    merged.insert(it.key(), it.value());
            return merged;
        };
        const bool partial = countLines(lines, "stream_event") > 0;
        bool turnHasInit = false;
        for (const QByteArray &line : std::as_const(lines)) {
            QJsonParseError parseError;
            const QJsonObject json = QJsonDocument::fromJson(line, &parseError).object();
            const QString type = str(json, "type");
            // Lines before a turn's init (system/status of /compact) belong to it.
            if (type == QLatin1String("system") && str(json, "subtype") == QLatin1String("init")) {
                if (turnHasInit || turns.isEmpty())
                    turns.append(Scope());
                turnHasInit = true;
            }
            if (turns.isEmpty())
                turns.append(Scope());
            const QString parent = str(json, "parent_tool_use_id");
            // Every scope a line counts in: its turn, its sub-agent and those around it.
            QList<Scope *> scopes {&turns.last()};
            QStringList agentChain;
            for (QString at = parent; !at.isEmpty() && !agentChain.contains(at);
                 at = parentOf.value(at)) {
                agentChain.append(at);
                scopes.append(&agents[at]);
            }
            if (parseError.error != QJsonParseError::NoError) {
                for (Scope *scope : scopes)
                    ++scope->otherErrors;
                continue;
            }
            const QJsonObject message = json.value(QLatin1String("message")).toObject();
            if (type == QLatin1String("assistant")) {
                if (json.value(QLatin1String("is_api_error_message")).toBool()
                    || str(message, "model") == QLatin1String("<synthetic>")) {
                    for (Scope *scope : scopes)
                        ++scope->otherErrors;
                    continue;
                }
                const QString id = str(message, "id");
                const QString key = QString::number(turns.size()) + QLatin1Char('/') + parent;
                if (!firstScopeOf.contains(id))
                    firstScopeOf.insert(id, key);
                if (firstScopeOf.value(id) == key)
                    for (Scope *scope : scopes)
                        scope->usage[id] = max(scope->usage.value(id),
                            message.value(QLatin1String("usage")).toObject());
            }
            for (const QJsonValue &value : contentBlocks(json)) {
                const QJsonObject block = value.toObject();
                if (type == QLatin1String("assistant")
                    && str(block, "type") == QLatin1String("tool_use")) {
                    parentOf.insert(str(block, "id"), parent);
                    for (Scope *scope : scopes)
                        scope->calls.insert(str(block, "id"));
                }
                if (str(block, "type") == QLatin1String("tool_result")
                    && block.value(QLatin1String("is_error")).toBool())
                    for (Scope *scope : scopes)
                        scope->failed.insert(str(block, "tool_use_id"));
            }
        }
        const auto sum = [](const Scope &scope, const char *field) {
            qint64 total = 0;
            for (const QJsonObject &usage : scope.usage)
                total += qint64(usage.value(QLatin1String(field)).toDouble());
            return total;
        };
        const auto check = [&](const QModelIndex &index, const Scope &scope) {
            const QString where = index.data().toString();
            QVERIFY2(index.data(RunModel::ToolCallsRole).toLongLong() == scope.calls.size(),
                qPrintable(where));
            QCOMPARE(index.siblingAtColumn(RunModel::ToolCallsColumn).data().toString(),
                QLocale().toString(qint64(scope.calls.size())));
            QVERIFY2(index.data(RunModel::ErrorsRole).toLongLong()
                    == scope.failed.size() + scope.otherErrors,
                qPrintable(where));
            if (partial) // message_delta's counts join in; tst usageIsCountedOncePerMessage
                return;
            // A turn with its result, and the run, show the results' tokens (tst_runfigures).
            const auto kind = RunModel::NodeKind(index.data(RunModel::KindRole).toInt());
            if (kind == RunModel::NodeKind::Run || kind == RunModel::NodeKind::Turn)
                return;
            QCOMPARE(index.data(RunModel::CacheReadTokensRole).toLongLong(),
                sum(scope, "cache_read_input_tokens"));
            QCOMPARE(index.data(RunModel::CacheCreationTokensRole).toLongLong(),
                sum(scope, "cache_creation_input_tokens"));
            QCOMPARE(inputTokensOf(index), sum(scope, "input_tokens"));
        };

        const QModelIndex run = model.runIndex();
        QList<QModelIndex> turnIndexes;
        for (int row = 0; row < model.rowCount(run); ++row)
            turnIndexes.append(model.index(row, 0, run));
        QCOMPARE(turnIndexes.size(), turns.size());
        Scope whole;
        for (int i = 0; i < turns.size(); ++i) {
            check(turnIndexes[i], turns[i]);
            whole.calls += turns[i].calls;
            whole.failed += turns[i].failed;
            whole.otherErrors += turns[i].otherErrors;
            for (auto it = turns[i].usage.cbegin(); it != turns[i].usage.cend(); ++it)
                whole.usage.insert(it.key() + QString::number(i), it.value());
        }
        check(run, whole);
        int agentsChecked = 0;
        for (const QModelIndex &tool : indexesOfKind(model, Kind::ToolCall)) {
            if (tool.data(RunModel::ToolKindRole).toInt() != int(RunModel::ToolKind::Agent))
                continue;
            check(tool, agents.value(tool.data(RunModel::ToolUseIdRole).toString()));
            ++agentsChecked;
        }
        if (capture.contains(QLatin1String("subagent")))
            QVERIFY(agentsChecked > 0
                && model.index(0, 0, run).data(RunModel::ToolCallsRole).toLongLong() > 1);
        if (corruptLine)
            QVERIFY(run.data(RunModel::ErrorsRole).toLongLong() > 0);
        if (run.data(RunModel::InputTokensRole).isValid()) // an API error's usage is not counted
            QVERIFY(run.siblingAtColumn(RunModel::TokensColumn)
                        .data(Qt::ToolTipRole)
                        .toString()
                        .contains(QLatin1String("Cache read")));
    }

    // A live chat stays open for follow-ups after a result: its run node must not stay
    // "running" then, and must agree with the summary bar on how long the run took.
    void aRunBetweenTurnsIsSettledAndLastsWhatItsTurnsDid()
    {
        Harness harness;
        const RunModel &model = harness.model;
        const QModelIndex run = model.runIndex();
        const auto durationOf = [](const QModelIndex &index) {
            return index.siblingAtColumn(RunModel::DurationColumn).data().toString();
        };
        harness.feedLines(captureLines(QStringLiteral("stream-basic.jsonl")));
        QCOMPARE(statusOf(run), Status::Ok);
        QVERIFY(!model.runEnded());
        QVERIFY(model.summary().durationMs > 0);
        QCOMPARE(durationOf(run), durationOf(model.index(0, 0, run))); // its one turn

        // A follow-up turn makes it live again, and settled once more after its result.
        const QList<QByteArray> followUp = captureLines(QStringLiteral("stream-resume-same.jsonl"));
        harness.parser.feedLine(followUp.constFirst(), 100000);
        QCOMPARE(statusOf(run), Status::Running);
        for (int i = 1; i < followUp.size(); ++i)
            harness.parser.feedLine(followUp.at(i), 100000 + i);
        QCOMPARE(statusOf(run), Status::Ok);
        QCOMPARE(model.rowCount(run), 2);
        QCOMPARE(durationOf(run), sandscope::format::duration(model.summary().durationMs));
    }

    void killedRunShowsInterruptedCalls()
    {
        // stream-sigterm ends without a result; cut before the killed command's tool_result,
        // the call itself never got an answer.
        const QList<QByteArray> full = captureLines(QStringLiteral("stream-sigterm.jsonl"));
        QCOMPARE(countLines(full, "result"), 0);
        const QHash<QString, ToolUseInFile> uses = toolUsesIn(full);
        QCOMPARE(uses.size(), 1);
        const QString id = uses.cbegin().key();

        Harness harness;
        harness.feedLines(full.mid(0, uses.cbegin()->lineIndex + 1));
        QModelIndex tool = harness.model.indexForToolUseId(id);
        QCOMPARE(statusOf(tool), Status::Running);
        QSignalSpy changed(&harness.model, &QAbstractItemModel::dataChanged);
        QSignalSpy summaryChanged(&harness.model, &RunModel::summaryChanged);
        harness.end();
        QCOMPARE(summaryChanged.count(), 1);
        QCOMPARE(statusOf(tool), Status::Interrupted);
        QVERIFY(!changed.isEmpty());
        QCOMPARE(statusOf(harness.model.runIndex()), Status::Interrupted);
        QCOMPARE(
            statusOf(harness.model.index(0, 0, harness.model.runIndex())), Status::Interrupted);
        QCOMPARE(harness.model.summary().unmatchedToolCalls, qint64(1));
        QVERIFY(harness.model.summary().isError);

        // The whole capture: the killed command's result says is_error; the run still ended
        // without a result line.
        Harness whole;
        whole.feedLines(full);
        QVERIFY(!whole.model.summary().isError); // live: no verdict before the end
        whole.end();
        tool = whole.model.indexForToolUseId(id);
        QCOMPARE(statusOf(tool), toolResultsIn(full).value(id) ? Status::Error : Status::Ok);
        QCOMPARE(statusOf(whole.model.runIndex()), Status::Interrupted);
        QVERIFY(whole.model.summary().isError);
    }

    void aStoppedFollowUpTurnAlsoEndsItsOpenCalls()
    {
        // Turn 1 is stopped before its result, a follow-up resumes the session, and that turn
        // is stopped too: its calls must not stay "running".
        const QList<QByteArray> full = captureLines(QStringLiteral("stream-sigterm.jsonl"));
        const QHash<QString, ToolUseInFile> uses = toolUsesIn(full);
        QCOMPARE(uses.size(), 1);
        const QList<QByteArray> upToCall = full.mid(0, uses.cbegin()->lineIndex + 1);

        Harness harness;
        harness.feedLines(upToCall);
        harness.end(5000);
        QCOMPARE(statusOf(harness.model.runIndex()), Status::Interrupted);

        // The second turn: the same lines with a fresh tool_use id.
        const QByteArray firstId = uses.cbegin().key().toUtf8();
        const QByteArray secondId = firstId + "_followup";
        for (int i = 0; i < upToCall.size(); ++i) {
            QByteArray line = upToCall[i];
            harness.parser.feedLine(line.replace(firstId, secondId), 10000 + qint64(i) * 100);
        }
        const QModelIndex second = harness.model.indexForToolUseId(QString::fromUtf8(secondId));
        QVERIFY(second.isValid());
        QCOMPARE(statusOf(second), Status::Running);
        QCOMPARE(statusOf(harness.model.runIndex()), Status::Running);
        QCOMPARE(harness.model.rowCount(harness.model.runIndex()), 2);

        harness.end(20000);
        QCOMPARE(statusOf(second), Status::Interrupted);
        QCOMPARE(
            statusOf(harness.model.index(1, 0, harness.model.runIndex())), Status::Interrupted);
        QCOMPARE(statusOf(harness.model.runIndex()), Status::Interrupted);
        QCOMPARE(harness.model.summary().unmatchedToolCalls, qint64(2));
    }

    void apiErrorsAreVisible_data()
    {
        QTest::addColumn<QString>("capture");
        QTest::newRow("401") << QStringLiteral("stream-err-401.jsonl");
        QTest::newRow("529") << QStringLiteral("stream-err-529.jsonl");
    }

    void apiErrorsAreVisible()
    {
        QFETCH(QString, capture);
        const QList<QByteArray> lines = captureLines(capture);
        Harness harness;
        harness.feedLines(lines);
        harness.end();
        const RunModel &model = harness.model;

        QJsonObject synthetic;
        for (const QByteArray &line : lines) {
            if (objectOf(line).value(QLatin1String("is_api_error_message")).toBool())
                synthetic = objectOf(line);
        }
        QVERIFY(!synthetic.isEmpty());
        const QList<QModelIndex> errors = indexesOfKind(model, Kind::ApiError);
        QCOMPARE(errors.size(), 1);
        QCOMPARE(statusOf(errors.first()), Status::Error);
        QVERIFY(errors.first().data(RunModel::IsErrorRole).toBool());
        QCOMPARE(errors.first().data(RunModel::TextRole).toString(),
            contentBlocks(synthetic).first().toObject().value(QLatin1String("text")).toString());
        QVERIFY(errors.first().data(Qt::DisplayRole).toString().contains(str(synthetic, "error")));

        const QList<QModelIndex> retries = indexesOfKind(model, Kind::ApiRetry);
        QCOMPARE(retries.size(), countLines(lines, "system", "api_retry"));
        for (const QModelIndex &retry : retries)
            QCOMPARE(statusOf(retry), Status::Retrying);

        // "success" with is_error: the turn and the run are errors.
        const QModelIndex turn = model.index(0, 0, model.runIndex());
        QCOMPARE(statusOf(turn), Status::Error);
        QCOMPARE(statusOf(model.runIndex()), Status::Error);
        QCOMPARE(model.summary().resultSubtype, QStringLiteral("success"));
        QVERIFY(model.summary().isError);
        QCOMPARE(model.index(0, RunModel::StatusColumn, model.runIndex()).data().toString(),
            QStringLiteral("error"));
    }

    void maxTurnsEndsTheTurnWithAnError()
    {
        const QList<QByteArray> lines = captureLines(QStringLiteral("stream-maxturns.jsonl"));
        QJsonObject result;
        for (const QByteArray &line : lines) {
            if (str(objectOf(line), "type") == QLatin1String("result"))
                result = objectOf(line);
        }
        Harness harness;
        harness.feedLines(lines);
        harness.end();
        const RunModel &model = harness.model;
        const QList<QModelIndex> results = indexesOfKind(model, Kind::Result);
        QCOMPARE(results.size(), 1);
        QCOMPARE(statusOf(results.first()), Status::Error);
        QVERIFY(results.first().data().toString().contains(str(result, "subtype")));
        const QString firstError
            = result.value(QLatin1String("errors")).toArray().first().toString();
        QCOMPARE(results.first().data(RunModel::TextRole).toString(), firstError);
        // claude's duration_ms is a fact of its own: a result is a point event, no span.
        QCOMPARE(results.first().data(RunModel::ClaudeDurationMsRole).toLongLong(),
            qint64(result.value(QLatin1String("duration_ms")).toDouble()));
        QVERIFY(!results.first().data(RunModel::DurationMsRole).isValid());
        QCOMPARE(statusOf(results.first().parent()), Status::Error);
        QCOMPARE(model.summary().resultSubtype, str(result, "subtype"));
        QCOMPARE(model.summary().roundTrips, result.value(QLatin1String("num_turns")).toInt());
    }

    void permissionDenialsMarkTheCall()
    {
        const QList<QByteArray> lines = {
            R"({"type":"system","subtype":"init","session_id":"s"})",
            R"({"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"T","name":"Bash","input":{"command":"touch x"}}]},"parent_tool_use_id":null})",
            R"({"type":"system","subtype":"permission_denied","tool_name":"Bash","tool_use_id":"T","message":"touch needs approval"})",
            R"({"type":"user","message":{"content":[{"type":"tool_result","content":"touch needs approval","is_error":true,"tool_use_id":"T"}]},"parent_tool_use_id":null})",
            R"({"type":"result","subtype":"success","is_error":false,"permission_denials":[{"tool_name":"Bash","tool_use_id":"T","tool_input":{}}]})",
        };
        Harness harness;
        harness.feedLines(lines.mid(0, 4)); // the system line alone marks the call
        const QModelIndex tool = harness.model.indexForToolUseId(QStringLiteral("T"));
        QCOMPARE(statusOf(tool), Status::Denied);
        harness.parser.feedLine(lines.last(), 500);
        harness.end();
        QCOMPARE(statusOf(tool), Status::Denied);
        QVERIFY(tool.data(RunModel::IsErrorRole).toBool());
        QCOMPARE(harness.model.rowCount(tool), 1);
        const QModelIndex denial = harness.model.index(0, 0, tool);
        QCOMPARE(denial.data(RunModel::KindRole).toInt(), int(Kind::PermissionDenied));
        QCOMPARE(
            denial.data(RunModel::TextRole).toString(), QStringLiteral("touch needs approval"));
        QCOMPARE(harness.model.summary().toolErrors, qint64(1));
    }

    void backgroundAgentAndHeldBackResults()
    {
        // docs/stream-json.md, "The run tree": the first turn's result is held back until the
        // background agent finished and arrives after the second turn's init.
        const QList<QByteArray> lines = {
            R"({"type":"system","subtype":"init","session_id":"s"})",
            R"({"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"AG","name":"Agent","input":{"description":"Sub job","prompt":"SUBTASK","run_in_background":true}}]},"parent_tool_use_id":null})",
            R"({"type":"system","subtype":"task_started","task_id":"t1","tool_use_id":"AG","is_backgrounded":true,"task_type":"local_agent"})",
            R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"AG","content":"Async agent launched"}]},"parent_tool_use_id":null,"tool_use_result":{"status":"async_launched"}})",
            R"({"type":"assistant","message":{"id":"m2","content":[{"type":"tool_use","id":"SUB","name":"Bash","input":{"command":"echo sub"}}]},"parent_tool_use_id":"AG"})",
            R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"SUB","content":"sub"}]},"parent_tool_use_id":"AG"})",
            R"({"type":"system","subtype":"task_updated","task_id":"t1","patch":{"status":"completed"}})",
            R"({"type":"system","subtype":"init","session_id":"s"})",
            R"({"type":"result","subtype":"success","is_error":false,"result_index":0,"total_cost_usd":0.5})",
            R"({"type":"result","subtype":"success","is_error":false,"result_index":1,"total_cost_usd":0.75})",
        };
        Harness harness;
        for (int i = 0; i < lines.size(); ++i) {
            harness.parser.feedLine(lines[i], i * 10);
            if (i == 3) {
                QCOMPARE(statusOf(harness.model.indexForToolUseId(QStringLiteral("AG"))),
                    Status::Background);
            }
        }
        harness.end();
        const RunModel &model = harness.model;
        const QModelIndex run = model.runIndex();
        QCOMPARE(model.rowCount(run), 2);
        const QModelIndex agent = model.indexForToolUseId(QStringLiteral("AG"));
        QCOMPARE(statusOf(agent), Status::Ok); // task_updated completed
        QCOMPARE(model.indexForToolUseId(QStringLiteral("SUB")).parent(), agent);
        for (int turn = 0; turn < 2; ++turn) {
            const QModelIndex index = model.index(turn, 0, run);
            QCOMPARE(statusOf(index), Status::Ok);
            QCOMPARE(indexesOfKind(model, Kind::Result).at(turn).parent(), index);
        }
        QCOMPARE(model.index(0, 0, run).data(RunModel::CostUsdRole).toDouble(), 0.5);
        QCOMPARE(model.index(1, 0, run).data(RunModel::CostUsdRole).toDouble(), 0.25);
        QCOMPARE(run.data(RunModel::CostUsdRole).toDouble(), 0.75);
        QCOMPARE(model.summary().resultCount, 2);
    }

    void junkLinesBecomeRawNodes()
    {
        QList<QByteArray> lines = captureLines(QStringLiteral("stream-basic.jsonl"));
        lines.insert(1, "npm WARN something");
        lines.insert(3, R"({"type":"hologram","x":1})");
        lines.insert(4, "{\"type\":\"assistant\",\"message\":{\"content\":[{\"ty");
        lines.insert(5, "[1,2]");
        lines.append("\x1b[?25h");
        Harness harness;
        harness.feedLines(lines);
        harness.end();
        const QList<QModelIndex> raws = indexesOfKind(harness.model, Kind::Raw);
        QCOMPARE(raws.size(), 5);
        QCOMPARE(statusOf(raws.at(2)), Status::Error); // the corrupt line is reported
        QVERIFY(raws.at(2).data().toString().startsWith(QLatin1String("Corrupt JSON")));
        QCOMPARE(raws.at(0).data(RunModel::RawJsonRole).toString(),
            QStringLiteral("npm WARN something"));
        QVERIFY(raws.at(1).data().toString().contains(QLatin1String("hologram")));
        // The run itself is unaffected: same tool and result as without the junk.
        QCOMPARE(statusOf(harness.model.runIndex()), Status::Ok);
        QCOMPARE(indexesOfKind(harness.model, Kind::ToolCall).size(), 1);
        QVERIFY(harness.structureOnlyGrew());
    }

    void hostileParentLinksKeepATree()
    {
        // Self-parenting, mutual parents and references to calls that never appear: every
        // id still gets exactly one node and the tester sees a consistent tree.
        const QList<QByteArray> lines = {
            R"({"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"S","name":"Agent","input":{}}]},"parent_tool_use_id":"S"})",
            R"({"type":"assistant","message":{"id":"m2","content":[{"type":"tool_use","id":"X","name":"Bash","input":{}}]},"parent_tool_use_id":"Y"})",
            R"({"type":"assistant","message":{"id":"m3","content":[{"type":"tool_use","id":"Y","name":"Bash","input":{}}]},"parent_tool_use_id":"X"})",
            R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"GHOST","content":"?"}]},"parent_tool_use_id":"NOBODY"})",
            R"({"type":"system","subtype":"task_updated","task_id":"unknown","patch":{"status":"failed","error":"boom"}})",
        };
        Harness harness;
        harness.feedLines(lines);
        harness.end();
        const RunModel &model = harness.model;
        QSet<QString> ids;
        for (const QModelIndex &tool : indexesOfKind(model, Kind::ToolCall))
            ids.insert(tool.data(RunModel::ToolUseIdRole).toString());
        QCOMPARE(ids,
            QSet<QString>({QStringLiteral("S"), QStringLiteral("X"), QStringLiteral("Y"),
                QStringLiteral("GHOST"), QStringLiteral("NOBODY")}));
        QCOMPARE(indexesOfKind(model, Kind::ToolCall).size(), ids.size());
        QCOMPARE(statusOf(model.indexForToolUseId(QStringLiteral("S"))), Status::Interrupted);
        QCOMPARE(statusOf(model.indexForToolUseId(QStringLiteral("GHOST"))), Status::Ok);
        QCOMPARE(model.indexForToolUseId(QStringLiteral("GHOST")).parent(),
            model.indexForToolUseId(QStringLiteral("NOBODY")));
        QVERIFY(harness.structureOnlyGrew());
    }

    void rawJsonIsPrettyPrinted()
    {
        const QList<QByteArray> lines = captureLines(QStringLiteral("stream-basic.jsonl"));
        Harness harness;
        harness.feedLines(lines);
        const QHash<QString, ToolUseInFile> uses = toolUsesIn(lines);
        const QModelIndex tool = harness.model.indexForToolUseId(uses.cbegin().key());
        const QString pretty = tool.data(RunModel::RawJsonRole).toString();
        QVERIFY(pretty.contains(QLatin1Char('\n')));
        QCOMPARE(QJsonDocument::fromJson(pretty.toUtf8()).object(),
            objectOf(lines.at(uses.cbegin()->lineIndex)));
        QCOMPARE(
            tool.data(RunModel::RawLineRole).toByteArray(), lines.at(uses.cbegin()->lineIndex));
        QVERIFY(tool.data(RunModel::ResultRawJsonRole)
                    .toString()
                    .contains(QLatin1String("tool_result")));

        // The CLI's key order is kept (the result line starts with "duration_api_ms").
        const QModelIndex result = indexesOfKind(harness.model, Kind::Result).value(0);
        const QByteArray resultLine = result.data(RunModel::RawLineRole).toByteArray();
        const QString firstKey = QString::fromUtf8(resultLine.mid(1, resultLine.indexOf(':') - 1));
        const QString resultPretty = result.data(RunModel::RawJsonRole).toString();
        QVERIFY2(resultPretty.startsWith(QStringLiteral("{\n  ") + firstKey + QStringLiteral(": ")),
            qPrintable(resultPretty.left(40)));
        QCOMPARE(QJsonDocument::fromJson(resultPretty.toUtf8()).object(), objectOf(resultLine));
    }

    void tenThousandEventsPerSecond()
    {
        // 20,000 lines: tool calls and their results, spread over turns and sub-agents.
        const char *useTemplate
            = R"({"type":"assistant","message":{"id":"msg_MSG","content":[{"type":"tool_use","id":"ID","name":"Bash","input":{"command":"echo"}}],"usage":{"input_tokens":12,"output_tokens":1}},"parent_tool_use_id":PARENT})";
        const char *resultTemplate
            = R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"ID","content":"ok"}]},"parent_tool_use_id":PARENT})";
        QList<QByteArray> lines;
        lines.append(R"({"type":"system","subtype":"init","session_id":"perf","model":"m"})");
        for (int i = 0; i < 10000; ++i) {
            const QByteArray id = "toolu_" + QByteArray::number(i);
            const QByteArray parent = i % 10 == 0 || i < 10
                ? QByteArray("null")
                : "\"toolu_" + QByteArray::number(i - i % 10) + '"';
            lines.append(QByteArray(useTemplate)
                             .replace("MSG", QByteArray::number(i / 2))
                             .replace("ID", id)
                             .replace("PARENT", parent));
            lines.append(QByteArray(resultTemplate).replace("ID", id).replace("PARENT", parent));
        }
        RunParser parser;
        RunModel model;
        QObject::connect(&parser, &RunParser::eventsReady, &model, &RunModel::addEvents);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QElapsedTimer timer;
        timer.start();
        for (int i = 0; i < lines.size(); ++i)
            parser.feedLine(lines[i], i);
        const qint64 elapsed = qMax<qint64>(1, timer.elapsed());
        const qint64 perSecond = qint64(lines.size()) * 1000 / elapsed;
        // A figure, not an assertion: bench_runview measures the live rate.
        qInfo("%lld lines/s", perSecond);
        QCOMPARE(model.summary().toolCalls, qint64(10000));
        QCOMPARE(model.summary().unmatchedToolCalls, qint64(0));
        QCOMPARE(inputTokensOf(model.runIndex()), qint64(5000 * 12));
        // Every tenth call is a sub-agent holding the nine after it.
        const QModelIndex agent = model.indexForToolUseId(QStringLiteral("toolu_10"));
        QCOMPARE(model.rowCount(agent), 9);
        QCOMPARE(model.indexForToolUseId(QStringLiteral("toolu_19")).parent(), agent);
        QCOMPARE(resets.count(), 0);
    }

    // The tree shows a file name that reorders itself (U+202E), hides text (a tag character) or
    // breaks its row visibly, as the file browser does (issue 27).
    void hostileNamesInTheTreeAreShownVisibly()
    {
        const QString session = QStringLiteral("s-names");
        const QString path = QStringLiteral("/w/invoice") + QChar(0x202e)
            + QStringLiteral("fdp.exe\nsecond") + QString::fromUcs4(U"\U000E0041");
        const QString command = QStringLiteral("echo \x1b]0;title\x07") + QChar(0x9b);
        Harness harness;
        harness.feedLines({capture::systemInit(session),
            capture::assistant(session,
                {capture::toolUseBlock(QStringLiteral("t-read"), QStringLiteral("Read"),
                     {{QStringLiteral("file_path"), path}}),
                    capture::toolUseBlock(QStringLiteral("t-bash"), QStringLiteral("Bash"),
                        {{QStringLiteral("command"), command}})})});
        const QString read = harness.model.indexForToolUseId(QStringLiteral("t-read"))
                                 .data(Qt::DisplayRole)
                                 .toString();
        QVERIFY2(read.contains(QLatin1String("invoice<U+202E>fdp.exe<U+000A>second<U+E0041>")),
            qPrintable(read));
        const QString bash = harness.model.indexForToolUseId(QStringLiteral("t-bash"))
                                 .data(Qt::DisplayRole)
                                 .toString();
        QVERIFY2(
            bash.contains(QLatin1String("<U+001B>]0;title<U+0007><U+009B>")), qPrintable(bash));
        // What the model keeps (for exports, search and the detail pane) is the exact text.
        QCOMPARE(harness.model.indexForToolUseId(QStringLiteral("t-read"))
                     .data(RunModel::DetailRole)
                     .value<RunNodeDetails>()
                     .input.filePath,
            path);
    }
};

QTEST_GUILESS_MAIN(TestRunModel)
#include "tst_runmodel.moc"
