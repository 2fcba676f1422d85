// TerminalSafe: control characters and escape sequences are shown the way `ls -b` writes them,
// C1 controls, bidi overrides and invisible characters as <U+XXXX>; a row's field never holds a
// line break, a text keeps its lines and tabs; and a seeded random property test: whatever the
// input, nothing a terminal acts on survives, line() is one-to-one (two names never print the
// same), and plain text is left alone (SANDSCOPE_TERMINALSAFE_SEED picks another seed).

#include "util/terminalsafe.h"

#include <QHash>
#include <QRandomGenerator>
#include <QtTest/QTest>

using sandscope::TerminalSafe;

namespace {

// What a terminal acts on or shows as nothing.
bool isActive(char16_t unit)
{
    return unit < 0x20 || (unit >= 0x7f && unit <= 0x9f) || unit == 0xad || unit == 0x061c
        || (unit >= 0x200b && unit <= 0x200f) || (unit >= 0x2028 && unit <= 0x202e)
        || (unit >= 0x2060 && unit <= 0x2069) || unit == 0xfeff;
}

// A random text of code units that are mostly hostile.
QString randomText(QRandomGenerator &random)
{
    static const QList<char16_t> interesting {0x00, 0x07, 0x08, 0x09, 0x0a, 0x0d, 0x1b, 0x7f, 0x85,
        0x9b, 0x9d, 0xad, 0x200e, 0x202a, 0x202e, 0x2066, 0x2069, 0x2028, 0xfeff, u'\\', u'[', u']',
        u';', u'<', u'U', u'+', u'<', u'U', u'+', u'e', u'n', u'x', 0xd83d, 0xde00, 0xe9};
    QString text;
    for (int count = random.bounded(16); count > 0; --count) {
        const int pick = random.bounded(3);
        if (pick == 0)
            text += QChar(interesting.at(random.bounded(int(interesting.size()))));
        else if (pick == 1)
            text += QChar(char16_t(random.bounded(0x20, 0x7f)));
        else
            text += QChar(char16_t(random.bounded(0x10000)));
    }
    return text;
}

} // namespace

class TestTerminalSafe : public QObject {
    Q_OBJECT

private slots:
    void line_data();
    void line();
    void text_data();
    void text();
    void visibleUnicode();
    void name();
    void randomInputsNeverReachTheTerminal();
};

void TestTerminalSafe::line_data()
{
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("expected");
    QTest::newRow("plain") << "report.txt"
                           << "report.txt";
    QTest::newRow("non-ASCII kept") << "café 😀.md"
                                    << "café 😀.md";
    QTest::newRow("newline") << "a\nb"
                             << "a\\nb";
    QTest::newRow("backslash doubled") << "a\\nb"
                                       << "a\\\\nb";
    QTest::newRow("colour") << "\x1b[31mred\x1b[0m"
                            << "\\e[31mred\\e[0m";
    QTest::newRow("title") << "\x1b]0;pwned\x07"
                           << "\\e]0;pwned\\a";
    QTest::newRow("cr tab del nul")
        << QStringLiteral("a\rb\tc\x7f") + QChar(0) + QStringLiteral("d") << "a\\rb\\tc\\x7f\\x00d";
    QTest::newRow("c1 csi") << QString(QChar(0x9b)) + QStringLiteral("2J") << "<U+009B>2J";
    QTest::newRow("rlo") << QStringLiteral("invoice") + QChar(0x202e) + QStringLiteral("fdp.exe")
                         << "invoice<U+202E>fdp.exe";
    QTest::newRow("isolate") << QString(QChar(0x2067)) + QStringLiteral("x") << "<U+2067>x";
    QTest::newRow("line separator")
        << QStringLiteral("a") + QChar(0x2028) + QStringLiteral("b") << "a<U+2028>b";
    QTest::newRow("lone surrogate") << QStringLiteral("a") + QChar(0xd800) << "a<U+D800>";
    QTest::newRow("spelt code point") << "a<U+202E>b <U x"
                                      << "a\\x3cU+202E>b <U x";
    // Other format characters that show as nothing (found by fuzz_terminalsafe, whose oracle is
    // the Unicode category): tags outside the BMP hide ASCII text, the rest hide or join.
    QTest::newRow("tag characters")
        << QStringLiteral("ok") + QString::fromUcs4(U"\U000E0041\U000E007F")
        << "ok<U+E0041><U+E007F>";
    QTest::newRow("mongolian vowel separator")
        << QStringLiteral("a") + QChar(0x180e) << "a<U+180E>";
    QTest::newRow("interlinear annotation")
        << QString(QChar(0xfff9)) + QStringLiteral("x") << "<U+FFF9>x";
    QTest::newRow("arabic number sign") << QString(QChar(0x0600)) << "<U+0600>";
    QTest::newRow("musical format") << QString::fromUcs4(U"\U0001D173") << "<U+1D173>";
}

