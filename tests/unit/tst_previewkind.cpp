// choosePreview: magic numbers beat the file name (PNG bytes named .txt are an image), the name
// picks among text formats, Claude stream-json logs are recognised, and the UTF-8 checks the
// text preview relies on accept exactly valid UTF-8.

#include "previews/previewkind.h"

#include <QtTest/QTest>

using sandscope::PreviewKind;

Q_DECLARE_METATYPE(sandscope::PreviewKind)

namespace {

// The whole literal, embedded NULs included, without its terminating NUL.
template <int N> QByteArray bytes(const char (&data)[N])
{
    return QByteArray(data, N - 1);
}

const QByteArray pngHead = bytes("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0");
const QByteArray jpegHead = bytes("\xff\xd8\xff\xe0\0\x10JFIF\0\x01\x01\0\0\x01\0\x01\0\0");
const QByteArray gifHead = QByteArrayLiteral("GIF89a\x10\0\x10\0\x80\0\0");
const QByteArray webpHead = bytes("RIFF\x24\0\0\0WEBPVP8 \x18\0\0\0");
const QByteArray pdfHead
    = QByteArrayLiteral("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n");
const QByteArray svgText = QByteArrayLiteral(
    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"><rect/></svg>\n");
const QByteArray elfHead = bytes("\x7f"
                                 "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x02\0\x3e\0");
const QByteArray zipHead = bytes("PK\x03\x04\x14\0\0\0\x08\0");
const QByteArray streamLines
    = QByteArrayLiteral("{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s1\"}\n"
                        "{\"type\":\"assistant\",\"message\":{\"content\":[]}}\n"
                        "{\"type\":\"result\",\"subtype\":\"success\"}\n");

} // namespace

