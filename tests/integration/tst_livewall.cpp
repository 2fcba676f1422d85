// The live wall against a REAL multi-user open-terminal (once per pinned version,
// SANDSCOPE_OT_VERSION) and REAL claude agents: three users each start `claude -p` through a
// plain /execute, as Open WebUI's pipe does (outside Sandscope), against the scripted model
// server; its Bash call runs for a few seconds. ONE follower process as root (the admin
// command `sudo -n`) puts all three on the wall with the right user, chat and session, shows
// their running call within 1 s of the agent writing its record, and lets each go when its
// process ends; `sandscope live --all-users --json` says the same in its lines and ends cleanly
// on Ctrl+C. Without an admin command the server's own account carries the follower where
// the server allows it (0.11.x), and a newer server's refusal is said.

#include "live/liveagentmodel.h"
#include "live/liveagentwatcher.h"
#include "putfile.h"
#include "realserver.h"
#include "recordings/runrecording.h"
#include "server/openterminalclient.h"
#include "sessions/sessiondiscovery.h"
#include "testing.h"
#include "util/shellquote.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QUuid>
#include <QtTest>

#include <csignal>

using namespace sandscope;
using namespace sandscope::test;

namespace {

constexpr int waitMs = 60000;
// How long each agent's Bash call runs: the wall must show it while it does.
constexpr int callSeconds = 6;

struct Agent {
    Identity who;
    QString account;
    QString home;
    QString chat;
    QString session;
    qint64 firstSeenWithCallMs = -1; // when the wall first showed its Bash call
    QString transcript; // where the CLI writes it (the test runs as root and reads it too)
    qint64 callWrittenMs = -1; // when the call's record was first in the file
    LiveAgentRow last; // the last row the wall showed of it
    bool left = false;
};

} // namespace

class LiveWallTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QString why;
        SANDSCOPE_REQUIRE(RealServer::canRunMultiUser(&why), why);
        SANDSCOPE_REQUIRE(!QStandardPaths::findExecutable(QStringLiteral("claude")).isEmpty(),
            "needs the claude CLI (scripts/install-deps.sh)");
        const QString version
            = envOr("SANDSCOPE_OT_VERSION", RealServer::pinnedVersion("OPEN_TERMINAL_VERSION"));
        m_server = std::make_unique<RealServer>(version, RealServer::Mode::MultiUser);
        m_model = std::make_unique<ScriptedModelServer>();
        QString error;
        QVERIFY2(m_server->start(&error) && m_model->start(&error), qPrintable(error));
        m_client = std::make_unique<OpenTerminalClient>(m_server->connection());
        isolateLocalState(m_local.path());
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_model.reset();
        m_server.reset();
    }

    void theWallListsAgentsOfThreeUsersStartedOutsideSandscope()
    {
        QVERIFY(AdminAccess::fromCommand(QStringLiteral("sudo -n"), &m_admin));
        QList<Agent> agents;
        for (int i = 0; i < 3; ++i) {
            agents.append(newAgent(QStringLiteral("wall%1").arg(i)));
            QVERIFY(!agents.constLast().home.isEmpty());
        }

        LiveAgentWatcher watcher;
        LiveAgentModel model;
        auto find = [&agents](const LiveAgentRow &row) -> Agent * {
            for (Agent &agent : agents) {
                if (agent.session == row.info.sessionId)
                    return &agent;
            }
            return nullptr; // another agent on this machine
        };
        QObject::connect(&watcher, &LiveAgentWatcher::agentsChanged, &model,
            [&](const QVector<LiveAgentRow> &changed, const QList<QByteArray> &ended) {
                const qint64 now = QDateTime::currentMSecsSinceEpoch();
                for (const QByteArray &id : ended) {
                    const int row = model.rowOf(id);
                    if (Agent *agent = row >= 0 ? find(model.agentAt(row)) : nullptr)
                        agent->left = true;
                }
                for (const LiveAgentRow &row : changed) {
                    Agent *agent = find(row);
                    if (!agent)
                        continue;
                    agent->last = row;
                    if (row.toolName == QLatin1String("Bash") && agent->firstSeenWithCallMs < 0)
                        agent->firstSeenWithCallMs = now;
                }
                model.apply(changed, ended);
            });
        watcher.start(m_client.get(), m_admin);
        QVERIFY2(QTest::qWaitFor(
                     [&] { return watcher.state() == LiveAgentWatcher::State::Watching; }, waitMs),
            qPrintable(watcher.error()));

        QProcess cli;
        startCli(&cli);
        // The agents' writes, seen by reading their transcripts every 10 ms (the record's own
        // timestamp is not the time of the write: the CLI writes its records in batches).
        QTimer reader;
        QObject::connect(&reader, &QTimer::timeout, &reader, [&agents] {
            for (Agent &agent : agents) {
                QFile file(agent.transcript);
                if (agent.callWrittenMs < 0 && file.open(QIODevice::ReadOnly)
                    && file.readAll().contains("\"type\":\"tool_use\""))
                    agent.callWrittenMs = QDateTime::currentMSecsSinceEpoch();
            }
        });
        reader.start(10);

        for (const Agent &agent : std::as_const(agents))
            startAgent(agent);
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         return std::all_of(agents.cbegin(), agents.cend(),
                             [](const Agent &agent) { return agent.firstSeenWithCallMs > 0; });
                     },
                     waitMs),
            qPrintable(watcher.error()));
        for (const Agent &agent : std::as_const(agents)) {
            QCOMPARE(agent.last.info.account, agent.account);
            QCOMPARE(agent.last.info.chatId(), agent.chat);
            QCOMPARE(agent.last.info.sessionId, agent.session);
            QVERIFY(agent.last.info.transcript.endsWith(agent.session + QStringLiteral(".jsonl")));
            QVERIFY(agent.callWrittenMs > 0);
            const qint64 lag = agent.firstSeenWithCallMs - agent.callWrittenMs;
            qInfo("%s: its Bash call on the wall %lld ms after the agent wrote it",
                qPrintable(agent.account), lag);
            QVERIFY2(lag < 1000, qPrintable(QStringLiteral("lag %1 ms").arg(lag)));
        }
        // Each claude ends after its call: it leaves the wall, and its figures were there.
        QVERIFY2(QTest::qWaitFor(
                     [&] {
                         return std::all_of(agents.cbegin(), agents.cend(),
                             [](const Agent &agent) { return agent.left; });
                     },
                     waitMs),
            qPrintable(watcher.error()));
        for (const Agent &agent : std::as_const(agents)) {
            QVERIFY(agent.last.summary.outputTokens > 0);
            QCOMPARE(model.rowOf(agent.last.info.id), -1);
        }
        QCOMPARE(watcher.processesStarted(), 1);
        QCOMPARE(watcher.state(), LiveAgentWatcher::State::Watching);

        // The command line saw the same (its own follower, so wait for its line of each
        // agent's end: other suites' agents on this machine end too), and ends cleanly on
        // Ctrl+C.
        QByteArray out;
        QVERIFY(QTest::qWaitFor(
            [&] {
                out += cli.readAllStandardOutput();
                const QList<QByteArray> lines = out.split('\n');
                return std::all_of(agents.cbegin(), agents.cend(), [&lines](const Agent &agent) {
                    const QByteArray session = agent.session.toUtf8();
                    return std::any_of(lines.cbegin(), lines.cend(), [&](const QByteArray &line) {
                        return line.contains("\"event\":\"ended\"") && line.contains(session);
                    });
                });
            },
            waitMs));
        ::kill(pid_t(cli.processId()), SIGINT);
        QVERIFY(cli.waitForFinished(10000));
        out += cli.readAllStandardOutput();
        const QString err = QString::fromUtf8(cli.readAllStandardError());
        QCOMPARE(cli.exitStatus(), QProcess::NormalExit);
        QVERIFY2(cli.exitCode() == 0, qPrintable(err));
        QVERIFY2(err.contains(QLatin1String("\"sudo -n sh -s\"")), qPrintable(err));
        QHash<QString, QStringList> events; // session -> events
        QHash<QString, QJsonObject> lastOf;
        const QList<QByteArray> lines = out.split('\n');
        for (const QByteArray &line : lines) {
            if (line.isEmpty())
                continue;
            const QJsonObject object = QJsonDocument::fromJson(line).object();
            QVERIFY2(!object.isEmpty(), line.constData());
            QVERIFY(!object.contains(QLatin1String("member")));
            const QString session = object.value(QLatin1String("session")).toString();
            events[session].append(object.value(QLatin1String("event")).toString());
            lastOf.insert(session, object);
        }
        for (const Agent &agent : std::as_const(agents)) {
            const QStringList seen = events.value(agent.session);
            QVERIFY2(
                seen.contains(QLatin1String("agent")) && seen.constLast() == QLatin1String("ended"),
                qPrintable(seen.join(QLatin1Char(' '))));
            const QJsonObject last = lastOf.value(agent.session);
            QCOMPARE(last.value(QLatin1String("user")).toString(), agent.account);
            QCOMPARE(last.value(QLatin1String("chat")).toString(), agent.chat);
            QCOMPARE(last.value(QLatin1String("tokens"))
                         .toObject()
                         .value(QLatin1String("output"))
                         .toDouble(),
                double(agent.last.summary.outputTokens));
        }
    }

    // Without an admin command the follower runs as the server's own account: 0.11.x allows
    // that (here the account is root, so no sudo is needed) and the wall works through it;
    // newer servers refuse requests without X-User-Id, and the wall says so.
    void theServerAccountChannelWorksWhereTheServerAllowsIt()
    {
        LiveAgentWatcher watcher;
        LiveAgentModel model;
        QObject::connect(
            &watcher, &LiveAgentWatcher::agentsChanged, &model, &LiveAgentModel::apply);
        watcher.start(m_client.get(), AdminAccess::serverAccount());
        if (!m_server->version().startsWith(QLatin1String("0.11."))) {
            QVERIFY(QTest::qWaitFor(
                [&] { return watcher.state() == LiveAgentWatcher::State::Failed; }, waitMs));
            QVERIFY2(
                watcher.error().contains(QLatin1String("X-User-Id")), qPrintable(watcher.error()));
            return;
        }
        QVERIFY2(QTest::qWaitFor(
                     [&] { return watcher.state() == LiveAgentWatcher::State::Watching; }, waitMs),
            qPrintable(watcher.error()));
        Agent agent;
        const QString suffix = randomToken(5, true);
        agent.who = {QStringLiteral("wallsa") + suffix, QStringLiteral("wallsa-") + suffix};
        agent.chat = QStringLiteral("sa") + suffix;
        agent.session = QUuid::createUuid().toString(QUuid::WithoutBraces);
        shellLines(m_client.get(), agent.who, QStringLiteral("true")); // see newAgent
        agent.home = shellLines(m_client.get(), agent.who, QStringLiteral("echo \"$HOME\""))
                         .value(0)
                         .trimmed();
        startAgent(agent);
        auto rowOfAgent = [&] {
            for (int row = 0; row < model.rowCount(); ++row) {
                if (model.agentAt(row).info.sessionId == agent.session)
                    return row;
            }
            return -1;
        };
        QVERIFY2(QTest::qWaitFor([&] { return rowOfAgent() >= 0; }, waitMs),
            qPrintable(watcher.error()));
        QCOMPARE(model.agentAt(rowOfAgent()).info.chatId(), agent.chat);
        QVERIFY2(
            QTest::qWaitFor([&] { return rowOfAgent() < 0; }, waitMs), qPrintable(watcher.error()));
        QCOMPARE(watcher.state(), LiveAgentWatcher::State::Watching);
    }

    // An agent whose two sub-agents run Bash calls at once: their records count in the row
    // while they run (tokens and calls before the Agent calls end), and the figures the wall
    // shows last equal the replay's of the finished transcript with its sub-agent files
    // (summarizeRunFile, RunSummaryBuilder: the one place figures are computed).
    void anAgentsSubagentsCountInItsFiguresAsInItsReplay()
    {
        QVERIFY(AdminAccess::fromCommand(QStringLiteral("sudo -n"), &m_admin));
        const Agent agent = newAgent(QStringLiteral("subs"));
        QVERIFY(!agent.home.isEmpty());
        LiveAgentWatcher watcher;
        LiveAgentModel model;
        LiveAgentRow last;
        qint64 mostCallsWhileAgentsRan = 0;
        bool left = false;
        QObject::connect(&watcher, &LiveAgentWatcher::agentsChanged, &model,
            [&](const QVector<LiveAgentRow> &changed, const QList<QByteArray> &ended) {
                for (const QByteArray &id : ended) {
                    const int row = model.rowOf(id);
                    if (row >= 0 && model.agentAt(row).info.sessionId == agent.session)
                        left = true;
                }
                for (const LiveAgentRow &row : changed) {
                    if (row.info.sessionId != agent.session)
                        continue;
                    last = row;
                    if (row.toolName == QLatin1String("Agent"))
                        mostCallsWhileAgentsRan
                            = std::max(mostCallsWhileAgentsRan, row.summary.toolCalls);
                }
                model.apply(changed, ended);
            });
        watcher.start(m_client.get(), m_admin);
        QVERIFY2(QTest::qWaitFor(
                     [&] { return watcher.state() == LiveAgentWatcher::State::Watching; }, waitMs),
            qPrintable(watcher.error()));
        startAgent(agent, QStringLiteral("PARALLEL_AGENTS"),
            QStringLiteral("--allowedTools Bash --allowedTools Agent"));
        QVERIFY2(QTest::qWaitFor([&] { return left; }, waitMs), qPrintable(watcher.error()));

        RunSummary replayed;
        QString error;
        QVERIFY2(summarizeRunFile(agent.transcript, &replayed, &error), qPrintable(error));
        // Two Agent calls and each sub-agent's Bash call.
        QVERIFY2(replayed.toolCalls >= 4, qPrintable(QString::number(replayed.toolCalls)));
        QVERIFY2(mostCallsWhileAgentsRan > 2,
            qPrintable(
                QStringLiteral("%1 calls while the Agent calls ran").arg(mostCallsWhileAgentsRan)));
        QCOMPARE(last.summary.toolCalls, replayed.toolCalls);
        QCOMPARE(last.summary.inputTokens, replayed.inputTokens);
        QCOMPARE(last.summary.outputTokens, replayed.outputTokens);
        QCOMPARE(last.summary.cacheReadTokens, replayed.cacheReadTokens);
        QCOMPARE(last.summary.costUsd, replayed.costUsd);
        QVERIFY2(last.problem.isEmpty(), qPrintable(last.problem));
    }

