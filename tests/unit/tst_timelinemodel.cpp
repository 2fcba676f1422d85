// The timeline of a run (TimelineModel over RunModel), under QAbstractItemModelTester: every
// tool call of the real captures and transcripts in tests/data starts at its tool_use line's
// timestamp and ends at its tool_result line's, read here straight from the JSON; calls that
// overlap lie in distinct lanes, a sub-agent's calls in a group nested under its Agent call;
// building the timeline event by event gives what building it from the finished run gives; a
// source reset rebuilds it; a running call grows with the clock and stops at its result; the
// tooltip names the tool, its duration and its tokens.

#include "recordings/runrecording.h"
#include "runtree/runmodel.h"
#include "streamjson/runparser.h"
#include "timeline/timelinemodel.h"
#include "util/format.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QtTest>

#include <algorithm>
#include <map>

using namespace sandscope;
using Item = TimelineModel::Item;
using ItemKind = TimelineModel::ItemKind;
using Status = RunModel::Status;

namespace {

QString dataPath(const QString &name)
{
    return QStringLiteral(SANDSCOPE_TEST_DATA_DIR) + QLatin1Char('/') + name;
}

// The main transcript of a recorded scenario.
QString transcriptOf(const QString &scenario)
{
    const QDir dir(dataPath(QStringLiteral("transcripts/%1/transcript").arg(scenario)));
    const QStringList files = dir.entryList({QStringLiteral("*.jsonl")}, QDir::Files);
    return files.isEmpty() ? QString() : dir.filePath(files.first());
}

// Every event of a file the way the app reads it (RecordingReader, RunParser), with the time of
// the last one.
RunEventBatch eventsOf(const QString &path, qint64 *lastMs = nullptr)
{
    RunEventBatch all;
    RecordingReader reader;
    if (!reader.open(path))
        return all;
    RunParser parser;
    RecordedLine line;
    while (reader.readLine(&line))
        all += reader.eventsOf(parser, line);
    all += reader.finishReading();
    if (lastMs) {
        *lastMs = 0;
        for (const RunEvent &event : all)
            *lastMs = std::max(*lastMs, event.arrivalMs);
    }
    return all;
}

void load(const QString &path, RunModel *model)
{
    qint64 last = 0;
    model->addEvents(eventsOf(path, &last));
    model->markRunEnded(last);
}

// The JSON files of a fixture: a capture, or a transcript with its sub-agents' files.
QStringList jsonFilesOf(const QString &path)
{
    QStringList files {path};
    const QString subagents = path.left(path.size() - 6) + QStringLiteral("/subagents");
    QDirIterator it(subagents, {QStringLiteral("*.jsonl")}, QDir::Files);
    while (it.hasNext())
        files.append(it.next());
    return files;
}

struct ExpectedCall {
    qint64 startMs = -1;
    qint64 endMs = -1;
    bool isError = false;
};

// Each call's times from the lines themselves: its tool_use block's line and its tool_result
// block's line carry "timestamp".
std::map<QString, ExpectedCall> expectedCalls(const QString &path)
{
    std::map<QString, ExpectedCall> calls;
    for (const QString &name : jsonFilesOf(path)) {
        QFile file(name);
        if (!file.open(QIODevice::ReadOnly))
            continue;
        for (const QByteArray &line : file.readAll().split('\n')) {
            const QJsonObject object = QJsonDocument::fromJson(line).object();
            const QString stamp = object.value(QLatin1String("timestamp")).toString();
            if (stamp.isEmpty())
                continue;
            const qint64 ms = QDateTime::fromString(stamp, Qt::ISODateWithMs).toMSecsSinceEpoch();
            const QJsonValue content
                = object.value(QLatin1String("message")).toObject().value(QLatin1String("content"));
            for (const QJsonValue &block : content.toArray()) {
                const QJsonObject b = block.toObject();
                const QString type = b.value(QLatin1String("type")).toString();
                if (type == QLatin1String("tool_use")) {
                    calls[b.value(QLatin1String("id")).toString()].startMs = ms;
                } else if (type == QLatin1String("tool_result")) {
                    ExpectedCall &call = calls[b.value(QLatin1String("tool_use_id")).toString()];
                    call.endMs = ms;
                    call.isError = b.value(QLatin1String("is_error")).toBool();
                }
            }
        }
    }
    return calls;
}

QString pathOf(QModelIndex index)
{
    QStringList rows;
    for (; index.isValid(); index = index.parent())
        rows.prepend(QString::number(index.row()));
    return rows.join(QLatin1Char('/'));
}

// The timeline as text, one item a line, sorted: where each item is and what it shows. Groups
// are named by their call's node, so two models built in different orders compare.
QStringList describe(const TimelineModel &timeline)
{
    QStringList lines;
    for (int row = 0; row < timeline.itemCount(); ++row) {
        const Item &item = timeline.item(row);
        const TimelineModel::Group &group = timeline.group(item.group);
        const QString groupName
            = group.call < 0 ? QStringLiteral("main") : pathOf(timeline.item(group.call).source);
        const std::vector<int> &listed = item.kind == ItemKind::Call && item.lane >= 0
            ? group.problems.at(size_t(item.lane))
            : group.loudMarks;
        const bool inList = std::find(listed.begin(), listed.end(), row) != listed.end();
        lines.append(QStringLiteral("%1 kind=%2 mark=%3 status=%4 start=%5 end=%6 group=%7 "
                                    "lane=%8 turn=%9 placed=%10 listed=%11")
                         .arg(pathOf(item.source))
                         .arg(int(item.kind))
                         .arg(int(item.mark))
                         .arg(int(item.status))
                         .arg(item.startMs)
                         .arg(timeline.endMs(row))
                         .arg(groupName)
                         .arg(item.lane)
                         .arg(timeline.index(row, 0).data(TimelineModel::TurnRole).toInt())
                         .arg(item.placed)
                         .arg(inList));
    }
    std::sort(lines.begin(), lines.end());
    return lines;
}

int rowOfCall(const TimelineModel &timeline, const QString &toolUseId)
{
    for (int row = 0; row < timeline.itemCount(); ++row) {
        const Item &item = timeline.item(row);
        if (item.kind == ItemKind::Call
            && item.source.data(RunModel::ToolUseIdRole).toString() == toolUseId)
            return row;
    }
    return -1;
}

RunEvent makeEvent(RunEvent::Kind kind, qint64 ms)
{
    RunEvent e;
    e.kind = kind;
    e.arrivalMs = ms;
    return e;
}

RunEvent toolUse(const QString &id, const QString &name, qint64 ms, const QString &parent = {})
{
    RunEvent e = makeEvent(RunEvent::ToolUse, ms);
    e.toolUseId = id;
    e.toolName = name;
    e.parentToolUseId = parent;
    e.input.command = QStringLiteral("echo ") + id;
    return e;
}

RunEvent toolResult(const QString &id, qint64 ms, bool isError = false, const QString &parent = {})
{
    RunEvent e = makeEvent(RunEvent::ToolResult, ms);
    e.toolUseId = id;
    e.isError = isError;
    e.parentToolUseId = parent;
    e.resultText = QStringLiteral("done");
    return e;
}

// A RunModel that resets, as timed playback does: the tree changes without row signals, then
// the views hear modelReset.
class ResettableRunModel : public RunModel {
public:
    using RunModel::RunModel;
    void resetAdding(const RunEventBatch &events)
    {
        beginResetModel();
        {
            const QSignalBlocker quiet(this);
            for (const RunEvent &e : events)
                addEvent(e);
        }
        endResetModel();
    }
};

QStringList fixtures()
{
    QStringList paths;
    for (const QString &name :
        QDir(dataPath(QString()))
            .entryList({QStringLiteral("stream-*.jsonl")}, QDir::Files, QDir::Name))
        paths.append(dataPath(name));
    for (const QString &scenario : QDir(dataPath(QStringLiteral("transcripts")))
                                       .entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
        paths.append(transcriptOf(scenario));
    return paths;
}

} // namespace

class TestTimelineModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void callsSpanTheirLinesTimes_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("stream-basic") << dataPath(QStringLiteral("stream-basic.jsonl"));
        QTest::newRow("stream-subagent") << dataPath(QStringLiteral("stream-subagent.jsonl"));
        for (const char *scenario : {"bash", "parallel", "subagent", "tool-error", "resume"})
            QTest::newRow(scenario) << transcriptOf(QLatin1String(scenario));
    }

    void callsSpanTheirLinesTimes()
    {
        QFETCH(QString, path);
        RunModel model;
        TimelineModel timeline;
        QAbstractItemModelTester tester(
            &timeline, QAbstractItemModelTester::FailureReportingMode::QtTest);
        timeline.setSourceModel(&model);
        load(path, &model);

        const std::map<QString, ExpectedCall> expected = expectedCalls(path);
        QVERIFY(!expected.empty());
        int calls = 0;
        for (int row = 0; row < timeline.itemCount(); ++row)
            calls += timeline.item(row).kind == ItemKind::Call;
        QCOMPARE(calls, int(expected.size()));
        qint64 earliest = std::numeric_limits<qint64>::max();
        for (const auto &[id, call] : expected) {
            const int row = rowOfCall(timeline, id);
            QVERIFY2(row >= 0, qPrintable(id));
            const QModelIndex index = timeline.index(row, 0);
            QCOMPARE(index.data(TimelineModel::StartMsRole).toLongLong(), call.startMs);
            QCOMPARE(index.data(TimelineModel::EndMsRole).toLongLong(), call.endMs);
            QCOMPARE(index.data(TimelineModel::OpenRole).toBool(), false);
            QCOMPARE(Status(index.data(TimelineModel::StatusRole).toInt()),
                call.isError ? Status::Error : Status::Ok);
            QVERIFY(index.data(TimelineModel::LaneRole).toInt() >= 0);
            QVERIFY(index.data(TimelineModel::TurnRole).toInt() >= 1);
            earliest = std::min(earliest, call.startMs);
        }
        // The run starts no later than its first call; every call's turn band covers it.
        QVERIFY(timeline.originMs() >= 0 && timeline.originMs() <= earliest);
        for (int row = 0; row < timeline.itemCount(); ++row) {
            const Item &item = timeline.item(row);
            if (item.kind != ItemKind::Call)
                continue;
            const auto [turnStart, turnEnd]
                = timeline.timeSpan(timeline.turnRows()[size_t(item.turn)]);
            QVERIFY(turnStart <= item.startMs);
            QVERIFY(turnEnd >= timeline.endMs(row));
        }
    }

    void overlappingCallsGetDistinctLanes()
    {
        const QString path = transcriptOf(QStringLiteral("parallel"));
        RunModel model;
        load(path, &model);
        TimelineModel timeline;
        timeline.setSourceModel(&model);
        const std::map<QString, ExpectedCall> expected = expectedCalls(path);
        QCOMPARE(int(expected.size()), 2);
        const ExpectedCall &first = expected.begin()->second;
        const ExpectedCall &second = std::next(expected.begin())->second;
        QVERIFY2(first.startMs < second.endMs && second.startMs < first.endMs,
            "the fixture's calls overlap in time");
        const int a = rowOfCall(timeline, expected.begin()->first);
        const int b = rowOfCall(timeline, std::next(expected.begin())->first);
        QCOMPARE(timeline.item(a).group, 0);
        QCOMPARE(timeline.item(b).group, 0);
        QVERIFY(timeline.item(a).lane != timeline.item(b).lane);
        QCOMPARE(int(timeline.group(0).lanes.size()), 2);
    }

    void sequentialCallsShareALaneAndLanesNeverOverlap()
    {
        // a [0,100], b [50,150] (parallel), c [120,200] reuses a's lane, d [210,220] lane 0.
        RunModel model;
        TimelineModel timeline;
        QAbstractItemModelTester tester(
            &timeline, QAbstractItemModelTester::FailureReportingMode::QtTest);
        timeline.setSourceModel(&model);
        RunEvent init = makeEvent(RunEvent::SessionInit, 0);
        model.addEvent(init);
        model.addEvent(toolUse(QStringLiteral("a"), QStringLiteral("Bash"), 0));
        model.addEvent(toolUse(QStringLiteral("b"), QStringLiteral("Read"), 50));
        model.addEvent(toolResult(QStringLiteral("a"), 100));
        model.addEvent(toolUse(QStringLiteral("c"), QStringLiteral("Grep"), 120));
        model.addEvent(toolResult(QStringLiteral("b"), 150));
        model.addEvent(toolResult(QStringLiteral("c"), 200));
        model.addEvent(toolUse(QStringLiteral("d"), QStringLiteral("Bash"), 210));
        model.addEvent(toolResult(QStringLiteral("d"), 220, true));
        const auto lane = [&](const char *id) {
            return timeline.item(rowOfCall(timeline, QLatin1String(id))).lane;
        };
        QCOMPARE(lane("a"), 0);
        QCOMPARE(lane("b"), 1);
        QCOMPARE(lane("c"), 0);
        QCOMPARE(lane("d"), 0);
        QCOMPARE(timeline.item(rowOfCall(timeline, QStringLiteral("d"))).status, Status::Error);
        // The failed call is listed among its lane's problems, the others are not.
        QCOMPARE(timeline.group(0).problems.at(0),
            (std::vector<int> {rowOfCall(timeline, QStringLiteral("d"))}));
        QVERIFY(timeline.group(0).problems.at(1).empty());
        for (const std::vector<int> &rows : timeline.group(0).lanes) {
            for (size_t i = 1; i < rows.size(); ++i)
                QVERIFY(timeline.endMs(rows[i - 1]) <= timeline.item(rows[i]).startMs);
        }
    }

    void subagentCallsAreNestedUnderTheirAgentCall_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("stream") << dataPath(QStringLiteral("stream-subagent.jsonl"));
        QTest::newRow("transcript") << transcriptOf(QStringLiteral("subagent"));
    }

    void subagentCallsAreNestedUnderTheirAgentCall()
    {
        QFETCH(QString, path);
        RunModel model;
        TimelineModel timeline;
        timeline.setSourceModel(&model);
        load(path, &model);
        int agent = -1;
        int sub = -1;
        for (int row = 0; row < timeline.itemCount(); ++row) {
            const Item &item = timeline.item(row);
            if (item.kind != ItemKind::Call)
                continue;
            if (item.source.data(RunModel::ToolNameRole).toString() == QLatin1String("Agent"))
                agent = row;
            else
                sub = row;
        }
        QVERIFY(agent >= 0 && sub >= 0);
        QCOMPARE(timeline.item(agent).group, 0);
        const int nested = timeline.item(sub).group;
        QVERIFY(nested > 0);
        QCOMPARE(timeline.item(agent).childGroup, nested);
        QCOMPARE(timeline.group(nested).call, agent);
        QCOMPARE(timeline.group(nested).parent, 0);
        QCOMPARE(timeline.group(nested).depth, 1);
        QCOMPARE(timeline.index(sub, 0).data(TimelineModel::DepthRole).toInt(), 1);
        QCOMPARE(timeline.groupOrder(), (std::vector<int> {0, nested}));
        // The sub-agent's prompt is a mark in its group, the agent's call spans its work.
        bool promptInGroup = false;
        for (const int mark : timeline.group(nested).marks)
            promptInGroup
                = promptInGroup || timeline.item(mark).mark == TimelineModel::MarkKind::Prompt;
        QVERIFY(promptInGroup);
        QVERIFY(timeline.item(sub).startMs >= timeline.item(agent).startMs);
        QVERIFY(timeline.endMs(sub) <= timeline.endMs(agent));
        const auto [start, end] = timeline.timeSpan(agent);
        QCOMPARE(start, timeline.item(agent).startMs);
        QCOMPARE(end, timeline.endMs(agent));
        // A tree node maps to its item, a node without one to its nearest ancestor's.
        QCOMPARE(timeline.indexForSource(timeline.item(sub).source).row(), sub);
        QCOMPARE(timeline.sourceIndex(timeline.index(sub, 0)), timeline.item(sub).source);
        QCOMPARE(timeline.indexForSource(model.runIndex()), QModelIndex());
        for (const int mark : timeline.group(nested).marks)
            QCOMPARE(timeline.indexForSource(timeline.item(mark).source).row(), mark);
        for (const int mark : timeline.group(0).marks)
            QCOMPARE(timeline.indexForSource(timeline.item(mark).source).row(), mark);
    }

    void incrementalBuildEqualsBuildFromScratch_data()
    {
        QTest::addColumn<QString>("path");
        for (const QString &path : fixtures()) {
            const QFileInfo file(path);
            // A capture by its name, a transcript by its scenario.
            const QString tag = file.dir().dirName() == QLatin1String("transcript")
                ? QStringLiteral("transcripts/") + QFileInfo(file.path()).dir().dirName()
                : file.fileName();
            QTest::newRow(qPrintable(tag)) << path;
        }
    }

    void incrementalBuildEqualsBuildFromScratch()
    {
        QFETCH(QString, path);
        qint64 last = 0;
        const RunEventBatch events = eventsOf(path, &last);
        QVERIFY(!events.isEmpty());

        RunModel model;
        TimelineModel live;
        QAbstractItemModelTester tester(
            &live, QAbstractItemModelTester::FailureReportingMode::QtTest);
        live.setSourceModel(&model);
        QSignalSpy resets(&live, &QAbstractItemModel::modelReset);
        for (const RunEvent &e : events)
            model.addEvent(e);
        model.markRunEnded(last);
        QCOMPARE(resets.count(), 0);

        TimelineModel scratch;
        scratch.setSourceModel(&model);
        QCOMPARE(describe(live), describe(scratch));
        QCOMPARE(live.originMs(), scratch.originMs());
        QCOMPARE(live.extentEndMs(), scratch.extentEndMs());
        QCOMPARE(live.groupOrder().size(), scratch.groupOrder().size());
    }

    void aSourceResetRebuilds()
    {
        qint64 last = 0;
        const RunEventBatch events
            = eventsOf(dataPath(QStringLiteral("stream-subagent.jsonl")), &last);
        const qsizetype half = events.size() / 2;
        ResettableRunModel model;
        TimelineModel timeline;
        QAbstractItemModelTester tester(
            &timeline, QAbstractItemModelTester::FailureReportingMode::QtTest);
        timeline.setSourceModel(&model);
        model.addEvents(events.mid(0, half));
        const int before = timeline.itemCount();
        QVERIFY(before > 0);

        QSignalSpy aboutToReset(&timeline, &QAbstractItemModel::modelAboutToBeReset);
        QSignalSpy reset(&timeline, &QAbstractItemModel::modelReset);
        QSignalSpy inserted(&timeline, &QAbstractItemModel::rowsInserted);
        model.resetAdding(events.mid(half));
        QCOMPARE(aboutToReset.count(), 1);
        QCOMPARE(reset.count(), 1);
        QCOMPARE(inserted.count(), 0);
        QVERIFY(timeline.itemCount() > before);
        TimelineModel scratch;
        scratch.setSourceModel(&model);
        QCOMPARE(describe(timeline), describe(scratch));

        // It keeps following the source afterwards.
        model.markRunEnded(last);
        TimelineModel after;
        after.setSourceModel(&model);
        QCOMPARE(describe(timeline), describe(after));
        QVERIFY(!timeline.hasOpenItems());
    }

    void aRunningCallGrowsUntilItsResult()
    {
        RunModel model;
        TimelineModel timeline;
        QAbstractItemModelTester tester(
            &timeline, QAbstractItemModelTester::FailureReportingMode::QtTest);
        timeline.setSourceModel(&model);
        QSignalSpy extent(&timeline, &TimelineModel::extentChanged);
        model.addEvent(makeEvent(RunEvent::SessionInit, 1000));
        model.addEvent(toolUse(QStringLiteral("slow"), QStringLiteral("Bash"), 1200));
        const int row = rowOfCall(timeline, QStringLiteral("slow"));
        QVERIFY(row >= 0);
        QVERIFY(timeline.item(row).open());
        QVERIFY(timeline.hasOpenItems());
        QCOMPARE(timeline.endMs(row), qint64(1200));

        extent.clear();
        timeline.setNowMs(5000);
        QCOMPARE(extent.count(), 1);
        QCOMPARE(timeline.index(row, 0).data(TimelineModel::EndMsRole).toLongLong(), 5000);
        QCOMPARE(timeline.extentEndMs(), qint64(5000));
        QVERIFY(timeline.toolTip(row).contains(QStringLiteral("running for 3.8 s")));

        // A later call while it runs goes beside it.
        model.addEvent(toolUse(QStringLiteral("quick"), QStringLiteral("Read"), 1500));
        model.addEvent(toolResult(QStringLiteral("quick"), 1600));
        QCOMPARE(timeline.item(rowOfCall(timeline, QStringLiteral("quick"))).lane, 1);

        QSignalSpy changed(&timeline, &QAbstractItemModel::dataChanged);
        model.addEvent(toolResult(QStringLiteral("slow"), 2500));
        QVERIFY(!changed.isEmpty());
        QVERIFY(!timeline.item(row).open());
        QCOMPARE(timeline.endMs(row), qint64(2500));
        // The turn still runs; the run's extent follows it.
        QCOMPARE(timeline.extentEndMs(), qint64(5000));
        timeline.setNowMs(-1);
        QCOMPARE(timeline.extentEndMs(), qint64(2500));

        // The run ends: a call without a result is interrupted where its turn ended.
        model.addEvent(toolUse(QStringLiteral("cut"), QStringLiteral("Bash"), 2600));
        model.markRunEnded(3000);
        const int cut = rowOfCall(timeline, QStringLiteral("cut"));
        QCOMPARE(timeline.item(cut).status, Status::Interrupted);
        const TimelineModel::Item &cutItem = timeline.item(cut);
        QCOMPARE(timeline.group(cutItem.group).problems.at(size_t(cutItem.lane)),
            (std::vector<int> {cut}));
        QCOMPARE(timeline.endMs(cut), qint64(3000));
    }

    void marksAndDenials()
    {
        RunModel model;
        TimelineModel timeline;
        QAbstractItemModelTester tester(
            &timeline, QAbstractItemModelTester::FailureReportingMode::QtTest);
        timeline.setSourceModel(&model);
        model.addEvent(makeEvent(RunEvent::SessionInit, 0));
        RunEvent thinking = makeEvent(RunEvent::Thinking, 10);
        thinking.text = QStringLiteral("hmm");
        model.addEvent(thinking);
        RunEvent text = makeEvent(RunEvent::AssistantText, 20);
        text.text = QStringLiteral("I'll look");
        model.addEvent(text);
        model.addEvent(toolUse(QStringLiteral("w"), QStringLiteral("Write"), 30));
        RunEvent denied = makeEvent(RunEvent::PermissionDenied, 40);
        denied.toolUseId = QStringLiteral("w");
        denied.text = QStringLiteral("not allowed");
        model.addEvent(denied);
        RunEvent error = makeEvent(RunEvent::ApiError, 50);
        error.text = QStringLiteral("overloaded");
        model.addEvent(error);

        QList<TimelineModel::MarkKind> marks;
        for (const int row : timeline.group(0).marks)
            marks.append(timeline.item(row).mark);
        QCOMPARE(marks,
            (QList<TimelineModel::MarkKind> {TimelineModel::MarkKind::Thinking,
                TimelineModel::MarkKind::Text, TimelineModel::MarkKind::Error}));
        QCOMPARE(timeline.group(0).loudMarks.size(), size_t(1));
        QCOMPARE(timeline.item(timeline.group(0).loudMarks.front()).mark,
            TimelineModel::MarkKind::Error);
        // The denial is on the call's own bar, not a mark of its own.
        const int call = rowOfCall(timeline, QStringLiteral("w"));
        QCOMPARE(timeline.item(call).status, Status::Denied);
        QVERIFY(!timeline.item(call).open());
        QCOMPARE(timeline.endMs(call), qint64(30));
    }

    void toolTipNamesToolDurationAndTokens()
    {
        RunModel model;
        load(dataPath(QStringLiteral("stream-subagent.jsonl")), &model);
        TimelineModel timeline;
        timeline.setSourceModel(&model);
        int agent = -1;
        for (int row = 0; row < timeline.itemCount(); ++row) {
            if (timeline.item(row).toolKind == RunModel::ToolKind::Agent)
                agent = row;
        }
        QVERIFY(agent >= 0);
        const QModelIndex source = timeline.item(agent).source;
        const QString tip = timeline.index(agent, 0).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.startsWith(QStringLiteral("Agent")), qPrintable(tip));
        const QString duration
            = format::duration(source.data(RunModel::DurationMsRole).toLongLong());
        QVERIFY2(tip.contains(QStringLiteral("took ") + duration), qPrintable(tip));
        const QString tokens = source.siblingAtColumn(RunModel::TokensColumn).data().toString();
        QVERIFY(!tokens.isEmpty());
        QVERIFY2(tip.contains(QStringLiteral("Tokens: ") + tokens), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("Sub-agent: 1 call")), qPrintable(tip));
        // A call without tokens of its own says so.
        for (int row = 0; row < timeline.itemCount(); ++row) {
            if (timeline.item(row).toolKind == RunModel::ToolKind::Shell)
                QVERIFY(timeline.toolTip(row).contains(QStringLiteral("Tokens: none of its own")));
        }
    }

    void bigRunBuildsQuickly()
    {
        // 20,000 calls in 2,000 turns, three of every ten in parallel: built from scratch and
        // on a reset; the figures are printed (bench/bench_timeline measures 100,000).
        RunEventBatch events;
        qint64 t = 1'700'000'000'000;
        for (int turn = 0; turn < 2000; ++turn) {
            events.append(makeEvent(RunEvent::SessionInit, t));
            for (int call = 0; call < 10; ++call) {
                const QString id = QStringLiteral("t%1c%2").arg(turn).arg(call);
                events.append(toolUse(id, QStringLiteral("Bash"), t));
                if (call % 10 < 7)
                    events.append(toolResult(id, t += 40));
                else
                    events.append(toolResult(id, t + 400));
                t += 5;
            }
            RunEvent result = makeEvent(RunEvent::Result, t += 500);
            result.result.subtype = QStringLiteral("success");
            events.append(result);
        }
        ResettableRunModel model;
        model.addEvents(events);
        TimelineModel timeline;
        QElapsedTimer clock;
        clock.start();
        timeline.setSourceModel(&model);
        const qint64 buildMs = clock.elapsed();
        QCOMPARE(timeline.itemCount(), 2000 + 20000);
        clock.restart();
        model.resetAdding({});
        const qint64 resetMs = clock.elapsed();
        QCOMPARE(timeline.itemCount(), 2000 + 20000);
        qInfo("timeline of 20,000 calls: built in %lld ms, rebuilt on a reset in %lld ms", buildMs,
            resetMs);
        QVERIFY(timeline.group(0).lanes.size() >= 2);
    }
};

QTEST_GUILESS_MAIN(TestTimelineModel)
#include "tst_timelinemodel.moc"
