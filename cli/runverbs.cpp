#include "runverbs.h"

#include "cli/clioutput.h"
#include "cli/connectionoptions.h"
#include "runs/claudecommand.h"
#include "runs/runcontroller.h"
#include "runs/rundiscovery.h"
#include "runs/runlauncher.h"
#include "runs/runmodel.h"
#include "runs/runparser.h"
#include "runs/runrecording.h"
#include "runs/runsession.h"
#include "runs/sessionstore.h"
#include "security/auditlog.h"
#include "security/secretredactor.h"
#include "server/openterminalclient.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QSocketNotifier>
#include <QTimer>

#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <memory>
#include <unistd.h>

namespace sandscope::cli {

const QString runVerb = QStringLiteral("run");
const QString sessionsVerb = QStringLiteral("sessions");
const QString runsVerb = QStringLiteral("runs");

namespace {

enum ExitCode { Ok = 0, Error = 1, UsageError = 2, ServerError = 3 };

// A line the PTY damaged (U+FFFD) is held back this long for its repair from the tee file.
constexpr int stopGraceMs = 3000;
constexpr int resultSnippetLength = 120;

// ---------------------------------------------------------------------------------------
// Output and errors

QString serverMessage(const QString &text, const ConnectionOptions &options)
{
    return text.contains(options.serverText()) ? text
                                               : options.serverText() + QStringLiteral(": ") + text;
}

// Runs a listing (sessiondiscovery::discover, rundiscovery::list) as --user and waits for it.
// False with the reason (naming the server) when it failed.
template <typename Listing>
bool listAsUser(void (*list)(OpenTerminalClient *, const Identity &, QObject *,
                    std::function<void(bool, const Listing &, const QString &)>),
    OpenTerminalClient &client, const ConnectionOptions &options, Listing *listing, QString *error)
{
    Identity identity;
    identity.userId = options.userId;
    QEventLoop loop;
    bool ok = false;
    list(&client, identity, &loop, [&](bool success, const Listing &found, const QString &why) {
        ok = success;
        *listing = found;
        *error = serverMessage(why, options);
        loop.quit();
    });
    loop.exec();
    return ok;
}

// A listing failure for people, the API key masked.
int listingFailed(const QString &error, const ConnectionOptions &options)
{
    SecretRedactor redactor;
    redactor.addSecret(options.connection.apiKey);
    printError(redactor.redact(error));
    return ServerError;
}

QString verbHelp(const QCommandLineParser &parser, const QString &usage)
{
    QString text = parser.helpText();
    text.replace(0, text.indexOf(QLatin1Char('\n')), QStringLiteral("Usage: sandscope ") + usage);
    return text + QLatin1Char('\n') + ConnectionOptions::keySourcesHelp();
}

// Returns -1 to go on, otherwise the exit code.
int parseArguments(QCommandLineParser &parser, const QString &verb, const QStringList &arguments,
    const QString &usage, ConnectionOptions &options)
{
    QString why;
    if (containsRefusedApiKeyOption(arguments, &why)) {
        printError(why);
        return UsageError;
    }
    const QCommandLineOption helpOption = parser.addHelpOption();
    options.addTo(parser);
    if (!parser.parse(QStringList {QStringLiteral("sandscope")} + arguments))
        return usageError(parser.errorText(), verb);
    if (parser.isSet(helpOption)) {
        writeText(stdout, verbHelp(parser, usage));
        return Ok;
    }
    if (!options.resolve(parser, &why))
        return usageError(why, verb);
    if (!parser.positionalArguments().isEmpty())
        return usageError(QStringLiteral("%1 takes no arguments, got \"%2\"")
                              .arg(verb, parser.positionalArguments().join(QLatin1Char(' '))),
            verb);
    if (options.userId.isEmpty())
        return usageError(QStringLiteral("%1 needs --user ID (the sandbox user)").arg(verb), verb);
    return -1;
}

SessionScope scopeOf(const ConnectionOptions &options)
{
    return {options.profileName, options.serverText(), options.userId};
}

QString isoTime(const QDateTime &time)
{
    return time.isValid() ? time.toUTC().toString(Qt::ISODate) : QString();
}

// ---------------------------------------------------------------------------------------
// Arguments of `run`

// --agent-env-file: NAME=VALUE lines; blank lines and # comments are skipped, "export " is
// allowed, one pair of matching surrounding quotes is removed, nothing else is interpreted.
// Errors name the line and the variable, never a value.
bool readAgentEnvironment(const QString &path, QHash<QString, QString> *environment, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error
            = QStringLiteral("cannot read the agent env file %1: %2").arg(path, file.errorString());
        return false;
    }
    if (file.permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther)) {
        *error = QStringLiteral("the agent env file %1 holds secrets but others can read it; "
                                "chmod 600 it")
                     .arg(path);
        return false;
    }
    QString why;
    if (!LiveRun::parseEnvironment(QString::fromUtf8(file.readAll()), environment, &why)) {
        *error = path + QLatin1Char(' ') + why;
        return false;
    }
    return true;
}

