#include "probeverb.h"

#include "cli/clioutput.h"
#include "cli/connectionoptions.h"
#include "cli/verbsupport.h"
#include "fleet/fleetfanout.h"
#include "fleet/fleetprobe.h"
#include "isolation/isolationprobe.h"
#include "probereport/probereportfile.h"
#include "security/auditlog.h"
#include "server/openterminalclient.h"
#include "util/terminalsafe.h"

#include <QCommandLineParser>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>
#include <functional>
#include <memory>

namespace sandscope::cli {

const QString probeVerb = QStringLiteral("probe");

namespace {

enum ExitCode { Clean = 0, Failed = 1, NotProven = 2, UsageError = 2 };

QString resultLine(const CheckResult &result)
{
    return QStringLiteral("%1 %2 %3 %4\n")
        .arg(verdictName(result.verdict), -5)
        .arg(checkInfo(result.check).key, -18)
        .arg(result.subject(), -24)
        .arg(result.explanation);
}

} // namespace

QString probeVerbSummary()
{
    return QStringLiteral(
        "  probe         Show what each of several users can reach of the others' files,\n"
        "                processes and sessions (isolation probe; exit 1 on FAIL, 2 on ERROR)\n");
}

// `probe --compare BEFORE AFTER`: the cells whose verdict changed between two saved reports.
int compareReports(const QStringList &paths, bool json)
{
    ProbeReport before;
    ProbeReport after;
    QString why;
    if (!ProbeReportFile::read(paths.at(0), &before, &why)
        || !ProbeReportFile::read(paths.at(1), &after, &why)) {
        printError(why);
        return UsageError;
    }
    const QVector<ReportDifference> differences = ProbeReport::compare(before, after);
    if (json) {
        QJsonArray cells;
        for (const ReportDifference &difference : differences) {
            cells.append(QJsonObject {{QStringLiteral("check"), checkInfo(difference.check).key},
                {QStringLiteral("subject"), difference.subject},
                {QStringLiteral("before"),
                    difference.inBefore ? QJsonValue(verdictName(difference.before))
                                        : QJsonValue()},
                {QStringLiteral("after"),
                    difference.inAfter ? QJsonValue(verdictName(difference.after)) : QJsonValue()},
                {QStringLiteral("change"), difference.change()}});
        }
        const auto side = [](const ProbeReport &report) {
            return QJsonObject {{QStringLiteral("server"), report.server},
                {QStringLiteral("server_version"), report.serverVersion},
                {QStringLiteral("started_at"), report.startedAt.toString(Qt::ISODate)}};
        };
        writeBytes(stdout,
            QJsonDocument(
                QJsonObject {{QStringLiteral("before"), side(before)},
                    {QStringLiteral("after"), side(after)}, {QStringLiteral("differences"), cells}})
                .toJson(QJsonDocument::Indented));
    } else {
        writeTerminalText(stdout,
            QStringLiteral("before: %1 (open-terminal %2)\nafter:  %3 (open-terminal %4)\n")
                .arg(before.server, before.serverVersion, after.server, after.serverVersion));
        for (const ReportDifference &difference : differences)
            writeTerminalText(stdout,
                TerminalSafe::line(difference.describe())
                    + QStringLiteral(" (%1)\n").arg(difference.change()));
        if (differences.isEmpty())
            writeText(stdout, QStringLiteral("no cell changed\n"));
    }
    return differences.isEmpty() ? Clean : Failed;
}

namespace {

// Runs `probe` (IsolationProbe, or FleetProbe on a fleet) started by `start`, printing each
// result as it is judged, then the totals or the JSON report, and saves the report to
// reportFile when one is given.
template <typename Probe>
int probeAndReport(const ConnectionOptions &options, Probe &probe,
    const std::function<bool(QString *)> &start, const QString &audited, bool json,
    const QString &reportFile)
{
    QString why;
    QEventLoop loop;
    ProbeReport report;
    QObject::connect(&probe, &Probe::resultReady, &loop, [json](const CheckResult &r) {
        if (!json)
            writeTerminalText(stdout, resultLine(r));
    });
    QObject::connect(&probe, &Probe::finished, &loop, [&](const ProbeReport &finished) {
        report = finished;
        loop.exit();
    });
    if (!start(&why))
        return usageError(why, probeVerb);

    // Acting as many user ids (and reserved ones) is privileged: keep a record.
    AuditLog log;
    if (!log.append(AuditEntry {options.profileName, options.serverText(), audited, probeVerb,
            QString(), QStringLiteral("started")}))
        printError(QStringLiteral("warning: could not write the audit log %1").arg(log.path()));

    loop.exec();

    if (json) {
        writeText(stdout,
            QString::fromUtf8(ProbeReportFile::contents(report, ProbeReportFile::Format::Json)));
    } else {
        QString fleet;
        for (auto it = report.userMembers.cbegin(); it != report.userMembers.cend(); ++it)
            fleet += QStringLiteral("member %1: %2\n").arg(it.value(), it.key());
        for (const QString &line : std::as_const(report.notProbed))
            fleet += QStringLiteral("not probed: %1\n").arg(line);
        for (const QString &line : std::as_const(report.leftBehind))
            fleet += QStringLiteral("may be left behind: %1\n").arg(line);
        writeTerminalText(stdout,
            QStringLiteral("\n%1%2 PASS, %3 FAIL, %4 INFO, %5 ERROR (server %6, version %7)\n")
                .arg(fleet)
                .arg(report.count(Verdict::Pass))
                .arg(report.count(Verdict::Fail))
                .arg(report.count(Verdict::Info))
                .arg(report.count(Verdict::Error))
                .arg(report.server,
                    report.serverVersion.isEmpty() ? QStringLiteral("unknown")
                                                   : report.serverVersion));
    }
    if (!reportFile.isEmpty()
        && !ProbeReportFile::write(
            reportFile, report, ProbeReportFile::formatFor(reportFile), &why))
        printError(why);
    return report.exitCode();
}

} // namespace

int runProbe(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Probes the isolation of a multi-user open-terminal server. For every ordered pair\n"
        "of the given user ids, the first user creates fresh random markers (files in its\n"
        "home and a chat folder, a running process, a session) and the second user tries\n"
        "to reach them through the API and its shell; then the account mapping is checked\n"
        "(ids sharing their first eight letters and digits, reserved ids such as root, and\n"
        "requests without a user id). Everything the probe created is removed afterwards;\n"
        "the accounts the server provisions for the ids stay.\n"
        "With --admin-exec (or the profile's admin command) root also creates a file only\n"
        "root reads, and the first user tries to read it by its path and through a\n"
        "symlink (files.read.root, files.read.root-symlink); without it both are INFO,\n"
        "not run.\n"
        "PASS: denied as expected. FAIL: reachable. INFO: an observation. ERROR: the check\n"
        "could not run (never counted as PASS).\n"
        "With --fleet FILE, each member is probed through its own URL and admin command\n"
        "with the users the router sends there (found first: each user's account and home\n"
        "through the router, then which member holds that home); a user alone on its member\n"
        "is listed as not probed. --fresh-users N makes N ids per member instead and\n"
        "removes their accounts afterwards.\n"
        "Exit codes: 0 no FAIL and no ERROR; 1 at least one FAIL; 2 no FAIL but at least\n"
        "one ERROR or a user not probed, or a usage error.\n"
        "With --compare BEFORE.json AFTER.json no server is contacted: the cells whose\n"
        "verdict changed between the two saved reports are listed (exit 0: none, 1: some)."));
    const QCommandLineOption usersOption(QStringLiteral("users"),
        QStringLiteral("Comma-separated user ids to probe (at least two)."),
        QStringLiteral("A,B[,C...]"));
    const QCommandLineOption jsonOption(
        QStringLiteral("json"), QStringLiteral("Print the report as one JSON object."));
    const QCommandLineOption reportOption(QStringLiteral("report"),
        QStringLiteral("Also save the report to FILE (JSON when it ends in .json, HTML for "
                       ".html, else Markdown), led by the scorecard."),
        QStringLiteral("FILE"));
    const QCommandLineOption compareOption(QStringLiteral("compare"),
        QStringLiteral("Compare two saved JSON reports given as arguments instead of probing."));
    const QCommandLineOption freshOption(QStringLiteral("fresh-users"),
        QStringLiteral("On a fleet: probe N fresh ids (2 to 4) on every member instead of "
                       "--users: made through the router until each member holds N, removed "
                       "afterwards."),
        QStringLiteral("N"));
    const QCommandLineOption checksOption(QStringLiteral("checks"),
        QStringLiteral("Only these checks, by their keys as reports name them (files.read, "
                       "account.case, ...)."),
        QStringLiteral("KEY[,KEY...]"));
    const QCommandLineOption adminOption = adminExecOption();
    parser.addOptions({usersOption, jsonOption, reportOption, compareOption, freshOption,
        checksOption, adminOption});

    QString why;
    if (containsRefusedApiKeyOption(arguments, &why)) {
        printError(why);
        return UsageError;
    }
    const QCommandLineOption helpOption = parser.addHelpOption();
    ConnectionOptions options;
    options.addTo(parser);
    if (!parser.parse(QStringList {QStringLiteral("sandscope")} + arguments))
        return usageError(parser.errorText(), probeVerb);
    if (parser.isSet(helpOption)) {
        QString help = parser.helpText();
        help.replace(0, help.indexOf(QLatin1Char('\n')),
            QStringLiteral("Usage: sandscope probe --server URL --users A,B[,C...] [options]"));
        writeText(stdout, help + QLatin1Char('\n') + ConnectionOptions::keySourcesHelp());
        return Clean;
    }
    if (parser.isSet(compareOption)) {
        if (parser.positionalArguments().size() != 2)
            return usageError(
                QStringLiteral("--compare needs two report files: BEFORE.json AFTER.json"),
                probeVerb);
        return compareReports(parser.positionalArguments(), parser.isSet(jsonOption));
    }
    if (!parser.positionalArguments().isEmpty())
        return usageError(QStringLiteral("probe takes no arguments, got \"%1\"")
                              .arg(parser.positionalArguments().join(QLatin1Char(' '))),
            probeVerb);
    if (parser.isSet(QStringLiteral("user")))
        return usageError(
            QStringLiteral("probe acts as each of --users; --user is not used"), probeVerb);
    const bool fresh = parser.isSet(freshOption);
    if (parser.isSet(usersOption) == fresh)
        return usageError(fresh ? QStringLiteral("give --users or --fresh-users, not both")
                                : QStringLiteral("probe needs --users A,B"),
            probeVerb);
    if (!options.resolve(parser, &why))
        return usageError(why, probeVerb);
    if (fresh && !options.hasFleet)
        return usageError(QStringLiteral("--fresh-users is for a fleet (--fleet FILE): on one "
                                         "server give --users"),
            probeVerb);

    ProbeOptions probeOptions;
    if (parser.isSet(checksOption)) {
        for (const QString &key : parser.value(checksOption).split(QLatin1Char(','))) {
            CheckId check;
            if (!checkFromKey(key.trimmed(), &check))
                return usageError(QStringLiteral("unknown check \"%1\" (the keys are those "
                                                 "of a report's \"check\" field)")
                                      .arg(key.trimmed()),
                    probeVerb);
            if (checkInfo(check).acrossMembers && !options.hasFleet)
                return usageError(QStringLiteral("\"%1\" is a check across members of a fleet "
                                                 "(--fleet FILE)")
                                      .arg(key.trimmed()),
                    probeVerb);
            probeOptions.onlyChecks << check;
        }
    }
    if (!fresh) {
        for (const QString &user : parser.value(usersOption).split(QLatin1Char(',')))
            probeOptions.users << user.trimmed();
    }
    const bool json = parser.isSet(jsonOption);
    const QString reportFile = parser.isSet(reportOption) ? parser.value(reportOption) : QString();
    OpenTerminalClient client(options.connection);

    if (options.hasFleet) {
        // Each member is probed through its own URL and admin command, with the users the router
        // sends there (app/fleet/fleetprobe.h).
        std::unique_ptr<FleetFanOut> fanOut
            = adminFanOut(parser, options, &client, &why, /*memberTimeout=*/false);
        if (!fanOut)
            return usageError(why, probeVerb);
        bool ok = true;
        const int perMember = fresh ? parser.value(freshOption).toInt(&ok) : 0;
        if (!ok)
            return usageError(QStringLiteral("--fresh-users needs a number, got \"%1\"")
                                  .arg(parser.value(freshOption)),
                probeVerb);
        FleetProbe probe(&client, fanOut.get());
        return probeAndReport<FleetProbe>(
            options, probe,
            [&](QString *error) { return probe.start(probeOptions, perMember, error); },
            fresh ? QStringLiteral("%1 fresh users per member").arg(perMember)
                  : probeOptions.users.join(QLatin1Char(',')),
            json, reportFile);
    }

    if (parser.isSet(adminOption) || !options.profileAdminCommand.isEmpty()) {
        if (!resolveAdminAccess(parser, options, &probeOptions.admin, &why))
            return usageError(why, probeVerb);
        probeOptions.hasAdmin = true;
    }
    IsolationProbe probe(&client);
    return probeAndReport<IsolationProbe>(
        options, probe, [&](QString *error) { return probe.start(probeOptions, error); },
        probeOptions.users.join(QLatin1Char(',')), json, reportFile);
}

} // namespace sandscope::cli
