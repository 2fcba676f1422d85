// How late a live run's lines show: the lag from a stream-json line being written inside the
// sandbox to its node appearing in the run view, and the polling rate that achieved it.
// Targets (issue 3): median lag <= 300 ms at <= 4 status requests/s per active run, and
// <= 0.2 requests/s while the run is idle.
//
//   ./build/<dir>/bench/bench_runlag [active-seconds] [idle-seconds] [version]
//
// A real open-terminal (the pinned version unless given, single-user, loopback) runs a small
// Python writer that emits assistant text lines stamped with their write time: bursts of lines
// a few tens of ms apart separated by pauses of 0.3-3 s (an agent between tool calls and model
// answers), then silence for the idle phase, then one last line. Lines travel the live path:
// ProcessStream with its default cadence → LineAssembler → RunParser → RunPage::enqueueEvents
// (batched, shown in a visible tree, offscreen). A node's lag is measured when its row is
// inserted into the model; both clocks are the machine's wall clock.

#include "realserver.h"
#include "runs/runpage.h"
#include "runtree/runmodel.h"
#include "server/lineassembler.h"
#include "server/openterminalclient.h"
#include "server/processstream.h"
#include "streamjson/runparser.h"
#include "util/shellquote.h"

#include <QApplication>
#include <QDateTime>
#include <QHash>
#include <QRegularExpression>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <vector>

using namespace sandscope;

