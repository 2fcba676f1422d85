#include "openterminalprotocol.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QRegularExpression>
#include <QStringList>
#include <QUuid>

#include <cmath>
#include <limits>

namespace sandscope::protocol {

namespace {

QString joinedPath(const QString &basePath, const QString &path)
{
    QString base = basePath;
    while (base.endsWith(QLatin1Char('/')))
        base.chop(1);
    if (path.isEmpty())
        return base.isEmpty() ? QStringLiteral("/") : base;
    if (path.startsWith(QLatin1Char('/')))
        return base + path;
    return base + QLatin1Char('/') + path;
}

// The URL as it may appear in messages: no credentials, no query.
QString displayUrl(const QUrl &url)
{
    return url.adjusted(QUrl::RemoveUserInfo | QUrl::RemoveQuery | QUrl::RemoveFragment)
        .toDisplayString();
}

QByteArray mimeType(const QByteArray &contentType)
{
    const int semicolon = contentType.indexOf(';');
    return (semicolon < 0 ? contentType : contentType.left(semicolon)).trimmed().toLower();
}

bool looksLikeHtml(const HttpResponse &response)
{
    if (mimeType(response.contentType) == "text/html")
        return true;
    const QByteArray start = response.body.left(256).trimmed().toLower();
    return start.startsWith("<!doctype html") || start.startsWith("<html");
}

// One line of a non-JSON error body (e.g. uvicorn's "Internal Server Error"), bounded.
QString plainTextDetail(const HttpResponse &response)
{
    if (mimeType(response.contentType) != "text/plain")
        return {};
    QString text = QString::fromUtf8(response.body).trimmed();
    const int newline = text.indexOf(QLatin1Char('\n'));
    if (newline >= 0)
        text.truncate(newline);
    constexpr int maxLength = 200;
    if (text.size() > maxLength)
        text = text.left(maxLength) + QStringLiteral("…");
    return text;
}

ApiError makeError(ApiError::Kind kind, const HttpResponse &response, const QString &message,
    const QString &detail = {})
{
    ApiError error;
    error.kind = kind;
    error.httpStatus = response.status;
    error.message = message;
    error.detail = detail;
    error.url = response.url.adjusted(QUrl::RemoveUserInfo).toString();
    return error;
}

ApiError transportError(const HttpResponse &response)
{
    using Kind = ApiError::Kind;
    const QString url = displayUrl(response.url);
    const QString host = response.url.host();
    switch (response.networkError) {
    case QNetworkReply::ConnectionRefusedError:
        return makeError(Kind::ConnectionRefused, response,
            QStringLiteral("Connection refused by %1: is open-terminal running there?").arg(url));
    case QNetworkReply::HostNotFoundError:
        return makeError(Kind::HostNotFound, response,
            QStringLiteral("Host not found: %1 (from %2)").arg(host, url));
    case QNetworkReply::TimeoutError:
    case QNetworkReply::OperationCanceledError:
        // Only reached when the caller did not abort: the transfer timeout fired.
        return makeError(
            Kind::Timeout, response, QStringLiteral("No answer from %1 in time").arg(url));
    case QNetworkReply::SslHandshakeFailedError: {
        const QString problem = response.tlsErrors.isEmpty()
            ? response.networkErrorString
            : response.tlsErrors.join(QStringLiteral("; "));
        return makeError(Kind::Tls, response,
            QStringLiteral("TLS failure with %1: %2").arg(url, problem), problem);
    }
    case QNetworkReply::RemoteHostClosedError:
        return makeError(Kind::ConnectionClosed, response,
            QStringLiteral("%1 closed the connection before the answer was complete").arg(url));
    default:
        break;
    }
    return makeError(Kind::Network, response,
        QStringLiteral("Network error with %1: %2").arg(url, response.networkErrorString));
}

// "Access denied: /home/bob belongs to another user" -> names bob; else the detail as is.
QString accessDeniedMessage(const QString &detail)
{
    static const QRegularExpression ownerPattern(
        QStringLiteral("(/home/([^/\\s]+)\\S*) belongs to another user"));
    const QRegularExpressionMatch match = ownerPattern.match(detail);
    if (match.hasMatch())
        return QStringLiteral("Access denied: %1 belongs to another user (%2)")
            .arg(match.captured(1), match.captured(2));
    return detail.isEmpty() ? QStringLiteral("Access denied")
                            : QStringLiteral("Access denied: ") + detail;
}

ApiError statusError(const HttpResponse &response)
{
    using Kind = ApiError::Kind;
    const int status = response.status;
    const QString url = displayUrl(response.url);
    QString detail = serverDetail(response.body);
    if (detail.isEmpty())
        detail = plainTextDetail(response);
    const QString orUrl = detail.isEmpty() ? url : detail;

    switch (status) {
    case 400:
        // Newer servers report a cross-user path as an OS error with this text.
        if (detail.startsWith(QLatin1String("Access denied")))
            return makeError(Kind::Forbidden, response, accessDeniedMessage(detail), detail);
        return makeError(
            Kind::BadRequest, response, QStringLiteral("Request refused: ") + orUrl, detail);
    case 401:
        return makeError(Kind::InvalidApiKey, response,
            QStringLiteral("Invalid API key: the server refused the key"), detail);
    case 403:
        return makeError(Kind::Forbidden, response, accessDeniedMessage(detail), detail);
    case 404:
        return makeError(Kind::NotFound, response, QStringLiteral("Not found: ") + orUrl, detail);
    case 409:
        return makeError(Kind::Conflict, response, QStringLiteral("Conflict: ") + orUrl, detail);
    case 415:
        return makeError(Kind::UnsupportedMediaType, response,
            detail.isEmpty() ? QStringLiteral("Unsupported file type") : detail, detail);
    case 422:
        return makeError(Kind::Validation, response,
            QStringLiteral("The server rejected the request parameters: ") + orUrl, detail);
    case 429:
        return makeError(
            Kind::TooManyRequests, response, QStringLiteral("Too many requests: ") + orUrl, detail);
    default:
        break;
    }
    if (status >= 500) {
        if (looksLikeHtml(response))
            return makeError(Kind::ServerError, response,
                QStringLiteral("HTTP %1 from %2: the server or a proxy answered with "
                               "an HTML page")
                    .arg(status)
                    .arg(url));
        return makeError(Kind::ServerError, response,
            QStringLiteral("HTTP %1 from %2: %3")
                .arg(status)
                .arg(url, detail.isEmpty() ? QStringLiteral("the server gave no details") : detail),
            detail);
    }
    return makeError(Kind::HttpError, response,
        QStringLiteral("HTTP %1 from %2%3")
            .arg(status)
            .arg(url, detail.isEmpty() ? QString() : QStringLiteral(": ") + detail),
        detail);
}

bool isTransportError(QNetworkReply::NetworkError error)
{
    // 1-99: network layer, 101-199: proxy. Content/protocol/server errors (>= 200)
    // accompany an HTTP status and are judged by that status.
    return error != QNetworkReply::NoError && error < 200;
}

// Typed access to JSON fields; the first problem is kept and turns the parse into BadResponse.
class JsonFields {
public:
    JsonFields(const QJsonObject &object, QString context, QString *problem)
        : m_object(object)
        , m_context(std::move(context))
        , m_problem(problem)
    {
    }

