// RunController without a display: a REAL multi-user open-terminal (the pinned
// OPEN_TERMINAL_VERSION) runs the REAL claude CLI against the scripted model server.
//  * a turn ends Ok with its session remembered (stream, store) and every line recorded before
//    it was parsed; a follow-up resumes that session as a second turn of the same controller;
//  * Stop escalates: SIGTERM, then SIGKILL, then stop waiting (Stopped, detached);
//  * a model answering 401 ends the turn as ErrorResult with the API status;
//  * a server that cannot be reached ends the turn as TransportFailed;
//  * the server's key and the agent's secrets never reach a line, a notice or the recording.

#include "controllerwatch.h"
#include "realserver.h"
#include "recordings/runrecording.h"
#include "runs/runcontroller.h"
#include "server/openterminalclient.h"
#include "sessions/sessionstore.h"
#include "testing.h"

#include <QFile>
#include <QHostAddress>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <memory>

using namespace sandscope;
using namespace sandscope::test;

namespace {

constexpr int runTimeoutMs = 240000;

qsizetype recordedLines(const QString &path)
{
    RecordingReader reader;
    if (!reader.open(path))
        return -1;
    qsizetype count = 0;
    RecordedLine line;
    while (reader.readLine(&line))
        ++count;
    return count;
}

} // namespace

class RunControllerTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void turnEndsOkAndFollowUpResumesTheSession();
    void stopEscalatesToKillThenStopsWaiting();
    void modelErrorEndsTheTurnAsErrorResult();
    void unreachableServerEndsTheTurnAsTransportFailed();

private:
    bool ready() const { return m_server && m_model; }
    LiveRunRequest request(const QString &chat, const QString &prompt,
        const QHash<QString, QString> &environment = {}) const;
    void verifyNoSecret(const ControllerWatch &watch, const QString &recording) const;

    QTemporaryDir m_local;
    std::unique_ptr<RealServer> m_server;
    std::unique_ptr<ScriptedModelServer> m_model;
    std::unique_ptr<OpenTerminalClient> m_client;
    QString m_secret;
    Identity m_user;
};

void RunControllerTest::initTestCase()
{
    QVERIFY(m_local.isValid());
    isolateLocalState(m_local.path());
    QString error;
    QVERIFY2(startAgentSandbox(&m_server, &m_model, &error), qPrintable(error));
    if (!ready())
        return; // every test reports the requirement itself
    m_client = std::make_unique<OpenTerminalClient>(m_server->connection());
    m_secret = QLatin1String("sk-ant-controller-") + randomToken(32);
    m_user = {QStringLiteral("ctl") + randomToken(6, true), QString()};
}

void RunControllerTest::cleanupTestCase()
{
    m_client.reset();
    m_model.reset();
    m_server.reset();
}

LiveRunRequest RunControllerTest::request(
    const QString &chat, const QString &prompt, const QHash<QString, QString> &environment) const
{
    LiveRunRequest request;
    request.identity = m_user;
    request.scope = {QString(), m_server->url().toString(), m_user.userId};
    request.chatId = chat;
    request.prompt = prompt;
    request.options.allowedTools = QStringList {QStringLiteral("Bash")};
    request.environment = environment.isEmpty() ? m_model->agentEnvironment(m_secret) : environment;
    return request;
}

void RunControllerTest::verifyNoSecret(const ControllerWatch &watch, const QString &recording) const
{
    for (const QByteArray &line : watch.lines) {
        QVERIFY(!line.contains(m_secret.toUtf8()));
        QVERIFY(!line.contains(m_server->apiKey().toUtf8()));
    }
    for (const QString &notice : watch.notices)
        QVERIFY(!notice.contains(m_secret));
    if (!recording.isEmpty()) {
        QFile file(recording);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray bytes = file.readAll();
        QVERIFY(!bytes.contains(m_secret.toUtf8()));
        QVERIFY(!bytes.contains(m_server->apiKey().toUtf8()));
    }
}

void RunControllerTest::turnEndsOkAndFollowUpResumesTheSession()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    const QString chat = QStringLiteral("ok-") + randomToken(6, true);
    RunController controller(m_client.get());
    ControllerWatch watch(&controller);
    const QString recording = m_local.filePath(chat + QStringLiteral(".jsonl"));
    QString error;
    QVERIFY2(controller.openRecording(recording, {}, &error), qPrintable(error));
    // The command prints the agent's key: the line must arrive masked.
    controller.startTurn(
        request(chat, QStringLiteral("CMD: echo first; echo \"$ANTHROPIC_API_KEY\"")));
    QVERIFY(controller.isActive());
    QVERIFY(!controller.canFollowUp());
    QVERIFY2(watch.waitForTurns(1), qPrintable(watch.notices.join(QLatin1Char('\n'))));
    const RunOutcome first = watch.outcomes.at(0);
    QCOMPARE(RunOutcome::kindName(first.kind), RunOutcome::kindName(RunOutcome::Kind::Ok));
    QVERIFY(first.hasResult);
    QVERIFY(!first.sessionId.isEmpty());
    QCOMPARE(first.sessionId, controller.sessionId());
    QCOMPARE(watch.sessions, QStringList {first.sessionId});
    QCOMPARE(watch.started, 1);
    QVERIFY(watch.hasBashCall());
    QVERIFY(!controller.isActive());
    QVERIFY(controller.canFollowUp());
    // Remembered in the store as soon as the stream named it.
    const SessionScope scope {QString(), m_server->url().toString(), m_user.userId};
    QCOMPARE(SessionStore().latest(scope, chat).sessionId, first.sessionId);
    // Every line was recorded before it was parsed.
    const qsizetype firstTurnLines = watch.lines.size();
    QCOMPARE(recordedLines(recording), firstTurnLines);

    // A follow-up continues the session as the second turn of the same controller.
    const LiveRunRequest next = controller.followUpRequest(QStringLiteral("say something"));
    QCOMPARE(next.options.resumeSessionId, first.sessionId);
    QCOMPARE(next.chatId, chat);
    QVERIFY(!next.options.forkSession);
    controller.startTurn(next);
    QVERIFY(watch.waitForTurns(2));
    QVERIFY2(watch.outcomes.at(1).ok(), qPrintable(watch.notices.join(QLatin1Char('\n'))));
    QVERIFY(watch.lines.size() > firstTurnLines);
    controller.closeRecording();
    QCOMPARE(recordedLines(recording), watch.lines.size());
    verifyNoSecret(watch, recording);
}

