// `sandscope export` run as a process: every capture and transcript exports to each format
// with exit 0; the JSON export replays (`sandscope replay`) to the same outline and summary as
// the original and `sandscope compare` finds them alike; secrets are masked unless
// --no-redact; output goes to stdout without -o; the format follows -o's suffix; usage errors exit
// 2, unreadable input and unwritable output 1, and a failed write leaves an existing file as it
// was.

#include "exportfixture.h"
#include "sandscopecli.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest/QTest>

using namespace sandscope;
using Outcome = sandscope::test::CliOutcome;
using sandscope::test::runSandscope;

namespace {

QString dataPath(const QString &relative)
{
    return QStringLiteral(SANDSCOPE_TEST_DATA_DIR) + QLatin1Char('/') + relative;
}

QByteArray contents(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TestExportVerb : public QObject {
    Q_OBJECT

private slots:
    void exportsAndReplaysTheSame_data();
    void exportsAndReplaysTheSame();
    void redactsUnlessTold();
    void formatFromSuffixAndStdout();
    void errors_data();
    void errors();
    void failedWriteKeepsTheOldFile();
};

void TestExportVerb::exportsAndReplaysTheSame_data()
{
    QTest::addColumn<QString>("file");
    for (const QString &file : test::exportableRunFiles())
        QTest::newRow(qPrintable(file)) << file;
}

void TestExportVerb::exportsAndReplaysTheSame()
{
    QFETCH(QString, file);
    QTemporaryDir dir;
    const QString json = dir.filePath(QStringLiteral("run.json"));
    Outcome exported
        = runSandscope({QStringLiteral("export"), dataPath(file), QStringLiteral("--format"),
            QStringLiteral("json"), QStringLiteral("-o"), json, QStringLiteral("--no-redact")});
    QCOMPARE(exported.exitCode, 0);
    QVERIFY(exported.out.isEmpty());
    QVERIFY(QJsonDocument::fromJson(contents(json))
                .object()
                .value(QStringLiteral("sandscope_export"))
                .toInt()
        == 1);

    // The replay of the export is the replay of the run: outline, summary and exit code.
    const Outcome original = runSandscope({QStringLiteral("replay"), dataPath(file)});
    const Outcome again = runSandscope({QStringLiteral("replay"), json});
    QVERIFY(!original.out.isEmpty());
    QCOMPARE(again.out, original.out);
    QCOMPARE(again.exitCode, original.exitCode);
    const Outcome originalJson
        = runSandscope({QStringLiteral("replay"), dataPath(file), QStringLiteral("--json")});
    const Outcome againJson
        = runSandscope({QStringLiteral("replay"), json, QStringLiteral("--json")});
    QCOMPARE(againJson.out, originalJson.out);

    // And `compare` finds the run and its export alike.
    const Outcome compared = runSandscope({QStringLiteral("compare"), dataPath(file), json});
    QVERIFY2(compared.exitCode == 0, compared.out.constData());

    for (const char *format : {"html", "md"}) {
        const Outcome other = runSandscope({QStringLiteral("export"), dataPath(file),
            QStringLiteral("--format"), QLatin1String(format)});
        QCOMPARE(other.exitCode, 0);
        QVERIFY(!other.out.isEmpty());
    }
    // Re-exporting the export works too.
    QCOMPARE(runSandscope({QStringLiteral("export"), json, QStringLiteral("--format"),
                              QStringLiteral("html"), QStringLiteral("-o"),
                              dir.filePath(QStringLiteral("again.html"))})
                 .exitCode,
        0);
}

void TestExportVerb::redactsUnlessTold()
{
    QTemporaryDir dir;
    const QString capture = test::writePlantedCapture(dir.path());
    QVERIFY(!capture.isEmpty());
    for (const char *format : {"html", "md", "json"}) {
        const Outcome masked = runSandscope(
            {QStringLiteral("export"), capture, QStringLiteral("--format"), QLatin1String(format)});
        QCOMPARE(masked.exitCode, 0);
        QVERIFY(!masked.out.contains(test::plantedKey));
        QVERIFY(!masked.out.contains(test::plantedToken));
        const Outcome plain = runSandscope({QStringLiteral("export"), capture,
            QStringLiteral("--format"), QLatin1String(format), QStringLiteral("--no-redact")});
        QCOMPARE(plain.exitCode, 0);
        QVERIFY(plain.out.contains(test::plantedKey));
        QVERIFY(plain.out.contains(test::plantedLine));
    }
}

void TestExportVerb::formatFromSuffixAndStdout()
{
    QTemporaryDir dir;
    const QString capture = dataPath(QStringLiteral("stream-subagent.jsonl"));
    const QString md = dir.filePath(QStringLiteral("run.md"));
    QCOMPARE(
        runSandscope({QStringLiteral("export"), capture, QStringLiteral("-o"), md}).exitCode, 0);
    QVERIFY(contents(md).startsWith("# Sandscope run"));
    const Outcome toStdout
        = runSandscope({QStringLiteral("export"), capture, QStringLiteral("--format"),
            QStringLiteral("html"), QStringLiteral("-o"), QStringLiteral("-")});
    QCOMPARE(toStdout.exitCode, 0);
    QVERIFY(toStdout.out.startsWith("<!DOCTYPE html>"));
    const Outcome help = runSandscope({QStringLiteral("export"), QStringLiteral("--help")});
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.contains("--no-redact"));
    QVERIFY(runSandscope({QStringLiteral("--help")}).out.contains("  export "));
}

void TestExportVerb::errors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    const QString capture = dataPath(QStringLiteral("stream-basic.jsonl"));
    QTest::newRow("no input") << QStringList {QStringLiteral("--format"), QStringLiteral("html")}
                              << 2 << "needs an INPUT";
    QTest::newRow("two inputs") << QStringList {capture, capture, QStringLiteral("--format"),
        QStringLiteral("md")} << 2
                                << "one INPUT";
    QTest::newRow("no format") << QStringList {capture} << 2 << "--format";
    QTest::newRow("bad format") << QStringList {capture, QStringLiteral("--format"),
        QStringLiteral("pdf")} << 2
                                << "unknown format";
    QTest::newRow("unknown option")
        << QStringList {capture, QStringLiteral("--bogus")} << 2 << "bogus";
    QTest::newRow("missing input") << QStringList {QStringLiteral("/nonexistent/run.jsonl"),
        QStringLiteral("--format"), QStringLiteral("html")}
                                   << 1 << "/nonexistent/run.jsonl";
    QTest::newRow("unwritable output") << QStringList {capture, QStringLiteral("--format"),
        QStringLiteral("html"), QStringLiteral("-o"), QStringLiteral("/nonexistent-dir/run.html")}
                                       << 1 << "/nonexistent-dir/run.html";
    QTest::newRow("session without server") << QStringList {QStringLiteral("--user"),
        QStringLiteral("alice"), QStringLiteral("--format"), QStringLiteral("html")}
                                            << 2 << "";
}

void TestExportVerb::errors()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    const Outcome outcome = runSandscope(QStringList {QStringLiteral("export")} + arguments);
    QCOMPARE(outcome.exitCode, exitCode);
    QVERIFY(outcome.out.isEmpty());
    QVERIFY2(outcome.err.contains(message.toUtf8()), outcome.err.constData());
}

void TestExportVerb::failedWriteKeepsTheOldFile()
{
    QTemporaryDir dir;
    const QString target = dir.filePath(QStringLiteral("run.html"));
    QFile file(target);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("previous export");
    file.close();
    // The input cannot be read: the target stays as it was.
    QCOMPARE(runSandscope({QStringLiteral("export"), QStringLiteral("/nonexistent/run.jsonl"),
                              QStringLiteral("-o"), target})
                 .exitCode,
        1);
    QCOMPARE(contents(target), QByteArray("previous export"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList {QStringLiteral("run.html")});
}

QTEST_GUILESS_MAIN(TestExportVerb)
#include "tst_exportverb.moc"
