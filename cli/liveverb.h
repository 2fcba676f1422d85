#pragma once
// `sandscope live --all-users [--admin-exec PREFIX] [--json]`: every running Claude Code agent
// on the server, newest activity first (user, chat, session, the call running now with its
// elapsed time, tokens, cost, last line), pushed by ONE follower process run as root through
// the admin channel (LiveAgentWatcher). On a terminal the table is redrawn in place; otherwise
// a snapshot is appended per change; --json prints one object per line per change. Ctrl+C
// ends it (exit 0). Exit code 2 usage error, 3 when the follower cannot run or fails.

#include <QString>
#include <QStringList>

namespace sandscope::cli {

extern const QString liveVerb;

int runLive(const QStringList &arguments);

// The line of the top-level help that describes the verb.
QString liveVerbSummary();

} // namespace sandscope::cli
