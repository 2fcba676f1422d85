// How late a live run's lines show: the lag from a stream-json line being written inside the
// sandbox to its node appearing in the run view, and the polling rate that achieved it.
// Two transports at the same time, each with its own client and page: by push (the run's file
// followed through a FollowChannel, the follower in a terminal; targets of issue 28: median lag
// <= 50 ms, p90 <= 100 ms, no request while idle) and by polling the process (issue 3: median
// <= 300 ms at <= 4 status requests/s, <= 0.2 requests/s idle).
//
//   ./build/<dir>/bench/bench_runlag [active-seconds] [idle-seconds] [version]
//
// A real open-terminal (the pinned version unless given, single-user, loopback) runs a small
// Python writer that emits assistant text lines stamped with their write time: bursts of lines
// a few tens of ms apart separated by pauses of 0.3-3 s (an agent between tool calls and model
// answers), then silence for the idle phase, then one last line. Lines travel the live path:
// ProcessStream with its default cadence (or the pushed file) → LineAssembler → RunParser →
// RunPage::enqueueEvents (batched, shown in a visible tree, offscreen). A node's lag is
// measured when its row is inserted into the model; both clocks are the machine's wall clock.
// Requests are every HTTP request the client sent (OpenTerminalClient::requestCount).

#include "realserver.h"
#include "runs/runpage.h"
#include "runtree/runmodel.h"
#include "server/lineassembler.h"
#include "server/openterminalclient.h"
#include "server/processstream.h"
#include "streamjson/runparser.h"
#include "terminal/followchannel.h"
#include "terminal/followedfile.h"
#include "util/shellquote.h"

#include <QApplication>
#include <QDateTime>
#include <QHash>
#include <QRegularExpression>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iterator>
#include <utility>
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

struct Phase {
    bool ok = false;
    std::vector<qint64> activeLags;
    qint64 idleLineLag = -1;
    qint64 idleBeganMs = 0;
    qint64 firstLineMs = 0;
    qint64 finalLineMs = 0;
    std::vector<qint64> requestTimes; // when each request went out (sampled every 2 ms)
};

// One run of the writer, its lines shown by push (its output file followed) or by polling
// (its process's output), in a page and through a client of its own: the two transports run
// at the same time, each counting only its own client's requests. `ended` is called once,
// after the final line's batch or a failure.
class PhaseRun {
public:
    PhaseRun(
        test::RealServer &server, bool push, const QString &script, std::function<void()> ended)
        : m_push(push)
        , m_client(server.connection())
        , m_stream(&m_client, Identity())
        , m_ended(std::move(ended))
    {
        QObject::connect(&m_parser, &RunParser::eventsReady, &m_page, &RunPage::enqueueEvents);
        m_page.resize(1000, 700);
        m_page.show();
        QObject::connect(m_page.model(), &QAbstractItemModel::rowsInserted, &m_page,
            [this](
                const QModelIndex &parent, int first, int last) { onRows(parent, first, last); });
        QObject::connect(&m_requestWatch, &QTimer::timeout, &m_page, [this] {
            while (qint64(m_phase.requestTimes.size()) < m_client.requestCount())
                m_phase.requestTimes.push_back(QDateTime::currentMSecsSinceEpoch());
        });
        m_requestWatch.setInterval(2);
        m_requestWatch.start();
        if (push)
            startPushed(server, script);
        else
            startPolled(script);
    }

