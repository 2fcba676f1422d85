// The client against a misbehaving HTTP server (tests/support/fault_server.py): every
// transport failure must end in exactly one typed error, never a hang or a false success.

#include "server/openterminalclient.h"
#include "testing.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QSslSocket>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QtTest/QTest>

#include <memory>

using namespace sandscope;
using Kind = ApiError::Kind;

namespace {

const QString apiKey = QStringLiteral("fault-test-key-0123456789");

class FaultServer {
public:
    explicit FaultServer(QStringList arguments = {})
        : m_arguments(std::move(arguments))
    {
    }
    ~FaultServer()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }

    bool start(QString *error)
    {
        m_process.setProgram(QStringLiteral("python3"));
        m_process.setArguments(QStringList {QStringLiteral(SANDSCOPE_FAULT_SERVER)} + m_arguments);
        m_process.setProcessChannelMode(QProcess::SeparateChannels);
        m_process.start();
        if (!m_process.waitForStarted(10000)) {
            *error = QStringLiteral("python3 did not start: ") + m_process.errorString();
            return false;
        }
        QElapsedTimer timer;
        timer.start();
        QByteArray output;
        while (timer.elapsed() < 15000) {
            if (m_process.canReadLine() || m_process.waitForReadyRead(500)) {
                output += m_process.readLine();
                if (output.startsWith("LISTENING ")) {
                    m_port = output.mid(10).trimmed().toUShort();
                    return m_port != 0;
                }
            }
            if (m_process.state() == QProcess::NotRunning)
                break;
        }
        *error = QStringLiteral("fault server did not report its port: ")
            + QString::fromUtf8(output + m_process.readAllStandardError());
        return false;
    }

    QUrl url(const QString &prefix = {}, const QString &scheme = QStringLiteral("http")) const
    {
        QUrl url;
        url.setScheme(scheme);
        url.setHost(QStringLiteral("127.0.0.1"));
        url.setPort(m_port);
        url.setPath(prefix);
        return url;
    }

    QString standardError() { return QString::fromUtf8(m_process.readAllStandardError()); }

private:
    QStringList m_arguments;
    QProcess m_process;
    quint16 m_port = 0;
};

ServerConnection connectionTo(const QUrl &url, int timeoutMs = 10000)
{
    ServerConnection connection;
    connection.baseUrl = url;
    connection.apiKey = apiKey;
    connection.timeoutMs = timeoutMs;
    return connection;
}

// Every request the fault server has seen, as parsed by Python.
QJsonArray requestLog(FaultServer &server)
{
    OpenTerminalClient client(connectionTo(server.url()));
    protocol::RequestSpec spec;
    spec.path = QStringLiteral("/__log");
    QJsonArray log;
    QEventLoop loop;
    client.send({}, spec, &loop, [&](const protocol::HttpResponse &response) {
        log = QJsonDocument::fromJson(response.body).array();
        loop.quit();
    });
    QTimer::singleShot(10000, &loop, &QEventLoop::quit);
    loop.exec();
    return log;
}

int countRequests(const QJsonArray &log, const QString &method, const QString &path)
{
    int count = 0;
    for (const QJsonValue &entry : log) {
        const QJsonObject request = entry.toObject();
        if (request.value(QLatin1String("method")).toString() == method
            && request.value(QLatin1String("path")).toString() == path)
            ++count;
    }
    return count;
}

// What one typed call must put on the wire.
struct ExpectedRequest {
    QString name;
    std::function<CallHandle(
        OpenTerminalClient &, const Identity &, QObject *, std::function<void()>)>
        call;
    QString method;
    QString path; // as decoded by the server
    QList<QPair<QString, QString>> query;
    QJsonObject jsonBody; // empty: no JSON body expected
    bool authenticated = true;
};

// Short UTF-8 literals for the request table.
QString str(const char *utf8)
{
    return QString::fromUtf8(utf8);
}

// Adapts a typed callback to "something answered".
template <typename T> OpenTerminalClient::Callback<T> answered(std::function<void()> done)
{
    return [done](const Result<T> &) {
        done();
    };
}

