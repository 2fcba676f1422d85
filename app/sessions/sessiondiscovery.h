#pragma once
// The Claude Code sessions on the server: the CLI keeps a transcript per session in
// ~/.claude/projects/<escaped cwd>/<session>.jsonl and its sub-agents' in
// <session>/subagents/agent-<id>.jsonl (docs/stream-json.md, "Transcripts on disk"). Most are
// started by Open WebUI, not by Sandscope. sessiondiscovery lists every one of them with its
// details (title, turns, tool calls, cost, ...) with one command, and discover() runs it as a
// user. A chat's directory is located with the CLI's escaping rule; because that rule maps
// chats such as "a_b" and "a-b" onto the same directory, each transcript's recorded cwd
// decides which chat it belongs to.

#include "server/adminaccess.h"
#include "server/connection.h"

#include <QDateTime>
#include <QObject>
#include <QString>
#include <QVector>

#include <functional>

namespace sandscope {

class FleetFanOut;
class OpenTerminalClient;
struct FanOutMemberResult;

// One session transcript found on the server.
struct DiscoveredSession {
    QString chatId; // empty when its cwd is not a chat directory
    QString sessionId; // the file name without .jsonl
    QString cwd; // the first cwd recorded in the file; empty when none was found
    QString path; // absolute path of the transcript
    QString home; // the home holding it (<home>/.claude/projects/…)
    QString projectDirectory; // name of its directory under ~/.claude/projects
    QDateTime lastActivity; // latest modification of the transcript or a sub-agent's, UTC
    qint64 size = 0; // the transcript and its sub-agents' files
    QString title; // the first line of the first prompt, at most titleLimit characters
    QDateTime started; // the first timestamp recorded, UTC; invalid when none
    int turns = 0; // prompts typed (user records whose content is text, not meta or summaries)
    int toolCalls = 0; // tool_use blocks, the sub-agents' included
    QString model; // the first model that answered (not "<synthetic>"); empty when none did
    bool hasCost = false; // whether a cost-state record was written
    double costUsd = 0; // totalCostUSD of the last cost-state record
    bool running = false; // written within the last runningSeconds by the server's clock
    QString member; // the fleet member holding it; empty for a single server
};

namespace sessiondiscovery {

constexpr int titleLimit = 200;
constexpr int runningSeconds = 30;

// The CLI's directory name for a working directory: every UTF-16 code unit outside
// [A-Za-z0-9] becomes '-'; a name longer than 200 characters is cut to 200 and gets '-' and
// the base-36 absolute value of the Java string hash of the original path appended.
QString projectDirectoryName(const QString &cwd);

// The working directory RunLauncher gives a chat: <home>/chat-<chat>.
QString chatWorkDirectory(const QString &home, const QString &chatId);

// One POSIX sh command (sh, stat, awk, date; one awk pass per batch of files, no per-line
// shell work) that prints SANDSCOPE-HOME=<home> and one tab-separated SANDSCOPE-TRANSCRIPT
// line per ~/.claude/projects/*/*.jsonl: "mtime size" (latest mtime, sizes summed over the
// sub-agent files), the first cwd, the first timestamp, turns, tool calls, 1 when running,
// the first model, the last cost, the first prompt, and the path (last: the only field that
// can hold a tab). Texts are the JSON string literals of the file (escape-safe); the prompt
// is cut after 1300 bytes. Paths holding a newline are skipped (the CLI never makes them).
QString script();
// The same for every home under `homesRoot` (as root, through the admin channel): the home
// line names the root, each record's path its home.
QString allUsersScript(const QString &homesRoot = QStringLiteral("/home"));
// `perHome` (which uses $home) run in a subshell for every home under `homesRoot` that has
// ~/.claude/projects, after a home line naming the root.
QString forEveryHome(const QString &homesRoot, const QString &perHome);
// script() without its first part (which sets $home to the user's home and prints it).
QString listingBody();

struct Listing {
    QString home;
    QVector<DiscoveredSession> transcripts; // every transcript found, chatId still empty
    // Transcripts and folders not read because they lead out of their home, each as a message
    // naming the link and its target.
    QStringList refused;
};
// Parses the script's terminal output (CR LF and noise lines are tolerated). False when the
// output lacks the home line.
bool parse(const QString &output, Listing *listing);

// The transcripts of one chat (its directory by the escaping rule, and its cwd when the file
// records one), or of every chat when chatId is empty; most recently active first, with
// chatId filled in.
QVector<DiscoveredSession> chatSessions(const Listing &listing, const QString &chatId = {});
// Every transcript, most recently active first; chatId filled in for those whose cwd is a
// chat directory (as chatSessions without a chat decides).
QVector<DiscoveredSession> allSessions(const Listing &listing);

using Callback = std::function<void(bool ok, const Listing &listing, const QString &error)>;
// Runs script() as `identity`; `done` runs once, never from inside discover(), and not at all
// when `context` is destroyed first.
void discover(
    OpenTerminalClient *client, const Identity &identity, QObject *context, Callback done);
// allUsersScript() as root through `admin`; the same promises as discover().
void discoverAllUsers(OpenTerminalClient *client, const AdminAccess &admin,
    const QString &homesRoot, QObject *context, Callback done);

// allSessions() of every home on every target of `fanOut` at once (FleetFanOut): `onMember`
// gets each member's sessions, `member` set, as that member answers (none when it failed).
using MemberCallback = std::function<void(const FanOutMemberResult &result,
    const QVector<DiscoveredSession> &sessions, const QStringList &refused)>;
void discoverAllUsers(FleetFanOut *fanOut, const QString &homesRoot, MemberCallback onMember);
// The same, streamed: `onBatch` gets a member's sessions as its script lists them (a batch at
// most every batchMs per member, newest first within a batch), so the first rows come long
// before a member with many homes has listed the last; `onMember` then says how the member
// ended (its sessions are all in the batches; a member that failed may have sent some).
constexpr int batchMs = 100;
using BatchCallback
    = std::function<void(const QString &member, const QVector<DiscoveredSession> &sessions)>;
void discoverAllUsers(
    FleetFanOut *fanOut, const QString &homesRoot, BatchCallback onBatch, MemberCallback onMember);

// Script pieces shared with sessionsearch.
//
// Shell lines that call `function "$@"` with the transcripts in batches of about 400 files,
// each main transcript followed by its sub-agent files (a session never spans two batches,
// and no argument list grows past the kernel's limit). Needs $home.
QString transcriptBatches(const QString &function);
// awk functions: clean(s) escapes tabs and CRs and blanks other control characters;
// literal(line, key) is the JSON string literal following the first `key` (which ends with
// the opening quote), cleaned, or ""; isprompt(line) tells a typed prompt record, as
// RunParser starts a turn with one (not `<local-command-…>` output, not an interrupt note).
QString awkFunctions();

} // namespace sessiondiscovery

} // namespace sandscope