private:
    // A user of the server (its account and home looked up) with a new chat and session.
    Agent newAgent(const QString &name)
    {
        Agent agent;
        const QString suffix = randomToken(5, true);
        agent.who = {name + suffix, QStringLiteral("wall-") + suffix};
        agent.chat = QStringLiteral("c") + suffix;
        agent.session = QUuid::createUuid().toString(QUuid::WithoutBraces);
        // 0.11.34 sometimes runs a new user's first command with no output at all
        // (docs/server-behaviour.md): the account is made first.
        shellLines(m_client.get(), agent.who, QStringLiteral("true"));
        const QStringList facts
            = shellLines(m_client.get(), agent.who, QStringLiteral("id -un; echo \"$HOME\""));
        if (facts.size() != 2) {
            qWarning() << "id -un; echo $HOME said" << facts;
            return agent; // no home: the caller fails
        }
        agent.account = facts.first().trimmed();
        agent.home = facts.last().trimmed();
        agent.transcript = agent.home + QStringLiteral("/.claude/projects/")
            + sessiondiscovery::projectDirectoryName(
                sessiondiscovery::chatWorkDirectory(agent.home, agent.chat))
            + QLatin1Char('/') + agent.session + QStringLiteral(".jsonl");
        return agent;
    }

    // `claude -p` run directly through /execute in the user's chat folder, as Open WebUI's
    // pipe runs it: not through Sandscope.
    void startAgent(const Agent &agent,
        const QString &prompt = QStringLiteral("CMD: sleep %1; echo done").arg(callSeconds),
        const QString &tools = QStringLiteral("--allowedTools Bash"))
    {
        const QString &home = agent.home;
        QVERIFY(!home.isEmpty());
        QByteArray envFile;
        const QHash<QString, QString> environment
            = m_model->agentEnvironment(QStringLiteral("sk-ant-wall-") + randomToken(16));
        for (auto it = environment.cbegin(); it != environment.cend(); ++it)
            envFile += it.key().toUtf8() + '=' + shell::quote(it.value()).toUtf8() + '\n';
        QVERIFY(putFile(m_client.get(), agent.who, home + QStringLiteral("/.agent-env"), envFile));
        ExecuteOptions options;
        options.cwd = home;
        const QString command
            = QStringLiteral("chmod 600 ~/.agent-env && set -a && . ~/.agent-env && set +a && "
                             "mkdir -p chat-%1 && cd chat-%1 && claude -p %2 --session-id %3 "
                             "--output-format stream-json --verbose %4 "
                             "> /dev/null 2>&1 < /dev/null")
                  .arg(agent.chat, shell::quote(prompt), agent.session, tools);
        const Result<ProcessSnapshot> started = sandscope::await<ProcessSnapshot>([&](auto done) {
            return m_client->execute(agent.who, command, options, m_client.get(), done);
        });
        QVERIFY2(started.ok(), qPrintable(started.error.toString()));
    }

    void startCli(QProcess *cli)
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("SANDSCOPE_API_KEY"), m_server->apiKey());
        environment.insert(
            QStringLiteral("SANDSCOPE_AUDIT_LOG"), m_local.filePath(QStringLiteral("audit.jsonl")));
        cli->setProcessEnvironment(environment);
        cli->start(QStringLiteral(SANDSCOPE_BINARY),
            {QStringLiteral("live"), QStringLiteral("--server"), m_server->url().toString(),
                QStringLiteral("--all-users"), QStringLiteral("--admin-exec"),
                QStringLiteral("sudo -n"), QStringLiteral("--json")});
        QVERIFY(cli->waitForStarted(10000));
    }

    std::unique_ptr<RealServer> m_server;
    std::unique_ptr<ScriptedModelServer> m_model;
    std::unique_ptr<OpenTerminalClient> m_client;
    AdminAccess m_admin;
    QTemporaryDir m_local;
};

QTEST_GUILESS_MAIN(LiveWallTest)
#include "tst_livewall.moc"
