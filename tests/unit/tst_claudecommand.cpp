// The claude command builder: id and option validation, the argv mapping of every option, and
// the generated scripts run by REAL bash and dash against a stand-in `claude` on PATH (the
// real CLI runs in tst_runlauncher): directories and a 0620 env file are prepared, the env
// file is sourced, the prompt arrives on stdin byte for byte, the tee file equals stdout,
// claude's exit code (not tee's) comes out, and the liveness probe tells a running run from
// a finished one.

#include "claude/claudecommand.h"
#include "util/shellquote.h"

#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest/QTest>

using namespace sandscope;

Q_DECLARE_METATYPE(sandscope::ClaudeRunOptions)

namespace {

// Records what it got and prints two stream-json lines; FAKE_* come from the env file.
const char fakeClaude[] = R"(#!/bin/sh
for a in "$@"; do printf '%s\0' "$a"; done > "$HOME/fake.args"
cat > "$HOME/fake.stdin"
printf '%s' "$SECRET_VALUE" > "$HOME/fake.secret"
printf '{"type":"system","subtype":"init","cwd":"%s"}\n' "$PWD"
printf '{"type":"result","result":"%s"}\n' "€ done"
echo 'fake stderr' >&2
sleep "${FAKE_SLEEP:-0}"
exit "${FAKE_EXIT:-0}"
)";

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<missing>");
}

bool writeAll(const QString &path, const QByteArray &bytes)
{
    QFile file(path); // an existing file keeps its mode, as with /files/write
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate)
        && file.write(bytes) == bytes.size();
}

class Sandbox {
public:
    Sandbox()
    {
        QDir(m_dir.path()).mkpath(QStringLiteral("home"));
        QDir(m_dir.path()).mkpath(QStringLiteral("bin"));
        const QString claude = m_dir.path() + QLatin1String("/bin/claude");
        writeAll(claude, fakeClaude);
        QFile::setPermissions(claude, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    }
    QString home() const { return m_dir.path() + QLatin1String("/home"); }

    void start(QProcess &process, const QString &shell, const QString &script) const
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("HOME"), home());
        environment.insert(QStringLiteral("PATH"),
            m_dir.path() + QLatin1String("/bin:") + environment.value(QStringLiteral("PATH")));
        process.setProcessEnvironment(environment);
        process.setProcessChannelMode(QProcess::MergedChannels); // like the PTY
        process.start(shell, {QStringLiteral("-c"), script});
    }

    // Returns the exit code, -1 when it did not end normally.
    int run(const QString &shell, const QString &script, QByteArray *output) const
    {
        QProcess process;
        start(process, shell, script);
        const bool ended = process.waitForFinished(30000);
        *output = process.readAll();
        return ended && process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    }

    // A run of `chat` ready to start: its chat prepared, its env file and prompt written.
    bool prepareRun(const RunPaths &paths, const QString &chat, const QByteArray &env) const
    {
        QByteArray output;
        return run(QStringLiteral("sh"),
                   claudecommand::prepareScript(chat, QStringLiteral("agent.env")), &output)
            == 0
            && writeAll(paths.envFile, env) && writeAll(paths.promptFile, "hi");
    }

private:
    QTemporaryDir m_dir;
};

ClaudeRunOptions everyOption()
{
    ClaudeRunOptions options;
    options.model = QStringLiteral("claude-sonnet-4-5");
    options.permissionMode = QStringLiteral("acceptEdits");
    options.allowedTools = QStringList {QStringLiteral("Bash(git *)"), QStringLiteral("Read")};
    options.disallowedTools = QStringList {QStringLiteral("WebFetch")};
    options.maxTurns = 7;
    options.appendSystemPrompt = QStringLiteral("-Be brief.\nIt's $(fine) `really` !");
    options.extraDirectories
        = QStringList {QStringLiteral("/srv/data dir"), QStringLiteral("-odd")};
    options.includePartialMessages = true;
    options.forwardSubagentText = true;
    options.resumeSessionId = QStringLiteral("3f2a9c1e-7b6d-4e5f-8a9b-0c1d2e3f4a5b");
    options.forkSession = true;
    return options;
}

} // namespace

class ClaudeCommandTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void chatIds_data();
    void chatIds();
    void newRunIdsAreValidAndDistinct();
    void invalidOptionsAreRefused_data();
    void invalidOptionsAreRefused();
    void minimalArguments();
    void everyOptionMapsToOneFlag();
    void envFileContentQuotesValuesAndRefusesBadNames();
    void scriptsWorkInRealShells_data();
    void scriptsWorkInRealShells();
    void runScriptReportsSetupFailure();
    void livenessTellsRunningFromGone();
    void aDiscardedRunThatStartsLateStopsBeforeClaude();
};

void ClaudeCommandTest::chatIds_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<bool>("valid");
    QTest::newRow("simple") << QStringLiteral("demo") << true;
    QTest::newRow("uuid") << QStringLiteral("3f2a9c1e-7b6d-4e5f-8a9b-0c1d2e3f4a5b") << true;
    QTest::newRow("underscore inside") << QStringLiteral("a_b-9") << true;
    QTest::newRow("64 characters") << QString(64, QLatin1Char('x')) << true;
    QTest::newRow("65 characters") << QString(65, QLatin1Char('x')) << false;
    QTest::newRow("empty") << QString() << false;
    QTest::newRow("dot dot") << QStringLiteral("..") << false;
    QTest::newRow("slash") << QStringLiteral("a/b") << false;
    QTest::newRow("leading dash") << QStringLiteral("-rf") << false;
    QTest::newRow("leading underscore") << QStringLiteral("_x") << false;
    QTest::newRow("space") << QStringLiteral("a b") << false;
    QTest::newRow("shell") << QStringLiteral("a;rm") << false;
    QTest::newRow("quote") << QStringLiteral("a'b") << false;
    QTest::newRow("newline") << QStringLiteral("a\nb") << false;
    QTest::newRow("unicode") << QStringLiteral("caf\u00e9") << false;
}

void ClaudeCommandTest::chatIds()
{
    QFETCH(QString, id);
    QFETCH(bool, valid);
    QString why;
    QCOMPARE(claudecommand::isValidChatId(id, &why), valid);
    QCOMPARE(why.isEmpty(), valid);
}

void ClaudeCommandTest::newRunIdsAreValidAndDistinct()
{
    const QString first = claudecommand::newRunId();
    const QString second = claudecommand::newRunId();
    QVERIFY(claudecommand::isValidRunId(first));
    QVERIFY(
        QRegularExpression(QStringLiteral("^\\d{8}-\\d{6}-[0-9a-f]{8}$")).match(first).hasMatch());
    QVERIFY(first != second);
}

void ClaudeCommandTest::invalidOptionsAreRefused_data()
{
    QTest::addColumn<ClaudeRunOptions>("options");
    QTest::addColumn<QString>("complaint");
    ClaudeRunOptions options;
    options.permissionMode = QStringLiteral("yolo");
    QTest::newRow("unknown permission mode") << options << QStringLiteral("permission mode");
    options = {};
    options.model = QStringLiteral("opus\n--dangerously-skip-permissions");
    QTest::newRow("model with newline") << options << QStringLiteral("model");
    options = {};
    options.allowedTools = QStringList {QString()};
    QTest::newRow("empty tool") << options << QStringLiteral("allowed tool");
    options = {};
    options.disallowedTools = QStringList {QStringLiteral("Bash\r")};
    QTest::newRow("tool with CR") << options << QStringLiteral("disallowed tool");
    options = {};
    options.maxTurns = -1;
    QTest::newRow("negative turns") << options << QStringLiteral("turns");
    options = {};
    options.appendSystemPrompt = QString(17 * 1024, QLatin1Char('s'));
    QTest::newRow("system prompt too long") << options << QStringLiteral("longer than");
    options = {};
    options.appendSystemPrompt = QStringLiteral("a") + QChar(0);
    QTest::newRow("system prompt with NUL") << options << QStringLiteral("NUL");
    options = {};
    options.extraDirectories = QStringList {QStringLiteral("/a\n/b")};
    QTest::newRow("directory with newline") << options << QStringLiteral("directory");
    options = {};
    options.resumeSessionId = QStringLiteral("x y");
    QTest::newRow("session with space") << options << QStringLiteral("session");
    options = {};
    options.forkSession = true;
    QTest::newRow("fork without resume") << options << QStringLiteral("Forking");
}

void ClaudeCommandTest::invalidOptionsAreRefused()
{
    QFETCH(ClaudeRunOptions, options);
    QFETCH(QString, complaint);
    const QString problem = claudecommand::validate(options);
    QVERIFY2(problem.contains(complaint, Qt::CaseInsensitive), qPrintable(problem));
}

