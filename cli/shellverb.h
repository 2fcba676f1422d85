#pragma once
// `sandscope shell --server URL --user ID [--cwd DIR]`: an interactive login shell as a sandbox
// user through the server's terminal WebSocket (TerminalSession), like ssh. With a terminal on
// stdin it runs in raw mode (every key, Ctrl+C included, goes to the remote program; the window
// size is sent at the start and on SIGWINCH; the terminal is restored on exit). Without one it
// is line mode, so scripts work: stdin is sent as it is and its end becomes Ctrl+D.
//
// Exit codes: the remote shell's exit status when the server reports it (no pinned version
// does: then 0 once the shell has ended), 2 usage error, 3 server or transport failure (also
// when the connection is lost mid-session), 128+N when signal N ended the local side.

#include <QString>
#include <QStringList>

namespace sandscope::cli {

extern const QString shellVerb;

int runShell(const QStringList &arguments);

// The lines of the top-level help that describe this verb.
QString shellVerbSummary();

} // namespace sandscope::cli
