#include "linediff.h"

#include <algorithm>
#include <vector>

namespace sandscope {

namespace {

QStringList linesOf(const QString &text)
{
    if (text.isEmpty())
        return {};
    QStringList lines = text.split(QLatin1Char('\n'));
    if (text.endsWith(QLatin1Char('\n')))
        lines.removeLast(); // a final newline ends the last line, it does not start one
    return lines;
}

} // namespace

QVector<LineDiff::Line> LineDiff::compute(const QString &oldText, const QString &newText)
{
    return compute(linesOf(oldText), linesOf(newText));
}

QVector<LineDiff::Line> LineDiff::compute(const QStringList &oldLines, const QStringList &newLines)
{
    qsizetype prefix = 0;
    while (prefix < oldLines.size() && prefix < newLines.size()
        && oldLines[prefix] == newLines[prefix])
        ++prefix;
    qsizetype suffix = 0;
    while (suffix < oldLines.size() - prefix && suffix < newLines.size() - prefix
        && oldLines[oldLines.size() - 1 - suffix] == newLines[newLines.size() - 1 - suffix])
        ++suffix;

    QVector<Line> out;
    for (qsizetype i = 0; i < prefix; ++i)
        out.append({Op::Same, oldLines[i]});

    const qsizetype n = oldLines.size() - prefix - suffix;
    const qsizetype m = newLines.size() - prefix - suffix;
    auto oldAt = [&](qsizetype i) -> const QString & {
        return oldLines[prefix + i];
    };
    auto newAt = [&](qsizetype j) -> const QString & {
        return newLines[prefix + j];
    };
    if (qint64(n) * qint64(m) > maxCells) {
        for (qsizetype i = 0; i < n; ++i)
            out.append({Op::Removed, oldAt(i)});
        for (qsizetype j = 0; j < m; ++j)
            out.append({Op::Added, newAt(j)});
    } else {
        // lcs[i][j]: length of the LCS of old[i..] and new[j..].
        const qsizetype width = m + 1;
        std::vector<int> lcs(size_t((n + 1) * width), 0);
        for (qsizetype i = n - 1; i >= 0; --i) {
            for (qsizetype j = m - 1; j >= 0; --j) {
                lcs[size_t(i * width + j)] = oldAt(i) == newAt(j)
                    ? lcs[size_t((i + 1) * width + j + 1)] + 1
                    : std::max(lcs[size_t((i + 1) * width + j)], lcs[size_t(i * width + j + 1)]);
            }
        }
        qsizetype i = 0;
        qsizetype j = 0;
        while (i < n || j < m) {
            if (i < n && j < m && oldAt(i) == newAt(j)) {
                out.append({Op::Same, oldAt(i)});
                ++i;
                ++j;
            } else if (i < n
                && (j == m || lcs[size_t((i + 1) * width + j)] >= lcs[size_t(i * width + j + 1)])) {
                out.append({Op::Removed, oldAt(i)}); // removed lines before added ones
                ++i;
            } else {
                out.append({Op::Added, newAt(j)});
                ++j;
            }
        }
    }
    for (qsizetype i = oldLines.size() - suffix; i < oldLines.size(); ++i)
        out.append({Op::Same, oldLines[i]});
    return out;
}

} // namespace sandscope