    QString string(const char *key, bool required = true) const
    {
        const QJsonValue value = m_object.value(QLatin1String(key));
        if (value.isString())
            return value.toString();
        if (!required && (value.isUndefined() || value.isNull()))
            return {};
        complain(key, "a string");
        return {};
    }

    // Integral JSON number; `present` tells whether it was there (null counts as absent).
    qint64 integer(const char *key, bool required = true, bool *present = nullptr) const
    {
        const QJsonValue value = m_object.value(QLatin1String(key));
        if (present)
            *present = false;
        if (value.isDouble()) {
            const double number = value.toDouble();
            if (std::isfinite(number) && std::floor(number) == number
                && std::fabs(number) < 9.0e15) {
                if (present)
                    *present = true;
                return static_cast<qint64>(number);
            }
        } else if (!required && (value.isUndefined() || value.isNull())) {
            return 0;
        }
        complain(key, "an integer");
        return 0;
    }

    double number(const char *key, bool required = true) const
    {
        const QJsonValue value = m_object.value(QLatin1String(key));
        if (value.isDouble())
            return value.toDouble();
        if (!required && (value.isUndefined() || value.isNull()))
            return 0;
        complain(key, "a number");
        return 0;
    }

    bool boolean(const char *key, bool required = true, bool *present = nullptr) const
    {
        const QJsonValue value = m_object.value(QLatin1String(key));
        if (present)
            *present = value.isBool();
        if (value.isBool())
            return value.toBool();
        if (!required && (value.isUndefined() || value.isNull()))
            return false;
        complain(key, "true or false");
        return false;
    }

