// The live wall at scale: SESSIONS running sessions (200 by default), each a process named
// like the claude CLI (`exec -a claude sleep`, in a chat folder of its own under a temporary
// HOME) whose transcript a writer thread of this benchmark appends real transcript records to,
// one per session every PERIOD ms (1,000 by default: 200 records a second in all), for
// SECONDS seconds. The Live page (offscreen, its view, proxy and delegate) watches them
// through ONE follower started by the admin channel (`env`: this machine, this account; the
// benchmark is not 200 agents and needs no server).
// Reported: the time until every session is on the wall; the update lag from a record's write
// to the model row showing it (median, p90, max); the longest main-thread stall (the longest
// gap between ticks of a 1 ms heartbeat) while loading and while writing; the number of
// admin-channel processes (the follower processes under this benchmark: must be 1).
// Targets (issue 28): lag within 1 s, stalls <= 50 ms, one process.
//
//   ./build/<dir>/bench/bench_livewall [sessions] [seconds] [period-ms]

#include "live/liveagentmodel.h"
#include "live/liveagentproxy.h"
#include "live/liveagentwatcher.h"
#include "live/livepage.h"
#include "server/adminaccess.h"
#include "server/openterminalclient.h"

#include <QApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QMutex>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <ctime>
#include <fcntl.h>
#include <memory>
#include <unistd.h>
#include <vector>

using namespace sandscope;

namespace {

// The CLI's folder name for a short working directory (app/sessions/sessiondiscovery.h).
QString projectFolder(const QString &cwd)
{
    QString name = cwd;
    for (QChar &c : name) {
        if (!(c.unicode() < 128 && c.isLetterOrNumber()))
            c = QLatin1Char('-');
    }
    return name;
}

// A real assistant record of the CLI (its shape), saying `text` at `ms`.
QByteArray record(int session, qint64 tick, qint64 ms)
{
    const QByteArray time
        = QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs).toUtf8();
    return R"({"parentUuid":null,"isSidechain":false,"type":"assistant","message":{"id":"msg_)"
        + QByteArray::number(session) + '_' + QByteArray::number(tick)
        + R"(","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"tick )"
        + QByteArray::number(tick)
        + R"("}],"usage":{"input_tokens":12,"output_tokens":7}},"uuid":"u)"
        + QByteArray::number(session) + '-' + QByteArray::number(tick) + R"(","timestamp":")" + time
        + R"(","sessionId":"s)" + QByteArray::number(session) + "\"}\n";
}

// Writes a record to every transcript each `periodMs`, spread over the period, and notes when.
class Writer : public QThread {
public:
    Writer(const QStringList &paths, int periodMs, int seconds)
        : m_paths(paths)
        , m_periodMs(periodMs)
        , m_seconds(seconds)
        , m_written(size_t(paths.size()))
    {
    }
    // When session `session` wrote tick `tick` (ms since the epoch), -1 when it did not.
    qint64 writtenAt(int session, qint64 tick)
    {
        QMutexLocker lock(&m_mutex);
        const auto &ticks = m_written.at(size_t(session));
        return tick >= 0 && tick < qint64(ticks.size()) ? ticks.at(size_t(tick)) : -1;
    }
    qint64 records() const { return m_records; }

protected:
    void run() override
    {
        std::vector<int> fds;
        for (const QString &path : std::as_const(m_paths))
            fds.push_back(::open(QFile::encodeName(path).constData(), O_WRONLY | O_APPEND));
        QElapsedTimer clock;
        clock.start();
        const int sessions = int(m_paths.size());
        for (qint64 tick = 0; clock.elapsed() < qint64(m_seconds) * 1000; ++tick) {
            for (int s = 0; s < sessions; ++s) {
                const qint64 due = tick * m_periodMs + qint64(s) * m_periodMs / sessions;
                const qint64 wait = due - clock.elapsed();
                if (wait > 0)
                    QThread::msleep(static_cast<unsigned long>(wait));
                const qint64 now = QDateTime::currentMSecsSinceEpoch();
                const QByteArray bytes = record(s, tick, now);
                {
                    QMutexLocker lock(&m_mutex);
                    m_written[size_t(s)].push_back(now);
                }
                if (::write(fds[size_t(s)], bytes.constData(), size_t(bytes.size())) > 0)
                    ++m_records;
            }
        }
        for (const int fd : fds)
            ::close(fd);
    }

private:
    QStringList m_paths;
    int m_periodMs;
    int m_seconds;
    QMutex m_mutex;
    std::vector<std::vector<qint64>> m_written;
    std::atomic<qint64> m_records {0};
};

