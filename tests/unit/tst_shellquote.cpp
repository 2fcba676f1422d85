// shell::quote must bring any argument through a REAL shell byte for byte: fixed nasty cases
// and seeded random strings are quoted, run through `bash -c 'printf %s <quoted>'` (and dash),
// nested twice the way open-terminal wraps a command, and compared with the original bytes.

#include "util/shellquote.h"

#include <QProcess>
#include <QRandomGenerator>
#include <QStandardPaths>
#include <QtTest/QTest>

using namespace sandscope;

namespace {

struct ShellRun {
    bool ok = false;
    QByteArray output;
    QByteArray error;
};

// `shell -c script` with the script as one argv element (the way commands reach a shell).
ShellRun runInShell(const QString &shell, const QString &script)
{
    QProcess process;
    process.start(shell, {QStringLiteral("-c"), script});
    ShellRun run;
    run.ok = process.waitForFinished(30000) && process.exitStatus() == QProcess::NormalExit
        && process.exitCode() == 0;
    run.output = process.readAllStandardOutput();
    run.error = process.readAllStandardError();
    return run;
}

// The script arrives as raw bytes on stdin, so bytes that are not UTF-8 reach the shell too.
ShellRun runScriptBytes(const QString &shell, const QByteArray &script)
{
    QProcess process;
    process.start(shell, {QStringLiteral("-s")});
    process.write(script);
    process.closeWriteChannel();
    ShellRun run;
    run.ok = process.waitForFinished(30000) && process.exitCode() == 0;
    run.output = process.readAllStandardOutput();
    run.error = process.readAllStandardError();
    return run;
}

QChar randomCharacterFrom(const QString &set, QRandomGenerator &random)
{
    return set.at(int(random.bounded(quint32(set.size()))));
}

// Valid UTF-16 (so valid UTF-8) text without NUL, biased towards what shells treat specially.
QString randomNastyText(QRandomGenerator &random, int length)
{
    static const QString specials = QStringLiteral("'\"\\$`!(){}[];&|<>*?~#=%^ \t\n\r")
        + QChar(0x1b) + QChar(0x7f) + QChar(0x2028) + QChar(0xfffd) + QChar(0x85) + QChar(0x301);
    QString text;
    while (text.size() < length) {
        switch (random.bounded(6)) {
        case 0:
            text += randomCharacterFrom(specials, random);
            break;
        case 1:
            text += QChar(ushort(1 + random.bounded(0x1f))); // C0 controls except NUL
            break;
        case 2:
            text += QChar(ushort(0x20 + random.bounded(0x5f))); // printable ASCII
            break;
        case 3: { // BMP outside the surrogate range
            ushort code = ushort(0xa0 + random.bounded(0xd800 - 0xa0));
            text += QChar(code);
            break;
        }
        case 4: { // astral plane, e.g. emoji
            const char32_t code = 0x10000 + random.bounded(0x10ffff - 0x10000);
            text += QString::fromUcs4(&code, 1);
            break;
        }
        default:
            text += QStringLiteral("$(touch /tmp/sandscope-pwned)`id`'\\''");
            break;
        }
    }
    return text;
}

} // namespace

class ShellQuoteTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void roundTripsThroughRealShells_data();
    void roundTripsThroughRealShells();
    void survivesTwoShellLayers_data();
    void survivesTwoShellLayers();
    void arbitraryBytesRoundTrip();
    void joinKeepsArgumentsApart();
    void commandLineRunsOneWordAsShellAndSeveralAsArgv_data();
    void commandLineRunsOneWordAsShellAndSeveralAsArgv();
    void quotedFormIsOneSingleQuotedWord();
    void rejectsOnlyNul();
    void oneArgvElementIsCappedAt128KiB();

private:
    void addCases();
};

void ShellQuoteTest::initTestCase()
{
    QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("bash")).isEmpty(), "bash is needed");
    QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("sh")).isEmpty(), "sh is needed");
}

