// Sessions on the server, read and followed as their user through a REAL multi-user
// open-terminal (the pinned OPEN_TERMINAL_VERSION):
//  * a transcript that grows while it is followed (real records of a recorded claude run,
//    appended in two steps) gives the same tree as reading the file locally, in few looks;
//  * a session with sub-agents is read with its subagents/ folder;
//  * a transcript deleted while followed, and another user's transcript, end with a clear
//    message and keep what was shown;
//  * `sandscope replay --server --user --session --follow` follows a REAL claude run started
//    with a plain /execute (as Open WebUI's pipe does) until its turn ends.

#include "putfile.h"
#include "realserver.h"
#include "recordings/runrecording.h"
#include "runs/loadedrun.h"
#include "runtree/runmodel.h"
#include "runtreeshape.h"
#include "sandscopecli.h"
#include "server/openterminalclient.h"
#include "sessions/transcriptfollower.h"
#include "streamjson/runparser.h"
#include "testing.h"
#include "util/shellquote.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QUuid>
#include <QtTest>

using namespace sandscope;
using namespace sandscope::test;

namespace {

constexpr int waitMs = 60000;

QString dataPath(const QString &name)
{
    return QStringLiteral(SANDSCOPE_TEST_DATA_DIR) + QLatin1Char('/') + name;
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// The tree of a local file, read the way the app reads files.
QStringList localShape(const QString &path)
{
    RecordingReader reader;
    if (!reader.open(path))
        return {};
    RunParser parser;
    RunModel model;
    RecordedLine line;
    while (reader.readLine(&line))
        model.addEvents(reader.eventsOf(parser, line));
    model.addEvents(reader.finishReading());
    return toolCallShape(model);
}

// The order in which calls start and return.
QStringList callsAndResults(const RunEventBatch &events)
{
    QStringList order;
    for (const RunEvent &event : events) {
        if (event.kind == RunEvent::ToolUse)
            order.append(QStringLiteral("call ") + event.toolUseId);
        else if (event.kind == RunEvent::ToolResult)
            order.append(QStringLiteral("result ") + event.toolUseId);
    }
    return order;
}

// Everything a follower reported, applied to a model.
struct Followed {
    RunModel model;
    QStringList notices;
    bool finished = false;
    bool completed = false;
    QString message;
    qint64 events = 0;
    QStringList callOrder;

    void watch(TranscriptFollower *follower)
    {
        QObject::connect(follower, &TranscriptFollower::eventsReady, follower,
            [this](const RunEventBatch &batch) {
                model.addEvents(batch);
                events += batch.size();
                callOrder += callsAndResults(batch);
            });
        QObject::connect(follower, &TranscriptFollower::notice, follower,
            [this](const QString &text) { notices.append(text); });
        QObject::connect(follower, &TranscriptFollower::finished, follower,
            [this](bool ok, const QString &text) {
                finished = true;
                completed = ok;
                message = text;
            });
    }
};

} // namespace

class SessionFollowTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void aGrowingTranscriptIsFollowedInRangedLooks_data();
    void aGrowingTranscriptIsFollowedInRangedLooks();
    void subagentsAreReadFromTheServer_data();
    void subagentsAreReadFromTheServer();
    void aDeletedTranscriptKeepsWhatWasShown();
    void anotherUsersTranscriptIsRefusedClearly();
    void cliFollowsARunStartedWithoutSandscope();
    void cliExportsASessionFromTheServer();

private:
    bool ready() const { return m_server && m_model; }
    Identity newIdentity(const QString &stem) const
    {
        const QString suffix = randomToken(6, true);
        return {stem + suffix, stem + QLatin1String("-session-") + suffix};
    }
    // Puts `bytes` at `path` (under the user's home) with the user's own rights.
    bool put(const Identity &who, const QString &path, const QByteArray &bytes);
    QString homeOf(const Identity &who);
    // Copies a recorded session (its file and subagents/ folder) into `project` as `who`;
    // the main file's name, empty when a copy failed.
    QString putSession(const Identity &who, const QString &source, const QString &project);
    std::unique_ptr<TranscriptFollower> newFollower(
        const Identity &who, const QString &path, bool push = true)
    {
        auto follower = std::make_unique<TranscriptFollower>(m_client.get(), who, path);
        follower->setPollIntervals(100, 1000);
        follower->setPushAllowed(push);
        return follower;
    }

