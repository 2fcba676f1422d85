// Live agent runs end to end: a REAL multi-user open-terminal (the pinned
// OPEN_TERMINAL_VERSION) runs the REAL claude CLI as sandbox accounts against the scripted
// model server. Runs go through RunLauncher → RunParser → RunModel (under
// QAbstractItemModelTester), or through the `sandscope run` / `sandscope sessions` binary:
//  * Bash calls, sub-agent work nested under its Agent call, parallel calls whose results come
//    back out of order, a failing tool call, the max-turns stop, API errors 401 and 529;
//  * a run killed midway (no result; its open call ends up interrupted), SIGINT to the CLI;
//  * resume keeps the session id, fork makes a new one, the chat's sessions are found on the
//    server (also without a local record);
//  * two users at once, re-attaching after the client itself was destroyed mid-run;
//  * `run --json`: the stream, then a summary matching it; exit codes; recording; audit log;
//  * a session started without sandscope (claude through a plain /execute, as Open WebUI does)
//    is listed by `sessions` with its details and found by `search`.
// One open-terminal server and one model server serve the whole suite.

#include "realserver.h"
#include "runnodes.h"
#include "runs/runlauncher.h"
#include "runtree/runmodel.h"
#include "server/openterminalclient.h"
#include "streamjson/runparser.h"
#include "testing.h"
#include "util/shellquote.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMetaEnum>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <memory>

using namespace sandscope;
using namespace sandscope::test;

namespace {

constexpr int runTimeoutMs = 120000;

QJsonObject parse(const QString &line)
{
    return QJsonDocument::fromJson(line.toUtf8()).object();
}

QString typeOf(const QJsonObject &object)
{
    return object.value(QLatin1String("type")).toString();
}

// A run driven through the core: launcher lines → parser → model.
struct CoreRun {
    std::unique_ptr<RunParser> parser = std::make_unique<RunParser>();
    std::unique_ptr<RunModel> model = std::make_unique<RunModel>();
    std::unique_ptr<QAbstractItemModelTester> tester;
    QStringList lines;
    RunHandle handle;
    bool started = false;
    bool finished = false;
    int exitCode = -1;
    QString failure;
    QString standardError;
    QStringList notices;
    QString state; // the launcher's last

    CoreRun()
    {
        tester = std::make_unique<QAbstractItemModelTester>(
            model.get(), QAbstractItemModelTester::FailureReportingMode::Fatal);
        QObject::connect(parser.get(), &RunParser::eventsReady, model.get(),
            [this](const RunEventBatch &events) { model->addEvents(events); });
    }

    void watch(RunLauncher *launcher)
    {
        QObject::connect(launcher, &RunLauncher::started, launcher, [this](const RunHandle &h) {
            handle = h;
            started = true;
        });
        QObject::connect(
            launcher, &RunLauncher::lineReceived, launcher, [this](qint64, const QString &line) {
                lines.append(line);
                parser->feedLine(line, QDateTime::currentMSecsSinceEpoch());
            });
        QObject::connect(launcher, &RunLauncher::finished, launcher, [this, launcher](int code) {
            finished = true;
            exitCode = code;
            standardError = launcher->standardError();
            model->markRunEnded(QDateTime::currentMSecsSinceEpoch());
        });
        QObject::connect(launcher, &RunLauncher::failed, launcher,
            [this](const QString &message) { failure = message; });
        QObject::connect(launcher, &RunLauncher::notice, launcher,
            [this](const QString &message) { notices.append(message); });
        QObject::connect(launcher, &RunLauncher::stateChanged, launcher, [this](auto to) {
            state = QString::fromLatin1(
                QMetaEnum::fromType<RunLauncher::State>().valueToKey(int(to)));
        });
    }
    bool ended() const { return finished || !failure.isEmpty(); }
    bool sawLineContaining(const QString &needle) const
    {
        return std::any_of(lines.cbegin(), lines.cend(),
            [&needle](const QString &line) { return line.contains(needle); });
    }
    // The short facts first (a test failure's message is cut after about 1,000 characters),
    // then each line's start.
    QByteArray diagnostics() const
    {
        QString text = QStringLiteral("failure: ") + failure + QStringLiteral("\nexit: ")
            + QString::number(exitCode) + QStringLiteral("\nlauncher: ") + state
            + QStringLiteral("\nnotices: ") + notices.join(QStringLiteral(" | "))
            + QStringLiteral("\nstderr: ") + standardError.left(500) + QStringLiteral("\nlines:");
        for (const QString &line : lines)
            text += QLatin1Char('\n') + line.left(120);
        return text.left(6000).toUtf8();
    }
};

struct CliResult {
    int exitCode = -1;
    bool crashed = false;
    QString out;
    QString err;
    QStringList outLines() const { return out.split(QLatin1Char('\n'), Qt::SkipEmptyParts); }
    QByteArray diagnostics() const
    {
        return (QStringLiteral("exit %1%2\n--- stdout:\n")
                    .arg(exitCode)
                    .arg(crashed ? QStringLiteral(" (crashed)") : QString())
            + out.left(6000) + QStringLiteral("\n--- stderr:\n") + err.left(3000))
            .toUtf8();
    }
};

bool writePrivateFile(const QString &path, const QByteArray &content)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    return file.write(content) == content.size();
}

QString readWholeFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

} // namespace

class AgentRunsTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void runUsageErrorsNeedNoServer();
    void bashCallBecomesAnOkToolCall();
    void subAgentWorkIsNestedUnderItsAgentCall();
    void parallelCallsMatchResultsArrivingOutOfOrder();
    void failingToolCallIsShownAsError();
    void maxTurnsEndsWithErrorResult();
    void apiErrorsEndWithErrorResult_data();
    void apiErrorsEndWithErrorResult();
    void killedRunLeavesItsCallInterrupted();
    void interruptedCliStopsTheRun();
    void resumeKeepsTheSessionAndForkMakesANewOne();
    void twoUsersRunAtOnceWithoutMixing();
    void reattachAfterTheClientWasDestroyed();
    void cliListsRunsAndAttachesToARunningOne();
    void jsonOutputEndsWithSummaryMatchingTheStream();
    void sessionsAndSearchFindASessionStartedElsewhere();

private:
    bool ready() const { return m_server && m_model; }
    Identity newIdentity(const QString &stem) const;
    QHash<QString, QString> environment(const QUrl &modelUrl) const;
    QString agentEnvFile(const QString &name, const QUrl &modelUrl) const;
    std::unique_ptr<RunLauncher> newLauncher(
        OpenTerminalClient *client, const Identity &identity) const;
    // Launches and waits for the end.
    void runThroughCore(CoreRun &run, const Identity &identity, const QString &chat,
        const QString &prompt, const ClaudeRunOptions &options = {});
    QProcessEnvironment cliEnvironment(const QString &sessionStore = {}) const;
    QStringList runArguments(const Identity &identity, const QString &chat, const QString &prompt,
        const QString &envFile = {}) const;
    CliResult runCli(const QStringList &arguments, const QProcessEnvironment &environment) const;

    std::unique_ptr<RealServer> m_server;
    std::unique_ptr<ScriptedModelServer> m_model;
    std::unique_ptr<OpenTerminalClient> m_client;
    QTemporaryDir m_local; // the CLI's session store, audit log, env files, recordings
    QString m_secret; // the agent's API key: must never be shown
    Identity m_alice; // shared by most tests (one account creation)
    QString m_aliceEnvFile;
};

