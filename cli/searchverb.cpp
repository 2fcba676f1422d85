#include "searchverb.h"

#include "cli/clioutput.h"
#include "cli/connectionoptions.h"
#include "cli/verbsupport.h"
#include "server/openterminalclient.h"
#include "sessions/sessionsearch.h"
#include "util/shellquote.h"
#include "util/terminalsafe.h"

#include <QCommandLineParser>
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

QString hitsAsText(const sessionsearch::Result &result, bool allUsers)
{
    const QString dash = QStringLiteral("-");
    QString text
        = (allUsers ? QStringLiteral("ACCOUNT").leftJustified(20) + QLatin1Char(' ') : QString())
        + QStringLiteral("SESSION").leftJustified(36) + QLatin1Char(' ')
        + QStringLiteral("AGENT").leftJustified(17) + QStringLiteral("  TURN   LINE  ")
        + QStringLiteral("TYPE").leftJustified(10) + QLatin1Char(' ')
        + QStringLiteral("TOOL").leftJustified(12) + QStringLiteral("  EXCERPT\n");
    for (const SessionSearchHit &hit : result.hits) {
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
    parser.addOptions({toolOption, sinceOption, jsonOption, allUsers, adminExecOption()});
    parser.addPositionalArgument(
        QStringLiteral("query"), QStringLiteral("The text to look for."), QStringLiteral("QUERY"));
    const QString usage
        = QStringLiteral("search --server URL (--user ID | --all-users [--admin-exec PREFIX]) "
                         "QUERY [--tool NAME] [--since DATE] [--json]");
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
    AdminAccess admin;
    QString adminError;
    if (everyone && !resolveAdminAccess(parser, options, &admin, &adminError))
        return usageError(adminError, searchVerb);
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
    Identity identity;
    identity.userId = options.userId;
    QEventLoop loop;
    bool ok = false;
    sessionsearch::Result result;
    QString why;
    const auto done = [&](bool success, const sessionsearch::Result &found, const QString &error) {
        ok = success;
        result = found;
        why = serverMessage(error, options);
        loop.quit();
    };
    if (everyone) {
        printError(QStringLiteral("Searching every home %1").arg(admin.describe()));
        sessionsearch::searchAllUsers(
            &client, admin, QStringLiteral("/home"), query, searchOptions, &loop, done);
    } else {
        sessionsearch::search(&client, identity, query, searchOptions, &loop, done);
    }
    loop.exec();
    if (!ok)
        return listingFailed(why, options);
    for (const QString &refusal : std::as_const(result.refused))
        printError(QStringLiteral("not searched: ") + refusal);

    if (parser.isSet(jsonOption)) {
        QJsonArray hits;
        for (const SessionSearchHit &hit : std::as_const(result.hits))
            hits.append(hitJson(hit));
        const QJsonObject root {
            {QStringLiteral("user"), everyone ? QJsonValue() : QJsonValue(options.userId)},
            {QStringLiteral("all_users"), everyone}, {QStringLiteral("home"), result.home},
            {QStringLiteral("query"), query},
            {QStringLiteral("tool"), stringOrNull(searchOptions.toolName)},
            {QStringLiteral("since"), stringOrNull(isoTime(searchOptions.since))},
            {QStringLiteral("truncated"), result.truncated}, {QStringLiteral("hits"), hits}};
        writeBytes(stdout, QJsonDocument(root).toJson(QJsonDocument::Indented));
    } else {
        writeTerminalText(stdout, hitsAsText(result, everyone));
    }
    return result.hits.isEmpty() ? NoHits : Hits;
}

QString searchVerbSummary()
{
    return QStringLiteral(
        "  search        Find text in a user's Claude Code transcripts (session, turn, tool)\n");
}

} // namespace sandscope::cli
