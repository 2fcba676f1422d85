// The server-side session listing, search and usage facts at scale: generates SESSIONS sessions of
// about 1 MB each (the transcript captures from tests/data, COPIES times over, each session with
// its sub-agent file and its own ids) in a temporary home, then times sessiondiscovery::script()
// sessionsearch::script() and usagefacts::script() run by the local sh as the server would run
// them (the usage facts also added up by UsageAggregator), and prints the figures against the
// target (each at most 5 s for 1,000 sessions / 1 GB).
//   Usage: bench_sessionsearch [sessions] [copies]   (default 1000 3)

#include "sessions/sessiondiscovery.h"
#include "sessions/sessionsearch.h"
#include "usage/usagefacts.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QUuid>

#include <cstdio>
#include <cstdlib>
#include <functional>

using namespace sandscope;

namespace {

constexpr double targetSeconds = 5.0;
const QByteArray basicId = "69d37cd2-7f92-4547-b7cd-d2b4de2e2f3e";
const QByteArray subagentId = "4babb74a-6fa5-4352-a0d3-723caf885db8";
const QByteArray rareMarker = "rare-marker-for-the-benchmark";

QByteArray capture(const QString &name)
{
    QFile file(QStringLiteral(SANDSCOPE_CAPTURES_DIR "/") + name);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).path());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

// Writes the sessions; returns the bytes written, or -1.
qint64 generate(const QString &home, int sessions, int copies)
{
    const QByteArray basic = capture(QStringLiteral("transcript-basic.jsonl"));
    const QString subagentBase
        = QStringLiteral("transcript-subagent/") + QString::fromLatin1(subagentId);
    const QByteArray withAgent = capture(subagentBase + QStringLiteral(".jsonl"));
    const QByteArray agent
        = capture(subagentBase + QStringLiteral("/subagents/agent-a38aee0b712458458.jsonl"));
    if (basic.isEmpty() || withAgent.isEmpty() || agent.isEmpty())
        return -1;
    qint64 total = 0;
    for (int i = 0; i < sessions; ++i) {
        const QByteArray id = QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
        QByteArray main = QByteArray(basic + withAgent).repeated(copies);
        main.replace(basicId, id).replace(subagentId, id);
        if (i == sessions / 2) // one session holds a text no other has
            main += "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"" + rareMarker
                + "\"}}\n";
        QByteArray sub = agent;
        sub.replace(subagentId, id);
        // Open WebUI gives every chat its own directory; some hold several sessions.
        const QString directory = home
            + QStringLiteral("/.claude/projects/-home-alice-chat-%1/").arg(i % (sessions / 2 + 1));
        if (!writeFile(directory + QString::fromLatin1(id) + QStringLiteral(".jsonl"), main)
            || !writeFile(directory + QString::fromLatin1(id)
                    + QStringLiteral("/subagents/agent-a38aee0b712458458.jsonl"),
                sub))
            return -1;
        total += main.size() + sub.size();
    }
    return total;
}

struct Run {
    double seconds = 0;
    QString output;
    int exitCode = -1;
};

Run timeScript(const QString &script, const QString &home)
{
    QProcess shell;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("HOME"), home);
    shell.setProcessEnvironment(environment);
    QElapsedTimer timer;
    timer.start();
    shell.start(QStringLiteral("sh"), {QStringLiteral("-c"), script});
    shell.waitForFinished(600000);
    Run run;
    run.seconds = timer.nsecsElapsed() / 1e9;
    run.exitCode = shell.exitCode();
    run.output = QString::fromUtf8(shell.readAllStandardOutput());
    return run;
}

void report(const char *what, const Run &run, const QString &detail)
{
    std::printf("%-44s %6.2f s  %-8s %s\n", what, run.seconds,
        run.exitCode == 0 && run.seconds <= targetSeconds ? "met" : "NOT MET", qPrintable(detail));
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication application(argc, argv);
    const int sessions = argc > 1 ? std::atoi(argv[1]) : 1000;
    const int copies = argc > 2 ? std::atoi(argv[2]) : 3;
    if (sessions < 2 || copies < 1) {
        std::fprintf(stderr, "usage: bench_sessionsearch [sessions >= 2] [copies >= 1]\n");
        return 2;
    }
    QTemporaryDir home;
    QElapsedTimer timer;
    timer.start();
    const qint64 bytes = generate(home.path(), sessions, copies);
    if (bytes < 0) {
        std::fprintf(
            stderr, "cannot write the transcripts (captures in %s?)\n", SANDSCOPE_CAPTURES_DIR);
        return 1;
    }
    std::printf("%d sessions with a sub-agent each, %.0f MB, generated in %.1f s; target %.0f s "
                "each\n",
        sessions, bytes / 1e6, timer.nsecsElapsed() / 1e9, targetSeconds);

    const Run listing = timeScript(sessiondiscovery::script(), home.path());
    sessiondiscovery::Listing listed;
    sessiondiscovery::parse(listing.output, &listed);
    qint64 toolCalls = 0;
    for (const DiscoveredSession &found : std::as_const(listed.transcripts))
        toolCalls += found.toolCalls;
    report("listing (every session with its details)", listing,
        QStringLiteral("%1 sessions, %2 tool calls").arg(listed.transcripts.size()).arg(toolCalls));

    const auto search = [&](const char *what, const QString &query, const QString &tool) {
        const Run run = timeScript(sessionsearch::script(query, tool), home.path());
        sessionsearch::Result result;
        sessionsearch::parse(run.output, &result);
        report(what, run,
            QStringLiteral("%1 hits%2")
                .arg(result.hits.size())
                .arg(result.truncated ? QStringLiteral(", truncated") : QString()));
    };
    search("search, one rare hit", QString::fromLatin1(rareMarker), {});
    search("search, common text (stops at the limit)", QStringLiteral("echo hi"), {});
    search(
        "search --tool Bash (every file read)", QStringLiteral("echo sub"), QStringLiteral("Bash"));

    Run usage = timeScript(usagefacts::script(), home.path());
    timer.restart();
    UsageAggregator aggregator;
    usagefacts::parse(usage.output, QStringLiteral("alice"), &aggregator);
    const UsageReport counted = aggregator.report();
    const double addingUp = timer.nsecsElapsed() / 1e9;
    usage.seconds += addingUp;
    report("usage (facts on the server, added up here)", usage,
        QStringLiteral("%1 MB of facts, added up in %2 s: %3 distinct tool calls (the copies share "
                       "ids), %4 sessions")
            .arg(usage.output.size() / 1e6, 0, 'f', 1)
            .arg(addingUp, 0, 'f', 2)
            .arg(counted.total().toolCalls)
            .arg(counted.sessions));
    return 0;
}
