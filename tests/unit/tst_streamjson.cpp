// StreamLineReader: every line of the real CLI captures is read as JSON with the same
// envelope QJsonDocument sees; noise, corrupt, non-object and oversized lines become NotJson
// with a reason and never crash the reader.

#include "streamjson/streamjson.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QtTest/QTest>

using sandscope::StreamLine;
using sandscope::StreamLineReader;

Q_DECLARE_METATYPE(StreamLine::Kind)

namespace {

QString dataDir()
{
    return QStringLiteral(SANDSCOPE_TEST_DATA_DIR);
}

QList<QByteArray> captureLines(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QList<QByteArray> lines = file.readAll().split('\n');
    if (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast(); // after the final "\n"
    return lines;
}

QString typeKey(const QString &type, const QString &subtype)
{
    return subtype.isEmpty() ? type : type + QLatin1Char('/') + subtype;
}

QString stringValue(const QJsonObject &object, const char *key)
{
    return object.value(QLatin1String(key)).toString();
}

} // namespace

class TestStreamJson : public QObject {
    Q_OBJECT

private slots:
    void capturesAreAllPresent()
    {
        const QStringList files
            = QDir(dataDir()).entryList({QStringLiteral("*.jsonl")}, QDir::Files);
        QVERIFY2(files.size() >= 10, qPrintable(files.join(QLatin1Char(' '))));
        QVERIFY(files.contains(QStringLiteral("stream-basic.jsonl")));
        QVERIFY(files.contains(QStringLiteral("stream-partial.jsonl")));
    }

    void everyCaptureLineMatchesQJsonDocument_data()
    {
        QTest::addColumn<QString>("path");
        const QDir dir(dataDir());
        for (const QString &name : dir.entryList({QStringLiteral("*.jsonl")}, QDir::Files))
            QTest::newRow(qPrintable(name)) << dir.filePath(name);
    }
    void everyCaptureLineMatchesQJsonDocument()
    {
        QFETCH(QString, path);
        const QList<QByteArray> lines = captureLines(path);
        QVERIFY(!lines.isEmpty());

        StreamLineReader reader;
        QMap<QString, int> readerCounts;
        QMap<QString, int> qtCounts;
        for (int i = 0; i < lines.size(); ++i) {
            const QByteArray &line = lines.at(i);
            const StreamLine parsed = reader.parse(line);
            QVERIFY2(parsed.kind == StreamLine::Json,
                qPrintable(QStringLiteral("line %1: %2").arg(i + 1).arg(parsed.error)));
            QVERIFY(parsed.isObject);
            QVERIFY(parsed.error.isEmpty());
            QCOMPARE(parsed.raw, line);
            readerCounts[typeKey(parsed.type, parsed.subtype)]++;

            QJsonParseError error;
            const QJsonDocument document = QJsonDocument::fromJson(line, &error);
            QCOMPARE(error.error, QJsonParseError::NoError);
            const QJsonObject object = document.object();
            qtCounts[typeKey(stringValue(object, "type"), stringValue(object, "subtype"))]++;
            QCOMPARE(parsed.type, stringValue(object, "type"));
            QCOMPARE(parsed.subtype, stringValue(object, "subtype"));
            // Transcript records name it "sessionId".
            const QString sessionId = object.contains(QLatin1String("session_id"))
                ? stringValue(object, "session_id")
                : stringValue(object, "sessionId");
            QCOMPARE(parsed.sessionId, sessionId);
            QCOMPARE(parsed.uuid, stringValue(object, "uuid"));
            QCOMPARE(parsed.parentToolUseId, stringValue(object, "parent_tool_use_id"));
            QCOMPARE(parsed.messageId,
                object.value(QLatin1String("message"))
                    .toObject()
                    .value(QLatin1String("id"))
                    .toString());
        }
        QCOMPARE(readerCounts, qtCounts);
        QVERIFY(!readerCounts.contains(QString())); // every line has a type
    }

    void basicCaptureHasDocumentedLines()
    {
        // README-captures.md: init, text, tool_use, tool_result, text, result success.
        StreamLineReader reader;
        QStringList kinds;
        QString sessionId;
        for (const QByteArray &line :
            captureLines(dataDir() + QStringLiteral("/stream-basic.jsonl"))) {
            const StreamLine parsed = reader.parse(line);
            kinds.append(typeKey(parsed.type, parsed.subtype));
            QCOMPARE(parsed.sessionId, QStringLiteral("69d37cd2-7f92-4547-b7cd-d2b4de2e2f3e"));
            QVERIFY(parsed.parentToolUseId.isEmpty());
        }
        QCOMPARE(kinds,
            (QStringList {QStringLiteral("system/init"), QStringLiteral("assistant"),
                QStringLiteral("assistant"), QStringLiteral("user"), QStringLiteral("assistant"),
                QStringLiteral("result/success")}));
    }

