#include "claude/claudecommand.h"
#include "cli/clioutput.h"
#include "cli/connectionoptions.h"
#include "cli/verbsupport.h"
#include "fleet/fleetfanout.h"
#include "runverbs.h"
#include "server/openterminalclient.h"
#include "sessions/sessiondiscovery.h"
#include "sessions/sessionstore.h"
#include "util/format.h"
#include "util/terminalsafe.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QEventLoop>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>

#include <algorithm>
#include <cstdio>

namespace sandscope::cli {

const QString sessionsVerb = QStringLiteral("sessions");

namespace {

enum ExitCode { Ok = 0, Error = 1, UsageError = 2, ServerError = 3 };

// A session as recorded here, found on the server, or both.
struct SessionRow {
    QString sessionId;
    QDateTime lastActivity;
    bool local = false;
    bool onServer = false;
    QString forkedFrom;
    QString runId;
    DiscoveredSession found; // its details when onServer
};

using Sessions = QMap<QString, SessionRow>; // by session id

void addFound(Sessions &sessions, const DiscoveredSession &found)
{
    SessionRow &row = sessions[found.sessionId];
    row.sessionId = found.sessionId;
    row.onServer = true;
    row.found = found;
    if (!row.lastActivity.isValid() || found.lastActivity > row.lastActivity)
        row.lastActivity = found.lastActivity;
}

QVector<SessionRow> newestFirst(const Sessions &sessions)
{
    QVector<SessionRow> list(sessions.cbegin(), sessions.cend());
    std::stable_sort(list.begin(), list.end(),
        [](const SessionRow &a, const SessionRow &b) { return a.lastActivity > b.lastActivity; });
    return list;
}

QJsonValue serverValue(const SessionRow &row, const QJsonValue &value)
{
    return row.onServer ? value : QJsonValue();
}

QJsonObject sessionJson(const SessionRow &row)
{
    const DiscoveredSession &found = row.found;
    return QJsonObject {
        {QStringLiteral("session_id"), row.sessionId},
        {QStringLiteral("last_activity"), stringOrNull(isoTime(row.lastActivity))},
        {QStringLiteral("local"), row.local},
        {QStringLiteral("on_server"), row.onServer},
        {QStringLiteral("path"), stringOrNull(found.path)},
        {QStringLiteral("size"), serverValue(row, double(found.size))},
        {QStringLiteral("forked_from"), stringOrNull(row.forkedFrom)},
        {QStringLiteral("run_id"), stringOrNull(row.runId)},
        {QStringLiteral("cwd"), stringOrNull(found.cwd)},
        {QStringLiteral("title"), stringOrNull(found.title)},
        {QStringLiteral("started"), stringOrNull(isoTime(found.started))},
        {QStringLiteral("turns"), serverValue(row, found.turns)},
        {QStringLiteral("tool_calls"), serverValue(row, found.toolCalls)},
        {QStringLiteral("model"), stringOrNull(found.model)},
        {QStringLiteral("cost_usd"), found.hasCost ? QJsonValue(found.costUsd) : QJsonValue()},
        {QStringLiteral("running"), serverValue(row, found.running)},
    };
}

// The home directory as "~", so that other working directories stay short.
QString shortPath(const QString &path, const QString &home)
{
    if (!home.isEmpty() && (path == home || path.startsWith(home + QLatin1Char('/'))))
        return QLatin1Char('~') + path.mid(home.size());
    return path;
}

QString tableHeader(const QString &first)
{
    return first.leftJustified(24) + QLatin1Char(' ') + QStringLiteral("SESSION").leftJustified(36)
        + QStringLiteral("  ") + QStringLiteral("LAST ACTIVITY (UTC)").leftJustified(20)
        + QStringLiteral("  TURNS  TOOLS       SIZE      COST  WHERE                 TITLE\n");
}

QString tableRow(const QString &first, const SessionRow &row)
{
    const DiscoveredSession &found = row.found;
    QStringList where;
    if (row.local)
        where << QStringLiteral("local");
    if (row.onServer)
        where << QStringLiteral("server");
    QString whereText = where.join(QLatin1Char('+'));
    if (found.running)
        whereText += QStringLiteral(" running");
    const QString dash = QStringLiteral("-");
    QString line = TerminalSafe::line(first).leftJustified(24) + QLatin1Char(' ')
        + TerminalSafe::line(row.sessionId).leftJustified(36) + QStringLiteral("  ")
        + isoTime(row.lastActivity).leftJustified(20) + QStringLiteral("  ")
        + (row.onServer ? QString::number(found.turns) : dash).rightJustified(5)
        + QStringLiteral("  ")
        + (row.onServer ? QString::number(found.toolCalls) : dash).rightJustified(5)
        + QStringLiteral("  ")
        + (row.onServer ? format::byteSize(found.size) : dash).rightJustified(9)
        + QStringLiteral("  ")
        + (found.hasCost ? QStringLiteral("$%1").arg(found.costUsd, 0, 'f', 4) : dash)
              .rightJustified(8)
        + QStringLiteral("  ") + whereText.leftJustified(20) + QStringLiteral("  ")
        + firstLine(found.title, 60);
    if (!row.forkedFrom.isEmpty())
        line += QStringLiteral(" (fork of %1)").arg(TerminalSafe::line(row.forkedFrom));
    return line.trimmed() + QLatin1Char('\n');
}

// A session found on the server only.
SessionRow serverRow(const DiscoveredSession &session)
{
    SessionRow row;
    row.sessionId = session.sessionId;
    row.onServer = true;
    row.found = session;
    row.lastActivity = session.lastActivity;
    return row;
}

QString accountOf(const DiscoveredSession &session)
{
    return session.home.mid(session.home.lastIndexOf(QLatin1Char('/')) + 1);
}

// One item of sessions --all-users --json.
QJsonObject allUsersSessionJson(const DiscoveredSession &session)
{
    QJsonObject object = sessionJson(serverRow(session));
    object.insert(QStringLiteral("account"), accountOf(session));
    object.insert(QStringLiteral("home"), session.home);
    object.insert(QStringLiteral("chat"), stringOrNull(session.chatId));
    if (!session.member.isEmpty())
        object.insert(QStringLiteral("member"), session.member);
    return object;
}

constexpr int memberWidth = 16;

// sessions --all-users: what the agents of every user are doing, newest first. On a fleet,
// every member at once (FleetFanOut): each member's rows are printed as it answers, with a
// MEMBER column, and a member that fails is named on stderr while the others are shown
// (exit 3); --json merges them newest first and lists the members with their errors.
int printAllUsersSessions(const ConnectionOptions &options, FleetFanOut &fanOut, bool json)
{
    const bool fleet = fanOut.isFleet();
    if (fleet)
        printError(
            QCoreApplication::translate("sessions", "Listing every home's sessions on %n member(s)",
                nullptr, int(fanOut.targets().size())));
    else
        printError(QStringLiteral("Listing every home's sessions %1")
                       .arg(fanOut.targets().constFirst().admin.describe()));
    // A fleet's rows are printed batch by batch as each member's script lists them; one
    // server's table comes whole, newest first. --json keeps each member's sessions and shows
    // those of the members that answered in full.
    QHash<QString, QVector<DiscoveredSession>> byMember;
    bool headerPrinted = false;
    const auto printHeader = [&] {
        if (json || headerPrinted)
            return;
        headerPrinted = true;
        writeTerminalText(stdout,
            (fleet ? QStringLiteral("MEMBER").leftJustified(memberWidth) + QLatin1Char(' ')
                   : QString())
                + QStringLiteral("ACCOUNT").leftJustified(20) + QLatin1Char(' ')
                + tableHeader(QStringLiteral("CHAT OR DIRECTORY")));
    };
    const auto rowsText = [fleet](const QVector<DiscoveredSession> &rows) {
        QString text;
        for (const DiscoveredSession &session : rows) {
            if (fleet)
                text += TerminalSafe::line(session.member).leftJustified(memberWidth)
                    + QLatin1Char(' ');
            text += TerminalSafe::line(accountOf(session)).leftJustified(20) + QLatin1Char(' ')
                + tableRow(session.chatId.isEmpty() ? shortPath(session.cwd, session.home)
                                                    : QStringLiteral("chat ") + session.chatId,
                    serverRow(session));
        }
        return text;
    };
    QVector<DiscoveredSession> sessions;
    const bool ok = runOnEveryMember(
        fanOut,
        [&] {
            sessiondiscovery::discoverAllUsers(
                &fanOut, QStringLiteral("/home"),
                [&](const QString &member, const QVector<DiscoveredSession> &batch) {
                    byMember[member] += batch;
                    if (json || !fleet)
                        return;
                    printHeader();
                    writeTerminalText(stdout, rowsText(batch));
                },
                [&](const FanOutMemberResult &result, const QVector<DiscoveredSession> &,
                    const QStringList &refused) {
                    for (const QString &refusal : refused)
                        printError(QStringLiteral("not listed: ") + refusal);
                    const QVector<DiscoveredSession> listed = byMember.take(result.member);
                    if (result.ok)
                        sessions += listed;
                    else if (fleet && !listed.isEmpty() && !json)
                        printError(QStringLiteral("member %1: the rows shown for it above may not "
                                                  "be all")
                                       .arg(result.member));
                });
        },
        options);
    std::stable_sort(sessions.begin(), sessions.end(),
        [](const DiscoveredSession &a, const DiscoveredSession &b) {
            return a.lastActivity > b.lastActivity;
        });
    if (json) {
        QJsonArray array;
        for (const DiscoveredSession &session : std::as_const(sessions))
            array.append(allUsersSessionJson(session));
        QJsonObject root {{QStringLiteral("all_users"), true},
            {QStringLiteral("homes_root"), QStringLiteral("/home")},
            {QStringLiteral("sessions"), array}};
        if (fleet)
            root.insert(QStringLiteral("members"), membersJson(fanOut));
        if (ok || fleet)
            writeBytes(stdout, QJsonDocument(root).toJson(QJsonDocument::Indented));
    } else if (ok || fleet) {
        printHeader();
        if (!fleet)
            writeTerminalText(stdout, rowsText(sessions));
        if (sessions.isEmpty())
            writeTerminalText(stdout,
                fanOut.failedCount() > 0
                    ? QStringLiteral("(no sessions in any home that answered)\n")
                    : QStringLiteral("(no sessions in any home)\n"));
    }
    return ok ? Ok : serverErrorExitCode;
}

} // namespace

int runSessions(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Lists the user's Claude Code sessions, whoever started them (Open WebUI, sandscope, a\n"
        "shell): the transcripts found on the server (~/.claude/projects/<escaped working\n"
        "directory>/<session>.jsonl) with their first prompt, turns, tool calls (sub-agents\n"
        "included), size, model, cost and whether they are running now (written within the\n"
        "last 30 s), merged with the sessions sandscope recorded on this machine. Sessions in\n"
        "chat directories are listed per chat; the first session of a chat is the one\n"
        "`sandscope run --resume` continues. The others follow with their working directory.\n"
        "A transcript or folder that is a link out of the user's home is not read; it is named\n"
        "on stderr with its link and target."));
    const QCommandLineOption chatOption(
        QStringLiteral("chat"), QStringLiteral("Only this chat."), QStringLiteral("ID"));
    const QCommandLineOption jsonOption(
        QStringLiteral("json"), QStringLiteral("Print one JSON object."));
    const QCommandLineOption allUsersOption(QStringLiteral("all-users"),
        QStringLiteral("Every user's sessions (every home under /home), newest first, as root in "
                       "the sandbox: through --admin-exec or the profile's admin command, else "
                       "the server's own account."));
    parser.addOptions(
        {chatOption, jsonOption, allUsersOption, adminExecOption(), memberTimeoutOption()});
    ConnectionOptions options;
    const QString usage
        = QStringLiteral("sessions (--server URL | --fleet FILE) (--user ID [--chat ID] | "
                         "--all-users [--admin-exec PREFIX] [--member-timeout SECONDS]) [--json]");
    if (arguments.contains(QStringLiteral("--all-users"))) {
        const int parsed = parseVerbArguments(parser, sessionsVerb, arguments, usage, options);
        if (parsed >= 0)
            return parsed;
        if (parser.isSet(QStringLiteral("user")) || parser.isSet(chatOption))
            return usageError(
                QStringLiteral("--all-users lists every user: --user and --chat do not apply"),
                sessionsVerb);
        OpenTerminalClient client(options.connection);
        QString why;
        const std::unique_ptr<FleetFanOut> fanOut = adminFanOut(parser, options, &client, &why);
        if (!fanOut)
            return usageError(why, sessionsVerb);
        auditRead(options, QStringLiteral("read-sessions"),
            options.hasFleet ? QStringLiteral("every home of every member")
                             : QStringLiteral("every home"));
        return printAllUsersSessions(options, *fanOut, parser.isSet(jsonOption));
    }
    const int parsed = parseUserVerbArguments(parser, sessionsVerb, arguments, usage, options);
    if (parsed >= 0)
        return parsed;
    if (parser.isSet(QStringLiteral("admin-exec")))
        return usageError(QStringLiteral("--admin-exec belongs to --all-users"), sessionsVerb);
    QString why;
    const QString chatId = parser.value(chatOption);
    if (parser.isSet(chatOption) && !claudecommand::isValidChatId(chatId, &why))
        return usageError(
            QStringLiteral("--chat \"%1\" refused: %2").arg(chatId, why), sessionsVerb);
    auditRead(options, QStringLiteral("read-sessions"),
        chatId.isEmpty() ? QStringLiteral("~") : QStringLiteral("~/chat-") + chatId);

    OpenTerminalClient client(options.connection);
    sessiondiscovery::Listing listing;
    if (!listAsUser(&sessiondiscovery::discover, client, options, &listing, &why))
        return listingFailed(why, options);
    for (const QString &refusal : std::as_const(listing.refused))
        printError(QStringLiteral("not listed: ") + refusal);

    // chat → sessions, merged from both sources by session id; then the sessions of other
    // working directories (never recorded here: sandscope runs only in chats)
    QMap<QString, Sessions> chats;
    Sessions others;
    for (const SessionRecord &record : SessionStore().sessions(sessionScopeOf(options), chatId)) {
        SessionRow &row = chats[record.chatId][record.sessionId];
        row.sessionId = record.sessionId;
        row.lastActivity = record.lastActivity;
        row.local = true;
        row.forkedFrom = record.forkedFrom;
        row.runId = record.runId;
    }
    const QVector<DiscoveredSession> found = chatId.isEmpty()
        ? sessiondiscovery::allSessions(listing)
        : sessiondiscovery::chatSessions(listing, chatId);
    for (const DiscoveredSession &session : found)
        addFound(session.chatId.isEmpty() ? others : chats[session.chatId], session);

    if (parser.isSet(jsonOption)) {
        QJsonArray chatArray;
        for (auto chat = chats.cbegin(); chat != chats.cend(); ++chat) {
            QJsonArray sessionArray;
            const QVector<SessionRow> rows = newestFirst(chat.value());
            for (const SessionRow &row : rows)
                sessionArray.append(sessionJson(row));
            chatArray.append(QJsonObject {{QStringLiteral("chat"), chat.key()},
                {QStringLiteral("last_activity"),
                    stringOrNull(isoTime(rows.constFirst().lastActivity))},
                {QStringLiteral("sessions"), sessionArray}});
        }
        QJsonArray otherArray;
        for (const SessionRow &row : newestFirst(others))
            otherArray.append(sessionJson(row));
        const QJsonObject root {{QStringLiteral("user"), options.userId},
            {QStringLiteral("home"), listing.home}, {QStringLiteral("chats"), chatArray},
            {QStringLiteral("other_sessions"), otherArray}};
        writeBytes(stdout, QJsonDocument(root).toJson(QJsonDocument::Indented));
        return Ok;
    }

    QString text = tableHeader(QStringLiteral("CHAT"));
    for (auto chat = chats.cbegin(); chat != chats.cend(); ++chat) {
        for (const SessionRow &row : newestFirst(chat.value()))
            text += tableRow(chat.key(), row);
    }
    if (chats.isEmpty())
        text += QStringLiteral("(no chat sessions)\n");
    if (!others.isEmpty()) {
        text += QLatin1Char('\n') + tableHeader(QStringLiteral("WORKING DIRECTORY"));
        for (const SessionRow &row : newestFirst(others))
            text += tableRow(row.found.cwd.isEmpty() ? QStringLiteral("(unknown)")
                                                     : shortPath(row.found.cwd, listing.home),
                row);
    }
    writeTerminalText(stdout, text);
    return Ok;
}

} // namespace sandscope::cli