    QJsonArray array(const char *key, bool required = true) const
    {
        const QJsonValue value = m_object.value(QLatin1String(key));
        if (value.isArray())
            return value.toArray();
        if (!required && (value.isUndefined() || value.isNull()))
            return {};
        complain(key, "a list");
        return {};
    }

    QJsonObject object(const char *key, bool required = true) const
    {
        const QJsonValue value = m_object.value(QLatin1String(key));
        if (value.isObject())
            return value.toObject();
        if (!required && (value.isUndefined() || value.isNull()))
            return {};
        complain(key, "an object");
        return {};
    }

private:
    void complain(const char *key, const char *expected) const
    {
        if (m_problem->isEmpty())
            *m_problem = QStringLiteral("\"%1\" in %2 is not %3")
                             .arg(QLatin1String(key), m_context, QLatin1String(expected));
    }

    QJsonObject m_object;
    QString m_context;
    QString *m_problem;
};

ApiError badResponse(const QString &problem)
{
    ApiError error;
    error.kind = ApiError::Kind::BadResponse;
    error.message = QStringLiteral("Unexpected answer from the server: ") + problem;
    return error;
}

template <typename T> Result<T> finish(T value, const QString &problem)
{
    if (!problem.isEmpty())
        return Result<T>::failure(badResponse(problem));
    return Result<T>::success(std::move(value));
}

// Parses `body` as JSON of the wanted shape; `problem` is set when it is not.
QJsonDocument parseDocument(const QByteArray &body, QString *problem)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(body, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        *problem = body.trimmed().isEmpty() ? QStringLiteral("the body is empty, expected JSON")
                                            : QStringLiteral("invalid JSON (%1 at offset %2)")
                                                  .arg(parseError.errorString())
                                                  .arg(parseError.offset);
    return document;
}

QJsonObject parseObject(const QByteArray &body, QString *problem)
{
    const QJsonDocument document = parseDocument(body, problem);
    if (problem->isEmpty() && !document.isObject())
        *problem = QStringLiteral("expected a JSON object");
    return document.object();
}

QDateTime fromUnixSeconds(double seconds)
{
    if (!std::isfinite(seconds) || seconds <= 0)
        return {};
    return QDateTime::fromMSecsSinceEpoch(
        static_cast<qint64>(std::llround(seconds * 1000.0)), Qt::UTC);
}

QJsonObject elementObject(const QJsonValue &value, const QString &context, QString *problem)
{
    if (!value.isObject() && problem->isEmpty())
        *problem = QStringLiteral("an element of %1 is not an object").arg(context);
    return value.toObject();
}

ProcessInfo processInfoFrom(const QJsonObject &object, QString *problem)
{
    const JsonFields fields(object, QStringLiteral("the process"), problem);
    ProcessInfo info;
    info.id = fields.string("id");
    info.command = fields.string("command", false);
    const QString status = fields.string("status");
    info.status = processStatusFromString(status);
    if (problem->isEmpty() && info.status == ProcessStatus::Unknown)
        *problem = QStringLiteral("unknown process status \"%1\"").arg(status);
    info.exitCode = static_cast<int>(fields.integer("exit_code", false, &info.hasExitCode));
    info.logPath = fields.string("log_path", false);
    return info;
}

} // namespace

QUrl buildUrl(const QUrl &baseUrl, const RequestSpec &spec)
{
    QUrl url = baseUrl.adjusted(QUrl::RemoveQuery | QUrl::RemoveFragment);
    url.setPath(joinedPath(baseUrl.path(QUrl::FullyEncoded), spec.path), QUrl::TolerantMode);
    if (!spec.query.isEmpty()) {
        // Every value is percent-encoded by hand: QUrlQuery leaves '+' alone, which form
        // decoders on the server would turn into a space.
        QByteArray query;
        for (const auto &item : spec.query) {
            if (!query.isEmpty())
                query.append('&');
            query.append(QUrl::toPercentEncoding(item.first));
            query.append('=');
            query.append(QUrl::toPercentEncoding(item.second));
        }
        url.setQuery(QString::fromLatin1(query), QUrl::StrictMode);
    }
    return url;
}

QNetworkRequest buildRequest(
    const ServerConnection &conn, const Identity &identity, const RequestSpec &spec)
{
    QNetworkRequest request(buildUrl(conn.baseUrl, spec));
    if (spec.authenticated && !conn.apiKey.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + conn.apiKey.toUtf8());
    if (!identity.userId.isEmpty())
        request.setRawHeader("X-User-Id", identity.userId.toUtf8());
    if (!identity.sessionId.isEmpty())
        request.setRawHeader("X-Session-Id", identity.sessionId.toUtf8());
    if (!spec.contentType.isEmpty())
        request.setRawHeader("Content-Type", spec.contentType);
    else if (!spec.body.isEmpty())
        request.setRawHeader("Content-Type", "application/json");
    request.setRawHeader("Accept", "application/json, */*");
    // The key goes to the same origin only, never to wherever a redirect points.
    request.setAttribute(
        QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::SameOriginRedirectPolicy);
    request.setTransferTimeout(qMax(0, conn.timeoutMs) + qMax(0, spec.extraTimeoutMs));
    return request;
}

QByteArray jsonBody(const QVariantMap &object)
{
    return QJsonDocument(QJsonObject::fromVariantMap(object)).toJson(QJsonDocument::Compact);
}

RequestSpec uploadSpec(const QString &directory, const QString &fileName, const QByteArray &bytes)
{
    const QByteArray boundary = "sandscope-" + QUuid::createUuid().toByteArray(QUuid::Id128);
    // Quotes and line breaks would end the header parameter early.
    QString safeName = fileName;
    safeName.replace(QLatin1Char('"'), QStringLiteral("%22"));
    safeName.replace(QLatin1Char('\r'), QLatin1Char(' '));
    safeName.replace(QLatin1Char('\n'), QLatin1Char(' '));
    RequestSpec spec;
    spec.method = "POST";
    spec.path = QStringLiteral("/files/upload");
    spec.query = {{QStringLiteral("directory"), directory}};
    spec.body.reserve(bytes.size() + 256);
    spec.body += "--" + boundary + "\r\n";
    spec.body += "Content-Disposition: form-data; name=\"file\"; filename=\"" + safeName.toUtf8()
        + "\"\r\n";
    spec.body += "Content-Type: application/octet-stream\r\n\r\n";
    spec.body += bytes;
    spec.body += "\r\n--" + boundary + "--\r\n";
    spec.contentType = "multipart/form-data; boundary=" + boundary;
    spec.idempotent = false;
    return spec;
}

QString escapeProcessInput(const QString &text)
{
    QString escaped = text;
    escaped.replace(QLatin1Char('\\'), QStringLiteral("\\\\"));
    return escaped;
}

ApiError errorFromResponse(const HttpResponse &response)
{
    if (response.abortedByCaller)
        return makeError(ApiError::Kind::Cancelled, response, QStringLiteral("Cancelled"));
    if (response.timedOut) {
        HttpResponse timedOut = response;
        timedOut.networkError = QNetworkReply::TimeoutError;
        return transportError(timedOut);
    }
    if (isTransportError(response.networkError))
        return transportError(response);
    if (response.status >= 200 && response.status < 300)
        return {};
    if (response.status == 0) {
        if (response.networkError == QNetworkReply::NoError)
            return makeError(ApiError::Kind::Network, response,
                QStringLiteral("No HTTP answer from %1").arg(displayUrl(response.url)));
        return transportError(response);
    }
    return statusError(response);
}

QString serverDetail(const QByteArray &body)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(body, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject())
        return {};
    const QJsonObject object = document.object();
    const QJsonValue detail = object.value(QLatin1String("detail"));
    if (detail.isString())
        return detail.toString();
    if (detail.isArray()) {
        QStringList parts;
        for (const QJsonValue &item : detail.toArray()) {
            const QJsonObject entry = item.toObject();
            QStringList location;
            for (const QJsonValue &part : entry.value(QLatin1String("loc")).toArray())
                location.append(part.isString() ? part.toString() : QString::number(part.toInt()));
            const QString message = entry.value(QLatin1String("msg")).toString();
            parts.append(location.isEmpty()
                    ? message
                    : location.join(QLatin1Char('.')) + QStringLiteral(": ") + message);
        }
        return parts.join(QStringLiteral("; "));
    }
    if (detail.isObject())
        return QString::fromUtf8(QJsonDocument(detail.toObject()).toJson(QJsonDocument::Compact));
    const QJsonValue error = object.value(QLatin1String("error"));
    if (error.isString())
        return error.toString();
    return {};
}

