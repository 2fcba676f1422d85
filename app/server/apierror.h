#pragma once
// Typed errors of the open-terminal client and the Result<T> every call delivers.

#include <QMetaType>
#include <QString>

#include <utility>

namespace sandscope {

struct ApiError {
    enum class Kind {
        None,
        ConnectionRefused, // nothing listens at the URL
        HostNotFound,
        Timeout, // connect or transfer timed out
        Tls, // certificate or handshake problem; never ignored silently
        ConnectionClosed, // the server dropped the connection mid-request
        Network, // any other transport failure
        InvalidApiKey, // 401
        Forbidden, // 403, or a cross-user path refused (0.14 answers 400 "Access denied")
        NotFound, // 404
        Conflict, // 409
        UnsupportedMediaType, // 415
        Validation, // 422 (FastAPI detail array)
        TooManyRequests, // 429
        BadRequest, // 400 (OS errors, replace target missing, ...)
        ServerError, // 5xx (often an HTML page from a proxy)
        HttpError, // any other non-2xx status
        BadResponse, // 2xx whose body is not what the endpoint promises
        Cancelled, // aborted by the caller
        ProcessExpired, // process record gone (404 after ~300 s, restart) and no log to recover
        AdminCommandFailed, // the local admin command could not run a script in the sandbox
    };

    Kind kind = Kind::None;
    int httpStatus = 0;
    QString message; // one sentence for people; never contains the API key
    QString detail; // the server's own text (FastAPI detail / {"error"}), if any
    QString url; // the request URL without credentials

    bool isError() const { return kind != Kind::None; }
    QString toString() const; // message, plus "(HTTP n)" when there was a status
    static QString kindName(Kind kind);
};

template <typename T> struct Result {
    T value {};
    ApiError error;

    bool ok() const { return !error.isError(); }
    static Result success(T v)
    {
        Result r;
        r.value = std::move(v);
        return r;
    }
    static Result failure(ApiError e)
    {
        Result r;
        r.error = std::move(e);
        return r;
    }
};

} // namespace sandscope

Q_DECLARE_METATYPE(sandscope::ApiError)
