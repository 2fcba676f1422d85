#pragma once
// Searching a user's Claude Code transcripts on the server (sessiondiscovery finds the same
// files): one command, run as the user, greps every session and sub-agent transcript for a
// text and tells for each matching line which session, turn and tool call it belongs to.
//
// The files are JSON lines in which quotes, backslashes and control characters are escaped and
// everything else (non-ASCII included) is raw UTF-8. So the query is searched for in its JSON
// form (jsonstring::escape, as the CLI writes strings, without the outer quotes), as a fixed
// string, ignoring case: `say "hi"` finds the prompt `say "hi"`, a path with a backslash finds
// that path. A text that the CLI stored in some other form (\uXXXX escapes, a string split
// across fields, case folding the server's locale does not know) is not found.

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

struct SessionSearchHit {
    QString path; // the transcript file: a session's or one of its sub-agents'
    qint64 line = 0; // 1-based line number in that file
    QString sessionId;
    QString agentId; // the sub-agent's id for a sub-agent file, else empty
    QString uuid; // the record's uuid; empty for records without one
    int turn = 0; // prompts up to and including the line; 0 in sub-agent files
    QString toolUseId; // the tool call the line belongs to (its tool_use or tool_result)
    QString toolName;
    QString recordType; // user, assistant, attachment, queue-operation, ...
    QString excerpt; // raw JSON around the match, at most excerptLimit characters
    QString member; // the fleet member holding it; empty for a single server
};

namespace sessionsearch {

constexpr int maxHits = 500;
constexpr int excerptLimit = 160;

// One POSIX sh command (sh, stat, grep, awk) that prints SANDSCOPE-HOME=<home>, one
// tab-separated SANDSCOPE-HIT line per matching line (at most maxHits, in file order, each
// session's sub-agent files after it): line, session id, uuid, turn, tool_use id, tool name,
// record type (the last four as JSON literals), excerpt, path (last: the only field that can
// hold a tab); then SANDSCOPE-TRUNCATED when more lines matched. With `toolName`, only lines
// of that tool's calls; with a valid `sinceUtc`, only files modified since then. The query,
// which must not be empty, reaches grep and awk as single-quoted shell words.
QString script(const QString &query, const QString &toolName = {}, const QDateTime &sinceUtc = {});
// The same over every home under `homesRoot` (as root; at most maxHits per home). The home
// line names the root; each hit's path names its home.
QString allUsersScript(const QString &homesRoot, const QString &query, const QString &toolName = {},
    const QDateTime &sinceUtc = {});
// script() without its first part (which sets $home to the user's home and prints it).
QString body(const QString &query, const QString &toolName, const QDateTime &sinceUtc);

struct Result {
    QString home;
    QVector<SessionSearchHit> hits;
    bool truncated = false; // more lines matched than maxHits
    QStringList refused; // transcripts not searched: they lead out of their home (messages)
};
// Parses the script's terminal output (CR LF and noise lines tolerated); false without the
// home line.
bool parse(const QString &output, Result *result);

struct Options {
    QString toolName;
    QDateTime since; // invalid: every file
};

using Callback = std::function<void(bool ok, const Result &result, const QString &error)>;
// Runs script() as `identity`; `done` runs once, never from inside search(), and not at all
// when `context` is destroyed first.
void search(OpenTerminalClient *client, const Identity &identity, const QString &query,
    const Options &options, QObject *context, Callback done);
// allUsersScript() as root through `admin`.
void searchAllUsers(OpenTerminalClient *client, const AdminAccess &admin, const QString &homesRoot,
    const QString &query, const Options &options, QObject *context, Callback done);

// searchAllUsers() on every target of `fanOut` at once (FleetFanOut): `onMember` gets each
// member's result, every hit's `member` set, as that member answers (empty when it failed).
using MemberCallback = std::function<void(const FanOutMemberResult &member, const Result &result)>;
void searchAllUsers(FleetFanOut *fanOut, const QString &homesRoot, const QString &query,
    const Options &options, MemberCallback onMember);

} // namespace sessionsearch

} // namespace sandscope