class TestPreviewKind : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void choosesByNameAndContent_data()
    {
        QTest::addColumn<QString>("fileName");
        QTest::addColumn<QByteArray>("head");
        QTest::addColumn<PreviewKind>("kind");

        const auto name = [](const char *text) {
            return QString::fromUtf8(text);
        };
        // Content decides.
        QTest::newRow("png") << name("a.png") << pngHead << PreviewKind::Image;
        QTest::newRow("png bytes named .txt") << name("notes.txt") << pngHead << PreviewKind::Image;
        QTest::newRow("jpeg without suffix") << name("photo") << jpegHead << PreviewKind::Image;
        QTest::newRow("gif named .json") << name("x.json") << gifHead << PreviewKind::Image;
        QTest::newRow("webp") << name("a.webp") << webpHead << PreviewKind::Image;
        QTest::newRow("pdf named .md") << name("report.md") << pdfHead << PreviewKind::Pdf;
        QTest::newRow("svg content without suffix")
            << name("drawing") << svgText << PreviewKind::Svg;
        QTest::newRow("elf named .txt") << name("tool.txt") << elfHead << PreviewKind::Binary;
        QTest::newRow("zip") << name("a.zip") << zipHead << PreviewKind::Binary;
        QTest::newRow("NUL bytes without suffix")
            << name("blob") << bytes("\0\x01\x02\x03") << PreviewKind::Binary;
        // Text content: the name picks the format.
        QTest::newRow("svg by name") << name("icon.svg") << svgText << PreviewKind::Svg;
        QTest::newRow("markdown") << name("README.md") << QByteArray("# Title\n\ntext\n")
                                  << PreviewKind::Markdown;
        QTest::newRow("json") << name("package.json") << QByteArray("{\"a\": 1}\n")
                              << PreviewKind::Json;
        QTest::newRow("csv") << name("data.csv") << QByteArray("a,b\n1,2\n") << PreviewKind::Csv;
        QTest::newRow("tsv") << name("data.tsv") << QByteArray("a\tb\n") << PreviewKind::Tsv;
        QTest::newRow("c++") << name("main.cpp") << QByteArray("int main() {}\n")
                             << PreviewKind::Text;
        QTest::newRow("python script without suffix")
            << name("run") << QByteArray("#!/usr/bin/env python3\nprint(1)\n") << PreviewKind::Text;
        QTest::newRow("text without suffix")
            << name("LICENSE") << QByteArray("MIT License\n") << PreviewKind::Text;
        QTest::newRow("invalid UTF-8 text stays text")
            << name("latin1.txt") << QByteArray("caf\xe9 cr\xe8me\n") << PreviewKind::Text;
        QTest::newRow("empty file") << name("empty.dat") << QByteArray() << PreviewKind::Text;
        // The name promises a binary format the content does not have: its decoder reports it.
        QTest::newRow("text named .png")
            << name("fake.png") << QByteArray("hello\n") << PreviewKind::Image;
        QTest::newRow("text named .pdf")
            << name("fake.pdf") << QByteArray("hello\n") << PreviewKind::Pdf;
        // Claude stream-json logs.
        QTest::newRow("stream jsonl") << name("run.jsonl") << streamLines << PreviewKind::RunStream;
        QTest::newRow("stream saved as .log")
            << name("claude.log") << streamLines << PreviewKind::RunStream;
        QTest::newRow("stream saved as .json")
            << name("run.json") << streamLines << PreviewKind::RunStream;
        QTest::newRow("other jsonl")
            << name("events.jsonl") << QByteArray("{\"type\":\"click\"}\n{\"type\":\"view\"}\n")
            << PreviewKind::Text;
        QTest::newRow("single event object in .json is JSON")
            << name("one.json") << QByteArray("{\"type\":\"result\"}\n") << PreviewKind::Json;
    }

    void choosesByNameAndContent()
    {
        QFETCH(QString, fileName);
        QFETCH(QByteArray, head);
        QFETCH(PreviewKind, kind);
        const sandscope::PreviewChoice choice = sandscope::choosePreview(fileName, head);
        QVERIFY2(choice.kind == kind,
            qPrintable(QStringLiteral("got %1 (%2)")
                           .arg(sandscope::previewKindName(choice.kind), choice.mimeType)));
        QVERIFY(!choice.mimeType.isEmpty());
    }

    void reportsContentMimeType()
    {
        QCOMPARE(sandscope::choosePreview(QStringLiteral("x.txt"), pngHead).mimeType,
            QStringLiteral("image/png"));
        QCOMPARE(sandscope::choosePreview(QStringLiteral("x"), pdfHead).mimeType,
            QStringLiteral("application/pdf"));
    }

    void textFromTheServerIsNeverBinary_data()
    {
        QTest::addColumn<QString>("fileName");
        QTest::addColumn<QString>("text");
        QTest::addColumn<PreviewKind>("kind");
        QTest::newRow("pdf extracted as text")
            << QStringLiteral("paper.pdf") << QStringLiteral("Abstract\n") << PreviewKind::Text;
        QTest::newRow("markdown") << QStringLiteral("a.md") << QStringLiteral("# x\n")
                                  << PreviewKind::Markdown;
        QTest::newRow("svg") << QString::fromUtf8("a.svg") << QString::fromUtf8(svgText)
                             << PreviewKind::Svg;
        QTest::newRow("stream") << QStringLiteral("run.jsonl") << QString::fromUtf8(streamLines)
                                << PreviewKind::RunStream;
        QTest::newRow("unknown binary suffix")
            << QStringLiteral("x.bin") << QStringLiteral("abc") << PreviewKind::Text;
    }

    void textFromTheServerIsNeverBinary()
    {
        QFETCH(QString, fileName);
        QFETCH(QString, text);
        QFETCH(PreviewKind, kind);
        QCOMPARE(sandscope::choosePreviewForText(fileName, text).kind, kind);
    }

    void streamDetectionToleratesCutLastLine()
    {
        const QByteArray cut = streamLines + QByteArray("{\"type\":\"assis");
        QVERIFY(sandscope::looksLikeClaudeStream(cut));
        QVERIFY2(!sandscope::looksLikeClaudeStream(QByteArray("{\"type\":\"assis")),
            "a lone broken line is no evidence");
        QVERIFY(!sandscope::looksLikeClaudeStream(QByteArray("[1,2]\n")));
        QVERIFY(!sandscope::looksLikeClaudeStream(streamLines + QByteArray("not json\nmore\n")));
        QVERIFY(!sandscope::looksLikeClaudeStream(QByteArray()));
    }

    void validatesUtf8_data()
    {
        QTest::addColumn<QByteArray>("data");
        QTest::addColumn<bool>("allowTruncatedTail");
        QTest::addColumn<int>("offset");
        QTest::newRow("ascii") << QByteArray("plain") << false << -1;
        QTest::newRow("multibyte") << QByteArray("gr\xc3\xb6\xc3\x9f"
                                                 "e \xe2\x82\xac \xf0\x9f\x98\x80")
                                   << false << -1;
        QTest::newRow("latin1 byte") << QByteArray("caf\xe9!") << false << 3;
        QTest::newRow("stray continuation") << QByteArray("ab\x80") << false << 2;
        QTest::newRow("overlong two-byte") << QByteArray("\xc0\xaf") << false << 0;
        QTest::newRow("overlong three-byte") << QByteArray("x\xe0\x80\xaf") << false << 1;
        QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80") << false << 0;
        QTest::newRow("above U+10FFFF") << QByteArray("\xf4\x90\x80\x80") << false << 0;
        QTest::newRow("bad continuation") << QByteArray("\xe2\x28\xa1") << false << 0;
        QTest::newRow("truncated tail, strict") << QByteArray("ok\xe2\x82") << false << 2;
        QTest::newRow("truncated tail, prefix") << QByteArray("ok\xe2\x82") << true << -1;
        QTest::newRow("truncated in the middle") << QByteArray("\xe2\x82zz") << true << 0;
    }

    void validatesUtf8()
    {
        QFETCH(QByteArray, data);
        QFETCH(bool, allowTruncatedTail);
        QFETCH(int, offset);
        QCOMPARE(sandscope::firstInvalidUtf8Offset(data, allowTruncatedTail), qsizetype(offset));
    }

    void forbiddenNamesTheOwningAccount_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("detail");
        QTest::addColumn<QString>("owner");
        QTest::newRow("owner from the server's detail")
            << QStringLiteral("/home/bob/notes.txt")
            << QStringLiteral("Access denied: /home/bob belongs to another user")
            << QStringLiteral("bob");
        QTest::newRow("owner from the path when the detail has none") << QStringLiteral(
            "/home/carol/a/b.md") << QStringLiteral("Access denied") << QStringLiteral("carol");
    }

    void forbiddenNamesTheOwningAccount()
    {
        QFETCH(QString, path);
        QFETCH(QString, detail);
        QFETCH(QString, owner);
        sandscope::ApiError error;
        error.kind = sandscope::ApiError::Kind::Forbidden;
        error.httpStatus = 403;
        error.detail = detail;
        const QString text = sandscope::describePreviewFailure(path, error);
        QVERIFY2(text.contains(QStringLiteral("\u201c") + owner + QStringLiteral("\u201d")),
            qPrintable(text));
        QVERIFY(text.contains(path));
    }

    void forbiddenOutsideHomeQuotesTheReason()
    {
        sandscope::ApiError error;
        error.kind = sandscope::ApiError::Kind::Forbidden;
        error.detail = QStringLiteral("Permission denied: '/etc/shadow'");
        const QString text
            = sandscope::describePreviewFailure(QStringLiteral("/etc/shadow"), error);
        QVERIFY2(text.contains(QLatin1String("not allowed")), qPrintable(text));
        QVERIFY(text.contains(error.detail));
    }

    void unsupportedMediaTypeSaysRawBytesAreNeeded()
    {
        sandscope::ApiError error;
        error.kind = sandscope::ApiError::Kind::UnsupportedMediaType;
        error.httpStatus = 415;
        error.detail = QStringLiteral("Unsupported binary file type: application/zip (120 bytes)");
        const QString text = sandscope::describePreviewFailure(QStringLiteral("/tmp/a.zip"), error);
        QVERIFY2(text.contains(QLatin1String("raw bytes")), qPrintable(text));
        QVERIFY(text.contains(error.detail));
    }

    void completeUtf8LengthDropsOnlyACutSequence_data()
    {
        QTest::addColumn<QByteArray>("data");
        QTest::addColumn<int>("length");
        QTest::newRow("ascii") << QByteArray("abc") << 3;
        QTest::newRow("complete euro") << QByteArray("a\xe2\x82\xac") << 4;
        QTest::newRow("euro cut after 2") << QByteArray("a\xe2\x82") << 1;
        QTest::newRow("euro cut after 1") << QByteArray("a\xe2") << 1;
        QTest::newRow("emoji cut after 3") << QByteArray("a\xf0\x9f\x98") << 1;
        QTest::newRow("complete emoji") << QByteArray("\xf0\x9f\x98\x80") << 4;
        QTest::newRow("empty") << QByteArray() << 0;
    }

    void completeUtf8LengthDropsOnlyACutSequence()
    {
        QFETCH(QByteArray, data);
        QFETCH(int, length);
        QCOMPARE(sandscope::completeUtf8Length(data), qsizetype(length));
    }
};

QTEST_GUILESS_MAIN(TestPreviewKind)
#include "tst_previewkind.moc"
