#include "cli.h"

#include "cli/cleanupverb.h"
#include "cli/clioutput.h"
#include "cli/compareverb.h"
#include "cli/connectionoptions.h"
#include "cli/exportverb.h"
#include "cli/filesverbs.h"
#include "cli/fleetverb.h"
#include "cli/liveverb.h"
#include "cli/probeverb.h"
#include "cli/remotecommand.h"
#include "cli/replayverb.h"
#include "cli/runverbs.h"
#include "cli/searchverb.h"
#include "cli/shellverb.h"
#include "cli/usageverb.h"
#include "cli/verbsupport.h"
#include "security/auditlog.h"
#include "security/secretredactor.h"
#include "server/openterminalclient.h"
#include "server/processstream.h"
#include "server/remotestdin.h"
#include "server/servercheck.h"
#include "util/shellquote.h"
#include "util/terminalsafe.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSocketNotifier>
#include <QTimer>
#include <QVector>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <unistd.h>

namespace sandscope::cli {

namespace {

enum ExitCode { Ok = 0, Error = 1, UsageError = 2, ServerError = 3 };

const QString serverInfoVerb = QStringLiteral("server-info");
const QString execVerb = QStringLiteral("exec");

// ---------------------------------------------------------------------------------------
// Output

// Server and transport failures name the server, and never show the key.
QString topLevelHelp()
{
    return QStringLiteral(
               "Usage: sandscope [COMMAND] [OPTIONS]\n"
               "       sandscope [FILE...]\n"
               "\n"
               "Inspect and drive Claude Code sandbox sessions in open-terminal.\n"
               "Without a command, opens the Sandscope window; FILEs (run recordings and\n"
               "stream-json captures) open there, each in its own run tab.\n"
               "\n"
               "Commands:\n"
               "  server-info   Show a server's version, features, accounts and whether it\n"
               "                runs in multi-user mode\n"
               "  exec          Run a command on the server as a user and stream its output\n")
        + shellVerbSummary() + filesVerbsSummary() + replayVerbSummary() + compareVerbSummary()
        + exportVerbSummary() + runVerbsSummary() + searchVerbSummary() + usageVerbSummary()
        + liveVerbSummary() + cleanupVerbSummary() + probeVerbSummary() + fleetVerbSummary()
        + QStringLiteral(
            "\n"
            "Options:\n"
            "  -h, --help     Show this help; 'sandscope COMMAND --help' for a command\n"
            "  -v, --version  Show the version\n"
            "\n")
        + ConnectionOptions::keySourcesHelp()
        + QStringLiteral(
            "\n"
            "Exit codes: 0 ok, 1 error, 2 usage error, 3 server or transport error;\n"
            "exec exits with the command's own code (128+N when it died from signal N).\n"
            "shell exits with the remote shell's status when the server reports it.\n");
}

// Parses one verb's arguments. Returns -1 to go on, otherwise the exit code to return.
// ---------------------------------------------------------------------------------------
// server-info

QJsonValue orNull(const QString &text)
{
    return text.isEmpty() ? QJsonValue() : QJsonValue(text);
}

QString ruleName(AccountRule rule)
{
    return rule == AccountRule::FirstEightAlnum ? QStringLiteral("first-eight-alnum")
                                                : QStringLiteral("slug-with-hash");
}

QStringList featureNames(const ServerFeatures &features)
{
    QStringList names;
    if (features.terminal)
        names << QStringLiteral("terminal");
    if (features.notebooks)
        names << QStringLiteral("notebooks");
    if (features.system)
        names << QStringLiteral("system");
    return names;
}

QString reportAsJson(const ServerReport &report)
{
    QJsonObject json {
        {QStringLiteral("server"), report.url},
        {QStringLiteral("version"), report.info.version},
        {QStringLiteral("features"),
            QJsonObject {{QStringLiteral("terminal"), report.info.features.terminal},
                {QStringLiteral("notebooks"), report.info.features.notebooks},
                {QStringLiteral("system"), report.info.features.system}}},
        {QStringLiteral("paths"), QJsonArray::fromStringList(report.info.paths)},
        {QStringLiteral("key_accepted"), report.keyAccepted},
        // null: the server refuses to run anything without X-User-Id
        {QStringLiteral("server_account"), orNull(report.serverAccount)},
        // null: not known (no user id given, and the server did not tell)
        {QStringLiteral("multi_user"),
            report.multiUserKnown ? QJsonValue(report.multiUser) : QJsonValue()},
        {QStringLiteral("multi_user_evidence"), report.multiUserEvidence},
    };
    if (!report.userId.isEmpty()) {
        json.insert(QStringLiteral("user"),
            QJsonObject {
                {QStringLiteral("id"), report.userId},
                {QStringLiteral("observed_account"), report.observedAccount},
                {QStringLiteral("home"), orNull(report.home)},
                {QStringLiteral("predicted_legacy_account"), report.predictedLegacyAccount},
                {QStringLiteral("predicted_hashed_account"), report.predictedHashedAccount},
                {QStringLiteral("rule"),
                    report.ruleKnown ? QJsonValue(ruleName(report.rule)) : QJsonValue()},
                {QStringLiteral("prefix"),
                    report.ruleKnown ? QJsonValue(report.prefix) : QJsonValue()},
            });
    }
    return QString::fromUtf8(QJsonDocument(json).toJson(QJsonDocument::Indented));
}

QString reportAsText(const ServerReport &report)
{
    const auto row = [](const QString &label, const QString &value) -> QString {
        return QString(label + QLatin1Char(':')).leftJustified(18) + value + QLatin1Char('\n');
    };
    const QStringList features = featureNames(report.info.features);
    QString text = row(QStringLiteral("Server"), report.url)
        + row(QStringLiteral("Version"), report.info.version)
        + row(QStringLiteral("Features"),
            features.isEmpty() ? QStringLiteral("none") : features.join(QStringLiteral(", ")))
        + row(QStringLiteral("API key"),
            report.keyAccepted ? QStringLiteral("accepted") : QStringLiteral("not checked"))
        + row(QStringLiteral("Server account"),
            report.serverAccountRefused
                ? QStringLiteral("unknown (the server refuses requests without a user id)")
                : report.serverAccount);
    if (!report.multiUserKnown) {
        text += row(QStringLiteral("Multi-user"), QStringLiteral("not tested (pass --user ID)"));
        return text;
    }
    text += row(QStringLiteral("Multi-user"),
                report.multiUser ? QStringLiteral("yes") : QStringLiteral("no"))
        + row(QStringLiteral("Evidence"), report.multiUserEvidence);
    if (report.userId.isEmpty())
        return text;
    const QString matched = !report.multiUser ? QStringLiteral("n/a (single-user)")
        : report.ruleKnown
        ? QStringLiteral("%1 rule, prefix \"%2\"")
              .arg(report.rule == AccountRule::FirstEightAlnum ? QStringLiteral("0.11.x")
                                                               : QStringLiteral("newer"),
                  report.prefix)
        : QStringLiteral("neither rule (account names changed?)");
    text += row(QStringLiteral("User id"), report.userId)
        + row(QStringLiteral("Observed account"), report.observedAccount)
        + row(QStringLiteral("Home"), report.home)
        + row(QStringLiteral("Predicted 0.11.x"), report.predictedLegacyAccount)
        + row(QStringLiteral("Predicted newer"), report.predictedHashedAccount)
        + row(QStringLiteral("Naming rule"), matched);
    return text;
}

int runServerInfo(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Shows the server's version and features and the account it runs as;\n"
                       "with --user also the account that user id gets (predicted under both\n"
                       "naming rules, and observed), its home, and whether the server is\n"
                       "multi-user."));
    const QCommandLineOption jsonOption(
        QStringLiteral("json"), QStringLiteral("Print one JSON object."));
    parser.addOption(jsonOption);
    ConnectionOptions options;
    const int parsed = parseVerbArguments(
        parser, serverInfoVerb, arguments, QStringLiteral("server-info [options]"), options);
    if (parsed >= 0)
        return parsed;
    if (!parser.positionalArguments().isEmpty())
        return usageError(QStringLiteral("server-info takes no arguments, got \"%1\"")
                              .arg(parser.positionalArguments().join(QLatin1Char(' '))),
            serverInfoVerb);

