// RunController::recordingMetadata: the header of a run's recording has the same keys whoever
// records it (the window's LiveChat, `sandscope run`), each taken from the request; and the
// header a controller writes reads back through RecordingReader.

#include "recordings/runrecording.h"
#include "runs/runcontroller.h"
#include "server/openterminalclient.h"

#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest/QTest>

using namespace sandscope;

namespace {

LiveRunRequest request(bool resume, bool fork)
{
    LiveRunRequest request;
    request.identity.userId = QStringLiteral("alice");
    request.scope = {QStringLiteral("profile"), QStringLiteral("http://127.0.0.1:8000"),
        QStringLiteral("alice")};
    request.chatId = QStringLiteral("chat-1");
    request.prompt = QStringLiteral("hello");
    if (resume)
        request.options.resumeSessionId = QStringLiteral("0b1e5c2a-session");
    request.options.forkSession = fork;
    request.environment.insert(QStringLiteral("ANTHROPIC_API_KEY"), QStringLiteral("sk-secret"));
    return request;
}

} // namespace

class TestRecordingMetadata : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void theKeysAreTheSameForEveryCaller_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<bool>("resume");
        QTest::addColumn<bool>("fork");
        for (const QString &source :
            {QStringLiteral("sandscope gui"), QStringLiteral("sandscope run")}) {
            QTest::newRow(qPrintable(source + QStringLiteral(", new session")))
                << source << false << false;
            QTest::newRow(qPrintable(source + QStringLiteral(", resumed")))
                << source << true << false;
            QTest::newRow(qPrintable(source + QStringLiteral(", forked")))
                << source << true << true;
        }
    }

    void theKeysAreTheSameForEveryCaller()
    {
        QFETCH(QString, source);
        QFETCH(bool, resume);
        QFETCH(bool, fork);
        const LiveRunRequest turn = request(resume, fork);
        const QJsonObject metadata = RunController::recordingMetadata(turn, source);
        QStringList keys = metadata.keys();
        keys.sort();
        QCOMPARE(keys,
            QStringList({QStringLiteral("chat_id"), QStringLiteral("fork"),
                QStringLiteral("resume_session_id"), QStringLiteral("server"),
                QStringLiteral("source"), QStringLiteral("user_id")}));
        QCOMPARE(metadata.value(QLatin1String("source")).toString(), source);
        QCOMPARE(metadata.value(QLatin1String("server")).toString(), turn.scope.server);
        QCOMPARE(metadata.value(QLatin1String("user_id")).toString(), turn.identity.userId);
        QCOMPARE(metadata.value(QLatin1String("chat_id")).toString(), turn.chatId);
        QCOMPARE(metadata.value(QLatin1String("resume_session_id")).toString(),
            turn.options.resumeSessionId);
        QCOMPARE(metadata.value(QLatin1String("fork")).toBool(), fork);
    }

    // Neither the prompt nor the agent's environment belongs in the header.
    void theHeaderHoldsNoPromptOrEnvironment()
    {
        const QJsonObject metadata
            = RunController::recordingMetadata(request(true, false), QStringLiteral("x"));
        for (auto it = metadata.constBegin(); it != metadata.constEnd(); ++it) {
            QVERIFY(!it.value().toString().contains(QLatin1String("sk-secret")));
            QVERIFY(!it.value().toString().contains(QLatin1String("hello")));
        }
    }

    void aControllersHeaderReadsBack()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("run.jsonl"));
        OpenTerminalClient client(ServerConnection {});
        const LiveRunRequest turn = request(true, true);
        {
            RunController controller(&client);
            QString error;
            QVERIFY2(controller.openRecording(path, turn, QStringLiteral("sandscope run"), &error),
                qPrintable(error));
            QCOMPARE(controller.recordingPath(), path);
            controller.closeRecording();
        }
        RecordingReader reader;
        QString error;
        QVERIFY2(reader.open(path, &error), qPrintable(error));
        const QJsonObject header = reader.header();
        const QJsonObject expected
            = RunController::recordingMetadata(turn, QStringLiteral("sandscope run"));
        for (auto it = expected.constBegin(); it != expected.constEnd(); ++it)
            QCOMPARE(header.value(it.key()), QJsonValue(it.value()));
        QCOMPARE(header.value(QLatin1String("sandscope_recording")).toInt(), 1);
    }
};

QTEST_GUILESS_MAIN(TestRecordingMetadata)
#include "tst_recordingmetadata.moc"