    Phase result()
    {
        m_phase.ok = !m_failed && !m_phase.activeLags.empty() && m_phase.idleBeganMs != 0
            && m_phase.finalLineMs != 0;
        return m_phase;
    }

private:
    void onRows(const QModelIndex &parent, int first, int last)
    {
        static const QRegularExpression probe(QStringLiteral("lag-probe (\\d+) (\\d+) (\\S+)"));
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        for (int row = first; row <= last; ++row) {
            const QString text
                = m_page.model()->index(row, 0, parent).data(RunModel::TextRole).toString();
            const QRegularExpressionMatch match = probe.match(text);
            if (!match.hasMatch())
                continue;
            const qint64 lag = now - match.captured(2).toLongLong();
            const QString label = match.captured(3);
            if (label == QLatin1String("active")) {
                if (m_phase.firstLineMs == 0)
                    m_phase.firstLineMs = now;
                m_phase.activeLags.push_back(lag);
            } else if (label == QLatin1String("idle-begins")) {
                m_phase.idleBeganMs = now;
            } else {
                m_phase.idleLineLag = lag;
                m_phase.finalLineMs = now;
                QTimer::singleShot(200, &m_page, [this] { end(); }); // the last batch
            }
        }
    }

    void feed(const QString &chunk)
    {
        for (const QString &line : m_assembler.feed(chunk))
            m_parser.feedLine(line.toUtf8(), QDateTime::currentMSecsSinceEpoch());
    }

    void fail(const QString &why)
    {
        std::fprintf(stderr, "%s failed: %s\n", m_push ? "push" : "polling", qPrintable(why));
        m_failed = true;
        end();
    }

    void end()
    {
        if (m_ended)
            std::exchange(m_ended, nullptr)();
    }

    // The writer's lines go to a file, as a run's go to its tee file; only that is followed.
    void startPushed(test::RealServer &server, const QString &script)
    {
        const QString path = server.homeDirectory() + QStringLiteral("/lag-push.jsonl");
        QFile::remove(path);
        FollowChannel *channel = FollowChannel::shared(&m_client, QString());
        if (!channel) {
            QTimer::singleShot(0, &m_page,
                [this] { fail(QStringLiteral("push is turned off (SANDSCOPE_PUSH)")); });
            return;
        }
        FollowedFile *file = channel->follow(path, 0, &m_followed);
        QObject::connect(file, &FollowedFile::data, &m_followed,
            [this](qint64, const QByteArray &bytes) { feed(QString::fromUtf8(bytes)); });
        QObject::connect(file, &FollowedFile::unavailable, &m_followed,
            [this](const QString &why) { fail(why); });
        QObject::connect(channel, &FollowChannel::stateChanged, &m_followed,
            [this, script, path](FollowChannel::State state) {
                if (state != FollowChannel::State::Open)
                    return;
                m_client.execute(Identity(),
                    QStringLiteral("python3 -u -c ") + shell::quote(script) + QStringLiteral(" > ")
                        + shell::quote(path),
                    {}, &m_page, [this](const Result<ProcessSnapshot> &started) {
                        if (!started.ok())
                            fail(started.error.toString());
                    });
            });
    }

    void startPolled(const QString &script)
    {
        QObject::connect(&m_stream, &ProcessStream::output, &m_page,
            [this](const QString &chunk) { feed(chunk); });
        QObject::connect(&m_stream, &ProcessStream::failed, &m_page,
            [this](const ApiError &error) { fail(error.toString()); });
        m_stream.start(QStringLiteral("python3 -u -c ") + shell::quote(script));
    }

    const bool m_push;
    Phase m_phase;
    bool m_failed = false;
    RunPage m_page;
    RunParser m_parser;
    LineAssembler m_assembler;
    OpenTerminalClient m_client;
    ProcessStream m_stream;
    QObject m_followed; // the pushed file's, gone before the client and its channel
    QTimer m_requestWatch;
    std::function<void()> m_ended;
};

