#pragma once
// `sandscope probe`: the isolation probe on the command line. For the given user ids it
// shows, check by check and pair by pair, what one user can reach of another's files,
// processes and sessions, plus the server-wide account checks.
//
// Exit codes: 0 nothing FAILed and nothing was ERROR; 1 at least one check FAILed (a proven
// gap outweighs checks that could not run); 2 nothing FAILed but at least one check could
// not run (ERROR: the clean result is not proven), and usage errors.

#include <QString>
#include <QStringList>

namespace sandscope::cli {

extern const QString probeVerb;

int runProbe(const QStringList &arguments);

// The lines of the top-level help that describe the verb.
QString probeVerbSummary();

} // namespace sandscope::cli
