// JsonLineView, the summary fast path's reader, against simdjson's DOM parser it stands in for:
// a line the view reads is one the DOM parser accepts, and every value reads the same through
// both (the whole line dumped through each API by one template, and every root key looked up
// with at_key). Rows: what the view reads, what it must leave to the DOM parser (escapes,
// signs, exponents, long numbers, deep nesting, other roots) and broken JSON of every kind;
// then every line of every capture in tests/data and seeded random mutations of them (one to
// three edits: a byte changed, inserted or removed, the line cut short): the property holds for
// each, and the view reads most real lines (it is the fast path, not a formality). SANDSCOPE_SEED
// repeats a run.

#include "capturelines.h"
#include "jsonlineviewcheck.h"

#include <QRandomGenerator>
#include <QtTest/QTest>

using namespace sandscope;
namespace capture = sandscope::test::capture;
using sandscope::test::check;
using sandscope::test::Verdict;

namespace {

QByteArray nested(int depth)
{
    return "{\"a\":" + QByteArray(depth - 1, '[') + QByteArray(depth - 1, ']') + '}';
}

} // namespace

class TestJsonLineView : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void readsWhatTheDomReadsAndLeavesTheRest_data()
    {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<bool>("read");
        // Read by the view.
        QTest::newRow("every kind of value") << QByteArray(
            "{\"s\":\"text\",\"i\":12,\"z\":0,\"d\":0.25,\"t\":true,\"f\":false,\"n\":null,"
            "\"a\":[1,{\"x\":[]},\"y\"],\"o\":{\"k\":{}}}")
                                             << true;
        QTest::newRow("whitespace around everything")
            << QByteArray("{ \"a\" :\t1 ,\r\n\"b\" : [ 1 , 2 ] , \"c\" : { } }") << true;
        QTest::newRow("empty object") << QByteArray("{}") << true;
        QTest::newRow("a key repeated: at_key takes the first")
            << QByteArray("{\"a\":1,\"a\":\"two\",\"b\":[],\"b\":{}}") << true;
        QTest::newRow("18 digits") << QByteArray("{\"a\":999999999999999999}") << true;
        QTest::newRow("decimals") << QByteArray(
            "{\"a\":0.1,\"b\":123.456,\"c\":0.000001,\"d\":7.0}")
                                  << true;
        QTest::newRow("UTF-8 text")
            << QByteArray("{\"a\":\"\xc3\xa9t\xc3\xa9 \xf0\x9f\x98\x80\"}") << true;
        QTest::newRow("999 deep") << nested(999) << true;
        QTest::newRow("strings in arrays") << QByteArray(
            "{\"a\":[\"x\",\"y\",\"z\"],\"b\":[\"x\"],\"c\":[\"x\",1,\"y\",[\"z\",\"w\"]]}")
                                           << true;
        QTest::newRow("members of every kind in a row") << QByteArray(
            "{\"a\":1,\"b\":\"s\",\"c\":true,\"d\":null,\"e\":0.5,\"f\":false,\"g\":{\"h\":2,"
            "\"i\":\"j\"},\"k\":\"l\"}") << true;
        // Left to the DOM parser, valid or not.
        QTest::newRow("an escape") << QByteArray("{\"a\":\"say \\\"hi\\\"\"}") << false;
        QTest::newRow("a unicode escape") << QByteArray("{\"a\":\"\\u00e9\"}") << false;
        QTest::newRow("an escaped key") << QByteArray("{\"typ\\u0065\":\"user\"}") << false;
        QTest::newRow("a negative number") << QByteArray("{\"a\":-1}") << false;
        QTest::newRow("an exponent") << QByteArray("{\"a\":1e5}") << false;
        QTest::newRow("19 digits") << QByteArray("{\"a\":1234567890123456789}") << false;
        QTest::newRow("a long decimal")
            << QByteArray("{\"a\":0." + QByteArray(70, '1') + "}") << false;
        QTest::newRow("1000 deep") << nested(1000) << false;
        QTest::newRow("2000 deep (the DOM refuses)") << nested(2000) << false;
        QTest::newRow("an array") << QByteArray("[1,2]") << false;
        QTest::newRow("a string") << QByteArray("\"text\"") << false;
        QTest::newRow("a number") << QByteArray("12") << false;
        QTest::newRow("leading whitespace") << QByteArray(" {\"a\":1}") << false;
        // Broken.
        QTest::newRow("a leading zero") << QByteArray("{\"a\":01}") << false;
        QTest::newRow("a bare decimal point") << QByteArray("{\"a\":1.}") << false;
        QTest::newRow("a decimal point first") << QByteArray("{\"a\":.5}") << false;
        QTest::newRow("a trailing comma") << QByteArray("{\"a\":1,}") << false;
        QTest::newRow("a trailing comma in an array") << QByteArray("{\"a\":[1,]}") << false;
        QTest::newRow("two commas") << QByteArray("{\"a\":[1,,2]}") << false;
        QTest::newRow("no colon") << QByteArray("{\"a\" 1}") << false;
        QTest::newRow("two colons") << QByteArray("{\"a\"::1}") << false;
        QTest::newRow("no comma") << QByteArray("{\"a\":1 \"b\":2}") << false;
        QTest::newRow("a number glued to a key") << QByteArray("{\"a\":1\"b\":2}") << false;
        QTest::newRow("a key that is a number") << QByteArray("{1:2}") << false;
        QTest::newRow("a key without a value") << QByteArray("{\"a\"}") << false;
        QTest::newRow("a colon in an array") << QByteArray("{\"a\":[\"b\":1]}") << false;
        QTest::newRow("unclosed") << QByteArray("{\"a\":1") << false;
        QTest::newRow("an unclosed array") << QByteArray("{\"a\":[1}") << false;
        QTest::newRow("closed twice") << QByteArray("{\"a\":1}}") << false;
        QTest::newRow("crossed brackets") << QByteArray("{\"a\":[1}]") << false;
        QTest::newRow("two objects") << QByteArray("{\"a\":1}{\"b\":2}") << false;
        QTest::newRow("text after the object") << QByteArray("{\"a\":1} x") << false;
        QTest::newRow("an unclosed string") << QByteArray("{\"a\":\"b}") << false;
        QTest::newRow("a cut literal") << QByteArray("{\"a\":tru}") << false;
        QTest::newRow("a literal run on") << QByteArray("{\"a\":truex}") << false;
        QTest::newRow("a misspelt literal") << QByteArray("{\"a\":nul1}") << false;
        QTest::newRow("a word") << QByteArray("{\"a\":yes}") << false;
        QTest::newRow("a control character in a string") << QByteArray("{\"a\":\"b\tc\"}") << false;
        QTest::newRow("invalid UTF-8") << QByteArray("{\"a\":\"\xff\xfe\"}") << false;
        QTest::newRow("a NUL byte after it") << QByteArray("{\"a\":1}\0", 8) << false;
        QTest::newRow("a number run on") << QByteArray("{\"a\":12x}") << false;
        // Broken within a run of strings or scalars.
        QTest::newRow("a trailing comma after strings")
            << QByteArray("{\"a\":[\"x\",\"y\",]}") << false;
        QTest::newRow("two commas after a string") << QByteArray("{\"a\":[\"x\",,\"y\"]}") << false;
        QTest::newRow("a key among strings") << QByteArray("{\"a\":[\"x\",\"y\":1]}") << false;
        QTest::newRow("strings without a comma")
            << QByteArray("{\"a\":[\"x\",\"y\" \"z\"]}") << false;
        QTest::newRow("a key without a value after members")
            << QByteArray("{\"a\":\"x\",\"b\":1,\"c\"}") << false;
        QTest::newRow("a key without a colon among members")
            << QByteArray("{\"a\":\"x\",\"b\",\"c\"}") << false;
        QTest::newRow("a trailing comma after members")
            << QByteArray("{\"a\":\"x\",\"b\":1,}") << false;
        QTest::newRow("a literal run on between members")
            << QByteArray("{\"a\":truex,\"b\":1}") << false;
        QTest::newRow("a number run on between members")
            << QByteArray("{\"a\":12x,\"b\":1}") << false;
        QTest::newRow("a word between members") << QByteArray("{\"a\":yes,\"b\":1}") << false;
        QTest::newRow("members without a comma")
            << QByteArray("{\"a\":\"x\",\"b\":\"y\"\"c\":1}") << false;
        QTest::newRow("a colon for a comma") << QByteArray("{\"a\":\"x\":\"b\":1}") << false;
        QTest::newRow("an array closed by a brace among strings")
            << QByteArray("{\"a\":[\"x\",\"y\"}") << false;
    }

    void readsWhatTheDomReadsAndLeavesTheRest()
    {
        QFETCH(QByteArray, line);
        QFETCH(bool, read);
        const Verdict verdict = check(line);
        QVERIFY2(verdict.wrong.isEmpty(), verdict.wrong.constData());
        QCOMPARE(verdict.read, read);
    }

    void everyCaptureLineAndItsMutationsReadTheSame()
    {
        const QList<QByteArray> lines = capture::everyCaptureLine();
        QVERIFY(lines.size() > 100);
        const quint32 seed = qEnvironmentVariableIsSet("SANDSCOPE_SEED")
            ? quint32(qEnvironmentVariableIntValue("SANDSCOPE_SEED"))
            : QRandomGenerator::global()->generate();
        qInfo("seed %u (SANDSCOPE_SEED repeats it)", seed);
        QRandomGenerator random(seed);
        static const QByteArray interesting
            = QByteArrayLiteral("{}[]:,\" \t0123456789-.eEtfnul\\x");
        int readLines = 0;
        int withoutBackslash = 0;
        int readMutations = 0;
        for (const QByteArray &line : lines) {
            const Verdict verdict = check(line);
            QVERIFY2(verdict.wrong.isEmpty(),
                QByteArray(verdict.wrong + " in " + line.left(200)).constData());
            readLines += verdict.read ? 1 : 0;
            withoutBackslash += line.contains('\\') ? 0 : 1;
            for (int m = 0; m < 20; ++m) {
                const QByteArray mutated = capture::mutatedLine(line, random, interesting, true);
                const Verdict mutation = check(mutated);
                QVERIFY2(mutation.wrong.isEmpty(),
                    QByteArray(mutation.wrong + " in " + mutated.left(200)).constData());
                readMutations += mutation.read ? 1 : 0;
            }
        }
        qInfo("%d of %d lines read by the view (%d have no backslash); %d mutations read",
            readLines, int(lines.size()), withoutBackslash, readMutations);
        // The fast path: most real lines without a backslash are the view's.
        QVERIFY2(readLines * 10 >= withoutBackslash * 9,
            qPrintable(QStringLiteral("%1 of %2").arg(readLines).arg(withoutBackslash)));
        QVERIFY(readMutations > 0);
    }
};

QTEST_GUILESS_MAIN(TestJsonLineView)
#include "tst_jsonlineview.moc"
