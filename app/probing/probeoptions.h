#pragma once
// What one isolation probe run checks (IsolationProbe runs it; ProbeContext keeps it).

#include "probereport/probereport.h"
#include "server/adminaccess.h"

#include <QPair>
#include <QString>
#include <QStringList>
#include <QVector>

namespace sandscope {

struct ProbeOptions {
    // At least two distinct, valid user ids (none needed when only ReservedIds runs).
    QStringList users;
    // Ids that must not map onto privileged accounts; the server's own account name is
    // added when the server reveals it.
    QStringList reservedIds {QStringLiteral("root"), QStringLiteral("user")};
    // To rerun a single cell: only these checks (empty: all) and, of the pair checks, only
    // these (target, actor) pairs (empty: all pairs).
    QVector<CheckId> onlyChecks;
    QVector<QPair<QString, QString>> onlyPairs;
    int commandTimeoutMs = 30000;
    // The root shell in the sandbox (see AdminAccess). Only the root-symlink check needs it,
    // to create a root-only file; without it that check does not run.
    bool hasAdmin = false;
    AdminAccess admin;
};

namespace probe {
// Every id valid (validateUserId) and none given twice; else false with `why`.
bool checkUserIds(const QStringList &users, QString *why);
} // namespace probe

} // namespace sandscope
