// The open-terminal wire format without any I/O: URLs, headers, typed errors and parsers.

#include "server/apierror.h"
#include "server/openterminalprotocol.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QtTest/QTest>

using namespace sandscope;
using namespace sandscope::protocol;
using Kind = ApiError::Kind;

Q_DECLARE_METATYPE(sandscope::ApiError::Kind)

namespace {

const QString secretKey = QStringLiteral("sk-very-secret-key-1234567890");

// How the server (Starlette / urllib.parse) decodes a query value: '+' is a space.
QString formDecode(QString encoded)
{
    encoded.replace(QLatin1Char('+'), QLatin1Char(' '));
    return QString::fromUtf8(QByteArray::fromPercentEncoding(encoded.toLatin1()));
}

// All values of `key` in the raw query string, decoded like the server does.
QStringList serverSideValues(const QUrl &url, const QString &key)
{
    QStringList values;
    const QString query = url.query(QUrl::FullyEncoded);
    for (const QString &pair : query.split(QLatin1Char('&'), Qt::SkipEmptyParts)) {
        const int equals = pair.indexOf(QLatin1Char('='));
        if (formDecode(pair.left(equals)) == key)
            values.append(formDecode(pair.mid(equals + 1)));
    }
    return values;
}

HttpResponse response(
    int status, const QByteArray &body, const QByteArray &contentType = "application/json")
{
    HttpResponse r;
    r.status = status;
    r.body = body;
    r.contentType = contentType;
    r.url = QUrl(QStringLiteral("http://admin:hunter2@ot.example:8000/files/read?path=/x"));
    return r;
}

// Every parser by name, so malformed bodies can be run against all of them from one table.
ApiError parseError(const QByteArray &parser, const QByteArray &body)
{
    if (parser == "openapi")
        return parseOpenApi(body).error;
    if (parser == "config")
        return parseConfig(body).error;
    if (parser == "process")
        return parseProcess(body).error;
    if (parser == "processList")
        return parseProcessList(body).error;
    if (parser == "cwd")
        return parseCwd(body).error;
    if (parser == "listing")
        return parseListing(body).error;
    if (parser == "read")
        return parseFileRead(response(200, body)).error;
    if (parser == "write")
        return parseWrite(body).error;
    if (parser == "move")
        return parseMove(body).error;
    if (parser == "grep")
        return parseGrep(body).error;
    if (parser == "glob")
        return parseGlob(body).error;
    qFatal("unknown parser");
    return {};
}

} // namespace

class ProtocolTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void uploadIsOneFileFieldBetweenItsBoundaries_data();
    void uploadIsOneFileFieldBetweenItsBoundaries();
    void urlKeepsBasePathPrefix_data();
    void urlKeepsBasePathPrefix();
    void queryValuesRoundTrip_data();
    void queryValuesRoundTrip();
    void repeatedQueryParametersKeepOrder();
    void headers_data();
    void headers();
    void transferTimeoutAddsLongPollWait();
    void jsonBodyIsCompactObject();
    void escapeProcessInput_data();
    void escapeProcessInput();
    void serverDetail_data();
    void serverDetail();
    void errorKinds_data();
    void errorKinds();
    void errorMessagesNeverCarryCredentials();
    void errorToStringAddsStatusOnce();
    void kindNamesAreDistinct();
    void parseProcessSnapshot();
    void parseRunningProcessHasNoExitCode();
    void parseProcessList();
    void parseOpenApiAndConfig();
    void parseCwdOldAndNew();
    void parseListingWithAndWithoutWritable();
    void parseFileReadBranchesOnContentType_data();
    void parseFileReadBranchesOnContentType();
    void parseWriteMoveGrepGlob();
    void malformedBodiesAreBadResponse_data();
    void malformedBodiesAreBadResponse();
    void contentDispositionFileName_data();
    void contentDispositionFileName();
    void processStatusNames_data();
    void processStatusNames();
};

void ProtocolTest::urlKeepsBasePathPrefix_data()
{
    QTest::addColumn<QString>("base");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("expected");
    QTest::newRow("plain") << "http://h:8000"
                           << "/health"
                           << "http://h:8000/health";
    QTest::newRow("trailing slash") << "http://h:8000/"
                                    << "/health"
                                    << "http://h:8000/health";
    QTest::newRow("proxy prefix") << "https://h/ot"
                                  << "/files/list"
                                  << "https://h/ot/files/list";
    QTest::newRow("proxy prefix slash") << "https://h/ot/"
                                        << "/files/list"
                                        << "https://h/ot/files/list";
    QTest::newRow("encoded segment kept") << "http://h"
                                          << "/files/serve/tmp/a%20b%23c.txt"
                                          << "http://h/files/serve/tmp/a%20b%23c.txt";
}

void ProtocolTest::urlKeepsBasePathPrefix()
{
    QFETCH(QString, base);
    QFETCH(QString, path);
    QFETCH(QString, expected);
    RequestSpec spec;
    spec.path = path;
    QCOMPARE(buildUrl(QUrl(base), spec).toString(QUrl::FullyEncoded), expected);
}

