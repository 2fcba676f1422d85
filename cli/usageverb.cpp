#include "usageverb.h"

#include "cli/clioutput.h"
#include "cli/connectionoptions.h"
#include "cli/verbsupport.h"
#include "fleet/fleetfanout.h"
#include "security/auditlog.h"
#include "server/openterminalclient.h"
#include "usage/usagecollector.h"
#include "util/format.h"
#include "util/terminalsafe.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QEventLoop>
#include <QJsonDocument>
#include <QLocale>

#include <cstdio>

namespace sandscope::cli {

const QString usageVerb = QStringLiteral("usage");

namespace {

enum ExitCode { Ok = 0 }; // usage errors: 2, server errors: 3 (clioutput, verbsupport)

constexpr int topTools = 10;

QString row(const QStringList &cells, const QList<int> &widths)
{
    QString line;
    for (int i = 0; i < cells.size(); ++i)
        line += (i < 2 ? cells.at(i).leftJustified(widths.at(i))
                       : cells.at(i).rightJustified(widths.at(i)))
            + QStringLiteral("  ");
    return line.trimmed() + QLatin1Char('\n');
}

QStringList dayCells(const UsageDay &day, const QString &user, const QString &when)
{
    const QLocale c = QLocale::c();
    return {TerminalSafe::line(user), when, c.toString(day.sessions), c.toString(day.turns),
        c.toString(day.toolCalls), c.toString(day.errors), c.toString(day.inputTokens),
        c.toString(day.outputTokens), c.toString(day.cacheReadTokens),
        c.toString(day.cacheCreationTokens), QStringLiteral("$%1").arg(day.costUsd, 0, 'f', 4)};
}

QString reportText(const UsageReport &report)
{
    // A fleet's rows start with their member.
    const bool members = report.hasMembers();
    QList<int> widths {20, 10, 8, 6, 6, 6, 11, 10, 12, 12, 10};
    if (members)
        widths.prepend(16);
    const auto cellsOf = [members](const UsageDay &day, const QString &user, const QString &when) {
        QStringList cells = dayCells(day, user, when);
        if (members)
            cells.prepend(TerminalSafe::line(day.member));
        return cells;
    };
    QStringList header {QStringLiteral("USER"), QStringLiteral("DAY (UTC)"),
        QStringLiteral("SESSIONS"), QStringLiteral("TURNS"), QStringLiteral("TOOLS"),
        QStringLiteral("ERRORS"), QStringLiteral("INPUT"), QStringLiteral("OUTPUT"),
        QStringLiteral("CACHE READ"), QStringLiteral("CACHE WRITE"), QStringLiteral("COST")};
    if (members)
        header.prepend(QStringLiteral("MEMBER"));
    QString text = row(header, widths);
    for (const UsageDay &day : report.days)
        text += row(cellsOf(day, day.user, day.day.toString(Qt::ISODate)), widths);
    if (report.days.isEmpty())
        text += QStringLiteral("(no usage in the transcripts)\n");
    else
        text += row(cellsOf(report.total(), QStringLiteral("TOTAL"), QString()), widths);
    if (!report.tools.isEmpty()) {
        text += QStringLiteral("\nTOP TOOLS          CALLS  FAILED  TOTAL TIME  AVERAGE\n");
        for (int i = 0; i < std::min<int>(topTools, int(report.tools.size())); ++i) {
            const ToolUsage &tool = report.tools.at(i);
            text += TerminalSafe::line(tool.name).leftJustified(16) + QStringLiteral("  ")
                + QString::number(tool.calls).rightJustified(6) + QStringLiteral("  ")
                + QString::number(tool.errors).rightJustified(6) + QStringLiteral("  ")
                + format::duration(tool.totalMs).rightJustified(10) + QStringLiteral("  ")
                + (tool.timedCalls > 0 ? format::duration(tool.totalMs / tool.timedCalls)
                                       : QStringLiteral("-"))
                      .rightJustified(7)
                + QLatin1Char('\n');
        }
    }
    return text;
}

} // namespace

int runUsage(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Adds up the user's Claude Code transcripts on the server (sessions and sub-agents,\n"
        "whoever started them) per UTC day: sessions active, turns (typed prompts), tool\n"
        "calls, errors (failed tool calls and API errors), input, output and cache tokens\n"
        "(each API response once) and cost (the growth of each session's cumulative\n"
        "cost-state that day), then the tools called most with their time. Damaged lines are\n"
        "skipped and listed on stderr."));
    const QCommandLineOption sinceOption(QStringLiteral("since"),
        QStringLiteral("Only days from DATE on (2026-11-29 or ISO 8601, UTC)."),
        QStringLiteral("DATE"));
    const QCommandLineOption jsonOption(
        QStringLiteral("json"), QStringLiteral("Print one JSON object."));
    const QCommandLineOption csvOption(QStringLiteral("csv"),
        QStringLiteral("Print CSV: a header row, then one row per user and day."));
    const QCommandLineOption csvToolsOption(QStringLiteral("csv-tools"),
        QStringLiteral("Print CSV of the tools instead: a header row, then one row per tool, "
                       "most calls first (calls, errors, timed calls, total and mean ms)."));
    const QCommandLineOption allUsers(QStringLiteral("all-users"),
        QStringLiteral("Every user's usage (every home under /home), as root in the sandbox: "
                       "through --admin-exec or the profile's admin command, else the server's "
                       "own account. Audited. Rows are named as the Usage tab names them: the "
                       "acting user (--user or the profile's) by its user id, the other homes "
                       "by their account."));
    parser.addOptions({sinceOption, jsonOption, csvOption, csvToolsOption, allUsers,
        adminExecOption(), memberTimeoutOption()});
    const QString usage
        = QStringLiteral("usage (--server URL | --fleet FILE) (--user ID | --all-users [--user ID] "
                         "[--admin-exec PREFIX] [--member-timeout SECONDS]) [--since DATE] "
                         "[--json | --csv | --csv-tools]");
    ConnectionOptions options;
    const int parsed = parseVerbArguments(parser, usageVerb, arguments, usage, options);
    if (parsed >= 0)
        return parsed;
    if (!parser.positionalArguments().isEmpty())
        return usageError(QStringLiteral("usage takes no arguments"), usageVerb);
    const bool everyone = parser.isSet(allUsers);
    if (!everyone && options.userId.isEmpty())
        return usageError(
            QStringLiteral("usage needs --user ID (the sandbox user) or --all-users"), usageVerb);
    if (!everyone && parser.isSet(QStringLiteral("admin-exec")))
        return usageError(QStringLiteral("--admin-exec belongs to --all-users"), usageVerb);
    if (int(parser.isSet(jsonOption)) + int(parser.isSet(csvOption))
            + int(parser.isSet(csvToolsOption))
        > 1)
        return usageError(
            QStringLiteral("--json, --csv and --csv-tools exclude each other"), usageVerb);
    OpenTerminalClient client(options.connection);
    std::unique_ptr<FleetFanOut> fanOut;
    if (everyone) {
        QString adminError;
        fanOut = adminFanOut(parser, options, &client, &adminError);
        if (!fanOut)
            return usageError(adminError, usageVerb);
    }
    const bool fleet = fanOut && fanOut->isFleet();
    QDate since;
    if (parser.isSet(sinceOption)) {
        since = parseSince(parser.value(sinceOption)).date();
        if (!since.isValid())
            return usageError(
                QStringLiteral("--since \"%1\" is not a date (2026-11-29 or ISO 8601)")
                    .arg(parser.value(sinceOption)),
                usageVerb);
    }

    UsageCollector collector;
    QEventLoop loop;
    bool ok = false;
    UsageReport report;
    QString why;
    QObject::connect(&collector, &UsageCollector::finished, &loop, [&](const UsageReport &found) {
        ok = true;
        report = found;
        loop.quit();
    });
    QObject::connect(&collector, &UsageCollector::failed, &loop, [&](const QString &error) {
        why = fleet ? error : serverMessage(error, options);
        loop.quit();
    });
    if (everyone) {
        // Reading every user's transcripts as root is audited, like acting as a user.
        const QString how = fleet ? QCoreApplication::translate("usage", "on %n fleet member(s)",
                                nullptr, int(fanOut->targets().size()))
                                  : fanOut->targets().constFirst().admin.describe();
        printError(QStringLiteral("Reading every home's usage %1").arg(how));
        AuditLog log;
        if (!log.append({options.profileName, options.serverText(), QString(),
                QStringLiteral("usage-all-users"), how, QStringLiteral("started")}))
            printError(QStringLiteral("warning: could not write the audit log %1").arg(log.path()));
        if (fleet)
            collector.collectAllUsers(fanOut.get(), since);
        else
            collector.collectAllUsers(&client, fanOut->targets().constFirst().admin, since);
    } else {
        Identity identity;
        identity.userId = options.userId;
        collector.collect(&client, identity, since);
    }
    loop.exec();
    if (!ok)
        return listingFailed(why, options);
    // A member left out is named, the others' figures are shown, and the exit status says
    // they are not complete.
    const bool complete = !fleet || collector.memberErrors().isEmpty();
    if (fleet)
        for (const QString &error : collector.memberErrors())
            printError(error);
    // The acting user by its id, the other homes by account, as the Usage tab does
    // (UsagePage::showReport). The server's account prefix is found from the names themselves.
    if (everyone && !options.userId.isEmpty())
        report.nameUsers({options.userId}, QString());
    for (const QString &skipped : std::as_const(report.skipped))
        printError(QStringLiteral("skipped: ") + skipped);
    if (parser.isSet(jsonOption)) {
        QJsonObject json = report.toJson();
        json.insert(QStringLiteral("user"), everyone ? QJsonValue() : QJsonValue(options.userId));
        json.insert(QStringLiteral("all_users"), everyone);
        json.insert(QStringLiteral("since"),
            since.isValid() ? QJsonValue(since.toString(Qt::ISODate)) : QJsonValue());
        if (fleet) {
            json.insert(QStringLiteral("members"), membersJson(*fanOut));
            json.insert(QStringLiteral("complete"), complete);
        }
        writeBytes(stdout, QJsonDocument(json).toJson(QJsonDocument::Indented));
    } else if (parser.isSet(csvOption)) {
        writeBytes(stdout, report.toCsv());
    } else if (parser.isSet(csvToolsOption)) {
        writeBytes(stdout, report.toolsCsv());
    } else {
        writeTerminalText(stdout, reportText(report));
    }
    return complete ? Ok : serverErrorExitCode;
}

QString usageVerbSummary()
{
    return QStringLiteral(
        "  usage         Sessions, turns, tool calls, tokens and cost per user and day\n");
}

} // namespace sandscope::cli
