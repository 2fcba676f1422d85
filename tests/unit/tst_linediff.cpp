// LineDiff: the diff turns the old text into the new one (its same+removed lines are the old
// lines, its same+added lines the new ones, in order), keeps as many lines as a longest common
// subsequence (computed here by plain recursion over small inputs), shows removals before
// additions, and falls back to remove-all/add-all beyond the table limit.

#include "util/linediff.h"

#include <QRandomGenerator>
#include <QtTest/QTest>

#include <functional>
#include <map>

using namespace sandscope;

namespace {

QStringList side(const QVector<LineDiff::Line> &diff, LineDiff::Op skipped)
{
    QStringList lines;
    for (const LineDiff::Line &line : diff) {
        if (line.op != skipped)
            lines.append(line.text);
    }
    return lines;
}

int lcsLength(const QStringList &a, const QStringList &b)
{
    std::map<std::pair<int, int>, int> memo;
    std::function<int(int, int)> at = [&](int i, int j) -> int {
        if (i == a.size() || j == b.size())
            return 0;
        const auto key = std::make_pair(i, j);
        if (const auto found = memo.find(key); found != memo.end())
            return found->second;
        const int value
            = a[i] == b[j] ? 1 + at(i + 1, j + 1) : std::max(at(i + 1, j), at(i, j + 1));
        memo[key] = value;
        return value;
    };
    return at(0, 0);
}

} // namespace

class TestLineDiff : public QObject {
    Q_OBJECT

private slots:
    void examples_data();
    void examples();
    void randomInputs();
    void removalsComeFirst();
    void tooLargeFallsBack();
};

void TestLineDiff::examples_data()
{
    QTest::addColumn<QString>("oldText");
    QTest::addColumn<QString>("newText");
    QTest::addColumn<QString>("expected"); // ' ', '-', '+' per line

    QTest::newRow("same") << "a\nb"
                          << "a\nb"
                          << "  ";
    QTest::newRow("changed middle") << "a\nb\nc"
                                    << "a\nB\nc"
                                    << " -+ ";
    QTest::newRow("added end") << "a"
                               << "a\nb"
                               << " +";
    QTest::newRow("removed start") << "x\na"
                                   << "a"
                                   << "- ";
    QTest::newRow("empty old") << ""
                               << "a\nb"
                               << "++";
    QTest::newRow("empty new") << "a\nb\n"
                               << ""
                               << "--";
    QTest::newRow("both empty") << ""
                                << ""
                                << "";
    QTest::newRow("final newline") << "a\n"
                                   << "a"
                                   << " ";
}

void TestLineDiff::examples()
{
    QFETCH(QString, oldText);
    QFETCH(QString, newText);
    QFETCH(QString, expected);
    QString ops;
    for (const LineDiff::Line &line : LineDiff::compute(oldText, newText))
        ops += line.op == LineDiff::Op::Same   ? QLatin1Char(' ')
            : line.op == LineDiff::Op::Removed ? QLatin1Char('-')
                                               : QLatin1Char('+');
    QCOMPARE(ops, expected);
}

void TestLineDiff::randomInputs()
{
    QRandomGenerator random(42);
    for (int round = 0; round < 300; ++round) {
        QStringList a, b;
        const int n = random.bounded(12);
        const int m = random.bounded(12);
        for (int i = 0; i < n; ++i)
            a.append(QString(QChar(u'a' + random.bounded(4))));
        for (int j = 0; j < m; ++j)
            b.append(QString(QChar(u'a' + random.bounded(4))));
        const QVector<LineDiff::Line> diff = LineDiff::compute(a, b);
        QCOMPARE(side(diff, LineDiff::Op::Added), a);
        QCOMPARE(side(diff, LineDiff::Op::Removed), b);
        const auto same = std::count_if(diff.cbegin(), diff.cend(),
            [](const LineDiff::Line &line) { return line.op == LineDiff::Op::Same; });
        QCOMPARE(int(same), lcsLength(a, b));
    }
}

void TestLineDiff::removalsComeFirst()
{
    const QVector<LineDiff::Line> diff
        = LineDiff::compute(QStringLiteral("x\ny"), QStringLiteral("p\nq"));
    QCOMPARE(diff.size(), 4);
    QCOMPARE(diff[0].op, LineDiff::Op::Removed);
    QCOMPARE(diff[1].op, LineDiff::Op::Removed);
    QCOMPARE(diff[2].op, LineDiff::Op::Added);
    QCOMPARE(diff[3].op, LineDiff::Op::Added);
}

void TestLineDiff::tooLargeFallsBack()
{
    QStringList a, b;
    const int size = 2100; // 2100 * 2100 > maxCells
    QVERIFY(qint64(size) * size > LineDiff::maxCells);
    for (int i = 0; i < size; ++i) {
        a.append(QStringLiteral("old %1").arg(i));
        b.append(QStringLiteral("new %1").arg(i));
    }
    a.prepend(QStringLiteral("head"));
    b.prepend(QStringLiteral("head"));
    const QVector<LineDiff::Line> diff = LineDiff::compute(a, b);
    QCOMPARE(side(diff, LineDiff::Op::Added), a);
    QCOMPARE(side(diff, LineDiff::Op::Removed), b);
    QCOMPARE(diff.first().op, LineDiff::Op::Same); // the common head is still matched
}

QTEST_GUILESS_MAIN(TestLineDiff)
#include "tst_linediff.moc"
