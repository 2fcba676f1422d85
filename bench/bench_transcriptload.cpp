// Opening a big session transcript in the run view: builds a transcript of about N MB from
// the real recorded sub-agent run (tests/data/transcripts/subagent; every copy gets fresh
// tool, message and sub-agent ids, and its own sub-agent file), opens it in a visible RunPage
// (offscreen) the way File → Open does, and reports the time to the first rows, the time to
// fully loaded (target: 1.2 s for 100 MB), and the longest main-thread stall while loading (the
// longest gap between ticks of a 1 ms heartbeat timer; target: no stall over 50 ms), and the
// resident memory before opening, when loaded, at its peak (target <= 1.5 x file + 50 MB) and after
// the page is closed (deleted, as closing its tab does).
//
//   ./build/<dir>/bench/bench_transcriptload [megabytes]

#include "benchmemory.h"
#include "runs/runpage.h"
#include "runtree/runmodel.h"
#include "util/allocatortuning.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QPointer>
#include <QTemporaryDir>
#include <QTimer>

#include <cstdio>

using namespace sandscope;

namespace {

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).path());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

// Replaces every id that must stay unique per copy: tool_use ids, message ids, uuids stay
// (the tree does not key on them), the sub-agent's id.
QByteArray uniqueCopy(QByteArray text, int copy, const QList<QByteArray> &ids)
{
    for (const QByteArray &id : ids)
        text.replace(id, QByteArray(id + "_" + QByteArray::number(copy)));
    return text;
}

} // namespace

int main(int argc, char **argv)
{
    tuneAllocatorForSteadyLatency(); // as the window's main() does
    QApplication app(argc, argv);
    const qint64 megabytes = argc > 1 ? QByteArray(argv[1]).toLongLong() : 100;
    const QString source = QStringLiteral(SANDSCOPE_CAPTURES_DIR)
        + QStringLiteral("/transcripts/subagent/transcript");
    const QStringList mains = QDir(source).entryList({QStringLiteral("*.jsonl")}, QDir::Files);
    if (mains.isEmpty()) {
        std::fprintf(stderr, "no fixture in %s\n", qPrintable(source));
        return 1;
    }
    const QString session = QFileInfo(mains.first()).completeBaseName();
    const QDir subagents(source + QLatin1Char('/') + session + QStringLiteral("/subagents"));
    const QStringList agentFiles = subagents.entryList({QStringLiteral("agent-*.jsonl")});
    if (agentFiles.isEmpty())
        return 1;
    const QByteArray main = readFile(source + QLatin1Char('/') + mains.first());
    const QByteArray agent = readFile(subagents.filePath(agentFiles.first()));
    const QByteArray agentMeta = readFile(
        subagents.filePath(QString(agentFiles.first())
                               .replace(QStringLiteral(".jsonl"), QStringLiteral(".meta.json"))));
    const QByteArray agentId = agentFiles.first().mid(6, agentFiles.first().size() - 12).toUtf8();

    // The ids to make unique: every toolu_ and msg_ id in the files, and the agent id.
    QList<QByteArray> ids {agentId};
    for (const QByteArray &text : {main, agent}) {
        for (const char *prefix : {"toolu_", "msg_"}) {
            for (qsizetype at = text.indexOf(prefix); at >= 0; at = text.indexOf(prefix, at + 1)) {
                const qsizetype end = text.indexOf('"', at);
                const QByteArray id = text.mid(at, end - at);
                if (!ids.contains(id))
                    ids.append(id);
            }
        }
    }

    QTemporaryDir dir;
    const QString path = dir.filePath(session + QStringLiteral(".jsonl"));
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly))
        return 1;
    qint64 written = 0;
    int copies = 0;
    while (written < megabytes * 1024 * 1024) {
        const QByteArray copy = uniqueCopy(main, copies, ids);
        out.write(copy);
        written += copy.size();
        const QString agentName
            = QStringLiteral("agent-%1_%2").arg(QString::fromUtf8(agentId)).arg(copies);
        writeFile(dir.filePath(session + QStringLiteral("/subagents/") + agentName
                      + QStringLiteral(".jsonl")),
            uniqueCopy(agent, copies, ids));
        writeFile(dir.filePath(session + QStringLiteral("/subagents/") + agentName
                      + QStringLiteral(".meta.json")),
            uniqueCopy(agentMeta, copies, ids));
        ++copies;
    }
    out.close();

    // The peak is the open page's: building the file (a 100 MB stream-json written through a
    // buffered QFile) was otherwise the whole process's peak.
    const bool peakOfThePage = benchmemory::resetPeak();
    const double before = benchmemory::residentMb();
    QPointer<RunPage> pagePointer = new RunPage;
    RunPage &page = *pagePointer;
    page.resize(1200, 800);
    page.show();
    QElapsedTimer clock;
    qint64 longestStall = 0;
    qint64 firstRowsMs = -1;
    QElapsedTimer beat;
    QTimer heartbeat;
    heartbeat.setInterval(1);
    QObject::connect(&heartbeat, &QTimer::timeout, [&] {
        longestStall = std::max(longestStall, beat.restart());
        if (firstRowsMs < 0 && page.model()->rowCount(page.model()->runIndex()) > 0)
            firstRowsMs = clock.elapsed();
    });
    bool done = false;
    QObject::connect(&page, &RunPage::loadFinished, [&](bool) { done = true; });
    clock.start();
    beat.start();
    heartbeat.start();
    QString why;
    if (!page.openFile(path, &why)) {
        std::fprintf(stderr, "cannot open: %s\n", qPrintable(why));
        return 1;
    }
    while (!done)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    const qint64 loadedMs = clock.elapsed();
    heartbeat.stop();
    page.flushEvents();
    const qint64 calls = page.model()->summary().toolCalls;
    std::printf("transcript %.1f MB, %d sessions' worth (%d sub-agent files), %lld tool calls\n",
        double(written) / 1024 / 1024, copies, copies, static_cast<long long>(calls));
    // Issue 30's target: a 100 MB transcript loaded within 1.2 s.
    const double loadTargetMs = 1200 * double(written) / 1e8;
    std::printf("first rows after %lld ms, fully loaded after %lld ms (%.1f MB/s; target <= %.0f "
                "ms for this size: %s)\n",
        static_cast<long long>(firstRowsMs), static_cast<long long>(loadedMs),
        double(written) / 1024 / 1024 / (double(loadedMs) / 1000), loadTargetMs,
        double(loadedMs) <= loadTargetMs ? "met" : "NOT MET");
    std::printf("longest main-thread stall while loading: %lld ms (target <= 50 ms: %s)\n",
        static_cast<long long>(longestStall), longestStall <= 50 ? "met" : "NOT MET");
    const double loaded = benchmemory::residentMb();
    const double peak = benchmemory::peakMb();
    pagePointer->deleteLater(); // what the tab's close button does
    for (int round = 0; round < 3; ++round) {
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        QCoreApplication::processEvents();
    }
    const double closed = benchmemory::residentMb();
    const double fileMb = double(written) / 1e6;
    const double peakTarget = 1.5 * fileMb + 50;
    std::printf("RSS: %.0f MB before, %.0f MB loaded, %.0f MB peak (target <= %.0f MB): %s; "
                "%.0f MB after closing (%.0f MB above before; page %s)%s\n",
        before, loaded, peak, peakTarget, peak <= peakTarget ? "met" : "NOT MET", closed,
        closed - before, pagePointer.isNull() ? "deleted" : "NOT deleted",
        peakOfThePage ? "" : "; the peak could not be reset: it includes building the file");
    return calls == qint64(copies) * 2 ? 0 : 2;
}