QJsonObject lastRequestTo(const QJsonArray &log, const QString &prefix)
{
    for (int i = log.size() - 1; i >= 0; --i) {
        const QJsonObject entry = log.at(i).toObject();
        if (entry.value(QLatin1String("path")).toString().startsWith(prefix))
            return entry;
    }
    return {};
}

} // namespace

class TransportFaultsTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void proxyHtml502IsServerErrorWithoutHtml();
    void connectionDroppedMidResponseIsConnectionClosed();
    void silentServerTimesOutInsteadOfHanging();
    void truncatedJsonIsBadResponse();
    void connectionRefusedNamesTheUrl();
    void closedKeepAliveConnectionRetriesGetOnce();
    void closedKeepAliveConnectionNeverRetriesExecute();
    void selfSignedCertificateIsTlsError();
    void queryAndHeadersArriveAsSent_data();
    void queryAndHeadersArriveAsSent();
    void everyEndpointSendsTheDocumentedRequest();
    void uploadIsMultipartWithFileField();
    void abortDeliversCancelledOnce();
    void noCallbackAfterContextIsDestroyed();

private:
    std::unique_ptr<FaultServer> m_server;
};

void TransportFaultsTest::initTestCase()
{
    SANDSCOPE_REQUIRE(!QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty(),
        "python3 is needed for the fault server");
    m_server = std::make_unique<FaultServer>();
    QString error;
    QVERIFY2(m_server->start(&error), qPrintable(error));
}

void TransportFaultsTest::proxyHtml502IsServerErrorWithoutHtml()
{
    OpenTerminalClient client(connectionTo(m_server->url(QStringLiteral("/html502"))));
    const auto result
        = await<CwdInfo>([&](auto done) { return client.cwd({}, &client, done); }, 20000);
    QCOMPARE(ApiError::kindName(result.error.kind), ApiError::kindName(Kind::ServerError));
    QCOMPARE(result.error.httpStatus, 502);
    QCOMPARE(result.error.message,
        QStringLiteral(
            "HTTP 502 from %1/files/cwd: the server or a proxy answered with an HTML page")
            .arg(m_server->url(QStringLiteral("/html502")).toString()));
    QVERIFY(!result.error.toString().contains(QLatin1String("nginx")));
}

void TransportFaultsTest::connectionDroppedMidResponseIsConnectionClosed()
{
    OpenTerminalClient client(connectionTo(m_server->url(QStringLiteral("/drop"))));
    const auto result
        = await<CwdInfo>([&](auto done) { return client.cwd({}, &client, done); }, 20000);
    QCOMPARE(ApiError::kindName(result.error.kind), ApiError::kindName(Kind::ConnectionClosed));
    QVERIFY2(result.error.message.contains(QLatin1String("/drop/files/cwd")),
        qPrintable(result.error.message));
}

void TransportFaultsTest::silentServerTimesOutInsteadOfHanging()
{
    OpenTerminalClient client(connectionTo(m_server->url(QStringLiteral("/hang")), 700));
    const auto result
        = await<CwdInfo>([&](auto done) { return client.cwd({}, &client, done); }, 20000);
    QCOMPARE(ApiError::kindName(result.error.kind), ApiError::kindName(Kind::Timeout));
    QVERIFY2(result.error.message != QLatin1String("No answer within 20000 ms (test timeout)"),
        "the client itself must time out, not the test");
}

void TransportFaultsTest::truncatedJsonIsBadResponse()
{
    OpenTerminalClient client(connectionTo(m_server->url(QStringLiteral("/truncated-json"))));
    const auto result = await<QVector<ProcessInfo>>(
        [&](auto done) { return client.listProcesses({}, &client, done); }, 20000);
    QCOMPARE(ApiError::kindName(result.error.kind), ApiError::kindName(Kind::BadResponse));
    QCOMPARE(result.error.httpStatus, 200);
    QVERIFY(result.error.url.endsWith(QLatin1String("/truncated-json/execute")));
}

