// libFuzzer target: arbitrary bytes, split into chunks anywhere, go through RunParser into a
// RunModel watched by QAbstractItemModelTester (Fatal), then every index and role is read.
// Finds crashes, sanitizer reports and model-contract violations on hostile streams. The same
// lines also go through RunSummaryScanner (the summary fast path), whose summary must equal
// the one RunSummaryBuilder makes from the parser's events; written to a file, they must get
// one summary from RecordingReader's two paths (summarizeRunFile's mapped one, readLine's).
// A TimelineModel follows the run (also under the tester) and must keep its lanes sorted and
// free of overlaps, its marks sorted, and list exactly its failed calls as problems, also when
// rebuilt from the finished run. The events, split by thread as a transcript's files would be, go
// through SubagentMerger in batches: every event must come out once, each thread's in its own
// order. Each line must also hold JsonLineView's property (tests/support/jsonlineviewcheck.h):
// what the view reads, the DOM parser accepts and reads the same, with either stage 1
// (StructuralIndexer's and simdjson's), and both let it read the same lines.

#include "jsonlineviewcheck.h"
#include "recordings/runrecording.h"
#include "runtree/runfilterproxy.h"
#include "runtree/runmodel.h"
#include "streamjson/runparser.h"
#include "streamjson/runsummary.h"
#include "streamjson/subagentmerger.h"
#include "streamjson/summaryscanner.h"
#include "timeline/timelinemodel.h"

#include <QAbstractItemModelTester>
#include <QByteArray>
#include <QFile>
#include <QHash>
#include <QTemporaryDir>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>

