#include "fleetverb.h"

#include "cli/clioutput.h"
#include "cli/connectionoptions.h"
#include "cli/verbsupport.h"
#include "fleet/fleetstatus.h"
#include "fleet/usermove.h"
#include "security/auditlog.h"
#include "server/accountnames.h"
#include "util/format.h"
#include "util/terminalsafe.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>

namespace sandscope::cli {

const QString fleetVerb = QStringLiteral("fleet");

QString fleetVerbSummary()
{
    return QStringLiteral(
        "  fleet        a fleet behind one router: status of every member, move a "
        "user's home\n");
}

namespace {

enum ExitCode { Ok = 0, Problems = 1, ServerError = 3 };

QString sizeOrUnknown(qint64 bytes)
{
    return bytes < 0 ? QStringLiteral("?") : format::byteSize(bytes);
}

QString memberLine(const FleetMemberStatus &member)
{
    if (member.state == FleetMemberStatus::State::Failed)
        return QStringLiteral("%1  DOWN  %2 (after %3)\n")
            .arg(TerminalSafe::line(member.name), TerminalSafe::line(member.error),
                format::duration(member.elapsedMs));
    return QStringLiteral("%1  up  open-terminal %2  %3 users  %4 agents  disk %5 used, %6 "
                          "free  (%7)\n")
        .arg(TerminalSafe::line(member.name), TerminalSafe::line(member.version))
        .arg(member.accounts.size())
        .arg(member.agents)
        .arg(sizeOrUnknown(member.diskUsed), sizeOrUnknown(member.diskFree),
            format::duration(member.elapsedMs));
}

QJsonObject memberJson(const FleetMemberStatus &member)
{
    QJsonArray users;
    for (const FleetAccount &account : member.accounts)
        users.append(QJsonObject {{QStringLiteral("user"), stringOrNull(account.userId)},
            {QStringLiteral("account"), account.account}, {QStringLiteral("home"), account.home}});
    const bool up = member.state == FleetMemberStatus::State::Answered;
    return {{QStringLiteral("member"), member.name}, {QStringLiteral("url"), member.url.toString()},
        {QStringLiteral("healthy"), up}, {QStringLiteral("error"), stringOrNull(member.error)},
        {QStringLiteral("version"), stringOrNull(member.version)},
        {QStringLiteral("users"), up ? QJsonValue(users) : QJsonValue()},
        {QStringLiteral("running_agents"), up ? QJsonValue(member.agents) : QJsonValue()},
        {QStringLiteral("disk_used_bytes"),
            up ? QJsonValue(double(member.diskUsed)) : QJsonValue()},
        {QStringLiteral("disk_free_bytes"),
            up ? QJsonValue(double(member.diskFree)) : QJsonValue()},
        {QStringLiteral("elapsed_ms"), double(member.elapsedMs)},
        {QStringLiteral("router_sends_to"),
            member.routeChecked ? QJsonValue(member.routedTo) : QJsonValue()}};
}

int runStatus(const ConnectionOptions &options, bool json, bool listUsers)
{
    FleetStatus status(options.fleet, options.connection.apiKey, options.connection.timeoutMs);
    QEventLoop loop;
    QObject::connect(
        &status, &FleetStatus::memberAnswered, &loop, [json](int, const FleetMemberStatus &member) {
            if (!json)
                writeText(stdout, memberLine(member)); // as soon as it answers
        });
    QObject::connect(&status, &FleetStatus::finished, &loop, &QEventLoop::quit);
    status.start();
    loop.exec();
    const FleetStatusReport &report = status.report();
    if (json) {
        QJsonArray members;
        for (const FleetMemberStatus &member : report.members)
            members.append(memberJson(member));
        QJsonObject users;
        for (auto it = report.users.cbegin(); it != report.users.cend(); ++it)
            users.insert(it.key(), QJsonArray::fromStringList(it.value()));
        QJsonArray anomalies;
        for (const FleetAnomaly &anomaly : report.anomalies)
            anomalies.append(QJsonObject {{QStringLiteral("kind"), anomaly.kind},
                {QStringLiteral("user"), stringOrNull(anomaly.user)},
                {QStringLiteral("members"), QJsonArray::fromStringList(anomaly.members)},
                {QStringLiteral("text"), anomaly.text}});
        writeBytes(stdout,
            QJsonDocument(
                QJsonObject {{QStringLiteral("router"), options.fleet.router.toString()},
                    {QStringLiteral("members"), members}, {QStringLiteral("users"), users},
                    {QStringLiteral("anomalies"), anomalies},
                    {QStringLiteral("not_known"), QJsonArray::fromStringList(report.notKnown)}})
                    .toJson(QJsonDocument::Compact)
                + '\n');
    } else {
        QString text;
        if (listUsers) {
            text += QStringLiteral("\nUsers:\n");
            for (auto it = report.users.cbegin(); it != report.users.cend(); ++it)
                text += QStringLiteral("  %1  %2\n")
                            .arg(TerminalSafe::line(it.key()),
                                TerminalSafe::line(it.value().join(QStringLiteral(", "))));
        } else {
            text += QCoreApplication::translate("fleet",
                "%n user(s) in all (--users lists where each lives)\n", nullptr,
                int(report.users.size()));
        }
        for (const FleetAnomaly &anomaly : report.anomalies)
            text += QStringLiteral("PROBLEM (%1): %2\n")
                        .arg(anomaly.kind, TerminalSafe::line(anomaly.text));
        for (const QString &unknown : report.notKnown)
            text += QStringLiteral("not known: %1\n").arg(TerminalSafe::line(unknown));
        if (report.anomalies.isEmpty() && !report.anyFailed())
            text += QStringLiteral("No problems found.\n");
        writeText(stdout, text);
    }
    if (report.anyFailed())
        return ServerError;
    return report.anomalies.isEmpty() ? Ok : Problems;
}

QString planText(const UserMovePlan &plan)
{
    QString text = QStringLiteral("Move %1 from %2 to %3\n")
                       .arg(TerminalSafe::line(plan.userId), TerminalSafe::line(plan.from.member),
                           TerminalSafe::line(plan.to.member));
    text += QStringLiteral("  from: account %1, home %2: %3 files, %4 (%5 entries)\n")
                .arg(TerminalSafe::line(plan.fromAccount.name),
                    TerminalSafe::line(plan.fromAccount.home))
                .arg(plan.files)
                .arg(format::byteSize(plan.bytes))
                .arg(plan.entries.size());
    text += plan.toAccount.exists
        ? QStringLiteral("  to:   account %1, home %2%3\n")
              .arg(TerminalSafe::line(plan.toAccount.name), TerminalSafe::line(plan.toAccount.home),
                  plan.conflicts > 0 ? QStringLiteral(" (%1 entries differ)").arg(plan.conflicts)
                                     : QString())
        : QStringLiteral("  to:   no account yet\n");
    for (const QString &warning : plan.warnings)
        text += QStringLiteral("  note: %1\n").arg(TerminalSafe::line(warning));
    for (const QString &blocker : plan.blockers)
        text += QStringLiteral("  CANNOT MOVE: %1\n").arg(TerminalSafe::line(blocker));
    return text;
}

QJsonObject planJson(const UserMovePlan &plan)
{
    return {{QStringLiteral("user"), plan.userId}, {QStringLiteral("from"), plan.from.member},
        {QStringLiteral("to"), plan.to.member},
        {QStringLiteral("from_account"), stringOrNull(plan.fromAccount.name)},
        {QStringLiteral("to_account"),
            plan.toAccount.exists ? QJsonValue(plan.toAccount.name) : QJsonValue()},
        {QStringLiteral("files"), plan.files}, {QStringLiteral("bytes"), double(plan.bytes)},
        {QStringLiteral("entries"), int(plan.entries.size())},
        {QStringLiteral("conflicts"), plan.conflicts},
        {QStringLiteral("warnings"), QJsonArray::fromStringList(plan.warnings)},
        {QStringLiteral("blockers"), QJsonArray::fromStringList(plan.blockers)}};
}

int runMove(const ConnectionOptions &options, const QString &fromName, const QString &toName,
    bool execute, const QString &reportPath, bool json)
{
    if (options.userId.isEmpty())
        return usageError(QStringLiteral("fleet move needs --user ID"), fleetVerb);
    const FleetMember *from = options.fleet.member(fromName);
    const FleetMember *to = options.fleet.member(toName);
    if (!from || !to || from == to)
        return usageError(QStringLiteral("fleet move needs --from and --to, two members of the "
                                         "fleet (%1)")
                              .arg(options.fleet.memberNames().join(QStringLiteral(", "))),
            fleetVerb);
    OpenTerminalClient fromClient(
        {from->url, options.connection.apiKey, options.connection.timeoutMs});
    OpenTerminalClient toClient({to->url, options.connection.apiKey, options.connection.timeoutMs});
    UserMove move(
        {from->name, &fromClient, from->admin}, {to->name, &toClient, to->admin}, options.userId);
    QEventLoop loop;
    int exitCode = Ok;
    QObject::connect(&move, &UserMove::planned, &loop, [&](const UserMovePlan &plan) {
        if (json)
            writeBytes(stdout,
                QJsonDocument(QJsonObject {{QStringLiteral("event"), QStringLiteral("plan")},
                                  {QStringLiteral("plan"), planJson(plan)}})
                        .toJson(QJsonDocument::Compact)
                    + '\n');
        else
            writeText(stdout, planText(plan));
        if (!execute) {
            exitCode = plan.ok() ? Ok : Problems;
            loop.quit();
        }
    });
    QObject::connect(
        &move, &UserMove::stepStarted, &loop, [json](UserMove::Step step, const QString &what) {
            if (!json)
                writeText(stdout,
                    QStringLiteral("%1: %2\n")
                        .arg(UserMove::stepName(step), TerminalSafe::line(what)));
        });
    QObject::connect(&move, &UserMove::finished, &loop, [&](bool ok, const QString &why) {
        if (json)
            writeBytes(stdout,
                QJsonDocument(QJsonObject {{QStringLiteral("event"), QStringLiteral("end")},
                                  {QStringLiteral("ok"), ok}, {QStringLiteral("text"), why},
                                  {QStringLiteral("report"), reportPath}})
                        .toJson(QJsonDocument::Compact)
                    + '\n');
        else
            writeText(stdout,
                (ok ? QStringLiteral("Moved: ") : QStringLiteral("NOT MOVED: "))
                    + TerminalSafe::line(why) + QStringLiteral("\nReport: ") + reportPath
                    + QLatin1Char('\n'));
        exitCode = ok ? Ok : Problems;
        loop.quit();
    });
    if (execute) {
        AuditLog log;
        if (!log.append(AuditEntry {options.profileName, options.fleet.router.toString(),
                options.userId, QStringLiteral("fleet-move"),
                QStringLiteral("%1 -> %2, report %3").arg(from->name, to->name, reportPath),
                QStringLiteral("starting")})) {
            // A move is recorded before it starts, as a cleanup is (CleanupRunner).
            printError(QStringLiteral("Not moved: the audit log %1 cannot be written, and a move "
                                      "is recorded there before it starts. Nothing was changed.")
                           .arg(log.path()));
            return Problems;
        }
        move.execute(reportPath);
    } else {
        move.plan();
    }
    loop.exec();
    return exitCode;
}

} // namespace

int runFleet(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "A fleet of open-terminal members behind one router (--fleet FILE).\n"
        "  status   every member asked in parallel, each shown as it answers: health,\n"
        "           version, users, running agents, disk of /home; then where each user\n"
        "           lives and what is wrong: a user with homes on two members, members on\n"
        "           different versions, a member the router sends no user to\n"
        "  move     a user's home from --from to --to: a dry run unless --execute. The move\n"
        "           makes the account on the new member, copies the home as the user,\n"
        "           verifies every entry, and only then removes the old home; what the new\n"
        "           home has stays (differing entries of the old one are set aside in it).\n"
        "           The report (--report, JSON lines) says each step before it runs.\n"
        "Exit codes: 0 all well; 1 problems found, a plan that cannot run or a failed move\n"
        "(the old home is kept); 2 usage error; 3 a member could not be reached."));
    const QCommandLineOption jsonOption(QStringLiteral("json"), QStringLiteral("Print JSON."));
    const QCommandLineOption usersOption(
        QStringLiteral("users"), QStringLiteral("status: list where each user lives."));
    const QCommandLineOption fromOption(QStringLiteral("from"),
        QStringLiteral("move: the member holding the home."), QStringLiteral("MEMBER"));
    const QCommandLineOption toOption(QStringLiteral("to"),
        QStringLiteral("move: the member to move it to."), QStringLiteral("MEMBER"));
    const QCommandLineOption executeOption(
        QStringLiteral("execute"), QStringLiteral("move: do it (without: the dry run)."));
    const QCommandLineOption reportOption(QStringLiteral("report"),
        QStringLiteral("move: the report file (default: fleet-move-<user>-<time>.jsonl in the "
                       "current folder)."),
        QStringLiteral("FILE"));
    for (const QCommandLineOption &option :
        {jsonOption, usersOption, fromOption, toOption, executeOption, reportOption})
        parser.addOption(option);
    parser.addPositionalArgument(QStringLiteral("operation"), QStringLiteral("status or move"),
        QStringLiteral("<status|move>"));
    ConnectionOptions options;
    const int parsed = parseVerbArguments(parser, fleetVerb, arguments,
        QStringLiteral("fleet <status|move> --fleet FILE [options]"), options);
    if (parsed >= 0)
        return parsed;
    const QStringList args = parser.positionalArguments();
    if (args.size() != 1
        || (args.first() != QLatin1String("status") && args.first() != QLatin1String("move")))
        return usageError(QStringLiteral("fleet needs one operation: status or move"), fleetVerb);
    if (!options.hasFleet)
        return usageError(QStringLiteral("fleet needs --fleet FILE"), fleetVerb);
    const bool json = parser.isSet(jsonOption);
    if (args.first() == QLatin1String("status"))
        return runStatus(options, json, parser.isSet(usersOption));
    const QString report = parser.isSet(reportOption)
        ? parser.value(reportOption)
        : QDir::current().filePath(
            QStringLiteral("fleet-move-%1-%2.jsonl")
                .arg(options.userId,
                    QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss"))));
    return runMove(options, parser.value(fromOption), parser.value(toOption),
        parser.isSet(executeOption), report, json);
}

} // namespace sandscope::cli
