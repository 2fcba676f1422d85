#include "replayverb.h"

#include "cli/clioutput.h"
#include "cli/runinput.h"
#include "cli/treeprinter.h"
#include "cli/verbsupport.h"
#include "export/runjsonformat.h"
#include "recordings/runrecording.h"
#include "runtree/runmodel.h"
#include "security/secretredactor.h"
#include "streamjson/runfacts.h"
#include "streamjson/runparser.h"
#include "streamjson/runsummary.h"
#include "util/format.h"
#include "util/terminalsafe.h"

#include <QCommandLineParser>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>

#include <cstdio>

namespace sandscope::cli {

const QString replayVerb = QStringLiteral("replay");

namespace {

enum ExitCode { RunSucceeded = 0, RunFailed = 1, UsageError = 2 };

// --follow ends this long after the session's last turn ended, when nothing new came.
constexpr int followSettleMs = 5000;

// The summary's rows (runfacts::rows: the exports' and the window's words), aligned.
QString humanSummary(const RunSummary &summary)
{
    QString text;
    const QList<QPair<QString, QString>> rows = runfacts::rows(summary);
    for (const auto &[label, value] : rows)
        text += QStringLiteral("%1 %2\n")
                    .arg(label + QLatin1Char(':'), -18)
                    .arg(TerminalSafe::line(value));
    return text;
}

QJsonObject jsonSummary(const RunSummary &summary)
{
    QJsonObject json = summary.toJson();
    json.insert(QStringLiteral("outcome"), runfacts::outcomeText(summary));
    json.insert(QStringLiteral("lines"), summary.lines);
    return json;
}

void appendOutline(const RunModel &model, const QModelIndex &parent, int depth, QString &out)
{
    for (int row = 0; row < model.rowCount(parent); ++row) {
        const QModelIndex index = model.index(row, RunModel::SummaryColumn, parent);
        QString line
            = QString(2 * depth, QLatin1Char(' ')) + TerminalSafe::line(index.data().toString());
        QStringList facts;
        for (int column = RunModel::StatusColumn; column < RunModel::ColumnCount; ++column) {
            const QString value = index.siblingAtColumn(column).data().toString();
            if (!value.isEmpty())
                facts.append(TerminalSafe::line(value));
        }
        if (!facts.isEmpty())
            line += QStringLiteral("  [") + facts.join(QStringLiteral(", ")) + QLatin1Char(']');
        out += line + QLatin1Char('\n');
        appendOutline(model, index, depth + 1, out);
    }
}

QString help()
{
    return QStringLiteral(
        "Usage: sandscope replay FILE [--summary] [--json]\n"
        "       sandscope replay --server URL --user ID --session SID [--follow] [--summary]\n"
        "                        [--json]\n"
        "\n"
        "Replays a Claude Code stream-json capture (claude -p --output-format stream-json\n"
        "--verbose), a Sandscope run recording or a Claude Code session transcript\n"
        "(~/.claude/projects/<dir>/<session>.jsonl; its <session>/subagents/ folder is read\n"
        "when present) and prints the run as an outline: turns, text, tool calls with their\n"
        "status, duration, tokens and cost, then the summary.\n"
        "\n"
        "Options:\n"
        "The second form reads the session's transcript in the sandbox as that user (any\n"
        "session, also those Open WebUI started; see `sandscope sessions`). With --follow\n"
        "it prints the run as it grows, until the session's last turn has ended and nothing\n"
        "new came for 5 s; Ctrl+C ends following, never the run.\n"
        "\n"
        "  --summary   Print only the summary\n"
        "  --json      Print only the summary, as one JSON object:\n"
        "              {\"type\":\"sandscope_summary\", \"session_id\", \"result_subtype\"\n"
        "              (null without a result), \"is_error\", \"tool_calls\", \"tool_errors\",\n"
        "              \"unmatched_tool_calls\", \"cost_usd\", \"input_tokens\",\n"
        "              \"output_tokens\", \"cache_read_tokens\", \"cache_creation_tokens\",\n"
        "              \"turns\" (prompts that started work), \"round_trips\" (API calls:\n"
        "              claude's num_turns; null, not recorded, without result lines: a\n"
        "              transcript), \"duration_ms\" (first line to the last turn's\n"
        "              end, on the run's clock), \"claude_duration_ms\" (the results'\n"
        "              duration_ms, or a transcript's turn_duration records'\n"
        "              durationMs, summed; null without any), \"outcome\", \"lines\"}\n"
        "              (lines: the non-blank lines of the run read, sub-agent files not\n"
        "              counted)\n"
        "  --session SID  The session to read\n"
        "  --follow    Keep reading while the session grows\n"
        "  --server URL, --profile NAME, --user ID, --api-key-file PATH\n"
        "              Where and as whom the session is read (see `sandscope --help`)\n"
        "  -h, --help  Show this help\n"
        "\n"
        "Exit codes: 0 the run succeeded; 1 the run failed, ended without a result line\n"
        "(a transcript: its last turn did not finish), or the file cannot be read; 2 usage\n"
        "error. A transcript's cost is its last cost-state record's.\n");
}

} // namespace

QString replayVerbSummary()
{
    return QStringLiteral(
        "  replay        Show a recorded run (stream-json capture, recording or session\n"
        "                transcript) and its summary; exits 0 only when the run succeeded\n");
}

namespace {

QString outcomeText(const RunSummary &summary, bool json)
{
    return json
        ? QString::fromUtf8(QJsonDocument(jsonSummary(summary)).toJson(QJsonDocument::Compact))
            + QLatin1Char('\n')
        : humanSummary(summary);
}

// replay --server URL --user ID --session SID [--follow]: the transcript read in the sandbox.
int replaySession(const QStringList &arguments)
{
    QCommandLineParser parser;
    const QCommandLineOption sessionOption(
        QStringLiteral("session"), QStringLiteral("The session to read."), QStringLiteral("SID"));
    const QCommandLineOption followOption(
        QStringLiteral("follow"), QStringLiteral("Keep reading while the session grows."));
    const QCommandLineOption summaryOption(
        QStringLiteral("summary"), QStringLiteral("Print only the summary."));
    const QCommandLineOption jsonOption(
        QStringLiteral("json"), QStringLiteral("Print only the summary, as JSON."));
    parser.addOptions({sessionOption, followOption, summaryOption, jsonOption});
    ConnectionOptions options;
    const int parsed = parseUserVerbArguments(parser, replayVerb, arguments,
        QStringLiteral("replay --server URL --user ID --session SID [--follow] [--summary] "
                       "[--json]"),
        options);
    if (parsed >= 0)
        return parsed;
    const QString sessionId = parser.value(sessionOption);
    if (sessionId.isEmpty())
        return usageError(QStringLiteral("replay from a server needs --session SID"), replayVerb);
    const bool json = parser.isSet(jsonOption);
    const bool summaryOnly = json || parser.isSet(summaryOption);
    SecretRedactor redactor;
    redactor.addSecret(options.connection.apiKey);

    OpenTerminalClient client(options.connection);
    auditRead(options, QStringLiteral("read-session"), sessionId);
    QString path;
    QString why;
    if (!findSessionTranscript(client, options, sessionId, &path, &why)) {
        printError(redactor.redact(why));
        return RunFailed;
    }

    RunModel model;
    RunSummaryBuilder summary;
    const bool follow = parser.isSet(followOption);
    TreePrinter printer(&model,
        [&](const QString &line) { writeText(stdout, redactor.redact(line) + QLatin1Char('\n')); });
    qint64 lastArrivalMs = 0;
    const auto addEvents = [&](const RunEventBatch &events) {
        summary.add(events);
        if (!events.isEmpty())
            lastArrivalMs = std::max(lastArrivalMs, events.constLast().arrivalMs);
        if (summaryOnly)
            return;
        model.addEvents(events);
        if (follow)
            printer.flush();
    };
    if (follow && !summaryOnly)
        printError(QStringLiteral("Following %1 as %2 (Ctrl+C stops following)")
                       .arg(path, options.userId));
    const TranscriptReading reading
        = readTranscript(client, options, path, follow, followSettleMs, addEvents, &printError);
    if (!reading.completed)
        printError(reading.failure);

    // Following may end in the middle of a turn: the summary then says so.
    RunSummary result = summary.summary(true);
    result.lines = reading.linesParsed;
    QString out;
    if (!summaryOnly) {
        model.markRunEnded(lastArrivalMs);
        if (follow) {
            printer.flush();
            out += QLatin1Char('\n');
        } else {
            appendOutline(model, QModelIndex(), 0, out);
            out += QLatin1Char('\n');
        }
    }
    out += outcomeText(result, json);
    if (!(json ? writeText : writeTerminalText)(stdout, redactor.redact(out))) {
        printError(QStringLiteral("could not write to standard output"));
        return RunFailed;
    }
    if (!reading.completed && reading.bytesRead == 0)
        return serverErrorExitCode;
    return result.isError ? RunFailed : RunSucceeded;
}

} // namespace

int runReplay(const QStringList &arguments)
{
    if (namesAServer(arguments))
        return replaySession(arguments);

    QCommandLineParser parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption helpOption(QStringList {QStringLiteral("h"), QStringLiteral("help")});
    const QCommandLineOption summaryOption(QStringLiteral("summary"));
    const QCommandLineOption jsonOption(QStringLiteral("json"));
    parser.addOptions({helpOption, summaryOption, jsonOption});
    parser.addPositionalArgument(QStringLiteral("file"), QString());
    if (!parser.parse(QStringList {QStringLiteral("sandscope")} + arguments))
        return usageError(parser.errorText(), replayVerb);
    if (parser.isSet(helpOption)) {
        writeText(stdout, help());
        return RunSucceeded;
    }
    const QStringList files = parser.positionalArguments();
    if (files.size() != 1)
        return usageError(files.isEmpty() ? QStringLiteral("replay needs a FILE")
                                          : QStringLiteral("replay takes one FILE"),
            replayVerb);

    const bool json = parser.isSet(jsonOption);
    const bool summaryOnly = json || parser.isSet(summaryOption);
    // The fast path reads events without a tree (RecordingReader::summarize); a JSON export
    // holds a tree and its summary instead.
    if (summaryOnly && !RunJsonFormat::looksLikeExport(files.constFirst())) {
        RunSummary summary;
        QString why;
        QStringList problems;
        const bool read = summarizeRunFile(files.constFirst(), &summary, &why, &problems);
        for (const QString &problem : std::as_const(problems))
            printError(QStringLiteral("warning: %1: %2").arg(files.constFirst(), problem));
        if (!read) {
            printError(why);
            return RunFailed;
        }
        if (!(json ? writeText : writeTerminalText)(stdout, outcomeText(summary, json))) {
            printError(QStringLiteral("could not write to standard output"));
            return RunFailed;
        }
        return summary.isError ? RunFailed : RunSucceeded;
    }

    LoadedRun run;
    const int loaded = loadFileRun(files.constFirst(), &run);
    if (loaded >= 0)
        return loaded;
    RunModel model;
    run.buildModel(&model);

    RunSummary summary = model.summary();
    if (!run.exported)
        summary.lines = run.lines;
    QString out;
    if (!summaryOnly) {
        appendOutline(model, QModelIndex(), 0, out);
        out += QLatin1Char('\n');
    }
    out += outcomeText(summary, json);
    if (!(json ? writeText : writeTerminalText)(stdout, out)) {
        printError(QStringLiteral("could not write to standard output"));
        return RunFailed;
    }
    return summary.isError ? RunFailed : RunSucceeded;
}

} // namespace sandscope::cli
