#pragma once
// What every `sandscope <verb>` shares besides its own options: parsing with the connection
// options and --help, server errors as one line that names the server and never the key,
// and Ctrl+C / SIGTERM delivered as calls in the event loop.

#include "cli/connectionoptions.h"
#include "server/adminaccess.h"
#include "server/openterminalclient.h"
#include "sessions/sessionstore.h"

#include <QCommandLineOption>
#include <QDateTime>
#include <QEventLoop>
#include <QJsonArray>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

class QCommandLineParser;
class QSocketNotifier;

namespace sandscope {
struct ApiError;
class FleetFanOut;
} // namespace sandscope

namespace sandscope::cli {

// Every verb that talks to a server exits with 3 when the server or the transport failed.
constexpr int serverErrorExitCode = 3;

// The parser's help with "Usage: sandscope USAGE" as its first line, `more` after the
// options, and where the API key may come from.
QString verbHelp(const QCommandLineParser &parser, const QString &usage, const QString &more = {});

// Adds --help and the connection options, parses and resolves them. Returns -1 to go on,
// otherwise the exit code (0 after printing the help, 2 after a usage error).
int parseVerbArguments(QCommandLineParser &parser, const QString &verb,
    const QStringList &arguments, const QString &usage, ConnectionOptions &options,
    const QString &moreHelp = {});

// parseVerbArguments for verbs that act as one sandbox user (run, runs, sessions): no
// positional arguments, and --user is required.
int parseUserVerbArguments(QCommandLineParser &parser, const QString &verb,
    const QStringList &arguments, const QString &usage, ConnectionOptions &options);

// Where the sessions of --user on this server or profile are recorded.
SessionScope sessionScopeOf(const ConnectionOptions &options);

// `text` prefixed with the server unless it names it already.
QString serverMessage(const QString &text, const ConnectionOptions &options);
// Prints the error (server named, key masked) and returns serverErrorExitCode.
int serverError(const ApiError &error, const ConnectionOptions &options);

// Runs a listing (sessiondiscovery::discover, rundiscovery::list) as --user and waits for it.
// False with the reason (naming the server) when it failed.
template <typename Listing>
bool listAsUser(void (*list)(OpenTerminalClient *, const Identity &, QObject *,
                    std::function<void(bool, const Listing &, const QString &)>),
    OpenTerminalClient &client, const ConnectionOptions &options, Listing *listing, QString *error)
{
    Identity identity;
    identity.userId = options.userId;
    QEventLoop loop;
    bool ok = false;
    list(&client, identity, &loop, [&](bool success, const Listing &found, const QString &why) {
        ok = success;
        *listing = found;
        *error = serverMessage(why, options);
        loop.quit();
    });
    loop.exec();
    return ok;
}

// --admin-exec 'PREFIX' for the verbs that act as root in the sandbox (cleanup, all users).
QCommandLineOption adminExecOption();
// --admin-exec when given, else the profile's admin command, else the server account. False
// with the reason when the command cannot be split into words, and with --fleet (an all-users
// view through the router would show one member's users only).
bool resolveAdminAccess(const QCommandLineParser &parser, const ConnectionOptions &options,
    AdminAccess *access, QString *error);

// --member-timeout SECONDS for the all-users verbs that also run on a fleet.
QCommandLineOption memberTimeoutOption();
// Where an all-users verb runs (FleetFanOut): with --fleet every member through its own URL
// and admin_exec (--admin-exec is then refused: each member has its own), else the one
// server at `client` through resolveAdminAccess. Null with the reason when unusable.
// `memberTimeout`: the verb has --member-timeout (a watch that never ends has not).
std::unique_ptr<FleetFanOut> adminFanOut(const QCommandLineParser &parser,
    const ConnectionOptions &options, OpenTerminalClient *client, QString *error,
    bool memberTimeout = true);
// Runs the fan-out's job and waits for every member; a member that fails is printed on
// stderr as it ends. True when every member answered.
bool runOnEveryMember(
    FleetFanOut &fanOut, const std::function<void()> &start, const ConnectionOptions &options);
// {"name", "url", "ok", "error", "elapsed_ms"} per member, for --json of a fleet view.
QJsonArray membersJson(const FleetFanOut &fanOut);

// --since: "2026-11-29" (midnight UTC) or an ISO 8601 date and time (UTC unless it names an
// offset); invalid when it is neither.
QDateTime parseSince(const QString &text);

// Reading as a user (their sessions, a transcript, an export of one) is acting as them: one
// audit line (action "read-sessions", "read-session", "export-session"; target what was read),
// as `exec` keeps for commands. A warning when the log cannot be written.
void auditRead(const ConnectionOptions &options, const QString &action, const QString &target);

// Prints a listing failure (key masked) and returns serverErrorExitCode.
int listingFailed(const QString &error, const ConnectionOptions &options);

// Calls `handler` with the signal number in the event loop for every SIGINT and SIGTERM
// (the signal handler itself only writes to a pipe); SIGPIPE is ignored, so a closed stdout
// is reported by the write instead of killing the process with remote work running. Null
// when the pipe cannot be made.
std::unique_ptr<QSocketNotifier> onStopSignals(std::function<void(int)> handler);

// Whether the arguments name a server or a session (--server, --profile, --session, --user):
// replay and export then read a session instead of a file.
bool namesAServer(const QStringList &arguments);

} // namespace sandscope::cli
