#pragma once
// `sandscope usage --server URL (--user ID | --all-users [--admin-exec PREFIX]) [--since DATE]
// [--json | --csv]`: per user and UTC day the sessions, turns, tool calls, errors, tokens and
// cost of the Claude Code transcripts on the server, and the top tools (UsageCollector). Exit
// code 0, 2 usage error, 3 server or transport failure.

#include <QString>
#include <QStringList>

namespace sandscope::cli {

extern const QString usageVerb;

int runUsage(const QStringList &arguments);

// The line of the top-level help that describes the verb.
QString usageVerbSummary();

} // namespace sandscope::cli
