#pragma once
// A fleet: several open-terminal members behind one router that sends each user to the member
// holding their home (sandbox/README.md). The fleet file names them, as JSON:
//   {"router": "http://router:8000",
//    "members": [{"name": "open-terminal-0", "url": "http://open-terminal-0.open-terminal:8000",
//                 "admin_exec": "kubectl exec -i open-terminal-0 --"}, …]}
// Per-user actions go through the router, exactly as Open WebUI's requests do; all-users views
// and moves go to each member through its own URL and admin command. The API key is never in
// the file: it comes as for one server (SANDSCOPE_API_KEY, --api-key-file, a profile).

#include "server/adminaccess.h"

#include <QByteArray>
#include <QString>
#include <QUrl>
#include <QVector>

namespace sandscope {

struct FleetMember {
    QString name;
    QUrl url;
    QString adminExec; // as written; empty: the member's own account (0.11.x only)
    AdminAccess admin; // adminExec, split like a shell would
};

struct FleetConfig {
    QUrl router;
    QVector<FleetMember> members;

    // False with a message naming what is wrong (and where) for a file that is not a fleet.
    static bool fromJson(const QByteArray &json, FleetConfig *fleet, QString *error);
    static bool load(const QString &path, FleetConfig *fleet, QString *error);
    const FleetMember *member(const QString &name) const; // null when there is none
    QStringList memberNames() const;
};

} // namespace sandscope