void ClaudeCommandTest::minimalArguments()
{
    const ClaudeRunOptions options;
    QVERIFY(claudecommand::validate(options).isEmpty());
    QCOMPARE(claudecommand::arguments(options),
        QStringList({QStringLiteral("-p"), QStringLiteral("--output-format=stream-json"),
            QStringLiteral("--verbose")}));
}

void ClaudeCommandTest::everyOptionMapsToOneFlag()
{
    const ClaudeRunOptions options = everyOption();
    QVERIFY2(
        claudecommand::validate(options).isEmpty(), qPrintable(claudecommand::validate(options)));
    const QStringList args = claudecommand::arguments(options);
    const QStringList expected {QStringLiteral("-p"), QStringLiteral("--output-format=stream-json"),
        QStringLiteral("--verbose"), QStringLiteral("--model=claude-sonnet-4-5"),
        QStringLiteral("--permission-mode=acceptEdits"),
        QStringLiteral("--allowedTools=Bash(git *)"), QStringLiteral("--allowedTools=Read"),
        QStringLiteral("--disallowedTools=WebFetch"), QStringLiteral("--max-turns=7"),
        QLatin1String("--append-system-prompt=") + options.appendSystemPrompt,
        QStringLiteral("--add-dir=/srv/data dir"), QStringLiteral("--add-dir=-odd"),
        QStringLiteral("--include-partial-messages"), QStringLiteral("--forward-subagent-text"),
        QLatin1String("--resume=") + options.resumeSessionId, QStringLiteral("--fork-session")};
    QCOMPARE(args, expected);
}

void ClaudeCommandTest::envFileContentQuotesValuesAndRefusesBadNames()
{
    QString content;
    QString why;
    QVERIFY(claudecommand::envFileContent(
        {{QStringLiteral("B_KEY"), QStringLiteral("it's")}, {QStringLiteral("A"), QString()}},
        &content, &why));
    QCOMPARE(content, QStringLiteral("A=''\nB_KEY='it'\\''s'\n"));

    const QString secret = QStringLiteral("sk-secret-value");
    QVERIFY(!claudecommand::envFileContent({{QStringLiteral("BAD NAME"), secret}}, &content, &why));
    QVERIFY(why.contains(QLatin1String("BAD NAME")));
    QVERIFY(!claudecommand::envFileContent(
        {{QStringLiteral("KEY"), secret + QChar(0)}}, &content, &why));
    QVERIFY2(!why.contains(secret), "a value must never appear in an error");
}

void ClaudeCommandTest::scriptsWorkInRealShells_data()
{
    QTest::addColumn<QString>("shell");
    QTest::addColumn<int>("claudeExit");
    QTest::newRow("bash, success") << QStringLiteral("bash") << 0;
    QTest::newRow("bash, claude fails") << QStringLiteral("bash") << 3;
    QTest::newRow("dash, success") << QStringLiteral("sh") << 0;
    QTest::newRow("dash, claude fails") << QStringLiteral("sh") << 3;
}

