#include "verbsupport.h"

#include "cli/clioutput.h"
#include "fleet/fleetfanout.h"
#include "security/auditlog.h"
#include "security/secretredactor.h"
#include "server/apierror.h"

#include <QCommandLineParser>
#include <QJsonObject>
#include <QSocketNotifier>

#include <csignal>
#include <fcntl.h>
#include <unistd.h>

namespace sandscope::cli {

namespace {

int signalPipe[2] = {-1, -1};

void forwardSignal(int signalNumber)
{
    const char byte = char(signalNumber);
    [[maybe_unused]] const ssize_t ignored = ::write(signalPipe[1], &byte, 1);
}

} // namespace

QString verbHelp(const QCommandLineParser &parser, const QString &usage, const QString &more)
{
    QString text = parser.helpText();
    text.replace(0, text.indexOf(QLatin1Char('\n')), QStringLiteral("Usage: sandscope ") + usage);
    return text + more + QLatin1Char('\n') + ConnectionOptions::keySourcesHelp();
}

int parseVerbArguments(QCommandLineParser &parser, const QString &verb,
    const QStringList &arguments, const QString &usage, ConnectionOptions &options,
    const QString &moreHelp)
{
    QString why;
    if (containsRefusedApiKeyOption(arguments, &why)) {
        printError(why);
        return usageErrorExitCode;
    }
    const QCommandLineOption helpOption = parser.addHelpOption();
    options.addTo(parser);
    if (!parser.parse(QStringList {QStringLiteral("sandscope")} + arguments))
        return usageError(parser.errorText(), verb);
    if (parser.isSet(helpOption)) {
        writeText(stdout, verbHelp(parser, usage, moreHelp));
        return 0;
    }
    if (!options.resolve(parser, &why))
        return usageError(why, verb);
    return -1;
}

int parseUserVerbArguments(QCommandLineParser &parser, const QString &verb,
    const QStringList &arguments, const QString &usage, ConnectionOptions &options)
{
    if (const int parsed = parseVerbArguments(parser, verb, arguments, usage, options); parsed >= 0)
        return parsed;
    if (!parser.positionalArguments().isEmpty())
        return usageError(QStringLiteral("%1 takes no arguments, got \"%2\"")
                              .arg(verb, parser.positionalArguments().join(QLatin1Char(' '))),
            verb);
    if (options.userId.isEmpty())
        return usageError(QStringLiteral("%1 needs --user ID (the sandbox user)").arg(verb), verb);
    return -1;
}

SessionScope sessionScopeOf(const ConnectionOptions &options)
{
    return {options.profileName, options.serverText(), options.userId};
}

QCommandLineOption adminExecOption()
{
    return QCommandLineOption(QStringLiteral("admin-exec"),
        QStringLiteral("Reach root in the sandbox through this local command, which gets `sh -s` "
                       "appended and the script on its stdin, e.g. 'docker compose -f "
                       "sandbox/docker-compose.yml --env-file sandbox/versions.env --env-file "
                       "sandbox/.env exec -T -u root sandbox', 'docker exec -i -u root "
                       "CONTAINER', 'kubectl exec -i POD -c CONTAINER --', 'ssh HOST sudo -n' or "
                       "'sudo -n'. Split into words "
                       "like a shell would, never run through one. Default: the profile's admin "
                       "command, else the server's own account (open-terminal 0.11.x)."),
        QStringLiteral("PREFIX"));
}

bool resolveAdminAccess(const QCommandLineParser &parser, const ConnectionOptions &options,
    AdminAccess *access, QString *error)
{
    if (options.hasFleet) {
        // Through the router an admin view would see one member's users and look complete.
        *error = QStringLiteral(
            "a view of every user does not go through a fleet's router (it would show one "
            "member's users as if they were all); run it per member with --server URL and that "
            "member's --admin-exec, or use `sandscope fleet status --fleet FILE`");
        return false;
    }
    const QString text = parser.isSet(QStringLiteral("admin-exec"))
        ? parser.value(QStringLiteral("admin-exec"))
        : options.profileAdminCommand;
    if (text.trimmed().isEmpty() && !parser.isSet(QStringLiteral("admin-exec"))) {
        *access = AdminAccess::serverAccount();
        return true;
    }
    QString why;
    if (!AdminAccess::fromCommand(text, access, &why)) {
        *error = QStringLiteral("--admin-exec refused: %1").arg(why);
        return false;
    }
    return true;
}

QCommandLineOption memberTimeoutOption()
{
    return QCommandLineOption(QStringLiteral("member-timeout"),
        QStringLiteral("With --fleet: a member still working after this many seconds is named "
                       "as failed and the others are shown (default 120; 0 waits as long as "
                       "the member's own calls do)."),
        QStringLiteral("SECONDS"), QStringLiteral("120"));
}

std::unique_ptr<FleetFanOut> adminFanOut(const QCommandLineParser &parser,
    const ConnectionOptions &options, OpenTerminalClient *client, QString *error,
    bool memberTimeout)
{
    std::unique_ptr<FleetFanOut> fanOut;
    if (options.hasFleet) {
        if (parser.isSet(QStringLiteral("admin-exec"))) {
            *error = QStringLiteral("with --fleet each member's admin command is its admin_exec "
                                    "in the fleet file; --admin-exec does not apply");
            return nullptr;
        }
        fanOut = std::make_unique<FleetFanOut>(options.fleet, options.connection);
    } else {
        AdminAccess admin;
        if (!resolveAdminAccess(parser, options, &admin, error))
            return nullptr;
        fanOut = std::make_unique<FleetFanOut>(client, admin);
    }
    if (!memberTimeout) {
        fanOut->setMemberTimeout(0);
        return fanOut;
    }
    bool ok = true;
    const double seconds = parser.value(QStringLiteral("member-timeout")).toDouble(&ok);
    if (!ok || seconds < 0 || seconds > 86400) {
        *error = QStringLiteral("--member-timeout needs seconds between 0 and 86400, got \"%1\"")
                     .arg(parser.value(QStringLiteral("member-timeout")));
        return nullptr;
    }
    // One server's own calls time out by themselves; the member timeout is a fleet's.
    fanOut->setMemberTimeout(options.hasFleet ? int(seconds * 1000) : 0);
    return fanOut;
}

bool runOnEveryMember(
    FleetFanOut &fanOut, const std::function<void()> &start, const ConnectionOptions &options)
{
    QEventLoop loop;
    SecretRedactor redactor;
    redactor.addSecret(options.connection.apiKey);
    const QMetaObject::Connection failures = QObject::connect(
        &fanOut, &FleetFanOut::memberFinished, &loop, [&](const FanOutMemberResult &result) {
            if (!result.ok)
                printError(redactor.redact(
                    fanOut.isFleet() ? result.error : serverMessage(result.error, options)));
        });
    QObject::connect(&fanOut, &FleetFanOut::finished, &loop, &QEventLoop::quit);
    start();
    if (fanOut.isRunning())
        loop.exec();
    QObject::disconnect(failures);
    return fanOut.failedCount() == 0;
}

QJsonArray membersJson(const FleetFanOut &fanOut)
{
    QJsonArray members;
    for (const FanOutMemberResult &result : fanOut.results()) {
        const FanOutTarget &target = fanOut.targets().at(result.index);
        members.append(QJsonObject {{QStringLiteral("name"), result.member},
            {QStringLiteral("url"),
                target.client->connection().baseUrl.adjusted(QUrl::RemoveUserInfo).toString()},
            {QStringLiteral("ok"), result.ok},
            {QStringLiteral("error"), result.ok ? QJsonValue() : QJsonValue(result.error)},
            {QStringLiteral("elapsed_ms"), result.elapsedMs}});
    }
    return members;
}

int listingFailed(const QString &error, const ConnectionOptions &options)
{
    SecretRedactor redactor;
    redactor.addSecret(options.connection.apiKey);
    printError(redactor.redact(error));
    return serverErrorExitCode;
}

QString serverMessage(const QString &text, const ConnectionOptions &options)
{
    return text.contains(options.serverText()) ? text
                                               : options.serverText() + QStringLiteral(": ") + text;
}

int serverError(const ApiError &error, const ConnectionOptions &options)
{
    SecretRedactor redactor;
    redactor.addSecret(options.connection.apiKey);
    QString text = error.toString();
    if (!error.detail.isEmpty() && !text.contains(error.detail))
        text += QStringLiteral(": ") + error.detail;
    printError(redactor.redact(serverMessage(text, options)));
    return serverErrorExitCode;
}

std::unique_ptr<QSocketNotifier> onStopSignals(std::function<void(int)> handler)
{
    if (signalPipe[0] < 0 && ::pipe2(signalPipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return nullptr;
    struct sigaction action { };
    action.sa_handler = forwardSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
    std::signal(SIGPIPE, SIG_IGN);
    auto notifier = std::make_unique<QSocketNotifier>(signalPipe[0], QSocketNotifier::Read);
    QObject::connect(notifier.get(), &QSocketNotifier::activated, notifier.get(),
        [handler = std::move(handler)] {
            char byte = 0;
            while (::read(signalPipe[0], &byte, 1) == 1)
                handler(int(byte));
        });
    return notifier;
}

bool namesAServer(const QStringList &arguments)
{
    for (const QString &argument : arguments) {
        for (const char *option : {"--server", "--profile", "--session", "--user"}) {
            if (argument == QLatin1String(option)
                || argument.startsWith(QLatin1String(option) + QLatin1Char('=')))
                return true;
        }
    }
    return false;
}

QDateTime parseSince(const QString &text)
{
    QDateTime time = QDateTime::fromString(text, Qt::ISODate);
    if (time.isValid()) {
        if (time.timeSpec() == Qt::LocalTime)
            time.setTimeSpec(Qt::UTC);
        return time.toUTC();
    }
    const QDate date = QDate::fromString(text, Qt::ISODate);
    return date.isValid() ? QDateTime(date, QTime(0, 0), Qt::UTC) : QDateTime();
}

void auditRead(const ConnectionOptions &options, const QString &action, const QString &target)
{
    AuditLog log;
    if (!log.append(AuditEntry {options.profileName, options.serverText(), options.userId, action,
            target, QStringLiteral("ok")}))
        printError(QStringLiteral("warning: could not write the audit log %1").arg(log.path()));
}

} // namespace sandscope::cli
