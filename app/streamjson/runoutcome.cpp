#include "runoutcome.h"

namespace sandscope {

RunOutcome::Kind RunOutcome::classify(
    bool transportFailed, bool stopRequested, bool hasResult, bool isError, bool interrupted)
{
    if (transportFailed)
        return Kind::TransportFailed;
    // A result that arrived before the stop or the interruption still ends the turn.
    if (!hasResult) {
        if (stopRequested)
            return Kind::Stopped;
        return interrupted ? Kind::Interrupted : Kind::NoResult;
    }
    return isError ? Kind::ErrorResult : Kind::Ok;
}

QString RunOutcome::kindName(Kind kind)
{
    switch (kind) {
    case Kind::Ok:
        return QStringLiteral("ok");
    case Kind::ErrorResult:
        return QStringLiteral("error result");
    case Kind::NoResult:
        return QStringLiteral("no result");
    case Kind::Stopped:
        return QStringLiteral("stopped");
    case Kind::TransportFailed:
        return QStringLiteral("transport failed");
    case Kind::Interrupted:
        return QStringLiteral("interrupted");
    }
    return {};
}

} // namespace sandscope
