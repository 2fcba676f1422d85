// The all-users views of a fleet at scale (issue 29): three REAL multi-user open-terminal members
// on loopback (tests/support/fleetmembers.h: each in a mount namespace of its own with a private
// /home and its own account prefix, reached as root through `nsenter -t PID -m --`, one API key),
// behind the REAL nginx running the shipped sandbox/k8s/router/router.conf, each member with
// HOMES homes (1,000 by default) of CHATS chats (3), each chat with one session transcript copied
// from a real capture in tests/data/transcripts (about 150 KB each, its session id and cwd made
// its own), every entry aged 100 days and owned by a uid of its own. The homes are written
// straight into each member's folder (in /dev/shm when it has room), not through the server.
//
// For each all-users view the bench times one member alone (best of RUNS) and then all three at
// once through FleetFanOut, as the window would run them, merging the answers into the model the
// page shows, offscreen:
//  * sessions: sessiondiscovery::discoverAllUsers(FleetFanOut*) streamed, each batch of a
//    member's rows merged into the Sessions page's own SessionListModel (SessionsPage: its
//    proxy sorted by last activity, its view) as the member's script lists them;
//  * usage: UsageCollector::collectAllUsers(FleetFanOut*), each partial report (the members
//    added up so far) and the whole one shown by a UsageModel in a table view;
//  * cleanup dry run: FleetCleanupReview::startDryRun, as the Cleanup page runs it (a
//    CleanupRunner per member running the repository's sandbox/cleanup.sh, every chat and
//    session past its TTL), each member's items as its script reports them put into a
//    CleanupModel behind its filter proxy in a sorted tree through the review's 50 ms batches,
//    with their member.
// Reported per view: one member alone, all members at once and their ratio (target <= 1.3), the
// time to the first member's rows (target <= 1 s), the longest main-thread stall during the
// fan-out (the longest gap between ticks of a 1 ms heartbeat; target <= 50 ms) and the slowest
// merge into the model. Then the same from CPU time: here the members share the machine's cores
// (and with whatever else runs on it), where the pods of a cluster each have their own, so the
// bench also reports how much work each member did alone and together, and the ratio that work
// gives with a core per member (a projection). Then, where this process may make cgroups (root,
// the cgroup v1 or v2 cpu controller), the same views once more with a CPU budget per member:
// each member (its server and every admin script run in its namespace, through a wrapper that
// joins the member's cgroup) limited to the same share of a core alone and together, as the pods
// of a cluster each have their CPU limit (sandbox/k8s/statefulset.yaml). The members then no
// longer take each other's cores, and the wall-time ratio measures what the fan-out and the
// merging add. Then per-user listings through the router, and
// what a pod costs per home (listing time, disk) and per server (resident memory), with the homes
// per pod those figures allow.
//
//   ./build/<dir>/bench/bench_fleetscale [homes-per-member] [chats-per-home] [runs]

#include "cleanup/cleanupmodel.h"
#include "cleanup/cleanuprunner.h"
#include "fleet/fleetcleanupreview.h"
#include "fleet/fleetconfig.h"
#include "fleet/fleetfanout.h"
#include "fleetmembers.h"
#include "fleetrouter.h"
#include "membercpubudget.h"
#include "runs/sessionspage.h"
#include "sessions/sessiondiscovery.h"
#include "sessions/sessionlistmodel.h"
#include "usage/usagecollector.h"
#include "usage/usagemodel.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QHash>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QStorageInfo>
#include <QTableView>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>
#include <QTreeView>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fcntl.h>
#include <functional>
#include <memory>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

using namespace sandscope;
using namespace sandscope::test;

namespace {

constexpr double ratioTarget = 1.3;
constexpr qint64 firstRowsTargetMs = 1000;
constexpr qint64 stallTargetMs = 50;
constexpr qint64 fullListingTargetMs = 60000; // the admin views' target (bench_adminscale)
constexpr qint64 claimBytes = qint64(20) << 30; // the StatefulSet's volumeClaimTemplate

const char *verdict(bool met)
{
    return met ? "met" : "NOT MET";
}

// User and system time in ms of this process (RUSAGE_SELF) or of the children it has waited for
// (RUSAGE_CHILDREN: the admin scripts, each under `nsenter`, which waits for it).
qint64 cpuMs(int who)
{
    rusage usage {};
    ::getrusage(who, &usage);
    return (qint64(usage.ru_utime.tv_sec) + usage.ru_stime.tv_sec) * 1000
        + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000;
}

// CPU time of the calling thread in ms: unlike the wall time, not lengthened by other work on
// the machine taking the core away.
qint64 threadCpuUs()
{
    timespec now {};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return qint64(now.tv_sec) * 1000000 + now.tv_nsec / 1000;
}

// Times a call that puts answers into a model.
struct MergeClock {
    QElapsedTimer wall;
    qint64 cpuUs = threadCpuUs();
    MergeClock() { wall.start(); }
    void stop(qint64 *slowestWall, qint64 *slowestCpu) const
    {
        *slowestWall = std::max(*slowestWall, wall.elapsed());
        *slowestCpu = std::max(*slowestCpu, (threadCpuUs() - cpuUs) / 1000);
    }
};

// A 1 ms heartbeat: the longest gap between its ticks is the longest main-thread stall, and
// the main thread's CPU time in a gap is how much of it was the window's own work (the rest is
// the core taken by other work on the machine).
struct Watch {
    QElapsedTimer clock;
    QElapsedTimer beat;
    QTimer heartbeat;
    qint64 lastCpuUs = 0;
    qint64 longestStall = 0;
    qint64 longestBusy = 0;