void ProtocolTest::queryValuesRoundTrip_data()
{
    QTest::addColumn<QString>("value");
    QTest::newRow("all specials") << QStringLiteral("a+b&c%d #é/x");
    QTest::newRow("plus only") << QStringLiteral("1+1=2");
    QTest::newRow("hash") << QStringLiteral("#notfragment");
    QTest::newRow("percent sequence") << QStringLiteral("%41%2B");
    QTest::newRow("emoji and cjk") << QStringLiteral("😀 日本");
    QTest::newRow("semicolon equals") << QStringLiteral("k=v;w");
    QTest::newRow("empty") << QString();
}

void ProtocolTest::queryValuesRoundTrip()
{
    QFETCH(QString, value);
    RequestSpec spec;
    spec.path = QStringLiteral("/files/read");
    spec.query = {{QStringLiteral("path"), value}, {QStringLiteral("n"), QStringLiteral("1")}};
    const QUrl url = buildUrl(QUrl(QStringLiteral("http://h:1")), spec);

    // Decoded like the server does ('+' = space) and like QUrlQuery does.
    QCOMPARE(serverSideValues(url, QStringLiteral("path")), QStringList {value});
    QCOMPARE(QUrlQuery(url).queryItemValue(QStringLiteral("path"), QUrl::FullyDecoded), value);
    QCOMPARE(serverSideValues(url, QStringLiteral("n")), QStringList {QStringLiteral("1")});
    const QByteArray wire = url.toEncoded();
    QVERIFY2(!wire.contains('#') && !wire.contains(' ') && !wire.contains('+'), wire.constData());
}

void ProtocolTest::repeatedQueryParametersKeepOrder()
{
    RequestSpec spec;
    spec.path = QStringLiteral("/files/grep");
    spec.query = {{QStringLiteral("include"), QStringLiteral("*.c")},
        {QStringLiteral("query"), QStringLiteral("x")},
        {QStringLiteral("include"), QStringLiteral("a&b.h")}};
    const QUrl url = buildUrl(QUrl(QStringLiteral("http://h")), spec);
    QCOMPARE(serverSideValues(url, QStringLiteral("include")),
        (QStringList {QStringLiteral("*.c"), QStringLiteral("a&b.h")}));
}

void ProtocolTest::headers_data()
{
    QTest::addColumn<bool>("authenticated");
    QTest::addColumn<QString>("userId");
    QTest::addColumn<QString>("sessionId");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<QByteArray>("expectedContentType");

    QTest::newRow("open endpoint, server account")
        << false << QString() << QString() << QByteArray() << QByteArray() << QByteArray();
    QTest::newRow("authenticated, server account") << true << QString() << QStringLiteral("s1")
                                                   << QByteArray() << QByteArray() << QByteArray();
    QTest::newRow("user and session, json body")
        << true << QStringLiteral("alice@example.com") << QStringLiteral("chat-7")
        << QByteArray("{\"a\":1}") << QByteArray() << QByteArray("application/json");
    QTest::newRow("multipart keeps its type")
        << true << QStringLiteral("bob") << QString() << QByteArray("--b\r\n")
        << QByteArray("multipart/form-data; boundary=b")
        << QByteArray("multipart/form-data; boundary=b");
}

void ProtocolTest::headers()
{
    QFETCH(bool, authenticated);
    QFETCH(QString, userId);
    QFETCH(QString, sessionId);
    QFETCH(QByteArray, body);
    QFETCH(QByteArray, contentType);
    QFETCH(QByteArray, expectedContentType);

    ServerConnection conn;
    conn.baseUrl = QUrl(QStringLiteral("http://h:8000"));
    conn.apiKey = secretKey;
    RequestSpec spec;
    spec.authenticated = authenticated;
    spec.body = body;
    spec.contentType = contentType;
    const QNetworkRequest request = buildRequest(conn, Identity {userId, sessionId}, spec);

    QCOMPARE(request.hasRawHeader("Authorization"), authenticated);
    if (authenticated)
        QCOMPARE(request.rawHeader("Authorization"), "Bearer " + secretKey.toUtf8());
    QCOMPARE(request.hasRawHeader("X-User-Id"), !userId.isEmpty());
    QCOMPARE(request.rawHeader("X-User-Id"), userId.toUtf8());
    QCOMPARE(request.hasRawHeader("X-Session-Id"), !sessionId.isEmpty());
    QCOMPARE(request.rawHeader("X-Session-Id"), sessionId.toUtf8());
    QCOMPARE(request.rawHeader("Content-Type"), expectedContentType);
}

void ProtocolTest::transferTimeoutAddsLongPollWait()
{
    ServerConnection conn;
    conn.baseUrl = QUrl(QStringLiteral("http://h"));
    conn.timeoutMs = 5000;
    RequestSpec spec;
    spec.extraTimeoutMs = 30000;
    QCOMPARE(buildRequest(conn, {}, spec).transferTimeout(), 35000);
    spec.extraTimeoutMs = 0;
    QCOMPARE(buildRequest(conn, {}, spec).transferTimeout(), 5000);
}