void ClaudeCommandTest::scriptsWorkInRealShells()
{
    QFETCH(QString, shell);
    QFETCH(int, claudeExit);
    Sandbox sandbox;
    const QString chat = QStringLiteral("chat42");
    const QString runId = claudecommand::newRunId();
    const RunPaths paths = RunPaths::make(sandbox.home(), chat, runId);

    QByteArray output;
    // A user whose umask opens everything, with folders an older version left open.
    const QString openUmask = QStringLiteral("umask 0; ");
    QVERIFY(QDir().mkpath(paths.runDirectory));
    for (const QString &folder :
        {QFileInfo(paths.envFile).path(), QFileInfo(paths.runDirectory).path(), paths.runDirectory})
        QVERIFY(QFile::setPermissions(folder, QFileDevice::Permissions(0x7777)));
    QCOMPARE(
        sandbox.run(shell,
            openUmask + claudecommand::prepareScript(chat, QStringLiteral("agent.env")), &output),
        0);
    QVERIFY2(output.contains(QByteArray("SANDSCOPE-HOME=" + sandbox.home().toUtf8() + '\n')),
        output.constData());
    QVERIFY(QFileInfo(paths.workDirectory).isDir());
    QVERIFY(QFileInfo(paths.runDirectory).isDir());
    QCOMPARE(QFileInfo(paths.envFile).size(), 0);
    // Written by the server's group, readable by nobody but the owner.
    QCOMPARE(QFileInfo(paths.envFile).permissions() & 0x0777,
        QFile::ReadUser | QFile::WriteUser | QFile::WriteGroup);

    const QString secret = QStringLiteral("sk-ant-it's $(not run) `x` \\ \"q\"\nline two €");
    QString content;
    QString why;
    QVERIFY(claudecommand::envFileContent(
        {{QStringLiteral("SECRET_VALUE"), secret},
            {QStringLiteral("FAKE_EXIT"), QString::number(claudeExit)}},
        &content, &why));
    QVERIFY(writeAll(paths.envFile, content.toUtf8()));
    const QByteArray prompt
        = QStringLiteral("  leading blanks, 'quotes' \"too\" $(x) `y` !z\r\n\x01\x1b é😀\n\n")
              .toUtf8()
        + QByteArray(50000, 'p');
    QVERIFY(writeAll(paths.promptFile, prompt));

    QCOMPARE(sandbox.run(shell, claudecommand::verifyScript(paths), &output), 0);
    QVERIFY2(output.contains(QStringLiteral("SANDSCOPE-STAT 600 %1 %2\n")
                                 .arg(content.toUtf8().size())
                                 .arg(paths.envFile)
                                 .toUtf8()),
        output.constData());
    // The prompt is the owner's alone once verified, whatever mode the upload gave it.
    QVERIFY2(output.contains(QStringLiteral("SANDSCOPE-STAT 600 %1 %2")
                                 .arg(prompt.size())
                                 .arg(paths.promptFile)
                                 .toUtf8()),
        output.constData());

    const ClaudeRunOptions options = everyOption();
    const QString script = claudecommand::runScript(options, paths, runId);
    QVERIFY(!script.contains(secret));
    QCOMPARE(sandbox.run(shell, openUmask + script, &output), claudeExit);
    // Nothing the run leaves in ~/.sandscope is open to others (issue 27).
    QDirIterator left(QFileInfo(paths.envFile).path(),
        QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System,
        QDirIterator::Subdirectories);
    QVERIFY(!(QFileInfo(QFileInfo(paths.envFile).path()).permissions()
        & (QFile::ReadOther | QFile::WriteOther | QFile::ExeOther)));
    int entries = 0;
    while (left.hasNext()) {
        const QFileInfo entry(left.next());
        ++entries;
        QVERIFY2(!(entry.permissions() & (QFile::ReadOther | QFile::WriteOther | QFile::ExeOther)),
            qPrintable(entry.filePath()));
    }
    QCOMPARE(entries, 7); // runs, its chat folder, prompt, tee, stderr, exit, pid
    // The secrets' file is gone once the agent has read it (issue 27).
    QVERIFY(!QFileInfo::exists(paths.envFile));

    const QByteArray stream = "{\"type\":\"system\",\"subtype\":\"init\",\"cwd\":\""
        + paths.workDirectory.toUtf8() + "\"}\n{\"type\":\"result\",\"result\":\"€ done\"}\n";
    // The terminal shows the marker, then exactly the stream; stderr went to its file.
    QCOMPARE(output, "\n" + claudecommand::beginMarker(runId).toUtf8() + "\n" + stream);
    QCOMPARE(readAll(paths.teeFile), stream);
    QCOMPARE(readAll(paths.stderrFile), QByteArray("fake stderr\n"));
    QCOMPARE(readAll(paths.exitFile).trimmed(), QByteArray::number(claudeExit));
    QVERIFY(!QFileInfo::exists(paths.exitFile + QLatin1String(".part")));
    QVERIFY(readAll(paths.pidFile).trimmed().toLongLong() > 0);
    QCOMPARE(readAll(sandbox.home() + QLatin1String("/fake.stdin")), prompt);
    QCOMPARE(readAll(sandbox.home() + QLatin1String("/fake.secret")), secret.toUtf8());
    QByteArray expectedArgs;
    for (const QString &argument : claudecommand::arguments(options))
        expectedArgs += argument.toUtf8() + '\0';
    QCOMPARE(readAll(sandbox.home() + QLatin1String("/fake.args")), expectedArgs);
}

