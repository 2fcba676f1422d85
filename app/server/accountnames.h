#pragma once
// Predicts the Linux account open-terminal provisions for an X-User-Id (the two rules in
// docs/open-terminal.md, "Multi-user rules"). The prediction is only a hint; the observed account
// (whoami) is the truth.

#include <QString>

namespace sandscope {

enum class AccountRule {
    FirstEightAlnum, // 0.11.x: prefix + first 8 lowercase alphanumerics (hash when < 4)
    SlugWithHash, // newer: prefix + slug + "_" + sha256[:8], at most 32 characters
};

QString predictAccountName(const QString &userId, AccountRule rule, const QString &prefix = {});

// Which rule (if any) explains an observed account name for this user id.
// Returns false when neither rule produces `observed`. `prefix` is tried first; when it does
// not explain the name, any leading part of `observed` is tried as the server's prefix
// (e.g. "owui_" when the client did not know it) and reported in `detectedPrefix`.
bool explainAccountName(
    const QString &userId, const QString &observed, const QString &prefix, AccountRule *rule);
bool explainAccountName(const QString &userId, const QString &observed, const QString &prefix,
    AccountRule *rule, QString *detectedPrefix);

// The user id whose account `account` is, when the id can be told from the name: a 0.11.x
// account is the prefix and the id's first eight lowercase alphanumerics, a newer one the
// prefix, the id's slug and a hash of the id; only an id that is its own slug (at least 4
// characters) can be recovered from either. `knownPrefix` is tried first, then every leading
// part of the name. Empty when no id explains it.
QString userIdForAccount(const QString &account, const QString &knownPrefix = {});

} // namespace sandscope