void ProtocolTest::jsonBodyIsCompactObject()
{
    const QByteArray body = jsonBody({{QStringLiteral("command"), QStringLiteral("echo \"hi\"")}});
    const QByteArray expected = R"({"command":"echo \"hi\""})";
    QCOMPARE(body, expected);
}

void ProtocolTest::escapeProcessInput_data()
{
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("expected");
    QTest::newRow("plain") << "bob\n"
                           << "bob\n";
    QTest::newRow("windows path") << R"(C:\new)"
                                  << R"(C:\\new)";
    QTest::newRow("literal escapes") << R"(\x41\u00e9\t)"
                                     << R"(\\x41\\u00e9\\t)";
    QTest::newRow("double backslash") << R"(a\\b)"
                                      << R"(a\\\\b)";
    QTest::newRow("ctrl-c stays a control char")
        << QStringLiteral("\x03") << QStringLiteral("\x03");
    QTest::newRow("non-ascii untouched") << QStringLiteral("é€😀") << QStringLiteral("é€😀");
}

void ProtocolTest::escapeProcessInput()
{
    QFETCH(QString, input);
    QFETCH(QString, expected);
    QCOMPARE(protocol::escapeProcessInput(input), expected);
}

void ProtocolTest::serverDetail_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("expected");
    QTest::newRow("string") << QByteArray(R"({"detail":"File not found"})") << "File not found";
    QTest::newRow("validation array") << QByteArray(
        R"({"detail":[{"loc":["query","wait"],"msg":"ensure this value is less than or equal to 300","type":"x"},{"loc":["body",0],"msg":"bad"}]})")
                                      << "query.wait: ensure this value is less than or equal to "
                                         "300; body.0: bad";
    QTest::newRow("error key") << QByteArray(R"({"error":"Session not found"})")
                               << "Session not found";
    QTest::newRow("html") << QByteArray("<html><body>Bad Gateway</body></html>") << QString();
    QTest::newRow("empty") << QByteArray() << QString();
    QTest::newRow("no detail") << QByteArray(R"({"status":"ok"})") << QString();
}

void ProtocolTest::serverDetail()
{
    QFETCH(QByteArray, body);
    QFETCH(QString, expected);
    QCOMPARE(protocol::serverDetail(body), expected);
}