void AgentRunsTest::initTestCase()
{
    QString error;
    QVERIFY2(startAgentSandbox(&m_server, &m_model, &error), qPrintable(error));
    if (!ready())
        return; // every test reports the requirement itself
    m_client = std::make_unique<OpenTerminalClient>(m_server->connection());
    m_secret = QLatin1String("sk-ant-agentruns-") + randomToken(32);
    QVERIFY(m_local.isValid());
    m_alice = newIdentity(QStringLiteral("runs"));
    m_aliceEnvFile = agentEnvFile(QStringLiteral("agent.env"), m_model->url());
}

void AgentRunsTest::cleanupTestCase()
{
    m_client.reset();
    m_model.reset();
    m_server.reset();
}

Identity AgentRunsTest::newIdentity(const QString &stem) const
{
    const QString suffix = randomToken(6, true);
    return {stem + suffix, QString()};
}

QHash<QString, QString> AgentRunsTest::environment(const QUrl &modelUrl) const
{
    return ScriptedModelServer::agentEnvironment(modelUrl, m_secret);
}

QString AgentRunsTest::agentEnvFile(const QString &name, const QUrl &modelUrl) const
{
    const QHash<QString, QString> variables = environment(modelUrl);
    QByteArray content = "# agent environment\n";
    for (auto it = variables.cbegin(); it != variables.cend(); ++it)
        content += (it.key() + QLatin1Char('=') + it.value() + QLatin1Char('\n')).toUtf8();
    const QString path = m_local.filePath(name);
    return writePrivateFile(path, content) ? path : QString();
}

std::unique_ptr<RunLauncher> AgentRunsTest::newLauncher(
    OpenTerminalClient *client, const Identity &identity) const
{
    auto launcher = std::make_unique<RunLauncher>(client, identity);
    launcher->setPollIntervals(50, 300);
    launcher->setLivenessInterval(500);
    return launcher;
}

void AgentRunsTest::runThroughCore(CoreRun &run, const Identity &identity, const QString &chat,
    const QString &prompt, const ClaudeRunOptions &options)
{
    auto launcher = newLauncher(m_client.get(), identity);
    run.watch(launcher.get());
    launcher->launch(chat, prompt, options, environment(m_model->url()));
    QVERIFY2(QTest::qWaitFor([&run] { return run.ended(); }, runTimeoutMs), run.diagnostics());
    QVERIFY2(run.failure.isEmpty(), run.diagnostics());
}

QProcessEnvironment AgentRunsTest::cliEnvironment(const QString &sessionStore) const
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("SANDSCOPE_API_KEY"), m_server->apiKey());
    environment.insert(QStringLiteral("SANDSCOPE_SESSION_STORE"),
        sessionStore.isEmpty() ? m_local.filePath(QStringLiteral("sessions.json")) : sessionStore);
    environment.insert(
        QStringLiteral("SANDSCOPE_AUDIT_LOG"), m_local.filePath(QStringLiteral("audit.jsonl")));
    environment.insert(QStringLiteral("XDG_DATA_HOME"), m_local.filePath(QStringLiteral("data")));
    environment.insert(
        QStringLiteral("XDG_CONFIG_HOME"), m_local.filePath(QStringLiteral("config")));
    return environment;
}

QStringList AgentRunsTest::runArguments(const Identity &identity, const QString &chat,
    const QString &prompt, const QString &envFile) const
{
    return {QStringLiteral("run"), QStringLiteral("--server"), m_server->url().toString(),
        QStringLiteral("--user"), identity.userId, QStringLiteral("--chat"), chat,
        QStringLiteral("--prompt"), prompt, QStringLiteral("--allowed-tools"),
        QStringLiteral("Bash,Read"), QStringLiteral("--agent-env-file"),
        envFile.isEmpty() ? m_aliceEnvFile : envFile};
}

CliResult AgentRunsTest::runCli(
    const QStringList &arguments, const QProcessEnvironment &environment) const
{
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(QStringLiteral(SANDSCOPE_BINARY), arguments);
    CliResult result;
    if (!process.waitForStarted(10000)) {
        result.err = process.errorString();
        return result;
    }
    if (!process.waitForFinished(runTimeoutMs))
        process.kill();
    process.waitForFinished(5000);
    result.crashed = process.exitStatus() != QProcess::NormalExit;
    result.exitCode = process.exitCode();
    result.out = QString::fromUtf8(process.readAllStandardOutput());
    result.err = QString::fromUtf8(process.readAllStandardError());
    return result;
}

// ---------------------------------------------------------------------------------------------

void AgentRunsTest::runUsageErrorsNeedNoServer()
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("SANDSCOPE_API_KEY"), QStringLiteral("unused-key-123"));
    environment.insert(QStringLiteral("SANDSCOPE_AUDIT_LOG"),
        m_local.filePath(QStringLiteral("usage-audit.jsonl")));
    const QStringList base {QStringLiteral("run"), QStringLiteral("--server"),
        QStringLiteral("http://127.0.0.1:9"), QStringLiteral("--user"), QStringLiteral("alice")};
    const QString readable = m_local.filePath(QStringLiteral("readable.env"));
    QVERIFY(writePrivateFile(readable, "ANTHROPIC_API_KEY=sk-readable-secret\n"));
    QVERIFY(QFile::setPermissions(
        readable, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadOther));
    const QString malformed = m_local.filePath(QStringLiteral("malformed.env"));
    QVERIFY(writePrivateFile(malformed, "GOOD=1\nnot an assignment sk-malformed-secret\n"));

    struct Case {
        QStringList arguments;
        int exitCode;
        QString message;
    };
    const QVector<Case> cases {
        {base + QStringList {QStringLiteral("--prompt"), QStringLiteral("hi")}, 2,
            QStringLiteral("--chat")},
        {base
                + QStringList {QStringLiteral("--chat"), QStringLiteral("../x"),
                    QStringLiteral("--prompt"), QStringLiteral("hi")},
            2, QStringLiteral("--chat")},
        {base + QStringList {QStringLiteral("--chat"), QStringLiteral("c1")}, 2,
            QStringLiteral("--prompt")},
        {base
                + QStringList {QStringLiteral("--chat"), QStringLiteral("c1"),
                    QStringLiteral("--prompt"), QStringLiteral("hi"), QStringLiteral("--resume"),
                    QStringLiteral("--fork")},
            2, QStringLiteral("exclude")},
        {base
                + QStringList {QStringLiteral("--chat"), QStringLiteral("c1"),
                    QStringLiteral("--prompt"), QStringLiteral("hi"), QStringLiteral("--max-turns"),
                    QStringLiteral("0")},
            2, QStringLiteral("--max-turns")},
        {base
                + QStringList {QStringLiteral("--chat"), QStringLiteral("c1"),
                    QStringLiteral("--prompt"), QStringLiteral("hi"),
                    QStringLiteral("--permission-mode"), QStringLiteral("yolo")},
            2, QStringLiteral("permission mode")},
        {base
                + QStringList {QStringLiteral("--chat"), QStringLiteral("c1"),
                    QStringLiteral("--prompt"), QStringLiteral("hi"),
                    QStringLiteral("--agent-env-file"), readable},
            1, QStringLiteral("chmod 600")},
        {base
                + QStringList {QStringLiteral("--chat"), QStringLiteral("c1"),
                    QStringLiteral("--prompt"), QStringLiteral("hi"),
                    QStringLiteral("--agent-env-file"), malformed},
            1, QStringLiteral("line 2")},
        {QStringList {QStringLiteral("run"), QStringLiteral("--server"),
             QStringLiteral("http://127.0.0.1:9"), QStringLiteral("--chat"), QStringLiteral("c1"),
             QStringLiteral("--prompt"), QStringLiteral("hi")},
            2, QStringLiteral("--user")},
    };
    for (const Case &c : cases) {
        const CliResult result = runCli(c.arguments, environment);
        QVERIFY2(result.exitCode == c.exitCode, result.diagnostics());
        QVERIFY2(result.err.contains(c.message), result.diagnostics());
        QVERIFY2(!result.err.contains(QLatin1String("sk-readable-secret"))
                && !result.err.contains(QLatin1String("sk-malformed-secret")),
            result.diagnostics());
    }
    QVERIFY(!QFile::exists(m_local.filePath(QStringLiteral("usage-audit.jsonl"))));
}