void TransportFaultsTest::connectionRefusedNamesTheUrl()
{
    quint16 port = 0;
    {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost));
        port = probe.serverPort();
    } // closed again: nobody listens on `port` now
    const QUrl url(QStringLiteral("http://127.0.0.1:%1").arg(port));
    OpenTerminalClient client(connectionTo(url));
    const auto result = await<OpenTerminalClient::Empty>(
        [&](auto done) { return client.health(&client, done); }, 20000);
    QCOMPARE(ApiError::kindName(result.error.kind), ApiError::kindName(Kind::ConnectionRefused));
    QVERIFY2(result.error.message.contains(url.toString() + QStringLiteral("/health")),
        qPrintable(result.error.message));
}

void TransportFaultsTest::closedKeepAliveConnectionRetriesGetOnce()
{
    OpenTerminalClient client(connectionTo(m_server->url(QStringLiteral("/reuse/get"))));
    const auto first = await<OpenTerminalClient::Empty>(
        [&](auto done) { return client.health(&client, done); }, 20000);
    QVERIFY2(first.ok(), qPrintable(first.error.toString()));
    // Reuses the kept-alive connection, which the server now breaks: one retry succeeds.
    const auto second = await<OpenTerminalClient::Empty>(
        [&](auto done) { return client.health(&client, done); }, 20000);
    QVERIFY2(second.ok(), qPrintable(second.error.toString()));

    const QJsonArray log = requestLog(*m_server);
    QCOMPARE(countRequests(log, QStringLiteral("GET"), QStringLiteral("/reuse/get/health")), 3);
}

void TransportFaultsTest::closedKeepAliveConnectionNeverRetriesExecute()
{
    OpenTerminalClient client(connectionTo(m_server->url(QStringLiteral("/reuse/post"))));
    const auto warmUp = await<OpenTerminalClient::Empty>(
        [&](auto done) { return client.health(&client, done); }, 20000);
    QVERIFY2(warmUp.ok(), qPrintable(warmUp.error.toString()));
    const auto result = await<ProcessSnapshot>(
        [&](auto done) {
            return client.execute({}, QStringLiteral("touch /tmp/once"), {}, &client, done);
        },
        20000);
    QCOMPARE(ApiError::kindName(result.error.kind), ApiError::kindName(Kind::ConnectionClosed));

    // A repeated POST /execute could run the command twice: it reached the server once.
    const QJsonArray log = requestLog(*m_server);
    QCOMPARE(countRequests(log, QStringLiteral("POST"), QStringLiteral("/reuse/post/execute")), 1);
}

void TransportFaultsTest::selfSignedCertificateIsTlsError()
{
    SANDSCOPE_REQUIRE(QSslSocket::supportsSsl(), "Qt has no TLS backend");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString cert = dir.filePath(QStringLiteral("cert.pem"));
    const QString key = dir.filePath(QStringLiteral("key.pem"));
    QProcess openssl;
    openssl.start(QStringLiteral("openssl"),
        {QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"),
            QStringLiteral("rsa:2048"), QStringLiteral("-nodes"), QStringLiteral("-keyout"), key,
            QStringLiteral("-out"), cert, QStringLiteral("-days"), QStringLiteral("1"),
            QStringLiteral("-subj"), QStringLiteral("/CN=127.0.0.1")});
    const bool generated = openssl.waitForFinished(60000)
        && openssl.exitStatus() == QProcess::NormalExit && openssl.exitCode() == 0;
    SANDSCOPE_REQUIRE(generated, "the openssl CLI could not create a self-signed certificate");

    FaultServer tlsServer({QStringLiteral("--tls"), cert, key});
    QString error;
    QVERIFY2(tlsServer.start(&error), qPrintable(error));
    OpenTerminalClient client(connectionTo(tlsServer.url({}, QStringLiteral("https"))));
    const auto result = await<OpenTerminalClient::Empty>(
        [&](auto done) { return client.health(&client, done); }, 20000);
    QVERIFY2(!result.ok(), "a self-signed certificate must not be accepted");
    QCOMPARE(ApiError::kindName(result.error.kind), ApiError::kindName(Kind::Tls));
    QVERIFY2(result.error.message.contains(QLatin1String("self signed"), Qt::CaseInsensitive)
            || result.error.message.contains(QLatin1String("self-signed"), Qt::CaseInsensitive),
        qPrintable(result.error.message));
}