// "Bash(git add, commit),Read" → {"Bash(git add, commit)", "Read"}: commas inside
// parentheses belong to the rule.
QStringList splitToolRules(const QString &list)
{
    QStringList rules;
    QString current;
    int depth = 0;
    for (const QChar c : list) {
        if (c == QLatin1Char('('))
            ++depth;
        else if (c == QLatin1Char(')') && depth > 0)
            --depth;
        if (c == QLatin1Char(',') && depth == 0) {
            rules << current.trimmed();
            current.clear();
            continue;
        }
        current += c;
    }
    rules << current.trimmed();
    rules.removeAll(QString());
    return rules;
}

// ---------------------------------------------------------------------------------------
// Stop signals: SIGINT/SIGTERM arrive through a pipe and are handled in the event loop.

int signalPipe[2] = {-1, -1};

void forwardSignal(int signalNumber)
{
    const char byte = char(signalNumber);
    [[maybe_unused]] const ssize_t ignored = ::write(signalPipe[1], &byte, 1);
}

bool installStopSignals()
{
    if (signalPipe[0] < 0 && ::pipe2(signalPipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return false;
    struct sigaction action { };
    action.sa_handler = forwardSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
    std::signal(SIGPIPE, SIG_IGN); // a closed stdout is reported by the write instead
    return true;
}

// ---------------------------------------------------------------------------------------
// The live text tree

QString firstLine(const QString &text, int limit)
{
    const QString trimmed = text.trimmed();
    QString line = trimmed.left(trimmed.indexOf(QLatin1Char('\n')));
    if (line.size() > limit)
        line = line.left(limit) + QStringLiteral("…");
    else if (line.size() < trimmed.size())
        line += QStringLiteral(" …");
    return line;
}

// Prints the run tree as it grows: one line per node when it appears, indented by nesting
// (turn, its text and tool calls, a sub-agent's work under its Agent call), and one more line
// for a tool call when its status settles (ok, error, interrupted, denied, background).
class TreePrinter {
public:
    TreePrinter(RunModel *model, std::function<void(const QString &)> write)
        : m_model(model)
        , m_write(std::move(write))
    {
        QObject::connect(model, &QAbstractItemModel::rowsInserted, model,
            [this](const QModelIndex &parent, int first, int last) {
                for (int row = first; row <= last; ++row)
                    m_touched.append(QPersistentModelIndex(m_model->index(row, 0, parent)));
            });
        QObject::connect(model, &QAbstractItemModel::dataChanged, model,
            [this](const QModelIndex &topLeft, const QModelIndex &bottomRight) {
                for (int row = topLeft.row(); row <= bottomRight.row(); ++row)
                    m_touched.append(
                        QPersistentModelIndex(m_model->index(row, 0, topLeft.parent())));
            });
    }

    // Prints what the last events added or settled.
    void flush()
    {
        const QList<QPersistentModelIndex> touched = m_touched;
        m_touched.clear();
        for (const QPersistentModelIndex &index : touched) {
            if (index.isValid())
                show(index);
        }
    }

private:
    static int depthOf(const QModelIndex &index)
    {
        int depth = 0;
        for (QModelIndex up = index.parent(); up.isValid(); up = up.parent())
            ++depth;
        return depth;
    }

    void show(const QModelIndex &index)
    {
        using Kind = RunModel::NodeKind;
        using Status = RunModel::Status;
        const auto kind = Kind(index.data(RunModel::KindRole).toInt());
        const auto status = Status(index.data(RunModel::StatusRole).toInt());
        const int depth = depthOf(index); // the run is 0, turns 1, their content 2, ...
        if (kind == Kind::Run)
            return;
        const QString indent(2 * qMax(0, depth - 1), QLatin1Char(' '));
        const QString title = index.data(Qt::DisplayRole).toString();
        const void *node = index.internalPointer();
        const auto printed = m_printed.constFind(node);

        if (kind == Kind::ToolCall) {
            // A placeholder (a result or sub-agent line before its call) waits for the call.
            if (index.data(RunModel::ToolNameRole).toString().isEmpty())
                return;
            if (printed == m_printed.constEnd()) {
                m_printed.insert(node, int(status));
                m_write(indent + QStringLiteral("▸ ") + title + QStringLiteral("  [")
                    + statusName(status) + QStringLiteral("]"));
                if (status == Status::Running)
                    return;
            } else if (*printed == int(status) || status == Status::Running) {
                return;
            }
            m_printed.insert(node, int(status));
            const QString output
                = firstLine(index.data(RunModel::TextRole).toString(), resultSnippetLength);
            m_write(indent + marker(status) + title + QStringLiteral("  [") + statusName(status)
                + QStringLiteral("]")
                + (output.isEmpty() ? QString() : QStringLiteral(" → ") + output));
            return;
        }
        if (kind == Kind::Turn) {
            if (printed == m_printed.constEnd()) {
                m_printed.insert(node, int(status));
                m_write(indent + title);
            } else if (status == Status::Interrupted && *printed != int(status)) {
                m_printed.insert(node, int(status));
                m_write(indent + title + QStringLiteral("  [interrupted: no result]"));
            }
            return;
        }
        if (printed != m_printed.constEnd())
            return;
        m_printed.insert(node, int(status));
        m_write(indent + title);
    }

    static QString statusName(RunModel::Status status)
    {
        using Status = RunModel::Status;
        switch (status) {
        case Status::None:
        case Status::Running:
            return QStringLiteral("running");
        case Status::Ok:
            return QStringLiteral("ok");
        case Status::Error:
            return QStringLiteral("error");
        case Status::Interrupted:
            return QStringLiteral("interrupted");
        case Status::Denied:
            return QStringLiteral("denied");
        case Status::Retrying:
            return QStringLiteral("retrying");
        case Status::Background:
            return QStringLiteral("background");
        }
        return {};
    }

    static QString marker(RunModel::Status status)
    {
        using Status = RunModel::Status;
        switch (status) {
        case Status::Ok:
            return QStringLiteral("✓ ");
        case Status::Error:
        case Status::Denied:
            return QStringLiteral("✗ ");
        case Status::Interrupted:
            return QStringLiteral("⚠ ");
        default:
            return QStringLiteral("· ");
        }
    }

    RunModel *m_model;
    std::function<void(const QString &)> m_write;
    QList<QPersistentModelIndex> m_touched;
    QHash<const void *, int> m_printed; // node → status last printed
};

QString summaryText(const RunSummary &summary)
{
    QString text = QStringLiteral("Summary: ");
    if (!summary.hasResult)
        text += QStringLiteral("no result");
    else
        text += summary.resultSubtype + (summary.isError ? QStringLiteral(" (error)") : QString());
    text += QStringLiteral(" · %1 tool call(s), %2 failed, %3 without result")
                .arg(summary.toolCalls)
                .arg(summary.toolErrors)
                .arg(summary.unmatchedToolCalls);
    text += QStringLiteral(" · %1 in / %2 out tokens · $%3")
                .arg(summary.inputTokens)
                .arg(summary.outputTokens)
                .arg(summary.costUsd, 0, 'f', 6);
    if (!summary.sessionId.isEmpty())
        text += QStringLiteral(" · session ") + summary.sessionId;
    return text;
}

// What the last result line said, for the error message.
// The one place a turn's outcome becomes an exit code: 0 successful result; 1 error result or
// no result; 3 server or transport failure; 128+N stopped by signal N.
int exitCodeOf(const RunOutcome &outcome, int stopSignal)
{
    switch (outcome.kind) {
    case RunOutcome::Kind::Ok:
        return Ok;
    case RunOutcome::Kind::TransportFailed:
        return ServerError;
    case RunOutcome::Kind::Stopped:
        return stopSignal != 0 ? 128 + stopSignal : Error;
    case RunOutcome::Kind::ErrorResult:
    case RunOutcome::Kind::NoResult:
        return Error;
    }
    return Error;
}

// Why the turn did not succeed, for stderr (empty when it did).
QString outcomeMessage(const RunOutcome &outcome, const ConnectionOptions &options)
{
    switch (outcome.kind) {
    case RunOutcome::Kind::Ok:
        return {};
    case RunOutcome::Kind::TransportFailed:
        return serverMessage(QStringLiteral("the run failed: ") + outcome.failure, options);
    case RunOutcome::Kind::Stopped:
        return outcome.detached ? QString()
                                : QStringLiteral("the run was stopped before it produced a result");
    case RunOutcome::Kind::NoResult: {
        const int code = outcome.exitCode;
        QString message = QStringLiteral("the run ended without a result (claude %1)")
                              .arg(code < 0 ? QStringLiteral("was killed by signal %1").arg(-code)
                                            : QStringLiteral("exited with status %1").arg(code));
        const QString standardError = outcome.standardError.trimmed();
        if (!standardError.isEmpty())
            message += QStringLiteral("; its stderr: ") + firstLine(standardError, 500);
        return message;
    }
    case RunOutcome::Kind::ErrorResult: {
        const ResultInfo &result = outcome.result;
        QString message
            = QStringLiteral("the run ended with an error result (%1").arg(result.subtype);
        if (result.apiErrorStatus)
            message += QStringLiteral(", API status %1").arg(result.apiErrorStatus);
        if (!result.apiErrorType.isEmpty())
            message += QStringLiteral(" ") + result.apiErrorType;
        message += QLatin1Char(')');
        const QString detail = !result.resultText.isEmpty()
            ? result.resultText
            : result.errors.join(QStringLiteral("; "));
        if (!detail.isEmpty())
            message += QStringLiteral(": ") + firstLine(detail, 300);
        return message;
    }
    }
    return {};
}

// ---------------------------------------------------------------------------------------
// Finding the session to resume

struct ResumeTarget {
    QString sessionId;
    QString source; // "local" or "server"
};

// The chat's most recent session: the local store first, else the transcripts on the server.
// Returns false with a message when there is none or the server could not be asked.
bool findSessionToResume(OpenTerminalClient &client, const ConnectionOptions &options,
    const QString &chatId, ResumeTarget *target, QString *error, bool *serverFailure)
{
    *serverFailure = false;
    const SessionRecord local = SessionStore().latest(scopeOf(options), chatId);
    if (!local.sessionId.isEmpty()) {
        *target = {local.sessionId, QStringLiteral("local")};
        return true;
    }
    sessiondiscovery::Listing listing;
    if (!listAsUser(&sessiondiscovery::discover, client, options, &listing, error)) {
        *serverFailure = true;
        return false;
    }
    const QVector<DiscoveredSession> sessions = sessiondiscovery::chatSessions(listing, chatId);
    if (sessions.isEmpty()) {
        *error = QStringLiteral("chat \"%1\" has no session to resume: none is recorded locally "
                                "and no transcript was found on the server")
                     .arg(chatId);
        return false;
    }
    *target = {sessions.constFirst().sessionId, QStringLiteral("server")};
    return true;
}

// ---------------------------------------------------------------------------------------
// run

int executeRun(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Runs Claude Code (claude -p) in a chat's directory (~/chat-<chat>) as the sandbox\n"
        "user --user and shows the run live: a text tree of turns, tool calls with their\n"
        "status as results arrive, and sub-agent work nested under its call; or with --json\n"
        "every stream-json line and a last {\"type\":\"sandscope_summary\", ...} line.\n"
        "The prompt is uploaded as a file and the agent environment goes into a 0600 file in\n"
        "the user's home; neither appears on a command line.\n"
        "Ctrl+C stops the run (SIGTERM, then SIGKILL); a second Ctrl+C kills it at once.\n"
        "--attach RUN shows a run started earlier (see `sandscope runs`) from its first line\n"
        "and follows it while it runs; Ctrl+C stops it the same way.\n"
        "Exit codes: 0 successful result; 1 error result, no result (killed) or a local file\n"
        "problem; 2 usage error; 3 server or transport failure; 128+N stopped by signal N."));
    const QCommandLineOption chatOption(QStringLiteral("chat"),
        QStringLiteral("Chat id: 1-64 of [A-Za-z0-9_-], not starting with - or _."),
        QStringLiteral("ID"));
    const QCommandLineOption promptOption(
        QStringLiteral("prompt"), QStringLiteral("The prompt."), QStringLiteral("TEXT"));
    const QCommandLineOption resumeOption(QStringLiteral("resume"),
        QStringLiteral("Continue the chat's last session (recorded locally, else found on the "
                       "server)."));
    const QCommandLineOption forkOption(QStringLiteral("fork"),
        QStringLiteral("Like --resume, but continue in a new session (a fork of the last one)."));
    const QCommandLineOption modelOption(
        QStringLiteral("model"), QStringLiteral("Model for claude --model."), QStringLiteral("M"));
    const QCommandLineOption permissionOption(QStringLiteral("permission-mode"),
        QStringLiteral("One of: %1.")
            .arg(claudecommand::permissionModes().join(QStringLiteral(", "))),
        QStringLiteral("M"));
    const QCommandLineOption toolsOption(QStringLiteral("allowed-tools"),
        QStringLiteral("Comma-separated tool rules for --allowedTools, e.g. \"Bash(git *),Read\"; "
                       "may be repeated."),
        QStringLiteral("LIST"));
    const QCommandLineOption maxTurnsOption(QStringLiteral("max-turns"),
        QStringLiteral("Stop after N model round-trips."), QStringLiteral("N"));
    const QCommandLineOption envFileOption(QStringLiteral("agent-env-file"),
        QStringLiteral("Local file (chmod 600) of NAME=VALUE lines for the agent, e.g. "
                       "ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY."),
        QStringLiteral("FILE"));
    const QCommandLineOption recordOption(QStringLiteral("record"),
        QStringLiteral("Record every stream line with its arrival time to FILE (replayable)."),
        QStringLiteral("FILE"));
    const QCommandLineOption jsonOption(QStringLiteral("json"),
        QStringLiteral("Print the stream-json lines and a summary line instead of the tree."));
    const QCommandLineOption attachOption(QStringLiteral("attach"),
        QStringLiteral("Instead of starting a run, show run RUN of the chat (from `sandscope "
                       "runs`) and follow it while it runs."),
        QStringLiteral("RUN"));
    parser.addOptions(
        {chatOption, promptOption, resumeOption, forkOption, modelOption, permissionOption,
            toolsOption, maxTurnsOption, envFileOption, recordOption, jsonOption, attachOption});
    ConnectionOptions options;
    const int parsed = parseArguments(parser, runVerb, arguments,
        QStringLiteral("run --server URL --user ID --chat ID --prompt TEXT [options]"), options);
    if (parsed >= 0)
        return parsed;

    QString why;
    const QString chatId = parser.value(chatOption);
    if (chatId.isEmpty())
        return usageError(QStringLiteral("run needs --chat ID"), runVerb);
    if (!claudecommand::isValidChatId(chatId, &why))
        return usageError(QStringLiteral("--chat \"%1\" refused: %2").arg(chatId, why), runVerb);
    const QString prompt = parser.value(promptOption);
    const QString attachRunId = parser.value(attachOption);
    if (!attachRunId.isEmpty()) {
        if (!claudecommand::isValidRunId(attachRunId, &why))
            return usageError(
                QStringLiteral("--attach \"%1\" refused: %2").arg(attachRunId, why), runVerb);
        for (const QCommandLineOption &startOnly : {promptOption, resumeOption, forkOption,
                 modelOption, permissionOption, toolsOption, maxTurnsOption, envFileOption}) {
            if (parser.isSet(startOnly))
                return usageError(QStringLiteral("--%1 starts a run; it cannot be used with "
                                                 "--attach")
                                      .arg(startOnly.names().constFirst()),
                    runVerb);
        }
    } else if (prompt.isEmpty()) {
        return usageError(QStringLiteral("run needs a non-empty --prompt TEXT"), runVerb);
    }
    if (parser.isSet(resumeOption) && parser.isSet(forkOption))
        return usageError(QStringLiteral("--resume and --fork exclude each other"), runVerb);

    ClaudeRunOptions runOptions;
    runOptions.model = parser.value(modelOption);
    runOptions.permissionMode = parser.value(permissionOption);
    for (const QString &list : parser.values(toolsOption))
        runOptions.allowedTools << splitToolRules(list);
    if (parser.isSet(maxTurnsOption)) {
        bool ok = false;
        runOptions.maxTurns = parser.value(maxTurnsOption).toInt(&ok);
        if (!ok || runOptions.maxTurns < 1)
            return usageError(QStringLiteral("--max-turns needs a positive number"), runVerb);
    }
    if (const QString problem = claudecommand::validate(runOptions); !problem.isEmpty())
        return usageError(problem, runVerb);

    QHash<QString, QString> environment;
    if (parser.isSet(envFileOption)
        && !readAgentEnvironment(parser.value(envFileOption), &environment, &why)) {
        printError(why);
        return Error;
    }
    const bool json = parser.isSet(jsonOption);

    // Nothing secret may reach the terminal: the server key and the agent variables whose
    // names say they hold credentials (ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, ...).
    SecretRedactor redactor;
    redactor.addSecret(options.connection.apiKey);
    for (auto it = environment.cbegin(); it != environment.cend(); ++it) {
        if (LiveRun::isSecretName(it.key()))
            redactor.addSecret(it.value());
    }

    OpenTerminalClient client(options.connection);
    const SessionScope scope = scopeOf(options);
    const bool fork = parser.isSet(forkOption);
    if (parser.isSet(resumeOption) || fork) {
        ResumeTarget target;
        bool serverFailure = false;
        if (!findSessionToResume(client, options, chatId, &target, &why, &serverFailure)) {
            printError(redactor.redact(why));
            return serverFailure ? ServerError : Error;
        }
        runOptions.resumeSessionId = target.sessionId;
        runOptions.forkSession = fork;
        if (!json)
            writeText(stdout,
                QStringLiteral("%1 session %2 (%3)\n")
                    .arg(fork ? QStringLiteral("Forking") : QStringLiteral("Resuming"),
                        target.sessionId,
                        target.source == QLatin1String("local")
                            ? QStringLiteral("recorded locally")
                            : QStringLiteral("found on the server")));
    }

    LiveRunRequest request;
    request.identity.userId = options.userId;
    request.scope = scope;
    request.chatId = chatId;
    request.prompt = prompt;
    request.options = runOptions;
    request.environment = environment;
    // The controller masks the secrets, holds PTY-damaged lines for their repair, records
    // every line and the session, audits starting and stopping, as it does for the GUI.
    RunController controller(&client);
    if (parser.isSet(recordOption)) {
        const QJsonObject metadata {{QStringLiteral("source"), QStringLiteral("sandscope run")},
            {QStringLiteral("server"), options.serverText()},
            {QStringLiteral("user_id"), options.userId}, {QStringLiteral("chat_id"), chatId},
            {QStringLiteral("resume_session_id"), runOptions.resumeSessionId},
            {QStringLiteral("fork"), fork}};
        if (!controller.openRecording(parser.value(recordOption), metadata, &why)) {
            printError(
                QStringLiteral("cannot record to %1: %2").arg(parser.value(recordOption), why));
            return Error;
        }
    }
    RunModel model;
    QEventLoop loop;
    int exitCode = Error;
    int stopSignal = 0;

    const auto writeLine = [&](const QString &line) -> bool {
        return writeText(stdout, redactor.redact(line) + QLatin1Char('\n'));
    };
    TreePrinter printer(&model, [&](const QString &line) { writeLine(line); });

    QObject::connect(
        &controller, &RunController::recordingFailed, &loop, [&](const QString &message) {
            printError(QStringLiteral("warning: recording stopped: ") + message);
        });
    QObject::connect(
        &controller, &RunController::eventsReady, &loop, [&](const RunEventBatch &events) {
            model.addEvents(events);
            if (!json)
                printer.flush();
        });
    if (json) {
        QObject::connect(
            &controller, &RunController::lineReady, &loop, [&](const QByteArray &bytes) {
                const QString trimmed = QString::fromUtf8(bytes).trimmed();
                if (trimmed.startsWith(QLatin1Char('{'))
                    && QJsonDocument::fromJson(trimmed.toUtf8()).isObject()) {
                    if (!writeLine(trimmed) && stopSignal == 0)
                        printError(QStringLiteral("cannot write to stdout"));
                } else if (!trimmed.isEmpty()) {
                    printError(QStringLiteral("skipped a line that is not JSON: ")
                        + redactor.redact(firstLine(trimmed, 200)));
                }
            });
    }
    QObject::connect(&controller, &RunController::notice, &loop,
        [&](const QString &message) { printError(redactor.redact(message)); });
    QObject::connect(&controller, &RunController::turnStarted, &loop,
        [&](const RunHandle &handle, bool attached) {
            if (!json && !attached)
                writeLine(QStringLiteral("Run %1 of chat %2 as %3 started (tee copy: %4)")
                              .arg(handle.runId, chatId, options.userId, handle.teePath()));
        });
    QObject::connect(&controller, &RunController::turnEnded, &loop, [&](const RunOutcome &outcome) {
        model.markRunEnded(QDateTime::currentMSecsSinceEpoch());
        if (!json)
            printer.flush();
        const RunSummary summary = model.summary();
        if (json)
            writeLine(
                QString::fromUtf8(QJsonDocument(summary.toJson()).toJson(QJsonDocument::Compact)));
        else
            writeLine(summaryText(summary));
        controller.closeRecording();
        exitCode = exitCodeOf(outcome, stopSignal);
        const QString message = outcomeMessage(outcome, options);
        if (!message.isEmpty())
            printError(redactor.redact(message));
        loop.exit();
    });

    // Ctrl+C: SIGTERM (SIGKILL after a grace period); again: SIGKILL now; a third time: stop
    // waiting (the run may go on in the sandbox).
    const auto requestStop = [&](int signalNumber) {
        stopSignal = signalNumber;
        const RunHandle handle = controller.handle();
        switch (controller.requestStop(stopGraceMs)) {
        case RunController::StopStep::Terminating:
            printError(QStringLiteral("stopping the run (SIGTERM, then SIGKILL)"));
            break;
        case RunController::StopStep::Killing:
            printError(QStringLiteral("killing the run (SIGKILL)"));
            break;
        case RunController::StopStep::Detached:
            printError(QStringLiteral("giving up; run %1 may still be running on the server")
                           .arg(handle.runId));
            break;
        case RunController::StopStep::None: // nothing runs yet (e.g. while listing runs)
            exitCode = 128 + signalNumber;
            loop.exit();
            break;
        }
    };
    std::unique_ptr<QSocketNotifier> signalNotifier;
    if (installStopSignals()) {
        signalNotifier = std::make_unique<QSocketNotifier>(signalPipe[0], QSocketNotifier::Read);
        QObject::connect(signalNotifier.get(), &QSocketNotifier::activated, &loop, [&] {
            char byte = 0;
            while (::read(signalPipe[0], &byte, 1) == 1)
                requestStop(int(byte));
        });
    }

    if (attachRunId.isEmpty()) {
        controller.startTurn(request);
    } else {
        rundiscovery::Listing listing;
        bool listed = false;
        rundiscovery::list(&client, request.identity, &loop,
            [&](bool ok, const rundiscovery::Listing &found, const QString &error) {
                listed = ok;
                listing = found;
                why = error;
                loop.exit();
            });
        loop.exec();
        if (stopSignal != 0)
            return exitCode;
        if (!listed) {
            printError(redactor.redact(serverMessage(why, options)));
            return ServerError;
        }
        const auto run = std::find_if(listing.runs.cbegin(), listing.runs.cend(),
            [&](const DiscoveredRun &r) { return r.chatId == chatId && r.runId == attachRunId; });
        if (run == listing.runs.cend()) {
            printError(QStringLiteral("%1 has no run %2 in chat %3 (see `sandscope runs`)")
                           .arg(options.userId, attachRunId, chatId));
            return Error;
        }
        if (!json)
            writeLine(QStringLiteral("Attached to run %1 of chat %2 as %3 (%4; output: %5)")
                          .arg(run->runId, chatId, options.userId, rundiscovery::stateText(*run),
                              run->teePath));
        controller.attachTurn(
            request, rundiscovery::handleFor(request.identity, listing.home, *run));
    }
    loop.exec();
    return exitCode;
}