void AgentRunsTest::bashCallBecomesAnOkToolCall()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    const QString token = QLatin1String("bash") + randomToken(10);
    CoreRun run;
    ClaudeRunOptions options;
    options.allowedTools = QStringList {QStringLiteral("Bash")};
    runThroughCore(
        run, m_alice, QStringLiteral("bash-1"), QLatin1String("CMD: echo ") + token, options);
    QCOMPARE(run.exitCode, 0);

    const QList<QModelIndex> calls = toolCalls(run.model.get(), QStringLiteral("Bash"));
    QCOMPARE(int(calls.size()), 1);
    QCOMPARE(statusOf(calls.at(0)), RunModel::Status::Ok);
    QVERIFY(calls.at(0).data(RunModel::SummaryRole).toString().contains(token));
    QVERIFY(calls.at(0).data(RunModel::TextRole).toString().contains(token));
    // The call sits in the run's turn: run → turn → call.
    QCOMPARE(RunModel::NodeKind(calls.at(0).parent().data(RunModel::KindRole).toInt()),
        RunModel::NodeKind::Turn);

    const RunSummary summary = run.model->summary();
    QVERIFY(summary.hasResult);
    QVERIFY(!summary.isError);
    QCOMPARE(summary.resultSubtype, QStringLiteral("success"));
    QCOMPARE(summary.toolCalls, qint64(1));
    QCOMPARE(summary.toolErrors, qint64(0));
    QCOMPARE(summary.unmatchedToolCalls, qint64(0));
    QVERIFY(summary.costUsd > 0);
    QVERIFY(!summary.sessionId.isEmpty());
    // The run's cwd is the chat's directory in the user's home.
    QVERIFY2(run.sawLineContaining(QStringLiteral("/chat-bash-1\"")), run.diagnostics());
}

void AgentRunsTest::subAgentWorkIsNestedUnderItsAgentCall()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    CoreRun run;
    ClaudeRunOptions options;
    options.allowedTools = QStringList {QStringLiteral("Bash"), QStringLiteral("Agent")};
    runThroughCore(
        run, m_alice, QStringLiteral("agent-1"), QStringLiteral("USE_AGENT please"), options);
    QCOMPARE(run.exitCode, 0);

    const QList<QModelIndex> agents = toolCalls(run.model.get(), QStringLiteral("Agent"));
    QCOMPARE(int(agents.size()), 1);
    const QModelIndex agent = agents.at(0);
    QCOMPARE(statusOf(agent), RunModel::Status::Ok);
    const QList<QModelIndex> bashCalls = toolCalls(run.model.get(), QStringLiteral("Bash"));
    QCOMPARE(int(bashCalls.size()), 1);
    const QModelIndex subCall = bashCalls.at(0);
    QCOMPARE(subCall.parent(), agent); // nested under the Agent call, not in the turn
    QCOMPARE(subCall.data(RunModel::ParentToolUseIdRole).toString(),
        agent.data(RunModel::ToolUseIdRole).toString());
    QCOMPARE(statusOf(subCall), RunModel::Status::Ok);
    QVERIFY(subCall.data(RunModel::TextRole).toString().contains(QLatin1String("sub")));
    // The sub-agent's prompt is shown under the call too.
    bool promptUnderAgent = false;
    for (const QModelIndex &node : nodesOfKind(run.model.get(), RunModel::NodeKind::UserText))
        promptUnderAgent = promptUnderAgent
            || (node.parent() == agent
                && node.data(RunModel::TextRole).toString().contains(QLatin1String("SUBTASK")));
    QVERIFY(promptUnderAgent);
    QCOMPARE(run.model->summary().toolCalls, qint64(2));
}

void AgentRunsTest::parallelCallsMatchResultsArrivingOutOfOrder()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    CoreRun run;
    ClaudeRunOptions options;
    options.allowedTools = QStringList {QStringLiteral("Bash")};
    runThroughCore(
        run, m_alice, QStringLiteral("parallel-1"), QStringLiteral("PARALLEL SLOW_FIRST"), options);
    QCOMPARE(run.exitCode, 0);

    const QList<QModelIndex> calls = toolCalls(run.model.get(), QStringLiteral("Bash"));
    QCOMPARE(int(calls.size()), 2);
    QVERIFY(calls.at(0).data(RunModel::SummaryRole).toString().contains(QLatin1String("echo one")));
    QVERIFY(calls.at(1).data(RunModel::SummaryRole).toString().contains(QLatin1String("echo two")));
    // The stream answered the second call first...
    const QString firstId = calls.at(0).data(RunModel::ToolUseIdRole).toString();
    const QString secondId = calls.at(1).data(RunModel::ToolUseIdRole).toString();
    qsizetype firstResultLine = -1;
    qsizetype secondResultLine = -1;
    for (qsizetype i = 0; i < run.lines.size(); ++i) {
        const QJsonObject object = parse(run.lines.at(i));
        if (typeOf(object) != QLatin1String("user"))
            continue;
        const QJsonArray content = object.value(QLatin1String("message"))
                                       .toObject()
                                       .value(QLatin1String("content"))
                                       .toArray();
        for (const QJsonValue &block : content) {
            const QString id = block.toObject().value(QLatin1String("tool_use_id")).toString();
            if (id == firstId)
                firstResultLine = i;
            else if (id == secondId)
                secondResultLine = i;
        }
    }
    QVERIFY2(firstResultLine > 0 && secondResultLine > 0, run.diagnostics());
    QVERIFY2(secondResultLine < firstResultLine, "the results did not arrive out of call order");
    // ... and each result still landed on its own call.
    QCOMPARE(statusOf(calls.at(0)), RunModel::Status::Ok);
    QCOMPARE(statusOf(calls.at(1)), RunModel::Status::Ok);
    QCOMPARE(calls.at(0).data(RunModel::TextRole).toString().trimmed(), QStringLiteral("one"));
    QCOMPARE(calls.at(1).data(RunModel::TextRole).toString().trimmed(), QStringLiteral("two"));
    QCOMPARE(calls.at(0).parent(), calls.at(1).parent());
}