    OpenTerminalClient client(options.connection);
    ServerCheck probe(&client);
    QEventLoop loop;
    int exitCode = Ok;
    QObject::connect(&probe, &ServerCheck::finished, &loop, [&](const ServerReport &report) {
        if (parser.isSet(jsonOption))
            writeText(stdout, reportAsJson(report));
        else
            writeTerminalText(stdout, reportAsText(report));
        loop.exit();
    });
    QObject::connect(&probe, &ServerCheck::failed, &loop, [&](const ApiError &error) {
        exitCode = serverError(error, options);
        loop.exit();
    });
    probe.run(options.userId);
    loop.exec();
    return exitCode;
}

// ---------------------------------------------------------------------------------------
// exec

int runExec(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Runs COMMAND on the server, as --user or else as the server's own\n"
                       "account, and streams its output as it arrives. Like docker exec: one\n"
                       "word after -- is a shell command line ('ls -la \"my dir\" | wc -l');\n"
                       "several words run exactly that argv, each word passed as it is\n"
                       "(-- sh -c 'exit 7'). Exits with the command's exit code.\n"
                       "The command's standard input is empty unless -i is given (like docker\n"
                       "exec); with -i this program's standard input is passed on byte for byte\n"
                       "and its end ends the command's input. Output comes through the server's\n"
                       "terminal: text, CR LF line ends.\n"
                       "Ctrl+C stops the remote command (SIGTERM, then SIGKILL)."));
    const QCommandLineOption cwdOption(QStringLiteral("cwd"),
        QStringLiteral("Working directory of the command."), QStringLiteral("DIR"));
    const QCommandLineOption sessionOption(QStringLiteral("session"),
        QStringLiteral("Session id (X-Session-Id): selects the per-session working directory."),
        QStringLiteral("ID"));
    const QCommandLineOption stdinOption({QStringLiteral("i"), QStringLiteral("stdin")},
        QStringLiteral("Pass standard input to the command (written as the user, in chunks, "
                       "through a folder under ~/.sandscope/stdin that is removed afterwards)."));
    parser.addOption(cwdOption);
    parser.addOption(sessionOption);
    parser.addOption(stdinOption);
    parser.addPositionalArgument(QStringLiteral("command"), QStringLiteral("The command to run."),
        QStringLiteral("-- COMMAND..."));
    parser.setOptionsAfterPositionalArgumentsMode(QCommandLineParser::ParseAsPositionalArguments);
    ConnectionOptions options;
    const int parsed = parseVerbArguments(
        parser, execVerb, arguments, QStringLiteral("exec [options] -- COMMAND..."), options);
    if (parsed >= 0)
        return parsed;
    const QStringList words = parser.positionalArguments();
    const QString command = shell::commandLine(words);
    if (command.trimmed().isEmpty())
        return usageError(QStringLiteral("exec needs a command after --"), execVerb);
    if (!std::all_of(words.cbegin(), words.cend(), shell::isPassable))
        return usageError(
            QStringLiteral("a command word cannot contain a NUL character"), execVerb);

    Identity identity;
    identity.userId = options.userId;
    identity.sessionId = parser.value(sessionOption);
    ExecuteOptions executeOptions;
    executeOptions.cwd = parser.value(cwdOption);

    RemoteCommand remote;
    remote.command = command;
    remote.auditAction = execVerb;
    remote.auditTarget = command;
    remote.execute = executeOptions;
    remote.forwardStdin = parser.isSet(stdinOption);
    return runRemoteCommand(options, identity, remote);
}

