#pragma once
// The `sandscope <verb>` command line. It runs on QCoreApplication (no display needed) and
// calls the same core as the GUI.

namespace sandscope::cli {

// True when argv asks for the command line (a verb, --help, --version) rather than the GUI.
bool wantsCommandLine(int argc, char **argv);

// Runs the command line; returns the process exit code. Creates its own QCoreApplication.
// Exit codes: 0 ok, 1 error, 2 usage error, 3 server/transport error; `exec` returns the
// command's own exit code (128+N when it died from signal N).
int run(int argc, char **argv);

} // namespace sandscope::cli
