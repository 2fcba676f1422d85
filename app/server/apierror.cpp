#include "apierror.h"

namespace sandscope {

QString ApiError::toString() const
{
    if (httpStatus == 0)
        return message;
    const QString status = QStringLiteral("HTTP %1").arg(httpStatus);
    // Messages such as "HTTP 502 from <url>: ..." already name the status.
    if (message.contains(status))
        return message;
    return message + QStringLiteral(" (") + status + QLatin1Char(')');
}

QString ApiError::kindName(Kind kind)
{
    switch (kind) {
    case Kind::None:
        return QStringLiteral("None");
    case Kind::ConnectionRefused:
        return QStringLiteral("ConnectionRefused");
    case Kind::HostNotFound:
        return QStringLiteral("HostNotFound");
    case Kind::Timeout:
        return QStringLiteral("Timeout");
    case Kind::Tls:
        return QStringLiteral("Tls");
    case Kind::ConnectionClosed:
        return QStringLiteral("ConnectionClosed");
    case Kind::Network:
        return QStringLiteral("Network");
    case Kind::InvalidApiKey:
        return QStringLiteral("InvalidApiKey");
    case Kind::Forbidden:
        return QStringLiteral("Forbidden");
    case Kind::NotFound:
        return QStringLiteral("NotFound");
    case Kind::Conflict:
        return QStringLiteral("Conflict");
    case Kind::UnsupportedMediaType:
        return QStringLiteral("UnsupportedMediaType");
    case Kind::Validation:
        return QStringLiteral("Validation");
    case Kind::TooManyRequests:
        return QStringLiteral("TooManyRequests");
    case Kind::BadRequest:
        return QStringLiteral("BadRequest");
    case Kind::ServerError:
        return QStringLiteral("ServerError");
    case Kind::HttpError:
        return QStringLiteral("HttpError");
    case Kind::BadResponse:
        return QStringLiteral("BadResponse");
    case Kind::Cancelled:
        return QStringLiteral("Cancelled");
    case Kind::ProcessExpired:
        return QStringLiteral("ProcessExpired");
    case Kind::AdminCommandFailed:
        return QStringLiteral("AdminCommandFailed");
    }
    return QStringLiteral("Unknown");
}

} // namespace sandscope