void TestTerminalSafe::line()
{
    QFETCH(QString, input);
    QFETCH(QString, expected);
    QCOMPARE(TerminalSafe::line(input), expected);
}

void TestTerminalSafe::text_data()
{
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("expected");
    QTest::newRow("lines and tabs kept") << "a\n\tb\n"
                                         << "a\n\tb\n";
    QTest::newRow("crlf is a line break") << "a\r\nb"
                                          << "a\nb";
    QTest::newRow("bare cr visible") << "50%\r100%"
                                     << "50%\\r100%";
    QTest::newRow("backslash kept") << "C:\\dir"
                                    << "C:\\dir";
    QTest::newRow("escape visible") << "\x1b[2J\x1b[H"
                                    << "\\e[2J\\e[H";
    QTest::newRow("bidi visible") << QStringLiteral("x") + QChar(0x202d) << "x<U+202D>";
}

void TestTerminalSafe::text()
{
    QFETCH(QString, input);
    QFETCH(QString, expected);
    QCOMPARE(TerminalSafe::text(input), expected);
}

void TestTerminalSafe::visibleUnicode()
{
    const QString input = QStringLiteral("a\n\x1b") + QChar(0x202e) + QChar(0x85);
    QCOMPARE(TerminalSafe::visibleUnicode(input), QStringLiteral("a\n\x1b<U+202E><U+0085>"));
}

void TestTerminalSafe::name()
{
    const QString input = QStringLiteral("a\nb\\c") + QChar(0x202e) + QChar(0x1b);
    QCOMPARE(TerminalSafe::name(input), QStringLiteral("a<U+000A>b\\c<U+202E><U+001B>"));
    QCOMPARE(TerminalSafe::name(QStringLiteral("plain C:\\x")), QStringLiteral("plain C:\\x"));
}

void TestTerminalSafe::randomInputsNeverReachTheTerminal()
{
    const quint32 seed = qEnvironmentVariableIsSet("SANDSCOPE_TERMINALSAFE_SEED")
        ? quint32(qEnvironmentVariableIntValue("SANDSCOPE_TERMINALSAFE_SEED"))
        : 27u;
    QRandomGenerator random(seed);
    QHash<QString, QString> printedAs; // line() output -> its input
    for (int round = 0; round < 20000; ++round) {
        const QString input = randomText(random);
        const QString line = TerminalSafe::line(input);
        const QString text = TerminalSafe::text(input);
        for (qsizetype i = 0; i < line.size(); ++i) {
            QVERIFY2(!isActive(line.at(i).unicode()), qPrintable(line));
            if (line.at(i).isHighSurrogate())
                QVERIFY(i + 1 < line.size() && line.at(++i).isLowSurrogate());
            else
                QVERIFY(!line.at(i).isLowSurrogate());
        }
        for (const QChar c : text)
            QVERIFY(!isActive(c.unicode()) || c == QLatin1Char('\n') || c == QLatin1Char('\t'));
        for (const QChar c : TerminalSafe::name(input))
            QVERIFY(!isActive(c.unicode()));
        if (TerminalSafe::isPlain(input))
            QCOMPARE(line, input);
        const auto seen = printedAs.constFind(line);
        if (seen != printedAs.constEnd())
            QVERIFY2(*seen == input,
                qPrintable(QStringLiteral("seed %1: two names print as %2").arg(seed).arg(line)));
        printedAs.insert(line, input);
    }
}

QTEST_GUILESS_MAIN(TestTerminalSafe)
#include "tst_terminalsafe.moc"