    std::unique_ptr<RealServer> m_server;
    std::unique_ptr<ScriptedModelServer> m_model;
    std::unique_ptr<OpenTerminalClient> m_client;
    QTemporaryDir m_local;
};

void SessionFollowTest::initTestCase()
{
    QString error;
    QVERIFY2(startAgentSandbox(&m_server, &m_model, &error), qPrintable(error));
    if (!ready())
        return; // every test reports the requirement itself
    m_client = std::make_unique<OpenTerminalClient>(m_server->connection());
    isolateLocalState(m_local.path());
}

void SessionFollowTest::cleanupTestCase()
{
    m_client.reset();
    m_model.reset();
    m_server.reset();
}

bool SessionFollowTest::put(const Identity &who, const QString &path, const QByteArray &bytes)
{
    return putFile(m_client.get(), who, path, bytes);
}

QString SessionFollowTest::homeOf(const Identity &who)
{
    const QStringList lines
        = shellLines(m_client.get(), who, QStringLiteral("printf '%s\\n' \"$HOME\""));
    return lines.value(0).trimmed();
}

void SessionFollowTest::aGrowingTranscriptIsFollowedInRangedLooks_data()
{
    QTest::addColumn<bool>("push");
    QTest::newRow("push") << true;
    QTest::newRow("polling") << false;
}

void SessionFollowTest::aGrowingTranscriptIsFollowedInRangedLooks()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    QFETCH(bool, push);
    const Identity alice = newIdentity(QStringLiteral("follow"));
    const QString home = homeOf(alice);
    QVERIFY(!home.isEmpty());
    const QString fixture = QDir(dataPath(QStringLiteral("transcripts/bash/transcript")))
                                .entryInfoList({QStringLiteral("*.jsonl")}, QDir::Files)
                                .value(0)
                                .filePath();
    const QByteArray whole = readFile(fixture);
    QVERIFY(whole.size() > 1000);
    // The first part ends in the middle of a record: that record waits for its end.
    const qsizetype cut = whole.indexOf("\"type\":\"tool_result\"") - 10;
    QVERIFY(cut > 0);
    const QString project = home + QStringLiteral("/.claude/projects/-home-x-chat-grow");
    const QString transcript = project + QStringLiteral("/") + QFileInfo(fixture).fileName();
    QVERIFY(put(alice, transcript, whole.left(cut)));

    auto follower = newFollower(alice, transcript, push);
    Followed seen;
    seen.watch(follower.get());
    follower->start(true, 1000);
    QVERIFY(QTest::qWaitFor(
        [&] { return follower->state() == TranscriptFollower::State::Following; }, waitMs));
    QCOMPARE(follower->bytesRead(), qint64(cut));
    const QStringList before = toolCallShape(seen.model);
    QCOMPARE(before.size(), 1); // the call, still without its result
    QVERIFY(!follower->turnEnded());
    QCOMPARE(follower->isPushed(), push);
    // Watching an idle session: pushed, it costs no request at all.
    QTest::qWait(1500);
    const qint64 requestsBefore = m_client->requestCount();
    const int looksBefore = follower->looks();
    QTest::qWait(2000);
    if (push) {
        QCOMPARE(m_client->requestCount(), requestsBefore);
        QCOMPARE(follower->looks(), looksBefore);
    } else {
        QVERIFY(follower->looks() > looksBefore);
    }

    // The rest arrives: appended the way the CLI appends, while the follower watches.
    QVERIFY(put(alice, project + QStringLiteral("/rest.part"), whole.mid(cut)));
    int exitCode = -1;
    shellLines(m_client.get(), alice,
        QStringLiteral("cat %1 >> %2 && rm %1")
            .arg(shell::quote(project + QStringLiteral("/rest.part")), shell::quote(transcript)),
        90000, &exitCode);
    QCOMPARE(exitCode, 0);
    QVERIFY2(QTest::qWaitFor([&] { return seen.finished; }, waitMs), qPrintable(seen.message));
    QVERIFY2(seen.completed, qPrintable(seen.message));
    QVERIFY(follower->turnEnded());
    QCOMPARE(follower->bytesRead(), qint64(whole.size()));
    QCOMPARE(toolCallShape(seen.model), localShape(fixture));
    // Looks, not a request per record: catching up, watching, and the settle; pushed, no look
    // after catching up.
    QVERIFY2(follower->looks() < 40, qPrintable(QString::number(follower->looks())));
    if (push)
        QCOMPARE(follower->looks(), looksBefore);
}