namespace {

void readEverything(const QAbstractItemModel &model, const QModelIndex &parent, int depth)
{
    if (depth > 64)
        return; // deep nesting is legal; reading it all once is enough for coverage
    for (int row = 0; row < model.rowCount(parent); ++row) {
        for (int column = 0; column < model.columnCount(parent); ++column) {
            const QModelIndex index = model.index(row, column, parent);
            for (int role : {int(Qt::DisplayRole), int(Qt::ToolTipRole)})
                index.data(role);
            if (column == 0) {
                for (int role = sandscope::RunModel::KindRole;
                     role <= sandscope::RunModel::LineNumberRole; ++role)
                    index.data(role);
            }
        }
        readEverything(model, model.index(row, 0, parent), depth + 1);
    }
}

// Nodes of the source whose search text contains "a" in any case (what the proxy's count
// must say), walked without recursion limits.
int nodesMentioningA(const QAbstractItemModel &model, const QModelIndex &parent, bool errorsOnly)
{
    int count = 0;
    for (int row = 0; row < model.rowCount(parent); ++row) {
        const QModelIndex index = model.index(row, 0, parent);
        if ((!errorsOnly || sandscope::RunFilterProxy::isErrorIndex(index))
            && sandscope::RunFilterProxy::searchableText(index).contains(
                QLatin1Char('a'), Qt::CaseInsensitive))
            ++count;
        count += nodesMentioningA(model, index, errorsOnly);
    }
    return count;
}

// The timeline's invariants; false when one is broken.
bool timelineHolds(const sandscope::TimelineModel &timeline)
{
    using Item = sandscope::TimelineModel::Item;
    for (int id = 0; id < timeline.groupCount(); ++id) {
        const sandscope::TimelineModel::Group &group = timeline.group(id);
        if (group.lanes.size() != group.problems.size())
            return false;
        for (size_t lane = 0; lane < group.lanes.size(); ++lane) {
            const std::vector<int> &rows = group.lanes[lane];
            size_t problems = 0;
            for (size_t i = 0; i < rows.size(); ++i) {
                const Item &item = timeline.item(rows[i]);
                if (!item.placed || item.group != id || item.lane != int(lane))
                    return false;
                problems += sandscope::TimelineModel::isProblem(item.status);
                if (i + 1 < rows.size()) {
                    const Item &next = timeline.item(rows[i + 1]);
                    // Sorted, and no two calls of a lane at once (an open call is the last).
                    if (item.open() || item.endMs > next.startMs || item.startMs > next.startMs)
                        return false;
                }
            }
            if (problems != group.problems[lane].size())
                return false;
        }
        for (size_t i = 1; i < group.marks.size(); ++i) {
            if (timeline.item(group.marks[i - 1]).startMs > timeline.item(group.marks[i]).startMs)
                return false;
        }
    }
    for (int row = 0; row < timeline.itemCount(); ++row) {
        const Item &item = timeline.item(row);
        if (item.placed != (item.startMs >= 0) || timeline.endMs(row) < item.startMs)
            return false;
    }
    return true;
}

// Names each figure the two summaries disagree on (on stderr, for the crash report).
bool sameSummary(const sandscope::RunSummary &a, const sandscope::RunSummary &b)
{
    bool same = true;
    const auto check = [&same](bool equal, const char *name) {
        if (!equal) {
            std::fprintf(stderr, "summary figure differs: %s\n", name);
            same = false;
        }
    };
    check(a.sessionId == b.sessionId, "sessionId");
    check(a.resultSubtype == b.resultSubtype, "resultSubtype");
    check(a.hasResult == b.hasResult, "hasResult");
    check(a.resultCount == b.resultCount, "resultCount");
    check(a.isError == b.isError, "isError");
    check(a.toolCalls == b.toolCalls, "toolCalls");
    check(a.toolErrors == b.toolErrors, "toolErrors");
    check(a.unmatchedToolCalls == b.unmatchedToolCalls, "unmatchedToolCalls");
    check(a.costUsd == b.costUsd, "costUsd");
    check(a.inputTokens == b.inputTokens, "inputTokens");
    check(a.outputTokens == b.outputTokens, "outputTokens");
    // Not durationMs: the events here arrive on the fuzzer's ticks, a live run's clock, while
    // the fast path reads a file on its timestamps' (docs/stream-json.md, one clock per run);
    // tst_runparser and tst_runfigures compare the two on every capture read as a file.
    check(a.turns == b.turns, "turns");
    check(a.roundTrips == b.roundTrips, "roundTrips");
    check(a.claudeDurationMs == b.claudeDurationMs, "claudeDurationMs");
    check(a.lastTurnOpen == b.lastTurnOpen, "lastTurnOpen");
    check(a.cacheReadTokens == b.cacheReadTokens, "cacheReadTokens");
    check(a.cacheCreationTokens == b.cacheCreationTokens, "cacheCreationTokens");
    check(a.isTranscript == b.isTranscript, "isTranscript");
    check(a.turnOpen == b.turnOpen, "turnOpen");
    check(a.turnFailed == b.turnFailed, "turnFailed");
    return same;
}

// Splits `all` by thread (parentToolUseId), merges it back in batches of `batch` main events
// and checks that nothing is lost or reordered within a thread.
bool mergeKeepsEveryThreadsOrder(const sandscope::RunEventBatch &all, qsizetype batch)
{
    sandscope::RunEventBatch main;
    QHash<QString, sandscope::RunEventBatch> threads;
    for (const sandscope::RunEvent &event : all) {
        if (event.parentToolUseId.isEmpty())
            main.append(event);
        else
            threads[event.parentToolUseId].append(event);
    }
    sandscope::SubagentMerger merger;
    for (auto it = threads.cbegin(); it != threads.cend(); ++it)
        merger.addSubagentEvents(it.key(), it.value());
    sandscope::RunEventBatch out;
    for (qsizetype at = 0; at < main.size(); at += batch)
        out += merger.merge(main.mid(at, batch));
    out += merger.flush();
    if (out.size() != all.size() || merger.isHolding())
        return false;
    QHash<QString, qsizetype> next;
    qsizetype mainNext = 0;
    for (const sandscope::RunEvent &event : out) {
        const sandscope::RunEventBatch &thread
            = event.parentToolUseId.isEmpty() ? main : threads[event.parentToolUseId];
        qsizetype &at = event.parentToolUseId.isEmpty() ? mainNext : next[event.parentToolUseId];
        if (at >= thread.size() || thread.at(at).lineNumber != event.lineNumber
            || thread.at(at).kind != event.kind)
            return false;
        ++at;
    }
    return true;
}

} // namespace

