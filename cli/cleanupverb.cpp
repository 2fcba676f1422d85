#include "cleanupverb.h"

#include "cleanup/cleanupmodel.h"
#include "cleanup/cleanuprunner.h"
#include "cli/clioutput.h"
#include "cli/connectionoptions.h"
#include "cli/verbsupport.h"
#include "security/secretredactor.h"
#include "util/format.h"
#include "util/terminalsafe.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QEventLoop>

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
    AdminAccess admin;
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
        "Exit codes: 0 ok, 1 error, 2 usage error, 3 server error, 4 some planned items were\n"
        "skipped (changed since the plan), refused or failed."));
    parser.addOptions({chatTtl, sessionTtl, script, shippedScript, homeRoot, json, savePlan,
        execute, plan, yes, adminExec});
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
    QString adminError;
    if (!resolveAdminAccess(parser, cleanup->options, &cleanup->admin, &adminError))
        return usageError(adminError, cleanupVerb);
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

// Runs the script (a dry run, or the reviewed plan's deletions) and prints what it reports.
int runCleanupScript(const CleanupArguments &cleanup, const CleanupPlan &reviewed)
{
    SecretRedactor redactor;
    redactor.addSecret(cleanup.options.connection.apiKey);
    OpenTerminalClient client(cleanup.options.connection);
    CleanupRunner runner(&client);
    runner.setSettings(cleanup.settings);
    runner.setAdminAccess(cleanup.admin);
    // Which way root is reached is always said (stderr: stdout stays the plan).
    printError(QStringLiteral("Running %1 %2")
                   .arg(cleanup.settings.script == CleanupSettings::Script::Shipped
                           ? QStringLiteral("the shipped cleanup.sh")
                           : cleanup.settings.scriptPath,
                       cleanup.admin.describe()));
    runner.setAuditContext(cleanup.options.profileName, cleanup.options.serverText());
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
        printError(cleanup.options.serverText() + QStringLiteral(": ") + redactor.redact(message));
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
    return runCleanupScript(cleanup, reviewed);
}

} // namespace sandscope::cli