namespace {

// Each line carries "lag-probe <n> <written-ms>" as its text; the last one says "final".
QString writerScript(int activeSeconds, int idleSeconds)
{
    return QStringLiteral(R"PY(
import json, random, sys, time
random.seed(7)
def emit(n, label):
    text = "lag-probe %d %d %s" % (n, time.time_ns() // 1000000, label)
    line = {"type": "assistant", "parent_tool_use_id": None, "session_id": "bench",
            "message": {"id": "msg_%d" % n, "type": "message", "role": "assistant",
                        "model": "bench", "content": [{"type": "text", "text": text}]}}
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()
n = 0
end = time.time() + %1
while time.time() < end:
    for _ in range(random.randint(1, 8)):
        n += 1
        emit(n, "active")
        time.sleep(random.uniform(0.005, 0.08))
    time.sleep(random.uniform(0.3, 3.0))
n += 1
emit(n, "idle-begins")
time.sleep(%2)
n += 1
emit(n, "final")
)PY")
        .arg(activeSeconds)
        .arg(idleSeconds);
}

double percentile(std::vector<qint64> values, double fraction)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const size_t index = std::min(values.size() - 1, size_t(fraction * double(values.size())));
    return double(values[index]);
}

} // namespace

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const QStringList args = app.arguments();
    const int activeSeconds = args.size() > 1 ? args.at(1).toInt() : 20;
    const int idleSeconds = args.size() > 2 ? args.at(2).toInt() : 45;
    const QString version
        = args.size() > 3 ? args.at(3) : test::RealServer::pinnedVersion("OPEN_TERMINAL_VERSION");

    test::RealServer server(version, test::RealServer::Mode::SingleUser);
    QString why;
    if (!server.start(&why)) {
        std::fprintf(
            stderr, "cannot start open-terminal %s: %s\n", qPrintable(version), qPrintable(why));
        return 2;
    }

    RunPage page;
    // Lines parsed as a live chat's RunController parses them, then queued into the page.
    RunParser liveParser;
    QObject::connect(&liveParser, &RunParser::eventsReady, &page, &RunPage::enqueueEvents);
    page.resize(1000, 700);
    page.show();
    OpenTerminalClient client(server.connection());
    ProcessStream stream(&client, Identity());
    LineAssembler assembler;

    std::vector<qint64> activeLags;
    qint64 idleLineLag = -1;
    qint64 idleBeganMs = 0;
    qint64 firstLineMs = 0;
    qint64 finalLineMs = 0;
    const QRegularExpression probe(QStringLiteral("lag-probe (\\d+) (\\d+) (\\S+)"));
    QObject::connect(page.model(), &QAbstractItemModel::rowsInserted, &page,
        [&](const QModelIndex &parent, int first, int last) {
            const qint64 now = QDateTime::currentMSecsSinceEpoch();
            for (int row = first; row <= last; ++row) {
                const QString text
                    = page.model()->index(row, 0, parent).data(RunModel::TextRole).toString();
                const QRegularExpressionMatch match = probe.match(text);
                if (!match.hasMatch())
                    continue;
                const qint64 lag = now - match.captured(2).toLongLong();
                const QString label = match.captured(3);
                if (label == QLatin1String("active")) {
                    if (firstLineMs == 0)
                        firstLineMs = now;
                    activeLags.push_back(lag);
                } else if (label == QLatin1String("idle-begins")) {
                    idleBeganMs = now;
                } else {
                    idleLineLag = lag;
                    finalLineMs = now;
                }
            }
        });
    QObject::connect(&stream, &ProcessStream::output, &page, [&](const QString &chunk) {
        for (const QString &line : assembler.feed(chunk))
            liveParser.feedLine(line.toUtf8(), QDateTime::currentMSecsSinceEpoch());
    });
    // When each status request went out (sampled every 2 ms), for the polling rates.
    std::vector<qint64> pollTimes;
    QTimer pollWatch;
    pollWatch.setInterval(2);
    QObject::connect(&pollWatch, &QTimer::timeout, &page, [&] {
        while (int(pollTimes.size()) < stream.pollCount())
            pollTimes.push_back(QDateTime::currentMSecsSinceEpoch());
    });
    pollWatch.start();
    bool failed = false;
    QObject::connect(&stream, &ProcessStream::finished, &app, [&] {
        QTimer::singleShot(200, &app, &QCoreApplication::quit); // let the last batch show
    });
    QObject::connect(&stream, &ProcessStream::failed, &app, [&](const ApiError &error) {
        std::fprintf(stderr, "stream failed: %s\n", qPrintable(error.toString()));
        failed = true;
        app.quit();
    });

    std::printf("open-terminal %s, poll cadence %d ms while active, backing off to %d ms; "
                "%d s of bursts, then %d s idle\n",
        qPrintable(version), ProcessStream::defaultFastMs, ProcessStream::defaultIdleMaxMs,
        activeSeconds, idleSeconds);
    std::fflush(stdout);
    const QString script = writerScript(activeSeconds, idleSeconds);
    stream.start(QStringLiteral("python3 -u -c ") + shell::quote(script));
    app.exec();
    if (failed || activeLags.empty() || idleBeganMs == 0 || finalLineMs == 0) {
        std::fprintf(stderr, "the run did not deliver its lines\n");
        return 2;
    }

    // Requests per second within [from, to): intervals between the requests sent in it.
    auto rateBetween = [&](qint64 from, qint64 to) {
        std::vector<qint64> inside;
        std::copy_if(pollTimes.begin(), pollTimes.end(), std::back_inserter(inside),
            [&](qint64 t) { return t >= from && t < to; });
        if (inside.size() < 2)
            return 0.0;
        return double(inside.size() - 1) * 1000.0 / double(inside.back() - inside.front());
    };
    // The request that fetched the last line is activity, not idleness.
    const qint64 idleEndsMs = finalLineMs - 150;
    const double activeRate = rateBetween(firstLineMs, idleBeganMs);
    const double idleRate = rateBetween(idleBeganMs, idleEndsMs);
    // Once the back-off has settled (after 20 s, or half the phase when it is shorter).
    const qint64 settleMs = qMin<qint64>(20000, qint64(idleSeconds) * 1000 / 2);
    const double steadyIdleRate = rateBetween(idleBeganMs + settleMs, idleEndsMs);
    const double median = percentile(activeLags, 0.5);
    std::printf("lines: %zu while active\n", activeLags.size());
    std::printf("lag (write -> node): median %.0f ms, p90 %.0f ms, max %.0f ms  [target: "
                "median <= 300 ms] %s\n",
        median, percentile(activeLags, 0.9), percentile(activeLags, 1.0),
        median <= 300 ? "met" : "NOT MET");
    std::printf("lag of the first line after %d s idle: %lld ms\n", idleSeconds,
        static_cast<long long>(idleLineLag));
    std::printf("requests/s while active: %.2f  [target <= 4] %s\n", activeRate,
        activeRate <= 4.0 ? "met" : "NOT MET");
    std::printf("requests/s while idle: %.2f over the whole idle phase, %.2f once backed off  "
                "[target <= 0.2] %s\n",
        idleRate, steadyIdleRate, steadyIdleRate <= 0.2 ? "met" : "NOT MET");
    return 0;
}