void AgentRunsTest::failingToolCallIsShownAsError()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    const QString token = QLatin1String("fail") + randomToken(8);
    // Through the CLI's text tree: the call is announced, then settles as an error.
    const CliResult result
        = runCli(runArguments(m_alice, QStringLiteral("fail-1"),
                     QLatin1String("CMD: echo ") + token + QLatin1String("; exit 3")),
            cliEnvironment());
    QVERIFY2(result.exitCode == 0, result.diagnostics()); // the model answered after the error
    const QStringList lines = result.outLines();
    const auto lineWith = [&lines](const QString &a, const QString &b) {
        return std::find_if(lines.cbegin(), lines.cend(), [&](const QString &line) {
            return line.contains(a) && line.contains(b);
        }) - lines.cbegin();
    };
    const qsizetype announced
        = lineWith(QStringLiteral("▸ Bash: echo ") + token, QStringLiteral("[running]"));
    const qsizetype failed = lineWith(
        QStringLiteral("✗ Bash: echo ") + token, QStringLiteral("[error] → Exit code 3"));
    QVERIFY2(announced < lines.size(), result.diagnostics());
    QVERIFY2(failed < lines.size() && failed > announced, result.diagnostics());
    // Tool calls are indented under their turn.
    QVERIFY2(lines.at(announced).startsWith(QStringLiteral("  ▸")), result.diagnostics());
    QVERIFY2(
        lines.constLast().contains(QLatin1String("1 tool call, 1 failed")), result.diagnostics());
    QVERIFY2(!result.out.contains(m_secret) && !result.err.contains(m_secret),
        "the agent key was shown");
}

void AgentRunsTest::maxTurnsEndsWithErrorResult()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    const CliResult result
        = runCli(runArguments(m_alice, QStringLiteral("turns-1"), QStringLiteral("CMD: echo turn"))
                + QStringList {QStringLiteral("--max-turns"), QStringLiteral("1"),
                    QStringLiteral("--json")},
            cliEnvironment());
    QVERIFY2(result.exitCode == 1, result.diagnostics());
    const QJsonObject summary = parse(result.outLines().constLast());
    QCOMPARE(typeOf(summary), QStringLiteral("sandscope_summary"));
    QCOMPARE(summary.value(QLatin1String("result_subtype")).toString(),
        QStringLiteral("error_max_turns"));
    QVERIFY(summary.value(QLatin1String("is_error")).toBool());
    QVERIFY2(result.err.contains(QLatin1String("error_max_turns")), result.diagnostics());
}

void AgentRunsTest::apiErrorsEndWithErrorResult_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("retryError");
    QTest::newRow("401 authentication") << 401 << QStringLiteral("authentication_failed");
    QTest::newRow("529 overloaded") << 529 << QStringLiteral("overloaded");
}

void AgentRunsTest::apiErrorsEndWithErrorResult()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    QFETCH(int, status);
    QFETCH(QString, retryError);
    ScriptedModelServer failing({QStringLiteral("--fail-status"), QString::number(status)});
    QString error;
    QVERIFY2(failing.start(&error), qPrintable(error));
    const QString envFile = agentEnvFile(QStringLiteral("fail-%1.env").arg(status), failing.url());
    const CliResult result = runCli(runArguments(m_alice, QStringLiteral("api-%1").arg(status),
                                        QStringLiteral("hello"), envFile)
            + QStringList {QStringLiteral("--json")},
        cliEnvironment());
    QVERIFY2(result.exitCode == 1, result.diagnostics());

    // The CLI retried, then reported a synthetic API-error message and an error result.
    int retries = 0;
    bool syntheticError = false;
    bool errorResult = false;
    const QStringList lines = result.outLines();
    for (const QString &line : lines) {
        const QJsonObject object = parse(line);
        QVERIFY2(!object.isEmpty(), qPrintable(line));
        if (object.value(QLatin1String("subtype")).toString() == QLatin1String("api_retry")) {
            ++retries;
            QCOMPARE(object.value(QLatin1String("error_status")).toInt(), status);
            QCOMPARE(object.value(QLatin1String("error")).toString(), retryError);
        }
        if (typeOf(object) == QLatin1String("assistant")
            && object.value(QLatin1String("is_api_error_message")).toBool())
            syntheticError = object.value(QLatin1String("api_error_status")).toInt() == status;
        if (typeOf(object) == QLatin1String("result"))
            errorResult = object.value(QLatin1String("is_error")).toBool();
    }
    QVERIFY2(retries >= 1, result.diagnostics());
    QVERIFY2(syntheticError, result.diagnostics());
    QVERIFY2(errorResult, result.diagnostics());
    const QJsonObject summary = parse(lines.constLast());
    QVERIFY(summary.value(QLatin1String("is_error")).toBool());
    QCOMPARE(summary.value(QLatin1String("tool_calls")).toInt(), 0);
    QVERIFY2(
        result.err.contains(QStringLiteral("API status %1").arg(status)), result.diagnostics());
    QVERIFY2(!result.out.contains(m_secret) && !result.err.contains(m_secret),
        "the agent key was shown");

    // The same lines build API-retry and API-error nodes in the model.
    RunParser parser;
    RunModel model;
    connect(&parser, &RunParser::eventsReady, &model, &RunModel::addEvents);
    for (const QString &line : lines.mid(0, lines.size() - 1))
        parser.feedLine(line, 0);
    model.markRunEnded(0);
    QCOMPARE(int(nodesOfKind(&model, RunModel::NodeKind::ApiRetry).size()), retries);
    const QList<QModelIndex> apiErrors = nodesOfKind(&model, RunModel::NodeKind::ApiError);
    QCOMPARE(int(apiErrors.size()), 1);
    QCOMPARE(statusOf(apiErrors.at(0)), RunModel::Status::Error);
}

void AgentRunsTest::killedRunLeavesItsCallInterrupted()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    CoreRun run;
    auto launcher = newLauncher(m_client.get(), m_alice);
    run.watch(launcher.get());
    ClaudeRunOptions options;
    options.allowedTools = QStringList {QStringLiteral("Bash")};
    launcher->launch(QStringLiteral("kill-1"), QStringLiteral("CMD: sleep 20; echo never"), options,
        environment(m_model->url()));
    QVERIFY2(QTest::qWaitFor(
                 [&run] {
                     return run.ended()
                         || (run.started && run.sawLineContaining(QStringLiteral("\"tool_use\"")));
                 },
                 runTimeoutMs),
        run.diagnostics());
    QVERIFY2(!run.ended(), run.diagnostics());
    QCOMPARE(statusOf(toolCalls(run.model.get(), QStringLiteral("Bash")).value(0)),
        RunModel::Status::Running);
    launcher->kill();
    QVERIFY2(QTest::qWaitFor([&run] { return run.ended(); }, runTimeoutMs), run.diagnostics());
    QVERIFY2(run.failure.isEmpty(), run.diagnostics());
    QVERIFY(run.exitCode != 0);

    QVERIFY(!run.sawLineContaining(QStringLiteral("\"type\":\"result\"")));
    const QList<QModelIndex> calls = toolCalls(run.model.get(), QStringLiteral("Bash"));
    QCOMPARE(int(calls.size()), 1);
    QCOMPARE(statusOf(calls.at(0)), RunModel::Status::Interrupted);
    const RunSummary summary = run.model->summary();
    QVERIFY(!summary.hasResult);
    QVERIFY(summary.isError);
    QCOMPARE(summary.unmatchedToolCalls, qint64(1));
    QCOMPARE(statusOf(run.model->runIndex()), RunModel::Status::Interrupted);
}