void SessionFollowTest::subagentsAreReadFromTheServer_data()
{
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<int>("calls");
    QTest::newRow("one sub-agent") << QStringLiteral("subagent") << 2;
    QTest::newRow("two sub-agents at once") << QStringLiteral("parallel-agents") << 4;
}

// Read from the server, a session's sub-agents give the same tree as the local files, and
// their calls start and return in the same order (merged by time, not one after the other).
void SessionFollowTest::subagentsAreReadFromTheServer()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    QFETCH(QString, scenario);
    QFETCH(int, calls);
    const Identity bob = newIdentity(QStringLiteral("subag"));
    const QString source = dataPath(QStringLiteral("transcripts/%1/transcript").arg(scenario));
    const QString project = homeOf(bob) + QStringLiteral("/.claude/projects/-home-x-chat-sub");
    const QString mainFile = putSession(bob, source, project);
    QVERIFY(!mainFile.isEmpty());

    auto follower = newFollower(bob, project + QLatin1Char('/') + mainFile);
    Followed seen;
    seen.watch(follower.get());
    follower->start(false);
    QVERIFY(QTest::qWaitFor([&] { return seen.finished; }, waitMs));
    QVERIFY2(seen.completed, qPrintable(seen.message));
    const QStringList shape = toolCallShape(seen.model);
    QCOMPARE(shape.size(), calls);
    QCOMPARE(shape, localShape(source + QLatin1Char('/') + mainFile));
    LoadedRun local;
    QVERIFY(LoadedRun::fromFile(source + QLatin1Char('/') + mainFile, &local));
    QCOMPARE(seen.callOrder, callsAndResults(local.events));
}

QString SessionFollowTest::putSession(
    const Identity &who, const QString &source, const QString &project)
{
    QString mainFile;
    QDirIterator files(source, QDir::Files, QDirIterator::Subdirectories);
    while (files.hasNext()) {
        const QString local = files.next();
        const QString relative = QDir(source).relativeFilePath(local);
        if (!put(who, project + QLatin1Char('/') + relative, readFile(local)))
            return {};
        if (!relative.contains(QLatin1Char('/')))
            mainFile = relative;
    }
    return mainFile;
}

