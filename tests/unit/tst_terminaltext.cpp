// TerminalTextFilter: escape sequences are removed (also when split across chunks), text,
// tabs and line ends survive, "\r" and backspace follow the documented rules.

#include "server/terminaltext.h"

#include <QtTest/QTest>

using sandscope::TerminalTextFilter;

namespace {

QString u8(const char *text)
{
    return QString::fromUtf8(text);
}

QString filterWhole(const QString &text)
{
    TerminalTextFilter filter;
    return filter.filter(text);
}

} // namespace

class TestTerminalText : public QObject {
    Q_OBJECT

private:
    // Shared by the whole-chunk and the split tests. The split test leaves out the rows whose
    // result depends on chunking by design (backspace cannot erase text already returned).
    void addCases(bool forSplitting)
    {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("expected");

        QTest::newRow("plain text, tabs and newlines kept")
            << u8("a\tb\nc d\n") << u8("a\tb\nc d\n");
        QTest::newRow("non-ASCII text kept") << u8("h\303\251llo \342\202\254 \357\277\275")
                                             << u8("h\303\251llo \342\202\254 \357\277\275");
        QTest::newRow("SGR colours") << u8("\033[1;31mred\033[0m plain") << u8("red plain");
        QTest::newRow("private mode show cursor at claude exit")
            << u8("{\"type\":\"result\"}\r\n\033[?25h") << u8("{\"type\":\"result\"}\n");
        QTest::newRow("alternate screen, clear, home")
            << u8("\033[?1049h\033[2J\033[Hx\033[?1049l") << u8("x");
        QTest::newRow("CSI with intermediate byte") << u8("a\033[2 qb") << u8("ab");
        QTest::newRow("OSC title ended by BEL") << u8("\033]0;my title\007text") << u8("text");
        QTest::newRow("OSC hyperlink ended by ESC backslash")
            << u8("\033]8;;https://example.com\033\\link\033]8;;\033\\.") << u8("link.");
        QTest::newRow("OSC ended by ESC starting a CSI") << u8("\033]0;t\033[31mX") << u8("X");
        QTest::newRow("unterminated OSC ends at newline")
            << u8("\033]0;broken\nnext") << u8("\nnext");
        QTest::newRow("DCS string") << u8("a\033P1$r0m\033\\b") << u8("ab");
        QTest::newRow("charset selection") << u8("\033(Bplain\033)0!") << u8("plain!");
        QTest::newRow("two-character escapes")
            << u8("\0337saved\0338\033=\033>\033M") << u8("saved");
        QTest::newRow("ESC ESC starts over") << u8("\033\033[31mX") << u8("X");
        QTest::newRow("CAN aborts a CSI") << u8("\033[31\030X") << u8("X");
        QTest::newRow("control inside CSI is executed") << u8("\033[3\n1mX") << u8("\nX");
        QTest::newRow("non-ASCII aborts a CSI") << u8("\033[3\303\251") << u8("\303\251");
        QTest::newRow("C1 CSI") << (QChar(0x9b) + u8("31mX")) << u8("X");
        QTest::newRow("C1 OSC ended by C1 ST")
            << (QChar(0x9d) + u8("0;t") + QChar(0x9c) + u8("X")) << u8("X");
        QTest::newRow("CRLF becomes LF") << u8("a\r\nb\r\n") << u8("a\nb\n");
        QTest::newRow("bare CR redraws become lines")
            << u8("10%\r50%\r100%\r\n") << u8("10%\n50%\n100%\n");
        QTest::newRow("CR runs collapse") << u8("a\r\r\nb\r\r") << u8("a\nb\n");
        QTest::newRow("CR then erase-line then LF") << u8("50%\r\033[K\n") << u8("50%\n");
        QTest::newRow("other controls dropped")
            << (u8("a\007b") + QChar(0) + u8("c\016d\177e")) << u8("abcde");
        if (forSplitting)
            return;
        QTest::newRow("backspace erases") << u8("abc\b\bX") << u8("aX");
        QTest::newRow("backspace stops at line start") << u8("a\n\bb") << u8("a\nb");
    }

private slots:
    void filtersWholeChunk_data() { addCases(false); }
    void filtersWholeChunk()
    {
        QFETCH(QString, input);
        QFETCH(QString, expected);
        QCOMPARE(filterWhole(input), expected);
    }

    void everySplitPositionGivesSameText_data() { addCases(true); }
    void everySplitPositionGivesSameText()
    {
        QFETCH(QString, input);
        QFETCH(QString, expected);
        for (qsizetype split = 0; split <= input.size(); ++split) {
            TerminalTextFilter filter;
            // One statement per call: the order of operands of + is unspecified.
            QString joined = filter.filter(input.left(split));
            joined += filter.filter(input.mid(split));
            QVERIFY2(joined == expected, qPrintable(QString::number(split)));
        }
        TerminalTextFilter filter;
        QString oneByOne;
        for (const QChar c : input)
            oneByOne += filter.filter(QString(c));
        QCOMPARE(oneByOne, expected);
    }

    void backspaceAtChunkStartIsDropped()
    {
        TerminalTextFilter filter;
        QCOMPARE(filter.filter(u8("abc")), u8("abc"));
        QCOMPARE(filter.filter(u8("\bX")), u8("X"));
    }

    void resetForgetsAnOpenSequence()
    {
        TerminalTextFilter filter;
        QCOMPARE(filter.filter(u8("a\033[3")), u8("a"));
        filter.reset();
        QCOMPARE(filter.filter(u8("1mX")), u8("1mX"));
    }

    void resetForgetsCarriageReturn()
    {
        TerminalTextFilter filter;
        QCOMPARE(filter.filter(u8("a\r")), u8("a\n"));
        filter.reset();
        QCOMPARE(filter.filter(u8("\nb")), u8("\nb"));
    }

    void streamJsonUnderPtyInFourKilobyteChunks()
    {
        // A realistic PTY stream: JSON lines with CRLF, a long line crossing chunk borders,
        // and the cursor sequence the CLI writes at exit.
        const QString longText(10000, QLatin1Char('x'));
        const QString input
            = u8("{\"type\":\"system\"}\r\n{\"text\":\"") + longText + u8("\"}\r\n\033[?25h");
        const QString expected = u8("{\"type\":\"system\"}\n{\"text\":\"") + longText + u8("\"}\n");
        TerminalTextFilter filter;
        QString output;
        for (qsizetype at = 0; at < input.size(); at += 4096)
            output += filter.filter(input.mid(at, 4096));
        QCOMPARE(output, expected);
    }
};

QTEST_GUILESS_MAIN(TestTerminalText)
#include "tst_terminaltext.moc"