// The same bytes as a file: summarizeRunFile (RecordingReader::summarize, the mapped fast
// path) and RecordingReader's event path (readLine + eventsOf, lines cut from its read-ahead
// blocks) give one summary and count the same lines.
bool fileSummariesAgree(const QByteArray &bytes)
{
    static QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("input.jsonl"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(bytes) != bytes.size())
        return true; // nothing to compare
    file.close();
    sandscope::RunSummary fast;
    if (!sandscope::summarizeRunFile(path, &fast))
        return true; // not a run file (the event path then fails to read it as well)
    sandscope::RecordingReader reader;
    if (!reader.open(path))
        return false;
    sandscope::RunParser parser;
    sandscope::RunSummaryBuilder builder;
    sandscope::RecordedLine line;
    qint64 lines = 0;
    while (reader.readLine(&line)) {
        lines += line.line.trimmed().isEmpty() ? 0 : 1;
        builder.add(reader.eventsOf(parser, line));
    }
    builder.add(reader.finishReading());
    if (fast.lines != lines)
        std::fprintf(stderr, "lines differ: %lld, %lld\n", qint64(fast.lines), lines);
    return sameSummary(fast, builder.summary()) && fast.lines == lines;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    // The first byte picks the chunk size, so both line-at-once and byte-split framing run.
    const qsizetype chunk = size > 0 ? 1 + data[0] * 16 : 1;
    const QByteArray input = QByteArray::fromRawData(
        reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));

    sandscope::RunParser parser;
    sandscope::RunModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QObject::connect(
        &parser, &sandscope::RunParser::eventsReady, &model, &sandscope::RunModel::addEvents);
    // The run view's filter follows the stream (search set before any event) and counts.
    sandscope::RunFilterProxy proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester proxyTester(
        &proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    proxy.setSearchText(QStringLiteral("A"));
    sandscope::TimelineModel timeline;
    timeline.setSourceModel(&model);
    QAbstractItemModelTester timelineTester(
        &timeline, QAbstractItemModelTester::FailureReportingMode::Fatal);
    sandscope::RunSummaryBuilder fromEvents;
    sandscope::RunEventBatch all;
    QObject::connect(
        &parser, &sandscope::RunParser::eventsReady, [&](const sandscope::RunEventBatch &events) {
            fromEvents.add(events);
            all += events;
        });

    qint64 arrival = 0;
    for (qsizetype position = size > 0 ? 1 : 0; position < input.size(); position += chunk)
        parser.feedBytes(input.mid(position, chunk), arrival++);
    parser.finish(arrival);
    model.markRunEnded(arrival + 1);

    readEverything(model, QModelIndex(), 0);
    readEverything(proxy, QModelIndex(), 0);
    readEverything(timeline, QModelIndex(), 0);
    sandscope::TimelineModel rebuilt;
    rebuilt.setSourceModel(&model);
    if (!timelineHolds(timeline) || !timelineHolds(rebuilt)
        || rebuilt.itemCount() != timeline.itemCount())
        std::abort(); // the timeline broke its invariants
    for (int row = 0; row < timeline.itemCount(); ++row) {
        const QModelIndex item = timeline.indexForSource(timeline.item(row).source);
        if (timeline.item(row).placed && item.row() != row)
            std::abort(); // a node does not find its own item
    }
    if (!mergeKeepsEveryThreadsOrder(all, 1 + chunk % 7))
        std::abort(); // the sub-agent merge lost or reordered events
    if (proxy.matchCount() != nodesMentioningA(model, QModelIndex(), false))
        std::abort(); // the count the run page shows is wrong
    proxy.setErrorsOnly(true);
    if (proxy.matchCount() != nodesMentioningA(model, QModelIndex(), true))
        std::abort();

    // The fast path, line by line (copied: scan() pads), unless a transcript record sends the
    // file to the event path anyway.
    sandscope::RunSummaryBuilder fromScanner;
    sandscope::RunSummaryScanner scanner(&fromScanner);
    bool scanned = true;
    const QByteArray body = input.mid(size > 0 ? 1 : 0);
    const QList<QByteArray> lines = body.split('\n');
    for (qsizetype i = 0; i < lines.size() && scanned; ++i) {
        if (i == lines.size() - 1 && lines.at(i).isEmpty())
            break; // after the last "\n"
        const QByteArray &line = lines.at(i);
        if (!sandscope::test::check(line).wrong.isEmpty())
            std::abort(); // JsonLineView read a line otherwise than the DOM parser
        scanned = scanner.scan(std::string_view(line.constData(), size_t(line.size())))
            != sandscope::RunSummaryScanner::Line::NeedsEvents;
    }
    if (scanned && !sameSummary(fromScanner.summary(), fromEvents.summary()))
        std::abort(); // the fast path disagrees with the event path
    if (!fileSummariesAgree(body))
        std::abort(); // the file's fast path disagrees with its event path
    const sandscope::RunSummary summary = model.summary();
    summary.toJson();
    return 0;
}
