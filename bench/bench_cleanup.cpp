// sandbox/cleanup.sh at scale: generates HOMES homes with CHATS chat folders and CHATS Claude
// sessions each (a session per chat, in its own project, with a sub-agent file) in a temporary
// HOME_ROOT, all past their TTL, then times the dry run (and when its first item arrived) and
// executing the full plan it produced, run by the local bash as the server would run it. Prints
// the figures against the targets (dry run <= 60 s, execute <= 5 min for 1,000 x 50); never fails
// because of a missed target.
//   Usage: bench_cleanup [homes] [chats]   (default 1000 50)

#include "benchfiles.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

using benchfiles::makeDir;
using benchfiles::setTime;
using benchfiles::writeFile;

constexpr double dryRunTargetSeconds = 60.0;
constexpr double executeTargetSeconds = 300.0;

QByteArray uuidFor(int home, int chat)
{
    return QByteArray::number(0x10000000 + home, 16) + "-0000-4000-8000-"
        + QByteArray::number(0x100000000000LL + chat, 16);
}

// Writes the homes; returns the number of files and folders, or -1.
qint64 generate(const QByteArray &root, int homes, int chats, qint64 now)
{
    const qint64 old = now - 200 * 86400;
    const QByteArray transcript
        = QByteArray("{\"type\":\"user\",\"message\":\"hello\"}\n").repeated(20);
    qint64 entries = 0;
    for (int h = 0; h < homes; ++h) {
        const QByteArray home = root + "/user" + QByteArray::number(h);
        if (!makeDir(home) || !makeDir(home + "/.claude") || !makeDir(home + "/.claude/projects"))
            return -1;
        for (int c = 0; c < chats; ++c) {
            const QByteArray chat = home + "/chat-" + QByteArray::number(c);
            if (!makeDir(chat) || !writeFile(chat + "/notes.md", "notes\n", old)
                || !writeFile(chat + "/data.txt", QByteArray(2000, 'x'), old))
                return -1;
            setTime(chat, old);
            const QByteArray project = home + "/.claude/projects/-home-user" + QByteArray::number(h)
                + "-chat-" + QByteArray::number(c);
            const QByteArray id = uuidFor(h, c);
            if (!makeDir(project) || !writeFile(project + '/' + id + ".jsonl", transcript, old)
                || !makeDir(project + '/' + id) || !makeDir(project + '/' + id + "/subagents")
                || !writeFile(project + '/' + id + "/subagents/agent-a.jsonl", transcript, old))
                return -1;
            setTime(project + '/' + id + "/subagents", old);
            setTime(project + '/' + id, old);
            entries += 8;
        }
    }
    return entries;
}

struct Run {
    bool ok = false;
    int exitCode = -1;
    double seconds = 0;
    double firstItemSeconds = -1;
    QByteArray out;
    QByteArray err;
};

Run runScript(const QString &script, const QProcessEnvironment &env)
{
    Run run;
    QProcess process;
    process.setProcessEnvironment(env);
    QElapsedTimer timer;
    timer.start();
    process.start(QStringLiteral("bash"), {script});
    process.closeWriteChannel();
    if (!process.waitForStarted())
        return run;
    while (process.state() != QProcess::NotRunning) {
        process.waitForReadyRead(100);
        run.out += process.readAllStandardOutput();
        if (run.firstItemSeconds < 0 && run.out.contains('\n'))
            run.firstItemSeconds = double(timer.nsecsElapsed()) / 1e9;
        if (timer.elapsed() > 3600 * 1000) {
            process.kill();
            process.waitForFinished();
            return run;
        }
    }
    run.seconds = double(timer.nsecsElapsed()) / 1e9;
    run.out += process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.ok = true;
    return run;
}

int countLines(const QByteArray &out, const QByteArray &needle)
{
    int n = 0;
    for (const QByteArray &line : out.split('\n'))
        n += line.contains(needle) ? 1 : 0;
    return n;
}

const char *verdict(bool met)
{
    return met ? "met" : "NOT MET";
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const int homes = argc > 1 ? std::atoi(argv[1]) : 1000;
    const int chats = argc > 2 ? std::atoi(argv[2]) : 50;
    if (homes <= 0 || chats <= 0) {
        std::fprintf(stderr, "usage: bench_cleanup [homes] [chats]\n");
        return 2;
    }
    const QString script = QStringLiteral(SANDSCOPE_CLEANUP_SCRIPT);
    QTemporaryDir dir;
    if (!dir.isValid() || !QFile::exists(script)) {
        std::fprintf(stderr, "no temporary folder or no script at %s\n", qPrintable(script));
        return 1;
    }
    const QByteArray root = QFile::encodeName(dir.path()) + "/home";
    makeDir(root);
    const qint64 now = QDateTime::currentSecsSinceEpoch();
    QElapsedTimer timer;
    timer.start();
    const qint64 entries = generate(root, homes, chats, now);
    if (entries < 0) {
        std::fprintf(stderr, "could not generate the homes\n");
        return 1;
    }
    std::printf("generated %d homes x %d chats (%d chats, %d sessions, %lld entries) in %.1f s\n",
        homes, chats, homes * chats, homes * chats, entries, double(timer.elapsed()) / 1000);
    std::fflush(stdout);

    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("HOME_ROOT"), QFile::decodeName(root));
    env.insert(QStringLiteral("CLEANUP_FORMAT"), QStringLiteral("json"));
    env.remove(QStringLiteral("CLEANUP_PLAN"));
    env.remove(QStringLiteral("CLEANUP_DRY_RUN"));
    const Run dry = runScript(script, env);
    const int items = countLines(dry.out, "\"action\":\"delete\"");
    std::printf(
        "dry run: %.1f s (first item after %.2f s), %d items to delete, exit %d; target <= %.0f s "
        "for 1,000 x 50: %s\n",
        dry.seconds, dry.firstItemSeconds, items, dry.exitCode, dryRunTargetSeconds,
        verdict(dry.ok && dry.exitCode == 0 && items == 2 * homes * chats
            && dry.seconds <= dryRunTargetSeconds));
    std::fflush(stdout);

    if (::geteuid() != 0) {
        std::printf("execute: not measured (deleting needs root)\n");
        return 0;
    }
    const QString planFile = dir.filePath(QStringLiteral("plan.jsonl"));
    QFile plan(planFile);
    if (!plan.open(QIODevice::WriteOnly) || plan.write(dry.out) != dry.out.size()) {
        std::fprintf(stderr, "could not write the plan\n");
        return 1;
    }
    plan.close();
    env.insert(QStringLiteral("CLEANUP_PLAN"), planFile);
    env.insert(QStringLiteral("CLEANUP_DRY_RUN"), QStringLiteral("false"));
    const Run executed = runScript(script, env);
    const int deleted = countLines(executed.out, "\"outcome\":\"deleted\"");
    std::printf("execute: %.1f s, %d of %d deleted, exit %d; target <= %.0f s for 1,000 x 50: %s\n",
        executed.seconds, deleted, items, executed.exitCode, executeTargetSeconds,
        verdict(executed.ok && executed.exitCode == 0 && deleted == items
            && executed.seconds <= executeTargetSeconds));
    if (!executed.err.isEmpty())
        std::printf("stderr: %s\n", executed.err.left(500).constData());
    return 0;
}