// `sandscope export --server --user --session` reads the session (with its sub-agents) as
// the user and writes what a local copy of the files gives: the JSON export opens again as
// the same tree, and the Markdown names every call; the key never shows.
void SessionFollowTest::cliExportsASessionFromTheServer()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    const Identity erin = newIdentity(QStringLiteral("export"));
    const QString source = dataPath(QStringLiteral("transcripts/parallel-agents/transcript"));
    const QString mainFile = putSession(
        erin, source, homeOf(erin) + QStringLiteral("/.claude/projects/-home-x-chat-exp"));
    QVERIFY(!mainFile.isEmpty());
    const QString session = QFileInfo(mainFile).completeBaseName();

    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("SANDSCOPE_API_KEY"), m_server->apiKey());
    environment.insert(
        QStringLiteral("SANDSCOPE_AUDIT_LOG"), m_local.filePath(QStringLiteral("audit.jsonl")));
    const QStringList server {QStringLiteral("export"), QStringLiteral("--server"),
        m_server->url().toString(), QStringLiteral("--user"), erin.userId,
        QStringLiteral("--session"), session};
    const QString json = m_local.filePath(QStringLiteral("exported.json"));
    const auto exported = runSandscope(server
            + QStringList {QStringLiteral("--format"), QStringLiteral("json"), QStringLiteral("-o"),
                json},
        environment);
    QVERIFY2(exported.exitCode == 0, exported.err.constData());
    LoadedRun reopened;
    QString why;
    QVERIFY2(LoadedRun::fromFile(json, &reopened, &why), qPrintable(why));
    RunModel fromExport;
    reopened.buildModel(&fromExport);
    const QStringList shape = localShape(source + QLatin1Char('/') + mainFile);
    QCOMPARE(shape.size(), 4);
    QCOMPARE(toolCallShape(fromExport), shape);

    const auto markdown = runSandscope(
        server + QStringList {QStringLiteral("--format"), QStringLiteral("md")}, environment);
    QVERIFY2(markdown.exitCode == 0, markdown.err.constData());
    QCOMPARE(markdown.out.count("Agent"), 2);
    QVERIFY(markdown.out.contains("echo sub-a") && markdown.out.contains("echo sub-b"));
    const QByteArray key = m_server->apiKey().toUtf8();
    QVERIFY(!markdown.out.contains(key) && !markdown.err.contains(key));
    QVERIFY(!readFile(json).contains(key));
}

void SessionFollowTest::aDeletedTranscriptKeepsWhatWasShown()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    const Identity carol = newIdentity(QStringLiteral("gone"));
    const QString home = homeOf(carol);
    const QString transcript
        = home + QStringLiteral("/.claude/projects/-home-x-chat-gone/5e55-gone.jsonl");
    QByteArray lines = readFile(dataPath(QStringLiteral("transcript-basic.jsonl")));
    // Without its cost-state the turn is still open: following does not settle.
    lines.truncate(lines.indexOf("{\"type\":\"cost-state\""));
    QVERIFY(put(carol, transcript, lines));

    auto follower = newFollower(carol, transcript);
    Followed seen;
    seen.watch(follower.get());
    follower->start(true, 0);
    QVERIFY(QTest::qWaitFor(
        [&] { return follower->state() == TranscriptFollower::State::Following; }, waitMs));
    const qint64 shown = seen.events;
    QVERIFY(shown > 0);
    shellLines(m_client.get(), carol, QStringLiteral("rm -f %1").arg(shell::quote(transcript)));
    QVERIFY(QTest::qWaitFor([&] { return seen.finished; }, waitMs));
    QVERIFY(!seen.completed);
    QVERIFY2(seen.message.contains(QStringLiteral("was deleted while it was followed")),
        qPrintable(seen.message));
    QCOMPARE(seen.events, shown);
    QCOMPARE(toolCallShape(seen.model).size(), 1);
}

void SessionFollowTest::anotherUsersTranscriptIsRefusedClearly()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    const Identity owner = newIdentity(QStringLiteral("owner"));
    const Identity other = newIdentity(QStringLiteral("other"));
    const QString transcript
        = homeOf(owner) + QStringLiteral("/.claude/projects/-home-x-chat-private/0wn3r.jsonl");
    QVERIFY(put(owner, transcript, readFile(dataPath(QStringLiteral("transcript-basic.jsonl")))));
    QVERIFY(!homeOf(other).isEmpty());

    auto follower = newFollower(other, transcript);
    Followed seen;
    seen.watch(follower.get());
    follower->start(false);
    QVERIFY(QTest::qWaitFor([&] { return seen.finished; }, waitMs));
    QVERIFY(!seen.completed);
    // Refused before the kernel is asked: the path lies outside the acting user's home.
    QVERIFY2(seen.message.contains(transcript)
            && seen.message.contains(QStringLiteral("outside the home of ") + other.userId),
        qPrintable(seen.message));
    QCOMPARE(seen.events, 0);
}

