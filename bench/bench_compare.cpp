// RunComparison at 100,000 tool calls a side: the time of compare() (alignment, pairing,
// deltas, files) for runs that are identical, differ by a few edits (exact Myers alignment),
// differ by 1 % (beyond maxEdits: the greedy fallback) and share nothing in order (reversed),
// and of normalising 100,000 inputs (what building a side from the run tree adds).
//
//   ./build/<dir>/bench/bench_compare [calls]   (default 100000)

#include "compare/runcomparison.h"

#include <QCoreApplication>
#include <QElapsedTimer>

#include <algorithm>
#include <cstdio>

using namespace sandscope;

namespace {

ComparedCall call(int i)
{
    static const char *const tools[] = {"Bash", "Read", "Edit", "Grep", "Write"};
    ComparedCall c;
    c.toolName = QLatin1String(tools[i % 5]);
    c.input = QStringLiteral(R"({"command":"step %1"})").arg(i % 20000); // repeats, as runs do
    c.output = QStringLiteral("output %1").arg(i);
    if (i % 7 == 0)
        c.filePath = QStringLiteral("<cwd>/file%1.txt").arg(i % 300);
    return c;
}

// Every `every`-th call changed, the one after it removed and one added after that.
ComparedRun edited(const ComparedRun &base, int every)
{
    ComparedRun run;
    for (int i = 0; i < base.calls.size(); ++i) {
        ComparedCall c = base.calls.at(i);
        if (every > 0 && i % every == 1)
            continue; // removed
        if (every > 0 && i % every == 0)
            c.input += QStringLiteral(" ");
        run.calls.append(c);
        if (every > 0 && i % every == 2) {
            ComparedCall added = c;
            added.toolName = QStringLiteral("WebFetch");
            run.calls.append(added);
        }
    }
    return run;
}

void measure(const char *name, const ComparedRun &a, const ComparedRun &b)
{
    QElapsedTimer timer;
    timer.start();
    const RunComparison comparison = RunComparison::compare(a, b);
    const qint64 ms = timer.elapsed();
    std::printf("%-28s %8lld ms  rows %7lld  same %7d changed %6d added %6d removed %6d%s\n", name,
        static_cast<long long>(ms), static_cast<long long>(comparison.rows().size()),
        comparison.count(RunComparison::State::Same),
        comparison.count(RunComparison::State::Changed),
        comparison.count(RunComparison::State::Added),
        comparison.count(RunComparison::State::Removed),
        comparison.usedFallback() ? "  (greedy fallback)" : "");
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const int calls = argc > 1 ? std::max(10, QByteArray(argv[1]).toInt()) : 100000;
    ComparedRun base;
    base.calls.reserve(calls);
    for (int i = 0; i < calls; ++i)
        base.calls.append(call(i));
    std::printf("%d calls a side, maxEdits %d\n", calls, RunComparison::defaultMaxEdits);

    measure("identical", base, base);
    measure("1 edit in 400 (exact)", base, edited(base, 400));
    measure("1 edit in 250 (exact)", base, edited(base, 250));
    measure("1 edit in 100 (fallback)", base, edited(base, 100));
    ComparedRun reversed = base;
    std::reverse(reversed.calls.begin(), reversed.calls.end());
    measure("reversed (fallback)", base, reversed);

    QElapsedTimer timer;
    timer.start();
    qint64 size = 0;
    for (int i = 0; i < calls; ++i)
        size += RunComparison::normalisedInput(
            QStringLiteral(
                R"({"command":"cat /home/u/chat-a/f%1.txt  |  wc -l","tool_use_id":"x"})")
                .arg(i)
                .toUtf8(),
            QStringLiteral("/home/u/chat-a"))
                    .size();
    std::printf("%-28s %8lld ms  (%lld characters)\n", "normalise inputs",
        static_cast<long long>(timer.elapsed()), static_cast<long long>(size));
    return 0;
}
