#pragma once
// The wire format of open-terminal, free of any I/O: building requests and turning
// responses into typed results or typed errors. Pure functions, unit-tested data-driven.

#include "server/apierror.h"
#include "server/connection.h"
#include "server/types.h"

#include <QByteArray>
#include <QList>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPair>
#include <QStringList>
#include <QUrlQuery>

namespace sandscope::protocol {

struct RequestSpec {
    QByteArray method = "GET";
    QString path; // e.g. "/execute/abc/status" (already percent-encoded where needed)
    QList<QPair<QString, QString>> query; // values are plain text; encoded by buildUrl
    QByteArray body; // JSON unless contentType says otherwise
    QByteArray contentType; // defaults to application/json when body is set
    bool authenticated = true;
    bool idempotent = true; // may be retried once when a kept-alive connection was closed
    int extraTimeoutMs = 0; // long-poll wait on top of the transfer timeout
};

// What came back, as far as the protocol layer needs to know.
struct HttpResponse {
    int status = 0;
    QByteArray body;
    QByteArray contentType;
    QByteArray contentDisposition;
    QNetworkReply::NetworkError networkError = QNetworkReply::NoError;
    QString networkErrorString;
    QStringList tlsErrors; // certificate problems reported during the handshake
    bool abortedByCaller = false;
    bool timedOut = false;
    QUrl url; // for messages
};

QUrl buildUrl(const QUrl &baseUrl, const RequestSpec &spec);
QNetworkRequest buildRequest(
    const ServerConnection &conn, const Identity &identity, const RequestSpec &spec);
QByteArray jsonBody(const QVariantMap &object);
// POST /files/upload?directory=… with `bytes` as the multipart field "file" named `fileName`
// (the client's upload and the isolation probe's upload through a link send the same request).
RequestSpec uploadSpec(const QString &directory, const QString &fileName, const QByteArray &bytes);

// Doubles every backslash: the server decodes escape sequences in process input.
QString escapeProcessInput(const QString &text);

// Any non-2xx or transport failure becomes a typed error with a readable message that
// never contains the API key. Returns Kind::None for a 2xx response.
ApiError errorFromResponse(const HttpResponse &response);
// "detail" as string or as a validation array, or {"error": ...}; empty if neither.
QString serverDetail(const QByteArray &body);

Result<ServerInfo> parseOpenApi(const QByteArray &body);
Result<ServerFeatures> parseConfig(const QByteArray &body);
Result<ProcessSnapshot> parseProcess(const QByteArray &body);
Result<QVector<ProcessInfo>> parseProcessList(const QByteArray &body);
Result<CwdInfo> parseCwd(const QByteArray &body);
Result<DirectoryListing> parseListing(const QByteArray &body);
Result<FileContent> parseFileRead(const HttpResponse &response); // branches on Content-Type
Result<WriteResult> parseWrite(const QByteArray &body);
Result<MoveResult> parseMove(const QByteArray &body);
Result<GrepResult> parseGrep(const QByteArray &body);
Result<GlobResult> parseGlob(const QByteArray &body);
QString fileNameFromContentDisposition(const QByteArray &header);

ProcessStatus processStatusFromString(const QString &status);

} // namespace sandscope::protocol