void printPhase(const char *name, const Phase &phase, int idleSeconds, bool push)
{
    // Requests per second within [from, to): intervals between the requests sent in it.
    auto rateBetween = [&](qint64 from, qint64 to) {
        std::vector<qint64> inside;
        std::copy_if(phase.requestTimes.begin(), phase.requestTimes.end(),
            std::back_inserter(inside), [&](qint64 t) { return t >= from && t < to; });
        if (inside.size() < 2)
            return 0.0;
        return double(inside.size() - 1) * 1000.0 / double(inside.back() - inside.front());
    };
    // The request that fetched the last line is activity, not idleness.
    const qint64 idleEndsMs = phase.finalLineMs - 150;
    const double activeRate = rateBetween(phase.firstLineMs, phase.idleBeganMs);
    const double idleRate = rateBetween(phase.idleBeganMs, idleEndsMs);
    // Once the back-off has settled (after 20 s, or half the phase when it is shorter).
    const qint64 settleMs = qMin<qint64>(20000, qint64(idleSeconds) * 1000 / 2);
    const double steadyIdleRate = rateBetween(phase.idleBeganMs + settleMs, idleEndsMs);
    const double median = percentile(phase.activeLags, 0.5);
    const double p90 = percentile(phase.activeLags, 0.9);
    const long long idleRequests
        = std::count_if(phase.requestTimes.begin(), phase.requestTimes.end(),
            [&](qint64 t) { return t >= phase.idleBeganMs && t < idleEndsMs; });
    std::printf("[%s] lines: %zu while active\n", name, phase.activeLags.size());
    if (push) {
        std::printf("[%s] lag (write -> node): median %.0f ms, p90 %.0f ms, max %.0f ms  [target: "
                    "median <= 50 ms, p90 <= 100 ms] %s\n",
            name, median, p90, percentile(phase.activeLags, 1.0),
            median <= 50 && p90 <= 100 ? "met" : "NOT MET");
    } else {
        std::printf("[%s] lag (write -> node): median %.0f ms, p90 %.0f ms, max %.0f ms  [target: "
                    "median <= 300 ms] %s\n",
            name, median, p90, percentile(phase.activeLags, 1.0),
            median <= 300 ? "met" : "NOT MET");
    }
    std::printf("[%s] lag of the first line after %d s idle: %lld ms\n", name, idleSeconds,
        static_cast<long long>(phase.idleLineLag));
    std::printf("[%s] requests/s while active: %.2f  [target <= 4] %s\n", name, activeRate,
        activeRate <= 4.0 ? "met" : "NOT MET");
    if (push) {
        std::printf("[%s] requests/s while idle: %.2f (%lld requests in %d s)  [target: 0] %s\n",
            name, idleRate, idleRequests, idleSeconds, idleRequests == 0 ? "met" : "NOT MET");
    } else {
        std::printf("[%s] requests/s while idle: %.2f over the whole idle phase, %.2f once backed "
                    "off  [target <= 0.2] %s\n",
            name, idleRate, steadyIdleRate, steadyIdleRate <= 0.2 ? "met" : "NOT MET");
    }
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
    std::printf("open-terminal %s; %d s of bursts, then %d s idle; push (the file followed "
                "through a terminal) and polling (cadence %d ms while active, backing off to "
                "%d ms) at the same time, each with a client and a page of its own\n",
        qPrintable(version), activeSeconds, idleSeconds, ProcessStream::defaultFastMs,
        ProcessStream::defaultIdleMaxMs);
    std::fflush(stdout);
    // The two transports wait on the server almost all the time (a few dozen lines over the
    // whole run): side by side they take the time of one.
    const QString script = writerScript(activeSeconds, idleSeconds);
    int running = 2;
    const auto ended = [&] {
        if (--running == 0)
            app.quit();
    };
    PhaseRun pushRun(server, true, script, ended);
    PhaseRun pollRun(server, false, script, ended);
    app.exec();
    const Phase pushed = pushRun.result();
    const Phase polled = pollRun.result();
    if (pushed.ok)
        printPhase("push", pushed, idleSeconds, true);
    if (polled.ok)
        printPhase("polling", polled, idleSeconds, false);
    if (!pushed.ok || !polled.ok) {
        std::fprintf(stderr, "the run did not deliver its lines\n");
        return 2;
    }
    return 0;
}