void ProtocolTest::errorKinds_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QNetworkReply::NetworkError>("networkError");
    QTest::addColumn<bool>("abortedByCaller");
    QTest::addColumn<Kind>("kind");
    QTest::addColumn<QString>("messagePart");
    QTest::addColumn<QString>("detail");

    const QByteArray json = "application/json";
    const auto none = QNetworkReply::NoError;
    QTest::newRow("200 is no error")
        << 200 << json << QByteArray("{}") << none << false << Kind::None << QString() << QString();
    QTest::newRow("400 string detail")
        << 400 << json << QByteArray(R"({"detail":"Process has already exited"})")
        << QNetworkReply::ProtocolInvalidOperationError << false << Kind::BadRequest
        << "Process has already exited"
        << "Process has already exited";
    QTest::newRow("400 access denied is forbidden")
        << 400 << json
        << QByteArray(
               R"({"detail":"Access denied: /home/bob_1a2b3c4d/notes.txt belongs to another user"})")
        << QNetworkReply::ProtocolInvalidOperationError << false << Kind::Forbidden
        << "(bob_1a2b3c4d)"
        << "Access denied: /home/bob_1a2b3c4d/notes.txt belongs to another user";
    QTest::newRow("401 invalid key")
        << 401 << json << QByteArray(R"({"detail":"Invalid API key"})")
        << QNetworkReply::AuthenticationRequiredError << false << Kind::InvalidApiKey
        << "Invalid API key: the server refused the key"
        << "Invalid API key";
    QTest::newRow("403 names the owner")
        << 403 << json
        << QByteArray(R"({"detail":"Access denied: /home/carol belongs to another user"})")
        << QNetworkReply::ContentAccessDenied << false << Kind::Forbidden
        << "/home/carol belongs to another user (carol)"
        << "Access denied: /home/carol belongs to another user";
    QTest::newRow("403 other permission error")
        << 403 << json << QByteArray(R"({"detail":"[Errno 13] Permission denied: '/etc/shadow'"})")
        << QNetworkReply::ContentAccessDenied << false << Kind::Forbidden << "Permission denied"
        << "[Errno 13] Permission denied: '/etc/shadow'";
    QTest::newRow("404") << 404 << json << QByteArray(R"({"detail":"Process not found"})")
                         << QNetworkReply::ContentNotFoundError << false << Kind::NotFound
                         << "Process not found"
                         << "Process not found";
    QTest::newRow("409") << 409 << json << QByteArray(R"({"detail":"Destination already exists"})")
                         << QNetworkReply::ContentConflictError << false << Kind::Conflict
                         << "Destination already exists"
                         << "Destination already exists";
    QTest::newRow("415 keeps server message")
        << 415 << json
        << QByteArray(
               R"json({"detail":"Unsupported binary file type: application/zip (12 bytes)"})json")
        << QNetworkReply::UnknownContentError << false << Kind::UnsupportedMediaType
        << "Unsupported binary file type: application/zip (12 bytes)"
        << "Unsupported binary file type: application/zip (12 bytes)";
    QTest::newRow("422 array detail")
        << 422 << json
        << QByteArray(
               R"({"detail":[{"loc":["query","wait"],"msg":"too big","type":"value_error"}]})")
        << QNetworkReply::UnknownContentError << false << Kind::Validation << "query.wait: too big"
        << "query.wait: too big";
    QTest::newRow("429 error key")
        << 429 << json
        << QByteArray(R"({"error":"Maximum number of terminal sessions (16) reached"})")
        << QNetworkReply::UnknownContentError << false << Kind::TooManyRequests << "(16) reached"
        << "Maximum number of terminal sessions (16) reached";
    QTest::newRow("502 html from a proxy")
        << 502 << QByteArray("text/html; charset=utf-8")
        << QByteArray("<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>")
        << QNetworkReply::UnknownServerError << false << Kind::ServerError
        << "HTTP 502 from http://ot.example:8000/files/read: the server or a proxy answered with "
           "an "
           "HTML page"
        << QString();
    QTest::newRow("503 html without content type")
        << 503 << QByteArray() << QByteArray("\n<!DOCTYPE html><html></html>")
        << QNetworkReply::ServiceUnavailableError << false << Kind::ServerError << "an HTML page"
        << QString();
    QTest::newRow("500 empty body")
        << 500 << QByteArray() << QByteArray() << QNetworkReply::InternalServerError << false
        << Kind::ServerError << "HTTP 500 from http://ot.example:8000/files/read" << QString();
    QTest::newRow("500 json detail")
        << 500 << json << QByteArray(R"({"detail":"useradd failed"})")
        << QNetworkReply::InternalServerError << false << Kind::ServerError << "useradd failed"
        << "useradd failed";
    QTest::newRow("500 plain text")
        << 500 << QByteArray("text/plain; charset=utf-8") << QByteArray("Internal Server Error")
        << QNetworkReply::InternalServerError << false << Kind::ServerError
        << "HTTP 500 from http://ot.example:8000/files/read: Internal Server Error"
        << "Internal Server Error";
    QTest::newRow("418 other status")
        << 418 << json << QByteArray() << QNetworkReply::UnknownContentError << false
        << Kind::HttpError << "HTTP 418" << QString();
    QTest::newRow("refused") << 0 << QByteArray() << QByteArray()
                             << QNetworkReply::ConnectionRefusedError << false
                             << Kind::ConnectionRefused << "http://ot.example:8000/files/read"
                             << QString();
    QTest::newRow("host not found")
        << 0 << QByteArray() << QByteArray() << QNetworkReply::HostNotFoundError << false
        << Kind::HostNotFound << "ot.example" << QString();
    QTest::newRow("transfer timeout")
        << 0 << QByteArray() << QByteArray() << QNetworkReply::OperationCanceledError << false
        << Kind::Timeout << "in time" << QString();
    QTest::newRow("caller abort") << 0 << QByteArray() << QByteArray()
                                  << QNetworkReply::OperationCanceledError << true
                                  << Kind::Cancelled << "Cancelled" << QString();
    QTest::newRow("closed mid-response")
        << 200 << json << QByteArray("{\"id\":") << QNetworkReply::RemoteHostClosedError << false
        << Kind::ConnectionClosed << "closed the connection" << QString();
    QTest::newRow("tls") << 0 << QByteArray() << QByteArray()
                         << QNetworkReply::SslHandshakeFailedError << false << Kind::Tls
                         << "The certificate is self-signed"
                         << "The certificate is self-signed, and untrusted";
    QTest::newRow("other network error")
        << 0 << QByteArray() << QByteArray() << QNetworkReply::NetworkSessionFailedError << false
        << Kind::Network << "Network error" << QString();
}

void ProtocolTest::errorKinds()
{
    QFETCH(int, status);
    QFETCH(QByteArray, contentType);
    QFETCH(QByteArray, body);
    QFETCH(QNetworkReply::NetworkError, networkError);
    QFETCH(bool, abortedByCaller);
    QFETCH(Kind, kind);
    QFETCH(QString, messagePart);
    QFETCH(QString, detail);

    HttpResponse r = response(status, body, contentType);
    r.networkError = networkError;
    r.networkErrorString = QStringLiteral("network says no");
    r.abortedByCaller = abortedByCaller;
    if (networkError == QNetworkReply::SslHandshakeFailedError)
        r.tlsErrors = QStringList {QStringLiteral("The certificate is self-signed, and untrusted")};

    const ApiError error = errorFromResponse(r);
    QCOMPARE(ApiError::kindName(error.kind), ApiError::kindName(kind));
    QVERIFY2(error.message.contains(messagePart), qPrintable(error.message));
    QCOMPARE(error.detail, detail);
    if (kind != Kind::None) {
        QCOMPARE(error.httpStatus, status);
        QCOMPARE(error.url, QStringLiteral("http://ot.example:8000/files/read?path=/x"));
        QVERIFY2(!error.message.contains(QLatin1String("<html")), qPrintable(error.message));
    }
}