    void subagentLinesCarryParentToolUseId()
    {
        StreamLineReader reader;
        int withParent = 0;
        for (const QByteArray &line :
            captureLines(dataDir() + QStringLiteral("/stream-subagent.jsonl"))) {
            const StreamLine parsed = reader.parse(line);
            if (!parsed.parentToolUseId.isEmpty()) {
                ++withParent;
                QVERIFY(parsed.parentToolUseId.startsWith(QStringLiteral("toolu_agent_")));
            }
        }
        QVERIFY(withParent >= 2);
    }

    void ptyFramedLinesParseLikeCleanOnes()
    {
        // Under a PTY lines end in "\r\n" and arrive as decoded text (the QString overload).
        StreamLineReader reader;
        for (const QByteArray &line :
            captureLines(dataDir() + QStringLiteral("/stream-partial.jsonl"))) {
            const StreamLine clean = reader.parse(line);
            const StreamLine framed
                = reader.parse(QString::fromUtf8(line) + QStringLiteral("\r\n"));
            QCOMPARE(framed.kind, StreamLine::Json);
            QCOMPARE(framed.type, clean.type);
            QCOMPARE(framed.subtype, clean.subtype);
            QCOMPARE(framed.uuid, clean.uuid);
            QCOMPARE(framed.raw, line);
            QCOMPARE(framed.rawText(), QString::fromUtf8(line));
        }
    }

    void classifiesJunk_data()
    {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<StreamLine::Kind>("kind");
        QTest::addColumn<bool>("corrupt");
        QTest::addColumn<QString>("reason"); // part of the error text
        QTest::addColumn<QString>("type");

        const auto json = StreamLine::Json;
        const auto notJson = StreamLine::NotJson;
        const auto empty = StreamLine::Empty;
        QTest::newRow("empty") << QByteArray() << empty << false << QString() << QString();
        QTest::newRow("blanks") << QByteArray(" \t ") << empty << false << QString() << QString();
        QTest::newRow("CRLF only")
            << QByteArray("\r\n") << empty << false << QString() << QString();
        QTest::newRow("show-cursor remnant") << QByteArray("\x1b[?25h") << notJson << false
                                             << QStringLiteral("terminal") << QString();
        QTest::newRow("show-cursor glued to JSON")
            << QByteArray("\x1b[?25h{\"type\":\"result\",\"subtype\":\"success\"}\r\n") << json
            << false << QString() << QStringLiteral("result");
        QTest::newRow("several sequences and blanks before JSON")
            << QByteArray("\x1b[?25h\x1b[0m  {\"type\":\"user\"}") << json << false << QString()
            << QStringLiteral("user");
        QTest::newRow("incomplete sequence") << QByteArray("\x1b[?25") << notJson << false
                                             << QStringLiteral("not JSON") << QString();
        QTest::newRow("stderr text") << QByteArray("Error: connect ECONNREFUSED 127.0.0.1:1")
                                     << notJson << false << QStringLiteral("not JSON") << QString();
        QTest::newRow("debug log with JSON inside")
            << QByteArray("[DEBUG] body {\"a\":1}") << notJson << false
            << QStringLiteral("not JSON") << QString();
        QTest::newRow("truncated object")
            << QByteArray("{\"type\":\"assistant\",\"message\":{") << notJson << true
            << QStringLiteral("corrupt") << QString();
        QTest::newRow("trailing garbage") << QByteArray("{\"type\":\"user\"} }") << notJson << true
                                          << QStringLiteral("corrupt") << QString();
        QTest::newRow("two objects on one line")
            << QByteArray("{\"type\":\"user\"}{\"type\":\"user\"}") << notJson << true
            << QStringLiteral("corrupt") << QString();
        QTest::newRow("invalid UTF-8 byte") << QByteArray("{\"type\":\"a\xff\"}") << notJson << true
                                            << QStringLiteral("UTF-8") << QString();
        QTest::newRow("truncated UTF-8 sequence")
            << QByteArray("{\"type\":\"x\",\"text\":\"\xc3\"}") << notJson << true
            << QStringLiteral("UTF-8") << QString();
        QTest::newRow("NUL byte") << QByteArray("{\"type\":\0}", 11) << notJson << true
                                  << QStringLiteral("corrupt") << QString();
        QTest::newRow("array") << QByteArray("[1,2,3]") << notJson << false
                               << QStringLiteral("array") << QString();
        QTest::newRow("number") << QByteArray("42") << notJson << false << QStringLiteral("number")
                                << QString();
        QTest::newRow("string") << QByteArray("\"text\"") << notJson << false
                                << QStringLiteral("string") << QString();
        QTest::newRow("null") << QByteArray("null") << notJson << false << QStringLiteral("null")
                              << QString();
        QTest::newRow("boolean") << QByteArray("true") << notJson << false
                                 << QStringLiteral("boolean") << QString();
        QTest::newRow("empty object")
            << QByteArray("{}") << json << false << QString() << QString();
        QTest::newRow("type of the wrong kind")
            << QByteArray("{\"type\":5,\"session_id\":null,\"message\":[]}") << json << false
            << QString() << QString();
        QTest::newRow("unknown type kept") << QByteArray("{\"type\":\"future_thing\"}") << json
                                           << false << QString() << QStringLiteral("future_thing");
        QTest::newRow("nested too deep")
            << (QByteArray("{\"a\":") + QByteArray(5000, '[') + QByteArray(5000, ']') + '}')
            << notJson << true << QStringLiteral("corrupt") << QString();
    }
    void classifiesJunk()
    {
        QFETCH(QByteArray, line);
        QFETCH(StreamLine::Kind, kind);
        QFETCH(bool, corrupt);
        QFETCH(QString, reason);
        QFETCH(QString, type);
        StreamLineReader reader;
        const StreamLine parsed = reader.parse(line);
        QCOMPARE(parsed.kind, kind);
        QCOMPARE(parsed.corrupt, corrupt);
        QCOMPARE(parsed.isObject, kind == StreamLine::Json);
        QCOMPARE(parsed.type, type);
        if (kind == StreamLine::NotJson)
            QVERIFY2(parsed.error.contains(reason, Qt::CaseInsensitive), qPrintable(parsed.error));
        else
            QVERIFY(parsed.error.isEmpty());
        // The reader stays usable after any of these.
        QCOMPARE(reader.parse(QByteArray("{\"type\":\"user\"}")).type, QStringLiteral("user"));
    }

