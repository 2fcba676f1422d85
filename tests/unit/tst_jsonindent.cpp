// indentedJson (util/jsonindent), as the JSON preview's Text tab, the exports and the raw view
// use it: only the whitespace between tokens changes, for every input, so members keep their
// order and repeated keys stay.

#include "util/jsonindent.h"

#include <QDirIterator>
#include <QFile>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QtTest>

using namespace sandscope;

namespace {

// The text without the whitespace between tokens (strings copied as they are).
QByteArray tokensOnly(const QByteArray &json)
{
    QByteArray out;
    bool inString = false;
    for (qsizetype i = 0; i < json.size(); ++i) {
        const char c = json.at(i);
        if (inString) {
            out += c;
            if (c == '\\' && i + 1 < json.size())
                out += json.at(++i);
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
            out += c;
        } else if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
            out += c;
        }
    }
    return out;
}

QByteArray randomJson(QRandomGenerator &random, int depth)
{
    const int kind = int(random.bounded(depth > 3 ? 5 : 7));
    switch (kind) {
    case 0:
        return "null";
    case 1:
        return QByteArray::number(random.bounded(-1000000, 1000000));
    case 2:
        return "\"a \\\"q\\\" \\\\ {x: [1, 2]}, \\u00e9\"";
    case 3:
        return random.bounded(2) ? "true" : "false";
    case 4:
        return "1.5e-3";
    case 5: {
        QByteArray out = "[";
        const int n = int(random.bounded(4));
        for (int i = 0; i < n; ++i)
            out += (i ? ", " : "") + randomJson(random, depth + 1);
        return out + " ]";
    }
    default: {
        QByteArray out = "{\n";
        const int n = int(random.bounded(4));
        for (int i = 0; i < n; ++i)
            out += (i ? " ,\t" : "") + QByteArray("\"k") + QByteArray::number(n - i)
                + "\" :" + randomJson(random, depth + 1);
        return out + "}";
    }
    }
}

} // namespace

class TestJsonIndent : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // For every input: the same tokens in the same order, the same document, one member or
    // element per line.
    void indentingChangesOnlyWhitespace_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addRow("order") << QByteArray(
            "{\"b\":1,\"a\":[],\"c\":{},\"d\":[{\"x\":\"}]{[,:\\\"\"}]}");
        QTest::addRow("spaces") << QByteArray(" [ 42 , \"a b\" ] ");
        QRandomGenerator random(20261204);
        for (int i = 0; i < 200; ++i)
            QTest::addRow("random %d", i) << "[" + randomJson(random, 0) + "]";
        QDirIterator files(QStringLiteral(SANDSCOPE_TEST_DATA_DIR), {QStringLiteral("*.json")},
            QDir::Files, QDirIterator::Subdirectories);
        while (files.hasNext()) {
            QFile file(files.next());
            if (file.open(QIODevice::ReadOnly) && file.size() < 4 * 1024 * 1024) {
                const QByteArray json = file.readAll();
                if (!QJsonDocument::fromJson(json).isNull())
                    QTest::addRow("%s", qPrintable(files.fileName())) << json;
            }
        }
    }
    void indentingChangesOnlyWhitespace()
    {
        QFETCH(QByteArray, json);
        QJsonParseError error;
        const QJsonDocument original = QJsonDocument::fromJson(json, &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        const QByteArray indented = indentedJson(json).toUtf8();
        QCOMPARE(tokensOnly(indented), tokensOnly(json));
        QCOMPARE(QJsonDocument::fromJson(indented), original);
    }

    void indentingPutsOneMemberPerLineInTheirOrder()
    {
        const QByteArray expected = "{\n"
                                    "  \"b\": 1,\n"
                                    "  \"a\": [],\n"
                                    "  \"c\": {\n"
                                    "    \"x\": [\n"
                                    "      1,\n"
                                    "      \"2,]\"\n"
                                    "    ]\n"
                                    "  }\n"
                                    "}";
        QCOMPARE(indentedJson("{\"b\":1,\"a\":[ ],\"c\":{\"x\":[1,\"2,]\"]}}").toUtf8(), expected);
    }
};

QTEST_GUILESS_MAIN(TestJsonIndent)
#include "tst_jsonindent.moc"