ProcessStatus processStatusFromString(const QString &status)
{
    if (status == QLatin1String("running"))
        return ProcessStatus::Running;
    if (status == QLatin1String("done"))
        return ProcessStatus::Done;
    if (status == QLatin1String("killed"))
        return ProcessStatus::Killed;
    return ProcessStatus::Unknown;
}

Result<ServerInfo> parseOpenApi(const QByteArray &body)
{
    QString problem;
    const QJsonObject root = parseObject(body, &problem);
    ServerInfo info;
    const JsonFields fields(root, QStringLiteral("the OpenAPI schema"), &problem);
    const QJsonObject infoObject = fields.object("info");
    info.version = JsonFields(infoObject, QStringLiteral("info"), &problem).string("version");
    const QJsonObject paths = fields.object("paths");
    info.paths = paths.keys();
    return finish(std::move(info), problem);
}

Result<ServerFeatures> parseConfig(const QByteArray &body)
{
    QString problem;
    const QJsonObject root = parseObject(body, &problem);
    const QJsonObject featureObject
        = JsonFields(root, QStringLiteral("the configuration"), &problem).object("features");
    const JsonFields fields(featureObject, QStringLiteral("features"), &problem);
    ServerFeatures features;
    features.terminal = fields.boolean("terminal", false);
    features.notebooks = fields.boolean("notebooks", false);
    features.system = fields.boolean("system", false);
    return finish(features, problem);
}

