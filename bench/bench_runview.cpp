// How smooth the run view stays under a flood of events: feeds 10,000 events per second into
// the RunModel of a visible RunPage (offscreen; tree, filter proxy, delegate, follow mode and
// summary bar attached) for a few seconds and reports the longest main-thread stall, measured
// as the longest gap between ticks of a 1 ms heartbeat timer. Target: <= 50 ms.
//
//   ./build/<dir>/bench/bench_runview [seconds] [events-per-second] [tool-calls-per-turn]
//
// The lines go in the way live lines do (parsed by a RunParser, then RunPage::enqueueEvents
// batches them into the model), at the pace that gives the wanted number of events per
// second. They are the real stream-basic.jsonl lines with fresh ids: each turn is an init,
// 20 Bash tool calls (or as many as asked) with their results, a text and a result line.

#include "runs/runpage.h"
#include "runtree/runmodel.h"
#include "streamjson/runparser.h"
#include "util/allocatortuning.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QScrollBar>
#include <QTimer>
#include <QTreeView>

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace sandscope;

namespace {

QList<QByteArray> captureLines(const QString &name)
{
    QFile file(QStringLiteral(SANDSCOPE_CAPTURES_DIR) + QLatin1Char('/') + name);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QList<QByteArray> lines = file.readAll().split('\n');
    while (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    return lines;
}

struct Feed {
    QList<QByteArray> lines;
    std::vector<qint64> eventsBefore; // events of lines [0, i)
};

// Turns of the basic capture with ids made unique, and how many events each line makes.
Feed makeFeed(qint64 wantedEvents, int callsPerTurn)
{
    Feed feed;
    const QList<QByteArray> basic = captureLines(QStringLiteral("stream-basic.jsonl"));
    if (basic.size() < 6)
        return feed;
    const QByteArray toolId = "toolu_fake_bb49b3d261c34b2c";
    const QByteArray messageId = "msg_fake_0219ad837e324750";
    const QByteArray textMessageId = "msg_fake_";
    RunParser counter;
    qint64 events = 0;
    auto add = [&](const QByteArray &line) {
        feed.lines.append(line);
        feed.eventsBefore.push_back(events);
        events += counter.parseLine(line, 0).size();
    };
    for (int turn = 0; events < wantedEvents; ++turn) {
        add(basic[0]);
        for (int call = 0; call < callsPerTurn; ++call) {
            const QByteArray suffix = QByteArray::number(turn) + '_' + QByteArray::number(call);
            const QByteArray newToolId = "toolu_bench_" + suffix;
            const QByteArray newMessageId = "msg_bench_" + suffix;
            add(QByteArray(basic[2]).replace(toolId, newToolId).replace(messageId, newMessageId));
            add(QByteArray(basic[3]).replace(toolId, newToolId));
        }
        const QByteArray newTextId = "msg_bench_text_" + QByteArray::number(turn) + '_';
        add(QByteArray(basic[4]).replace(textMessageId, newTextId));
        add(basic[5]);
    }
    feed.eventsBefore.push_back(events);
    return feed;
}

} // namespace

int main(int argc, char **argv)
{
    tuneAllocatorForSteadyLatency(); // as the window's main() does
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    qputenv("QT_LOGGING_RULES", "qt.qpa.*=false");
    QApplication app(argc, argv);
    const double seconds = argc > 1 ? std::max(1.0, QByteArray(argv[1]).toDouble()) : 5.0;
    const int rate = argc > 2 ? std::max(100, QByteArray(argv[2]).toInt()) : 10000;
    const int callsPerTurn = argc > 3 ? std::max(1, QByteArray(argv[3]).toInt()) : 20;

    const Feed feed = makeFeed(qint64(seconds * rate), callsPerTurn);
    if (feed.lines.isEmpty()) {
        std::fprintf(
            stderr, "bench_runview: cannot read the captures in %s\n", SANDSCOPE_CAPTURES_DIR);
        return 1;
    }

    RunPage page;
    // Lines parsed as a live chat's RunController parses them, then queued into the page.
    RunParser liveParser;
    QObject::connect(&liveParser, &RunParser::eventsReady, &page, &RunPage::enqueueEvents);
    page.resize(1200, 800);
    page.show();
    QApplication::processEvents();

    QElapsedTimer clock;
    qint64 lastBeat = 0;
    qint64 longestStall = 0;
    qint64 stallsOver16 = 0;
    QTimer heartbeat;
    heartbeat.setTimerType(Qt::PreciseTimer);
    heartbeat.setInterval(1);
    QObject::connect(&heartbeat, &QTimer::timeout, [&] {
        const qint64 now = clock.elapsed();
        const qint64 gap = now - lastBeat;
        longestStall = std::max(longestStall, gap);
        stallsOver16 += gap > 16 ? 1 : 0;
        lastBeat = now;
    });

    // Every 5 ms, every line whose events are due at the target rate (a live run delivers
    // bursts).
    int fed = 0;
    qint64 arrivalMs = 1'700'000'000'000;
    QTimer feeder;
    feeder.setTimerType(Qt::PreciseTimer);
    feeder.setInterval(5);
    QObject::connect(&feeder, &QTimer::timeout, [&] {
        const qint64 dueEvents = qint64(double(clock.elapsed()) * rate / 1000.0);
        while (fed < feed.lines.size() && feed.eventsBefore[size_t(fed)] < dueEvents)
            liveParser.feedLine(feed.lines[fed++], ++arrivalMs);
        if (fed == feed.lines.size()) {
            feeder.stop();
            // Let the last batch reach the view, then stop.
            QTimer::singleShot(1200, &app, &QCoreApplication::quit);
        }
    });

    clock.start();
    heartbeat.start();
    feeder.start();
    app.exec();
    const qint64 elapsedMs = clock.elapsed();

    int rows = 0;
    const QAbstractItemModel *model = page.model();
    const QModelIndex run = model->index(0, 0);
    for (int turn = 0; turn < model->rowCount(run); ++turn)
        rows += 1 + model->rowCount(model->index(turn, 0, run));
    QScrollBar *bar = page.treeView()->verticalScrollBar();
    std::printf("bench_runview: %lld events (%d lines) in %.2f s (target %d/s, Qt %s), %d rows in "
                "the tree (%d tool calls per turn)\n",
        static_cast<long long>(feed.eventsBefore.back()), fed, double(elapsedMs) / 1000.0, rate,
        qVersion(), rows, callsPerTurn);
    std::printf("  longest main-thread stall: %lld ms (target <= 50 ms); gaps over 16 ms: %lld\n",
        static_cast<long long>(longestStall), static_cast<long long>(stallsOver16));
    std::printf("  follow mode %s, view at the bottom: %s\n", page.isFollowing() ? "on" : "off",
        bar->value() == bar->maximum() ? "yes" : "no");
    return 0;
}
