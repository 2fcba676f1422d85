#include "cleanupverb.h"

#include "cleanup/cleanupmodel.h"
#include "cleanup/cleanuprunner.h"
#include "cli/clioutput.h"
#include "cli/connectionoptions.h"
#include "cli/verbsupport.h"
#include "fleet/fleetcleanup.h"
#include "security/secretredactor.h"
#include "util/format.h"
#include "util/terminalsafe.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QEventLoop>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

namespace sandscope::cli {

const QString cleanupVerb = QStringLiteral("cleanup");

namespace {

enum ExitCode { Ok = 0, Error = 1, UsageError = 2, ServerError = 3, ItemsNotDeleted = 4 };

QString itemText(const CleanupItem &item)
{
    QString text = QStringLiteral("%1 %2 %3 %4 %5 %6")
                       .arg(CleanupItem::actionName(item.action), -6)
                       .arg(CleanupItem::kindName(item.kind), -7)
                       .arg(TerminalSafe::line(item.user), -16)
                       .arg(format::byteSize(item.bytes), 10)
                       .arg(QStringLiteral("%1 d").arg(item.ageDays), 7)
                       .arg(TerminalSafe::line(item.path));
    if (!item.outcome.isEmpty()) {
        text += QStringLiteral("\n       -> ") + TerminalSafe::line(item.outcome);
        if (!item.message.isEmpty())
            text += QStringLiteral(": ") + TerminalSafe::line(item.message);
    } else {
        text += QStringLiteral("\n       ") + TerminalSafe::line(item.reason);
    }
    return text + QLatin1Char('\n');
}

QString totalsText(const CleanupPlan &plan)
{
    const int deletions = int(plan.itemsWith(CleanupItem::Action::Delete).size());
    QString text = QCoreApplication::translate(
        "cleanup", "%n item(s); %1 to delete, %2\n", nullptr, int(plan.items().size()))
                       .arg(deletions)
                       .arg(format::byteSize(plan.totalBytes(CleanupItem::Action::Delete)));
    const QHash<QString, int> outcomes = plan.outcomeCounts();
    if (!outcomes.isEmpty()) {
        QStringList parts;
        for (const char *outcome :
            {"deleted", "would-delete", "skipped-changed", "refused", "failed"}) {
            const int count = outcomes.value(QLatin1String(outcome));
            if (count > 0)
                parts << QStringLiteral("%1 %2").arg(count).arg(QLatin1String(outcome));
        }
        text += QStringLiteral("Outcomes: ") + parts.join(QStringLiteral(", ")) + QLatin1Char('\n');
    }
    return text;
}

bool parseDays(const QString &text, int *days)
{
    bool ok = false;
    const int value = text.toInt(&ok);
    if (!ok || value < 0 || value > 999999)
        return false;
    *days = value;
    return true;
}

// What `cleanup` was asked to do, checked.
struct CleanupArguments {
    ConnectionOptions options;
    AdminAccess admin; // one server's
    QString member; // a fleet: --member, the one member to execute on (or dry-run only)
    int memberTimeoutMs = 0;
    CleanupSettings settings;
    bool executing = false;
    bool json = false;
    QString planPath; // --execute: the reviewed plan
    QString savePlanPath; // a dry run: where to save its plan
    bool savePlan = false;
};

// The options of `cleanup`, with its help.
struct CleanupCommandLine {
    CleanupCommandLine();