Result<ProcessSnapshot> parseProcess(const QByteArray &body)
{
    QString problem;
    const QJsonObject root = parseObject(body, &problem);
    ProcessSnapshot snapshot;
    snapshot.info = processInfoFrom(root, &problem);
    const JsonFields fields(root, QStringLiteral("the process"), &problem);
    const QJsonArray output = fields.array("output");
    for (const QJsonValue &item : output) {
        const QJsonObject chunkObject = elementObject(item, QStringLiteral("output"), &problem);
        const JsonFields chunkFields(chunkObject, QStringLiteral("an output entry"), &problem);
        OutputChunk chunk;
        chunk.type = chunkFields.string("type");
        chunk.data = chunkFields.string("data");
        snapshot.output.append(chunk);
    }
    snapshot.nextOffset = fields.integer("next_offset");
    if (problem.isEmpty() && snapshot.nextOffset < 0)
        problem = QStringLiteral("\"next_offset\" is negative");
    snapshot.truncated = fields.boolean("truncated", false);
    return finish(std::move(snapshot), problem);
}

Result<QVector<ProcessInfo>> parseProcessList(const QByteArray &body)
{
    QString problem;
    const QJsonDocument document = parseDocument(body, &problem);
    if (problem.isEmpty() && !document.isArray())
        problem = QStringLiteral("expected a list of processes");
    QVector<ProcessInfo> processes;
    for (const QJsonValue &item : document.array())
        processes.append(processInfoFrom(
            elementObject(item, QStringLiteral("the process list"), &problem), &problem));
    return finish(std::move(processes), problem);
}

