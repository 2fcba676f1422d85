#pragma once
// Builds the shell command that runs `claude -p … --output-format stream-json --verbose` for
// one chat inside a sandbox account, plus the paths that run uses there.
//
// Layout in the account's home (see RunPaths):
//   ~/chat-<chat>/                          the chat's working directory (claude's cwd)
//   ~/.sandscope/<env file>                 KEY='value' lines, mode 0600, sourced with set -a
//   ~/.sandscope/runs/<chat>/<run>.prompt   the prompt, uploaded byte for byte, fed on stdin
//   ~/.sandscope/runs/<chat>/<run>.jsonl    tee copy of claude's stdout (the exact stream)
//   ~/.sandscope/runs/<chat>/<run>.stderr   claude's stderr (start-up errors)
//   ~/.sandscope/runs/<chat>/<run>.exit     claude's exit code, written once the pipeline ended
//   ~/.sandscope/runs/<chat>/<run>.pid      pid of the run's shell, to tell whether it still runs
//
// The prompt never travels on the command line: Linux caps one argv element at 128 KiB and the
// whole command is one argv element of `bash -c` (multi-user) or `sh -c`; 0.11.x servers list
// every user's command lines to every caller; and claude reads a prompt from stdin unchanged
// (checked with 2.1.332: control characters, CR, U+2028, leading/trailing blanks, 120 kB).

#include <QHash>
#include <QString>
#include <QStringList>

namespace sandscope {

struct ClaudeRunOptions {
    QString model; // --model, empty: the CLI's default
    QString permissionMode; // --permission-mode, empty: default; see permissionModes()
    QStringList allowedTools; // --allowedTools, one rule per element, e.g. "Bash(git *)"
    QStringList disallowedTools; // --disallowedTools
    int maxTurns = 0; // --max-turns, 0: unlimited
    QString appendSystemPrompt; // --append-system-prompt (inline, so at most 16 KiB)
    QStringList extraDirectories; // --add-dir
    bool includePartialMessages = false; // --include-partial-messages (stream_event lines)
    bool forwardSubagentText = false; // --forward-subagent-text
    QString resumeSessionId; // --resume <id>
    bool forkSession = false; // --fork-session (needs resumeSessionId)
};

// Absolute paths of one run inside the account (see the layout above).
struct RunPaths {
    QString home;
    QString workDirectory;
    QString envFile;
    QString runDirectory;
    QString promptFile;
    QString teeFile;
    QString stderrFile;
    QString exitFile;
    QString pidFile;

    static RunPaths make(const QString &home, const QString &chatId, const QString &runId,
        const QString &envFileName = QStringLiteral("agent.env"));
};

namespace claudecommand {

// The line the run prints on the terminal right before claude starts; everything before it
// (sudo or login noise) is not part of the stream, and line 1 of the stream follows it.
QString beginMarker(const QString &runId);

// Chat and run ids become directory and file names: 1-64 of [A-Za-z0-9_-], not starting with
// '-' or '_'. Env file names additionally allow '.' after the first character.
bool isValidChatId(const QString &chatId, QString *why = nullptr);
bool isValidRunId(const QString &runId, QString *why = nullptr);
bool isValidEnvFileName(const QString &name, QString *why = nullptr);
bool isValidEnvName(const QString &name); // [A-Za-z_][A-Za-z0-9_]*

// A new run id: <yyyyMMdd-HHmmss>-<8 random hex>, in UTC.
QString newRunId();

QStringList permissionModes();

// Empty when the options can be passed on; otherwise the reason.
QString validate(const ClaudeRunOptions &options);

// argv after "claude", starting with -p; the prompt is not among them (it comes on stdin).
QStringList arguments(const ClaudeRunOptions &options);

// The env file's content: one KEY='value' line per entry, sorted by name. Names must pass
// isValidEnvName and values isPassable; otherwise returns false and `why` names the key only.
bool envFileContent(const QHash<QString, QString> &environment, QString *content, QString *why);

// Creates the run's directories and an empty env file that can be written by the server's
// group but read by nobody else (0620), then prints SANDSCOPE-HOME=<home>. Uses ~ because the
// home is not known yet.
QString prepareScript(const QString &chatId, const QString &envFileName);

// After the env file and the prompt were written: tightens the env file to 0600 and prints
// "SANDSCOPE-STAT <mode> <size> <path>" for the env file and the prompt.
QString verifyScript(const RunPaths &paths);

// The run itself: cd into the chat, source the env file, record the pid, print the begin
// marker, then claude < prompt 2> stderr | tee <tee>; the exit code of claude (not of tee)
// is written to the exit file and becomes the exit code of the command.
QString runScript(const ClaudeRunOptions &options, const RunPaths &paths, const QString &runId);

// `script` in a session of its own (`setsid -w`, which waits and returns its status): a server
// that ends its commands' process groups when it stops (0.14.x) leaves the run going. Without
// setsid the script runs as it is.
QString detachedCommand(const QString &script);

// Prints SANDSCOPE-ALIVE while the run's shell still runs, SANDSCOPE-NEVER-RAN when it never
// ran (it creates its pid file first thing), else SANDSCOPE-GONE.
QString livenessScript(const RunPaths &paths, const QString &runId);

// Removes the env file of a run that never started, so that its secrets do not stay on disk
// (a run's shell removes it itself once read); prints SANDSCOPE-DISCARDED.
QString discardScript(const RunPaths &paths);

// Sends `signalName` (TERM, KILL) to the process group of the run's shell (claude, tee and
// the tools they started) and prints SANDSCOPE-SIGNALLED, or SANDSCOPE-GONE when the run no
// longer runs. For runs followed by their tee file, whose process id the server forgot.
QString signalScript(const RunPaths &paths, const QString &runId, const QString &signalName);

} // namespace claudecommand
} // namespace sandscope
