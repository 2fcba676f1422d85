#pragma once
// One command run on the server through /execute and streamed to this process's stdout: the
// exec verb, and the shell verb when its standard input is not a terminal (a script piped in
// runs in a login shell without a terminal, as `ssh host < script` does). Ctrl+C stops the
// remote process (SIGTERM, then SIGKILL, then stop waiting); acting as a user is audited.

#include "cli/connectionoptions.h"
#include "server/connection.h"
#include "server/processstream.h"

#include <QString>

namespace sandscope::cli {

struct RemoteCommand {
    QString command; // one shell command line
    QString auditAction; // the audit log's action ("exec", "shell")
    QString auditTarget; // what the audit log names (redacted of the key)
    ExecuteOptions execute;
    // This program's stdin becomes the command's (RemoteStdin); otherwise it reads /dev/null.
    bool forwardStdin = false;
    // The server runs commands in a pseudo-terminal, which writes every LF as CR LF: undo it
    // exactly (CR LF back to LF; a CR of the program's own stays) for output a script reads.
    bool undoTerminalLineEnds = false;
};

// Exit code of a command: its own, or 128+N when it died from signal N (as shells do).
int shellExitCode(int exitCode);

// Runs `command` as `identity` until it ends; returns its exit code (3 when the server or the
// connection failed, 128+N when this program was stopped by signal N).
int runRemoteCommand(
    const ConnectionOptions &options, const Identity &identity, const RemoteCommand &command);

} // namespace sandscope::cli