void ShellQuoteTest::addCases()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("empty") << QString();
    QTest::newRow("single quote") << QStringLiteral("'");
    QTest::newRow("quotes only") << QStringLiteral("''\"\"'\"'");
    QTest::newRow("command substitution")
        << QStringLiteral("$(touch /tmp/sandscope-pwned) ${HOME}");
    QTest::newRow("backticks") << QStringLiteral("`id` \\`id\\`");
    QTest::newRow("history bang") << QStringLiteral("!! !$ !-1 !#");
    QTest::newRow("backslashes") << QStringLiteral("\\ \\\\ \\n \\' \\\"");
    QTest::newRow("newlines and CR") << QStringLiteral("\nfirst\r\nsecond\n\n");
    QTest::newRow("controls") << QStringLiteral("\x01\x02\x03\x04\x1b[31mred\x1b[0m\x7f\t\v\f");
    QTest::newRow("glob and operators") << QStringLiteral("* ? [a-z] ~ ; & | < > >> 2>&1 #");
    QTest::newRow("unicode") << QStringLiteral("é€😀 \u2028 \u2029 \ufeff \ufffd 中文 \u0301");
    QTest::newRow("heredoc-like") << QStringLiteral("<<EOF\n'\nEOF\n");
    QTest::newRow("leading dash") << QStringLiteral("-n -e --help");
    QTest::newRow("escape quote idiom") << QStringLiteral("'\\''");
    // 105 kB: with the quotes still below the 128 KiB an argv element may have.
    QTest::newRow("long (105 kB)") << QLatin1String("'")
            + QString(QStringLiteral("abcdefgh€ \n$`").repeated(7000)) + QLatin1String("'");
    for (quint32 seed = 1; seed <= 40; ++seed) {
        QRandomGenerator random(seed);
        const int length = seed % 10 == 0 ? 20000 : int(random.bounded(1, 400));
        QTest::newRow(qPrintable(QStringLiteral("random seed %1").arg(seed)))
            << randomNastyText(random, length);
    }
}

void ShellQuoteTest::roundTripsThroughRealShells_data()
{
    addCases();
}

void ShellQuoteTest::roundTripsThroughRealShells()
{
    QFETCH(QString, text);
    const QString script = QLatin1String("printf %s ") + shell::quote(text);
    for (const QString &shellName : {QStringLiteral("bash"), QStringLiteral("sh")}) {
        const ShellRun run = runInShell(shellName, script);
        QVERIFY2(run.ok, run.error.constData());
        QCOMPARE(run.output, text.toUtf8());
    }
}

void ShellQuoteTest::survivesTwoShellLayers_data()
{
    addCases();
}

// open-terminal runs `sudo -u acct -- bash -c 'cd <cwd> && <command>'`: our command is itself
// an argument of a second shell, so a quoted word inside it must survive being quoted again.
void ShellQuoteTest::survivesTwoShellLayers()
{
    QFETCH(QString, text);
    const QString inner = QLatin1String("cd / && printf %s ") + shell::quote(text);
    const QString outer = QLatin1String("bash -c ") + shell::quote(inner);
    const ShellRun run = runInShell(QStringLiteral("sh"), outer);
    QVERIFY2(run.ok, run.error.constData());
    QCOMPARE(run.output, text.toUtf8());
}

void ShellQuoteTest::arbitraryBytesRoundTrip()
{
    QRandomGenerator random(4242);
    for (int round = 0; round < 30; ++round) {
        QByteArray bytes;
        const int length = int(random.bounded(1, 3000));
        for (int i = 0; i < length; ++i)
            bytes.append(char(1 + random.bounded(255))); // any byte but NUL, invalid UTF-8 too
        const QByteArray script = "printf %s " + shell::quote(bytes);
        for (const QString &shellName : {QStringLiteral("bash"), QStringLiteral("sh")}) {
            const ShellRun run = runScriptBytes(shellName, script);
            QVERIFY2(run.ok, run.error.constData());
            QCOMPARE(run.output, bytes);
        }
    }
}