void TransportFaultsTest::queryAndHeadersArriveAsSent_data()
{
    QTest::addColumn<bool>("authenticated");
    QTest::addColumn<QString>("userId");
    QTest::addColumn<QString>("sessionId");
    QTest::addColumn<QString>("value");

    QTest::newRow("open endpoint, server account")
        << false << QString() << QString() << QStringLiteral("a+b&c%d #é/x");
    QTest::newRow("user and session")
        << true << QStringLiteral("alice@example.com") << QStringLiteral("chat-1")
        << QStringLiteral("1+1 = 2?&x=%20");
    QTest::newRow("server account with session")
        << true << QString() << QStringLiteral("s") << QStringLiteral("😀/日本#frag");
}

void TransportFaultsTest::queryAndHeadersArriveAsSent()
{
    QFETCH(bool, authenticated);
    QFETCH(QString, userId);
    QFETCH(QString, sessionId);
    QFETCH(QString, value);

    OpenTerminalClient client(connectionTo(m_server->url()));
    protocol::RequestSpec spec;
    spec.path = QStringLiteral("/echo/files/read");
    spec.authenticated = authenticated;
    spec.query = {{QStringLiteral("path"), value},
        {QStringLiteral("include"), QStringLiteral("*.c")}, {QStringLiteral("include"), value}};
    QJsonObject echo;
    int calls = 0;
    QEventLoop loop;
    client.send(
        Identity {userId, sessionId}, spec, &loop, [&](const protocol::HttpResponse &response) {
            ++calls;
            echo = QJsonDocument::fromJson(response.body).object();
            loop.quit();
        });
    QTimer::singleShot(20000, &loop, &QEventLoop::quit);
    loop.exec();
    QCOMPARE(calls, 1);

    // As Python's urllib.parse.parse_qsl (what the server framework uses) decoded it.
    const QJsonArray query = echo.value(QLatin1String("query")).toArray();
    QCOMPARE(query.size(), 3);
    QCOMPARE(query.at(0).toArray().at(1).toString(), value);
    QCOMPARE(query.at(1).toArray().at(1).toString(), QStringLiteral("*.c"));
    QCOMPARE(query.at(2).toArray().at(1).toString(), value);

    const QJsonObject headers = echo.value(QLatin1String("headers")).toObject();
    QCOMPARE(headers.contains(QLatin1String("authorization")), authenticated);
    if (authenticated)
        QCOMPARE(headers.value(QLatin1String("authorization")).toString(),
            QStringLiteral("Bearer ") + apiKey);
    QCOMPARE(headers.contains(QLatin1String("x-user-id")), !userId.isEmpty());
    QCOMPARE(headers.value(QLatin1String("x-user-id")).toString(), userId);
    QCOMPARE(headers.contains(QLatin1String("x-session-id")), !sessionId.isEmpty());
}

