// Self-test of the integration harness: RealServer starts a real open-terminal the way the
// other suites rely on (key only in the environment, restart keeps port and key, multi-user
// accounts vanish afterwards), the scripted model server answers as the CLI expects, and
// await() really times out.

#include "realserver.h"
#include "server/openterminalclient.h"
#include "testing.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QRegularExpression>
#include <QtTest>

using namespace sandscope;
using namespace sandscope::test;

namespace {

struct HttpAnswer {
    int status = 0;
    QJsonObject body;
};

HttpAnswer postJson(const QUrl &url, const QJsonObject &body)
{
    QNetworkAccessManager network;
    QNetworkRequest request(url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    request.setRawHeader("x-api-key", "test-key");
    request.setTransferTimeout(10000);
    QNetworkReply *reply = network.post(request, QJsonDocument(body).toJson());
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    HttpAnswer answer;
    answer.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    answer.body = QJsonDocument::fromJson(reply->readAll()).object();
    reply->deleteLater();
    return answer;
}

QJsonObject userText(const QString &text)
{
    return QJsonObject {{QStringLiteral("role"), QStringLiteral("user")},
        {QStringLiteral("content"),
            QJsonArray {QJsonObject {{QStringLiteral("type"), QStringLiteral("text")},
                {QStringLiteral("text"), text}}}}};
}

QJsonObject messagesRequest(const QJsonArray &messages)
{
    const QJsonArray tools {QJsonObject {{QStringLiteral("name"), QStringLiteral("Bash")}}};
    return QJsonObject {{QStringLiteral("model"), QStringLiteral("claude-test")},
        {QStringLiteral("stream"), false}, {QStringLiteral("tools"), tools},
        {QStringLiteral("messages"), messages}};
}

QUrl messagesUrl(const ScriptedModelServer &model)
{
    QUrl url = model.url();
    url.setPath(QStringLiteral("/v1/messages"));
    return url;
}

bool accountsExist(const QString &prefix)
{
    QFile passwd(QStringLiteral("/etc/passwd"));
    if (!passwd.open(QIODevice::ReadOnly))
        return false;
    // Account names start a line.
    const QByteArray needle = QByteArray("\n") + prefix.toUtf8();
    return QByteArray(QByteArray("\n") + passwd.readAll()).contains(needle);
}

} // namespace

class HarnessTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void pinnedVersionsComeFromVersionsFile();
    void awaitReportsTimeoutWhenNoAnswerArrives();
    void singleUserServerKeepsKeyOutOfArgvAndLog();
    void restartKeepsPortAndKey();
    void multiUserAccountsAreRemovedAfterwards();
    void modelServerScriptsToolLoopFromPrompt();
    void modelServerFailStatusAnswersWithAnthropicError();
};

void HarnessTest::pinnedVersionsComeFromVersionsFile()
{
    const QRegularExpression versionPattern(QStringLiteral("^\\d+\\.\\d+\\.\\d+$"));
    const QString current = RealServer::pinnedVersion("OPEN_TERMINAL_VERSION");
    const QString legacy = RealServer::pinnedVersion("OPEN_TERMINAL_LEGACY_VERSION");
    QVERIFY2(versionPattern.match(current).hasMatch(), qPrintable(current));
    QVERIFY2(versionPattern.match(legacy).hasMatch(), qPrintable(legacy));
    QVERIFY(current != legacy);
    QVERIFY(RealServer::pinnedVersion("NO_SUCH_PIN").isEmpty());
    QVERIFY(RealServer::executable(current).endsWith(
        QLatin1String("/ot-") + current + QLatin1String("/bin/open-terminal")));
}

void HarnessTest::awaitReportsTimeoutWhenNoAnswerArrives()
{
    const auto result = await<OpenTerminalClient::Empty>(
        [](OpenTerminalClient::Callback<OpenTerminalClient::Empty>) { return CallHandle(); }, 100);
    QVERIFY(!result.ok());
    QCOMPARE(result.error.kind, ApiError::Kind::Timeout);
    QVERIFY(!result.error.message.isEmpty());
}

void HarnessTest::singleUserServerKeepsKeyOutOfArgvAndLog()
{
    RealServer server(
        RealServer::pinnedVersion("OPEN_TERMINAL_VERSION"), RealServer::Mode::SingleUser);
    QString error;
    QVERIFY2(server.start(&error), qPrintable(error));
    QCOMPARE(server.apiKey().size(), 48);
    QCOMPARE(server.url().host(), QStringLiteral("127.0.0.1"));

    QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(server.processId()));
    QVERIFY(cmdline.open(QIODevice::ReadOnly));
    const QByteArray arguments = cmdline.readAll();
    QVERIFY(arguments.contains("--port"));
    QVERIFY(!arguments.contains(server.apiKey().toUtf8()));

    OpenTerminalClient client(server.connection());
    const auto cwd
        = await<CwdInfo>([&](auto done) { return client.cwd(Identity {}, &client, done); });
    QVERIFY2(cwd.ok(), qPrintable(cwd.error.toString()));
    QCOMPARE(QDir(cwd.value.cwd).canonicalPath(), QDir(server.homeDirectory()).canonicalPath());
    QVERIFY(!server.serverLog().contains(server.apiKey()));
}