void RunControllerTest::stopEscalatesToKillThenStopsWaiting()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    RunController controller(m_client.get());
    ControllerWatch watch(&controller);
    QCOMPARE(controller.requestStop(), RunController::StopStep::None); // nothing runs
    controller.startTurn(request(
        QStringLiteral("stop-") + randomToken(6, true), QStringLiteral("CMD: tail -f /dev/null")));
    QVERIFY2(QTest::qWaitFor(
                 [&] { return watch.hasBashCall() || !watch.outcomes.isEmpty(); }, runTimeoutMs),
        qPrintable(watch.notices.join(QLatin1Char('\n'))));
    QVERIFY(watch.outcomes.isEmpty());
    QVERIFY(controller.isLaunched());
    // A grace period far beyond the test: only the second request can end the run soon.
    QCOMPARE(controller.requestStop(600000), RunController::StopStep::Terminating);
    QCOMPARE(controller.requestStop(600000), RunController::StopStep::Killing);
    QVERIFY(watch.waitForTurns(1));
    const RunOutcome killed = watch.outcomes.at(0);
    QCOMPARE(RunOutcome::kindName(killed.kind), RunOutcome::kindName(RunOutcome::Kind::Stopped));
    QVERIFY(!killed.detached);
    QVERIFY(!killed.hasResult);
    QVERIFY(!controller.isActive());

    // Third request: stop waiting. The turn ends at once, as Stopped and detached.
    controller.startTurn(request(QStringLiteral("detach-") + randomToken(6, true),
        QStringLiteral("CMD: tail -f /dev/null")));
    QVERIFY(QTest::qWaitFor([&] { return controller.isLaunched(); }, runTimeoutMs));
    const RunHandle handle = controller.handle();
    QCOMPARE(controller.requestStop(600000), RunController::StopStep::Terminating);
    QCOMPARE(controller.requestStop(600000), RunController::StopStep::Killing);
    QCOMPARE(controller.requestStop(600000), RunController::StopStep::Detached);
    QCOMPARE(watch.outcomes.size(), 2);
    QCOMPARE(RunOutcome::kindName(watch.outcomes.at(1).kind),
        RunOutcome::kindName(RunOutcome::Kind::Stopped));
    QVERIFY(watch.outcomes.at(1).detached);
    QVERIFY(!controller.isActive());
    QCOMPARE(controller.requestStop(), RunController::StopStep::None);
    QVERIFY(handle.isValid());
}

void RunControllerTest::modelErrorEndsTheTurnAsErrorResult()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    ScriptedModelServer refusing({QStringLiteral("--fail-status"), QStringLiteral("401")});
    QString error;
    QVERIFY2(refusing.start(&error), qPrintable(error));
    RunController controller(m_client.get());
    ControllerWatch watch(&controller);
    controller.startTurn(request(QStringLiteral("err-") + randomToken(6, true),
        QStringLiteral("hello"), refusing.agentEnvironment(m_secret)));
    QVERIFY(watch.waitForTurns(1));
    const RunOutcome outcome = watch.outcomes.at(0);
    QCOMPARE(
        RunOutcome::kindName(outcome.kind), RunOutcome::kindName(RunOutcome::Kind::ErrorResult));
    QVERIFY(outcome.hasResult);
    QVERIFY(outcome.result.isError);
    QVERIFY(!outcome.ok());
    verifyNoSecret(watch, QString());
}

void RunControllerTest::unreachableServerEndsTheTurnAsTransportFailed()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    QTcpServer probe; // a port that was free a moment ago: nothing listens there
    QVERIFY(probe.listen(QHostAddress::LocalHost));
    ServerConnection connection = m_server->connection();
    connection.baseUrl = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(probe.serverPort()));
    probe.close();
    OpenTerminalClient client(connection);
    RunController controller(&client);
    ControllerWatch watch(&controller);
    controller.startTurn(
        request(QStringLiteral("gone-") + randomToken(6, true), QStringLiteral("hello")));
    QVERIFY(watch.waitForTurns(1));
    const RunOutcome outcome = watch.outcomes.at(0);
    QCOMPARE(RunOutcome::kindName(outcome.kind),
        RunOutcome::kindName(RunOutcome::Kind::TransportFailed));
    QVERIFY(!outcome.failure.isEmpty());
    QVERIFY(!outcome.failure.contains(m_server->apiKey()));
    QCOMPARE(watch.started, 0);
}

QTEST_GUILESS_MAIN(RunControllerTest)
#include "tst_runcontroller.moc"
