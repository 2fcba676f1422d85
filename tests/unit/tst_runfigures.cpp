// One set of figures (issue 25, docs/stream-json.md "Figures"): the run tree, the summary, the
// exports, Compare and the CLI state the same facts about a run. Each walkthrough
// inconsistency of the issue is reproduced here, and the invariants are checked over every
// capture, recording and transcript in tests/data, also cut short and read in random pieces.

#include "compare/runcomparison.h"
#include "export/exportjob.h"
#include "export/runexporter.h"
#include "recordings/runrecording.h"
#include "runnodes.h"
#include "runs/loadedrun.h"
#include "runtree/runmodel.h"
#include "sandscopecli.h"
#include "streamjson/runfacts.h"
#include "streamjson/runparser.h"
#include "testing.h"
#include "util/format.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

using namespace sandscope;
using sandscope::test::nodesOfKind;

namespace {

QString dataPath(const QString &name)
{
    return QStringLiteral(SANDSCOPE_TEST_DATA_DIR "/") + name;
}

QStringList runFiles()
{
    return sandscope::test::runFilesInTestData();
}

struct Loaded {
    LoadedRun run;
    std::unique_ptr<RunModel> model = std::make_unique<RunModel>();
};

std::unique_ptr<Loaded> load(const QString &path)
{
    auto loaded = std::make_unique<Loaded>();
    QString error;
    if (!LoadedRun::fromFile(path, &loaded->run, &error))
        qWarning("%s: %s", qPrintable(path), qPrintable(error));
    loaded->run.buildModel(loaded->model.get());
    return loaded;
}

// Feeds lines with the arrival times given, as a live run receives them.
void feed(RunModel *model, const QList<QPair<qint64, QByteArray>> &lines)
{
    RunParser parser;
    QObject::connect(&parser, &RunParser::eventsReady, model, &RunModel::addEvents);
    for (const auto &line : lines)
        parser.feedLine(line.second, line.first);
}

TokenUsage tokensOf(const QModelIndex &index)
{
    TokenUsage usage;
    usage.inputTokens = index.data(RunModel::InputTokensRole).toLongLong();
    usage.outputTokens = index.data(RunModel::OutputTokensRole).toLongLong();
    usage.cacheReadInputTokens = index.data(RunModel::CacheReadTokensRole).toLongLong();
    usage.cacheCreationInputTokens = index.data(RunModel::CacheCreationTokensRole).toLongLong();
    return usage;
}

QString text(const TokenUsage &u)
{
    return QStringLiteral("%1 in, %2 out, %3 cache read, %4 cache written")
        .arg(u.inputTokens)
        .arg(u.outputTokens)
        .arg(u.cacheReadInputTokens)
        .arg(u.cacheCreationInputTokens);
}

QString summaryTokens(const RunSummary &s)
{
    TokenUsage u;
    u.inputTokens = s.inputTokens;
    u.outputTokens = s.outputTokens;
    u.cacheReadInputTokens = s.cacheReadTokens;
    u.cacheCreationInputTokens = s.cacheCreationTokens;
    return text(u);
}

// Every node with a span (start and end known) lies inside its parent's span.
void verifySpansNest(const RunModel &model, const QModelIndex &parent, const QString &where)
{
    const qint64 parentStart = parent.data(RunModel::StartedAtMsRole).toLongLong();
    const QVariant parentDuration = parent.data(RunModel::DurationMsRole);
    for (int row = 0; row < model.rowCount(parent); ++row) {
        const QModelIndex child = model.index(row, 0, parent);
        const QVariant start = child.data(RunModel::StartedAtMsRole);
        const QVariant duration = child.data(RunModel::DurationMsRole);
        if (start.isValid() && duration.isValid() && parentDuration.isValid()) {
            const qint64 childEnd = start.toLongLong() + duration.toLongLong();
            const qint64 parentEnd = parentStart + parentDuration.toLongLong();
            QVERIFY2(start.toLongLong() >= parentStart && childEnd <= parentEnd,
                qPrintable(QStringLiteral("%1: \"%2\" spans %3..%4, outside \"%5\" %6..%7")
                               .arg(where, child.data().toString())
                               .arg(start.toLongLong())
                               .arg(childEnd)
                               .arg(parent.data().toString())
                               .arg(parentStart)
                               .arg(parentEnd)));
        }
        verifySpansNest(model, child, where);
        if (QTest::currentTestFailed())
            return;
    }
}

// The value of "Name: value" or "| Name | value |" or "<dt>Name</dt><dd>value</dd>" in an
// export or the replay text.
QString rowValue(const QString &text, const QString &name)
{
    const QRegularExpression plain(
        QStringLiteral("^%1:\\s+(.*)$").arg(QRegularExpression::escape(name)),
        QRegularExpression::MultilineOption);
    const QRegularExpression table(
        QStringLiteral("^\\| %1 \\| (.*) \\|$").arg(QRegularExpression::escape(name)),
        QRegularExpression::MultilineOption);
    const QRegularExpression html(
        QStringLiteral("<dt>%1</dt><dd>([^<]*)</dd>").arg(QRegularExpression::escape(name)));
    const QRegularExpression *patterns[] = {&plain, &table, &html};
    for (const QRegularExpression *pattern : patterns) {
        const QRegularExpressionMatch match = pattern->match(text);
        if (!match.hasMatch())
            continue;
        QString value = match.captured(1).trimmed();
        if (pattern == &table) // Markdown escapes its punctuation
            value.replace(QRegularExpression(QStringLiteral("\\\\(.)")), QStringLiteral("\\1"));
        return value;
    }
    return QString();
}

QString exported(const RunModel &model, RunExporter::Format format, const QString &source = {})
{
    ExportJob job(model, source, {}, false);
    return QString::fromUtf8(job.render(format));
}

// The tree's figures against the summary's: the invariants of docs/stream-json.md, "Figures".
// An empty string when they hold, else what differs.
QString figuresDiffer(const RunModel &model, bool ended)
{
    const RunSummary summary = model.summary();
    const QModelIndex run = model.runIndex();
    const QList<QModelIndex> turns = nodesOfKind(&model, RunModel::NodeKind::Turn);
    if (summary.turns != turns.size())
        return QStringLiteral("turns: summary %1, tree %2").arg(summary.turns).arg(turns.size());
    TokenUsage sum;
    for (const QModelIndex &turn : turns)
        sum += tokensOf(turn);
    if (text(tokensOf(run)) != text(sum))
        return QStringLiteral("run tokens %1, its turns' %2").arg(text(tokensOf(run)), text(sum));
    if (text(tokensOf(run)) != summaryTokens(summary))
        return QStringLiteral("run tokens %1, summary %2")
            .arg(text(tokensOf(run)), summaryTokens(summary));
    if (qAbs(run.data(RunModel::CostUsdRole).toDouble() - summary.costUsd) > 1e-12)
        return QStringLiteral("run cost %1, summary %2")
            .arg(run.data(RunModel::CostUsdRole).toDouble())
            .arg(summary.costUsd);
    const QVariant duration = run.data(RunModel::DurationMsRole);
    if (duration.isValid() && duration.toLongLong() != summary.durationMs)
        return QStringLiteral("run duration %1, summary %2")
            .arg(duration.toLongLong())
            .arg(summary.durationMs);
    if (ended) {
        const auto status = RunModel::Status(run.data(RunModel::StatusRole).toInt());
        const runfacts::Outcome outcome = runfacts::outcomeOf(summary);
        const bool same
            = (status == RunModel::Status::Ok && outcome == runfacts::Outcome::Succeeded)
            || (status == RunModel::Status::Error && outcome == runfacts::Outcome::Failed)
            || (status == RunModel::Status::Interrupted
                && outcome == runfacts::Outcome::Interrupted);
        if (!same)
            return QStringLiteral("run status %1, summary outcome %2")
                .arg(int(status))
                .arg(runfacts::outcomeText(summary));
    }
    return {};
}

// Each turn's tokens in the tree against the summary's figure for the same turn (a builder fed
// the same events). An empty string when they agree, else the first turn that differs.
QString turnTokensDiffer(const RunModel &model, const RunEvent *begin, const RunEvent *end)
{
    RunSummaryBuilder builder;
    for (const RunEvent *event = begin; event != end; ++event)
        builder.add(*event);
    const QList<QModelIndex> turns = nodesOfKind(&model, RunModel::NodeKind::Turn);
    if (builder.turnCount() != turns.size())
        return QStringLiteral("turns: summary %1, tree %2")
            .arg(builder.turnCount())
            .arg(turns.size());
    for (int turn = 0; turn < turns.size(); ++turn) {
        const QString tree = text(tokensOf(turns.at(turn)));
        const QString summary = text(builder.turnTokens(turn));
        if (tree != summary)
            return QStringLiteral("turn %1 tokens: tree %2, summary %3")
                .arg(turn + 1)
                .arg(tree, summary);
    }
    return {};
}

} // namespace