void HarnessTest::restartKeepsPortAndKey()
{
    RealServer server(
        RealServer::pinnedVersion("OPEN_TERMINAL_VERSION"), RealServer::Mode::SingleUser);
    QString error;
    QVERIFY2(server.start(&error), qPrintable(error));
    const QUrl url = server.url();
    const QString key = server.apiKey();
    const qint64 firstPid = server.processId();

    QVERIFY2(server.restart(&error), qPrintable(error));
    QCOMPARE(server.url(), url);
    QCOMPARE(server.apiKey(), key);
    QVERIFY(server.processId() != firstPid);
    OpenTerminalClient client(server.connection());
    const auto health
        = await<OpenTerminalClient::Empty>([&](auto done) { return client.health(&client, done); });
    QVERIFY2(health.ok(), qPrintable(health.error.toString()));
}

void HarnessTest::multiUserAccountsAreRemovedAfterwards()
{
    QString why;
    SANDSCOPE_REQUIRE(RealServer::canRunMultiUser(&why), why);
    QString prefix;
    {
        RealServer server(
            RealServer::pinnedVersion("OPEN_TERMINAL_VERSION"), RealServer::Mode::MultiUser);
        prefix = server.prefix();
        QVERIFY(QRegularExpression(QStringLiteral("^sst[a-z]{4}_$")).match(prefix).hasMatch());
        QString error;
        QVERIFY2(server.start(&error), qPrintable(error));
        OpenTerminalClient client(server.connection());
        const Identity identity {QLatin1String("harness-") + randomToken(6), QString()};
        const auto started = await<ProcessSnapshot>([&](auto done) {
            ExecuteOptions options;
            options.waitSeconds = 10;
            return client.execute(
                identity, QStringLiteral("sleep 600 & whoami"), options, &client, done);
        });
        QVERIFY2(started.ok(), qPrintable(started.error.toString()));
        QVERIFY2(accountsExist(prefix), "the server did not provision an account");
    }
    QVERIFY2(!accountsExist(prefix), qPrintable(prefix));
    QFile group(QStringLiteral("/etc/group"));
    QVERIFY(group.open(QIODevice::ReadOnly));
    QVERIFY(!group.readAll().contains(prefix.toUtf8()));
}

void HarnessTest::modelServerScriptsToolLoopFromPrompt()
{
    ScriptedModelServer model;
    QString error;
    QVERIFY2(model.start(&error), qPrintable(error));

    const QJsonObject prompt = userText(QStringLiteral("CMD: echo harness"));
    const HttpAnswer first = postJson(messagesUrl(model), messagesRequest(QJsonArray {prompt}));
    QCOMPARE(first.status, 200);
    QCOMPARE(first.body.value(QLatin1String("stop_reason")).toString(), QStringLiteral("tool_use"));
    QCOMPARE(first.body.value(QLatin1String("model")).toString(), QStringLiteral("claude-test"));
    QJsonObject toolUse;
    const QJsonArray content = first.body.value(QLatin1String("content")).toArray();
    for (const QJsonValue &block : content) {
        if (block.toObject().value(QLatin1String("type")).toString() == QLatin1String("tool_use"))
            toolUse = block.toObject();
    }
    QCOMPARE(toolUse.value(QLatin1String("name")).toString(), QStringLiteral("Bash"));
    QCOMPARE(toolUse.value(QLatin1String("input")).toObject().value(QLatin1String("command")),
        QJsonValue(QStringLiteral("echo harness")));

    const QJsonObject assistant {{QStringLiteral("role"), QStringLiteral("assistant")},
        {QStringLiteral("content"), content}};
    const QJsonObject result {{QStringLiteral("role"), QStringLiteral("user")},
        {QStringLiteral("content"),
            QJsonArray {QJsonObject {{QStringLiteral("type"), QStringLiteral("tool_result")},
                {QStringLiteral("tool_use_id"), toolUse.value(QLatin1String("id"))},
                {QStringLiteral("content"), QStringLiteral("harness-output")}}}}};
    const HttpAnswer second
        = postJson(messagesUrl(model), messagesRequest(QJsonArray {prompt, assistant, result}));
    QCOMPARE(second.status, 200);
    QCOMPARE(
        second.body.value(QLatin1String("stop_reason")).toString(), QStringLiteral("end_turn"));
    const QString finalText = second.body.value(QLatin1String("content"))
                                  .toArray()
                                  .at(0)
                                  .toObject()
                                  .value(QLatin1String("text"))
                                  .toString();
    QVERIFY2(finalText.contains(QLatin1String("harness-output")), qPrintable(finalText));
    QVERIFY(model.requestLog().contains(QLatin1String("CMD: echo harness")));
    QVERIFY(!model.requestLog().contains(QLatin1String("test-key")));
}

void HarnessTest::modelServerFailStatusAnswersWithAnthropicError()
{
    ScriptedModelServer model({QStringLiteral("--fail-status"), QStringLiteral("529")});
    QString error;
    QVERIFY2(model.start(&error), qPrintable(error));
    const HttpAnswer answer = postJson(
        messagesUrl(model), messagesRequest(QJsonArray {userText(QStringLiteral("hi"))}));
    QCOMPARE(answer.status, 529);
    QCOMPARE(answer.body.value(QLatin1String("type")).toString(), QStringLiteral("error"));
    QCOMPARE(answer.body.value(QLatin1String("error")).toObject().value(QLatin1String("type")),
        QJsonValue(QStringLiteral("overloaded_error")));
}

QTEST_GUILESS_MAIN(HarnessTest)
#include "tst_harness.moc"