Result<CwdInfo> parseCwd(const QByteArray &body)
{
    QString problem;
    const QJsonObject root = parseObject(body, &problem);
    const JsonFields fields(root, QStringLiteral("the working directory answer"), &problem);
    CwdInfo info;
    info.cwd = fields.string("cwd");
    info.home = fields.string("home", false);
    const QJsonValue rootValue = root.value(QLatin1String("root"));
    if (rootValue.isObject())
        info.rootPath = JsonFields(rootValue.toObject(), QStringLiteral("root"), &problem)
                            .string("path", false);
    else if (rootValue.isString())
        info.rootPath = rootValue.toString();
    return finish(std::move(info), problem);
}

Result<DirectoryListing> parseListing(const QByteArray &body)
{
    QString problem;
    const QJsonObject root = parseObject(body, &problem);
    const JsonFields fields(root, QStringLiteral("the listing"), &problem);
    DirectoryListing listing;
    listing.directory = fields.string("dir");
    for (const QJsonValue &item : fields.array("entries")) {
        const JsonFields entryFields(elementObject(item, QStringLiteral("entries"), &problem),
            QStringLiteral("a listing entry"), &problem);
        FileEntry entry;
        entry.name = entryFields.string("name");
        entry.isDirectory = entryFields.string("type") == QLatin1String("directory");
        entry.size = entryFields.integer("size", false);
        entry.modified = fromUnixSeconds(entryFields.number("modified", false));
        bool hasWritable = false;
        const bool writable = entryFields.boolean("writable", false, &hasWritable);
        entry.writable = hasWritable ? (writable ? 1 : 0) : -1;
        listing.entries.append(entry);
    }
    return finish(std::move(listing), problem);
}

Result<FileContent> parseFileRead(const HttpResponse &response)
{
    FileContent content;
    const QByteArray mime = mimeType(response.contentType);
    if (mime != "application/json") {
        // Raw bytes (images): the server only sends them with a real media type.
        content.isText = false;
        content.bytes = response.body;
        content.contentType
            = QString::fromLatin1(mime.isEmpty() ? "application/octet-stream" : mime);
        return Result<FileContent>::success(std::move(content));
    }
    QString problem;
    const QJsonObject root = parseObject(response.body, &problem);
    const JsonFields fields(root, QStringLiteral("the file content"), &problem);
    content.path = fields.string("path", false);
    content.text = fields.string("content");
    content.totalLines = fields.integer("total_lines", false);
    content.contentType = QStringLiteral("text/plain");
    return finish(std::move(content), problem);
}

Result<WriteResult> parseWrite(const QByteArray &body)
{
    QString problem;
    const QJsonObject root = parseObject(body, &problem);
    const JsonFields fields(root, QStringLiteral("the write answer"), &problem);
    WriteResult result;
    result.path = fields.string("path");
    result.size = fields.integer("size", false);
    return finish(std::move(result), problem);
}