    QCommandLineParser parser;
    const QCommandLineOption chatTtl {QStringLiteral("chat-ttl"),
        QStringLiteral("Chat folders idle longer than DAYS are deleted (default 30)."),
        QStringLiteral("DAYS"), QStringLiteral("30")};
    const QCommandLineOption sessionTtl {QStringLiteral("session-ttl"),
        QStringLiteral("Claude sessions idle longer than DAYS are deleted (default 90)."),
        QStringLiteral("DAYS"), QStringLiteral("90")};
    const QCommandLineOption script {QStringLiteral("script"),
        QStringLiteral("Path of the cleanup script on the server (default /opt/cleanup.sh)."),
        QStringLiteral("PATH"), QStringLiteral("/opt/cleanup.sh")};
    const QCommandLineOption shippedScript {QStringLiteral("shipped-script"),
        QStringLiteral("Run the cleanup.sh this Sandscope ships instead of the sandbox's (for a\n"
                       "sandbox without one, e.g. a local open-terminal).")};
    const QCommandLineOption homeRoot {QStringLiteral("home-root"),
        QStringLiteral("Folder holding the homes on the server (default: the script's, /home)."),
        QStringLiteral("DIR")};
    const QCommandLineOption json {
        QStringLiteral("json"), QStringLiteral("Print the script's JSON lines unchanged.")};
    const QCommandLineOption savePlan {QStringLiteral("save-plan"),
        QStringLiteral("Save the dry run's JSON lines to FILE for review."),
        QStringLiteral("FILE")};
    const QCommandLineOption execute {QStringLiteral("execute"),
        QStringLiteral("Delete the delete items of the reviewed --plan (needs --yes).")};
    const QCommandLineOption plan {QStringLiteral("plan"),
        QStringLiteral("The reviewed plan (JSON lines of a dry run) to execute."),
        QStringLiteral("FILE")};
    const QCommandLineOption yes {
        QStringLiteral("yes"), QStringLiteral("Confirm that --execute may delete.")};
    const QCommandLineOption adminExec = adminExecOption();
    const QCommandLineOption member {QStringLiteral("member"),
        QStringLiteral("With --fleet: only this member (required with --execute: each member's\n"
                       "plan is reviewed and executed on that member alone)."),
        QStringLiteral("NAME")};
    const QCommandLineOption memberTimeout = memberTimeoutOption();
};

CleanupCommandLine::CleanupCommandLine()
{
    parser.setApplicationDescription(QStringLiteral(
        "Runs the sandbox cleanup script on the server as the server's own account (through\n"
        "'sudo -n' when that is not root). Without --execute it is a dry run: it lists every\n"
        "chat folder and Claude session with its size, age and what would happen to it.\n"
        "Review the plan saved with --save-plan (delete the lines of items to keep), then\n"
        "run --execute --plan FILE --yes: only items unchanged since the plan are deleted.\n"
        "The script is the sandbox's /opt/cleanup.sh (--script), or with --shipped-script\n"
        "the copy this Sandscope ships; which one ran, with its SHA-256, is always said.\n"
        "On a fleet (--fleet FILE) the dry run runs on every member at once, each member's\n"
        "plan printed as it is made (--save-plan DIR saves DIR/<member>.plan.jsonl), and a\n"
        "plan is executed on its own member: --member NAME --execute --plan FILE --yes.\n"
        "Exit codes: 0 ok, 1 error, 2 usage error, 3 server error, 4 some planned items were\n"
        "skipped (changed since the plan), refused or failed."));
    parser.addOptions({chatTtl, sessionTtl, script, shippedScript, homeRoot, json, savePlan,
        execute, plan, yes, adminExec, member, memberTimeout});
}

// --execute, --plan, --yes and --save-plan together. Returns -1 to go on, else the exit code.
int checkMode(const CleanupCommandLine &line, CleanupArguments *cleanup)
{
    const QCommandLineParser &parser = line.parser;
    cleanup->executing = parser.isSet(line.execute);
    if (cleanup->executing && !parser.isSet(line.plan))
        return usageError(QStringLiteral("--execute needs the reviewed --plan FILE"), cleanupVerb);
    if (cleanup->executing && !parser.isSet(line.yes))
        return usageError(
            QStringLiteral(
                "--execute deletes files for good: review the plan, then confirm with --yes"),
            cleanupVerb);
    if (!cleanup->executing && (parser.isSet(line.plan) || parser.isSet(line.yes)))
        return usageError(QStringLiteral("--plan and --yes belong to --execute"), cleanupVerb);
    if (cleanup->executing && parser.isSet(line.savePlan))
        return usageError(QStringLiteral("--save-plan is for dry runs"), cleanupVerb);
    cleanup->planPath = parser.value(line.plan);
    cleanup->savePlan = parser.isSet(line.savePlan);
    cleanup->savePlanPath = parser.value(line.savePlan);
    cleanup->json = parser.isSet(line.json);
    return -1;
}

// Returns -1 to go on, else the exit code (0 after --help).
int parseCleanupArguments(const QStringList &arguments, CleanupArguments *cleanup)
{
    CleanupCommandLine line;
    const QCommandLineParser &parser = line.parser;
    if (const int parsed = parseVerbArguments(line.parser, cleanupVerb, arguments,
            QStringLiteral("cleanup --server URL [options]"), cleanup->options);
        parsed >= 0)
        return parsed;
    if (!parser.positionalArguments().isEmpty())
        return usageError(QStringLiteral("cleanup takes no arguments, got \"%1\"")
                              .arg(parser.positionalArguments().join(QLatin1Char(' '))),
            cleanupVerb);
    if (parser.isSet(QStringLiteral("user")))
        return usageError(QStringLiteral("cleanup runs as root in the sandbox (it reads every "
                                         "home); --user is not used"),
            cleanupVerb);
    if (cleanup->options.hasFleet) {
        if (parser.isSet(line.adminExec))
            return usageError(QStringLiteral("with --fleet each member's admin command is its "
                                             "admin_exec in the fleet file; --admin-exec does "
                                             "not apply"),
                cleanupVerb);
        cleanup->member = parser.value(line.member);
        if (parser.isSet(line.member) && !cleanup->options.fleet.member(cleanup->member))
            return usageError(
                QStringLiteral("the fleet has no member \"%1\" (it has %2)")
                    .arg(cleanup->member,
                        cleanup->options.fleet.memberNames().join(QStringLiteral(", "))),
                cleanupVerb);
        if (parser.isSet(line.execute) && !parser.isSet(line.member))
            return usageError(QStringLiteral("on a fleet a reviewed plan is executed on the "
                                             "member it was made on: add --member NAME"),
                cleanupVerb);
        bool ok = false;
        const double seconds = parser.value(line.memberTimeout).toDouble(&ok);
        if (!ok || seconds < 0 || seconds > 86400)
            return usageError(
                QStringLiteral("--member-timeout needs seconds between 0 and 86400"), cleanupVerb);
        cleanup->memberTimeoutMs = int(seconds * 1000);
    } else {
        if (parser.isSet(line.member))
            return usageError(QStringLiteral("--member belongs to --fleet"), cleanupVerb);
        QString adminError;
        if (!resolveAdminAccess(parser, cleanup->options, &cleanup->admin, &adminError))
            return usageError(adminError, cleanupVerb);
    }
    CleanupSettings &settings = cleanup->settings;
    if (!parseDays(parser.value(line.chatTtl), &settings.chatTtlDays))
        return usageError(QStringLiteral("--chat-ttl needs a whole number of days"), cleanupVerb);
    if (!parseDays(parser.value(line.sessionTtl), &settings.sessionTtlDays))
        return usageError(
            QStringLiteral("--session-ttl needs a whole number of days"), cleanupVerb);
    if (parser.isSet(line.script) && parser.isSet(line.shippedScript))
        return usageError(
            QStringLiteral("--script names the sandbox's script; --shipped-script runs ours"),
            cleanupVerb);
    settings.scriptPath = parser.value(line.script);
    if (parser.isSet(line.shippedScript))
        settings.script = CleanupSettings::Script::Shipped;
    settings.homeRoot = parser.value(line.homeRoot);
    return checkMode(line, cleanup);
}

// The reviewed plan of --execute, refused when a line is invalid or nothing is to be deleted.
bool loadReviewedPlan(const QString &path, CleanupPlan *reviewed)
{
    QString why;
    if (!CleanupPlan::load(path, reviewed, &why)) {
        printError(why);
        return false;
    }
    if (!reviewed->problems().isEmpty()) {
        const CleanupLineProblem &first = reviewed->problems().constFirst();
        printError(QStringLiteral("%1 is not a valid plan, nothing was deleted: line %2: %3")
                       .arg(path)
                       .arg(first.lineNumber)
                       .arg(first.why));
        return false;
    }
    if (reviewed->itemsWith(CleanupItem::Action::Delete).isEmpty()) {
        printError(QStringLiteral("%1 has nothing to delete").arg(path));
        return false;
    }
    return true;
}

// The script's exit status as the verb's, with the dry run's plan saved when asked.
int finishedExitCode(const CleanupArguments &cleanup, const CleanupPlan &result, int scriptExit)
{
    int exitCode = Error;
    if (scriptExit == 0)
        exitCode = Ok;
    else if (scriptExit == 4)
        exitCode = ItemsNotDeleted;
    else
        printError(QStringLiteral("the cleanup script exited with status %1").arg(scriptExit));
    if (exitCode == Ok && cleanup.savePlan) {
        QString saveError;
        if (!result.save(cleanup.savePlanPath, &saveError)) {
            printError(saveError);
            exitCode = Error;
        }
    }
    return exitCode;
}

QString scriptName(const CleanupSettings &settings)
{
    return settings.script == CleanupSettings::Script::Shipped
        ? QStringLiteral("the shipped cleanup.sh")
        : settings.scriptPath;
}

// Runs the script (a dry run, or the reviewed plan's deletions) with `runner` on `where` (the
// server, or a fleet's member) and prints what it reports.
int runCleanupScript(const CleanupArguments &cleanup, const CleanupPlan &reviewed,
    CleanupRunner &runner, const QString &where)
{
    SecretRedactor redactor;
    redactor.addSecret(cleanup.options.connection.apiKey);
    // Which way root is reached is always said (stderr: stdout stays the plan).
    printError(QStringLiteral("Running %1 %2")
                   .arg(scriptName(cleanup.settings), runner.adminAccess().describe()));
    runner.setAuditContext(cleanup.options.profileName, where);
    const bool asJson = cleanup.json;
    QEventLoop loop;
    int exitCode = Error;
    QObject::connect(&runner, &CleanupRunner::itemReceived, &loop, [&](const CleanupItem &item) {
        writeBytes(stdout, asJson ? item.line + '\n' : itemText(item).toUtf8());
    });
    // Which script ran is part of the report (stderr with --json, whose stdout is the plan).
    QObject::connect(&runner, &CleanupRunner::scriptIdentified, &loop, [&] {
        const QString line = QStringLiteral("Script: %1\n").arg(runner.scriptRan().description());
        if (asJson)
            printError(line.trimmed());
        else
            writeBytes(stdout, line.toUtf8());
    });
    QObject::connect(&runner, &CleanupRunner::messageReceived, &loop,
        [&](const QString &line) { printError(redactor.redact(line)); });
    QObject::connect(&runner, &CleanupRunner::finished, &loop, [&](int scriptExit) {
        const CleanupPlan &result = runner.result();
        if (asJson && result.summary().present)
            writeBytes(stdout, result.summary().line + '\n');
        else if (!asJson)
            writeBytes(stdout, totalsText(result).toUtf8());
        exitCode = finishedExitCode(cleanup, result, scriptExit);
        loop.exit();
    });
    QObject::connect(&runner, &CleanupRunner::failed, &loop, [&](const QString &message) {
        printError(where + QStringLiteral(": ") + redactor.redact(message));
        exitCode = ServerError;
        loop.exit();
    });
    if (cleanup.executing)
        runner.startExecute(reviewed);
    else
        runner.startDryRun();
    loop.exec();
    return exitCode;
}

// The dry run on every member of a fleet at once: each member's plan printed (and saved to
// DIR/<member>.plan.jsonl with --save-plan DIR) as that member finishes; a member that fails
// is named while the others are shown (exit 3).
int runFleetDryRun(const CleanupArguments &cleanup, FleetCleanup &fleet)
{
    SecretRedactor redactor;
    redactor.addSecret(cleanup.options.connection.apiKey);
    if (cleanup.savePlan && !QDir().mkpath(cleanup.savePlanPath)) {
        printError(
            QStringLiteral("cannot make the folder %1 for the plans").arg(cleanup.savePlanPath));
        return Error;
    }
    printError(QCoreApplication::translate("cleanup",
        "Running %1 on %n member(s), each through its admin command", nullptr,
        int(cleanup.options.fleet.members.size()))
                   .arg(scriptName(cleanup.settings)));
    QEventLoop loop;
    int exitCode = Ok;
    QObject::connect(
        &fleet, &FleetCleanup::memberPlanned, &loop, [&](const MemberCleanupPlan &planned) {
            for (const QString &message : planned.messages)
                printError(
                    QStringLiteral("member %1: %2").arg(planned.member, redactor.redact(message)));
            if (planned.scriptExitCode != 0)
                return; // named by memberFailed
            if (cleanup.json) {
                QByteArray lines;
                for (const CleanupItem &item : planned.plan.items()) {
                    QJsonObject object = QJsonDocument::fromJson(item.line).object();
                    object.insert(QStringLiteral("member"), planned.member);
                    lines += QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n';
                }
                writeBytes(stdout, lines);
            } else {
                QString text
                    = QStringLiteral("== member %1: %2\n")
                          .arg(TerminalSafe::line(planned.member), planned.scriptRan.description());
                for (const CleanupItem &item : planned.plan.items())
                    text += itemText(item);
                writeBytes(stdout, (text + totalsText(planned.plan)).toUtf8());
            }
            if (cleanup.savePlan) {
                QString why;
                QString path;
                if (!FleetCleanup::savePlan(
                        cleanup.savePlanPath, planned.member, planned.plan, &path, &why)) {
                    printError(why);
                    exitCode = Error;
                } else {
                    printError(
                        QStringLiteral("member %1: plan saved to %2").arg(planned.member, path));
                }
            }
        });
    QObject::connect(&fleet, &FleetCleanup::memberFailed, &loop, [&](const QString &message) {
        printError(redactor.redact(message));
        if (exitCode == Ok)
            exitCode = ServerError;
    });
    QObject::connect(&fleet, &FleetCleanup::finished, &loop, &QEventLoop::quit);
    fleet.startDryRun();
    if (fleet.isRunning())
        loop.exec();
    return exitCode;
}

} // namespace

QString cleanupVerbSummary()
{
    return QStringLiteral(
        "  cleanup       List stale chats and Claude sessions of every user (dry run), or\n"
        "                delete the items of a reviewed plan (--execute --plan FILE --yes)\n");
}

int runCleanup(const QStringList &arguments)
{
    CleanupArguments cleanup;
    if (const int parsed = parseCleanupArguments(arguments, &cleanup); parsed >= 0)
        return parsed;
    CleanupPlan reviewed;
    if (cleanup.executing && !loadReviewedPlan(cleanup.planPath, &reviewed))
        return Error;
    if (cleanup.options.hasFleet) {
        FleetFanOut fanOut(cleanup.options.fleet, cleanup.options.connection);
        fanOut.setMemberTimeout(cleanup.memberTimeoutMs);
        FleetCleanup fleet(&fanOut, cleanup.settings);
        if (!cleanup.executing && cleanup.member.isEmpty())
            return runFleetDryRun(cleanup, fleet);
        const std::unique_ptr<CleanupRunner> runner = fleet.runnerFor(cleanup.member);
        return runCleanupScript(cleanup, reviewed, *runner, fleet.memberText(cleanup.member));
    }
    OpenTerminalClient client(cleanup.options.connection);
    CleanupRunner runner(&client);
    runner.setSettings(cleanup.settings);
    runner.setAdminAccess(cleanup.admin);
    return runCleanupScript(cleanup, reviewed, runner, cleanup.options.serverText());
}

} // namespace sandscope::cli