void ClaudeCommandTest::runScriptReportsSetupFailure()
{
    Sandbox sandbox;
    const QString runId = claudecommand::newRunId();
    const RunPaths paths = RunPaths::make(sandbox.home(), QStringLiteral("nochat"), runId);
    QByteArray output;
    // Nothing prepared: no chat directory, no env file.
    QCOMPARE(
        sandbox.run(QStringLiteral("bash"), claudecommand::runScript({}, paths, runId), &output),
        125);
    QVERIFY(!output.contains(claudecommand::beginMarker(runId).toUtf8()));
    QVERIFY(!QFileInfo::exists(sandbox.home() + QLatin1String("/fake.args")));

    // A run that cannot start (no chat folder) removes the env file too.
    QVERIFY(QDir().mkpath(QFileInfo(paths.envFile).path()));
    QVERIFY(writeAll(paths.envFile, "SECRET_VALUE=x\n"));
    QCOMPARE(sandbox.run(QStringLiteral("sh"), claudecommand::runScript({}, paths, runId), &output),
        125);
    QVERIFY(!QFileInfo::exists(paths.envFile));
}

void ClaudeCommandTest::livenessTellsRunningFromGone()
{
    Sandbox sandbox;
    const QString chat = QStringLiteral("live");
    const QString runId = claudecommand::newRunId();
    const RunPaths paths = RunPaths::make(sandbox.home(), chat, runId);
    QVERIFY(sandbox.prepareRun(paths, chat, "FAKE_SLEEP=3\n"));
    QByteArray output;

    QCOMPARE(
        sandbox.run(QStringLiteral("sh"), claudecommand::livenessScript(paths, runId), &output), 0);
    // Not started yet: told apart from a run that ended.
    QVERIFY2(output.contains("SANDSCOPE-NEVER-RAN") && !output.contains("SANDSCOPE-GONE"),
        output.constData());

    QProcess run;
    sandbox.start(run, QStringLiteral("bash"), claudecommand::runScript({}, paths, runId));
    QElapsedTimer clock;
    clock.start();
    while (!QFileInfo(sandbox.home() + QLatin1String("/fake.args")).exists()
        && clock.elapsed() < 10000)
        QTest::qWait(50);
    QCOMPARE(
        sandbox.run(QStringLiteral("sh"), claudecommand::livenessScript(paths, runId), &output), 0);
    QVERIFY2(output.contains("SANDSCOPE-ALIVE"), output.constData());
    // Another run id with the same pid file is not this run.
    QCOMPARE(sandbox.run(QStringLiteral("sh"),
                 claudecommand::livenessScript(paths, QStringLiteral("20000101-000000-00000000")),
                 &output),
        0);
    QVERIFY2(output.contains("SANDSCOPE-GONE"), output.constData());

    QVERIFY(run.waitForFinished(20000));
    QCOMPARE(run.exitCode(), 0);
    QCOMPARE(
        sandbox.run(QStringLiteral("sh"), claudecommand::livenessScript(paths, runId), &output), 0);
    QVERIFY2(output.contains("SANDSCOPE-GONE") && !output.contains("SANDSCOPE-NEVER-RAN"),
        output.constData());
}

// A run given up as never started loses its env file; a shell that starts late after all
// stops before claude, with no secret to read.
void ClaudeCommandTest::aDiscardedRunThatStartsLateStopsBeforeClaude()
{
    Sandbox sandbox;
    const QString chat = QStringLiteral("late");
    const QString runId = claudecommand::newRunId();
    const RunPaths paths = RunPaths::make(sandbox.home(), chat, runId);
    QVERIFY(sandbox.prepareRun(paths, chat, "ANTHROPIC_API_KEY=sk-ant-never-used\n"));
    QByteArray output;

    QCOMPARE(sandbox.run(QStringLiteral("sh"), claudecommand::discardScript(paths), &output), 0);
    QVERIFY2(output.contains("SANDSCOPE-DISCARDED"), output.constData());
    QVERIFY(!QFileInfo::exists(paths.envFile));
    // Nothing to remove any more is no failure.
    QCOMPARE(sandbox.run(QStringLiteral("sh"), claudecommand::discardScript(paths), &output), 0);
    QVERIFY2(output.contains("SANDSCOPE-DISCARDED"), output.constData());

    QProcess run;
    sandbox.start(run, QStringLiteral("bash"), claudecommand::runScript({}, paths, runId));
    QVERIFY(run.waitForFinished(20000));
    QCOMPARE(run.exitCode(), 125);
    QVERIFY(!QFileInfo::exists(sandbox.home() + QLatin1String("/fake.args"))); // no claude
}

QTEST_GUILESS_MAIN(ClaudeCommandTest)
#include "tst_claudecommand.moc"
