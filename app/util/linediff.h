#pragma once
// A line diff (longest common subsequence) of two texts, for showing an Edit's old and new
// string as removed/added lines in exports. Common leading and trailing lines are matched
// first; when the rest is too large for the quadratic table, it is shown as all removed then
// all added (still a correct diff, only not a minimal one).

#include <QString>
#include <QStringList>
#include <QVector>

namespace sandscope {

class LineDiff {
public:
    enum class Op { Same, Removed, Added };
    struct Line {
        Op op = Op::Same;
        QString text;
        bool operator==(const Line &other) const { return op == other.op && text == other.text; }
    };

    // Cells of the LCS table above which the middle part is not aligned.
    static constexpr qint64 maxCells = 4'000'000;

    static QVector<Line> compute(const QString &oldText, const QString &newText);
    static QVector<Line> compute(const QStringList &oldLines, const QStringList &newLines);
};

} // namespace sandscope