void TransportFaultsTest::everyEndpointSendsTheDocumentedRequest()
{
    using Q = QList<QPair<QString, QString>>;
    const QString odd = QStringLiteral("/tmp/a+b&c%d #é");
    using C = OpenTerminalClient;
    using Done = std::function<void()>;
    ExecuteOptions fullOptions;
    fullOptions.cwd = QStringLiteral("/tmp");
    fullOptions.env.insert(QStringLiteral("LANG"), QStringLiteral("C.UTF-8"));
    fullOptions.waitSeconds = 30;
    GrepOptions grepOptions;
    grepOptions.path = odd;
    grepOptions.caseInsensitive = true;
    grepOptions.include = QStringList {QStringLiteral("*.c"), QStringLiteral("*.h")};
    grepOptions.maxResults = 10;
    GlobOptions globOptions;
    globOptions.exclude = QStringList {QStringLiteral("node_modules")};
    globOptions.type = QStringLiteral("file");

    const QVector<ExpectedRequest> table {
        {str("health (no key)"),
            [](C &c, const Identity &, QObject *x, Done d) {
                return c.health(x, answered<C::Empty>(d));
            },
            str("GET"), str("/echo/health"), {}, {}, false},
        {str("execute with options"),
            [&](C &c, const Identity &id, QObject *x, Done d) {
                return c.execute(id, str("ls -l"), fullOptions, x, answered<ProcessSnapshot>(d));
            },
            str("POST"), str("/echo/execute"), Q {{str("wait"), str("30")}},
            QJsonObject {{str("command"), str("ls -l")}, {str("cwd"), str("/tmp")},
                {str("env"), QJsonObject {{str("LANG"), str("C.UTF-8")}}}}},
        {str("execute without options"),
            [](C &c, const Identity &id, QObject *x, Done d) {
                return c.execute(id, str("true"), {}, x, answered<ProcessSnapshot>(d));
            },
            str("POST"), str("/echo/execute"), {}, QJsonObject {{str("command"), str("true")}}},
        {str("status clamps wait to 300"),
            [](C &c, const Identity &id, QObject *x, Done d) {
                return c.processStatus(id, str("p 1/x"), 7, 999, x, answered<ProcessSnapshot>(d));
            },
            str("GET"), str("/echo/execute/p 1/x/status"),
            Q {{str("offset"), str("7")}, {str("wait"), str("300")}}, {}},
        {str("input doubles backslashes"),
            [](C &c, const Identity &id, QObject *x, Done d) {
                return c.sendInput(id, str("p"), str("C:\\new\n"), x, answered<C::Empty>(d));
            },
            str("POST"), str("/echo/execute/p/input"), {},
            QJsonObject {{str("input"), str("C:\\\\new\n")}}},
        {str("kill"),
            [](C &c, const Identity &id, QObject *x, Done d) {
                return c.killProcess(id, str("p"), true, x, answered<C::Empty>(d));
            },
            str("DELETE"), str("/echo/execute/p"), Q {{str("force"), str("true")}}, {}},
        {str("list processes"),
            [](C &c, const Identity &id, QObject *x, Done d) {
                return c.listProcesses(id, x, answered<QVector<ProcessInfo>>(d));
            },
            str("GET"), str("/echo/execute"), {}, {}},
        {str("cwd"),
            [](C &c, const Identity &id, QObject *x, Done d) {
                return c.cwd(id, x, answered<CwdInfo>(d));
            },
            str("GET"), str("/echo/files/cwd"), {}, {}},
        {str("set cwd"),
            [](C &c, const Identity &id, QObject *x, Done d) {
                return c.setCwd(id, str("sub"), x, answered<CwdInfo>(d));
            },
            str("POST"), str("/echo/files/cwd"), {}, QJsonObject {{str("path"), str("sub")}}},
        {str("list directory"),
            [&](C &c, const Identity &id, QObject *x, Done d) {
                return c.listDirectory(id, odd, x, answered<DirectoryListing>(d));
            },
            str("GET"), str("/echo/files/list"), Q {{str("directory"), odd}}, {}},
        {str("read lines"),
            [&](C &c, const Identity &id, QObject *x, Done d) {
                return c.readFile(id, odd, 2, 5, x, answered<FileContent>(d));
            },
            str("GET"), str("/echo/files/read"),
            Q {{str("path"), odd}, {str("start_line"), str("2")}, {str("end_line"), str("5")}}, {}},
        {str("view"),
            [&](C &c, const Identity &id, QObject *x, Done d) {
                return c.viewFile(id, odd, x, answered<RawFile>(d));
            },
            str("GET"), str("/echo/files/view"), Q {{str("path"), odd}}, {}},
        {str("serve encodes each segment"),
            [](C &c, const Identity &id, QObject *x, Done d) {
                return c.serveFile(id, str("/home/u/a b#c?.html"), x, answered<RawFile>(d));
            },
            str("GET"), str("/echo/files/serve/home/u/a b#c?.html"), {}, {}},
        {str("write"),
            [&](C &c, const Identity &id, QObject *x, Done d) {
                return c.writeFile(id, odd, str("é\n"), x, answered<WriteResult>(d));
            },
            str("POST"), str("/echo/files/write"), {},
            QJsonObject {{str("path"), odd}, {str("content"), str("é\n")}}},
        {str("mkdir"),
            [](C &c, const Identity &id, QObject *x, Done d) {
                return c.makeDirectory(id, str("/tmp/d"), x, answered<C::Empty>(d));
            },
            str("POST"), str("/echo/files/mkdir"), {}, QJsonObject {{str("path"), str("/tmp/d")}}},
        {str("delete"),
            [&](C &c, const Identity &id, QObject *x, Done d) {
                return c.deletePath(id, odd, x, answered<C::Empty>(d));
            },
            str("DELETE"), str("/echo/files/delete"), Q {{str("path"), odd}}, {}},
        {str("move"),
            [](C &c, const Identity &id, QObject *x, Done d) {
                return c.movePath(id, str("/a"), str("/b"), x, answered<MoveResult>(d));
            },
            str("POST"), str("/echo/files/move"), {},
            QJsonObject {{str("source"), str("/a")}, {str("destination"), str("/b")}}},
        {str("archive"),
            [](C &c, const Identity &id, QObject *x, Done d) {
                return c.archive(id, QStringList {str("/a"), str("/b c")}, x, answered<RawFile>(d));
            },
            str("POST"), str("/echo/files/archive"), {},
            QJsonObject {{str("paths"), QJsonArray {str("/a"), str("/b c")}}}},
        {str("grep repeats include"),
            [&](C &c, const Identity &id, QObject *x, Done d) {
                return c.grep(id, str("a+b"), grepOptions, x, answered<GrepResult>(d));
            },
            str("GET"), str("/echo/files/grep"),
            Q {{str("query"), str("a+b")}, {str("path"), odd}, {str("regex"), str("true")},
                {str("case_insensitive"), str("true")}, {str("match_per_line"), str("true")},
                {str("max_results"), str("10")}, {str("include"), str("*.c")},
                {str("include"), str("*.h")}},
            {}},
        {str("glob repeats exclude"),
            [&](C &c, const Identity &id, QObject *x, Done d) {
                return c.glob(id, str("**/*.md"), globOptions, x, answered<GlobResult>(d));
            },
            str("GET"), str("/echo/files/glob"),
            Q {{str("pattern"), str("**/*.md")}, {str("path"), str(".")},
                {str("type"), str("file")}, {str("max_results"), str("50")},
                {str("exclude"), str("node_modules")}},
            {}},
    };

    OpenTerminalClient client(connectionTo(m_server->url(QStringLiteral("/echo"))));
    const Identity identity {QStringLiteral("alice@example.com"), QStringLiteral("chat-42")};
    for (const ExpectedRequest &expected : table) {
        const QByteArray row = expected.name.toUtf8();
        int calls = 0;
        QEventLoop loop;
        expected.call(client, identity, &loop, [&] {
            ++calls;
            loop.quit();
        });
        QTimer::singleShot(20000, &loop, &QEventLoop::quit);
        if (calls == 0)
            loop.exec();
        QVERIFY2(calls == 1, row.constData());

        const QJsonObject seen = lastRequestTo(requestLog(*m_server), QStringLiteral("/echo"));
        QVERIFY2(
            seen.value(QLatin1String("method")).toString() == expected.method, row.constData());
        QVERIFY2(seen.value(QLatin1String("path")).toString() == expected.path,
            qPrintable(
                expected.name + QLatin1Char(' ') + seen.value(QLatin1String("path")).toString()));
        Q query;
        for (const QJsonValue &pair : seen.value(QLatin1String("query")).toArray())
            query.append({pair.toArray().at(0).toString(), pair.toArray().at(1).toString()});
        QVERIFY2(query == expected.query, row.constData());

        const QJsonObject headers = seen.value(QLatin1String("headers")).toObject();
        QVERIFY2(headers.contains(QLatin1String("authorization")) == expected.authenticated,
            row.constData());
        if (expected.authenticated) {
            QVERIFY2(headers.value(QLatin1String("x-user-id")).toString() == identity.userId,
                row.constData());
            QVERIFY2(headers.value(QLatin1String("x-session-id")).toString() == identity.sessionId,
                row.constData());
        }
        const QString body = seen.value(QLatin1String("body")).toString();
        if (expected.jsonBody.isEmpty()) {
            QVERIFY2(body.isEmpty(), row.constData());
        } else {
            QVERIFY2(headers.value(QLatin1String("content-type")).toString()
                    == QLatin1String("application/json"),
                row.constData());
            QVERIFY2(QJsonDocument::fromJson(body.toUtf8()).object() == expected.jsonBody,
                qPrintable(expected.name + QLatin1Char(' ') + body));
        }
    }
}

