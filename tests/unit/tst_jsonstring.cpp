// jsonstring: decoding the string literals the listing scripts cut out of transcript lines
// (whole, cut short anywhere, not literals at all), and the JSON form a search looks for,
// checked against QJsonDocument's reading of it.

#include "util/jsonstring.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace sandscope;

class JsonStringTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void decodeReadsLiterals_data()
    {
        QTest::addColumn<QString>("literal");
        QTest::addColumn<QString>("text");
        QTest::newRow("plain") << QStringLiteral("\"abc\"") << QStringLiteral("abc");
        QTest::newRow("escapes") << QStringLiteral("\"q\\\" b\\\\ s\\/ \\b\\f\\n\\r\\t\"")
                                 << QStringLiteral("q\" b\\ s/ \b\f\n\r\t");
        QTest::newRow("unicode escapes and a surrogate pair")
            << QStringLiteral("\"\\u00fc\\u00DC \\ud83d\\ude00\"") << QStringLiteral("üÜ 😀");
        QTest::newRow("raw non-ASCII") << QStringLiteral("\"Grüße\"") << QStringLiteral("Grüße");
        QTest::newRow("stops at the closing quote")
            << QStringLiteral("\"a\",\"b\":\"c\"") << QStringLiteral("a");
        QTest::newRow("cut without closing quote")
            << QStringLiteral("\"abc") << QStringLiteral("abc");
        QTest::newRow("cut after a backslash")
            << QStringLiteral("\"abc\\") << QStringLiteral("abc");
        QTest::newRow("cut inside \\u") << QStringLiteral("\"abc\\u00f") << QStringLiteral("abc");
        QTest::newRow("not hex after \\u")
            << QStringLiteral("\"ab\\u00g1cd\"") << QStringLiteral("ab");
        QTest::newRow("no literal") << QStringLiteral("abc\"") << QString();
        QTest::newRow("empty") << QString() << QString();
        QTest::newRow("only a quote") << QStringLiteral("\"") << QString();
    }

    void decodeReadsLiterals()
    {
        QFETCH(QString, literal);
        QFETCH(QString, text);
        QCOMPARE(jsonstring::decode(literal), text);
    }

    void escapeIsWhatJsonReadsBack_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("escaped");
        QTest::newRow("quotes and backslashes")
            << QStringLiteral("say \"hi\" C:\\dir") << QStringLiteral("say \\\"hi\\\" C:\\\\dir");
        QTest::newRow("control characters") << QStringLiteral("a\nb\tc\rd\x01\x1b")
                                            << QStringLiteral("a\\nb\\tc\\rd\\u0001\\u001b");
        QTest::newRow("non-ASCII stays raw") << QStringLiteral("ünï 😀") << QStringLiteral("ünï 😀");
        QTest::newRow("slash and shell characters stay")
            << QStringLiteral("/a $(x) `y` 'z'") << QStringLiteral("/a $(x) `y` 'z'");
    }

    void escapeIsWhatJsonReadsBack()
    {
        QFETCH(QString, text);
        QFETCH(QString, escaped);
        QCOMPARE(jsonstring::escape(text), escaped);
        const QString literal = QLatin1Char('"') + escaped + QLatin1Char('"');
        QCOMPARE(QJsonDocument::fromJson((QLatin1Char('[') + literal + QLatin1Char(']')).toUtf8())
                     .array()
                     .at(0)
                     .toString(),
            text);
        QCOMPARE(jsonstring::decode(literal), text);
    }
};

QTEST_GUILESS_MAIN(JsonStringTest)
#include "tst_jsonstring.moc"