Result<MoveResult> parseMove(const QByteArray &body)
{
    QString problem;
    const QJsonObject root = parseObject(body, &problem);
    const JsonFields fields(root, QStringLiteral("the move answer"), &problem);
    MoveResult result;
    result.source = fields.string("source");
    result.destination = fields.string("destination");
    return finish(std::move(result), problem);
}

Result<GrepResult> parseGrep(const QByteArray &body)
{
    QString problem;
    const QJsonObject root = parseObject(body, &problem);
    const JsonFields fields(root, QStringLiteral("the grep answer"), &problem);
    GrepResult result;
    for (const QJsonValue &item : fields.array("matches")) {
        // match_per_line=false gives {file} only.
        const JsonFields matchFields(elementObject(item, QStringLiteral("matches"), &problem),
            QStringLiteral("a grep match"), &problem);
        GrepMatch match;
        match.file = matchFields.string("file");
        match.line = static_cast<int>(matchFields.integer("line", false));
        match.content = matchFields.string("content", false);
        result.matches.append(match);
    }
    result.truncated = fields.boolean("truncated", false);
    return finish(std::move(result), problem);
}

Result<GlobResult> parseGlob(const QByteArray &body)
{
    QString problem;
    const QJsonObject root = parseObject(body, &problem);
    const JsonFields fields(root, QStringLiteral("the glob answer"), &problem);
    GlobResult result;
    for (const QJsonValue &item : fields.array("matches")) {
        const JsonFields matchFields(elementObject(item, QStringLiteral("matches"), &problem),
            QStringLiteral("a glob match"), &problem);
        GlobMatch match;
        match.path = matchFields.string("path");
        match.isDirectory = matchFields.string("type", false) == QLatin1String("directory");
        match.size = matchFields.integer("size", false);
        match.modified = fromUnixSeconds(matchFields.number("modified", false));
        result.matches.append(match);
    }
    result.truncated = fields.boolean("truncated", false);
    return finish(std::move(result), problem);
}

QString fileNameFromContentDisposition(const QByteArray &header)
{
    // Header bytes are Latin-1 by the letter of HTTP, but some servers send UTF-8: the
    // text is taken as UTF-8 when it decodes cleanly, else as Latin-1 (Starlette's choice).
    const auto headerText = [](const QByteArray &bytes) {
        const QString utf8 = QString::fromUtf8(bytes);
        return utf8.toUtf8() == bytes ? utf8 : QString::fromLatin1(bytes);
    };
    const QString text = QString::fromLatin1(header);
    // RFC 6266: filename*=UTF-8''percent-encoded takes precedence over filename=.
    static const QRegularExpression extended(
        QStringLiteral("filename\\*\\s*=\\s*([^']*)'[^']*'([^;\\s]+)"),
        QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch extendedMatch = extended.match(text);
    if (extendedMatch.hasMatch())
        return QString::fromUtf8(
            QByteArray::fromPercentEncoding(extendedMatch.captured(2).toLatin1()));
    static const QRegularExpression quoted(
        QStringLiteral("filename\\s*=\\s*\"((?:[^\"\\\\]|\\\\.)*)\""),
        QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch quotedMatch = quoted.match(text);
    if (quotedMatch.hasMatch()) {
        static const QRegularExpression escapedCharacter(QStringLiteral("\\\\(.)"));
        QString name = quotedMatch.captured(1);
        name.replace(escapedCharacter, QStringLiteral("\\1"));
        return headerText(name.toLatin1());
    }
    static const QRegularExpression token(
        QStringLiteral("filename\\s*=\\s*([^;\\s]+)"), QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch tokenMatch = token.match(text);
    return tokenMatch.hasMatch() ? headerText(tokenMatch.captured(1).toLatin1()) : QString();
}

} // namespace sandscope::protocol
