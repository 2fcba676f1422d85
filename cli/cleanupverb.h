#pragma once
// `sandscope cleanup`: runs the sandbox cleanup script (/opt/cleanup.sh) on the server as
// its own account, as a dry run that lists what would be deleted (optionally saving the
// plan), or with --execute --plan FILE --yes to delete the items of a reviewed plan.

#include <QString>
#include <QStringList>

namespace sandscope::cli {

extern const QString cleanupVerb;

int runCleanup(const QStringList &arguments);

// The lines of the top-level help that describe the verb.
QString cleanupVerbSummary();

} // namespace sandscope::cli