class TestRunFigures : public QObject {
    Q_OBJECT

private slots:
    // Walkthrough: Turn 1 "24 in · 2 out" while its Result said "24 in · 14 out". The
    // per-block lines' output counts are provisional; the result line has the final ones.
    void turnTokensAreItsResultsTokens()
    {
        const auto loaded = load(dataPath(QStringLiteral("stream-basic.jsonl")));
        const QList<QModelIndex> turns = nodesOfKind(loaded->model.get(), RunModel::NodeKind::Turn);
        QCOMPARE(turns.size(), 1);
        const QList<QModelIndex> results
            = nodesOfKind(loaded->model.get(), RunModel::NodeKind::Result);
        QCOMPARE(results.size(), 1);
        QCOMPARE(text(tokensOf(turns.first())), text(tokensOf(results.first())));
    }

    // Walkthrough: the run node "36 in · 3 out" while the summary bar said "36 in · 21 out".
    void runTokensAreTheSummarysTokens()
    {
        const auto loaded = load(dataPath(QStringLiteral("stream-resume-same.jsonl")));
        QCOMPARE(
            text(tokensOf(loaded->model->runIndex())), summaryTokens(loaded->model->summary()));
    }

    // Walkthrough: a Bash call of 13.6 s inside Turn 1 of 10.4 s: the turn showed claude's
    // duration_ms, the call the arrival times. One clock: both by arrival; duration_ms is a
    // separate fact.
    void childSpanLiesInsideItsTurn()
    {
        RunModel model;
        feed(&model,
            {{1000,
                 R"({"type":"system","subtype":"init","session_id":"s","model":"m","cwd":"/w"})"},
                {1100,
                    R"({"type":"assistant","message":{"id":"a1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"sleep 13"}}],"usage":{"input_tokens":5,"output_tokens":1}}})"},
                {14700,
                    R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"done"}]}})"},
                {14800,
                    R"({"type":"result","subtype":"success","is_error":false,"duration_ms":10400,"num_turns":2,"total_cost_usd":0.01,"usage":{"input_tokens":5,"output_tokens":9}})"}});
        model.markRunEnded(14900);
        verifySpansNest(model, model.runIndex(), QStringLiteral("live run"));
        const QModelIndex turn = nodesOfKind(&model, RunModel::NodeKind::Turn).first();
        QCOMPARE(turn.data(RunModel::DurationMsRole).toLongLong(), 13800);
        QCOMPARE(turn.data(RunModel::ClaudeDurationMsRole).toLongLong(), 10400);
        // A result is a point event: no span of its own.
        const QModelIndex result = nodesOfKind(&model, RunModel::NodeKind::Result).first();
        QVERIFY(!result.data(RunModel::DurationMsRole).isValid());
        // The run: from its first line to its end (the process exit at 14,900 ms).
        QCOMPARE(model.summary().durationMs, 13900);
        QCOMPARE(model.runIndex().data(RunModel::DurationMsRole).toLongLong(), 13900);
        QCOMPARE(model.summary().claudeDurationMs, 10400);
    }

    // A background agent's call ends when its task does, after the turn's result: the turn,
    // and the run, last until then.
    void backgroundCallEndsInsideItsTurn()
    {
        RunModel model;
        feed(&model,
            {{1000, R"({"type":"system","subtype":"init","session_id":"s","model":"m"})"},
                {1100,
                    R"({"type":"assistant","message":{"id":"a1","content":[{"type":"tool_use","id":"t1","name":"Agent","input":{"prompt":"x","run_in_background":true}}],"usage":{"input_tokens":5,"output_tokens":1}}})"},
                {1200,
                    R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"launched"}]},"tool_use_result":{"status":"async_launched"}})"},
                {1300,
                    R"({"type":"result","subtype":"success","is_error":false,"duration_ms":250,"num_turns":1,"total_cost_usd":0.01,"usage":{"input_tokens":5,"output_tokens":9}})"},
                {9000,
                    R"({"type":"system","subtype":"task_notification","tool_use_id":"t1","task_id":"k1","status":"completed"})"}});
        verifySpansNest(model, model.runIndex(), QStringLiteral("live"));
        QCOMPARE(figuresDiffer(model, false), QString());
        model.markRunEnded(9100);
        verifySpansNest(model, model.runIndex(), QStringLiteral("ended"));
        QCOMPARE(figuresDiffer(model, true), QString());
    }

    // A background agent's API response arriving during a later turn belongs to the turn of the
    // call that started the agent, where the tree nests it: before, the summary gave it to the
    // turn open when it arrived, so while turn 2 ran the summary's run tokens held the agent's
    // 12 in / 1 out and the tree's did not. Checked after every event of the fixture.
    void backgroundAgentTokensBelongToTheTurnOfItsCall()
    {
        const auto loaded = load(dataPath(QStringLiteral("recordings/background-agent.jsonl")));
        const RunEventBatch &events = loaded->run.events;
        QVERIFY(events.size() > 10);
        for (qsizetype cut = 0; cut <= events.size(); ++cut) {
            RunModel model;
            model.addEventRange(events.constData(), events.constData() + cut);
            const QString where
                = QStringLiteral("cut after %1 of %2 events: ").arg(cut).arg(events.size());
            const QString turns
                = turnTokensDiffer(model, events.constData(), events.constData() + cut);
            QVERIFY2(turns.isEmpty(), qPrintable(where + turns));
            QVERIFY2(figuresDiffer(model, false).isEmpty(),
                qPrintable(where + figuresDiffer(model, false)));
        }
        // The agent's call holds its sub-agent's response (12 in, 1 out) besides the call's own
        // message, and turn 1 keeps its result's final counts.
        const QList<QModelIndex> turns = nodesOfKind(loaded->model.get(), RunModel::NodeKind::Turn);
        QCOMPARE(turns.size(), 2);
        const QList<QModelIndex> results
            = nodesOfKind(loaded->model.get(), RunModel::NodeKind::Result);
        QCOMPARE(results.size(), 2);
        QCOMPARE(text(tokensOf(turns.at(0))), text(tokensOf(results.at(0))));
        QCOMPARE(text(tokensOf(turns.at(1))), text(tokensOf(results.at(1))));
    }

    // Walkthrough: replay, Markdown and HTML said "Turns: 3" for a run of 2 turns (claude's
    // num_turns, the round trips, labelled as turns).
    // Each stream capture also as a recording, its lines arriving at random moments (the
    // live clock), so that every kind of run file is checked.
    void initTestCase()
    {
        QVERIFY(m_recordings.isValid());
        m_files = runFiles();
        QRandomGenerator random(20261203);
        for (const QString &path : runFiles()) {
            if (!QFileInfo(path).fileName().startsWith(QLatin1String("stream")))
                continue;
            QFile capture(path);
            QVERIFY(capture.open(QIODevice::ReadOnly));
            const QString recording
                = m_recordings.filePath(QDir(QStringLiteral(SANDSCOPE_TEST_DATA_DIR))
                                            .relativeFilePath(path)
                                            .replace(QLatin1Char('/'), QLatin1Char('-'))
                    + QStringLiteral(".recording"));
            RunRecorder recorder;
            QVERIFY(recorder.open(recording));
            qint64 t = 1'700'000'000'000;
            for (const QByteArray &line : capture.readAll().split('\n'))
                if (!line.isEmpty())
                    recorder.record(line, t += random.bounded(3000));
            recorder.close();
            m_files.append(recording);
        }
    }

    void turnsFigureCountsTurnNodes_data()
    {
        QTest::addColumn<QString>("path");
        for (const QString &path : std::as_const(m_files))
            QTest::newRow(
                qPrintable(QDir(QStringLiteral(SANDSCOPE_TEST_DATA_DIR)).relativeFilePath(path)))
                << path;
    }
    void turnsFigureCountsTurnNodes()
    {
        QFETCH(QString, path);
        const auto loaded = load(path);
        const int turns = int(nodesOfKind(loaded->model.get(), RunModel::NodeKind::Turn).size());
        QCOMPARE(loaded->model->summary().turns, turns);
        for (auto format : {RunExporter::Format::Markdown, RunExporter::Format::Html})
            QCOMPARE(rowValue(exported(*loaded->model, format), QStringLiteral("Turns")),
                QString::number(turns));
        const test::CliOutcome replay
            = test::runSandscope({QStringLiteral("replay"), path, QStringLiteral("--summary")});
        QCOMPARE(rowValue(QString::fromUtf8(replay.out), QStringLiteral("Turns")),
            QString::number(turns));
        const ComparedRun side = ComparedRun::fromModel(*loaded->model);
        const RunComparison comparison = RunComparison::compare(side, side);
        bool found = false;
        for (const RunComparison::Delta &delta : comparison.deltas()) {
            if (delta.key == QLatin1String("turns")) {
                QCOMPARE(delta.left, double(turns));
                QCOMPARE(delta.right, double(turns));
                found = true;
            }
        }
        QVERIFY(found);
    }

    // A transcript records no result lines, so not claude's num_turns: its round trips are
    // "not recorded" (null in JSON) in every surface, never 0 shown as a count, and Compare of it
    // with a capture claims no difference in round trips. Likewise a capture cut before its
    // result line.
    // A transcript's claude duration is its turn_duration records' durationMs summed (the
    // REPL's; `claude -p` writes none): the same figure in the tree's run node, the summary,
    // `replay --json` and `--summary`, and the Markdown, HTML and JSON exports; without any
    // record it is not stated (null, no row). docs/stream-json.md, "Figures".
    void claudeDurationOfATranscriptIsItsTurnDurations_data()
    {
        roundTripsWithoutResultLinesAreNotRecorded_data();
    }
    void claudeDurationOfATranscriptIsItsTurnDurations()
    {
        QFETCH(QString, path);
        qint64 expected = -1;
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        for (const QByteArray &line : file.readAll().split('\n')) {
            const QJsonObject record = QJsonDocument::fromJson(line).object();
            if (record.value(QLatin1String("type")).toString() == QLatin1String("system")
                && record.value(QLatin1String("subtype")).toString()
                    == QLatin1String("turn_duration"))
                expected = std::max<qint64>(0, expected)
                    + qint64(record.value(QLatin1String("durationMs")).toDouble());
        }
        const auto loaded = load(path);
        const RunSummary summary = loaded->model->summary();
        QCOMPARE(summary.claudeDurationMs, expected);
        const QVariant runFigure = loaded->model->runIndex().data(RunModel::ClaudeDurationMsRole);
        QCOMPARE(runFigure.isValid() ? runFigure.toLongLong() : -1, expected);
        const QJsonValue printed = QJsonDocument::fromJson(
            test::runSandscope({QStringLiteral("replay"), path, QStringLiteral("--json")}).out)
                                       .object()
                                       .value(QLatin1String("claude_duration_ms"));
        QCOMPARE(printed.isNull() ? -1 : qint64(printed.toDouble()), expected);
        const QJsonValue exportedFigure
            = QJsonDocument::fromJson(exported(*loaded->model, RunExporter::Format::Json).toUtf8())
                  .object()
                  .value(QLatin1String("summary"))
                  .toObject()
                  .value(QLatin1String("claude_duration_ms"));
        QCOMPARE(exportedFigure.isNull() ? -1 : qint64(exportedFigure.toDouble()), expected);
        // The text rows state it where it differs from the span (runfacts::rows).
        const QString row = expected >= 0 && expected != summary.durationMs
            ? format::duration(expected)
            : QString();
        QCOMPARE(rowValue(QString::fromUtf8(test::runSandscope(
                              {QStringLiteral("replay"), path, QStringLiteral("--summary")})
                                                .out),
                     runfacts::claudeDurationLabel()),
            row);
        for (auto format : {RunExporter::Format::Markdown, RunExporter::Format::Html})
            QCOMPARE(
                rowValue(exported(*loaded->model, format), runfacts::claudeDurationLabel()), row);
    }

    void roundTripsWithoutResultLinesAreNotRecorded_data()
    {
        QTest::addColumn<QString>("path");
        for (const QString &path : runFiles())
            if (path.contains(QLatin1String("transcript"))
                && !QFileInfo(path).fileName().startsWith(QLatin1String("stream")))
                QTest::newRow(qPrintable(
                    QDir(QStringLiteral(SANDSCOPE_TEST_DATA_DIR)).relativeFilePath(path)))
                    << path;
        QTest::newRow("stream-sigterm.jsonl") << dataPath(QStringLiteral("stream-sigterm.jsonl"));
    }
    void roundTripsWithoutResultLinesAreNotRecorded()
    {
        QFETCH(QString, path);
        const auto loaded = load(path);
        const RunSummary summary = loaded->model->summary();
        QVERIFY(!summary.hasResult);
        QVERIFY(summary.toJson().value(QLatin1String("round_trips")).isNull());
        const test::CliOutcome json
            = test::runSandscope({QStringLiteral("replay"), path, QStringLiteral("--json")});
        QVERIFY(QJsonDocument::fromJson(json.out)
                    .object()
                    .value(QLatin1String("round_trips"))
                    .isNull());
        const test::CliOutcome replay
            = test::runSandscope({QStringLiteral("replay"), path, QStringLiteral("--summary")});
        QVERIFY2(rowValue(QString::fromUtf8(replay.out), runfacts::roundTripsLabel())
                     .startsWith(QLatin1String("not recorded")),
            replay.out.constData());
        for (auto format : {RunExporter::Format::Markdown, RunExporter::Format::Html}) {
            const QString value
                = rowValue(exported(*loaded->model, format), runfacts::roundTripsLabel());
            QVERIFY2(value.startsWith(QLatin1String("not recorded")), qPrintable(value));
        }
        const QJsonObject exportedJson
            = QJsonDocument::fromJson(exported(*loaded->model, RunExporter::Format::Json).toUtf8())
                  .object();
        QVERIFY2(!exportedJson.isEmpty(), "the JSON export parses");
        QVERIFY(!QJsonDocument(exportedJson).toJson().contains("\"round_trips\": 0"));
        // Nor a claude duration no result line told: null, never -1 (or 0) as a figure.
        const QByteArray exportedText = QJsonDocument(exportedJson).toJson();
        QVERIFY2(!exportedText.contains("\"claude_duration_ms\": -1"), exportedText.constData());

        const auto recorded = load(dataPath(QStringLiteral("stream-basic.jsonl")));
        const RunComparison comparison = RunComparison::compare(
            ComparedRun::fromModel(*loaded->model), ComparedRun::fromModel(*recorded->model));
        bool found = false;
        for (const RunComparison::Delta &delta : comparison.deltas()) {
            if (delta.key != QLatin1String("round_trips"))
                continue;
            found = true;
            QVERIFY2(!delta.differs(), "a count not recorded on one side is no difference");
        }
        QVERIFY(found);
    }

    // Walkthrough: File › Export Run… of a finished, succeeded run wrote "Outcome: running
    // when exported": the window's run stays open for follow-ups, so its model never sees
    // the end of the run, though its turn has its result.
    void settledRunIsNotExportedAsRunning()
    {
        RunModel model;
        QFile file(dataPath(QStringLiteral("stream-basic.jsonl")));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QList<QPair<qint64, QByteArray>> lines;
        qint64 t = 1000;
        for (const QByteArray &line : file.readAll().split('\n'))
            if (!line.isEmpty())
                lines.append({t += 10, line});
        feed(&model, lines);
        QVERIFY(!model.runEnded()); // the live chat's run: no process exit seen
        for (auto format : {RunExporter::Format::Markdown, RunExporter::Format::Html})
            QCOMPARE(rowValue(exported(model, format), QStringLiteral("Outcome")),
                QStringLiteral("succeeded"));
    }

    // A run still live when exported says so and how far it got.
    void liveRunIsExportedAsRunningWithItsProgress()
    {
        RunModel model;
        feed(&model,
            {{1000, R"({"type":"system","subtype":"init","session_id":"s","model":"m"})"},
                {1100,
                    R"({"type":"assistant","message":{"id":"a1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}],"usage":{"input_tokens":5,"output_tokens":1}}})"}});
        const QString outcome
            = rowValue(exported(model, RunExporter::Format::Markdown), QStringLiteral("Outcome"));
        QVERIFY2(outcome.startsWith(QLatin1String("running when exported")), qPrintable(outcome));
        QVERIFY2(outcome.contains(QLatin1String("turn 1")), qPrintable(outcome));
        QVERIFY2(outcome.contains(QLatin1String("1 tool call")), qPrintable(outcome));
    }

    // The invariants on every run file, whole, cut after any number of its events, and
    // applied in random batches: Turn nodes = the turns figure; the run's tokens = the sum
    // over its turns = the summary's; its cost and duration = the summary's; every child's
    // span inside its parent's; an ended run's status = the summary's outcome.
    void figuresAgreeOnEveryRunCutAnywhere_data() { turnsFigureCountsTurnNodes_data(); }
    void figuresAgreeOnEveryRunCutAnywhere()
    {
        QFETCH(QString, path);
        const auto loaded = load(path);
        QCOMPARE(figuresDiffer(*loaded->model, true), QString());
        verifySpansNest(*loaded->model, loaded->model->runIndex(), path);
        const RunEventBatch &events = loaded->run.events;
        QRandomGenerator random(quint32(qHash(path)));
        for (int round = 0; round < 12; ++round) {
            const qsizetype cut = round == 0 ? events.size() : random.bounded(events.size() + 1);
            RunModel model;
            for (qsizetype at = 0; at < cut;) {
                const qsizetype batch = std::min<qsizetype>(cut - at, 1 + random.bounded(9));
                model.addEventRange(events.constData() + at, events.constData() + at + batch);
                at += batch;
            }
            const QString where = QStringLiteral("%1 cut after %2 of %3 events")
                                      .arg(path)
                                      .arg(cut)
                                      .arg(events.size());
            QVERIFY2(figuresDiffer(model, false).isEmpty(),
                qPrintable(where + QStringLiteral(" (live): ") + figuresDiffer(model, false)));
            const QString turns
                = turnTokensDiffer(model, events.constData(), events.constData() + cut);
            QVERIFY2(turns.isEmpty(), qPrintable(where + QStringLiteral(": ") + turns));
            model.markRunEnded(cut > 0 ? events.at(cut - 1).arrivalMs : 0);
            QVERIFY2(figuresDiffer(model, true).isEmpty(),
                qPrintable(where + QStringLiteral(": ") + figuresDiffer(model, true)));
            verifySpansNest(model, model.runIndex(), where);
            if (QTest::currentTestFailed())
                return;
        }
    }

    // A capture cut after any line: the fast path (replay --summary) states what the tree
    // built from the same lines does.
    void fastSummaryOfACutCaptureIsTheTrees_data() { turnsFigureCountsTurnNodes_data(); }
    void fastSummaryOfACutCaptureIsTheTrees()
    {
        QFETCH(QString, path);
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = file.readAll().split('\n');
        QTemporaryDir dir;
        QRandomGenerator random(quint32(qHash(path)) + 1);
        for (int round = 0; round < 6; ++round) {
            const qsizetype keep = 1 + random.bounded(lines.size());
            const QString cut = dir.filePath(QFileInfo(path).fileName());
            QFile out(cut);
            QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
            out.write(lines.mid(0, keep).join('\n'));
            out.close();
            RunSummary fast;
            QVERIFY(summarizeRunFile(cut, &fast));
            const auto loaded = load(cut);
            const RunSummary tree = loaded->model->summary();
            QVERIFY2(QJsonDocument(fast.toJson()).toJson() == QJsonDocument(tree.toJson()).toJson(),
                qPrintable(QStringLiteral("%1 cut after %2 lines: fast %3, tree %4")
                               .arg(path)
                               .arg(keep)
                               .arg(QString::fromUtf8(QJsonDocument(fast.toJson()).toJson()),
                                   QString::fromUtf8(QJsonDocument(tree.toJson()).toJson()))));
            QCOMPARE(figuresDiffer(*loaded->model, true), QString());
        }
    }

    // The outcome of an ended run in the tree, the summary, `replay --json` and every export
    // format (the JSON export read back), and Compare of a run with itself: equal figures.
    void outcomeIsTheSameEverywhere_data() { turnsFigureCountsTurnNodes_data(); }
    void outcomeIsTheSameEverywhere()
    {
        QFETCH(QString, path);
        const auto loaded = load(path);
        const RunSummary summary = loaded->model->summary();
        const QString outcome = runfacts::outcomeText(summary);
        for (auto format : {RunExporter::Format::Markdown, RunExporter::Format::Html})
            QCOMPARE(
                rowValue(exported(*loaded->model, format), QStringLiteral("Outcome")), outcome);
        QTemporaryDir dir;
        const QString json = dir.filePath(QStringLiteral("run.json"));
        QFile file(json);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(exported(*loaded->model, RunExporter::Format::Json).toUtf8());
        file.close();
        const auto reopened = load(json);
        QCOMPARE(runfacts::outcomeText(reopened->model->summary()), outcome);
        QCOMPARE(QJsonDocument(reopened->model->summary().toJson()).toJson(),
            QJsonDocument(summary.toJson()).toJson());
        const test::CliOutcome replay
            = test::runSandscope({QStringLiteral("replay"), path, QStringLiteral("--json")});
        const QJsonObject printed = QJsonDocument::fromJson(replay.out).object();
        QCOMPARE(printed.value(QLatin1String("outcome")).toString(), outcome);
        QCOMPARE(printed.value(QLatin1String("turns")).toInt(), summary.turns);
        QCOMPARE(printed.value(QLatin1String("duration_ms")).toVariant().toLongLong(),
            summary.durationMs);
        QCOMPARE(
            replay.exitCode, runfacts::outcomeOf(summary) == runfacts::Outcome::Succeeded ? 0 : 1);

        const ComparedRun side = ComparedRun::fromModel(*loaded->model);
        const RunComparison comparison = RunComparison::compare(side, side);
        for (const RunComparison::Delta &delta : comparison.deltas()) {
            QVERIFY2(delta.isText ? delta.leftText == delta.rightText : delta.left == delta.right,
                qPrintable(delta.name));
            if (delta.key == QLatin1String("outcome"))
                QCOMPARE(delta.leftText, outcome);
        }
    }

    // Exports name the source by its file name only (the window passes the recording's path).
    void exportsNameTheSourceByFileName()
    {
        const auto loaded = load(dataPath(QStringLiteral("stream-basic.jsonl")));
        const QString source = RunExporter::sourceOfFile(
            QStringLiteral("/home/someone/.local/share/sandscope/recordings/run-1.jsonl"));
        const QString md = exported(*loaded->model, RunExporter::Format::Markdown, source);
        QCOMPARE(rowValue(md, QStringLiteral("Source")), QStringLiteral("run-1.jsonl"));
        QVERIFY(!md.contains(QLatin1String("/home/someone")));
    }

private:
    QTemporaryDir m_recordings;
    QStringList m_files;
};

QTEST_GUILESS_MAIN(TestRunFigures)
#include "tst_runfigures.moc"