    void start()
    {
        heartbeat.setInterval(1);
        QObject::connect(&heartbeat, &QTimer::timeout, [this] { tick(); });
        clock.start();
        beat.start();
        lastCpuUs = threadCpuUs();
        heartbeat.start();
    }
    void tick()
    {
        const qint64 cpuUs = threadCpuUs();
        longestStall = std::max(longestStall, beat.restart());
        longestBusy = std::max(longestBusy, (cpuUs - lastCpuUs) / 1000);
        lastCpuUs = cpuUs;
    }
    void stop()
    {
        tick();
        heartbeat.stop();
    }
};

// One timed run of a view over some members.
struct Figures {
    qint64 totalMs = 0;
    qint64 firstRowsMs = -1;
    qint64 longestStallMs = 0;
    qint64 longestBusyMs = 0; // of that, the main thread's own work
    qint64 slowestMergeMs = 0; // the longest single call that put answers into the model
    qint64 slowestMergeCpuMs = 0; // the main thread's CPU time in its slowest call
    qint64 scriptCpuMs = 0; // CPU time of the admin scripts (this process's children)
    qint64 selfCpuMs = 0; // CPU time of this process: reading, parsing, merging, painting
    qint64 rows = 0; // sessions, usage rows (user x day) or cleanup items
    QStringList errors;
};

Figures best(const QVector<Figures> &runs)
{
    return *std::min_element(runs.cbegin(), runs.cend(),
        [](const Figures &a, const Figures &b) { return a.totalMs < b.totalMs; });
}

// --- The homes -------------------------------------------------------------------------------

struct Capture {
    QByteArray bytes;
    QByteArray sessionId;
    QByteArray cwd;
};

// The main transcripts of the real captures (tests/data/transcripts/*/transcript/*.jsonl).
QVector<Capture> loadCaptures()
{
    QVector<Capture> captures;
    const QDir root(QStringLiteral(SANDSCOPE_CAPTURES_DIR "/transcripts"));
    const QRegularExpression cwd(QStringLiteral("\"cwd\":\"([^\"]+)\""));
    for (const QString &scenario : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        const QDir dir(root.filePath(scenario + QStringLiteral("/transcript")));
        for (const QString &name :
            dir.entryList({QStringLiteral("*.jsonl")}, QDir::Files, QDir::Name)) {
            QFile file(dir.filePath(name));
            if (!file.open(QIODevice::ReadOnly))
                continue;
            Capture capture;
            capture.bytes = file.readAll();
            capture.sessionId = QFileInfo(name).completeBaseName().toLatin1();
            const QRegularExpressionMatch match = cwd.match(QString::fromUtf8(capture.bytes));
            if (!match.hasMatch())
                continue;
            capture.cwd = match.captured(1).toUtf8();
            captures.append(capture);
        }
    }
    return captures;
}

bool writeFile(const QByteArray &path, const QByteArray &bytes)
{
    const int fd = ::open(path.constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return false;
    const bool ok = ::write(fd, bytes.constData(), size_t(bytes.size())) == bytes.size();
    return ::close(fd) == 0 && ok;
}

// HOMES homes named <prefix>u<N> under `root` (the member's /home), each with CHATS chats
// (chat-<c>/notes.txt) and one transcript per chat in ~/.claude/projects/<the CLI's directory
// name>/<session>.jsonl, copied from a capture with its own session id and cwd; every entry
// 100 days old and owned by the home's uid. Returns the transcript bytes written, or -1.
qint64 generateHomes(const QString &root, const QString &prefix, int member, int homes, int chats,
    const QVector<Capture> &captures)
{
    const timespec aged[2]
        = {{std::time(nullptr) - 100 * 86400, 0}, {std::time(nullptr) - 100 * 86400, 0}};
    qint64 total = 0;
    for (int h = 0; h < homes; ++h) {
        const QString account = prefix + QStringLiteral("u%1").arg(h, 4, 10, QLatin1Char('0'));
        const QString home = root + QLatin1Char('/') + account;
        const uid_t uid = uid_t(20000 + member * 10000 + h);
        QVector<QByteArray> entries; // deepest first: a directory's time is set after its files
        const QString projects = home + QStringLiteral("/.claude/projects");
        if (!QDir().mkpath(projects))
            return -1;
        for (int c = 0; c < chats; ++c) {
            const Capture &capture = captures.at((h * chats + c) % captures.size());
            const QString chatDir = home + QStringLiteral("/chat-%1").arg(c);
            const QByteArray cwd = QStringLiteral("/home/%1/chat-%2").arg(account).arg(c).toUtf8();
            const QByteArray sessionId = QStringLiteral("%1-%2-4000-8000-%3")
                                             .arg(member * 100000 + h, 8, 16, QLatin1Char('0'))
                                             .arg(c, 4, 16, QLatin1Char('0'))
                                             .arg(qint64(h) * 131 + c, 12, 16, QLatin1Char('0'))
                                             .toLatin1();
            const QString projectDir = projects + QLatin1Char('/')
                + sessiondiscovery::projectDirectoryName(QString::fromUtf8(cwd));
            QByteArray transcript = capture.bytes;
            transcript.replace(capture.sessionId, sessionId).replace(capture.cwd, cwd);
            const QByteArray transcriptPath = (projectDir + QLatin1Char('/')
                + QString::fromLatin1(sessionId) + QStringLiteral(".jsonl"))
                                                  .toUtf8();
            const QByteArray notes = (chatDir + QStringLiteral("/notes.txt")).toUtf8();
            if (!QDir().mkpath(chatDir) || !QDir().mkpath(projectDir)
                || !writeFile(transcriptPath, transcript)
                || !writeFile(notes, QByteArrayLiteral("notes of the chat\n")))
                return -1;
            total += transcript.size();
            entries << transcriptPath << notes << projectDir.toUtf8() << chatDir.toUtf8();
        }
        entries << projects.toUtf8() << (home + QStringLiteral("/.claude")).toUtf8()
                << home.toUtf8();
        for (const QByteArray &entry : std::as_const(entries)) {
            if (::lchown(entry.constData(), uid, uid) != 0
                || ::utimensat(AT_FDCWD, entry.constData(), aged, AT_SYMLINK_NOFOLLOW) != 0)
                return -1;
        }
    }
    return total;
}

// --- Measuring the members -------------------------------------------------------------------

// `pid` and every process below it.
QList<qint64> processTree(qint64 pid)
{
    QHash<qint64, qint64> parentOf;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString &entry : entries) {
        bool isPid = false;
        const qint64 child = entry.toLongLong(&isPid);
        if (!isPid)
            continue;
        QFile stat(QStringLiteral("/proc/%1/stat").arg(child));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray line = stat.readAll();
        const qsizetype close = line.lastIndexOf(')');
        const QList<QByteArray> fields = line.mid(close + 2).split(' ');
        if (fields.size() > 1)
            parentOf.insert(child, fields.at(1).toLongLong());
    }
    QList<qint64> tree;
    for (auto it = parentOf.cbegin(); it != parentOf.cend(); ++it) {
        qint64 up = it.key();
        for (int depth = 0; depth < 64 && up > 1 && up != pid; ++depth)
            up = parentOf.value(up, 0);
        if (up == pid)
            tree.append(it.key());
    }
    return tree;
}

// The resident memory of `pid` and every process below it, in KiB.
qint64 treeRssKiB(qint64 pid)
{
    qint64 total = 0;
    for (const qint64 process : processTree(pid)) {
        QFile status(QStringLiteral("/proc/%1/status").arg(process));
        if (!status.open(QIODevice::ReadOnly))
            continue;
        for (const QByteArray &line : status.readAll().split('\n')) {
            if (line.startsWith("VmRSS:"))
                total += line.mid(6).trimmed().split(' ').value(0).toLongLong();
        }
    }
    return total;
}

// Allocated bytes under `path` (du -sk).
qint64 diskBytes(const QString &path)
{
    QProcess du;
    du.start(QStringLiteral("du"), {QStringLiteral("-sk"), path});
    du.waitForFinished(120000);
    return du.readAllStandardOutput().split('\t').value(0).toLongLong() * 1024;
}

// The fleet of the first `count` members, each reached through its admin command, or through
// `adminCommands` (the CPU budget's wrappers) when given.
FleetConfig fleetOf(const TestMember *members, int count, const QStringList &adminCommands)
{
    FleetConfig fleet;
    for (int i = 0; i < count; ++i) {
        FleetMember member;
        member.name = members[i].name;
        member.url = members[i].server->url();
        member.adminExec
            = adminCommands.isEmpty() ? members[i].adminCommand() : adminCommands.at(i);
        AdminAccess::fromCommand(member.adminExec, &member.admin);
        fleet.members.append(member);
    }
    return fleet;
}

void waitFor(const bool &done)
{
    while (!done)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
}

// Sessions of every home on every member, streamed: each batch a member's script lists goes
// into the Sessions page's model as it comes (SessionListModel::addMemberSessions).
Figures runSessions(const FleetConfig &fleet, const ServerConnection &connection)
{
    SessionsPage page;
    page.resize(1200, 800);
    page.show();
    SessionListModel *model = page.model();
    model->setShowsMembers(true);
    FleetFanOut fanOut(fleet, connection);
    Figures figures;
    bool done = false;
    QObject::connect(&fanOut, &FleetFanOut::finished, [&done] { done = true; });
    Watch watch;
    watch.start();
    sessiondiscovery::discoverAllUsers(
        &fanOut, QStringLiteral("/home"),
        [&](const QString &member, const QVector<DiscoveredSession> &batch) {
            const MergeClock merge;
            model->addMemberSessions(member, batch);
            merge.stop(&figures.slowestMergeMs, &figures.slowestMergeCpuMs);
            if (figures.firstRowsMs < 0 && model->rowCount() > 0)
                figures.firstRowsMs = watch.clock.elapsed();
        },
        [&](const FanOutMemberResult &result, const QVector<DiscoveredSession> &,
            const QStringList &) {
            if (!result.ok)
                figures.errors << result.error;
        });
    waitFor(done);
    QCoreApplication::processEvents(); // the view lays out the last rows
    figures.totalMs = watch.clock.elapsed();
    watch.stop();
    figures.longestStallMs = watch.longestStall;
    figures.longestBusyMs = watch.longestBusy;
    figures.rows = model->rowCount();
    return figures;
}

// Usage of every home: UsageCollector over the fan-out (every member at once, each member's
// facts added up as it answers); each partial report, then the whole one, shown by the model.
Figures runUsage(const FleetConfig &fleet, const ServerConnection &connection)
{
    UsageModel model;
    QTableView view;
    view.setModel(&model);
    view.setSortingEnabled(true);
    view.resize(1200, 800);
    view.show();
    FleetFanOut fanOut(fleet, connection);
    UsageCollector collector;
    Figures figures;
    bool done = false;
    Watch watch;
    const auto show = [&](const UsageReport &report) {
        const MergeClock merge;
        model.setReport(report);
        merge.stop(&figures.slowestMergeMs, &figures.slowestMergeCpuMs);
        if (figures.firstRowsMs < 0 && model.rowCount() > 0)
            figures.firstRowsMs = watch.clock.elapsed();
    };
    QObject::connect(&collector, &UsageCollector::partialReport, show);
    QObject::connect(&collector, &UsageCollector::finished, [&](const UsageReport &report) {
        show(report);
        figures.errors += collector.memberErrors();
        done = true;
    });
    QObject::connect(&collector, &UsageCollector::failed, [&](const QString &error) {
        figures.errors << error;
        done = true;
    });
    watch.start();
    collector.collectAllUsers(&fanOut);
    waitFor(done);
    QCoreApplication::processEvents();
    figures.totalMs = watch.clock.elapsed();
    watch.stop();
    figures.longestStallMs = watch.longestStall;
    figures.longestBusyMs = watch.longestBusy;
    figures.rows = model.rowCount();
    return figures;
}

// The cleanup dry run of every home as the Cleanup page runs it: FleetCleanupReview (over
// FleetCleanup, a CleanupRunner per member, all at once), each member's items put into the model
// with their member in the review's 50 ms batches.
Figures runCleanup(const FleetConfig &fleet, const ServerConnection &connection)
{
    CleanupModel model;
    CleanupFilterProxy proxy;
    proxy.setSourceModel(&model);
    QTreeView tree;
    tree.setModel(&proxy);
    tree.setSortingEnabled(true);
    tree.sortByColumn(CleanupModel::SizeColumn, Qt::DescendingOrder);
    tree.resize(1200, 800);
    tree.show();
    CleanupSettings settings;
    settings.script = CleanupSettings::Script::Sandbox;
    settings.scriptPath = QStringLiteral(SANDSCOPE_SOURCE_DIR "/sandbox/cleanup.sh");
    // The users come expanded, as on the page (their items are leaves).
    QObject::connect(&proxy, &QAbstractItemModel::rowsInserted, &tree,
        [&](const QModelIndex &parent, int first, int last) {
            if (parent.isValid())
                return;
            for (int row = first; row <= last; ++row)
                tree.expand(proxy.index(row, 0));
        });
    FleetCleanupReview review;
    Figures figures;
    Watch watch;
    QObject::connect(&review, &FleetCleanupReview::itemsReceived,
        [&](const QString &member, const QVector<CleanupItem> &items) {
            const MergeClock merge;
            model.addItems(items, member);
            merge.stop(&figures.slowestMergeMs, &figures.slowestMergeCpuMs);
            if (figures.firstRowsMs < 0 && model.rowCount() > 0)
                figures.firstRowsMs = watch.clock.elapsed();
        });
    QObject::connect(&review, &FleetCleanupReview::memberFailed,
        [&figures](const QString &, const QString &message) { figures.errors << message; });
    bool done = false;
    QObject::connect(&review, &FleetCleanupReview::dryRunFinished, [&done] { done = true; });
    watch.start();
    review.startDryRun(new FleetFanOut(fleet, connection), settings);
    waitFor(done);
    QCoreApplication::processEvents();
    figures.totalMs = watch.clock.elapsed();
    watch.stop();
    figures.longestStallMs = watch.longestStall;
    figures.longestBusyMs = watch.longestBusy;
    figures.rows = model.itemCount();
    return figures;
}

using View = std::function<Figures(const FleetConfig &, const ServerConnection &)>;

// One member alone (best of `runs`), then every member at once, each member reached through its
// admin command or through `adminCommands`.
struct Comparison {
    Figures one;
    Figures all;
    bool failed() const { return !one.errors.isEmpty() || !all.errors.isEmpty(); }
};

Comparison measure(const char *what, const View &view, const TestMember *members, int memberCount,
    const ServerConnection &connection, int runs, const QStringList &adminCommands = {})
{
    QVector<Figures> alone;
    const auto timed = [&](int count) {
        const qint64 scripts = cpuMs(RUSAGE_CHILDREN);
        const qint64 self = cpuMs(RUSAGE_SELF);
        Figures figures = view(fleetOf(members, count, adminCommands), connection);
        figures.scriptCpuMs = cpuMs(RUSAGE_CHILDREN) - scripts;
        figures.selfCpuMs = cpuMs(RUSAGE_SELF) - self;
        return figures;
    };
    for (int i = 0; i < runs; ++i)
        alone.append(timed(1));
    const Comparison comparison {best(alone), timed(memberCount)};
    for (const Figures &figures : {comparison.one, comparison.all}) {
        for (const QString &error : figures.errors)
            std::printf("  %s failed: %s\n", what, qPrintable(error));
    }
    return comparison;
}

// measure()'s figures printed, with the CPU-time projection. Returns the member alone's best, or
// a run with errors.
Figures compare(const char *what, const char *unit, const View &view, const TestMember *members,
    int memberCount, const ServerConnection &connection, int runs, const char *how)
{
    const Comparison comparison = measure(what, view, members, memberCount, connection, runs);
    const Figures &one = comparison.one;
    const Figures &all = comparison.all;
    if (comparison.failed())
        return one.errors.isEmpty() ? all : one;
    // The stall is the fan-out's, merging the members' answers; judged by the main thread's own
    // work in it (the wall time also holds the core being taken by other work).
    const qint64 worstStall = all.longestBusyMs;
    const double ratio = double(all.totalMs) / double(std::max<qint64>(one.totalMs, 1));
    std::printf(
        "%s (%s): one member %.2f s (best of %d, %lld %s), %d members at once %.2f s (%lld %s): "
        "ratio %.2f (target <= %.1f: %s); first rows after %lld ms (target <= %lld ms: "
        "%s); longest stall %lld ms, of which the main thread's own work %lld ms (target <= "
        "%lld ms: %s); the slowest merge into the model %lld ms (CPU %lld ms)\n",
        what, how, double(one.totalMs) / 1000, runs, static_cast<long long>(one.rows), unit,
        memberCount, double(all.totalMs) / 1000, static_cast<long long>(all.rows), unit, ratio,
        ratioTarget, verdict(ratio <= ratioTarget), static_cast<long long>(all.firstRowsMs),
        static_cast<long long>(firstRowsTargetMs),
        verdict(all.firstRowsMs >= 0 && all.firstRowsMs <= firstRowsTargetMs),
        static_cast<long long>(all.longestStallMs), static_cast<long long>(worstStall),
        static_cast<long long>(stallTargetMs), verdict(worstStall <= stallTargetMs),
        static_cast<long long>(all.slowestMergeMs), static_cast<long long>(all.slowestMergeCpuMs));
    // Here the members share the cores (and with whatever else runs): wall time is not the
    // work. CPU time is: what each member's scripts used alone and together, and what running
    // them together would take with a core per member (each member's share of the scripts'
    // CPU time, plus this process's), against one member alone.
    const double perMember = double(all.scriptCpuMs) / memberCount;
    const double projected = (perMember + double(all.selfCpuMs))
        / std::max(double(one.scriptCpuMs + one.selfCpuMs), 1.0);
    std::printf("%s, CPU time: one member's scripts %.1f s (this process %.1f s), %d members' "
                "%.1f s (this process %.1f s): %.2f x the work per member when run together; with "
                "a core per member, projected ratio %.2f (target <= %.1f: %s)\n",
        what, double(one.scriptCpuMs) / 1000, double(one.selfCpuMs) / 1000, memberCount,
        double(all.scriptCpuMs) / 1000, double(all.selfCpuMs) / 1000,
        perMember / std::max(double(one.scriptCpuMs), 1.0), projected, ratioTarget,
        verdict(projected <= ratioTarget));
    return one;
}

// The views again with every member limited to the same CPU budget (`wrappers`: the members'
// admin commands joining their cgroups): the members no longer share cores, so the wall-time
// ratio is what running them at once adds (the fan-out, the merging, this process's share).
void compareWithBudget(const char *what, const View &view, const TestMember *members,
    int memberCount, const ServerConnection &connection, int runs, const QStringList &wrappers,
    int millicores)
{
    const Comparison comparison
        = measure(what, view, members, memberCount, connection, runs, wrappers);
    if (comparison.failed())
        return;
    const Figures &one = comparison.one;
    const Figures &all = comparison.all;
    const double ratio = double(all.totalMs) / double(std::max<qint64>(one.totalMs, 1));
    std::printf("%s, each member limited to %d millicores of CPU: one member %.2f s (best of %d), "
                "%d members at once %.2f s: ratio %.2f (target <= %.1f: %s); first rows after "
                "%lld ms; the main thread's own work in the longest stall %lld ms; the members' "
                "scripts used %.1f s of CPU alone, %.1f s together\n",
        what, millicores, double(one.totalMs) / 1000, runs, memberCount, double(all.totalMs) / 1000,
        ratio, ratioTarget, verdict(ratio <= ratioTarget), static_cast<long long>(all.firstRowsMs),
        static_cast<long long>(all.longestBusyMs), double(one.scriptCpuMs) / 1000,
        double(all.scriptCpuMs) / 1000);
}

// Each member's admin command as a script that first joins the member's cgroup of `budget`
// (written to `folder`); empty, with `why`, when one cannot be written.
QStringList budgetWrappers(const TestMember *members, int memberCount,
    const bench::MemberCpuBudget &budget, const QString &folder, QString *why)
{
    QStringList wrappers;
    for (int i = 0; i < memberCount; ++i) {
        const QString path = folder + QStringLiteral("/admin-%1.sh").arg(i);
        const QByteArray script = QStringLiteral(
            "#!/bin/sh\n# %1's admin command under its CPU budget (bench/bench_fleetscale.cpp)\n"
            "echo $$ > '%2' || exit 125\nexec %3 \"$@\"\n")
                                      .arg(members[i].name, budget.procsFile(i),
                                          members[i].adminCommand())
                                      .toUtf8();
        if (!writeFile(path.toUtf8(), script) || ::chmod(path.toUtf8().constData(), 0700) != 0) {
            *why = QStringLiteral("cannot write %1").arg(path);
            return {};
        }
        wrappers.append(path);
    }
    return wrappers;
}

// A few users' own session listings through the router (the per-user path of a fleet): which
// member each lands on (its account prefix), and the time of a listing once the account exists.
void throughTheRouter(
    const FleetRouter &router, const TestMember *members, int memberCount, const QString &key)
{
    OpenTerminalClient client(ServerConnection {router.url(), key, 30000});
    QVector<qint64> times;
    QSet<QString> reached;
    int failed = 0;
    for (int i = 0; i < 6; ++i) {
        const Identity who {QStringLiteral("routed%1").arg(i) + randomToken(4, true), QString()};
        for (int pass = 0; pass < 2; ++pass) { // the first creates the account
            bool done = false;
            QElapsedTimer clock;
            clock.start();
            sessiondiscovery::discover(&client, who, &client,
                [&](bool ok, const sessiondiscovery::Listing &listing, const QString &) {
                    done = true;
                    if (!ok) {
                        ++failed;
                        return;
                    }
                    if (pass == 0)
                        return;
                    times.append(clock.elapsed());
                    for (int m = 0; m < memberCount; ++m) {
                        if (listing.home.startsWith(
                                QStringLiteral("/home/") + members[m].server->prefix()))
                            reached.insert(members[m].name);
                    }
                });
            waitFor(done);
        }
    }
    std::sort(times.begin(), times.end());
    std::printf("Router (nginx, shipped router.conf): %lld users' own session listings through "
                "it reached %d of %d members; median %lld ms, slowest %lld ms%s\n",
        static_cast<long long>(times.size()), int(reached.size()), memberCount,
        static_cast<long long>(times.isEmpty() ? -1 : times.at(times.size() / 2)),
        static_cast<long long>(times.isEmpty() ? -1 : times.last()),
        failed ? qPrintable(QStringLiteral(" (%1 failed)").arg(failed)) : "");
}

// The 1-minute load average: other work on the machine shares the cores with the members.
QString loadAverage()
{
    QFile file(QStringLiteral("/proc/loadavg"));
    return file.open(QIODevice::ReadOnly) ? QString::fromLatin1(file.readAll().split(' ').value(0))
                                          : QStringLiteral("?");
}

double memoryGiB()
{
    QFile meminfo(QStringLiteral("/proc/meminfo"));
    if (!meminfo.open(QIODevice::ReadOnly))
        return 0;
    const QList<QByteArray> first = meminfo.readLine().simplified().split(' ');
    return first.value(1).toDouble() / (1024 * 1024);
}

QString cpuModel()
{
    QFile cpuinfo(QStringLiteral("/proc/cpuinfo"));
    if (!cpuinfo.open(QIODevice::ReadOnly))
        return {};
    for (const QByteArray &line : cpuinfo.readAll().split('\n')) {
        if (line.startsWith("model name"))
            return QString::fromUtf8(line.mid(line.indexOf(':') + 1).trimmed());
    }
    return {};
}

} // namespace

