#include "openterminalclient.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSslError>
#include <QVariantMap>

#include <memory>

namespace sandscope {

using protocol::HttpResponse;
using protocol::RequestSpec;

namespace {

constexpr int maxWaitSeconds = 300;

// One logical request: survives the retry of its reply and knows whether the caller aborted.
class PendingCall : public QObject {
    Q_OBJECT
public:
    using Done = std::function<void(const HttpResponse &)>;

    PendingCall(QObject *parent, Identity callIdentity, RequestSpec callSpec, QObject *callContext,
        Done callDone)
        : QObject(parent)
        , identity(std::move(callIdentity))
        , spec(std::move(callSpec))
        , context(callContext)
        , boundToContext(callContext != nullptr)
        , done(std::move(callDone))
    {
    }

    void abort()
    {
        if (finished)
            return;
        abortedByCaller = true;
        for (const QPointer<PendingCall> &other : linked) {
            if (other)
                other->abort();
        }
        if (reply)
            reply->abort();
    }

    Identity identity;
    RequestSpec spec;
    QPointer<QObject> context;
    bool boundToContext;
    Done done;
    QPointer<QNetworkReply> reply;
    QStringList tlsErrors;
    QList<QPointer<PendingCall>> linked; // aborted together with this call
    bool retried = false;
    bool abortedByCaller = false;
    bool finished = false;
};

QString encodedSegment(const QString &text)
{
    return QString::fromLatin1(QUrl::toPercentEncoding(text));
}

QString boolText(bool value)
{
    return value ? QStringLiteral("true") : QStringLiteral("false");
}

RequestSpec get(const QString &path, QList<QPair<QString, QString>> query = {})
{
    RequestSpec spec;
    spec.path = path;
    spec.query = std::move(query);
    return spec;
}

RequestSpec postJson(const QString &path, const QVariantMap &body, bool idempotent = false)
{
    RequestSpec spec;
    spec.method = "POST";
    spec.path = path;
    spec.body = protocol::jsonBody(body);
    spec.idempotent = idempotent;
    return spec;
}

// Parse failures are about this request: give them its URL and status.
template <typename T> Result<T> withResponseContext(Result<T> result, const HttpResponse &response)
{
    if (!result.ok()) {
        result.error.url = response.url.adjusted(QUrl::RemoveUserInfo).toString();
        result.error.httpStatus = response.status;
    }
    return result;
}

template <typename T, typename Parse>
CallHandle typedCall(OpenTerminalClient *client, const Identity &id, const RequestSpec &spec,
    QObject *context, OpenTerminalClient::Callback<T> done, Parse parse)
{
    return client->send(id, spec, context,
        [done = std::move(done), parse = std::move(parse)](const HttpResponse &response) {
            if (!done)
                return;
            const ApiError error = protocol::errorFromResponse(response);
            if (error.isError()) {
                done(Result<T>::failure(error));
                return;
            }
            done(withResponseContext<T>(parse(response), response));
        });
}

Result<OpenTerminalClient::Empty> acceptAny(const HttpResponse &)
{
    return Result<OpenTerminalClient::Empty>::success({});
}

Result<RawFile> rawFile(const HttpResponse &response)
{
    RawFile file;
    file.bytes = response.body;
    file.contentType = QString::fromLatin1(response.contentType);
    file.fileName = protocol::fileNameFromContentDisposition(response.contentDisposition);
    return Result<RawFile>::success(std::move(file));
}

} // namespace

void CallHandle::abort()
{
    if (auto *call = qobject_cast<PendingCall *>(m_call.data()))
        call->abort();
    else if (auto *reply = qobject_cast<QNetworkReply *>(m_call.data()))
        reply->abort();
}

bool CallHandle::isRunning() const
{
    if (auto *call = qobject_cast<PendingCall *>(m_call.data()))
        return !call->finished;
    if (auto *reply = qobject_cast<QNetworkReply *>(m_call.data()))
        return reply->isRunning();
    return false;
}

namespace {

void startReply(
    QNetworkAccessManager *network, const ServerConnection &connection, PendingCall *call);

void finishReply(QNetworkAccessManager *network, const ServerConnection &connection,
    PendingCall *call, QNetworkReply *reply)
{
    reply->deleteLater();
    if (call->finished)
        return;

    HttpResponse response;
    response.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (reply->isOpen()) // an aborted reply is closed and has nothing to read
        response.body = reply->readAll();
    response.contentType = reply->rawHeader("Content-Type");
    response.contentDisposition = reply->rawHeader("Content-Disposition");
    response.networkError = reply->error();
    response.networkErrorString = reply->errorString();
    response.tlsErrors = call->tlsErrors;
    response.abortedByCaller = call->abortedByCaller;
    // The transfer timeout aborts the reply the same way abort() does.
    response.timedOut
        = !call->abortedByCaller && reply->error() == QNetworkReply::OperationCanceledError;
    response.url = reply->request().url();

    // Qt 6 can report a body cut short by a closed connection as a success: compare it
    // with the promised length (only meaningful when nothing was decompressed).
    bool lengthKnown = false;
    const qint64 promisedLength
        = reply->header(QNetworkRequest::ContentLengthHeader).toLongLong(&lengthKnown);
    if (response.networkError == QNetworkReply::NoError && lengthKnown
        && !reply->hasRawHeader("Content-Encoding") && response.body.size() < promisedLength) {
        response.networkError = QNetworkReply::RemoteHostClosedError;
        response.networkErrorString = QStringLiteral("Connection closed after %1 of %2 bytes")
                                          .arg(response.body.size())
                                          .arg(promisedLength);
    }

    // uvicorn drops idle kept-alive connections; a reused one can fail on first use.
    if (response.networkError == QNetworkReply::RemoteHostClosedError && call->spec.idempotent
        && !call->retried && !call->abortedByCaller) {
        call->retried = true;
        call->tlsErrors.clear();
        startReply(network, connection, call);
        return;
    }

    call->finished = true;
    PendingCall::Done done = std::move(call->done);
    const bool contextGone = call->boundToContext && call->context.isNull();
    call->deleteLater();
    if (done && !contextGone)
        done(response);
}

void startReply(
    QNetworkAccessManager *network, const ServerConnection &connection, PendingCall *call)
{
    if (auto *client = qobject_cast<OpenTerminalClient *>(call->parent()))
        client->countRequest();
    const QNetworkRequest request = protocol::buildRequest(connection, call->identity, call->spec);
    const QByteArray &method = call->spec.method;
    QNetworkReply *reply = nullptr;
    if (method == "GET")
        reply = network->get(request);
    else if (method == "POST")
        reply = network->post(request, call->spec.body);
    else if (method == "DELETE" && call->spec.body.isEmpty())
        reply = network->deleteResource(request);
    else
        reply = network->sendCustomRequest(request, method, call->spec.body);
    call->reply = reply;

    QObject::connect(
        reply, &QNetworkReply::sslErrors, call, [call](const QList<QSslError> &errors) {
            // Recorded for the message only; the errors are never ignored.
            for (const QSslError &error : errors)
                call->tlsErrors.append(error.errorString());
        });
    // Copies of the connection: a later setConnection() must not change a running call.
    QObject::connect(reply, &QNetworkReply::finished, call,
        [network, connection, call, reply] { finishReply(network, connection, call, reply); });
}

} // namespace

OpenTerminalClient::OpenTerminalClient(ServerConnection connection, QObject *parent)
    : QObject(parent)
    , m_network(new QNetworkAccessManager(this))
    , m_connection(std::move(connection))
{
}

CallHandle OpenTerminalClient::send(const Identity &id, const protocol::RequestSpec &spec,
    QObject *context, std::function<void(const protocol::HttpResponse &)> done)
{
    auto *call = new PendingCall(this, id, spec, context, std::move(done));
    startReply(m_network, m_connection, call);
    return CallHandle(call);
}

CallHandle OpenTerminalClient::health(QObject *context, Callback<Empty> done)
{
    RequestSpec spec = get(QStringLiteral("/health"));
    spec.authenticated = false;
    return typedCall<Empty>(
        this, {}, spec, context, std::move(done), [](const HttpResponse &response) {
            // A proxy's 200 page is not open-terminal: insist on {"status": ...}.
            const QJsonDocument document = QJsonDocument::fromJson(response.body);
            if (!document.object().value(QLatin1String("status")).isString()) {
                ApiError error;
                error.kind = ApiError::Kind::BadResponse;
                error.message = QStringLiteral("Unexpected answer from the server: /health did not "
                                               "answer like open-terminal");
                return Result<Empty>::failure(error);
            }
            return Result<Empty>::success({});
        });
}

CallHandle OpenTerminalClient::serverInfo(QObject *context, Callback<ServerInfo> done)
{
    // Both discovery requests run at once; the callback fires when both have answered.
    struct Combined {
        Result<ServerInfo> schema;
        Result<ServerFeatures> config;
        int pending = 2;
        Callback<ServerInfo> done;
    };
    auto combined = std::make_shared<Combined>();
    combined->done = std::move(done);
    auto complete = [combined] {
        if (--combined->pending > 0 || !combined->done)
            return;
        if (!combined->schema.ok()) {
            combined->done(combined->schema);
            return;
        }
        if (!combined->config.ok()) {
            combined->done(Result<ServerInfo>::failure(combined->config.error));
            return;
        }
        Result<ServerInfo> result = combined->schema;
        result.value.features = combined->config.value;
        combined->done(result);
    };

    RequestSpec schemaSpec = get(QStringLiteral("/openapi.json"));
    schemaSpec.authenticated = false;
    RequestSpec configSpec = get(QStringLiteral("/api/config"));
    configSpec.authenticated = false;

    auto *schemaCall = new PendingCall(
        this, {}, schemaSpec, context, [combined, complete](const HttpResponse &response) {
            const ApiError error = protocol::errorFromResponse(response);
            combined->schema = error.isError()
                ? Result<ServerInfo>::failure(error)
                : withResponseContext(protocol::parseOpenApi(response.body), response);
            complete();
        });
    auto *configCall = new PendingCall(
        this, {}, configSpec, context, [combined, complete](const HttpResponse &response) {
            ApiError error = protocol::errorFromResponse(response);
            // Servers before 0.8.1 have no /api/config: no optional features then.
            if (error.kind == ApiError::Kind::NotFound)
                combined->config = Result<ServerFeatures>::success({});
            else if (error.isError())
                combined->config = Result<ServerFeatures>::failure(error);
            else
                combined->config
                    = withResponseContext(protocol::parseConfig(response.body), response);
            complete();
        });
    schemaCall->linked.append(configCall);
    startReply(m_network, m_connection, schemaCall);
    startReply(m_network, m_connection, configCall);
    return CallHandle(schemaCall);
}

CallHandle OpenTerminalClient::execute(const Identity &id, const QString &command,
    const ExecuteOptions &options, QObject *context, Callback<ProcessSnapshot> done)
{
    QVariantMap body {{QStringLiteral("command"), command}};
    if (!options.cwd.isEmpty())
        body.insert(QStringLiteral("cwd"), options.cwd);
    if (!options.env.isEmpty()) {
        QVariantMap env;
        for (auto it = options.env.cbegin(); it != options.env.cend(); ++it)
            env.insert(it.key(), it.value());
        body.insert(QStringLiteral("env"), env);
    }
    RequestSpec spec = postJson(QStringLiteral("/execute"), body);
    if (options.waitSeconds >= 0) {
        const int wait = qMin(options.waitSeconds, maxWaitSeconds);
        spec.query.append({QStringLiteral("wait"), QString::number(wait)});
        spec.extraTimeoutMs = wait * 1000;
    }
    return typedCall<ProcessSnapshot>(this, id, spec, context, std::move(done),
        [](const HttpResponse &r) { return protocol::parseProcess(r.body); });
}

CallHandle OpenTerminalClient::processStatus(const Identity &id, const QString &processId,
    qint64 offset, int waitSeconds, QObject *context, Callback<ProcessSnapshot> done)
{
    RequestSpec spec
        = get(QStringLiteral("/execute/") + encodedSegment(processId) + QStringLiteral("/status"),
            {{QStringLiteral("offset"), QString::number(qMax<qint64>(0, offset))}});
    if (waitSeconds >= 0) {
        const int wait = qMin(waitSeconds, maxWaitSeconds);
        spec.query.append({QStringLiteral("wait"), QString::number(wait)});
        spec.extraTimeoutMs = wait * 1000;
    }
    return typedCall<ProcessSnapshot>(this, id, spec, context, std::move(done),
        [](const HttpResponse &r) { return protocol::parseProcess(r.body); });
}

CallHandle OpenTerminalClient::sendInput(const Identity &id, const QString &processId,
    const QString &text, QObject *context, Callback<Empty> done)
{
    const RequestSpec spec = postJson(
        QStringLiteral("/execute/") + encodedSegment(processId) + QStringLiteral("/input"),
        {{QStringLiteral("input"), protocol::escapeProcessInput(text)}});
    return typedCall<Empty>(this, id, spec, context, std::move(done), acceptAny);
}

CallHandle OpenTerminalClient::killProcess(const Identity &id, const QString &processId, bool force,
    QObject *context, Callback<Empty> done)
{
    RequestSpec spec = get(QStringLiteral("/execute/") + encodedSegment(processId),
        {{QStringLiteral("force"), boolText(force)}});
    spec.method = "DELETE";
    return typedCall<Empty>(this, id, spec, context, std::move(done), acceptAny);
}

CallHandle OpenTerminalClient::listProcesses(
    const Identity &id, QObject *context, Callback<QVector<ProcessInfo>> done)
{
    return typedCall<QVector<ProcessInfo>>(this, id, get(QStringLiteral("/execute")), context,
        std::move(done), [](const HttpResponse &r) { return protocol::parseProcessList(r.body); });
}

CallHandle OpenTerminalClient::cwd(const Identity &id, QObject *context, Callback<CwdInfo> done)
{
    return typedCall<CwdInfo>(this, id, get(QStringLiteral("/files/cwd")), context, std::move(done),
        [](const HttpResponse &r) { return protocol::parseCwd(r.body); });
}

CallHandle OpenTerminalClient::setCwd(
    const Identity &id, const QString &path, QObject *context, Callback<CwdInfo> done)
{
    return typedCall<CwdInfo>(this, id,
        postJson(QStringLiteral("/files/cwd"), {{QStringLiteral("path"), path}}), context,
        std::move(done), [](const HttpResponse &r) { return protocol::parseCwd(r.body); });
}

CallHandle OpenTerminalClient::listDirectory(
    const Identity &id, const QString &directory, QObject *context, Callback<DirectoryListing> done)
{
    return typedCall<DirectoryListing>(this, id,
        get(QStringLiteral("/files/list"), {{QStringLiteral("directory"), directory}}), context,
        std::move(done), [](const HttpResponse &r) { return protocol::parseListing(r.body); });
}

CallHandle OpenTerminalClient::readFile(const Identity &id, const QString &path, int startLine,
    int endLine, QObject *context, Callback<FileContent> done)
{
    RequestSpec spec = get(QStringLiteral("/files/read"), {{QStringLiteral("path"), path}});
    if (startLine > 0)
        spec.query.append({QStringLiteral("start_line"), QString::number(startLine)});
    if (endLine > 0)
        spec.query.append({QStringLiteral("end_line"), QString::number(endLine)});
    return typedCall<FileContent>(
        this, id, spec, context, std::move(done), [path](const HttpResponse &r) {
            Result<FileContent> result = protocol::parseFileRead(r);
            if (result.ok() && result.value.path.isEmpty())
                result.value.path = path;
            return result;
        });
}

CallHandle OpenTerminalClient::viewFile(
    const Identity &id, const QString &path, QObject *context, Callback<RawFile> done)
{
    return typedCall<RawFile>(this, id,
        get(QStringLiteral("/files/view"), {{QStringLiteral("path"), path}}), context,
        std::move(done), rawFile);
}

CallHandle OpenTerminalClient::serveFile(
    const Identity &id, const QString &absolutePath, QObject *context, Callback<RawFile> done)
{
    QStringList segments;
    for (const QString &segment : absolutePath.split(QLatin1Char('/'), Qt::SkipEmptyParts))
        segments.append(encodedSegment(segment));
    return typedCall<RawFile>(this, id,
        get(QStringLiteral("/files/serve/") + segments.join(QLatin1Char('/'))), context,
        std::move(done), rawFile);
}

CallHandle OpenTerminalClient::writeFile(const Identity &id, const QString &path,
    const QString &content, QObject *context, Callback<WriteResult> done)
{
    const RequestSpec spec = postJson(QStringLiteral("/files/write"),
        {{QStringLiteral("path"), path}, {QStringLiteral("content"), content}});
    return typedCall<WriteResult>(this, id, spec, context, std::move(done),
        [](const HttpResponse &r) { return protocol::parseWrite(r.body); });
}

CallHandle OpenTerminalClient::uploadFile(const Identity &id, const QString &directory,
    const QString &fileName, const QByteArray &bytes, QObject *context, Callback<WriteResult> done)
{
    const RequestSpec spec = protocol::uploadSpec(directory, fileName, bytes);
    return typedCall<WriteResult>(this, id, spec, context, std::move(done),
        [](const HttpResponse &r) { return protocol::parseWrite(r.body); });
}

CallHandle OpenTerminalClient::makeDirectory(
    const Identity &id, const QString &path, QObject *context, Callback<Empty> done)
{
    return typedCall<Empty>(this, id,
        postJson(QStringLiteral("/files/mkdir"), {{QStringLiteral("path"), path}}), context,
        std::move(done), acceptAny);
}

CallHandle OpenTerminalClient::deletePath(
    const Identity &id, const QString &path, QObject *context, Callback<Empty> done)
{
    RequestSpec spec = get(QStringLiteral("/files/delete"), {{QStringLiteral("path"), path}});
    spec.method = "DELETE";
    // A repeated delete after a lost answer would report a misleading 404.
    spec.idempotent = false;
    return typedCall<Empty>(this, id, spec, context, std::move(done), acceptAny);
}

CallHandle OpenTerminalClient::movePath(const Identity &id, const QString &source,
    const QString &destination, QObject *context, Callback<MoveResult> done)
{
    const RequestSpec spec = postJson(QStringLiteral("/files/move"),
        {{QStringLiteral("source"), source}, {QStringLiteral("destination"), destination}});
    return typedCall<MoveResult>(this, id, spec, context, std::move(done),
        [](const HttpResponse &r) { return protocol::parseMove(r.body); });
}

CallHandle OpenTerminalClient::archive(
    const Identity &id, const QStringList &paths, QObject *context, Callback<RawFile> done)
{
    // Builds a zip without changing anything, so a retry is harmless.
    const RequestSpec spec
        = postJson(QStringLiteral("/files/archive"), {{QStringLiteral("paths"), paths}}, true);
    return typedCall<RawFile>(this, id, spec, context, std::move(done), rawFile);
}

CallHandle OpenTerminalClient::grep(const Identity &id, const QString &query,
    const GrepOptions &options, QObject *context, Callback<GrepResult> done)
{
    RequestSpec spec = get(QStringLiteral("/files/grep"),
        {{QStringLiteral("query"), query}, {QStringLiteral("path"), options.path},
            {QStringLiteral("regex"), boolText(options.regex)},
            {QStringLiteral("case_insensitive"), boolText(options.caseInsensitive)},
            {QStringLiteral("match_per_line"), boolText(options.matchPerLine)},
            {QStringLiteral("max_results"), QString::number(options.maxResults)}});
    for (const QString &pattern : options.include)
        spec.query.append({QStringLiteral("include"), pattern});
    return typedCall<GrepResult>(this, id, spec, context, std::move(done),
        [](const HttpResponse &r) { return protocol::parseGrep(r.body); });
}

CallHandle OpenTerminalClient::glob(const Identity &id, const QString &pattern,
    const GlobOptions &options, QObject *context, Callback<GlobResult> done)
{
    RequestSpec spec = get(QStringLiteral("/files/glob"),
        {{QStringLiteral("pattern"), pattern}, {QStringLiteral("path"), options.path},
            {QStringLiteral("type"), options.type},
            {QStringLiteral("max_results"), QString::number(options.maxResults)}});
    for (const QString &excluded : options.exclude)
        spec.query.append({QStringLiteral("exclude"), excluded});
    return typedCall<GlobResult>(this, id, spec, context, std::move(done),
        [](const HttpResponse &r) { return protocol::parseGlob(r.body); });
}

} // namespace sandscope

#include "openterminalclient.moc"
