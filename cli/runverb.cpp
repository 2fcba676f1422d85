#include "claude/claudecommand.h"
#include "cli/clioutput.h"
#include "cli/connectionoptions.h"
#include "cli/treeprinter.h"
#include "cli/verbsupport.h"
#include "runs/runcontroller.h"
#include "runs/rundiscovery.h"
#include "runs/runsession.h"
#include "runtree/runmodel.h"
#include "runverbs.h"
#include "security/secretredactor.h"
#include "server/openterminalclient.h"
#include "sessions/sessiondiscovery.h"
#include "sessions/sessionstore.h"
#include "streamjson/runfacts.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSocketNotifier>

#include <algorithm>
#include <cstdio>
#include <memory>

namespace sandscope::cli {

const QString runVerb = QStringLiteral("run");

namespace {

enum ExitCode { Ok = 0, Error = 1, UsageError = 2, ServerError = 3 };

// How long Ctrl+C waits after SIGTERM before it sends SIGKILL.
constexpr int stopGraceMs = 3000;

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

// The figures in runfacts' words (replay's, the exports' and the window's).
QString summaryText(const RunSummary &summary)
{
    QString text = QStringLiteral("Summary: ") + runfacts::outcomeText(summary);
    if (!summary.hasResult)
        text += QStringLiteral(" (no result)");
    text += QCoreApplication::translate("replay", " · %n turn(s)", nullptr, summary.turns);
    text += summary.roundTripsRecorded()
        ? QCoreApplication::translate("replay", ", %n round trip(s)", nullptr, summary.roundTrips)
        : QStringLiteral(", round trips ") + runfacts::notRecordedText();
    text += QCoreApplication::translate(
        "replay", " · %n tool call(s), %1 failed, %2 without result", nullptr, summary.toolCalls)
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
        return serverErrorExitCode;
    case RunOutcome::Kind::Stopped:
        return stopSignal != 0 ? 128 + stopSignal : Error;
    case RunOutcome::Kind::ErrorResult:
    case RunOutcome::Kind::NoResult:
    case RunOutcome::Kind::Interrupted:
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
    case RunOutcome::Kind::Interrupted:
        return outcome.failure
            + (outcome.sessionId.isEmpty()
                    ? QString()
                    : QStringLiteral(" Resume its session with: sandscope run --chat <chat> "
                                     "--resume --prompt <text>"));
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
    const SessionRecord local = SessionStore().latest(sessionScopeOf(options), chatId);
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
// run: parse the arguments, build the request, then follow the turn in an event loop

// What `run` was asked to do, checked: the chat, the prompt or the run to attach to, claude's
// options and the agent's environment.
struct RunArguments {
    ConnectionOptions options;
    QString chatId;
    QString prompt;
    QString attachRunId;
    QString recordPath;
    bool record = false;
    ClaudeRunOptions runOptions;
    QHash<QString, QString> environment;
    bool resume = false;
    bool fork = false;
    bool json = false;
};

// The options of `run`, with its help.
struct RunCommandLine {
    RunCommandLine();

    QCommandLineParser parser;
    const QCommandLineOption chat {QStringLiteral("chat"),
        QStringLiteral("Chat id: 1-64 of [A-Za-z0-9_-], not starting with - or _."),
        QStringLiteral("ID")};
    const QCommandLineOption prompt {
        QStringLiteral("prompt"), QStringLiteral("The prompt."), QStringLiteral("TEXT")};
    const QCommandLineOption resume {QStringLiteral("resume"),
        QStringLiteral("Continue the chat's last session (recorded locally, else found on the "
                       "server).")};
    const QCommandLineOption fork {QStringLiteral("fork"),
        QStringLiteral("Like --resume, but continue in a new session (a fork of the last one).")};
    const QCommandLineOption model {
        QStringLiteral("model"), QStringLiteral("Model for claude --model."), QStringLiteral("M")};
    const QCommandLineOption permission {QStringLiteral("permission-mode"),
        QStringLiteral("One of: %1.")
            .arg(claudecommand::permissionModes().join(QStringLiteral(", "))),
        QStringLiteral("M")};
    const QCommandLineOption tools {QStringLiteral("allowed-tools"),
        QStringLiteral("Comma-separated tool rules for --allowedTools, e.g. \"Bash(git *),Read\"; "
                       "may be repeated."),
        QStringLiteral("LIST")};
    const QCommandLineOption maxTurns {QStringLiteral("max-turns"),
        QStringLiteral("Stop after N model round-trips."), QStringLiteral("N")};
    const QCommandLineOption envFile {QStringLiteral("agent-env-file"),
        QStringLiteral("Local file (chmod 600) of NAME=VALUE lines for the agent, e.g. "
                       "ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY."),
        QStringLiteral("FILE")};
    const QCommandLineOption record {QStringLiteral("record"),
        QStringLiteral("Record every stream line with its arrival time to FILE (replayable)."),
        QStringLiteral("FILE")};
    const QCommandLineOption json {QStringLiteral("json"),
        QStringLiteral("Print the stream-json lines and a summary line instead of the tree.")};
    const QCommandLineOption attach {QStringLiteral("attach"),
        QStringLiteral("Instead of starting a run, show run RUN of the chat (from `sandscope "
                       "runs`) and follow it while it runs."),
        QStringLiteral("RUN")};
};

RunCommandLine::RunCommandLine()
{
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
    parser.addOptions({chat, prompt, resume, fork, model, permission, tools, maxTurns, envFile,
        record, json, attach});
}

// The chat, and either a prompt or a run to attach to (with none of the options that start
// a run). Returns -1 to go on, else the exit code.
int checkTarget(const RunCommandLine &line, RunArguments *run)
{
    QString why;
    run->chatId = line.parser.value(line.chat);
    if (run->chatId.isEmpty())
        return usageError(QStringLiteral("run needs --chat ID"), runVerb);
    if (!claudecommand::isValidChatId(run->chatId, &why))
        return usageError(
            QStringLiteral("--chat \"%1\" refused: %2").arg(run->chatId, why), runVerb);
    run->prompt = line.parser.value(line.prompt);
    run->attachRunId = line.parser.value(line.attach);
    if (!run->attachRunId.isEmpty()) {
        if (!claudecommand::isValidRunId(run->attachRunId, &why))
            return usageError(
                QStringLiteral("--attach \"%1\" refused: %2").arg(run->attachRunId, why), runVerb);
        for (const QCommandLineOption &startOnly : {line.prompt, line.resume, line.fork, line.model,
                 line.permission, line.tools, line.maxTurns, line.envFile}) {
            if (line.parser.isSet(startOnly))
                return usageError(QStringLiteral("--%1 starts a run; it cannot be used with "
                                                 "--attach")
                                      .arg(startOnly.names().constFirst()),
                    runVerb);
        }
    } else if (run->prompt.isEmpty()) {
        return usageError(QStringLiteral("run needs a non-empty --prompt TEXT"), runVerb);
    }
    run->resume = line.parser.isSet(line.resume);
    run->fork = line.parser.isSet(line.fork);
    if (run->resume && run->fork)
        return usageError(QStringLiteral("--resume and --fork exclude each other"), runVerb);
    return -1;
}

// claude's options and the agent's environment. Returns -1 to go on, else the exit code.
int checkRunOptions(const RunCommandLine &line, RunArguments *run)
{
    ClaudeRunOptions &runOptions = run->runOptions;
    runOptions.model = line.parser.value(line.model);
    runOptions.permissionMode = line.parser.value(line.permission);
    for (const QString &list : line.parser.values(line.tools))
        runOptions.allowedTools << splitToolRules(list);
    if (line.parser.isSet(line.maxTurns)) {
        bool ok = false;
        runOptions.maxTurns = line.parser.value(line.maxTurns).toInt(&ok);
        if (!ok || runOptions.maxTurns < 1)
            return usageError(QStringLiteral("--max-turns needs a positive number"), runVerb);
    }
    if (const QString problem = claudecommand::validate(runOptions); !problem.isEmpty())
        return usageError(problem, runVerb);
    QString why;
    if (line.parser.isSet(line.envFile)
        && !readAgentEnvironment(line.parser.value(line.envFile), &run->environment, &why)) {
        printError(why);
        return Error;
    }
    run->record = line.parser.isSet(line.record);
    run->recordPath = line.parser.value(line.record);
    run->json = line.parser.isSet(line.json);
    return -1;
}

// Returns -1 to go on, else the exit code (0 after --help).
int parseRunArguments(const QStringList &arguments, RunArguments *run)
{
    RunCommandLine line;
    const int parsed = parseUserVerbArguments(line.parser, runVerb, arguments,
        QStringLiteral("run --server URL --user ID --chat ID --prompt TEXT [options]"),
        run->options);
    if (parsed >= 0)
        return parsed;
    if (const int checked = checkTarget(line, run); checked >= 0)
        return checked;
    return checkRunOptions(line, run);
}

// Nothing secret may reach the terminal: the server key and the agent variables whose names
// say they hold credentials (ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, ...).
void addSecrets(const RunArguments &run, SecretRedactor *redactor)
{
    redactor->addSecret(run.options.connection.apiKey);
    for (auto it = run.environment.cbegin(); it != run.environment.cend(); ++it) {
        if (LiveRun::isSecretName(it.key()))
            redactor->addSecret(it.value());
    }
}

// The turn to start, with the session to resume looked up for --resume and --fork.
// Returns -1 to go on, else the exit code.
int buildRequest(const RunArguments &run, OpenTerminalClient &client,
    const SecretRedactor &redactor, LiveRunRequest *request)
{
    request->identity.userId = run.options.userId;
    request->scope = sessionScopeOf(run.options);
    request->chatId = run.chatId;
    request->prompt = run.prompt;
    request->options = run.runOptions;
    request->environment = run.environment;
    if (!run.resume && !run.fork)
        return -1;
    ResumeTarget target;
    bool serverFailure = false;
    QString why;
    if (!findSessionToResume(client, run.options, run.chatId, &target, &why, &serverFailure)) {
        printError(redactor.redact(why));
        return serverFailure ? ServerError : Error;
    }
    request->options.resumeSessionId = target.sessionId;
    request->options.forkSession = run.fork;
    if (!run.json)
        writeText(stdout,
            QStringLiteral("%1 session %2 (%3)\n")
                .arg(run.fork ? QStringLiteral("Forking") : QStringLiteral("Resuming"),
                    target.sessionId,
                    target.source == QLatin1String("local")
                        ? QStringLiteral("recorded locally")
                        : QStringLiteral("found on the server")));
    return -1;
}

// One turn followed in an event loop: the controller's lines and events printed as a tree or
// as JSON, Ctrl+C escalated, the outcome turned into the exit code.
class RunFollower {
public:
    RunFollower(const RunArguments &run, OpenTerminalClient *client, const SecretRedactor &redactor)
        : m_run(run)
        , m_client(client)
        , m_redactor(redactor)
        , m_controller(client)
        , m_printer(&m_model, [this](const QString &line) { writeLine(line); })
    {
        connectController();
    }

    // The controller masks the secrets, holds PTY-damaged lines for their repair, records
    // every line and the session, audits starting and stopping, as it does for the GUI.
    bool openRecording(const LiveRunRequest &request)
    {
        QString why;
        if (m_controller.openRecording(
                m_run.recordPath, request, QStringLiteral("sandscope run"), &why))
            return true;
        printError(QStringLiteral("cannot record to %1: %2").arg(m_run.recordPath, why));
        return false;
    }

    int start(const LiveRunRequest &request)
    {
        const auto signalNotifier = onStopSignals([this](int signal) { requestStop(signal); });
        if (m_run.attachRunId.isEmpty())
            m_controller.startTurn(request);
        else if (const int failed = attach(request); failed >= 0)
            return failed;
        m_loop.exec();
        return m_exitCode;
    }

private:
    bool writeLine(const QString &line)
    {
        return writeText(stdout, m_redactor.redact(line) + QLatin1Char('\n'));
    }

    void printJsonLine(const QByteArray &bytes)
    {
        const QString trimmed = QString::fromUtf8(bytes).trimmed();
        if (trimmed.startsWith(QLatin1Char('{'))
            && QJsonDocument::fromJson(trimmed.toUtf8()).isObject()) {
            if (!writeLine(trimmed) && m_stopSignal == 0)
                printError(QStringLiteral("cannot write to stdout"));
        } else if (!trimmed.isEmpty()) {
            printError(QStringLiteral("skipped a line that is not JSON: ")
                + m_redactor.redact(firstLine(trimmed, 200)));
        }
    }

    void connectController()
    {
        QObject::connect(
            &m_controller, &RunController::recordingFailed, &m_loop, [](const QString &message) {
                printError(QStringLiteral("warning: recording stopped: ") + message);
            });
        QObject::connect(&m_controller, &RunController::eventsReady, &m_loop,
            [this](const RunEventBatch &events) {
                m_model.addEvents(events);
                if (!m_run.json)
                    m_printer.flush();
            });
        if (m_run.json)
            QObject::connect(&m_controller, &RunController::lineReady, &m_loop,
                [this](const QByteArray &bytes) { printJsonLine(bytes); });
        QObject::connect(&m_controller, &RunController::notice, &m_loop,
            [this](const QString &message) { printError(m_redactor.redact(message)); });
        QObject::connect(&m_controller, &RunController::turnStarted, &m_loop,
            [this](const RunHandle &handle, bool attached) {
                if (!m_run.json && !attached)
                    writeLine(QStringLiteral("Run %1 of chat %2 as %3 started (tee copy: %4)")
                                  .arg(handle.runId, m_run.chatId, m_run.options.userId,
                                      handle.teePath()));
            });
        QObject::connect(&m_controller, &RunController::turnEnded, &m_loop,
            [this](const RunOutcome &outcome) { endTurn(outcome); });
    }

    void endTurn(const RunOutcome &outcome)
    {
        m_model.markRunEnded(QDateTime::currentMSecsSinceEpoch());
        if (!m_run.json)
            m_printer.flush();
        const RunSummary summary = m_model.summary();
        if (m_run.json)
            writeLine(
                QString::fromUtf8(QJsonDocument(summary.toJson()).toJson(QJsonDocument::Compact)));
        else
            writeLine(summaryText(summary));
        m_controller.closeRecording();
        m_exitCode = exitCodeOf(outcome, m_stopSignal);
        const QString message = outcomeMessage(outcome, m_run.options);
        if (!message.isEmpty())
            printError(m_redactor.redact(message));
        m_loop.exit();
    }

    // Ctrl+C: SIGTERM (SIGKILL after a grace period); again: SIGKILL now; a third time: stop
    // waiting (the run may go on in the sandbox).
    void requestStop(int signalNumber)
    {
        m_stopSignal = signalNumber;
        const RunHandle handle = m_controller.handle();
        switch (m_controller.requestStop(stopGraceMs)) {
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
            m_exitCode = 128 + signalNumber;
            m_loop.exit();
            break;
        }
    }

    // --attach: finds the run among the user's runs and follows it. Returns -1 when it is
    // followed, else the exit code.
    int attach(const LiveRunRequest &request)
    {
        rundiscovery::Listing listing;
        bool listed = false;
        QString why;
        rundiscovery::list(m_client, request.identity, &m_loop,
            [&](bool ok, const rundiscovery::Listing &found, const QString &error) {
                listed = ok;
                listing = found;
                why = error;
                m_loop.exit();
            });
        m_loop.exec();
        if (m_stopSignal != 0)
            return m_exitCode;
        if (!listed) {
            printError(m_redactor.redact(serverMessage(why, m_run.options)));
            return serverErrorExitCode;
        }
        const auto run
            = std::find_if(listing.runs.cbegin(), listing.runs.cend(), [&](const DiscoveredRun &r) {
                  return r.chatId == m_run.chatId && r.runId == m_run.attachRunId;
              });
        if (run == listing.runs.cend()) {
            printError(QStringLiteral("%1 has no run %2 in chat %3 (see `sandscope runs`)")
                           .arg(m_run.options.userId, m_run.attachRunId, m_run.chatId));
            return Error;
        }
        if (!m_run.json)
            writeLine(QStringLiteral("Attached to run %1 of chat %2 as %3 (%4; output: %5)")
                          .arg(run->runId, m_run.chatId, m_run.options.userId,
                              rundiscovery::stateText(*run), run->teePath));
        m_controller.attachTurn(
            request, rundiscovery::handleFor(request.identity, listing.home, *run));
        return -1;
    }

    const RunArguments &m_run;
    OpenTerminalClient *m_client;
    const SecretRedactor &m_redactor;
    RunController m_controller;
    RunModel m_model;
    TreePrinter m_printer;
    QEventLoop m_loop;
    int m_exitCode = Error;
    int m_stopSignal = 0;
};

} // namespace

int runRun(const QStringList &arguments)
{
    RunArguments run;
    if (const int parsed = parseRunArguments(arguments, &run); parsed >= 0)
        return parsed;
    SecretRedactor redactor;
    addSecrets(run, &redactor);
    OpenTerminalClient client(run.options.connection);
    LiveRunRequest request;
    if (const int failed = buildRequest(run, client, redactor, &request); failed >= 0)
        return failed;
    RunFollower follower(run, &client, redactor);
    if (run.record && !follower.openRecording(request))
        return Error;
    return follower.start(request);
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
