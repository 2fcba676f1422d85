// Live runs across server restarts, against a REAL multi-user open-terminal (CTest runs this
// suite once per pinned version, SANDSCOPE_OT_VERSION) running the REAL claude CLI against the
// scripted model server:
//  * the server restarted in place mid-run (same key, same port): the run goes on (its shell
//    has a session of its own), the controller reconnects by itself and says so with the gap,
//    and its recording holds exactly the tee file's lines, byte for byte: none lost or doubled;
//  * the server ended together with the agent (its process group killed, as a container
//    restart does): the turn ends as interrupted, not failed and not running, and Resume (a
//    follow-up turn) continues the same Claude session with its earlier turn intact;
//  * the network gone for a minute while the agent finishes: the same lines and the end,
//    once it is back.

#include "controllerwatch.h"
#include "networkcut.h"
#include "realserver.h"
#include "recordings/runrecording.h"
#include "runs/runcontroller.h"
#include "server/openterminalclient.h"
#include "testing.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

using namespace sandscope;
using namespace sandscope::test;

namespace {

constexpr int runTimeoutMs = 240000;

QList<QByteArray> recordedLines(const QString &path)
{
    RecordingReader reader;
    QList<QByteArray> lines;
    if (!reader.open(path))
        return {"<unreadable recording>"};
    RecordedLine line;
    while (reader.readLine(&line))
        lines.append(line.line);
    return lines;
}

// The tee file, read on this machine (the server's) as root.
QList<QByteArray> teeLines(const RunHandle &handle)
{
    QFile file(handle.teePath());
    if (!file.open(QIODevice::ReadOnly))
        return {"<no tee file " + handle.teePath().toUtf8() + '>'};
    QList<QByteArray> lines = file.readAll().split('\n');
    if (!lines.isEmpty() && lines.constLast().isEmpty())
        lines.removeLast();
    return lines;
}

} // namespace

class RunRestartTest : public QObject {
    Q_OBJECT
private:
    bool ready() const { return m_server && m_model; }
    LiveRunRequest request(const QString &chat, const QString &prompt) const
    {
        LiveRunRequest request;
        request.identity = m_user;
        request.scope = {QString(), m_server->url().toString(), m_user.userId};
        request.chatId = chat;
        request.prompt = prompt;
        request.options.allowedTools = QStringList {QStringLiteral("Bash")};
        request.environment = m_model->agentEnvironment(QStringLiteral("sk-ant-restart"));
        return request;
    }