struct Verb {
    QString name;
    int (*run)(const QStringList &arguments);
};

const QVector<Verb> &verbs()
{
    static const QVector<Verb> all {{serverInfoVerb, runServerInfo}, {execVerb, runExec},
        {chatsVerb, runChats}, {filesVerb, runFiles}, {runVerb, runRun},
        {sessionsVerb, runSessions}, {searchVerb, runSearch}, {usageVerb, runUsage},
        {liveVerb, runLive}, {runsVerb, runRuns}, {replayVerb, runReplay},
        {compareVerb, runCompare}, {exportVerb, runExport}, {cleanupVerb, runCleanup},
        {probeVerb, runProbe}, {shellVerb, runShell}, {fleetVerb, runFleet}};
    return all;
}

} // namespace

bool wantsCommandLine(int argc, char **argv)
{
    if (argc < 2)
        return false;
    // A first word that is not an option is a verb, or files to open in the window (the
    // desktop file's `sandscope %F`), or a mistyped verb, which deserves a usage error rather
    // than a window. Qt's GUI options all start with '-'.
    if (argv[1][0] != '-') {
        const QString first = QString::fromLocal8Bit(argv[1]);
        const auto &known = verbs();
        if (first == QLatin1String("help")
            || std::any_of(known.cbegin(), known.cend(),
                [&first](const Verb &verb) { return verb.name == first; }))
            return true;
        return !QFileInfo(first).isFile();
    }
    for (int i = 1; i < argc; ++i) {
        const QLatin1String argument(argv[i]);
        if (argument == QLatin1String("--help") || argument == QLatin1String("-h")
            || argument == QLatin1String("--help-all") || argument == QLatin1String("--version")
            || argument == QLatin1String("-v"))
            return true;
        // Refused with an explanation by the command line rather than silently ignored.
        if (argument == QLatin1String("--api-key")
            || argument.startsWith(QLatin1String("--api-key=")))
            return true;
    }
    return false;
}

int run(int argc, char **argv)
{
    QCoreApplication application(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("sandscope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(SANDSCOPE_VERSION));

    const QStringList arguments = QCoreApplication::arguments().mid(1);
    if (arguments.isEmpty()) {
        writeText(stderr, topLevelHelp());
        return UsageError;
    }
    const QString &first = arguments.constFirst();
    if (first == QLatin1String("--version") || first == QLatin1String("-v")) {
        writeText(stdout, QStringLiteral("sandscope %1\n").arg(QStringLiteral(SANDSCOPE_VERSION)));
        return Ok;
    }
    if (first == QLatin1String("--help") || first == QLatin1String("-h")
        || first == QLatin1String("--help-all") || first == QLatin1String("help")) {
        writeText(stdout, topLevelHelp());
        return Ok;
    }
    for (const Verb &verb : verbs()) {
        if (first == verb.name)
            return verb.run(arguments.mid(1));
    }
    QString why;
    if (containsRefusedApiKeyOption(arguments, &why)) {
        printError(why);
        return UsageError;
    }
    if (first.startsWith(QLatin1Char('-')))
        return usageError(QStringLiteral("unknown option \"%1\"").arg(first));
    return usageError(QStringLiteral("unknown command \"%1\"").arg(first));
}

} // namespace sandscope::cli