int main(int argc, char **argv)
{
    qputenv("QT_LOGGING_RULES", "qt.qpa.*=false");
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    std::setvbuf(stdout, nullptr, _IOLBF, 0); // in order with the messages on stderr
    const int homes = argc > 1 ? QByteArray(argv[1]).toInt() : 1000;
    const int chats = argc > 2 ? QByteArray(argv[2]).toInt() : 3;
    const int runs = argc > 3 ? QByteArray(argv[3]).toInt() : 2;
    constexpr int memberCount = 3;
    if (homes < 1 || chats < 1 || runs < 1) {
        std::fprintf(
            stderr, "usage: bench_fleetscale [homes-per-member] [chats-per-home] [runs]\n");
        return 2;
    }
    QString why;
    if (!RealServer::canRunMultiUser(&why) || FleetRouter::nginx().isEmpty()) {
        std::fprintf(stderr, "cannot run a fleet here: %s\n",
            qPrintable(why.isEmpty() ? QStringLiteral("nginx is not installed") : why));
        return 1;
    }
    const QVector<Capture> captures = loadCaptures();
    if (captures.isEmpty()) {
        std::fprintf(stderr, "no transcript captures in %s\n", SANDSCOPE_CAPTURES_DIR);
        return 1;
    }
    // The homes in memory where there is room: on a disk mounted with `discard`, as here,
    // deleting a few GB of homes afterwards takes longer than the benchmark. The listings read
    // them from the page cache either way: a cold cache is not measured.
    std::unique_ptr<QTemporaryDir> inMemory;
    const QStorageInfo shm(QStringLiteral("/dev/shm"));
    const qint64 needed = qint64(memberCount) * homes * chats * 400 * 1024;
    if (shm.isValid() && shm.fileSystemType() == "tmpfs" && shm.bytesAvailable() > 2 * needed) {
        inMemory = std::make_unique<QTemporaryDir>(
            QStringLiteral("/dev/shm/sandscope-fleetscale-XXXXXX"));
        if (inMemory->isValid()) {
            QFile::setPermissions(inMemory->path(),
                QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ExeGroup
                    | QFile::ExeOther);
            qputenv("TMPDIR", inMemory->path().toUtf8()); // the members' folders go there
        }
    }
    QTemporaryDir state;
    isolateLocalState(state.path());
    std::printf("machine: %d cores (%s), %.0f GiB of memory, load average %s; the %d members "
                "share them; homes in %s\n",
        QThread::idealThreadCount(), qPrintable(cpuModel()), memoryGiB(), qPrintable(loadAverage()),
        memberCount,
        inMemory && inMemory->isValid() ? "a tmpfs (/dev/shm)" : qPrintable(QDir::tempPath()));

    QElapsedTimer setup;
    setup.start();
    const QString key = QStringLiteral("fleet-bench-") + randomToken(16);
    TestMember members[memberCount];
    QString error;
    QList<TestMember *> starting;
    QStringList names;
    for (int i = 0; i < memberCount; ++i) {
        starting.append(&members[i]);
        names.append(QStringLiteral("member-%1").arg(i));
    }
    if (!startMembers(starting, names, &error, key)) {
        std::fprintf(stderr, "the members did not start: %s\n", qPrintable(error));
        return 1;
    }
    const qint64 startedMs = setup.elapsed();
    qint64 idleRssKiB = 0;
    for (const TestMember &member : members)
        idleRssKiB = std::max(idleRssKiB, treeRssKiB(member.server->processId()));
    FleetRouter router;
    QList<quint16> ports;
    for (const TestMember &member : members)
        ports << quint16(member.server->url().port());
    if (!router.start(ports, &error)) {
        std::fprintf(stderr, "the router did not start: %s\n", qPrintable(error));
        return 1;
    }
    QElapsedTimer made;
    made.start();
    qint64 transcriptBytes = 0;
    for (int i = 0; i < memberCount; ++i) {
        const qint64 bytes = generateHomes(
            members[i].homes.path(), members[i].server->prefix(), i, homes, chats, captures);
        if (bytes < 0) {
            std::fprintf(stderr, "could not write the homes of member-%d\n", i);
            return 1;
        }
        transcriptBytes += bytes;
    }
    const qint64 generatedMs = made.elapsed();
    const qint64 memberDisk = diskBytes(members[0].homes.path());
    std::printf("%d members (open-terminal %s, each in its own mount namespace) started in %.1f "
                "s, behind nginx; %d homes per member x %d chats, one transcript each (%d real "
                "captures, %.0f KB on average), %.0f MB of transcripts in all, generated in %.1f "
                "s\n",
        memberCount, qPrintable(members[0].server->version()), double(startedMs) / 1000, homes,
        chats, int(captures.size()),
        double(transcriptBytes) / (double(memberCount) * homes * chats) / 1000,
        double(transcriptBytes) / 1e6, double(generatedMs) / 1000);

    const qint64 setupMs = setup.elapsed();
    QElapsedTimer measuring;
    measuring.start();
    const ServerConnection connection {router.url(), key, 120000};
    const Figures sessions = compare("Sessions of all users", "sessions", &runSessions, members,
        memberCount, connection, runs, "FleetFanOut: discoverAllUsers, streamed");
    const Figures usage = compare("Usage of all users", "user-day rows", &runUsage, members,
        memberCount, connection, runs, "UsageCollector::collectAllUsers(FleetFanOut*)");
    const Figures cleanup = compare("Cleanup dry run", "items", &runCleanup, members, memberCount,
        connection, runs, "FleetCleanupReview::startDryRun");
    throughTheRouter(router, members, memberCount, key);

    qint64 busyRssKiB = 0;
    for (const TestMember &member : members)
        busyRssKiB = std::max(busyRssKiB, treeRssKiB(member.server->processId()));
    bool measured = sessions.errors.isEmpty() && usage.errors.isEmpty() && cleanup.errors.isEmpty()
        && sessions.totalMs > 0;
    if (measured) {
        // What a member costs per home, from one member alone: the wall time here (shared
        // cores), and the CPU time of its scripts and of this process (what a core of its own
        // would take, as a pod's listing runs one home after another).
        const auto wallMs = [homes](const Figures &f) {
            return double(f.totalMs) / homes;
        };
        const auto cpuMs = [homes](const Figures &f) {
            return double(f.scriptCpuMs + f.selfCpuMs) / homes;
        };
        const double perHomeDisk = double(memberDisk) / homes;
        std::printf("Per home (one member alone): session listing %.2f ms (CPU %.2f ms), usage "
                    "%.2f ms (CPU %.2f ms), cleanup dry run %.2f ms (CPU %.2f ms); disk %.0f KB "
                    "(%d sessions of %.0f KB); open-terminal resident memory %.0f MB idle, %.0f MB "
                    "after the runs (per server, not per user)\n",
            wallMs(sessions), cpuMs(sessions), wallMs(usage), cpuMs(usage), wallMs(cleanup),
            cpuMs(cleanup), perHomeDisk / 1024, chats,
            double(transcriptBytes) / (double(memberCount) * homes * chats) / 1000,
            double(idleRssKiB) / 1024, double(busyRssKiB) / 1024);
        // Every view streams (a member's rows, figures and items come while its script runs):
        // the first rows do not grow with the homes; the whole listing does.
        const double slowestCpu = std::max({cpuMs(sessions), cpuMs(usage), cpuMs(cleanup)});
        const double slowestWall = std::max({wallMs(sessions), wallMs(usage), wallMs(cleanup)});
        std::printf("Users per pod (homes like these, one pod per member): first rows after %lld "
                    "ms (sessions), %lld ms (usage), %lld ms (cleanup), streamed, whatever the "
                    "homes; every all-users view done within %lld s up to %lld homes on a core "
                    "of its own (%lld at this machine's wall time); the 20 GiB claim holds %lld "
                    "such homes\n",
            static_cast<long long>(sessions.firstRowsMs), static_cast<long long>(usage.firstRowsMs),
            static_cast<long long>(cleanup.firstRowsMs),
            static_cast<long long>(fullListingTargetMs / 1000),
            static_cast<long long>(fullListingTargetMs / std::max(slowestCpu, 0.001)),
            static_cast<long long>(fullListingTargetMs / std::max(slowestWall, 0.001)),
            static_cast<long long>(double(claimBytes) / std::max(perHomeDisk, 1.0)));
    }

    // The same views with a CPU budget per member: the StatefulSet's CPU request (500m), which
    // on two cores leaves half a core to this process and the router.
    constexpr int budgetMillicores = 500;
    bench::MemberCpuBudget budget;
    QStringList wrappers;
    QString noBudget;
    bool budgeted = budget.create(names, budgetMillicores, &noBudget);
    if (budgeted)
        wrappers = budgetWrappers(members, memberCount, budget, state.path(), &noBudget);
    for (int i = 0; budgeted && i < memberCount; ++i) {
        if (wrappers.isEmpty()
            || !budget.enter(i, processTree(members[i].server->processId()), &noBudget))
            budgeted = false;
    }
    if (budgeted && measured) {
        compareWithBudget("Sessions of all users", &runSessions, members, memberCount, connection,
            runs, wrappers, budgetMillicores);
        compareWithBudget("Usage of all users", &runUsage, members, memberCount, connection, runs,
            wrappers, budgetMillicores);
        compareWithBudget("Cleanup dry run", &runCleanup, members, memberCount, connection, runs,
            wrappers, budgetMillicores);
    } else if (!budgeted) {
        std::printf("No CPU budget per member here (%s): the wall-time ratios above are those of "
                    "members sharing this machine's cores\n",
            qPrintable(noBudget));
    }
    if (budgeted && measured) {
        std::printf("The budget held the members back for %.1f s in all (the cgroups' throttled "
                    "time)\n",
            double(budget.throttledMs()) / 1000);
    }
    budget.leaveAll();

    const qint64 measuringMs = measuring.elapsed();
    QElapsedTimer teardown;
    teardown.start();
    router.stop();
    // The homes go first: stopping a member removes the accounts the router check made, and
    // looks for their files in /tmp, where the homes are.
    for (TestMember &member : members)
        member.homes.remove();
    stopMembers(starting);
    std::printf("took %.0f s: setup %.0f s, measuring %.0f s, teardown %.0f s; load average "
                "%s\n",
        double(setup.elapsed()) / 1000, double(setupMs) / 1000, double(measuringMs) / 1000,
        double(teardown.elapsed()) / 1000, qPrintable(loadAverage()));
    return measured ? 0 : 1;
}
