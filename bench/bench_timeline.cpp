// The run's timeline at 100,000 tool calls: builds a run from the real stream-json captures in
// tests/data (every copy with its own ids; the lines arrive 5 to 400 ms apart, so calls have
// widths of their own, and the parallel scenario's calls overlap) and reports
//   - building the TimelineModel from the finished RunModel, and rebuilding it on a source
//     reset (timed playback resets the model to show a moment; target <= 100 ms);
//   - painting one frame of a TimelineView (offscreen, 1600 x 600) fitted to the run, zoomed to
//     a minute and zoomed deep (two seconds), each the median of 15 frames (target <= 16 ms);
//   - the cost of keeping the timeline up to date while events arrive: the same events fed
//     into a RunModel with and without a timeline, per event, and a frame per 40 ms batch with
//     the view following the growing run.
// Figures are printed, not asserted.
//
//   ./build/<dir>/bench/bench_timeline [calls]   (default 100000)
//   SANDSCOPE_BENCH_FRAMES=500 perf record ... bench_timeline   (500 more fitted frames)
//   SANDSCOPE_BENCH_RESETS=50 perf record ... bench_timeline    (50 more rebuilds)

#include "benchcaptures.h"
#include "runs/timelineview.h"
#include "runtree/runmodel.h"
#include "streamjson/runparser.h"
#include "timeline/timelinemodel.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <vector>

using namespace sandscope;

namespace {

// RunModel with the reset that timed playback does.
class ResettableRunModel : public RunModel {
public:
    void resetNow()
    {
        beginResetModel();
        endResetModel();
    }
};

double msSince(const QElapsedTimer &clock)
{
    return double(clock.nsecsElapsed()) / 1e6;
}

// CPU time of the process: on a busy machine the wall clock also counts other processes.
double cpuMs()
{
    timespec now {};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return double(now.tv_sec) * 1e3 + double(now.tv_nsec) / 1e6;
}

double median(std::vector<double> values)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

// The captures' objects: tests/data/stream-*.jsonl and the transcripts' stream.jsonl files.
QList<QJsonObject> allCaptureObjects()
{
    const QString directory = QStringLiteral(SANDSCOPE_CAPTURES_DIR);
    QList<QJsonObject> objects = benchcaptures::captureObjects(directory);
    const QDir transcripts(directory + QStringLiteral("/transcripts"));
    for (const QString &scenario :
        transcripts.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        QFile file(transcripts.filePath(scenario + QStringLiteral("/stream.jsonl")));
        if (!file.open(QIODevice::ReadOnly))
            continue;
        for (const QByteArray &line : file.readAll().split('\n')) {
            const QJsonDocument document = QJsonDocument::fromJson(line);
            if (document.isObject())
                objects.append(document.object());
        }
    }
    return objects;
}

// Parsed events of enough copies for `wantedCalls` tool calls, in batches as they would
// arrive; each line 5 to 400 ms after the one before.
std::vector<RunEventBatch> makeEvents(int wantedCalls, int *calls)
{
    const QList<QJsonObject> objects = allCaptureObjects();
    std::vector<RunEventBatch> batches;
    RunParser parser;
    qint64 clock = 1'750'000'000'000;
    quint32 seed = 12345;
    *calls = 0;
    const benchcaptures::CaptureCopies copies(objects);
    for (int copy = 0; *calls < wantedCalls && !objects.isEmpty(); ++copy) {
        RunEventBatch batch;
        for (const QByteArray &line : copies.lines(copy)) {
            seed = seed * 1103515245u + 12345u;
            clock += 5 + qint64((seed >> 16) % 396);
            const RunEventBatch events = parser.parseLine(line, clock);
            for (const RunEvent &event : events)
                *calls += event.kind == RunEvent::ToolUse;
            batch += events;
        }
        batches.push_back(batch);
    }
    return batches;
}

// One frame of the view as it is now, in ms.
double frame(TimelineView *view)
{
    QElapsedTimer clock;
    clock.start();
    view->viewport()->repaint();
    view->axisWidget()->repaint();
    view->gutterWidget()->repaint();
    return msSince(clock);
}

double frames(TimelineView *view, int count = 15)
{
    std::vector<double> times;
    for (int i = 0; i < count; ++i)
        times.push_back(frame(view));
    return median(times);
}

// The parts of a frame: the lanes, the axis, the gutter.
void frameParts(TimelineView *view, const char *what)
{
    std::vector<double> lanes, axis, gutter;
    for (int i = 0; i < 9; ++i) {
        QElapsedTimer clock;
        clock.start();
        view->viewport()->repaint();
        lanes.push_back(msSince(clock));
        clock.restart();
        view->axisWidget()->repaint();
        axis.push_back(msSince(clock));
        clock.restart();
        view->gutterWidget()->repaint();
        gutter.push_back(msSince(clock));
    }
    std::printf("    %s: lanes %.2f ms, axis %.2f ms, gutter %.2f ms\n", what, median(lanes),
        median(axis), median(gutter));
}

const char *verdict(double ms, double target)
{
    return ms <= target ? "met" : "NOT MET";
}

} // namespace