void AgentRunsTest::interruptedCliStopsTheRun()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    QProcess process;
    process.setProcessEnvironment(cliEnvironment());
    process.start(QStringLiteral(SANDSCOPE_BINARY),
        runArguments(
            m_alice, QStringLiteral("sigint-1"), QStringLiteral("CMD: sleep 20; echo never")));
    QVERIFY(process.waitForStarted(10000));
    QString out;
    QVERIFY2(QTest::qWaitFor(
                 [&] {
                     out += QString::fromUtf8(process.readAllStandardOutput());
                     return out.contains(QLatin1String("[running]"))
                         || process.state() == QProcess::NotRunning;
                 },
                 runTimeoutMs),
        qPrintable(out));
    QVERIFY2(process.state() == QProcess::Running,
        qPrintable(out + QString::fromUtf8(process.readAllStandardError())));
    ::kill(pid_t(process.processId()), SIGINT);
    QVERIFY(process.waitForFinished(60000));
    out += QString::fromUtf8(process.readAllStandardOutput());
    const QString err = QString::fromUtf8(process.readAllStandardError());
    const QByteArray diagnostics = (out + QStringLiteral("\n--- stderr:\n") + err).toUtf8();
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QVERIFY2(process.exitCode() == 128 + SIGINT, diagnostics.constData());
    QVERIFY2(err.contains(QLatin1String("stopping the run")), diagnostics.constData());
    QVERIFY2(out.contains(
                 QLatin1String("Summary: interrupted: the last turn did not finish (no result)")),
        diagnostics.constData());
    // The call never answered normally: interrupted, or failed by the signal.
    QVERIFY2(out.contains(QLatin1String("[interrupted]")) || out.contains(QLatin1String("[error]")),
        diagnostics.constData());
    // Starting and stopping the run are in the audit log, naming the chat and the run.
    const QString audit = readWholeFile(m_local.filePath(QStringLiteral("audit.jsonl")));
    QStringList actions;
    for (const QString &line : audit.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        const QJsonObject entry = parse(line);
        if (entry.value(u"target").toString().startsWith(QLatin1String("chat sigint-1 run ")))
            actions << entry.value(u"action").toString();
    }
    QVERIFY2(actions.contains(QLatin1String("run")), qPrintable(audit));
    QVERIFY2(actions.contains(QLatin1String("stop-run")), qPrintable(audit));
}

void AgentRunsTest::cliListsRunsAndAttachesToARunningOne()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    const QString chat = QStringLiteral("attach-cli-") + randomToken(4, true);
    const QString marker = randomToken(10, true);
    const QProcessEnvironment environment = cliEnvironment();
    // Wait for a call to run, then waits for output containing `needle` or the end.
    const auto waitFor = [](QProcess &process, QString &out, const QString &needle) {
        return QTest::qWaitFor(
            [&] {
                out += QString::fromUtf8(process.readAllStandardOutput());
                return out.contains(needle) || process.state() == QProcess::NotRunning;
            },
            runTimeoutMs);
    };

    // A run whose client dies mid-run (SIGKILL: no chance to stop it); it goes on.
    QProcess first;
    first.setProcessEnvironment(environment);
    first.start(QStringLiteral(SANDSCOPE_BINARY),
        runArguments(m_alice, chat, QStringLiteral("CMD: tail -f /dev/null; echo ") + marker));
    QVERIFY(first.waitForStarted(10000));
    QString firstOut;
    QVERIFY2(waitFor(first, firstOut, QStringLiteral("[running]")), qPrintable(firstOut));
    QVERIFY2(first.state() == QProcess::Running, qPrintable(firstOut));
    first.kill();
    QVERIFY(first.waitForFinished(10000));

    const QStringList runsArguments {QStringLiteral("runs"), QStringLiteral("--server"),
        m_server->url().toString(), QStringLiteral("--user"), m_alice.userId,
        QStringLiteral("--chat"), chat, QStringLiteral("--json")};
    const auto listRuns = [&] {
        const CliResult listed = runCli(runsArguments, environment);
        const QJsonArray runs
            = QJsonDocument::fromJson(listed.out.toUtf8()).object().value(u"runs").toArray();
        return std::make_pair(listed, runs);
    };
    auto [listed, runs] = listRuns();
    QVERIFY2(listed.exitCode == 0, qPrintable(listed.err));
    QCOMPARE(runs.size(), 1);
    const QJsonObject run = runs.at(0).toObject();
    QCOMPARE(run.value(u"chat").toString(), chat);
    QCOMPARE(run.value(u"state").toString(), QStringLiteral("running"));
    QVERIFY(run.value(u"prompt_start").toString().contains(marker));
    const QString runId = run.value(u"run_id").toString();
    QVERIFY(!runId.isEmpty());

    // Attached from another client: the whole run so far, then Ctrl+C stops it.
    QProcess attached;
    attached.setProcessEnvironment(environment);
    attached.start(QStringLiteral(SANDSCOPE_BINARY),
        {QStringLiteral("run"), QStringLiteral("--server"), m_server->url().toString(),
            QStringLiteral("--user"), m_alice.userId, QStringLiteral("--chat"), chat,
            QStringLiteral("--attach"), runId});
    QVERIFY(attached.waitForStarted(10000));
    QString out;
    QVERIFY2(waitFor(attached, out, QStringLiteral("[running]")), qPrintable(out));
    QVERIFY2(attached.state() == QProcess::Running,
        qPrintable(out + QString::fromUtf8(attached.readAllStandardError())));
    QVERIFY2(out.contains(QStringLiteral("Attached to run %1 of chat %2").arg(runId, chat)),
        qPrintable(out));
    QVERIFY2(out.contains(QLatin1String("tail -f /dev/null")), qPrintable(out));
    ::kill(pid_t(attached.processId()), SIGINT);
    QVERIFY(attached.waitForFinished(60000));
    out += QString::fromUtf8(attached.readAllStandardOutput());
    const QString err = QString::fromUtf8(attached.readAllStandardError());
    const QByteArray diagnostics = (out + QStringLiteral("\n--- stderr:\n") + err).toUtf8();
    QVERIFY2(attached.exitCode() == 128 + SIGINT, diagnostics.constData());
    QVERIFY2(err.contains(QLatin1String("stopping the run")), diagnostics.constData());
    QVERIFY2(out.contains(
                 QLatin1String("Summary: interrupted: the last turn did not finish (no result)")),
        diagnostics.constData());

    std::tie(listed, runs) = listRuns();
    QCOMPARE(runs.size(), 1);
    QVERIFY2(runs.at(0).toObject().value(u"state").toString() != QLatin1String("running"),
        qPrintable(listed.out));

    // Usage: --attach does not start anything, so start options are refused.
    const CliResult refused = runCli(
        {QStringLiteral("run"), QStringLiteral("--server"), m_server->url().toString(),
            QStringLiteral("--user"), m_alice.userId, QStringLiteral("--chat"), chat,
            QStringLiteral("--attach"), runId, QStringLiteral("--prompt"), QStringLiteral("x")},
        environment);
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QLatin1String("--prompt")), qPrintable(refused.err));
}

