#pragma once
// `sandscope search --server URL --user ID QUERY [--tool NAME] [--since DATE] [--json]`: the
// lines of a user's Claude Code transcripts (sessions and sub-agents) that contain QUERY, with
// the session, turn and tool call each belongs to (sessionsearch). Exit code 0 with hits, 1
// without, 2 usage error, 3 server or transport failure.

#include <QString>
#include <QStringList>

namespace sandscope::cli {

extern const QString searchVerb;

int runSearch(const QStringList &arguments);

// The line of the top-level help that describes the verb.
QString searchVerbSummary();

} // namespace sandscope::cli
