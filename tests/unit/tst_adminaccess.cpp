// The admin channel: the "Admin command" prefix is split like a shell would split it and never
// run through one; the command lines for compose, docker, kubectl, ssh and sudo are exactly
// what an admin would type. AdminScript runs scripts through a real local prefix (env, sudo):
// lines stream in order, the script's exit status comes back, a missing program or a password
// prompt fails at once with the exact command and its stderr, and Cancel ends the whole
// process tree.

#include "server/adminaccess.h"
#include "server/adminscript.h"
#include "testing.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <unistd.h>

using namespace sandscope;

namespace {

struct Ran {
    QString output;
    int exitCode = -1;
    ApiError error;
    bool ended = false;
};

Ran runScript(const QString &prefix, const QString &script, int timeoutMs = 30000)
{
    AdminAccess access;
    QString why;
    Ran ran;
    if (!AdminAccess::fromCommand(prefix, &access, &why)) {
        ran.error.message = why;
        return ran;
    }
    AdminScript run(nullptr, access);
    QObject::connect(&run, &AdminScript::output, [&](const QString &text) { ran.output += text; });
    QObject::connect(&run, &AdminScript::finished, [&](int code) {
        ran.exitCode = code;
        ran.ended = true;
    });
    QObject::connect(&run, &AdminScript::failed, [&](const ApiError &error) {
        ran.error = error;
        ran.ended = true;
    });
    run.start(script);
    (void)QTest::qWaitFor([&] { return ran.ended; }, timeoutMs);
    return ran;
}

QStringList words(std::initializer_list<const char *> list)
{
    QStringList result;
    for (const char *word : list)
        result.append(QString::fromUtf8(word));
    return result;
}

bool processExists(qint64 pid)
{
    return QFile::exists(QStringLiteral("/proc/%1").arg(pid));
}

} // namespace

class AdminAccessTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void wordsAreSplitLikeAShell_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("words");
        QTest::newRow("plain") << QStringLiteral("sudo -n") << words({"sudo", "-n"});
        QTest::newRow("blanks") << QStringLiteral("  ssh\thost   sudo -n ")
                                << words({"ssh", "host", "sudo", "-n"});
        QTest::newRow("single quotes keep everything")
            << QStringLiteral("docker exec -i '$(rm -rf /)' \"a b\"")
            << words({"docker", "exec", "-i", "$(rm -rf /)", "a b"});
        QTest::newRow("double quotes escape only four")
            << QStringLiteral("x \"a\\\"b\\\\c\\$d\\n\"") << words({"x", "a\"b\\c$d\\n"});
        QTest::newRow("backslash outside quotes")
            << QStringLiteral("a\\ b c\\'d") << words({"a b", "c'd"});
        QTest::newRow("empty quoted word") << QStringLiteral("ssh '' x") << words({"ssh", "", "x"});
        QTest::newRow("no expansion")
            << QStringLiteral("ssh ~/x $HOME *") << words({"ssh", "~/x", "$HOME", "*"});
    }
    void wordsAreSplitLikeAShell()
    {
        QFETCH(QString, text);
        QFETCH(QStringList, words);
        QStringList split;
        QString why;
        QVERIFY2(AdminAccess::splitWords(text, &split, &why), qPrintable(why));
        QCOMPARE(split, words);
    }

    void malformedCommandsAreRefused_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("reason");
        QTest::newRow("empty") << QString() << QStringLiteral("empty");
        QTest::newRow("blank") << QStringLiteral("   ") << QStringLiteral("empty");
        QTest::newRow("single quote")
            << QStringLiteral("ssh 'host") << QStringLiteral("unclosed single");
        QTest::newRow("double quote")
            << QStringLiteral("ssh \"host") << QStringLiteral("unclosed double");
        QTest::newRow("trailing backslash")
            << QStringLiteral("sudo \\") << QStringLiteral("backslash");
        QTest::newRow("nul") << QStringLiteral("sudo") + QChar(0) << QStringLiteral("NUL");
    }
    void malformedCommandsAreRefused()
    {
        QFETCH(QString, text);
        QFETCH(QString, reason);
        AdminAccess access;
        QString why;
        QVERIFY(!AdminAccess::fromCommand(text, &access, &why));
        QVERIFY2(why.contains(reason), qPrintable(why));
    }

    // No container engine or cluster exists on the test machines: the forms are checked by
    // the exact command lines they run.
    void documentedPrefixesGiveTheExactCommandLines_data()
    {
        QTest::addColumn<QString>("prefix");
        QTest::addColumn<QStringList>("argv");
        QTest::addColumn<QString>("line");
        QTest::newRow("compose")
            << QStringLiteral(
                   "docker compose -f sandbox/docker-compose.yml exec -T -u root sandbox")
            << words({"docker", "compose", "-f", "sandbox/docker-compose.yml", "exec", "-T", "-u",
                   "root", "sandbox", "sh", "-s"})
            << QStringLiteral(
                   "docker compose -f sandbox/docker-compose.yml exec -T -u root sandbox sh -s");
        QTest::newRow("docker") << QStringLiteral("docker exec -i -u root open-terminal")
                                << words({"docker", "exec", "-i", "-u", "root", "open-terminal",
                                       "sh", "-s"})
                                << QStringLiteral("docker exec -i -u root open-terminal sh -s");
        QTest::newRow("kubectl")
            << QStringLiteral("kubectl exec -i -n sandbox open-terminal-0 -c open-terminal --")
            << words({"kubectl", "exec", "-i", "-n", "sandbox", "open-terminal-0", "-c",
                   "open-terminal", "--", "sh", "-s"})
            << QStringLiteral(
                   "kubectl exec -i -n sandbox open-terminal-0 -c open-terminal -- sh -s");
        QTest::newRow("ssh") << QStringLiteral("ssh admin@sandbox.example sudo -n")
                             << words({"ssh", "admin@sandbox.example", "sudo", "-n", "sh", "-s"})
                             << QStringLiteral("ssh admin@sandbox.example sudo -n sh -s");
        QTest::newRow("quoted word") << QStringLiteral("docker exec -i 'my box'")
                                     << words({"docker", "exec", "-i", "my box", "sh", "-s"})
                                     << QStringLiteral("docker exec -i 'my box' sh -s");
    }
    void documentedPrefixesGiveTheExactCommandLines()
    {
        QFETCH(QString, prefix);
        QFETCH(QStringList, argv);
        QFETCH(QString, line);
        AdminAccess access;
        QVERIFY(AdminAccess::fromCommand(prefix, &access));
        QVERIFY(access.isLocalCommand());
        QCOMPARE(access.argv(), argv);
        QCOMPARE(access.commandLine(), line);
        QVERIFY(access.describe().contains(line));
        // Pasted back, the line splits into the same words.
        QStringList again;
        QVERIFY(AdminAccess::splitWords(line, &again));
        QCOMPARE(again, argv);
    }

    void theChannelIsNamed()
    {
        QVERIFY(AdminAccess::serverAccount().describe().contains(QStringLiteral("server account")));
        QVERIFY(!AdminAccess::serverAccount().isLocalCommand());
    }

    void linesStreamInOrderAndTheScriptsStatusComesBack()
    {
        const Ran ran = runScript(QStringLiteral("env"),
            QStringLiteral("for i in 1 2 3; do echo line $i; done; echo oops >&2; "
                           "printf 'no newline'; exit 4"));
        QVERIFY2(ran.ended && !ran.error.isError(), qPrintable(ran.error.message));
        QCOMPARE(ran.exitCode, 4);
        const QStringList lines = ran.output.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.mid(0, 3), (words({"line 1", "line 2", "line 3"})));
        QVERIFY(lines.contains(QStringLiteral("oops")));
        QVERIFY(lines.contains(QStringLiteral("no newline")));
        QVERIFY(!ran.output.contains(QStringLiteral("SANDSCOPE-ADMIN")));
    }

    void environmentAndSettingsTravelInTheScript()
    {
        // Nothing but the prefix and `sh -s` is on the command line.
        const Ran ran = runScript(QStringLiteral("env"),
            QStringLiteral("X='it'\\''s $(not run)'; export X; printf '%s\\n' \"$X\"; "
                           "tr '\\0' ' ' < /proc/$$/cmdline; echo"));
        QCOMPARE(ran.exitCode, 0);
        QVERIFY2(ran.output.contains(QStringLiteral("it's $(not run)")), qPrintable(ran.output));
        QVERIFY2(ran.output.contains(QStringLiteral("sh -s")), qPrintable(ran.output));
    }

    void aMissingProgramFailsWithTheCommandAndItsError()
    {
        const Ran ran = runScript(
            QStringLiteral("no-such-admin-command-zz --flag"), QStringLiteral("echo hi"));
        QVERIFY(ran.ended);
        QCOMPARE(ran.error.kind, ApiError::Kind::AdminCommandFailed);
        QVERIFY2(
            ran.error.message.contains(QStringLiteral("no-such-admin-command-zz --flag sh -s")),
            qPrintable(ran.error.message));
        QVERIFY2(ran.error.detail.contains(QStringLiteral("No such file")),
            qPrintable(ran.error.detail));
        QVERIFY(!ran.output.contains(QStringLiteral("hi")));
    }

    void aPasswordPromptFailsInsteadOfHanging()
    {
        const QString sudo = QStandardPaths::findExecutable(QStringLiteral("sudo"));
        SANDSCOPE_REQUIRE(!sudo.isEmpty() && getuid() == 0, "needs sudo and root");
        // nobody may not use sudo without a password: with no terminal it must not wait.
        const Ran ran = runScript(QStringLiteral("sudo -n -u nobody sudo -S -p password: true"),
            QStringLiteral("echo never"));
        QVERIFY(ran.ended);
        QCOMPARE(ran.error.kind, ApiError::Kind::AdminCommandFailed);
        QVERIFY(!ran.error.detail.isEmpty());
        QVERIFY(!ran.output.contains(QStringLiteral("never")));
    }

    void sudoRunsTheScriptAsRoot()
    {
        const QString sudo = QStandardPaths::findExecutable(QStringLiteral("sudo"));
        SANDSCOPE_REQUIRE(!sudo.isEmpty(), "needs sudo");
        const Ran ran = runScript(QStringLiteral("sudo -n"), QStringLiteral("id -u"));
        QVERIFY2(!ran.error.isError(), qPrintable(ran.error.message));
        QCOMPARE(ran.output.trimmed(), QStringLiteral("0"));
    }

    void cancelEndsTheWholeProcessTree()
    {
        AdminAccess access;
        QVERIFY(AdminAccess::fromCommand(QStringLiteral("env"), &access));
        AdminScript run(nullptr, access);
        QString output;
        QObject::connect(&run, &AdminScript::output, [&](const QString &text) { output += text; });
        QSignalSpy failed(&run, &AdminScript::failed);
        run.start(
            QStringLiteral("sleep 300 & echo child $!; sh -c 'sleep 301' & echo child $!; wait"));
        QVERIFY(QTest::qWaitFor([&] { return output.count(QStringLiteral("child")) == 2; }, 20000));
        QList<qint64> children;
        for (const QString &line : output.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
            children.append(line.section(QLatin1Char(' '), 1).toLongLong());
        for (qint64 pid : children)
            QVERIFY(processExists(pid));
        run.cancel();
        QVERIFY(QTest::qWaitFor([&] { return !failed.isEmpty(); }, 20000));
        QCOMPARE(failed.first().first().value<ApiError>().kind, ApiError::Kind::Cancelled);
        for (qint64 pid : children)
            QTRY_VERIFY_WITH_TIMEOUT(!processExists(pid), 10000);
        QVERIFY(!run.isRunning());
    }
};

QTEST_GUILESS_MAIN(AdminAccessTest)
#include "tst_adminaccess.moc"
