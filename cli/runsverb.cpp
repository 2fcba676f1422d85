#include "claude/claudecommand.h"
#include "cli/clioutput.h"
#include "cli/connectionoptions.h"
#include "cli/verbsupport.h"
#include "runs/rundiscovery.h"
#include "runverbs.h"
#include "server/openterminalclient.h"
#include "util/terminalsafe.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

namespace sandscope::cli {

const QString runsVerb = QStringLiteral("runs");

namespace {

enum ExitCode { Ok = 0, Error = 1, UsageError = 2, ServerError = 3 };

} // namespace

// ---------------------------------------------------------------------------------------
// runs

int runRuns(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Lists the user's runs in the sandbox (~/.sandscope/runs/<chat>/<run>.jsonl), most\n"
        "recent first: running, exited with a status, or ended without one (killed). Show one\n"
        "again with `sandscope run --chat CHAT --attach RUN`. A run whose files are links out of\n"
        "the user's home is not listed (named on stderr) and cannot be attached."));
    const QCommandLineOption chatOption(
        QStringLiteral("chat"), QStringLiteral("Only this chat."), QStringLiteral("ID"));
    const QCommandLineOption jsonOption(
        QStringLiteral("json"), QStringLiteral("Print one JSON object."));
    parser.addOptions({chatOption, jsonOption});
    ConnectionOptions options;
    const int parsed = parseUserVerbArguments(parser, runsVerb, arguments,
        QStringLiteral("runs --server URL --user ID [--chat ID] [--json]"), options);
    if (parsed >= 0)
        return parsed;
    const QString chatId = parser.value(chatOption);

    OpenTerminalClient client(options.connection);
    QString why;
    rundiscovery::Listing listing;
    if (!listAsUser(&rundiscovery::list, client, options, &listing, &why))
        return listingFailed(why, options);
    for (const QString &refusal : std::as_const(listing.refused))
        printError(QStringLiteral("not listed: ") + refusal);
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
                {QStringLiteral("last_output"), stringOrNull(isoTime(run.lastWrite))},
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
        text += TerminalSafe::line(run.chatId).leftJustified(24) + QLatin1Char(' ')
            + TerminalSafe::line(run.runId).leftJustified(24) + QStringLiteral("  ")
            + rundiscovery::stateText(run).leftJustified(24) + QStringLiteral("  ")
            + isoTime(run.lastWrite).leftJustified(20) + QStringLiteral("  ")
            + firstLine(run.promptStart, 60) + QLatin1Char('\n');
    }
    if (runs.isEmpty())
        text += QStringLiteral("(no runs)\n");
    writeTerminalText(stdout, text);
    return Ok;
}

} // namespace sandscope::cli
