#include "runoutcome.h"

namespace sandscope {

RunOutcome::Kind RunOutcome::classify(
    bool transportFailed, bool stopRequested, bool hasResult, bool isError)
{
    if (transportFailed)
        return Kind::TransportFailed;
    // A result that arrived before the stop took effect still counts as the turn's end.
    if (!hasResult)
        return stopRequested ? Kind::Stopped : Kind::NoResult;
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
    }
    return {};
}

} // namespace sandscope
