#pragma once
// How one turn of a live run ended, as one value: the command line maps it to an exit code,
// the run page to a notice and the state of its controls.

#include "streamjson/runevents.h"

#include <QMetaType>
#include <QString>

namespace sandscope {

struct RunOutcome {
    enum class Kind {
        Ok, // a successful result line
        ErrorResult, // a result line with is_error (API error, max turns, ...)
        NoResult, // claude ended without a result line (crashed, killed from elsewhere)
        Stopped, // stopped from here before a result; see `detached`
        TransportFailed, // the server could not be asked (the run may go on there)
        // the run's process ended without an exit status and not from here (its group was
        // ended, the sandbox restarted): the session can be resumed
        Interrupted,
    };

    Kind kind = Kind::NoResult;
    bool hasResult = false;
    ResultInfo result; // the turn's last result line, when hasResult
    int exitCode = 0; // claude's exit status; negative: killed by that signal
    QString standardError; // claude's stderr (masked), for NoResult
    QString failure; // the transport failure or the interruption (masked)
    bool detached = false; // Stopped by giving up waiting: the run may go on in the sandbox
    QString sessionId; // the chat's Claude session as the stream named it

    bool ok() const { return kind == Kind::Ok; }

    // The decision both the window and the command line rely on.
    static Kind classify(bool transportFailed, bool stopRequested, bool hasResult, bool isError,
        bool interrupted = false);
    static QString kindName(Kind kind);
};

} // namespace sandscope

Q_DECLARE_METATYPE(sandscope::RunOutcome)
