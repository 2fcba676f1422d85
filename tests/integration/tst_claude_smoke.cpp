// End to end: a REAL multi-user open-terminal runs the REAL claude CLI as a sandbox account,
// pointed at our scripted model server. The CLI executes `echo <token>` through its Bash tool
// and its stream-json output comes back through /execute, where it is reassembled into lines.
// The model server's credentials reach the CLI only through a 0600 env file, never argv.

#include "realserver.h"
#include "server/lineassembler.h"
#include "server/openterminalclient.h"
#include "server/processstream.h"
#include "testing.h"

#include <QCryptographicHash>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTimer>
#include <QtTest>

using namespace sandscope;
using namespace sandscope::test;

namespace {

struct CommandOutcome {
    bool finished = false;
    int exitCode = -1;
    QString output;
    QString failure; // the stream's error or a timeout
};

// Runs one command to its end through ProcessStream and returns everything it printed.
CommandOutcome runToEnd(
    OpenTerminalClient *client, const Identity &identity, const QString &command, int timeoutMs)
{
    CommandOutcome outcome;
    ProcessStream stream(client, identity);
    stream.setPollIntervals(50, 500);
    QEventLoop loop;
    QObject::connect(&stream, &ProcessStream::output, &loop,
        [&outcome](const QString &text) { outcome.output += text; });
    QObject::connect(
        &stream, &ProcessStream::finished, &loop, [&outcome, &loop](int exitCode, ProcessStatus) {
            outcome.finished = true;
            outcome.exitCode = exitCode;
            loop.quit();
        });
    QObject::connect(
        &stream, &ProcessStream::failed, &loop, [&outcome, &loop](const ApiError &error) {
            outcome.failure = error.toString();
            loop.quit();
        });
    QTimer::singleShot(timeoutMs, &loop, [&outcome, &loop] {
        outcome.failure = QStringLiteral("timed out");
        loop.quit();
    });
    stream.start(command);
    loop.exec();
    if (!outcome.finished && stream.state() == ProcessStream::State::Running)
        stream.kill();
    return outcome;
}

QString blockText(const QJsonValue &content)
{
    if (content.isString())
        return content.toString();
    QString text;
    const QJsonArray blocks = content.toArray();
    for (const QJsonValue &block : blocks)
        text += block.toObject().value(QLatin1String("text")).toString();
    return text;
}

} // namespace

class ClaudeSmokeTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void claudeRunsBashThroughExecuteAsSandboxUser();
};