void TransportFaultsTest::uploadIsMultipartWithFileField()
{
    OpenTerminalClient client(connectionTo(m_server->url(QStringLiteral("/echo"))));
    const auto result = await<WriteResult>(
        [&](auto done) {
            return client.uploadFile({}, QStringLiteral("/tmp/up dir"), QStringLiteral("data.bin"),
                QByteArray("payload-bytes"), &client, done);
        },
        20000);
    // The echo carries a "path" (of the request), which is all parseWrite needs.
    QVERIFY2(result.ok(), qPrintable(result.error.toString()));

    const QJsonObject seen = lastRequestTo(requestLog(*m_server), QStringLiteral("/echo"));
    QCOMPARE(seen.value(QLatin1String("method")).toString(), QStringLiteral("POST"));
    QCOMPARE(seen.value(QLatin1String("path")).toString(), QStringLiteral("/echo/files/upload"));
    const QJsonArray query = seen.value(QLatin1String("query")).toArray();
    QCOMPARE(query.size(), 1);
    QCOMPARE(query.at(0).toArray().at(0).toString(), QStringLiteral("directory"));
    QCOMPARE(query.at(0).toArray().at(1).toString(), QStringLiteral("/tmp/up dir"));
    const QString contentType = seen.value(QLatin1String("headers"))
                                    .toObject()
                                    .value(QLatin1String("content-type"))
                                    .toString();
    QVERIFY2(contentType.startsWith(QLatin1String("multipart/form-data; boundary=")),
        qPrintable(contentType));
    const QString boundary = contentType.mid(contentType.indexOf(QLatin1Char('=')) + 1);
    const QString body = seen.value(QLatin1String("body")).toString();
    QVERIFY(body.startsWith(QStringLiteral("--") + boundary + QStringLiteral("\r\n")));
    QVERIFY(body.contains(
        QLatin1String("Content-Disposition: form-data; name=\"file\"; filename=\"data.bin\"")));
    QVERIFY(body.contains(QLatin1String("\r\n\r\npayload-bytes\r\n--")));
    QVERIFY(body.endsWith(QStringLiteral("--") + boundary + QStringLiteral("--\r\n")));
}