int main(int argc, char **argv)
{
    benchcaptures::useOffscreenPlatform();
    QApplication app(argc, argv);
    const int wantedCalls = argc > 1 ? std::max(10, QByteArray(argv[1]).toInt()) : 100000;

    int calls = 0;
    const std::vector<RunEventBatch> batches = makeEvents(wantedCalls, &calls);
    if (batches.empty()) {
        std::fprintf(stderr, "bench_timeline: no captures in %s\n", SANDSCOPE_CAPTURES_DIR);
        return 1;
    }
    qint64 events = 0;
    for (const RunEventBatch &batch : batches)
        events += batch.size();
    qint64 lastMs = 0;
    for (const RunEvent &event : batches.back())
        lastMs = std::max(lastMs, event.arrivalMs);

    ResettableRunModel model;
    for (const RunEventBatch &batch : batches)
        model.addEvents(batch);
    model.markRunEnded(lastMs);
    std::printf("bench_timeline: %d tool calls, %lld events (Qt %s)\n", calls, events, qVersion());

    // What walking the run's nodes alone costs (the floor of a build).
    std::vector<double> walks;
    int nodes = 0;
    for (int i = 0; i < 5; ++i) {
        const double cpu = cpuMs();
        nodes = 0;
        std::vector<QModelIndex> pending {QModelIndex()};
        qint64 sum = 0;
        while (!pending.empty()) {
            const QModelIndex parent = pending.back();
            pending.pop_back();
            const int rows = model.rowCount(parent);
            for (int row = 0; row < rows; ++row) {
                const QModelIndex child = model.index(row, 0, parent);
                sum += model.timing(child).startedMs;
                ++nodes;
                if (model.rowCount(child) > 0)
                    pending.push_back(child);
            }
        }
        walks.push_back(cpuMs() - cpu + double(sum & 0));
    }

    // Build and rebuild.
    std::vector<double> builds, buildsCpu;
    for (int i = 0; i < 5; ++i) {
        TimelineModel timeline;
        QElapsedTimer clock;
        clock.start();
        const double cpu = cpuMs();
        timeline.setSourceModel(&model);
        builds.push_back(msSince(clock));
        buildsCpu.push_back(cpuMs() - cpu);
    }
    TimelineModel timeline;
    timeline.setSourceModel(&model);
    std::vector<double> resets, resetsCpu;
    for (int i = 0; i < 5; ++i) {
        QElapsedTimer clock;
        clock.start();
        const double cpu = cpuMs();
        model.resetNow();
        resets.push_back(msSince(clock));
        resetsCpu.push_back(cpuMs() - cpu);
    }
    // For a profiler: SANDSCOPE_BENCH_RESETS=N rebuilds N more times.
    for (int i = qEnvironmentVariableIntValue("SANDSCOPE_BENCH_RESETS"); i > 0; --i)
        model.resetNow();
    const int turns = int(timeline.turnRows().size());
    std::printf("  timeline: %d items: %d calls in %d thread(s), %d marks, %d turns; %d lane(s) "
                "in the main thread; span %.1f min\n",
        timeline.itemCount(), timeline.callCount(), timeline.groupCount(),
        timeline.itemCount() - timeline.callCount() - turns, turns,
        int(timeline.group(0).lanes.size()),
        double(timeline.extentEndMs() - timeline.originMs()) / 60000.0);
    std::printf("  walking the run's %d nodes: %.1f ms CPU (median of 5)\n", nodes, median(walks));
    std::printf("  build from the run: %.1f ms, %.1f ms CPU (median of 5; target <= 100 ms): %s\n",
        median(builds), median(buildsCpu), verdict(median(builds), 100));
    std::printf("  rebuild on a source reset: %.1f ms, %.1f ms CPU (median of 5; target <= 100 "
                "ms): %s\n",
        median(resets), median(resetsCpu), verdict(median(resets), 100));

    // Frames.
    TimelineView view;
    view.resize(1600, 600);
    view.show();
    view.setModel(&timeline);
    QApplication::processEvents();
    view.fitRun();
    QApplication::processEvents();
    const double fitted = frames(&view);
    frameParts(&view, "fitted");
    // For a profiler: SANDSCOPE_BENCH_FRAMES=N paints N more frames fitted to the run.
    for (int i = qEnvironmentVariableIntValue("SANDSCOPE_BENCH_FRAMES"); i > 0; --i)
        frame(&view);
    const double width = view.viewport()->width();
    const double middle = (timeline.originMs() + timeline.extentEndMs()) / 2.0;
    auto zoomTo = [&](double spanMs) {
        view.zoomAround(width / 2, view.msPerPixel() * width / spanMs);
        view.panBy(view.xForTime(middle) - width / 2);
        QApplication::processEvents();
    };
    zoomTo(60'000);
    const double minute = frames(&view);
    zoomTo(2'000);
    const double deep = frames(&view);
    view.setCurrentIndex(timeline.index(timeline.itemCount() / 2, 0));
    QElapsedTimer fitClock;
    fitClock.start();
    view.fitSelection();
    frame(&view);
    const double fitSelection = msSince(fitClock);
    std::printf("  frame fitted to the run: %.2f ms; a minute: %.2f ms; two seconds: %.2f ms "
                "(median of 15; target <= 16 ms): %s\n",
        fitted, minute, deep, verdict(std::max({fitted, minute, deep}), 16));
    std::printf("  fit selection and paint: %.2f ms\n", fitSelection);

    // Keeping up with arriving events: the same batches of ~40 ms worth of events (400 at
    // 10,000 events per second) with and without a timeline on the model.
    RunEventBatch all;
    for (const RunEventBatch &batch : batches)
        all += batch;
    auto feed = [&](bool withTimeline, bool withView) {
        RunModel live;
        TimelineModel liveTimeline;
        TimelineView liveView;
        if (withTimeline)
            liveTimeline.setSourceModel(&live);
        if (withView) {
            liveView.resize(1600, 600);
            liveView.setModel(&liveTimeline);
            liveView.show();
        }
        std::vector<double> frameTimes;
        QElapsedTimer clock;
        clock.start();
        for (qsizetype at = 0; at < all.size(); at += 400) {
            live.addEvents(all.mid(at, 400));
            if (withView && (at / 400) % 25 == 0) { // a frame per second's worth of batches
                QApplication::processEvents();
                frameTimes.push_back(frame(&liveView));
            }
        }
        const double total = msSince(clock);
        return std::make_pair(total, median(frameTimes));
    };
    const double without = feed(false, false).first;
    const double with = feed(true, false).first;
    const auto [withView, liveFrame] = feed(true, true);
    std::printf("  appending %lld events: %.0f ms without a timeline, %.0f ms with one: "
                "+%.2f us per event (%.1f%%)\n",
        qint64(all.size()), without, with, (with - without) * 1000 / double(all.size()),
        (with - without) * 100 / without);
    std::printf("  with a visible view following the run: %.0f ms in all; a frame while it "
                "grows: %.2f ms (median)\n",
        withView, liveFrame);
    return 0;
}
