#pragma once
// The admin script that runs one step of app/fleet/fleetroot.py as root in a member (through
// its admin command; AdminScript). `asUid` > 0: the step drops to that user first.

#include <QString>
#include <QStringList>

namespace sandscope::fleetroot {

QString script(const QStringList &arguments, int asUid = 0, int asGid = 0);

} // namespace sandscope::fleetroot
