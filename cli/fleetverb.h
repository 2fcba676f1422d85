#pragma once
// `sandscope fleet status|move --fleet FILE …`: a fleet of members behind one router
// (FleetConfig). `status` asks every member in parallel and prints each as it answers, then
// the user -> member map and what is wrong (FleetStatus); `move` moves a user's home from one
// member to another, a dry run unless --execute (UserMove). Exit codes: 0 all well (status) or
// moved / planned (move); 1 anomalies (status) or a plan that cannot run / a failed move;
// 2 usage error; 3 a member could not be reached.

#include <QString>
#include <QStringList>

namespace sandscope::cli {

extern const QString fleetVerb;

int runFleet(const QStringList &arguments);

// The line of the top-level help that describes the verb.
QString fleetVerbSummary();

} // namespace sandscope::cli