void ShellQuoteTest::joinKeepsArgumentsApart()
{
    const QStringList arguments {QString(), QStringLiteral("two words"), QStringLiteral("it's"),
        QStringLiteral("line\nbreak"), QStringLiteral("$(x) `y` !z"), QStringLiteral("-e")};
    const ShellRun run = runInShell(
        QStringLiteral("bash"), QLatin1String("printf '%s\\0' ") + shell::join(arguments));
    QVERIFY2(run.ok, run.error.constData());
    QByteArray expected;
    for (const QString &argument : arguments)
        expected += argument.toUtf8() + '\0';
    QCOMPARE(run.output, expected);
}

void ShellQuoteTest::commandLineRunsOneWordAsShellAndSeveralAsArgv_data()
{
    QTest::addColumn<QStringList>("words");
    QTest::addColumn<QByteArray>("output");
    QTest::addColumn<int>("exitCode");
    // What `sandscope exec -- WORDS` runs, as a shell runs it (the way open-terminal does).
    QTest::newRow("one word is a shell command line")
        << QStringList {QStringLiteral("printf '%s|' a \"b c\"; exit 3")} << QByteArray("a|b c|")
        << 3;
    QTest::newRow("sh -c keeps its script as one word")
        << QStringList {QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("exit 7")}
        << QByteArray() << 7;
    QTest::newRow("a word with a space stays one argument") << QStringList {
        QStringLiteral("printf"), QStringLiteral("<%s>"), QStringLiteral("my dir"),
        QStringLiteral("x")} << QByteArray("<my dir><x>") << 0;
    QTest::newRow("operators are arguments, not syntax")
        << QStringList {QStringLiteral("printf"), QStringLiteral("%s,"), QStringLiteral(";"),
               QStringLiteral("|"), QStringLiteral("$HOME"), QStringLiteral("it's")}
        << QByteArray(";,|,$HOME,it's,") << 0;
}

void ShellQuoteTest::commandLineRunsOneWordAsShellAndSeveralAsArgv()
{
    QFETCH(QStringList, words);
    QFETCH(QByteArray, output);
    QFETCH(int, exitCode);
    QProcess process;
    process.start(QStringLiteral("sh"), {QStringLiteral("-c"), shell::commandLine(words)});
    QVERIFY(process.waitForFinished(30000));
    QCOMPARE(process.readAllStandardOutput(), output);
    QCOMPARE(process.exitCode(), exitCode);
}

// The fuzz target checks the same invariants on arbitrary input.
void ShellQuoteTest::quotedFormIsOneSingleQuotedWord()
{
    QCOMPARE(shell::quote(QString()), QStringLiteral("''"));
    QCOMPARE(shell::quote(QStringLiteral("it's")), QStringLiteral("'it'\\''s'"));
    const QString quoted = shell::quote(QStringLiteral("a'b'c"));
    QVERIFY(quoted.startsWith(QLatin1Char('\'')) && quoted.endsWith(QLatin1Char('\'')));
    QCOMPARE(shell::quote(QByteArray("x'y")), QByteArray("'x'\\''y'"));
}

void ShellQuoteTest::rejectsOnlyNul()
{
    QVERIFY(shell::isPassable(QStringLiteral("anything \n '\" $ ` ! é")));
    QVERIFY(!shell::isPassable(QStringLiteral("a") + QChar(0) + QStringLiteral("b")));
}

// Why prompts travel as files: Linux refuses a single argv element over 128 KiB
// (MAX_ARG_STRLEN), whatever the total argument space is.
void ShellQuoteTest::oneArgvElementIsCappedAt128KiB()
{
    const QString fits
        = QLatin1String("printf %s ") + shell::quote(QString(120 * 1024, QLatin1Char('a')));
    QVERIFY(runInShell(QStringLiteral("sh"), fits).ok);
    const QString tooLong
        = QLatin1String("printf %s ") + shell::quote(QString(130 * 1024, QLatin1Char('a')));
    QVERIFY(!runInShell(QStringLiteral("sh"), tooLong).ok);
}

QTEST_GUILESS_MAIN(ShellQuoteTest)
#include "tst_shellquote.moc"