// The follower processes (`python3 -u - agents`) whose ancestors include this process.
int followerProcesses()
{
    const qint64 self = QCoreApplication::applicationPid();
    int count = 0;
    const QStringList pids = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString &pid : pids) {
        QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
        if (!cmdline.open(QIODevice::ReadOnly))
            continue;
        // python3 (as PATH found it, e.g. a full path) -u - agents
        const QList<QByteArray> argv = cmdline.readAll().split('\0');
        if (argv.size() != 5 || !argv.at(0).split('/').last().startsWith("python")
            || argv.mid(1, 3) != QList<QByteArray> {"-u", "-", "agents"})
            continue;
        for (QString at = pid; !at.isEmpty() && at != QLatin1String("1");) {
            QFile stat(QStringLiteral("/proc/%1/stat").arg(at));
            if (!stat.open(QIODevice::ReadOnly))
                break;
            const QList<QByteArray> fields = stat.readAll().split(')').last().split(' ');
            at = QString::fromLatin1(fields.value(2));
            if (at.toLongLong() == self) {
                ++count;
                break;
            }
        }
    }
    return count;
}

qint64 threadCpuMs()
{
    timespec now {};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return qint64(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

qint64 percentile(std::vector<qint64> values, double p)
{
    if (values.empty())
        return -1;
    std::sort(values.begin(), values.end());
    return values.at(std::min(values.size() - 1, size_t(p * double(values.size()))));
}

} // namespace

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const int sessions = argc > 1 ? QByteArray(argv[1]).toInt() : 200;
    const int seconds = argc > 2 ? QByteArray(argv[2]).toInt() : 20;
    const int periodMs = argc > 3 ? QByteArray(argv[3]).toInt() : 1000;
    QTemporaryDir dir(QDir::tempPath() + QStringLiteral("/sandscope-livewall-XXXXXX"));
    const QString home = dir.filePath(QStringLiteral("home"));

    // The sessions: a process named like the CLI in each chat folder, and its transcript.
    std::vector<std::unique_ptr<QProcess>> agents;
    QStringList transcripts;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("HOME"), home);
    environment.remove(QStringLiteral("CLAUDE_CONFIG_DIR"));
    for (int s = 0; s < sessions; ++s) {
        const QString cwd = home + QStringLiteral("/chat-c%1").arg(s);
        const QString folder = home + QStringLiteral("/.claude/projects/") + projectFolder(cwd);
        QDir().mkpath(cwd);
        QDir().mkpath(folder);
        auto agent = std::make_unique<QProcess>();
        agent->setProcessEnvironment(environment);
        agent->setWorkingDirectory(cwd);
        agent->start(QStringLiteral("bash"),
            {QStringLiteral("-c"), QStringLiteral("exec -a claude sleep %1").arg(seconds + 120)});
        agents.push_back(std::move(agent));
        // Written after the process started: the newest transcript of its folder is its own.
        QThread::msleep(1);
        const QString path = folder + QStringLiteral("/s%1.jsonl").arg(s);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly)) {
            std::fprintf(stderr, "cannot write %s\n", qPrintable(path));
            return 1;
        }
        transcripts.append(path);
    }
    for (const auto &agent : agents)
        agent->waitForStarted();
    std::printf("%d sessions (processes named claude), a record each every %d ms for %d s\n",
        sessions, periodMs, seconds);

    LivePage page;
    page.resize(1400, 900);
    page.show();
    OpenTerminalClient client(ServerConnection {});
    AdminAccess admin;
    AdminAccess::fromCommand(QStringLiteral("env"), &admin);
    page.setClient(&client);
    page.setAdminAccess(admin, {});
    LiveAgentModel *model = page.model();

    // Lag: when a row first shows tick N of its session, against when N was written.
    std::unique_ptr<Writer> writer;
    std::vector<qint64> lags;
    std::vector<qint64> seenTick(size_t(sessions), -1);
    QObject::connect(model, &QAbstractItemModel::dataChanged, model,
        [&](const QModelIndex &from, const QModelIndex &to) {
            if (!writer || from.column() != 0)
                return;
            const qint64 now = QDateTime::currentMSecsSinceEpoch();
            for (int row = from.row(); row <= to.row(); ++row) {
                const LiveAgentRow &agent = model->agentAt(row);
                const int session = agent.info.sessionId.mid(1).toInt();
                if (!agent.lastLine.startsWith(QLatin1String("tick ")) || session < 0
                    || session >= sessions)
                    continue;
                const qint64 tick = agent.lastLine.mid(5).toLongLong();
                if (tick <= seenTick[size_t(session)])
                    continue;
                seenTick[size_t(session)] = tick;
                const qint64 written = writer->writtenAt(session, tick);
                if (written > 0)
                    lags.push_back(now - written);
            }
        });

    // The longest gap between heartbeats, and the most CPU the main thread used within one
    // (a gap with little CPU is the machine's scheduler, not the wall's work).
    QElapsedTimer beat;
    qint64 stall = 0;
    qint64 busy = 0;
    qint64 lastCpu = threadCpuMs();
    QTimer heartbeat;
    heartbeat.setInterval(1);
    QObject::connect(&heartbeat, &QTimer::timeout, [&] {
        stall = std::max(stall, beat.restart());
        const qint64 cpu = threadCpuMs();
        busy = std::max(busy, cpu - lastCpu);
        lastCpu = cpu;
    });
    QElapsedTimer clock;
    clock.start();
    beat.start();
    heartbeat.start();
    page.startWatching();
    auto ours = [&] {
        int count = 0;
        for (int row = 0; row < model->rowCount(); ++row)
            count += model->agentAt(row).info.cwd.startsWith(home) ? 1 : 0;
        return count;
    };
    while (ours() < sessions && clock.elapsed() < 60000
        && page.watcher()->state() != LiveAgentWatcher::State::Failed)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    if (ours() < sessions) {
        std::fprintf(stderr, "only %d of %d sessions on the wall after %lld ms: %s\n", ours(),
            sessions, clock.elapsed(), qPrintable(page.watcher()->error()));
        return 1;
    }
    std::printf("all %d sessions on the wall after %lld ms; longest stall while loading %lld ms "
                "(main thread busy at most %lld ms between heartbeats)\n",
        sessions, clock.elapsed(), stall, busy);

    stall = 0;
    busy = 0;
    beat.restart();
    writer = std::make_unique<Writer>(transcripts, periodMs, seconds);
    writer->start();
    while (!writer->isFinished())
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    // The last records' way to the wall.
    QElapsedTimer drain;
    drain.start();
    while (drain.elapsed() < 2000)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    const int processes = followerProcesses();
    std::printf("records written: %lld, shown: %zu\n", writer->records(), lags.size());
    std::printf("lag (write -> model row): median %lld ms, p90 %lld ms, max %lld ms "
                "(target: within 1000 ms)\n",
        percentile(lags, 0.5), percentile(lags, 0.9), percentile(lags, 1.0));
    std::printf(
        "longest main-thread stall while writing: %lld ms, main thread busy at most %lld ms "
        "between heartbeats (target: <= 50 ms)\n",
        stall, busy);
    std::printf("admin-channel processes: %d (started by the watcher: %d; target: 1)\n", processes,
        page.watcher()->processesStarted());
    page.stopWatching();
    for (const auto &agent : agents)
        agent->kill();
    for (const auto &agent : agents)
        agent->waitForFinished(2000);
    return processes == 1 ? 0 : 1;
}
