// Exports of hostile content (issue 27): a Markdown export cannot be broken out of (a session id
// with a line break and an <img>, a bare \r ending a list item and its fence, backtick runs
// longer than the fence, heading-like lines); bidirectional overrides and C1 controls show as
// <U+202E> in the HTML and Markdown exports while the JSON export keeps the text exact; and an
// export names a local source by its file name, not the exporter's home path.

#include "capturelines.h"
#include "export/runexporter.h"
#include "exportfixture.h"
#include "sandscopecli.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest/QTest>

using namespace sandscope;

namespace {

const QString rlo = QString(QChar(0x202e));

// A capture whose session id, tool name, file path, command and output are the given texts.
QByteArray hostileCapture(const QString &session, const QString &hostile)
{
    namespace c = test::capture;
    QByteArray out = c::systemInit(session)
        + c::assistant(session,
            {c::textBlock(hostile),
                c::toolUseBlock(QStringLiteral("toolu_1"), QStringLiteral("Read"),
                    {{QStringLiteral("file_path"), hostile}}),
                c::toolUseBlock(QStringLiteral("toolu_2"), QStringLiteral("Bash"),
                    {{QStringLiteral("command"), hostile}})});
    for (const char *id : {"toolu_1", "toolu_2"})
        out += c::toolResult(session, QLatin1String(id), hostile);
    return out;
}

QByteArray exportOf(const QByteArray &capture, RunExporter::Format format)
{
    const QList<QByteArray> exports = test::exportsOfCapture(capture);
    return exports.size() == 3 ? exports.at(int(format)) : QByteArray();
}

// The lines of a Markdown document outside fenced code blocks; false when a fence stays open.
bool linesOutsideFences(const QString &markdown, QStringList *outside)
{
    static const QRegularExpression fence(QStringLiteral("^\\s*(`{3,})"));
    int open = 0;
    for (const QString &line : markdown.split(QLatin1Char('\n'))) {
        const QRegularExpressionMatch match = fence.match(line);
        if (open == 0 && match.hasMatch()) {
            open = int(match.capturedLength(1));
        } else if (open > 0 && match.hasMatch() && line.trimmed().size() >= open
            && line.trimmed() == QString(line.trimmed().size(), QLatin1Char('`'))) {
            open = 0;
        } else if (open == 0) {
            outside->append(line);
        }
    }
    return open == 0;
}

} // namespace

class TestExportEscaping : public QObject {
    Q_OBJECT

private slots:
    void markdownCannotBeBrokenOutOf_data();
    void markdownCannotBeBrokenOutOf();
    void invisibleCharactersShowInDocumentsOnly();
    void sourceIsTheFileName();
};

void TestExportEscaping::markdownCannotBeBrokenOutOf_data()
{
    QTest::addColumn<QString>("hostile");
    QTest::newRow("newline and img") << "x\n<img src=x onerror=alert(1)>\n# Owned\n";
    QTest::newRow("bare cr") << "item\r```\r# Owned\r<img src=x>\r- [link](javascript:alert(1))";
    QTest::newRow("crlf") << "a\r\n```\r\n# Owned\r\n";
    QTest::newRow("long backticks") << "``````````\n# Owned\n``````````\n<img src=x>";
    QTest::newRow("table pipe") << "| Outcome | <img src=x> |\n# Owned";
}

void TestExportEscaping::markdownCannotBeBrokenOutOf()
{
    QFETCH(QString, hostile);
    const QString markdown = QString::fromUtf8(
        exportOf(hostileCapture(hostile, hostile), RunExporter::Format::Markdown));
    QVERIFY(!markdown.isEmpty());
    QVERIFY2(!markdown.contains(QLatin1Char('\r')), qPrintable(markdown));
    QStringList outside;
    QVERIFY2(linesOutsideFences(markdown, &outside), qPrintable(markdown));
    int titles = 0;
    for (QString line : std::as_const(outside)) {
        line.remove(QStringLiteral("<sub>")).remove(QStringLiteral("</sub>")); // the writer's own
        QVERIFY2(!line.startsWith(QLatin1String("# Owned")), qPrintable(markdown));
        titles += line.startsWith(QLatin1String("# ")) ? 1 : 0;
        // Every '<' outside code is escaped, so no tag is made.
        for (qsizetype at = line.indexOf(QLatin1Char('<')); at >= 0;
             at = line.indexOf(QLatin1Char('<'), at + 1))
            QVERIFY2(at > 0 && line.at(at - 1) == QLatin1Char('\\'), qPrintable(line));
        // A table row has exactly the two cells it was given.
        if (line.startsWith(QLatin1String("| ")))
            QCOMPARE(line.count(QRegularExpression(QStringLiteral("(?<!\\\\)\\|"))), 3);
    }
    QCOMPARE(titles, 1);
}

void TestExportEscaping::invisibleCharactersShowInDocumentsOnly()
{
    const QString name = QStringLiteral("invoice") + rlo + QStringLiteral("fdp.exe") + QChar(0x9b)
        + QStringLiteral("31m");
    const QByteArray capture = hostileCapture(QStringLiteral("s1"), name);
    const QString markdown = QString::fromUtf8(exportOf(capture, RunExporter::Format::Markdown));
    const QString html = QString::fromUtf8(exportOf(capture, RunExporter::Format::Html));
    for (const QString &document : {markdown, html}) {
        QVERIFY(!document.isEmpty());
        QVERIFY(!document.contains(rlo));
        QVERIFY(!document.contains(QChar(0x9b)));
    }
    QVERIFY(markdown.contains(QLatin1String("<U+202E>")));
    QVERIFY(html.contains(QLatin1String("&lt;U+202E&gt;")));
    QVERIFY(html.contains(QLatin1String("&lt;U+009B&gt;")));
    // The JSON export is data: it keeps the text exact, to be opened again.
    const QJsonDocument json
        = QJsonDocument::fromJson(exportOf(capture, RunExporter::Format::Json));
    QVERIFY(json.isObject());
    QVERIFY(QString::fromUtf8(json.toJson()).contains(name));
}

void TestExportEscaping::sourceIsTheFileName()
{
    // A folder name no format escapes, so its absence means something.
    QTemporaryDir dir(QDir::tempPath() + QStringLiteral("/exportsourceXXXXXX"));
    const QString path = dir.filePath(QStringLiteral("capture.jsonl"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(hostileCapture(QStringLiteral("s1"), QStringLiteral("ls")));
    file.close();
    for (const char *format : {"md", "html", "json"}) {
        const test::CliOutcome named = test::runSandscope(
            {QStringLiteral("export"), path, QStringLiteral("--format"), QLatin1String(format)});
        QCOMPARE(named.exitCode, 0);
        QVERIFY(named.out.contains("capture.jsonl"));
        QVERIFY2(!named.out.contains(dir.path().toUtf8()), format);
        const test::CliOutcome full
            = test::runSandscope({QStringLiteral("export"), path, QStringLiteral("--format"),
                QLatin1String(format), QStringLiteral("--full-source-path")});
        QCOMPARE(full.exitCode, 0);
        QVERIFY2(full.out.contains(QFileInfo(path).absoluteFilePath().toUtf8()), format);
    }
}

QTEST_GUILESS_MAIN(TestExportEscaping)
#include "tst_exportescaping.moc"
