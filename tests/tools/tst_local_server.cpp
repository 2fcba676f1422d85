// scripts/local-server.sh, the server-starting part of scripts/run-local.sh, run the way a
// container, cron or `su` without a login shell runs it: without USER and LOGNAME. The first
// /execute as the demo user must succeed (open-terminal 0.14 adds "$USER" to each new
// account's group and answered HTTP 500 when USER was unset), and with --demo-model the
// scripted model server answers a Messages request.

#include "realserver.h"
#include "testing.h"

#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <signal.h>

using namespace sandscope;
using namespace sandscope::test;

namespace {

QString localServerScript()
{
    const QString sandbox = QFileInfo(QStringLiteral(SANDSCOPE_VERSIONS_FILE)).absolutePath();
    return QFileInfo(sandbox).absolutePath() + QStringLiteral("/scripts/local-server.sh");
}

QHash<QString, QString> readEnvFile(const QString &path)
{
    QHash<QString, QString> values;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return values;
    for (const QByteArray &line : file.readAll().split('\n')) {
        const int equals = line.indexOf('=');
        if (equals > 0)
            values.insert(
                QString::fromUtf8(line.left(equals)), QString::fromUtf8(line.mid(equals + 1)));
    }
    return values;
}

// POSTs JSON and waits (at most 60 s); returns the HTTP status and the body.
int postJson(const QUrl &url, const QHash<QByteArray, QByteArray> &headers, const QJsonObject &body,
    QByteArray *answer)
{
    QNetworkAccessManager manager;
    QNetworkRequest request(url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    for (auto it = headers.begin(); it != headers.end(); ++it)
        request.setRawHeader(it.key(), it.value());
    QNetworkReply *reply
        = manager.post(request, QJsonDocument(body).toJson(QJsonDocument::Compact));
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(60000, &loop, &QEventLoop::quit);
    loop.exec();
    *answer = reply->readAll();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    reply->deleteLater();
    return status;
}

} // namespace

class TestLocalServer : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void firstExecuteSucceedsWithoutUserInTheEnvironment()
    {
        QString why;
        SANDSCOPE_REQUIRE(RealServer::canRunMultiUser(&why), why);
        SANDSCOPE_REQUIRE(QFileInfo::exists(RealServer::executable(
                              RealServer::pinnedVersion("OPEN_TERMINAL_VERSION"))),
            "the pinned open-terminal is not installed (scripts/install-deps.sh)");
        QTemporaryDir state;
        QVERIFY(state.isValid());
        const QString prefix = QStringLiteral("ls") + randomToken(5, true) + QLatin1Char('_');
        struct Cleanup {
            QString prefix;
            QString envFile;
            ~Cleanup()
            {
                const QHash<QString, QString> values = readEnvFile(envFile);
                for (const char *name : {"SERVER_PID", "DEMO_MODEL_PID"}) {
                    const int pid = values.value(QLatin1String(name)).toInt();
                    if (pid > 0)
                        ::kill(pid, SIGTERM);
                }
                RealServer::removeAccountsWithPrefix(prefix);
            }
        } cleanup {prefix, state.path() + QStringLiteral("/server.env")};

        QProcess script;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.remove(QStringLiteral("USER"));
        environment.remove(QStringLiteral("LOGNAME"));
        script.setProcessEnvironment(environment);
        script.start(localServerScript(),
            {QStringLiteral("--state"), state.path(), QStringLiteral("--user"),
                QStringLiteral("demo"), QStringLiteral("--demo-model"), QStringLiteral("--prefix"),
                prefix});
        QVERIFY(script.waitForFinished(120000));
        const QString output = QString::fromUtf8(script.readAllStandardOutput())
            + QString::fromUtf8(script.readAllStandardError());
        QVERIFY2(script.exitStatus() == QProcess::NormalExit && script.exitCode() == 0,
            qPrintable(output));

        const QHash<QString, QString> values = readEnvFile(cleanup.envFile);
        QCOMPARE(values.value(QStringLiteral("MULTI_USER")), QStringLiteral("true"));
        const QUrl server(values.value(QStringLiteral("SERVER_URL")));
        QVERIFY2(server.isValid() && !server.host().isEmpty(), qPrintable(output));
        QFile keyFile(state.path() + QStringLiteral("/api-key"));
        QVERIFY(keyFile.open(QIODevice::ReadOnly));
        QCOMPARE(
            keyFile.permissions() & (QFile::ReadGroup | QFile::ReadOther), QFile::Permissions());
        const QByteArray key = keyFile.readAll().trimmed();

        // Our own /execute as the demo user, as the window's first request does.
        QByteArray answer;
        const int status = postJson(QUrl(server.toString() + QStringLiteral("/execute?wait=20")),
            {{"Authorization", "Bearer " + key}, {"X-User-Id", "demo"}},
            {{QStringLiteral("command"), QStringLiteral("id -un")}}, &answer);
        QVERIFY2(status == 200, answer.constData());
        const QJsonObject process = QJsonDocument::fromJson(answer).object();
        QCOMPARE(process.value(QStringLiteral("exit_code")).toInt(-1), 0);
        QString printed;
        for (const QJsonValue &chunk : process.value(QStringLiteral("output")).toArray())
            printed += chunk.toObject().value(QStringLiteral("data")).toString();
        QCOMPARE(printed.trimmed(), prefix + QStringLiteral("demo"));

        // The demo model is the scripted Messages server.
        const QUrl model(values.value(QStringLiteral("DEMO_MODEL_URL")));
        QVERIFY2(model.isValid() && model.host() == QLatin1String("127.0.0.1"), qPrintable(output));
        const QJsonObject message {{QStringLiteral("model"), QStringLiteral("sandscope-demo")},
            {QStringLiteral("max_tokens"), 16},
            {QStringLiteral("messages"),
                QJsonArray {QJsonObject {{QStringLiteral("role"), QStringLiteral("user")},
                    {QStringLiteral("content"), QStringLiteral("hello")}}}}};
        QVERIFY2(postJson(QUrl(model.toString() + QStringLiteral("/v1/messages")),
                     {{"x-api-key", "placeholder"}}, message, &answer)
                == 200,
            answer.constData());
        QCOMPARE(QJsonDocument::fromJson(answer).object().value(QStringLiteral("model")).toString(),
            QStringLiteral("sandscope-demo"));
    }

    void aServerThatCannotStartIsReportedWithoutAWindow()
    {
        // No open-terminal where the script looks: a clear message and exit 1, never a hang.
        QTemporaryDir state;
        QTemporaryDir emptyCache;
        QProcess script;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.remove(QStringLiteral("USER"));
        environment.insert(QStringLiteral("SANDSCOPE_CACHE"), emptyCache.path());
        script.setProcessEnvironment(environment);
        script.start(localServerScript(), {QStringLiteral("--state"), state.path()});
        QVERIFY(script.waitForFinished(30000));
        QCOMPARE(script.exitCode(), 1);
        const QString error = QString::fromUtf8(script.readAllStandardError());
        QVERIFY2(error.contains(QLatin1String("is not installed")), qPrintable(error));
        QVERIFY(!QFileInfo::exists(state.path() + QStringLiteral("/server.env")));
    }
};

QTEST_GUILESS_MAIN(TestLocalServer)
#include "tst_local_server.moc"
