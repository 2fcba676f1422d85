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

#include <QCommandLineParser>
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
        return serverErrorExitCode;
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

} // namespace

// ---------------------------------------------------------------------------------------
// run

int runRun(const QStringList &arguments)
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
    const int parsed = parseUserVerbArguments(parser, runVerb, arguments,
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
    const SessionScope scope = sessionScopeOf(options);
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
    const auto signalNotifier = onStopSignals(requestStop);

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
            return serverErrorExitCode;
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

QString runVerbsSummary()
{
    return QStringLiteral(
        "  run           Run Claude Code in a chat as a sandbox user and show it live\n"
        "                (--resume / --fork continue the chat's last session)\n"
        "  sessions      List a user's chats with their Claude sessions and last activity\n"
        "  runs          List a user's runs in the sandbox (attach with run --attach)\n");
}

} // namespace sandscope::cli
