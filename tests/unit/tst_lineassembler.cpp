// LineAssembler: PTY chunks split at arbitrary positions must give the same lines as the
// unsplit stream, CRLF handling, and linear behaviour on very long lines.

#include "server/lineassembler.h"
#include "testing.h"

#include <QtTest/QTest>

using sandscope::LineAssembler;

namespace {

// Lines plus the unterminated rest that flush() returns.
struct Assembled {
    QStringList lines;
    QString rest;
};

Assembled assemble(const QStringList &chunks)
{
    LineAssembler assembler;
    Assembled result;
    for (const QString &chunk : chunks)
        result.lines += assembler.feed(chunk);
    result.rest = assembler.flush();
    return result;
}

// CRLF and LF endings, an empty line, a lone "\r" inside a line, U+FFFD from a broken UTF-8
// sequence, and an unterminated tail.
QString sample()
{
    return QStringLiteral("first line\r\nsecond\r\n\r\nthird with \r inside\nfourth ")
        + QChar(0xfffd) + QChar(0xfffd) + QStringLiteral(" here\r\n{\"type\":\"result\"}\r\ntail");
}

QStringList sampleLines()
{
    return {QStringLiteral("first line"), QStringLiteral("second"), QString(),
        QStringLiteral("third with \r inside"),
        QStringLiteral("fourth ") + QChar(0xfffd) + QChar(0xfffd) + QStringLiteral(" here"),
        QStringLiteral("{\"type\":\"result\"}")};
}

} // namespace

class TestLineAssembler : public QObject {
    Q_OBJECT

private slots:
    void wholeSampleGivesExpectedLines()
    {
        const Assembled result = assemble({sample()});
        QCOMPARE(result.lines, sampleLines());
        QCOMPARE(result.rest, QStringLiteral("tail"));
    }

    void everySingleSplitPositionGivesSameLines()
    {
        const QString text = sample();
        for (qsizetype split = 0; split <= text.size(); ++split) {
            const Assembled result = assemble({text.left(split), text.mid(split)});
            QVERIFY2(result.lines == sampleLines(), qPrintable(QString::number(split)));
            QCOMPARE(result.rest, QStringLiteral("tail"));
        }
    }

    void everyPairOfSplitPositionsGivesSameLines()
    {
        const QString text = sample();
        for (qsizetype first = 0; first <= text.size(); ++first) {
            for (qsizetype second = first; second <= text.size(); ++second) {
                const Assembled result = assemble(
                    {text.left(first), text.mid(first, second - first), text.mid(second)});
                QVERIFY2(result.lines == sampleLines(),
                    qPrintable(QStringLiteral("%1/%2").arg(first).arg(second)));
                QCOMPARE(result.rest, QStringLiteral("tail"));
            }
        }
    }

    void oneCharacterChunksGiveSameLines()
    {
        QStringList chunks;
        for (const QChar c : sample())
            chunks.append(QString(c));
        const Assembled result = assemble(chunks);
        QCOMPARE(result.lines, sampleLines());
        QCOMPARE(result.rest, QStringLiteral("tail"));
    }

    void crlfSplitBetweenCarriageReturnAndNewline()
    {
        LineAssembler assembler;
        QVERIFY(assembler.feed(QStringLiteral("abc\r")).isEmpty());
        QVERIFY(assembler.hasPending());
        QCOMPARE(assembler.feed(QStringLiteral("\ndef\r")), QStringList {QStringLiteral("abc")});
        QCOMPARE(assembler.feed(QStringLiteral("\n")), QStringList {QStringLiteral("def")});
        QVERIFY(!assembler.hasPending());
    }

    void onlyOneTrailingCarriageReturnIsRemoved()
    {
        LineAssembler assembler;
        const QStringList lines = assembler.feed(QStringLiteral("a\r\r\n\r\nx\ry\r\n"));
        QCOMPARE(lines, (QStringList {QStringLiteral("a\r"), QString(), QStringLiteral("x\ry")}));
    }

    void replacementCharactersPassThrough()
    {
        LineAssembler assembler;
        const QString broken
            = QStringLiteral("A") + QChar(0xfffd) + QChar(0xfffd) + QStringLiteral("B");
        QCOMPARE(assembler.feed(broken + QStringLiteral("\r\n")), QStringList {broken});
    }

    void flushReturnsRestAndResets()
    {
        LineAssembler assembler;
        QVERIFY(assembler.feed(QStringLiteral("no newline yet")).isEmpty());
        QCOMPARE(assembler.pendingSize(), qsizetype(14));
        QCOMPARE(assembler.flush(), QStringLiteral("no newline yet"));
        QVERIFY(!assembler.hasPending());
        QCOMPARE(assembler.flush(), QString());
        QCOMPARE(assembler.feed(QStringLiteral("next\n")), QStringList {QStringLiteral("next")});
    }

    void flushDropsHalfOfAnUnfinishedLineEnd()
    {
        LineAssembler assembler;
        assembler.feed(QStringLiteral("last\r"));
        QCOMPARE(assembler.flush(), QStringLiteral("last"));
    }

    void emptyChunkChangesNothing()
    {
        LineAssembler assembler;
        QVERIFY(assembler.feed(QString()).isEmpty());
        QVERIFY(!assembler.hasPending());
        assembler.feed(QStringLiteral("x"));
        QVERIFY(assembler.feed(QString()).isEmpty());
        QCOMPARE(assembler.pendingSize(), qsizetype(1));
    }

    void sixtyFourMegabyteLineInFourKilobyteChunks()
    {
        // One 4096-character chunk, varied so that a misplaced copy would show.
        QString chunk;
        chunk.reserve(4096);
        for (int i = 0; i < 4096; ++i)
            chunk.append(QLatin1Char(char('a' + i % 26)));
        constexpr int chunkCount = 64 * 1024 * 1024 / 4096;

        LineAssembler assembler;
        for (int i = 0; i < chunkCount; ++i)
            QVERIFY(assembler.feed(chunk).isEmpty());
        QCOMPARE(assembler.pendingSize(), qsizetype(chunkCount) * 4096);
        const QStringList lines = assembler.feed(QStringLiteral("\r\nafter\n"));

        QCOMPARE(qsizetype(lines.size()), qsizetype(2));
        QCOMPARE(qsizetype(lines.at(0).size()), qsizetype(chunkCount) * 4096);
        QVERIFY(lines.at(0) == chunk.repeated(chunkCount));
        QCOMPARE(lines.at(1), QStringLiteral("after"));
        QVERIFY(!assembler.hasPending());
    }

    void longLineCostGrowsLinearlyWithItsLength()
    {
        const QString chunk(4096, QLatin1Char('x'));
        const auto feedLine = [&](int chunkCount) {
            LineAssembler assembler;
            for (int i = 0; i < chunkCount; ++i)
                assembler.feed(chunk);
            QCOMPARE(assembler.feed(QStringLiteral("\n")).size(), 1);
        };
        // 8x the length (8 MB -> 64 MB, both far beyond the caches): about 8x the time when
        // each chunk costs the same, 64x when every chunk re-scans the pending text (4x against
        // a bound of 10 left too little room: 11.4 once under a CI run's load).
        const double ratio = sandscope::test::growthRatio(feedLine, 2048, 16384);
        QVERIFY2(ratio < 24, qPrintable(QString::number(ratio)));
    }
};

QTEST_GUILESS_MAIN(TestLineAssembler)
#include "tst_lineassembler.moc"
