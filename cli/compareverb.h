#pragma once
// `sandscope compare A B [--json]`: two runs (files, or `session:SID` read from a server with
// --server/--profile and --user) aligned call by call (RunComparison), printed as the deltas
// of their summaries, then the added, removed and changed calls with the differing input and
// output, then the files each touched. Exit code 0 when the runs match, 1 when they differ,
// 2 on a usage error or when an argument is not a run, 3 when the server failed.

#include <QString>
#include <QStringList>

namespace sandscope::cli {

extern const QString compareVerb;

int runCompare(const QStringList &arguments);

// The line of the top-level help that describes the verb.
QString compareVerbSummary();

} // namespace sandscope::cli