void ClaudeSmokeTest::claudeRunsBashThroughExecuteAsSandboxUser()
{
    QString why;
    SANDSCOPE_REQUIRE(RealServer::canRunMultiUser(&why), why);
    const QString claude = QStandardPaths::findExecutable(QStringLiteral("claude"));
    SANDSCOPE_REQUIRE(
        !claude.isEmpty(), "the claude CLI is not installed (scripts/install-deps.sh)");

    RealServer server(
        RealServer::pinnedVersion("OPEN_TERMINAL_VERSION"), RealServer::Mode::MultiUser);
    QString error;
    QVERIFY2(server.start(&error), qPrintable(error));
    ScriptedModelServer model;
    QVERIFY2(model.start(&error), qPrintable(error));

    OpenTerminalClient client(server.connection());
    const QString suffix = randomToken(8);
    const Identity identity {
        QLatin1String("smoke-") + suffix, QLatin1String("smoke-session-") + suffix};
    QVERIFY2(validateUserId(identity.userId, &why), qPrintable(why));

    // The env file exists with mode 0600 before any secret is written into it.
    const QString envFile = QStringLiteral("~/.sandscope/claude.env");
    const CommandOutcome created = runToEnd(&client, identity,
        QLatin1String("umask 077; mkdir -p ~/.sandscope ~/chat-") + suffix + QLatin1String("; : > ")
            + envFile + QLatin1String("; chmod 600 ") + envFile
            + QLatin1String("; printf 'HOME=%s\\n' \"$HOME\""),
        60000);
    QVERIFY2(
        created.finished && created.exitCode == 0, qPrintable(created.failure + created.output));
    const QRegularExpressionMatch homeMatch
        = QRegularExpression(QStringLiteral("HOME=(/\\S+)")).match(created.output);
    QVERIFY2(homeMatch.hasMatch(), qPrintable(created.output));
    const QString home = homeMatch.captured(1);

    const QString secret = QLatin1String("sk-ant-smoke-") + randomToken(32);
    const QString contents = QLatin1String("ANTHROPIC_API_KEY='") + secret
        + QLatin1String("'\nANTHROPIC_BASE_URL='") + model.url().toString()
        + QLatin1String("'\nCLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1\n"
                        "DISABLE_AUTOUPDATER=1\nCLAUDE_CODE_MAX_RETRIES=2\n");
    const auto written = await<WriteResult>([&](auto done) {
        return client.writeFile(
            identity, home + QLatin1String("/.sandscope/claude.env"), contents, &client, done);
    });
    QVERIFY2(written.ok(), qPrintable(written.error.toString()));

    // The file API may widen the mode; tighten it again and check what is really there.
    const CommandOutcome mode = runToEnd(&client, identity,
        QLatin1String("chmod 600 ") + envFile + QLatin1String(" && stat -c 'MODE=%a' ") + envFile,
        60000);
    QVERIFY2(mode.finished && mode.exitCode == 0, qPrintable(mode.failure + mode.output));
    QVERIFY2(mode.output.contains(QLatin1String("MODE=600")), qPrintable(mode.output));

    const QString token = QLatin1String("tok") + randomToken(16);
    const QString command = QLatin1String("cd ~/chat-") + suffix
        + QLatin1String(" && set -a && . ~/.sandscope/claude.env && set +a && claude -p 'CMD: "
                        "echo ")
        + token
        + QLatin1String("' --output-format stream-json --verbose --allowedTools Bash < /dev/null");
    const CommandOutcome run = runToEnd(&client, identity, command, 240000);
    QVERIFY2(run.finished, qPrintable(run.failure + QLatin1Char('\n') + run.output));

    LineAssembler assembler;
    QStringList lines = assembler.feed(run.output);
    const QString rest = assembler.flush();
    if (!rest.isEmpty())
        lines.append(rest);

    bool sawInit = false;
    bool sawToolUse = false;
    bool sawToolResult = false;
    bool sawSuccess = false;
    for (const QString &line : std::as_const(lines)) {
        if (!line.startsWith(QLatin1Char('{')))
            continue; // e.g. a cursor escape under the PTY
        QJsonParseError parseError;
        const QJsonObject object = QJsonDocument::fromJson(line.toUtf8(), &parseError).object();
        QVERIFY2(parseError.error == QJsonParseError::NoError, qPrintable(line));
        const QString type = object.value(QLatin1String("type")).toString();
        const QString subtype = object.value(QLatin1String("subtype")).toString();
        const QJsonArray content = object.value(QLatin1String("message"))
                                       .toObject()
                                       .value(QLatin1String("content"))
                                       .toArray();
        if (type == QLatin1String("system") && subtype == QLatin1String("init"))
            sawInit = true;
        if (type == QLatin1String("result") && subtype == QLatin1String("success")
            && !object.value(QLatin1String("is_error")).toBool())
            sawSuccess = true;
        for (const QJsonValue &value : content) {
            const QJsonObject block = value.toObject();
            const QString blockType = block.value(QLatin1String("type")).toString();
            if (type == QLatin1String("assistant") && blockType == QLatin1String("tool_use")
                && block.value(QLatin1String("name")).toString() == QLatin1String("Bash")
                && block.value(QLatin1String("input"))
                       .toObject()
                       .value(QLatin1String("command"))
                       .toString()
                       .contains(token))
                sawToolUse = true;
            if (type == QLatin1String("user") && blockType == QLatin1String("tool_result")
                && blockText(block.value(QLatin1String("content"))).contains(token))
                sawToolResult = true;
        }
    }
    const QByteArray diagnostics
        = (run.output + QLatin1String("\n--- model server requests:\n") + model.requestLog())
              .toUtf8();
    QVERIFY2(sawInit, diagnostics.constData());
    QVERIFY2(sawToolUse, diagnostics.constData());
    QVERIFY2(sawToolResult, diagnostics.constData());
    QVERIFY2(sawSuccess, diagnostics.constData());
    QCOMPARE(run.exitCode, 0);

    // The key reached the model server, so it came from the env file...
    const QByteArray keyDigest
        = QCryptographicHash::hash(secret.toUtf8(), QCryptographicHash::Sha256).toHex().left(16);
    QVERIFY2(model.requestLog().contains(QString::fromLatin1(keyDigest)), diagnostics.constData());

    // ...and no command line the server recorded carries it.
    const auto processes = await<QVector<ProcessInfo>>(
        [&](auto done) { return client.listProcesses(identity, &client, done); });
    QVERIFY2(processes.ok(), qPrintable(processes.error.toString()));
    bool listedClaudeRun = false;
    for (const ProcessInfo &process : processes.value) {
        QVERIFY2(!process.command.contains(secret), "the API key appeared on a command line");
        if (process.command.contains(QLatin1String("claude -p")))
            listedClaudeRun = true;
    }
    QVERIFY(listedClaudeRun);
}

QTEST_GUILESS_MAIN(ClaudeSmokeTest)
#include "tst_claude_smoke.moc"