// ---------------------------------------------------------------------------------------
// sessions

struct ChatSession {
    QString sessionId;
    QDateTime lastActivity;
    bool local = false;
    bool onServer = false;
    QString path;
    qint64 size = -1;
    QString forkedFrom;
    QString runId;
};

QJsonValue orNull(const QString &text)
{
    return text.isEmpty() ? QJsonValue() : QJsonValue(text);
}

int executeSessions(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Lists the user's chats with their Claude Code sessions and last activity: the\n"
        "sessions sandscope recorded on this machine and the transcripts found on the server\n"
        "(~/.claude/projects/<escaped chat directory>/<session>.jsonl). The first session of a\n"
        "chat is the one `sandscope run --resume` continues."));
    const QCommandLineOption chatOption(
        QStringLiteral("chat"), QStringLiteral("Only this chat."), QStringLiteral("ID"));
    const QCommandLineOption jsonOption(
        QStringLiteral("json"), QStringLiteral("Print one JSON object."));
    parser.addOptions({chatOption, jsonOption});
    ConnectionOptions options;
    const int parsed = parseArguments(parser, sessionsVerb, arguments,
        QStringLiteral("sessions --server URL --user ID [--chat ID] [--json]"), options);
    if (parsed >= 0)
        return parsed;
    QString why;
    const QString chatId = parser.value(chatOption);
    if (parser.isSet(chatOption) && !claudecommand::isValidChatId(chatId, &why))
        return usageError(
            QStringLiteral("--chat \"%1\" refused: %2").arg(chatId, why), sessionsVerb);

    OpenTerminalClient client(options.connection);
    sessiondiscovery::Listing listing;
    if (!listAsUser(&sessiondiscovery::discover, client, options, &listing, &why))
        return listingFailed(why, options);

    // chat → sessions, merged from both sources by session id
    QMap<QString, QMap<QString, ChatSession>> chats;
    for (const SessionRecord &record : SessionStore().sessions(scopeOf(options), chatId)) {
        ChatSession &session = chats[record.chatId][record.sessionId];
        session.sessionId = record.sessionId;
        session.lastActivity = record.lastActivity;
        session.local = true;
        session.forkedFrom = record.forkedFrom;
        session.runId = record.runId;
    }
    for (const DiscoveredSession &found : sessiondiscovery::chatSessions(listing, chatId)) {
        ChatSession &session = chats[found.chatId][found.sessionId];
        session.sessionId = found.sessionId;
        session.onServer = true;
        session.path = found.path;
        session.size = found.size;
        if (!session.lastActivity.isValid() || found.lastActivity > session.lastActivity)
            session.lastActivity = found.lastActivity;
    }

    const auto ordered = [](const QMap<QString, ChatSession> &sessions) {
        QVector<ChatSession> list(sessions.cbegin(), sessions.cend());
        std::stable_sort(list.begin(), list.end(), [](const ChatSession &a, const ChatSession &b) {
            return a.lastActivity > b.lastActivity;
        });
        return list;
    };

    if (parser.isSet(jsonOption)) {
        QJsonArray chatArray;
        for (auto chat = chats.cbegin(); chat != chats.cend(); ++chat) {
            QJsonArray sessionArray;
            const QVector<ChatSession> sessions = ordered(chat.value());
            for (const ChatSession &session : sessions) {
                sessionArray.append(QJsonObject {
                    {QStringLiteral("session_id"), session.sessionId},
                    {QStringLiteral("last_activity"), orNull(isoTime(session.lastActivity))},
                    {QStringLiteral("local"), session.local},
                    {QStringLiteral("on_server"), session.onServer},
                    {QStringLiteral("path"), orNull(session.path)},
                    {QStringLiteral("size"),
                        session.size >= 0 ? QJsonValue(double(session.size)) : QJsonValue()},
                    {QStringLiteral("forked_from"), orNull(session.forkedFrom)},
                    {QStringLiteral("run_id"), orNull(session.runId)},
                });
            }
            chatArray.append(QJsonObject {{QStringLiteral("chat"), chat.key()},
                {QStringLiteral("last_activity"),
                    orNull(isoTime(sessions.constFirst().lastActivity))},
                {QStringLiteral("sessions"), sessionArray}});
        }
        const QJsonObject root {{QStringLiteral("user"), options.userId},
            {QStringLiteral("home"), listing.home}, {QStringLiteral("chats"), chatArray}};
        writeBytes(stdout, QJsonDocument(root).toJson(QJsonDocument::Indented));
        return Ok;
    }

    QString text = QStringLiteral("CHAT").leftJustified(24) + QLatin1Char(' ')
        + QStringLiteral("SESSION").leftJustified(36) + QStringLiteral("  ")
        + QStringLiteral("LAST ACTIVITY (UTC)").leftJustified(20) + QStringLiteral("  WHERE\n");
    for (auto chat = chats.cbegin(); chat != chats.cend(); ++chat) {
        const QVector<ChatSession> sessions = ordered(chat.value());
        for (const ChatSession &session : sessions) {
            QStringList where;
            if (session.local)
                where << QStringLiteral("local");
            if (session.onServer)
                where << QStringLiteral("server");
            QString line = chat.key().leftJustified(24) + QLatin1Char(' ')
                + session.sessionId.leftJustified(36) + QStringLiteral("  ")
                + isoTime(session.lastActivity).leftJustified(20) + QStringLiteral("  ")
                + where.join(QLatin1Char('+'));
            if (!session.forkedFrom.isEmpty())
                line += QStringLiteral(" (fork of %1)").arg(session.forkedFrom);
            text += line + QLatin1Char('\n');
        }
    }
    if (chats.isEmpty())
        text += QStringLiteral("(no sessions)\n");
    writeText(stdout, text);
    return Ok;
}

