#include "probeverb.h"

#include "cli/clioutput.h"
#include "cli/connectionoptions.h"
#include "cli/verbsupport.h"
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

// Runs the probe, printing each result as it is judged, then the totals or the JSON report,
// and saves the report to reportFile when one is given.
int probeAndReport(const ConnectionOptions &options, const ProbeOptions &probeOptions, bool json,
    const QString &reportFile)
{
    QString why;
    OpenTerminalClient client(options.connection);
    IsolationProbe probe(&client);
    QEventLoop loop;
    ProbeReport report;
    QObject::connect(&probe, &IsolationProbe::resultReady, &loop, [json](const CheckResult &r) {
        if (!json)
            writeTerminalText(stdout, resultLine(r));
    });
    QObject::connect(&probe, &IsolationProbe::finished, &loop, [&](const ProbeReport &finished) {
        report = finished;
        loop.exit();
    });
    if (!probe.start(probeOptions, &why))
        return usageError(why, probeVerb);

    // Acting as many user ids (and reserved ones) is privileged: keep a record.
    AuditLog log;
    if (!log.append(AuditEntry {options.profileName, options.serverText(),
            probeOptions.users.join(QLatin1Char(',')), probeVerb, QString(),
            QStringLiteral("started")}))
        printError(QStringLiteral("warning: could not write the audit log %1").arg(log.path()));

    loop.exec();

    if (json) {
        writeText(stdout,
            QString::fromUtf8(ProbeReportFile::contents(report, ProbeReportFile::Format::Json)));
    } else {
        writeTerminalText(stdout,
            QStringLiteral("\n%1 PASS, %2 FAIL, %3 INFO, %4 ERROR (server %5, version %6)\n")
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
        "Exit codes: 0 no FAIL and no ERROR; 1 at least one FAIL; 2 no FAIL but at least\n"
        "one ERROR, or a usage error.\n"
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
    const QCommandLineOption adminOption = adminExecOption();
    parser.addOptions({usersOption, jsonOption, reportOption, compareOption, adminOption});

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
    if (!parser.isSet(usersOption))
        return usageError(QStringLiteral("probe needs --users A,B"), probeVerb);
    if (!options.resolve(parser, &why))
        return usageError(why, probeVerb);
    if (options.hasFleet)
        // Through the router the users may live on different members, where each other's
        // files are simply not there: a refusal would prove nothing, yet read as a PASS.
        return usageError(
            QStringLiteral("probe does not take --fleet yet: through the router users on "
                           "different members cannot reach each other's files because they "
                           "are not there, which proves nothing about isolation; probe each "
                           "member with --server URL (its own URL) and users living on it "
                           "(`sandscope fleet status --users` says who lives where)"),
            probeVerb);

    ProbeOptions probeOptions;
    for (const QString &user : parser.value(usersOption).split(QLatin1Char(',')))
        probeOptions.users << user.trimmed();
    if (parser.isSet(adminOption) || !options.profileAdminCommand.isEmpty()) {
        if (!resolveAdminAccess(parser, options, &probeOptions.admin, &why))
            return usageError(why, probeVerb);
        probeOptions.hasAdmin = true;
    }

    return probeAndReport(options, probeOptions, parser.isSet(jsonOption),
        parser.isSet(reportOption) ? parser.value(reportOption) : QString());
}

} // namespace sandscope::cli