void SessionFollowTest::cliFollowsARunStartedWithoutSandscope()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    const Identity dave = newIdentity(QStringLiteral("webui"));
    const QString home = homeOf(dave);
    const QString session = QUuid::createUuid().toString(QUuid::WithoutBraces);
    const QString secret = QLatin1String("sk-ant-follow-") + randomToken(24);
    // As Open WebUI's pipe does: claude run directly through /execute, in the chat folder;
    // the agent's environment comes from a file only the user can read.
    QByteArray envFile;
    const QHash<QString, QString> agentEnvironment = m_model->agentEnvironment(secret);
    for (auto it = agentEnvironment.cbegin(); it != agentEnvironment.cend(); ++it)
        envFile += it.key().toUtf8() + '=' + shell::quote(it.value()).toUtf8() + '\n';
    QVERIFY(put(dave, home + QStringLiteral("/.agent-env"), envFile));
    ExecuteOptions options;
    options.cwd = home;
    const QString command
        = QStringLiteral("chmod 600 ~/.agent-env && set -a && . ~/.agent-env && set +a && "
                         "mkdir -p chat-w1 && cd chat-w1 && claude -p %1 --session-id %2 "
                         "--output-format stream-json --verbose --allowedTools Bash "
                         "> /dev/null 2>&1 < /dev/null")
              .arg(shell::quote(
                       QStringLiteral("CMD: for i in 1 2 3 4; do echo tick $i; sleep 1; done")),
                  session);
    const Result<ProcessSnapshot> started = sandscope::await<ProcessSnapshot>(
        [&](auto done) { return m_client->execute(dave, command, options, m_client.get(), done); });
    QVERIFY2(started.ok(), qPrintable(started.error.toString()));
    // The transcript appears once claude has the prompt.
    QVERIFY(QTest::qWaitFor(
        [&] {
            int code = -1;
            shellLines(m_client.get(), dave,
                QStringLiteral("ls ~/.claude/projects/*/%1.jsonl").arg(session), 30000, &code);
            return code == 0;
        },
        waitMs));

    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("SANDSCOPE_API_KEY"), m_server->apiKey());
    environment.insert(
        QStringLiteral("SANDSCOPE_AUDIT_LOG"), m_local.filePath(QStringLiteral("audit.jsonl")));
    QProcess cli;
    cli.setProcessEnvironment(environment);
    cli.start(QStringLiteral(SANDSCOPE_BINARY),
        {QStringLiteral("replay"), QStringLiteral("--server"), m_server->url().toString(),
            QStringLiteral("--user"), dave.userId, QStringLiteral("--session"), session,
            QStringLiteral("--follow")});
    QVERIFY(cli.waitForStarted(10000));
    const bool ended = cli.waitForFinished(60000);
    if (!ended)
        cli.kill();
    const QString out = QString::fromUtf8(cli.readAllStandardOutput());
    const QString err = QString::fromUtf8(cli.readAllStandardError());
    QVERIFY2(ended, qPrintable(out + err));
    QVERIFY2(cli.exitCode() == 0, qPrintable(out + err));
    // Seen while it ran (a running line first), then settled with its output.
    const qsizetype running = out.indexOf(
        QStringLiteral("Bash: for i in 1 2 3 4; do echo tick $i; sleep 1; done  [running]"));
    const qsizetype ok = out.indexOf(
        QStringLiteral("Bash: for i in 1 2 3 4; do echo tick $i; sleep 1; done  [ok] → tick 1"));
    QVERIFY2(running >= 0 && ok > running, qPrintable(out));
    QVERIFY2(out.contains(session), qPrintable(out));
    QVERIFY2(err.contains(QStringLiteral("Following")), qPrintable(err));
    QVERIFY(!out.contains(secret) && !err.contains(secret));
    QVERIFY(!out.contains(m_server->apiKey()) && !err.contains(m_server->apiKey()));
}

QTEST_GUILESS_MAIN(SessionFollowTest)
#include "tst_sessionfollow.moc"