void AgentRunsTest::resumeKeepsTheSessionAndForkMakesANewOne()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    const QProcessEnvironment environment = cliEnvironment();
    const QString chat = QStringLiteral("conv-1");
    const QStringList json {QStringLiteral("--json")};
    const auto sessionOf = [](const CliResult &result) {
        return parse(result.outLines().value(result.outLines().size() - 1))
            .value(QLatin1String("session_id"))
            .toString();
    };

    const QString firstMarker = QLatin1String("first") + randomToken(6);
    // The tool prints the agent's key: the CLI masks it, also in the JSON lines.
    const CliResult first = runCli(
        runArguments(m_alice, chat,
            QLatin1String("CMD: echo ") + firstMarker + QLatin1String(" k=$ANTHROPIC_API_KEY"))
            + json,
        environment);
    QVERIFY2(first.exitCode == 0, first.diagnostics());
    QVERIFY2(!first.out.contains(m_secret), "the agent key was shown");
    QVERIFY2(first.out.contains(firstMarker + QStringLiteral(" k=••••••")), first.diagnostics());
    const QString original = sessionOf(first);
    QVERIFY(!original.isEmpty());

    // --resume: same session, and the model saw the first turn in the history.
    const QString secondMarker = QLatin1String("second") + randomToken(6);
    const CliResult second = runCli(
        runArguments(m_alice, chat, secondMarker) + json + QStringList {QStringLiteral("--resume")},
        environment);
    QVERIFY2(second.exitCode == 0, second.diagnostics());
    QCOMPARE(sessionOf(second), original);
    for (const QString &line : second.outLines())
        if (typeOf(parse(line)) == QLatin1String("system"))
            QCOMPARE(parse(line).value(QLatin1String("session_id")).toString(), original);
    bool historyCarried = false;
    for (const QString &request :
        m_model->requestLog().split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        const QJsonObject entry = parse(request);
        if (entry.value(QLatin1String("prompt")).toString() == secondMarker)
            historyCarried = entry.value(QLatin1String("messages")).toInt() >= 3;
    }
    QVERIFY2(historyCarried, "the resumed request did not carry the first turn");

    // --fork: a new session that continues the same history.
    const CliResult forked = runCli(runArguments(m_alice, chat, QStringLiteral("third")) + json
            + QStringList {QStringLiteral("--fork")},
        environment);
    QVERIFY2(forked.exitCode == 0, forked.diagnostics());
    const QString fork = sessionOf(forked);
    QVERIFY(!fork.isEmpty());
    QVERIFY(fork != original);

    // `sessions` finds both transcripts on the server, and knows the fork's origin locally.
    const CliResult listed
        = runCli({QStringLiteral("sessions"), QStringLiteral("--server"),
                     m_server->url().toString(), QStringLiteral("--user"), m_alice.userId,
                     QStringLiteral("--chat"), chat, QStringLiteral("--json")},
            environment);
    QVERIFY2(listed.exitCode == 0, listed.diagnostics());
    const QJsonArray chats = QJsonDocument::fromJson(listed.out.toUtf8())
                                 .object()
                                 .value(QLatin1String("chats"))
                                 .toArray();
    QCOMPARE(int(chats.size()), 1);
    QCOMPARE(chats.at(0).toObject().value(QLatin1String("chat")).toString(), chat);
    const QJsonArray sessions = chats.at(0).toObject().value(QLatin1String("sessions")).toArray();
    QCOMPARE(int(sessions.size()), 2);
    QCOMPARE(sessions.at(0).toObject().value(QLatin1String("session_id")).toString(),
        fork); // newest first
    QCOMPARE(sessions.at(0).toObject().value(QLatin1String("forked_from")).toString(), original);
    QCOMPARE(sessions.at(1).toObject().value(QLatin1String("session_id")).toString(), original);
    for (const QJsonValue &session : sessions) {
        QVERIFY(session.toObject().value(QLatin1String("on_server")).toBool());
        QVERIFY(session.toObject().value(QLatin1String("local")).toBool());
        QVERIFY(session.toObject()
                    .value(QLatin1String("path"))
                    .toString()
                    .endsWith(session.toObject().value(QLatin1String("session_id")).toString()
                        + QLatin1String(".jsonl")));
    }

    // Without a local record (another machine), --resume finds the newest session on the server.
    const QString emptyStore = m_local.filePath(QStringLiteral("empty-sessions.json"));
    const CliResult elsewhere = runCli(runArguments(m_alice, chat, QStringLiteral("fourth"))
            + QStringList {QStringLiteral("--resume")},
        cliEnvironment(emptyStore));
    QVERIFY2(elsewhere.exitCode == 0, elsewhere.diagnostics());
    QVERIFY2(elsewhere.out.contains(
                 QStringLiteral("Resuming session %1 (found on the server)").arg(fork)),
        elsewhere.diagnostics());
    QVERIFY2(elsewhere.outLines().constLast().contains(QStringLiteral("session ") + fork),
        elsewhere.diagnostics());

    // A chat without any session cannot be resumed.
    const CliResult nothing
        = runCli(runArguments(m_alice, QStringLiteral("never-run"), QStringLiteral("x"))
                + QStringList {QStringLiteral("--resume")},
            environment);
    QVERIFY2(nothing.exitCode == 1, nothing.diagnostics());
    QVERIFY2(nothing.err.contains(QLatin1String("no session to resume")), nothing.diagnostics());
}

void AgentRunsTest::twoUsersRunAtOnceWithoutMixing()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    const Identity bob = newIdentity(QStringLiteral("bob"));
    const QString aliceToken = QLatin1String("alice") + randomToken(10);
    const QString bobToken = QLatin1String("bob") + randomToken(10);
    ClaudeRunOptions options;
    options.allowedTools = QStringList {QStringLiteral("Bash")};

    CoreRun aliceRun;
    CoreRun bobRun;
    auto aliceLauncher = newLauncher(m_client.get(), m_alice);
    auto bobLauncher = newLauncher(m_client.get(), bob);
    aliceRun.watch(aliceLauncher.get());
    bobRun.watch(bobLauncher.get());
    aliceLauncher->launch(QStringLiteral("same-chat"),
        QLatin1String("CMD: sleep 1; echo ") + aliceToken, options, environment(m_model->url()));
    bobLauncher->launch(QStringLiteral("same-chat"),
        QLatin1String("CMD: sleep 1; echo ") + bobToken, options, environment(m_model->url()));
    QVERIFY2(QTest::qWaitFor([&] { return aliceRun.ended() && bobRun.ended(); }, runTimeoutMs),
        QByteArray(aliceRun.diagnostics() + bobRun.diagnostics()).constData());
    QVERIFY2(aliceRun.failure.isEmpty() && aliceRun.exitCode == 0, aliceRun.diagnostics());
    QVERIFY2(bobRun.failure.isEmpty() && bobRun.exitCode == 0, bobRun.diagnostics());

    QVERIFY(aliceRun.sawLineContaining(aliceToken));
    QVERIFY(!aliceRun.sawLineContaining(bobToken));
    QVERIFY(bobRun.sawLineContaining(bobToken));
    QVERIFY(!bobRun.sawLineContaining(aliceToken));
    QVERIFY(aliceRun.handle.home != bobRun.handle.home);
    QVERIFY(aliceRun.sawLineContaining(aliceRun.handle.home + QLatin1String("/chat-same-chat")));
    QVERIFY(bobRun.sawLineContaining(bobRun.handle.home + QLatin1String("/chat-same-chat")));
    const RunSummary aliceSummary = aliceRun.model->summary();
    const RunSummary bobSummary = bobRun.model->summary();
    QVERIFY(aliceSummary.hasResult && !aliceSummary.isError);
    QVERIFY(bobSummary.hasResult && !bobSummary.isError);
    QVERIFY(aliceSummary.sessionId != bobSummary.sessionId);
}