void TransportFaultsTest::abortDeliversCancelledOnce()
{
    OpenTerminalClient client(connectionTo(m_server->url(QStringLiteral("/hang"))));
    int calls = 0;
    ApiError error;
    CallHandle handle = client.cwd({}, &client, [&](const Result<CwdInfo> &result) {
        ++calls;
        error = result.error;
    });
    QVERIFY(handle.isRunning());
    QTest::qWait(200);
    handle.abort();
    QTRY_COMPARE_WITH_TIMEOUT(calls, 1, 5000);
    QCOMPARE(ApiError::kindName(error.kind), ApiError::kindName(Kind::Cancelled));
    QVERIFY(!handle.isRunning());
    handle.abort(); // a second abort is harmless and calls nothing
    QTest::qWait(200);
    QCOMPARE(calls, 1);
}

void TransportFaultsTest::noCallbackAfterContextIsDestroyed()
{
    OpenTerminalClient client(connectionTo(m_server->url(QStringLiteral("/hang")), 500));
    int calls = 0;
    auto context = std::make_unique<QObject>();
    client.cwd({}, context.get(), [&](const Result<CwdInfo> &) { ++calls; });
    // A control call with a living context proves the timeout fires in this window.
    int controlCalls = 0;
    client.cwd({}, &client, [&](const Result<CwdInfo> &) { ++controlCalls; });
    context.reset();
    QTRY_COMPARE_WITH_TIMEOUT(controlCalls, 1, 10000);
    QTest::qWait(300);
    QCOMPARE(calls, 0);
}

QTEST_GUILESS_MAIN(TransportFaultsTest)
#include "tst_transport_faults.moc"
