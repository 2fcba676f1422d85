// CsvParser: RFC 4180 quoting (separators, line breaks and doubled quotes inside quotes), CRLF,
// TSV, ragged rows, an unterminated quote, the row limit and the separator guess.

#include "previews/csvparser.h"
#include "testing.h"

#include <QtTest/QTest>

using sandscope::CsvParser;
using sandscope::CsvTable;

Q_DECLARE_METATYPE(QVector<QStringList>)

class TestCsvParser : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parsesRecords_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QChar>("separator");
        QTest::addColumn<QVector<QStringList>>("rows");
        QTest::addColumn<int>("columnCount");
        QTest::addColumn<int>("unterminatedQuoteRow");

        const QChar comma = QLatin1Char(',');
        const QChar tab = QLatin1Char('\t');
        using Rows = QVector<QStringList>;
        const auto s = [](const char *text) {
            return QString::fromUtf8(text);
        };

        QTest::newRow("plain") << s("a,b,c\n1,2,3\n") << comma
                               << Rows {{s("a"), s("b"), s("c")}, {s("1"), s("2"), s("3")}} << 3
                               << -1;
        QTest::newRow("no final line break")
            << s("a,b\n1,2") << comma << Rows {{s("a"), s("b")}, {s("1"), s("2")}} << 2 << -1;
        QTest::newRow("quoted separator")
            << s("name,note\n\"Smith, J\",x\n") << comma
            << Rows {{s("name"), s("note")}, {s("Smith, J"), s("x")}} << 2 << -1;
        QTest::newRow("embedded newline")
            << s("a,b\n\"line one\nline two\",z\n") << comma
            << Rows {{s("a"), s("b")}, {s("line one\nline two"), s("z")}} << 2 << -1;
        QTest::newRow("embedded CRLF kept inside quotes")
            << s("\"x\r\ny\",2\r\n") << comma << Rows {{s("x\r\ny"), s("2")}} << 2 << -1;
        QTest::newRow("doubled quotes") << s("\"she said \"\"hi\"\"\",\"\"\"\"\n") << comma
                                        << Rows {{s("she said \"hi\""), s("\"")}} << 2 << -1;
        QTest::newRow("empty quoted field")
            << s("\"\",a\n") << comma << Rows {{QString(), s("a")}} << 2 << -1;
        QTest::newRow("only an empty quoted field")
            << s("\"\"") << comma << Rows {{QString()}} << 1 << -1;
        QTest::newRow("CRLF line ends")
            << s("a,b\r\n1,2\r\n") << comma << Rows {{s("a"), s("b")}, {s("1"), s("2")}} << 2 << -1;
        QTest::newRow("lone CR line ends")
            << s("a,b\r1,2\r") << comma << Rows {{s("a"), s("b")}, {s("1"), s("2")}} << 2 << -1;
        QTest::newRow("TSV with commas in fields")
            << s("a,1\tb\n\"c\td\"\te\n") << tab << Rows {{s("a,1"), s("b")}, {s("c\td"), s("e")}}
            << 2 << -1;
        QTest::newRow("ragged rows")
            << s("a,b,c\n1\n1,2,3,4\n") << comma
            << Rows {{s("a"), s("b"), s("c")}, {s("1")}, {s("1"), s("2"), s("3"), s("4")}} << 4
            << -1;
        QTest::newRow("trailing empty field")
            << s("a,b,\n") << comma << Rows {{s("a"), s("b"), QString()}} << 3 << -1;
        QTest::newRow("trailing empty field at end of input")
            << s("a,b,") << comma << Rows {{s("a"), s("b"), QString()}} << 3 << -1;
        QTest::newRow("blank line is a one-field row")
            << s("a\n\nb\n") << comma << Rows {{s("a")}, {QString()}, {s("b")}} << 1 << -1;
        QTest::newRow("quote inside unquoted field is literal")
            << s("5\" pipe,x\n") << comma << Rows {{s("5\" pipe"), s("x")}} << 2 << -1;
        QTest::newRow("text after closing quote is kept")
            << s("\"abc\"def,x\n") << comma << Rows {{s("abcdef"), s("x")}} << 2 << -1;
        QTest::newRow("unterminated quote runs to the end")
            << s("a,b\n1,\"open\n2,3\n") << comma
            << Rows {{s("a"), s("b")}, {s("1"), s("open\n2,3\n")}} << 2 << 1;
        QTest::newRow("empty input") << QString() << comma << Rows {} << 0 << -1;
        QTest::newRow("unicode") << s("größe,€\n\"ü,ß\",日本\n") << comma
                                 << Rows {{s("größe"), s("€")}, {s("ü,ß"), s("日本")}} << 2 << -1;
    }

    void parsesRecords()
    {
        QFETCH(QString, text);
        QFETCH(QChar, separator);
        QFETCH(QVector<QStringList>, rows);
        QFETCH(int, columnCount);
        QFETCH(int, unterminatedQuoteRow);

        const CsvTable table = CsvParser(separator).parse(text);
        QCOMPARE(table.rows, rows);
        QCOMPARE(table.columnCount, columnCount);
        QCOMPARE(table.unterminatedQuoteRow, unterminatedQuoteRow);
        QVERIFY(!table.truncated);
    }

    void stopsAtRowLimitAndSaysSo()
    {
        const QString text = QStringLiteral("1\n2\n3\n4\n");
        const CsvTable limited = CsvParser().parse(text, 2);
        QCOMPARE(
            limited.rows, (QVector<QStringList> {{QStringLiteral("1")}, {QStringLiteral("2")}}));
        QVERIFY(limited.truncated);

        const CsvTable exact = CsvParser().parse(text, 4);
        QCOMPARE(exact.rows.size(), 4);
        QVERIFY2(!exact.truncated, "exactly maxRows rows is not a truncation");
    }

    void rowLimitCountsRecordsNotLines()
    {
        const CsvTable table = CsvParser().parse(QStringLiteral("\"a\nb\nc\",1\nnext,2\n"), 1);
        QCOMPARE(table.rows.size(), 1);
        QCOMPARE(table.rows.first().first(), QStringLiteral("a\nb\nc"));
        QVERIFY(table.truncated);
    }

    void guessesSeparator_data()
    {
        QTest::addColumn<QString>("fileName");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QChar>("separator");
        QTest::newRow("tsv suffix")
            << QStringLiteral("data.TSV") << QStringLiteral("a,b\n") << QChar(QLatin1Char('\t'));
        QTest::newRow("csv suffix with tabs")
            << QStringLiteral("data.csv") << QStringLiteral("a\tb\n") << QChar(QLatin1Char(','));
        QTest::newRow("unknown suffix, tabs only")
            << QStringLiteral("export.txt") << QStringLiteral("a\tb\n1,5\t2\n")
            << QChar(QLatin1Char('\t'));
        QTest::newRow("unknown suffix, commas")
            << QStringLiteral("export") << QStringLiteral("a,b\tc\n") << QChar(QLatin1Char(','));
    }

    void guessesSeparator()
    {
        QFETCH(QString, fileName);
        QFETCH(QString, text);
        QFETCH(QChar, separator);
        QCOMPARE(CsvParser::guessSeparator(fileName, text), separator);
    }

    void largeInputParsesInLinearTime()
    {
        const auto rows = [](int count) {
            QString text;
            for (int i = 0; i < count; ++i)
                text += QStringLiteral("%1,\"quoted, value\",plain text here\n").arg(i);
            return text;
        };
        const QString small = rows(10000);
        const QString large = rows(80000);
        const CsvTable table = CsvParser().parse(large);
        QCOMPARE(table.rows.size(), 80000);
        QCOMPARE(table.rows.last().at(1), QStringLiteral("quoted, value"));
        // 8x the rows: about 8x the time when linear, 64x when quadratic.
        const double ratio = sandscope::test::growthRatio(
            [&](int size) { CsvParser().parse(size == 10000 ? small : large); }, 10000, 80000);
        QVERIFY2(ratio < 24, qPrintable(QString::number(ratio)));
    }
};

QTEST_GUILESS_MAIN(TestCsvParser)
#include "tst_csvparser.moc"