void ProtocolTest::errorMessagesNeverCarryCredentials()
{
    // Neither the API key (which the 401 body could echo) nor URL userinfo may leak.
    HttpResponse r = response(401, R"({"detail":"Invalid API key )" + secretKey.toUtf8() + R"("})");
    const ApiError error = errorFromResponse(r);
    QCOMPARE(error.kind, Kind::InvalidApiKey);
    QCOMPARE(error.message, QStringLiteral("Invalid API key: the server refused the key"));
    QVERIFY(!error.toString().contains(secretKey));

    for (const auto networkError :
        {QNetworkReply::ConnectionRefusedError, QNetworkReply::TimeoutError,
            QNetworkReply::RemoteHostClosedError, QNetworkReply::UnknownNetworkError}) {
        HttpResponse failed = response(0, {});
        failed.networkError = networkError;
        const ApiError e = errorFromResponse(failed);
        QVERIFY(e.isError());
        QVERIFY2(!e.message.contains(QLatin1String("hunter2")), qPrintable(e.message));
        QVERIFY2(!e.message.contains(QLatin1String("admin@")), qPrintable(e.message));
        QVERIFY(!e.url.contains(QLatin1String("hunter2")));
    }
}

void ProtocolTest::errorToStringAddsStatusOnce()
{
    ApiError error;
    error.kind = Kind::NotFound;
    error.httpStatus = 404;
    error.message = QStringLiteral("Not found: File not found");
    QCOMPARE(error.toString(), QStringLiteral("Not found: File not found (HTTP 404)"));
    error.message = QStringLiteral("HTTP 502 from http://h/: an HTML page");
    error.httpStatus = 502;
    QCOMPARE(error.toString(), error.message);
    error.httpStatus = 0;
    error.message = QStringLiteral("Connection refused");
    QCOMPARE(error.toString(), QStringLiteral("Connection refused"));
}

void ProtocolTest::kindNamesAreDistinct()
{
    QSet<QString> names;
    for (int k = int(Kind::None); k <= int(Kind::ProcessExpired); ++k)
        names.insert(ApiError::kindName(static_cast<Kind>(k)));
    QCOMPARE(names.size(), int(Kind::ProcessExpired) + 1);
    QCOMPARE(
        ApiError::kindName(Kind::UnsupportedMediaType), QStringLiteral("UnsupportedMediaType"));
}

void ProtocolTest::parseProcessSnapshot()
{
    const QByteArray body
        = R"({"id":"20261129-093314-df4c3a","command":"echo hi; exit 3","status":"done",
        "exit_code":3,"output":[{"type":"output","data":"hi\r\n"},{"type":"stderr","data":"é"}],
        "truncated":true,"next_offset":2,"log_path":"/home/user/.local/state/x.jsonl"})";
    const auto result = parseProcess(body);
    QVERIFY2(result.ok(), qPrintable(result.error.message));
    const ProcessSnapshot &s = result.value;
    QCOMPARE(s.info.id, QStringLiteral("20261129-093314-df4c3a"));
    QCOMPARE(s.info.command, QStringLiteral("echo hi; exit 3"));
    QCOMPARE(s.info.status, ProcessStatus::Done);
    QVERIFY(s.info.hasExitCode);
    QCOMPARE(s.info.exitCode, 3);
    QCOMPARE(s.info.logPath, QStringLiteral("/home/user/.local/state/x.jsonl"));
    QCOMPARE(s.output.size(), 2);
    QCOMPARE(s.output.at(0).type, QStringLiteral("output"));
    QCOMPARE(s.output.at(0).data, QStringLiteral("hi\r\n"));
    QCOMPARE(s.output.at(1).data, QStringLiteral("é"));
    QCOMPARE(s.nextOffset, 2);
    QVERIFY(s.truncated);
}

void ProtocolTest::parseRunningProcessHasNoExitCode()
{
    const auto result = parseProcess(
        R"({"id":"p","command":"sleep 9","status":"running","exit_code":null,"output":[],"next_offset":0})");
    QVERIFY2(result.ok(), qPrintable(result.error.message));
    QCOMPARE(result.value.info.status, ProcessStatus::Running);
    QVERIFY(!result.value.info.hasExitCode);
    QVERIFY(!result.value.truncated);
    QVERIFY(result.value.info.logPath.isEmpty());

    const auto killed = parseProcess(
        R"({"id":"p","command":"x","status":"killed","exit_code":-9,"output":[],"next_offset":0})");
    QVERIFY(killed.ok());
    QCOMPARE(killed.value.info.exitCode, -9);
}

void ProtocolTest::parseProcessList()
{
    const auto result = protocol::parseProcessList(
        R"([{"id":"a","command":"c1","status":"running","exit_code":null,"log_path":"/l/a"},
            {"id":"b","command":"c2","status":"done","exit_code":0,"log_path":null}])");
    QVERIFY2(result.ok(), qPrintable(result.error.message));
    QCOMPARE(result.value.size(), 2);
    QCOMPARE(result.value.at(0).status, ProcessStatus::Running);
    QCOMPARE(result.value.at(1).id, QStringLiteral("b"));
    QVERIFY(result.value.at(1).hasExitCode);
    QCOMPARE(result.value.at(1).exitCode, 0);
    QVERIFY(protocol::parseProcessList("[]").ok());
}