void AgentRunsTest::reattachAfterTheClientWasDestroyed()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    // tst_runlauncher re-attaches with the same client; here the client (its network access
    // manager and every pending request) goes too, and one model shows the whole run.
    const QString token = QLatin1String("late") + randomToken(10);
    ClaudeRunOptions options;
    options.allowedTools = QStringList {QStringLiteral("Bash")};
    CoreRun run;
    {
        auto client = std::make_unique<OpenTerminalClient>(m_server->connection());
        auto launcher = newLauncher(client.get(), m_alice);
        run.watch(launcher.get());
        launcher->launch(QStringLiteral("reattach-1"), QLatin1String("CMD: sleep 3; echo ") + token,
            options, environment(m_model->url()));
        QVERIFY2(
            QTest::qWaitFor(
                [&run] {
                    return run.ended()
                        || (run.started && run.sawLineContaining(QStringLiteral("\"tool_use\"")));
                },
                runTimeoutMs),
            run.diagnostics());
        QVERIFY2(!run.ended(), run.diagnostics());
        launcher.reset();
        client.reset();
    }
    const qint64 seen = run.lines.size();
    const QString persisted = QString::fromUtf8(QJsonDocument(run.handle.toJson()).toJson());
    QCOMPARE(statusOf(toolCalls(run.model.get(), QStringLiteral("Bash")).value(0)),
        RunModel::Status::Running);

    auto client = std::make_unique<OpenTerminalClient>(m_server->connection());
    auto launcher = newLauncher(client.get(), m_alice);
    run.watch(launcher.get());
    launcher->reattach(
        RunHandle::fromJson(QJsonDocument::fromJson(persisted.toUtf8()).object()), seen);
    QVERIFY2(QTest::qWaitFor([&run] { return run.ended(); }, runTimeoutMs), run.diagnostics());
    QVERIFY2(run.failure.isEmpty(), run.diagnostics());
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(run.lines, launcher->lines()); // nothing lost, nothing twice

    const QList<QModelIndex> calls = toolCalls(run.model.get(), QStringLiteral("Bash"));
    QCOMPARE(int(calls.size()), 1);
    QCOMPARE(statusOf(calls.at(0)), RunModel::Status::Ok);
    QVERIFY(calls.at(0).data(RunModel::TextRole).toString().contains(token));
    const RunSummary summary = run.model->summary();
    QVERIFY(summary.hasResult && !summary.isError);
    QCOMPARE(summary.unmatchedToolCalls, qint64(0));
}

void AgentRunsTest::jsonOutputEndsWithSummaryMatchingTheStream()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    const QString recording = m_local.filePath(QStringLiteral("json-run.recording.jsonl"));
    const QString promptMarker = QLatin1String("PARALLEL secretprompt") + randomToken(8);
    const CliResult result = runCli(runArguments(m_alice, QStringLiteral("json-1"), promptMarker)
            + QStringList {QStringLiteral("--json"), QStringLiteral("--record"), recording},
        cliEnvironment());
    QVERIFY2(result.exitCode == 0, result.diagnostics());
    const QStringList lines = result.outLines();
    QVERIFY2(lines.size() >= 5, result.diagnostics());

    // Every line is a JSON object; the stream's own values, computed here independently.
    QString sessionId;
    QSet<QString> toolUses;
    QSet<QString> answered;
    QSet<QString> failed;
    QJsonObject lastResult;
    for (const QString &line : lines.mid(0, lines.size() - 1)) {
        const QJsonObject object = parse(line);
        QVERIFY2(!object.isEmpty(), qPrintable(line));
        if (sessionId.isEmpty())
            sessionId = object.value(QLatin1String("session_id")).toString();
        const QJsonArray content = object.value(QLatin1String("message"))
                                       .toObject()
                                       .value(QLatin1String("content"))
                                       .toArray();
        for (const QJsonValue &value : content) {
            const QJsonObject block = value.toObject();
            if (block.value(QLatin1String("type")).toString() == QLatin1String("tool_use"))
                toolUses.insert(block.value(QLatin1String("id")).toString());
            if (block.value(QLatin1String("type")).toString() == QLatin1String("tool_result")) {
                answered.insert(block.value(QLatin1String("tool_use_id")).toString());
                if (block.value(QLatin1String("is_error")).toBool())
                    failed.insert(block.value(QLatin1String("tool_use_id")).toString());
            }
        }
        if (typeOf(object) == QLatin1String("result"))
            lastResult = object;
    }
    QVERIFY(!lastResult.isEmpty());
    qint64 inputTokens = 0;
    qint64 outputTokens = 0;
    const QJsonObject perModel = lastResult.value(QLatin1String("modelUsage")).toObject();
    for (const QJsonValue &usage : perModel) {
        inputTokens += qint64(usage.toObject().value(QLatin1String("inputTokens")).toDouble());
        outputTokens += qint64(usage.toObject().value(QLatin1String("outputTokens")).toDouble());
    }

    const QJsonObject summary = parse(lines.constLast());
    QCOMPARE(typeOf(summary), QStringLiteral("sandscope_summary"));
    QCOMPARE(summary.value(QLatin1String("session_id")).toString(), sessionId);
    QCOMPARE(summary.value(QLatin1String("result_subtype")).toString(),
        lastResult.value(QLatin1String("subtype")).toString());
    QCOMPARE(summary.value(QLatin1String("is_error")).toBool(),
        lastResult.value(QLatin1String("is_error")).toBool());
    QCOMPARE(
        qint64(summary.value(QLatin1String("tool_calls")).toDouble()), qint64(toolUses.size()));
    QCOMPARE(qint64(summary.value(QLatin1String("tool_calls")).toDouble()), qint64(2));
    QCOMPARE(qint64(summary.value(QLatin1String("tool_errors")).toDouble()), qint64(failed.size()));
    QCOMPARE(qint64(summary.value(QLatin1String("unmatched_tool_calls")).toDouble()),
        qint64((toolUses - answered).size()));
    QCOMPARE(summary.value(QLatin1String("cost_usd")).toDouble(),
        lastResult.value(QLatin1String("total_cost_usd")).toDouble());
    QCOMPARE(qint64(summary.value(QLatin1String("input_tokens")).toDouble()), inputTokens);
    QCOMPARE(qint64(summary.value(QLatin1String("output_tokens")).toDouble()), outputTokens);
    QVERIFY(outputTokens > 0);

    // The recording holds the same stream lines, each with its arrival time.
    const QStringList recorded
        = readWholeFile(recording).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QVERIFY2(
        recorded.size() == lines.size(), qPrintable(recorded.join(QLatin1Char('\n')).left(3000)));
    QVERIFY(parse(recorded.at(0)).contains(QLatin1String("sandscope_recording")));
    qint64 previous = 0;
    for (qsizetype i = 1; i < recorded.size(); ++i) {
        const QJsonObject entry = parse(recorded.at(i));
        QCOMPARE(entry.value(QLatin1String("line")).toString(), lines.at(i - 1));
        QVERIFY(qint64(entry.value(QLatin1String("t")).toDouble()) >= previous);
        previous = qint64(entry.value(QLatin1String("t")).toDouble());
    }

    // The audit log names the run and the chat, never the prompt or a secret.
    const QString audit = readWholeFile(m_local.filePath(QStringLiteral("audit.jsonl")));
    bool entryFound = false;
    for (const QString &line : audit.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        const QJsonObject entry = parse(line);
        entryFound = entryFound
            || (entry.value(QLatin1String("action")).toString() == QLatin1String("run")
                && entry.value(QLatin1String("target"))
                       .toString()
                       .startsWith(QLatin1String("chat json-1 run "))
                && entry.value(QLatin1String("user")).toString() == m_alice.userId);
    }
    QVERIFY2(entryFound, qPrintable(audit));
    QVERIFY(!audit.contains(promptMarker));
    QVERIFY(!audit.contains(m_secret));
    QVERIFY(!audit.contains(m_server->apiKey()));
    QVERIFY(!result.err.contains(m_secret));
}

