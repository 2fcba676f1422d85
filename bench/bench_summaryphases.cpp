// Where the summary path's CPU time goes, on one stream-json file, in three cumulative phases
// measured in this process (CPU time, best of the runs):
//   1. the file mapped and cut into lines (memchr): what any line reader pays;
//   2. plus every line read as simdjson's DOM parser would decide it (JsonLineView: stage 1 and
//      the grammar walk; the DOM parser for the lines the view leaves): the floor of a summary
//      that must agree with the event path on every line, valid or not; also with simdjson's
//      stage 1 in the view instead of StructuralIndexer's, runs of the two taken in turn;
//   3. plus the summary itself (summarizeRunFile: the scanner and RunSummaryBuilder).
// bench/replay_vs_jq.sh runs it on its capture and adds the process's start and exit, so that
// its "NOT MET" lines can be read against what no summary can avoid.
//   bench_summaryphases FILE [runs]   (default 5)

#include "recordings/runrecording.h"
#include "streamjson/jsonlineview.h"
#include "streamjson/runsummary.h"
#include "streamjson/structuralindexer.h"

#include <QFile>
#include <QFileInfo>
#include <QString>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <simdjson.h>
#include <vector>

namespace {

double cpuMs()
{
    timespec now {};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return double(now.tv_sec) * 1e3 + double(now.tv_nsec) / 1e6;
}

double bestOf(int runs, const std::function<void()> &phase)
{
    double best = -1;
    for (int run = 0; run < runs; ++run) {
        const double start = cpuMs();
        phase();
        const double spent = cpuMs() - start;
        if (best < 0 || spent < best)
            best = spent;
    }
    return best;
}

// Calls read(begin, length) for each line of the mapped file without its "\n"; a line too
// close to the end for simdjson's padding is copied first.
template <typename Read> void forEachLine(const char *data, size_t size, Read read)
{
    std::vector<char> tail;
    size_t position = 0;
    while (position < size) {
        const void *found = std::memchr(data + position, '\n', size - position);
        const size_t end = found ? size_t(static_cast<const char *>(found) - data) : size;
        const char *begin = data + position;
        if (end + simdjson::SIMDJSON_PADDING > size) {
            tail.assign(begin, data + end);
            tail.resize(tail.size() + simdjson::SIMDJSON_PADDING, '\0');
            begin = tail.data();
        }
        read(begin, end - position);
        position = end + 1;
    }
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s FILE [runs]\n", argv[0]);
        return 2;
    }
    const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
    const QString path = QString::fromLocal8Bit(argv[1]);
    const QFileInfo info(path);
    if (info.exists() && !info.isFile()) { // a pipe would block the open until a writer comes
        std::fprintf(stderr, "%s is not a regular file\n", argv[1]);
        return 1;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr, "cannot read %s: %s\n", argv[1], qPrintable(file.errorString()));
        return 1;
    }
    if (file.size() == 0) {
        std::fprintf(stderr, "%s is empty: nothing to measure\n", argv[1]);
        return 1;
    }
    const size_t size = size_t(file.size());
    // The file mapped whole, or the benchmark ends saying why (a file system without mappings:
    // the summary path then reads blocks, which this does not measure).
    auto map = [&file, size, argv] {
        uchar *mapped = file.map(0, qint64(size));
        if (!mapped) {
            std::fprintf(stderr, "cannot map %s: %s\n", argv[1], qPrintable(file.errorString()));
            std::exit(1);
        }
        return mapped;
    };

    qint64 lines = 0;
    const double cut = bestOf(runs, [&] {
        uchar *mapped = map();
        lines = 0;
        forEachLine(
            reinterpret_cast<const char *>(mapped), size, [&](const char *, size_t) { ++lines; });
        file.unmap(mapped);
    });

    // Each line decided with the given stage 1 (the view's default, or simdjson's): CPU ms.
    qint64 viewLines = 0;
    qint64 domLines = 0;
    auto decide = [&](sandscope::JsonLineView::Stage1 stage1) {
        const double start = cpuMs();
        simdjson::dom::parser parser;
        sandscope::JsonLineView view(&parser, stage1);
        uchar *mapped = map();
        viewLines = domLines = 0;
        forEachLine(
            reinterpret_cast<const char *>(mapped), size, [&](const char *begin, size_t length) {
                sandscope::JsonLineView::Object root;
                if (view.read(begin, length, &root)) {
                    ++viewLines;
                } else {
                    simdjson::dom::element element;
                    domLines
                        += parser.parse(begin, length, false).get(element) == simdjson::SUCCESS;
                }
            });
        file.unmap(mapped);
        return cpuMs() - start;
    };
    // Both stage 1s in turn, so that the machine's drift touches both alike.
    const bool indexer = sandscope::StructuralIndexer::isAvailable();
    double read = -1;
    double readBySimdjson = -1;
    for (int run = 0; run < runs; ++run) {
        const double bySimdjson = decide(sandscope::JsonLineView::Stage1::Simdjson);
        readBySimdjson = readBySimdjson < 0 ? bySimdjson : std::min(readBySimdjson, bySimdjson);
        const double fastest
            = indexer ? decide(sandscope::JsonLineView::Stage1::Fastest) : bySimdjson;
        read = read < 0 ? fastest : std::min(read, fastest);
    }

    bool summarized = true;
    const double summary = bestOf(runs, [&] {
        sandscope::RunSummary result;
        summarized = summarizeRunFile(path, &result) && summarized;
    });
    if (!summarized) {
        std::fprintf(stderr, "summarizeRunFile failed on %s\n", argv[1]);
        return 1;
    }

    std::printf("summary path phases, %.1f MB, %lld lines, CPU time in-process (best of %d):\n",
        double(size) / 1e6, static_cast<long long>(lines), runs);
    std::printf("  mapped and cut into lines                      %7.1f ms\n", cut);
    std::printf("  + each line decided as the DOM parser would    %7.1f ms  "
                "(%lld by the view, %lld by the DOM parser, the rest not JSON)\n",
        read, static_cast<long long>(viewLines), static_cast<long long>(domLines));
    if (indexer)
        std::printf("    (the view with simdjson's stage 1 instead of StructuralIndexer's %s "
                    "kernel: %.1f ms)\n",
            sandscope::StructuralIndexer::runs(sandscope::StructuralIndexer::Kernel::Avx512)
                ? "AVX-512"
                : "AVX2",
            readBySimdjson);
    else
        std::printf("    (StructuralIndexer does not run here: no AVX2, BMI2 or PCLMUL)\n");
    std::printf("  + the summary (summarizeRunFile)               %7.1f ms\n", summary);
    return 0;
}