void ProtocolTest::parseOpenApiAndConfig()
{
    const auto info = parseOpenApi(
        R"({"openapi":"3.1.0","info":{"title":"Open Terminal","version":"0.11.34"},
            "paths":{"/execute":{},"/files/read":{}}})");
    QVERIFY2(info.ok(), qPrintable(info.error.message));
    QCOMPARE(info.value.version, QStringLiteral("0.11.34"));
    QVERIFY(info.value.hasPath(QStringLiteral("/files/read")));
    QVERIFY(!info.value.hasPath(QStringLiteral("/files/matches")));

    const auto config
        = parseConfig(R"({"features":{"terminal":true,"notebooks":false,"system":true}})");
    QVERIFY2(config.ok(), qPrintable(config.error.message));
    QVERIFY(config.value.terminal);
    QVERIFY(!config.value.notebooks);
    QVERIFY(config.value.system);
}

void ProtocolTest::parseCwdOldAndNew()
{
    const auto old = parseCwd(R"({"cwd":"/home/user"})");
    QVERIFY(old.ok());
    QCOMPARE(old.value.cwd, QStringLiteral("/home/user"));
    QVERIFY(old.value.home.isEmpty());

    const auto newer = parseCwd(
        R"({"cwd":"/home/alice/sub","home":"/home/alice","root":{"path":"/home/alice","label":"Home"}})");
    QVERIFY2(newer.ok(), qPrintable(newer.error.message));
    QCOMPARE(newer.value.home, QStringLiteral("/home/alice"));
    QCOMPARE(newer.value.rootPath, QStringLiteral("/home/alice"));
}

void ProtocolTest::parseListingWithAndWithoutWritable()
{
    const auto result = parseListing(
        R"({"dir":"/home/user","writable":true,"entries":[
            {"name":".bashrc","type":"file","size":3771,"modified":1764408794.5},
            {"name":"src","type":"directory","size":4096,"modified":1764408794.0,"writable":false}]})");
    QVERIFY2(result.ok(), qPrintable(result.error.message));
    QCOMPARE(result.value.directory, QStringLiteral("/home/user"));
    QCOMPARE(result.value.entries.size(), 2);
    const FileEntry &file = result.value.entries.at(0);
    QCOMPARE(file.name, QStringLiteral(".bashrc"));
    QVERIFY(!file.isDirectory);
    QCOMPARE(file.size, 3771);
    QCOMPARE(file.modified.toMSecsSinceEpoch(), Q_INT64_C(1764408794500));
    QCOMPARE(file.writable, -1);
    QVERIFY(result.value.entries.at(1).isDirectory);
    QCOMPARE(result.value.entries.at(1).writable, 0);
}

void ProtocolTest::parseFileReadBranchesOnContentType_data()
{
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<bool>("isText");
    QTest::addColumn<QString>("expectedContentType");

    QTest::newRow("json text") << QByteArray(
        "application/json") << QByteArray(R"({"path":"/a.txt","total_lines":2,"content":"x\ny\n"})")
                               << true << "text/plain";
    QTest::newRow("json with charset")
        << QByteArray("application/json; charset=utf-8")
        << QByteArray(R"({"path":"/a","total_lines":0,"content":""})") << true << "text/plain";
    QTest::newRow("png bytes") << QByteArray("image/png") << QByteArray("\x89PNG\r\n\x1a\n\0\0", 10)
                               << false << "image/png";
    QTest::newRow("json-looking png")
        << QByteArray("image/png") << QByteArray(R"({"content":"x"})") << false << "image/png";
}

void ProtocolTest::parseFileReadBranchesOnContentType()
{
    QFETCH(QByteArray, contentType);
    QFETCH(QByteArray, body);
    QFETCH(bool, isText);
    QFETCH(QString, expectedContentType);

    const auto result = parseFileRead(response(200, body, contentType));
    QVERIFY2(result.ok(), qPrintable(result.error.message));
    QCOMPARE(result.value.isText, isText);
    QCOMPARE(result.value.contentType, expectedContentType);
    if (isText) {
        QVERIFY(result.value.bytes.isEmpty());
        QCOMPARE(result.value.text,
            QJsonDocument::fromJson(body).object().value(QLatin1String("content")).toString());
        QCOMPARE(result.value.totalLines,
            QJsonDocument::fromJson(body).object().value(QLatin1String("total_lines")).toInt());
    } else {
        QCOMPARE(result.value.bytes, body);
        QVERIFY(result.value.text.isEmpty());
    }
}