    void hugeLineParsesAndReaderStaysUsable()
    {
        const QByteArray payload(48 * 1024 * 1024, 'x');
        const QByteArray line = QByteArray("{\"type\":\"user\",\"uuid\":\"u-1\",\"data\":\"")
            + payload + QByteArray("\",\"session_id\":\"s-1\"}");
        StreamLineReader reader;
        const StreamLine big = reader.parse(line);
        QCOMPARE(big.kind, StreamLine::Json);
        QCOMPARE(big.type, QStringLiteral("user"));
        QCOMPARE(big.sessionId, QStringLiteral("s-1")); // a key after the huge value
        QCOMPARE(big.raw.size(), line.size());
        const StreamLine small = reader.parse(QByteArray("{\"type\":\"result\"}"));
        QCOMPARE(small.type, QStringLiteral("result"));
    }

    void lineAboveLimitIsRejectedUnparsed()
    {
        StreamLineReader reader(1024);
        QCOMPARE(reader.maxLineBytes(), qsizetype(1024));
        const QByteArray prefix("{\"type\":\"user\",\"text\":\"");
        const QByteArray fits = prefix + QByteArray(1024 - prefix.size() - 2, 'a') + "\"}";
        QCOMPARE(qsizetype(fits.size()), qsizetype(1024));
        QCOMPARE(reader.parse(fits).kind, StreamLine::Json);
        const QByteArray tooLong = prefix + QByteArray(2000, 'a') + "\"}";
        const StreamLine parsed = reader.parse(tooLong);
        QCOMPARE(parsed.kind, StreamLine::NotJson);
        QVERIFY2(parsed.error.contains(QStringLiteral("limit")), qPrintable(parsed.error));
        QCOMPARE(parsed.raw, tooLong);
    }

    void nonAsciiTextRoundTrips()
    {
        const QString line
            = QStringLiteral("{\"type\":\"assistant\",\"session_id\":\"s\",\"text\":\"")
            + QString::fromUtf8("h\303\251 \342\202\254 \360\237\230\200 ") + QChar(0xfffd)
            + QStringLiteral("\"}");
        StreamLineReader reader;
        const StreamLine parsed = reader.parse(line);
        QCOMPARE(parsed.kind, StreamLine::Json);
        QCOMPARE(parsed.type, QStringLiteral("assistant"));
        QCOMPARE(parsed.rawText(), line);
    }

    void escapedStringsAreDecoded()
    {
        StreamLineReader reader;
        const StreamLine parsed
            = reader.parse(QByteArray("{\"type\":\"a\\u00e9\\n\",\"uuid\":\"\\\"q\\\"\"}"));
        QCOMPARE(parsed.type, QString::fromUtf8("a\303\251\n"));
        QCOMPARE(parsed.uuid, QStringLiteral("\"q\""));
    }
};

QTEST_GUILESS_MAIN(TestStreamJson)
#include "tst_streamjson.moc"
