#include "comparejob.h"

#include "runs/loadedrun.h"

#include <QCoreApplication>

namespace sandscope {

void CompareJob::setRun(int side, const ComparedRun &run, const QString &title)
{
    Side &s = m_sides[side];
    s = Side();
    s.run = run;
    s.run.source = title;
}

void CompareJob::setLoadedRun(int side, const LoadedRun &run, const QString &title)
{
    setRun(side, ComparedRun::fromLoadedRun(run), title);
    m_sides[side].readerProblems = int(run.problems.size());
}

void CompareJob::setFile(int side, const QString &path, const QString &title)
{
    Side &s = m_sides[side];
    s = Side();
    s.filePath = path;
    s.run.source = title;
}

QStringList CompareJob::filesToRead() const
{
    QStringList files;
    for (const Side &side : m_sides) {
        if (!side.filePath.isEmpty())
            files << side.filePath;
    }
    return files;
}

QString CompareJob::whyNotARun(const LoadedRun &run, const QString &name)
{
    if (run.lines == 0 && !run.exported) // an export holds a tree, not lines
        return QStringLiteral("%1 is empty: not a Claude Code run").arg(name);
    if (!ComparedRun::holdsARun(run))
        return QCoreApplication::translate("CompareJob",
            "%1 is not a Claude Code run: no stream-json, recording or transcript records in %n "
            "line(s)",
            nullptr, int(run.lines))
            .arg(name);
    return {};
}

bool CompareJob::readFile(Side *side, const std::atomic_bool *cancelled)
{
    const QString title = side->run.source; // set by setFile; the run read replaces it
    LoadedRun loaded;
    if (!LoadedRun::fromFile(side->filePath, &loaded, &m_why, {}, cancelled))
        return false;
    m_why = whyNotARun(loaded, side->filePath);
    if (!m_why.isEmpty())
        return false;
    side->run = ComparedRun::fromLoadedRun(loaded);
    side->run.source = title;
    side->readerProblems = int(loaded.problems.size());
    side->filePath.clear();
    return true;
}

bool CompareJob::run(const std::atomic_bool *cancelled)
{
    const auto isCancelled = [cancelled] {
        return cancelled && cancelled->load();
    };
    m_why.clear();
    for (Side &side : m_sides) {
        if (isCancelled())
            break;
        if (!side.filePath.isEmpty() && !readFile(&side, cancelled))
            return false;
    }
    if (isCancelled()) {
        m_why = QStringLiteral("cancelled");
        return false;
    }
    m_comparison = RunComparison::compare(m_sides[0].run, m_sides[1].run);
    return true;
}

QStringList CompareJob::corruptLines(int side) const
{
    const QStringList &skipped = m_sides[side].run.skipped;
    return skipped.mid(qMin(m_sides[side].readerProblems, int(skipped.size())));
}

} // namespace sandscope
