#include "searchverb.h"

#include "cli/clioutput.h"
#include "cli/connectionoptions.h"
#include "cli/verbsupport.h"
#include "fleet/fleetfanout.h"
#include "server/openterminalclient.h"
#include "sessions/sessionsearch.h"
#include "util/shellquote.h"
#include "util/terminalsafe.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

namespace sandscope::cli {

const QString searchVerb = QStringLiteral("search");

namespace {

enum ExitCode { Hits = 0, NoHits = 1, UsageError = 2, ServerError = 3 };

const QString allUsersOption = QStringLiteral("all-users");

// The account a hit belongs to: the last part of the home in its path.
QString accountOf(const SessionSearchHit &hit)
{
    const qsizetype projects = hit.path.lastIndexOf(QLatin1String("/.claude/projects/"));
    const QString home = projects > 0 ? hit.path.left(projects) : QString();
    return home.mid(home.lastIndexOf(QLatin1Char('/')) + 1);
}

QJsonObject hitJson(const SessionSearchHit &hit)
{
    return QJsonObject {
        {QStringLiteral("account"), accountOf(hit)},
        {QStringLiteral("session_id"), hit.sessionId},
        {QStringLiteral("agent_id"), stringOrNull(hit.agentId)},
        {QStringLiteral("path"), hit.path},
        {QStringLiteral("line"), double(hit.line)},
        {QStringLiteral("uuid"), stringOrNull(hit.uuid)},
        {QStringLiteral("turn"), hit.turn},
        {QStringLiteral("tool_use_id"), stringOrNull(hit.toolUseId)},
        {QStringLiteral("tool_name"), stringOrNull(hit.toolName)},
        {QStringLiteral("record_type"), stringOrNull(hit.recordType)},
        {QStringLiteral("excerpt"), hit.excerpt},
    };
}

constexpr int memberWidth = 16;

// The columns: MEMBER on a fleet, ACCOUNT for every user.
QString hitsHeader(bool allUsers, bool fleet)
{
    return (fleet ? QStringLiteral("MEMBER").leftJustified(memberWidth) + QLatin1Char(' ')
                  : QString())
        + (allUsers ? QStringLiteral("ACCOUNT").leftJustified(20) + QLatin1Char(' ') : QString())
        + QStringLiteral("SESSION").leftJustified(36) + QLatin1Char(' ')
        + QStringLiteral("AGENT").leftJustified(17) + QStringLiteral("  TURN   LINE  ")
        + QStringLiteral("TYPE").leftJustified(10) + QLatin1Char(' ')
        + QStringLiteral("TOOL").leftJustified(12) + QStringLiteral("  EXCERPT\n");
}

QString hitRows(const QVector<SessionSearchHit> &hits, bool allUsers, bool fleet)
{
    const QString dash = QStringLiteral("-");
    QString text;
    for (const SessionSearchHit &hit : hits) {
        if (fleet)
            text += TerminalSafe::line(hit.member).leftJustified(memberWidth) + QLatin1Char(' ');
        if (allUsers)
            text += TerminalSafe::line(accountOf(hit)).leftJustified(20) + QLatin1Char(' ');
        text += TerminalSafe::line(hit.sessionId).leftJustified(36) + QLatin1Char(' ')
            + TerminalSafe::line(hit.agentId.isEmpty() ? dash : hit.agentId).leftJustified(17)
            + QStringLiteral("  ")
            + (hit.agentId.isEmpty() ? QString::number(hit.turn) : dash).rightJustified(4)
            + QLatin1Char(' ') + QString::number(hit.line).rightJustified(6) + QStringLiteral("  ")
            + TerminalSafe::line(hit.recordType.isEmpty() ? dash : hit.recordType).leftJustified(10)
            + QLatin1Char(' ')
            + TerminalSafe::line(hit.toolName.isEmpty() ? dash : hit.toolName).leftJustified(12)
            + QStringLiteral("  ") + TerminalSafe::line(hit.excerpt) + QLatin1Char('\n');
    }
    return text;
}

QString hitsFooter(const sessionsearch::Result &result, bool allUsers)
{
    QString text;
    if (result.hits.isEmpty())
        text += QStringLiteral("(no matching lines)\n");
    if (result.truncated)
        text += QStringLiteral("(only the first %1 matching lines%2; narrow the search with "
                               "--tool or --since)\n")
                    .arg(sessionsearch::maxHits)
                    .arg(allUsers ? QStringLiteral(" of some user") : QString());
    return text;
}

} // namespace

int runSearch(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Finds the lines of the user's Claude Code transcripts (every session on the server,\n"
        "sub-agents included) that contain QUERY, ignoring case, and prints each with its\n"
        "session, turn (prompts so far), line, record type, the tool call it belongs to and an\n"
        "excerpt of the raw JSON. QUERY is looked for the way the transcripts store text (JSON:\n"
        "quotes and backslashes escaped, other characters as they are), so `say \"hi\"` and\n"
        "paths with backslashes are found. Several words are searched as one text. At most\n"
        "%1 lines are shown. Exit code 0 with hits, 1 without. A transcript that is a link out\n"
        "of the user's home is not searched; it is named on stderr with its link and target.")
                                         .arg(sessionsearch::maxHits));
    const QCommandLineOption toolOption(QStringLiteral("tool"),
        QStringLiteral("Only lines of calls of this tool (its tool_use or tool_result)."),
        QStringLiteral("NAME"));
    const QCommandLineOption sinceOption(QStringLiteral("since"),
        QStringLiteral("Only transcripts written since DATE (2026-11-29 or ISO 8601, UTC)."),
        QStringLiteral("DATE"));
    const QCommandLineOption jsonOption(
        QStringLiteral("json"), QStringLiteral("Print one JSON object."));
    const QCommandLineOption allUsers(allUsersOption,
        QStringLiteral("Every user's transcripts (every home under /home, at most %1 lines "
                       "per user), as root in the sandbox: through --admin-exec or the "
                       "profile's admin command, else the server's own account.")
            .arg(sessionsearch::maxHits));
    parser.addOptions(
        {toolOption, sinceOption, jsonOption, allUsers, adminExecOption(), memberTimeoutOption()});
    parser.addPositionalArgument(
        QStringLiteral("query"), QStringLiteral("The text to look for."), QStringLiteral("QUERY"));
    const QString usage
        = QStringLiteral("search (--server URL | --fleet FILE) (--user ID | --all-users "
                         "[--admin-exec PREFIX] [--member-timeout SECONDS]) QUERY [--tool NAME] "
                         "[--since DATE] [--json]");
    ConnectionOptions options;
    const int parsed = parseVerbArguments(parser, searchVerb, arguments, usage, options);
    if (parsed >= 0)
        return parsed;
    const bool everyone = parser.isSet(allUsers);
    if (everyone && parser.isSet(QStringLiteral("user")))
        return usageError(QStringLiteral("--all-users and --user exclude each other"), searchVerb);
    if (!everyone && options.userId.isEmpty())
        return usageError(
            QStringLiteral("search needs --user ID (the sandbox user) or --all-users"), searchVerb);
    if (!everyone && parser.isSet(QStringLiteral("admin-exec")))
        return usageError(QStringLiteral("--admin-exec belongs to --all-users"), searchVerb);
    const QString query = parser.positionalArguments().join(QLatin1Char(' '));
    if (query.isEmpty())
        return usageError(QStringLiteral("search needs a QUERY"), searchVerb);
    auditRead(options, QStringLiteral("search-sessions"),
        (everyone ? QStringLiteral("every home: ") : QString()) + query);
    if (!shell::isPassable(query) || !shell::isPassable(parser.value(toolOption)))
        return usageError(
            QStringLiteral("QUERY and --tool cannot contain a NUL character"), searchVerb);
    sessionsearch::Options searchOptions;
    searchOptions.toolName = parser.value(toolOption);
    if (parser.isSet(toolOption) && searchOptions.toolName.isEmpty())
        return usageError(QStringLiteral("--tool needs a tool name"), searchVerb);
    if (parser.isSet(sinceOption)) {
        searchOptions.since = parseSince(parser.value(sinceOption));
        if (!searchOptions.since.isValid())
            return usageError(
                QStringLiteral("--since \"%1\" is not a date (2026-11-29 or ISO 8601)")
                    .arg(parser.value(sinceOption)),
                searchVerb);
    }

    OpenTerminalClient client(options.connection);
    std::unique_ptr<FleetFanOut> fanOut;
    if (everyone) {
        QString adminError;
        fanOut = adminFanOut(parser, options, &client, &adminError);
        if (!fanOut)
            return usageError(adminError, searchVerb);
    }
    const bool fleet = fanOut && fanOut->isFleet();
    const bool json = parser.isSet(jsonOption);
    bool ok = false;
    sessionsearch::Result result;
    if (everyone) {
        if (fleet)
            printError(QCoreApplication::translate("search", "Searching every home on %n member(s)",
                nullptr, int(fanOut->targets().size())));
        else
            printError(QStringLiteral("Searching every home %1")
                           .arg(fanOut->targets().constFirst().admin.describe()));
        // On a fleet each member's hits are printed as it answers.
        bool headerPrinted = false;
        ok = runOnEveryMember(
            *fanOut,
            [&] {
                sessionsearch::searchAllUsers(fanOut.get(), QStringLiteral("/home"), query,
                    searchOptions,
                    [&](const FanOutMemberResult &member, const sessionsearch::Result &found) {
                        for (const QString &refusal : found.refused)
                            printError(QStringLiteral("not searched: ") + refusal);
                        if (!member.ok)
                            return;
                        result.home = found.home;
                        result.hits += found.hits;
                        result.truncated = result.truncated || found.truncated;
                        if (!fleet || json)
                            return;
                        if (!headerPrinted)
                            writeTerminalText(stdout, hitsHeader(true, true));
                        headerPrinted = true;
                        writeTerminalText(stdout, hitRows(found.hits, true, true));
                    });
            },
            options);
        if (!ok && !fleet)
            return ServerError;
        if (fleet && !json) {
            if (!headerPrinted)
                writeTerminalText(stdout, hitsHeader(true, true));
            writeTerminalText(stdout, hitsFooter(result, true));
            return !ok ? ServerError : result.hits.isEmpty() ? NoHits : Hits;
        }
    } else {
        Identity identity;
        identity.userId = options.userId;
        QEventLoop loop;
        QString why;
        sessionsearch::search(&client, identity, query, searchOptions, &loop,
            [&](bool success, const sessionsearch::Result &found, const QString &error) {
                ok = success;
                result = found;
                why = serverMessage(error, options);
                loop.quit();
            });
        loop.exec();
        if (!ok)
            return listingFailed(why, options);
        for (const QString &refusal : std::as_const(result.refused))
            printError(QStringLiteral("not searched: ") + refusal);
    }

    if (json) {
        QJsonArray hits;
        for (const SessionSearchHit &hit : std::as_const(result.hits)) {
            QJsonObject object = hitJson(hit);
            if (fleet)
                object.insert(QStringLiteral("member"), hit.member);
            hits.append(object);
        }
        QJsonObject root {
            {QStringLiteral("user"), everyone ? QJsonValue() : QJsonValue(options.userId)},
            {QStringLiteral("all_users"), everyone},
            {QStringLiteral("home"), fleet ? QStringLiteral("/home") : result.home},
            {QStringLiteral("query"), query},
            {QStringLiteral("tool"), stringOrNull(searchOptions.toolName)},
            {QStringLiteral("since"), stringOrNull(isoTime(searchOptions.since))},
            {QStringLiteral("truncated"), result.truncated}, {QStringLiteral("hits"), hits}};
        if (fleet)
            root.insert(QStringLiteral("members"), membersJson(*fanOut));
        writeBytes(stdout, QJsonDocument(root).toJson(QJsonDocument::Indented));
    } else {
        writeTerminalText(stdout,
            hitsHeader(everyone, false) + hitRows(result.hits, everyone, false)
                + hitsFooter(result, everyone));
    }
    if (!ok)
        return ServerError;
    return result.hits.isEmpty() ? NoHits : Hits;
}

QString searchVerbSummary()
{
    return QStringLiteral(
        "  search        Find text in a user's Claude Code transcripts (session, turn, tool)\n");
}

} // namespace sandscope::cli