// ---------------------------------------------------------------------------------------
// runs

int executeRuns(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Lists the user's runs in the sandbox (~/.sandscope/runs/<chat>/<run>.jsonl), most\n"
        "recent first: running, exited with a status, or ended without one (killed). Show one\n"
        "again with `sandscope run --chat CHAT --attach RUN`."));
    const QCommandLineOption chatOption(
        QStringLiteral("chat"), QStringLiteral("Only this chat."), QStringLiteral("ID"));
    const QCommandLineOption jsonOption(
        QStringLiteral("json"), QStringLiteral("Print one JSON object."));
    parser.addOptions({chatOption, jsonOption});
    ConnectionOptions options;
    const int parsed = parseArguments(parser, runsVerb, arguments,
        QStringLiteral("runs --server URL --user ID [--chat ID] [--json]"), options);
    if (parsed >= 0)
        return parsed;
    const QString chatId = parser.value(chatOption);

    OpenTerminalClient client(options.connection);
    QString why;
    rundiscovery::Listing listing;
    if (!listAsUser(&rundiscovery::list, client, options, &listing, &why))
        return listingFailed(why, options);
    QVector<DiscoveredRun> runs;
    std::copy_if(listing.runs.cbegin(), listing.runs.cend(), std::back_inserter(runs),
        [&](const DiscoveredRun &run) { return chatId.isEmpty() || run.chatId == chatId; });

    if (parser.isSet(jsonOption)) {
        QJsonArray array;
        for (const DiscoveredRun &run : std::as_const(runs)) {
            static const char *const states[] = {"running", "exited", "ended"};
            array.append(QJsonObject {{QStringLiteral("chat"), run.chatId},
                {QStringLiteral("run_id"), run.runId},
                {QStringLiteral("state"), QLatin1String(states[int(run.state)])},
                {QStringLiteral("exit_code"),
                    run.state == DiscoveredRun::State::Finished ? QJsonValue(run.exitCode)
                                                                : QJsonValue()},
                {QStringLiteral("output_path"), run.teePath},
                {QStringLiteral("output_size"), double(run.size)},
                {QStringLiteral("last_output"), orNull(isoTime(run.lastWrite))},
                {QStringLiteral("prompt_start"), run.promptStart}});
        }
        const QJsonObject root {{QStringLiteral("user"), options.userId},
            {QStringLiteral("home"), listing.home}, {QStringLiteral("runs"), array}};
        writeBytes(stdout, QJsonDocument(root).toJson(QJsonDocument::Indented));
        return Ok;
    }
    QString text = QStringLiteral("CHAT").leftJustified(24) + QLatin1Char(' ')
        + QStringLiteral("RUN").leftJustified(24) + QStringLiteral("  ")
        + QStringLiteral("STATE").leftJustified(24) + QStringLiteral("  ")
        + QStringLiteral("LAST OUTPUT (UTC)").leftJustified(20) + QStringLiteral("  PROMPT\n");
    for (const DiscoveredRun &run : std::as_const(runs)) {
        text += run.chatId.leftJustified(24) + QLatin1Char(' ') + run.runId.leftJustified(24)
            + QStringLiteral("  ") + rundiscovery::stateText(run).leftJustified(24)
            + QStringLiteral("  ") + isoTime(run.lastWrite).leftJustified(20) + QStringLiteral("  ")
            + firstLine(run.promptStart, 60) + QLatin1Char('\n');
    }
    if (runs.isEmpty())
        text += QStringLiteral("(no runs)\n");
    writeText(stdout, text);
    return Ok;
}

} // namespace

int runRuns(const QStringList &arguments)
{
    return executeRuns(arguments);
}

int runRun(const QStringList &arguments)
{
    return executeRun(arguments);
}

int runSessions(const QStringList &arguments)
{
    return executeSessions(arguments);
}

QString runVerbsSummary()
{
    return QStringLiteral(
        "  run           Run Claude Code in a chat as a sandbox user and show it live\n"
        "                (--resume / --fork continue the chat's last session)\n"
        "  sessions      List a user's chats with their Claude sessions and last activity\n"
        "  runs          List a user's runs in the sandbox (attach with run --attach)\n");
}

} // namespace sandscope::cli
