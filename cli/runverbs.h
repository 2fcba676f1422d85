#pragma once
// `sandscope run` (a live Claude Code run in a chat, as a sandbox user) and
// `sandscope sessions` (the chats' Claude sessions, recorded locally and found on the server)
// and `sandscope runs` (the runs left in the sandbox, to show again with `run --attach`).
//
// Exit codes of `run`: 0 the run ended with a successful result; 1 it ended with an error
// result or without any result (killed, crashed CLI), or a local file could not be used;
// 2 usage error; 3 server or transport failure; 128+N when Ctrl+C / SIGTERM (signal N)
// stopped it. `sessions` and `runs`: 0 ok, 2 usage error, 3 server or transport failure.

#include <QString>
#include <QStringList>

namespace sandscope::cli {

extern const QString runVerb;
extern const QString sessionsVerb;
extern const QString runsVerb;

int runRun(const QStringList &arguments);
int runSessions(const QStringList &arguments);
int runRuns(const QStringList &arguments);

// The lines of the top-level help that describe these verbs.
QString runVerbsSummary();

} // namespace sandscope::cli
