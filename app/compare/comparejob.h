#pragma once
// Comparing two runs, the use case the Compare tab and `sandscope compare` share: each side is
// a run already read (a tab's tree, or a run the caller loaded, e.g. a session on the server)
// or a file read by run(); each must hold a run; then both are aligned (RunComparison). run()
// touches no model, so the window calls it on a worker thread.

#include "compare/runcomparison.h"

#include <QString>
#include <QStringList>

#include <atomic>

namespace sandscope {

struct LoadedRun;

class CompareJob {
public:
    // A side already read, shown as `title`.
    void setRun(int side, const ComparedRun &run, const QString &title);
    void setLoadedRun(int side, const LoadedRun &run, const QString &title);
    // A side read from `path` by run(), shown as `title`.
    void setFile(int side, const QString &path, const QString &title);

    // The files run() will read, in side order.
    QStringList filesToRead() const;

    // Reads the files, checks that each holds a run and aligns both sides. False with why()
    // when a side cannot be read or holds no run, or when `cancelled` turned true (which also
    // ends a file's reading, and a wait for a named pipe's writer).
    bool run(const std::atomic_bool *cancelled = nullptr);
    QString why() const { return m_why; }
    const RunComparison &comparison() const { return m_comparison; }

    // What a side's reader skipped besides its problems: the lines the comparison could not
    // use (a truncated or corrupt file), for the caller to name.
    QStringList corruptLines(int side) const;

    // Why `run`, read from `name`, is not a run to compare (empty when it is one).
    static QString whyNotARun(const LoadedRun &run, const QString &name);

private:
    struct Side {
        ComparedRun run;
        QString filePath; // to read in run()
        int readerProblems = 0; // how many of run.skipped the reader reported itself
    };
    bool readFile(Side *side, const std::atomic_bool *cancelled);

    Side m_sides[2];
    RunComparison m_comparison;
    QString m_why;
};

} // namespace sandscope