void ProtocolTest::parseWriteMoveGrepGlob()
{
    const auto write = parseWrite(R"({"path":"/home/user/é.txt","size":3})");
    QVERIFY(write.ok());
    QCOMPARE(write.value.path, QStringLiteral("/home/user/é.txt"));
    QCOMPARE(write.value.size, 3);

    const auto move = parseMove(R"({"source":"/a","destination":"/b"})");
    QVERIFY(move.ok());
    QCOMPARE(move.value.source, QStringLiteral("/a"));
    QCOMPARE(move.value.destination, QStringLiteral("/b"));

    const auto grep = parseGrep(
        R"({"query":"x","path":".","matches":[{"file":"/a.c","line":7,"content":"int x;"},{"file":"/b.c"}],"truncated":true})");
    QVERIFY2(grep.ok(), qPrintable(grep.error.message));
    QCOMPARE(grep.value.matches.size(), 2);
    QCOMPARE(grep.value.matches.at(0).line, 7);
    QCOMPARE(grep.value.matches.at(0).content, QStringLiteral("int x;"));
    QCOMPARE(grep.value.matches.at(1).file, QStringLiteral("/b.c"));
    QCOMPARE(grep.value.matches.at(1).line, 0);
    QVERIFY(grep.value.truncated);

    const auto glob = parseGlob(
        R"({"pattern":"**/*.h","path":"/src","matches":[{"path":"inc/a.h","type":"file","size":12,"modified":1.5},{"path":"inc","type":"directory","size":0,"modified":2}],"truncated":false})");
    QVERIFY2(glob.ok(), qPrintable(glob.error.message));
    QCOMPARE(glob.value.matches.size(), 2);
    QCOMPARE(glob.value.matches.at(0).path, QStringLiteral("inc/a.h"));
    QCOMPARE(glob.value.matches.at(0).size, 12);
    QCOMPARE(glob.value.matches.at(0).modified.toMSecsSinceEpoch(), Q_INT64_C(1500));
    QVERIFY(glob.value.matches.at(1).isDirectory);
    QVERIFY(!glob.value.truncated);
}

void ProtocolTest::malformedBodiesAreBadResponse_data()
{
    QTest::addColumn<QByteArray>("parser");
    QTest::addColumn<QByteArray>("body");

    const QByteArrayList all {"openapi", "config", "process", "processList", "cwd", "listing",
        "read", "write", "move", "grep", "glob"};
    for (const QByteArray &parser : all) {
        QTest::addRow("%s: empty", parser.constData()) << parser << QByteArray();
        QTest::addRow("%s: truncated", parser.constData())
            << parser << QByteArray(R"({"id":"abc","st)");
        QTest::addRow("%s: html", parser.constData()) << parser << QByteArray("<html>ok</html>");
        QTest::addRow("%s: wrong top-level type", parser.constData())
            << parser << (parser == "processList" ? QByteArray("{}") : QByteArray("[1,2]"));
    }
    QTest::newRow("openapi: version is a number")
        << QByteArray("openapi") << QByteArray(R"({"info":{"version":1},"paths":{}})");
    QTest::newRow("openapi: no paths")
        << QByteArray("openapi") << QByteArray(R"({"info":{"version":"1"}})");
    QTest::newRow("config: feature not bool")
        << QByteArray("config") << QByteArray(R"({"features":{"terminal":"yes"}})");
    QTest::newRow("process: id missing")
        << QByteArray("process") << QByteArray(R"({"status":"done","output":[],"next_offset":0})");
    QTest::newRow("process: unknown status") << QByteArray(
        "process") << QByteArray(R"({"id":"p","status":"zombie","output":[],"next_offset":0})");
    QTest::newRow("process: exit code string")
        << QByteArray("process")
        << QByteArray(R"({"id":"p","status":"done","exit_code":"3","output":[],"next_offset":0})");
    QTest::newRow("process: fractional offset") << QByteArray(
        "process") << QByteArray(R"({"id":"p","status":"done","output":[],"next_offset":1.5})");
    QTest::newRow("process: output data not string")
        << QByteArray("process")
        << QByteArray(
               R"({"id":"p","status":"done","output":[{"type":"output","data":7}],"next_offset":1})");
    QTest::newRow("process: output element not object") << QByteArray(
        "process") << QByteArray(R"({"id":"p","status":"done","output":["hi"],"next_offset":1})");
    QTest::newRow("process: offset missing")
        << QByteArray("process") << QByteArray(R"({"id":"p","status":"done","output":[]})");
    QTest::newRow("processList: element not object")
        << QByteArray("processList") << QByteArray(R"(["a"])");
    QTest::newRow("cwd: cwd null") << QByteArray("cwd") << QByteArray(R"({"cwd":null})");
    QTest::newRow("listing: entries object")
        << QByteArray("listing") << QByteArray(R"({"dir":"/","entries":{"a":1}})");
    QTest::newRow("listing: size string")
        << QByteArray("listing")
        << QByteArray(
               R"({"dir":"/","entries":[{"name":"a","type":"file","size":"1","modified":1}]})");
    QTest::newRow("read: content missing")
        << QByteArray("read") << QByteArray(R"({"path":"/a","total_lines":1})");
    QTest::newRow("write: path missing") << QByteArray("write") << QByteArray(R"({"size":1})");
    QTest::newRow("move: destination number")
        << QByteArray("move") << QByteArray(R"({"source":"/a","destination":5})");
    QTest::newRow("grep: matches missing")
        << QByteArray("grep") << QByteArray(R"({"truncated":false})");
    QTest::newRow("grep: line string") << QByteArray(
        "grep") << QByteArray(R"({"matches":[{"file":"a","line":"3"}],"truncated":false})");
    QTest::newRow("glob: path missing")
        << QByteArray("glob") << QByteArray(R"({"matches":[{"type":"file"}],"truncated":false})");
    QTest::newRow("glob: truncated string")
        << QByteArray("glob") << QByteArray(R"({"matches":[],"truncated":"no"})");
}

void ProtocolTest::malformedBodiesAreBadResponse()
{
    QFETCH(QByteArray, parser);
    QFETCH(QByteArray, body);
    const ApiError error = parseError(parser, body);
    QCOMPARE(ApiError::kindName(error.kind), ApiError::kindName(Kind::BadResponse));
    QVERIFY(error.message.startsWith(QLatin1String("Unexpected answer from the server: ")));
}

void ProtocolTest::contentDispositionFileName_data()
{
    QTest::addColumn<QByteArray>("header");
    QTest::addColumn<QString>("expected");
    QTest::newRow("quoted") << QByteArray(R"(attachment; filename="download.zip")")
                            << "download.zip";
    QTest::newRow("token") << QByteArray("attachment; filename=src.zip") << "src.zip";
    QTest::newRow("escaped quote")
        << QByteArray(R"(attachment; filename="a\"b.zip")") << "a\"b.zip";
    QTest::newRow("rfc 5987 wins")
        << QByteArray(R"(attachment; filename="x.zip"; filename*=utf-8''caf%C3%A9.zip)")
        << QStringLiteral("café.zip");
    QTest::newRow("latin-1 bytes")
        << QByteArray("attachment; filename=\"caf\xe9 x.zip\"") << QStringLiteral("café x.zip");
    QTest::newRow("utf-8 bytes") << QByteArray("attachment; filename=\"caf\xc3\xa9.zip\"")
                                 << QStringLiteral("café.zip");
    QTest::newRow("missing") << QByteArray("inline") << QString();
    QTest::newRow("empty") << QByteArray() << QString();
}

void ProtocolTest::contentDispositionFileName()
{
    QFETCH(QByteArray, header);
    QFETCH(QString, expected);
    QCOMPARE(fileNameFromContentDisposition(header), expected);
}

void ProtocolTest::processStatusNames_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("status");
    QTest::newRow("running") << "running" << int(ProcessStatus::Running);
    QTest::newRow("done") << "done" << int(ProcessStatus::Done);
    QTest::newRow("killed") << "killed" << int(ProcessStatus::Killed);
    QTest::newRow("case matters") << "Done" << int(ProcessStatus::Unknown);
    QTest::newRow("empty") << "" << int(ProcessStatus::Unknown);
}

void ProtocolTest::processStatusNames()
{
    QFETCH(QString, name);
    QFETCH(int, status);
    QCOMPARE(int(processStatusFromString(name)), status);
}

void ProtocolTest::uploadIsOneFileFieldBetweenItsBoundaries_data()
{
    QTest::addColumn<QString>("fileName");
    QTest::addColumn<QByteArray>("sentName");
    QTest::newRow("plain") << QStringLiteral("notes.txt") << QByteArray("notes.txt");
    QTest::newRow("quote") << QStringLiteral("a\"b.txt") << QByteArray("a%22b.txt");
    // A line break would end the header and start a part of the sender's choosing.
    QTest::newRow("line breaks") << QStringLiteral("a\r\nX: y.txt") << QByteArray("a  X: y.txt");
    QTest::newRow("utf-8") << QStringLiteral("r\u00e9sum\u00e9.txt")
                           << QByteArray("r\xc3\xa9sum\xc3\xa9.txt");
}

void ProtocolTest::uploadIsOneFileFieldBetweenItsBoundaries()
{
    QFETCH(QString, fileName);
    QFETCH(QByteArray, sentName);
    const QByteArray bytes("line one\r\n--not-a-boundary\r\n\0tail", 34);
    const RequestSpec spec = uploadSpec(QStringLiteral("/home/u/in"), fileName, bytes);
    QCOMPARE(spec.method, QByteArray("POST"));
    QCOMPARE(spec.path, QStringLiteral("/files/upload"));
    QCOMPARE(spec.query.size(), 1);
    QCOMPARE(spec.query.at(0).first, QStringLiteral("directory"));
    QCOMPARE(spec.query.at(0).second, QStringLiteral("/home/u/in"));
    QVERIFY(!spec.idempotent); // a repeated upload is not the same request
    const QByteArray prefix("multipart/form-data; boundary=");
    QVERIFY(spec.contentType.startsWith(prefix));
    const QByteArray boundary = spec.contentType.mid(prefix.size());
    QVERIFY(!boundary.isEmpty() && !bytes.contains(boundary));
    const QByteArray head = "--" + boundary
        + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" + sentName
        + "\"\r\nContent-Type: application/octet-stream\r\n\r\n";
    QCOMPARE(spec.body, head + bytes + "\r\n--" + boundary + "--\r\n");
}

QTEST_GUILESS_MAIN(ProtocolTest)
#include "tst_protocol.moc"
