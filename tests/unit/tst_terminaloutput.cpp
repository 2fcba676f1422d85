// The command line's text output is safe for a terminal (issue 27): a capture whose session id,
// tool inputs, outputs and file names hold escape sequences, C0/C1 controls, bidi overrides
// and line breaks is replayed and compared; nothing of it reaches stdout or stderr raw (no ESC,
// BEL, CR, C1 control or U+202E), the session id's line break does not split its row, and
// --json keeps the text exact.

#include "capturelines.h"
#include "sandscopecli.h"
#include "testing.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest/QTest>

using namespace sandscope;

namespace {

const QString hostile = QStringLiteral("ls\x1b]0;pwned\x07\x1b[2J\rX") + QChar(0x9b)
    + QStringLiteral("31m") + QChar(0x202e) + QStringLiteral("txt.exe\nsecond line");

QByteArray hostileCapture()
{
    namespace c = test::capture;
    const QString session = QStringLiteral("s1\n\x1b[31mFAKE ROW");
    return c::systemInit(session, hostile)
        + c::assistant(session,
            {c::textBlock(hostile),
                c::toolUseBlock(QStringLiteral("toolu_1"), hostile,
                    {{QStringLiteral("command"), hostile},
                        {QStringLiteral("file_path"), hostile}})})
        + c::toolResult(session, QStringLiteral("toolu_1"), hostile, true)
        + c::result(session, hostile, true, hostile);
}

} // namespace

class TestTerminalOutput : public QObject {
    Q_OBJECT

private slots:
    void textOutputIsSafe_data();
    void textOutputIsSafe();
    void jsonStaysExact();

private:
    QTemporaryDir m_dir;
    QString capture()
    {
        const QString path = m_dir.filePath(QStringLiteral("hostile.jsonl"));
        QFile file(path);
        if (!file.exists() && file.open(QIODevice::WriteOnly))
            file.write(hostileCapture());
        return path;
    }
};

void TestTerminalOutput::textOutputIsSafe_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::newRow("replay") << QStringList {QStringLiteral("replay"), QStringLiteral("@")};
    QTest::newRow("replay summary")
        << QStringList {QStringLiteral("replay"), QStringLiteral("@"), QStringLiteral("--summary")};
    QTest::newRow("compare") << QStringList {
        QStringLiteral("compare"), QStringLiteral("@"), QStringLiteral("@")};
}

void TestTerminalOutput::textOutputIsSafe()
{
    QFETCH(QStringList, arguments);
    arguments.replaceInStrings(QStringLiteral("@"), capture());
    const test::CliOutcome outcome = test::runSandscope(arguments);
    QVERIFY(outcome.exitCode >= 0);
    QVERIFY(!outcome.out.isEmpty());
    QVERIFY2(test::terminalActiveIn(outcome.out).isEmpty(),
        qPrintable(test::terminalActiveIn(outcome.out)));
    QVERIFY2(test::terminalActiveIn(outcome.err).isEmpty(),
        qPrintable(test::terminalActiveIn(outcome.err)));
    // The session id's line break does not start a row of its own.
    for (const QByteArray &line : outcome.out.split('\n'))
        QVERIFY2(!line.startsWith("\\e[31mFAKE ROW") && !line.startsWith("FAKE ROW"),
            outcome.out.constData());
}

void TestTerminalOutput::jsonStaysExact()
{
    const test::CliOutcome outcome
        = test::runSandscope({QStringLiteral("replay"), capture(), QStringLiteral("--json")});
    QVERIFY(outcome.exitCode >= 0);
    const QJsonObject summary = QJsonDocument::fromJson(outcome.out).object();
    QCOMPARE(summary.value(QStringLiteral("session_id")).toString(),
        QStringLiteral("s1\n\x1b[31mFAKE ROW"));
    QCOMPARE(summary.value(QStringLiteral("result_subtype")).toString(), hostile);
}

QTEST_GUILESS_MAIN(TestTerminalOutput)
#include "tst_terminaloutput.moc"