    QTemporaryDir m_local;
    std::unique_ptr<RealServer> m_server;
    std::unique_ptr<ScriptedModelServer> m_model;
    std::unique_ptr<OpenTerminalClient> m_client;
    Identity m_user;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_local.isValid());
        isolateLocalState(m_local.path());
        QString error;
        QVERIFY2(startAgentSandbox(&m_server, &m_model, &error, {QStringLiteral("--log-history")}),
            qPrintable(error));
        if (!ready())
            return;
        m_client = std::make_unique<OpenTerminalClient>(m_server->connection());
        m_user = {QStringLiteral("rst") + randomToken(6, true), QString()};
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_model.reset();
        m_server.reset();
    }

    void aServerRestartedInPlaceLosesNoLineAndTheRecordingIsTheAgentsOutput()
    {
        SANDSCOPE_REQUIRE(
            ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
        const QString chat = QStringLiteral("restart-") + randomToken(4, true);
        RunController controller(m_client.get());
        ControllerWatch watch(&controller);
        const QString recording = m_local.filePath(chat + QStringLiteral(".jsonl"));
        QString error;
        QVERIFY2(controller.openRecording(recording, {}, &error), qPrintable(error));
        const QString token = QStringLiteral("after-restart-") + randomToken(8, true);
        controller.startTurn(request(chat, QStringLiteral("CMD: sleep 6; echo ") + token));
        QVERIFY2(watch.waitForLine("\"tool_use\""), qPrintable(watch.said()));
        QVERIFY2(m_server->restart(&error), qPrintable(error));
        QVERIFY2(watch.waitForTurns(1), qPrintable(watch.said()));
        const RunOutcome outcome = watch.outcomes.constFirst();
        QVERIFY2(outcome.ok(),
            qPrintable(RunOutcome::kindName(outcome.kind) + QLatin1Char(' ') + outcome.failure
                + QLatin1Char('\n') + watch.said()));
        QVERIFY2(
            watch.said().contains(QLatin1String("reconnected after")), qPrintable(watch.said()));
        controller.closeRecording();
        const QList<QByteArray> tee = teeLines(controller.handle());
        QVERIFY(tee.size() >= 4);
        QVERIFY(std::any_of(tee.cbegin(), tee.cend(),
            [&](const QByteArray &line) { return line.contains(token.toUtf8()); }));
        QCOMPARE(watch.lines, tee);
        QCOMPARE(recordedLines(recording), tee);
    }

    // The network gone for a minute (or the host asleep): nothing flows and nothing closes
    // (NetworkCut); the agent finishes meanwhile. The tab notices the silence, keeps trying,
    // and once the network is back shows every line, none lost or doubled, and the end.
    void aMinuteWithoutNetworkLosesNoLineAndTheRunEndsOnceItIsBack()
    {
        SANDSCOPE_REQUIRE(
            ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
        NetworkCut network(m_server->url());
        QVERIFY(network.listen());
        ServerConnection connection = m_server->connection();
        connection.baseUrl = network.url();
        OpenTerminalClient client(connection);
        const QString chat = QStringLiteral("outage-") + randomToken(4, true);
        RunController controller(&client);
        ControllerWatch watch(&controller);
        const QString recording = m_local.filePath(chat + QStringLiteral(".jsonl"));
        QString error;
        QVERIFY2(controller.openRecording(recording, {}, &error), qPrintable(error));
        const QString token = QStringLiteral("after-outage-") + randomToken(8, true);
        controller.startTurn(request(chat, QStringLiteral("CMD: sleep 15; echo ") + token));
        QVERIFY2(watch.waitForLine("\"tool_use\""), qPrintable(watch.said()));
        network.setDown(true);
        QElapsedTimer down;
        down.start();
        // The agent ends meanwhile: its exit file is written on the server.
        const QString exitFile = controller.handle().paths().exitFile;
        QVERIFY(QTest::qWaitFor([&] { return QFile::exists(exitFile); }, 60000));
        QVERIFY(watch.outcomes.isEmpty());
        QTest::qWait(int(std::max<qint64>(0, 60000 - down.elapsed())));
        const int seenWhileDown = network.connectionsSeen();
        network.setDown(false);
        QVERIFY2(watch.waitForTurns(1), qPrintable(watch.said()));
        const RunOutcome outcome = watch.outcomes.constFirst();
        QVERIFY2(outcome.ok(),
            qPrintable(RunOutcome::kindName(outcome.kind) + QLatin1Char(' ') + outcome.failure
                + QLatin1Char('\n') + watch.said()));
        QVERIFY2(
            watch.said().contains(QLatin1String("reconnected after")), qPrintable(watch.said()));
        // The gap said runs from the last thing heard (a heartbeat, at most 5 s before the
        // cut) to the reconnection.
        const QString gap = watch.said()
                                .section(QLatin1String("reconnected after "), 1)
                                .section(QLatin1Char(';'), 0, 0);
        qInfo("%d connections tried while the network was down; the tab says the gap was %s",
            seenWhileDown, qPrintable(gap));
        QVERIFY2(gap.startsWith(QLatin1String("1 min ")), qPrintable(gap)); // 60 to 119 s
        controller.closeRecording();
        const QList<QByteArray> tee = teeLines(controller.handle());
        QVERIFY(std::any_of(tee.cbegin(), tee.cend(),
            [&](const QByteArray &line) { return line.contains(token.toUtf8()); }));
        QCOMPARE(watch.lines, tee);
        QCOMPARE(recordedLines(recording), tee);
    }

    void anAgentEndedWithTheServerIsInterruptedAndResumeContinuesItsSession()
    {
        SANDSCOPE_REQUIRE(
            ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
        const QString chat = QStringLiteral("cut-") + randomToken(4, true);
        RunController controller(m_client.get());
        ControllerWatch watch(&controller);
        const QString first = QStringLiteral("first-turn-") + randomToken(8, true);
        controller.startTurn(
            request(chat, QStringLiteral("CMD: echo ") + first + QStringLiteral("; sleep 60")));
        QVERIFY2(watch.waitForLine("\"tool_use\""), qPrintable(watch.said()));
        // What a container restart does: the agent's whole process group goes with the server.
        QFile pidFile(controller.handle().paths().pidFile);
        QVERIFY(pidFile.open(QIODevice::ReadOnly));
        const pid_t pid = pid_t(pidFile.readAll().trimmed().toLongLong());
        QVERIFY(pid > 1);
        m_server->stop();
        QCOMPARE(::kill(-pid, SIGKILL), 0);
        QString error;
        QVERIFY2(m_server->start(&error), qPrintable(error));
        QVERIFY2(watch.waitForTurns(1), qPrintable(watch.said()));
        const RunOutcome cut = watch.outcomes.constFirst();
        QCOMPARE(
            RunOutcome::kindName(cut.kind), RunOutcome::kindName(RunOutcome::Kind::Interrupted));
        QVERIFY2(cut.failure.contains(QLatin1String("interrupted")), qPrintable(cut.failure));
        QVERIFY(!cut.sessionId.isEmpty());
        QVERIFY(!controller.isActive());
        QVERIFY(controller.canFollowUp());

        // Resume: the same session goes on, and the model sees the first turn again.
        const QString second = QStringLiteral("resumed-") + randomToken(8, true);
        const LiveRunRequest next = controller.followUpRequest(
            QStringLiteral("Continue where you left off. CMD: echo ") + second);
        QCOMPARE(next.options.resumeSessionId, cut.sessionId);
        controller.startTurn(next);
        QVERIFY2(watch.waitForTurns(2), qPrintable(watch.said()));
        QVERIFY2(
            watch.outcomes.at(1).ok(), qPrintable(watch.outcomes.at(1).failure + watch.said()));
        QCOMPARE(watch.outcomes.at(1).sessionId, cut.sessionId);
        bool sawEarlierTurn = false;
        const QStringList requests
            = m_model->requestLog().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        for (const QString &entry : requests) {
            const QJsonObject object = QJsonDocument::fromJson(entry.toUtf8()).object();
            const QByteArray history
                = QJsonDocument(object.value(QLatin1String("history")).toArray()).toJson();
            if (history.contains(second.toUtf8()) && history.contains(first.toUtf8()))
                sawEarlierTurn = true;
        }
        QVERIFY2(sawEarlierTurn, "no resumed request carried the first turn");
    }
};

QTEST_GUILESS_MAIN(RunRestartTest)
#include "tst_runrestart.moc"
