#pragma once
// Asynchronous, typed client for every open-terminal endpoint Sandscope uses.
// Each call takes the acting Identity (X-User-Id / X-Session-Id), a context object that
// bounds the callback's lifetime (no callback after it is destroyed), and a callback that
// receives exactly one Result, always on the thread of the client.

#include "server/apierror.h"
#include "server/connection.h"
#include "server/openterminalprotocol.h"
#include "server/types.h"

#include <QHash>
#include <QObject>
#include <QPointer>

#include <functional>

class QNetworkAccessManager;
class QNetworkReply;

namespace sandscope {

// Lets the caller abort an in-flight request; the callback then gets Kind::Cancelled.
// Stays valid across the client's internal retry (it refers to the call, not one reply).
class CallHandle {
public:
    CallHandle() = default;
    // `call` is the client's internal call object or a plain QNetworkReply.
    explicit CallHandle(QObject *call)
        : m_call(call)
    {
    }
    void abort();
    bool isRunning() const;

private:
    QPointer<QObject> m_call;
};

struct ExecuteOptions {
    QString cwd;
    QHash<QString, QString> env;
    int waitSeconds = -1; // -1: omit (return at once)
};

class OpenTerminalClient : public QObject {
    Q_OBJECT
public:
    template <typename T> using Callback = std::function<void(const Result<T> &)>;
    struct Empty { };

    explicit OpenTerminalClient(ServerConnection connection, QObject *parent = nullptr);

    const ServerConnection &connection() const { return m_connection; }
    // HTTP requests sent so far (each retry counts), for benchmarks and tests of what polls.
    qint64 requestCount() const { return m_requestCount; }
    void countRequest() { ++m_requestCount; }
    void setConnection(const ServerConnection &connection) { m_connection = connection; }

    // Discovery (no key needed)
    CallHandle health(QObject *context, Callback<Empty> done);
    CallHandle serverInfo(QObject *context, Callback<ServerInfo> done); // openapi + config

    // Processes
    CallHandle execute(const Identity &id, const QString &command, const ExecuteOptions &options,
        QObject *context, Callback<ProcessSnapshot> done);
    CallHandle processStatus(const Identity &id, const QString &processId, qint64 offset,
        int waitSeconds, QObject *context, Callback<ProcessSnapshot> done);
    // `text` is sent verbatim: backslashes are escaped for the server's decoding.
    CallHandle sendInput(const Identity &id, const QString &processId, const QString &text,
        QObject *context, Callback<Empty> done);
    CallHandle killProcess(const Identity &id, const QString &processId, bool force,
        QObject *context, Callback<Empty> done);
    CallHandle listProcesses(
        const Identity &id, QObject *context, Callback<QVector<ProcessInfo>> done);

    // Files
    CallHandle cwd(const Identity &id, QObject *context, Callback<CwdInfo> done);
    CallHandle setCwd(
        const Identity &id, const QString &path, QObject *context, Callback<CwdInfo> done);
    CallHandle listDirectory(const Identity &id, const QString &directory, QObject *context,
        Callback<DirectoryListing> done);
    // startLine/endLine are 1-based inclusive; 0 = omit.
    CallHandle readFile(const Identity &id, const QString &path, int startLine, int endLine,
        QObject *context, Callback<FileContent> done);
    CallHandle viewFile(
        const Identity &id, const QString &path, QObject *context, Callback<RawFile> done);
    CallHandle serveFile(
        const Identity &id, const QString &absolutePath, QObject *context, Callback<RawFile> done);
    CallHandle writeFile(const Identity &id, const QString &path, const QString &content,
        QObject *context, Callback<WriteResult> done);
    CallHandle uploadFile(const Identity &id, const QString &directory, const QString &fileName,
        const QByteArray &bytes, QObject *context, Callback<WriteResult> done);
    CallHandle makeDirectory(
        const Identity &id, const QString &path, QObject *context, Callback<Empty> done);
    CallHandle deletePath(
        const Identity &id, const QString &path, QObject *context, Callback<Empty> done);
    CallHandle movePath(const Identity &id, const QString &source, const QString &destination,
        QObject *context, Callback<MoveResult> done);
    CallHandle archive(
        const Identity &id, const QStringList &paths, QObject *context, Callback<RawFile> done);
    CallHandle grep(const Identity &id, const QString &query, const GrepOptions &options,
        QObject *context, Callback<GrepResult> done);
    CallHandle glob(const Identity &id, const QString &pattern, const GlobOptions &options,
        QObject *context, Callback<GlobResult> done);

    // Sends one request and hands the raw response to `done` (used by all of the above).
    CallHandle send(const Identity &id, const protocol::RequestSpec &spec, QObject *context,
        std::function<void(const protocol::HttpResponse &)> done);

private:
    QNetworkAccessManager *m_network;
    ServerConnection m_connection;
    qint64 m_requestCount = 0;
};

} // namespace sandscope