void AgentRunsTest::sessionsAndSearchFindASessionStartedElsewhere()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    // As Open WebUI does: claude through a plain /execute, in a directory that is no chat.
    const QString token = QLatin1String("elsewhere") + randomToken(10);
    const QString directory = QLatin1String("owui-") + randomToken(6, true);
    QStringList assignments;
    const QHash<QString, QString> variables = environment(m_model->url());
    for (auto it = variables.cbegin(); it != variables.cend(); ++it)
        assignments << shell::quote(it.key() + QLatin1Char('=') + it.value());
    const QString command
        = QStringLiteral("mkdir -p ~/%1 && cd ~/%1 && env %2 claude -p %3 --output-format "
                         "stream-json --verbose --allowedTools Bash < /dev/null > /dev/null 2>&1; "
                         "echo claude-exit=$?")
              .arg(directory, assignments.join(QLatin1Char(' ')),
                  shell::quote(QLatin1String("CMD: echo ") + token));
    const QStringList ran = shellLines(m_client.get(), m_alice, command, runTimeoutMs);
    QVERIFY2(
        ran.contains(QStringLiteral("claude-exit=0")), qPrintable(ran.join(QLatin1Char('\n'))));

    // Nothing recorded locally: the session is known from the server alone.
    const QProcessEnvironment environment
        = cliEnvironment(m_local.filePath(QStringLiteral("elsewhere-sessions.json")));
    const QStringList connection {QStringLiteral("--server"), m_server->url().toString(),
        QStringLiteral("--user"), m_alice.userId};
    const CliResult listed = runCli(QStringList {QStringLiteral("sessions")} + connection
            + QStringList {QStringLiteral("--json")},
        environment);
    QVERIFY2(listed.exitCode == 0, listed.diagnostics());
    const QJsonObject root = QJsonDocument::fromJson(listed.out.toUtf8()).object();
    QJsonObject found;
    for (const QJsonValue &value : root.value(QLatin1String("other_sessions")).toArray()) {
        if (value.toObject()
                .value(QLatin1String("cwd"))
                .toString()
                .endsWith(QLatin1Char('/') + directory))
            found = value.toObject();
    }
    QVERIFY2(!found.isEmpty(), listed.diagnostics());
    const QString sessionId = found.value(QLatin1String("session_id")).toString();
    QVERIFY(!sessionId.isEmpty());
    QCOMPARE(found.value(QLatin1String("title")).toString(), QLatin1String("CMD: echo ") + token);
    QCOMPARE(found.value(QLatin1String("turns")).toInt(), 1);
    QCOMPARE(found.value(QLatin1String("tool_calls")).toInt(), 1);
    QVERIFY(found.value(QLatin1String("on_server")).toBool());
    QVERIFY(!found.value(QLatin1String("local")).toBool());
    QVERIFY(found.value(QLatin1String("size")).toDouble() > 0);
    QVERIFY(found.value(QLatin1String("cost_usd")).toDouble() > 0);
    QVERIFY(!found.value(QLatin1String("model")).toString().isEmpty());
    QVERIFY(found.value(QLatin1String("running")).isBool());
    const QDateTime started
        = QDateTime::fromString(found.value(QLatin1String("started")).toString(), Qt::ISODate);
    QVERIFY2(qAbs(started.secsTo(QDateTime::currentDateTimeUtc())) < 600, listed.diagnostics());
    QVERIFY(found.value(QLatin1String("path"))
                .toString()
                .endsWith(sessionId + QLatin1String(".jsonl")));
    const CliResult table
        = runCli(QStringList {QStringLiteral("sessions")} + connection, environment);
    QVERIFY2(table.exitCode == 0 && table.out.contains(sessionId)
            && table.out.contains(QLatin1String("~/") + directory),
        table.diagnostics());

    // search finds the command the agent ran: its call and its result.
    const CliResult searched = runCli(QStringList {QStringLiteral("search")} + connection
            + QStringList {token, QStringLiteral("--tool"), QStringLiteral("Bash"),
                QStringLiteral("--json")},
        environment);
    QVERIFY2(searched.exitCode == 0, searched.diagnostics());
    QSet<QString> types;
    for (const QJsonValue &value : QJsonDocument::fromJson(searched.out.toUtf8())
                                       .object()
                                       .value(QLatin1String("hits"))
                                       .toArray()) {
        const QJsonObject hit = value.toObject();
        QCOMPARE(hit.value(QLatin1String("session_id")).toString(), sessionId);
        QCOMPARE(hit.value(QLatin1String("tool_name")).toString(), QStringLiteral("Bash"));
        QCOMPARE(hit.value(QLatin1String("turn")).toInt(), 1);
        QVERIFY(!hit.value(QLatin1String("tool_use_id")).toString().isEmpty());
        QVERIFY(hit.value(QLatin1String("excerpt")).toString().contains(token));
        types.insert(hit.value(QLatin1String("record_type")).toString());
    }
    QCOMPARE(types, QSet<QString>({QStringLiteral("assistant"), QStringLiteral("user")}));

    const CliResult nothing = runCli(QStringList {QStringLiteral("search")} + connection
            + QStringList {QLatin1String("absent") + randomToken(12)},
        environment);
    QVERIFY2(nothing.exitCode == 1 && nothing.out.contains(QLatin1String("(no matching lines)")),
        nothing.diagnostics());
    // Every user's transcripts, as root through the admin command (this machine is the
    // sandbox host): the hit names the account it was found in.
    const QStringList server {QStringLiteral("--server"), m_server->url().toString()};
    const QString aliceHome
        = shellLines(m_client.get(), m_alice, QStringLiteral("pwd -P")).value(0).trimmed();
    const QString aliceAccount = aliceHome.mid(aliceHome.lastIndexOf(QLatin1Char('/')) + 1);
    QVERIFY(!aliceAccount.isEmpty());
    const QStringList admin {
        QStringLiteral("--all-users"), QStringLiteral("--admin-exec"), QStringLiteral("sudo -n")};
    const CliResult everyone = runCli(QStringList {QStringLiteral("search")} + server + admin
            + QStringList {token, QStringLiteral("--json")},
        environment);
    QVERIFY2(everyone.exitCode == 0, everyone.diagnostics());
    QVERIFY2(everyone.err.contains(QLatin1String("as root through the admin command \"sudo -n "
                                                 "sh -s\"")),
        everyone.diagnostics());
    const QJsonArray everyHit = QJsonDocument::fromJson(everyone.out.toUtf8())
                                    .object()
                                    .value(QLatin1String("hits"))
                                    .toArray();
    QVERIFY(!everyHit.isEmpty());
    for (const QJsonValue &hit : everyHit)
        QCOMPARE(hit.toObject().value(QLatin1String("account")).toString(), aliceAccount);

    const CliResult sessions = runCli(QStringList {QStringLiteral("sessions")} + server + admin
            + QStringList {QStringLiteral("--json")},
        environment);
    QVERIFY2(sessions.exitCode == 0, sessions.diagnostics());
    bool everyoneListed = false;
    const QJsonArray all = QJsonDocument::fromJson(sessions.out.toUtf8())
                               .object()
                               .value(QLatin1String("sessions"))
                               .toArray();
    for (const QJsonValue &row : all)
        everyoneListed = everyoneListed
            || (row.toObject().value(QLatin1String("account")).toString() == aliceAccount
                && row.toObject().value(QLatin1String("tool_calls")).toInt() > 0);
    QVERIFY2(everyoneListed, qPrintable(sessions.out.left(2000)));
}

QTEST_GUILESS_MAIN(AgentRunsTest)
#include "tst_claude_scenarios.moc"
