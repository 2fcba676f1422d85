#include "compareverb.h"

#include "cli/clioutput.h"
#include "cli/runinput.h"
#include "cli/verbsupport.h"
#include "compare/comparejob.h"
#include "compare/runcomparison.h"
#include "security/secretredactor.h"
#include "streamjson/runfacts.h"
#include "util/terminalsafe.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>

#include <algorithm>
#include <cmath>

namespace sandscope::cli {

const QString compareVerb = QStringLiteral("compare");

namespace {

enum ExitCode { RunsMatch = 0, RunsDiffer = 1, UsageError = 2 };

const QString sessionPrefix = QStringLiteral("session:");
// Input and output excerpts: the characters of each shown per call.
constexpr int humanExcerpt = 160;
constexpr int jsonExcerpt = 2000;

QString help()
{
    return QStringLiteral(
        "Usage: sandscope compare A B [--json]\n"
        "       sandscope compare session:SID A --server URL --user ID [--json]\n"
        "\n"
        "Compares two runs: stream-json captures, Sandscope run recordings or session\n"
        "transcripts (files), or sessions in the sandbox (session:SID, read as --user from\n"
        "--server or --profile; either or both arguments). Their tool calls are aligned\n"
        "(longest common subsequence over tool name and normalised input: ids dropped,\n"
        "whitespace collapsed, the working directory and chat folders written as <cwd>, home\n"
        "folders as ~; sub-agent calls align only at the same depth), then printed:\n"
        "the deltas of turns, round trips, tool calls, errors, tokens, cost, duration and\n"
        "outcome (docs/stream-json.md, \"Figures\"); each\n"
        "call that differs (- only in A, + only in B, ~ changed input, output or status)\n"
        "with excerpts of what differs; and the files each run touched.\n"
        "\n"
        "Options:\n"
        "  --json      Print one JSON object instead:\n"
        "              {\"type\":\"sandscope_compare\", \"same\", \"fallback_alignment\",\n"
        "               \"left\"/\"right\": {\"source\", \"calls\", \"outcome\", \"skipped\"},\n"
        "               \"deltas\": {KEY: {\"left\", \"right\", \"delta\"}} for turns,\n"
        "               round_trips, tool_calls, tool_errors, input_tokens, output_tokens,\n"
        "               cost_usd, duration_ms (a side that does not record the figure:\n"
        "               null, and the delta null: a transcript's round_trips), and\n"
        "               outcome {\"left\", \"right\", \"same\"},\n"
        "               \"counts\": {\"same\", \"changed\", \"added\", \"removed\"},\n"
        "               \"differences\": [{\"state\", \"fields\", \"left\", \"right\"}] where\n"
        "               a side is null or {\"index\", \"depth\", \"tool\", \"tool_use_id\",\n"
        "               \"input\", \"output\", \"is_error\"} (output cut at 2000 characters),\n"
        "               \"files\": [{\"path\", \"left\", \"right\"}] (tools per side)}\n"
        "  --server URL, --profile NAME, --user ID, --api-key-file PATH\n"
        "              Where session:SID arguments are read (see `sandscope --help`)\n"
        "  -h, --help  Show this help\n"
        "\n"
        "The runs match when every call aligns with the same input, output and status, and\n"
        "the outcome and the number of turns agree; round trips, tokens, cost and duration\n"
        "are shown but do not count. A transcript that ended normally\n"
        "counts as succeeded. Lines that could not be read (a truncated or corrupt file) are "
        "skipped\n"
        "and named on stderr.\n"
        "\n"
        "Exit codes: 0 the runs match; 1 they differ; 2 usage error, or an argument is not a\n"
        "run (cannot be read, or holds no run events); 3 server or transport error.\n");
}

bool namesASession(const QStringList &arguments)
{
    return std::any_of(arguments.cbegin(), arguments.cend(),
        [](const QString &argument) { return argument.startsWith(sessionPrefix); });
}

// Loads one argument; -1 to go on, otherwise the exit code (after printing why).
int loadRun(const QString &argument, const ConnectionOptions &options, LoadedRun *run)
{
    if (argument.startsWith(sessionPrefix)) {
        const QString sessionId = argument.mid(sessionPrefix.size());
        if (sessionId.isEmpty())
            return usageError(QStringLiteral("session: needs a session id"), compareVerb);
        const int loaded = loadSessionRun(options, sessionId, run);
        return loaded == serverErrorExitCode || loaded < 0 ? loaded : int(UsageError);
    }
    if (loadFileRun(argument, run) >= 0)
        return UsageError;
    if (const QString why = CompareJob::whyNotARun(*run, argument); !why.isEmpty()) {
        printError(why);
        return UsageError;
    }
    return -1;
}

// Cost in dollars, duration in ms, counts as integers.
QString number(const RunComparison::Delta &delta, double value)
{
    if (delta.key == QLatin1String("cost_usd"))
        return QStringLiteral("%1$%2")
            .arg(value < 0 ? QStringLiteral("-") : QString())
            .arg(std::abs(value), 0, 'f', 6);
    if (delta.key == QLatin1String("duration_ms"))
        return QLocale::c().toString(qint64(value)) + QStringLiteral(" ms");
    return QLocale::c().toString(qint64(value));
}

QString deltasTable(const RunComparison &comparison)
{
    QString out = QStringLiteral("%1 %2 %3 %4\n")
                      .arg(QString(), -16)
                      .arg(QStringLiteral("A"), -20)
                      .arg(QStringLiteral("B"), -20)
                      .arg(QStringLiteral("B - A"));
    for (const RunComparison::Delta &delta : comparison.deltas()) {
        QString a = !delta.leftRecorded ? runfacts::notRecordedText()
            : delta.isText              ? delta.leftText
                                        : number(delta, delta.left);
        QString b = !delta.rightRecorded ? runfacts::notRecordedText()
            : delta.isText               ? delta.rightText
                                         : number(delta, delta.right);
        QString change;
        if (!delta.leftRecorded || !delta.rightRecorded)
            change = QStringLiteral("unknown");
        else if (delta.isText)
            change = delta.differs() ? QStringLiteral("differs") : QStringLiteral("same");
        else if (delta.differs())
            change = (delta.right > delta.left ? QStringLiteral("+") : QString())
                + number(delta, delta.right - delta.left);
        else
            change = QStringLiteral("0");
        out += QStringLiteral("%1 %2 %3 %4\n")
                   .arg(delta.name + QLatin1Char(':'), -16)
                   .arg(a, -20)
                   .arg(b, -20)
                   .arg(change);
    }
    return out;
}

QString sideLine(const QString &tag, const QString &label, const QString &text)
{
    return QStringLiteral("      %1 %2: %3\n")
        .arg(label, -6)
        .arg(tag, firstLine(text, humanExcerpt));
}

// The first line where two texts differ, from each (what the excerpts show).
QPair<QString, QString> firstDifference(const QString &a, const QString &b)
{
    const QStringList left = a.split(QLatin1Char('\n'));
    const QStringList right = b.split(QLatin1Char('\n'));
    for (qsizetype i = 0; i < std::max(left.size(), right.size()); ++i) {
        const QString l = left.value(i);
        const QString r = right.value(i);
        if (l != r) {
            const QString where = i == 0 ? QString() : QStringLiteral("line %1: ").arg(i + 1);
            return {where + l, where + r};
        }
    }
    return {a, b};
}

QString differingLines(const QString &label, const QString &a, const QString &b)
{
    const auto [l, r] = firstDifference(a, b);
    return sideLine(QStringLiteral("A"), label, l) + sideLine(QStringLiteral("B"), label, r);
}

QString humanReport(const RunComparison &comparison)
{
    const ComparedRun &a = comparison.left();
    const ComparedRun &b = comparison.right();
    QString out = QStringLiteral("A: %1 (%2)\nB: %3 (%4)\n\n")
                      .arg(TerminalSafe::line(a.source),
                          QCoreApplication::translate(
                              "compare", "%n tool call(s)", nullptr, int(a.calls.size())),
                          TerminalSafe::line(b.source),
                          QCoreApplication::translate(
                              "compare", "%n tool call(s)", nullptr, int(b.calls.size())));
    out += deltasTable(comparison);
    out += QStringLiteral("\nCalls: %1 same, %2 changed, %3 added, %4 removed%5\n")
               .arg(comparison.count(RunComparison::State::Same))
               .arg(comparison.count(RunComparison::State::Changed))
               .arg(comparison.count(RunComparison::State::Added))
               .arg(comparison.count(RunComparison::State::Removed))
               .arg(comparison.usedFallback()
                       ? QStringLiteral(" (the runs differ too much for an exact alignment; "
                                        "a greedy one is shown)")
                       : QString());
    for (const RunComparison::Row &row : comparison.rows()) {
        switch (row.state) {
        case RunComparison::State::Same:
            continue;
        case RunComparison::State::Removed:
            out += QStringLiteral("- A#%1 %2\n")
                       .arg(row.left + 1)
                       .arg(firstLine(a.calls.at(row.left).label(), humanExcerpt));
            continue;
        case RunComparison::State::Added:
            out += QStringLiteral("+ B#%1 %2\n")
                       .arg(row.right + 1)
                       .arg(firstLine(b.calls.at(row.right).label(), humanExcerpt));
            continue;
        case RunComparison::State::Changed:
            break;
        }
        const ComparedCall &l = a.calls.at(row.left);
        const ComparedCall &r = b.calls.at(row.right);
        out += QStringLiteral("~ A#%1 B#%2 %3 (%4 differ)\n")
                   .arg(row.left + 1)
                   .arg(row.right + 1)
                   .arg(firstLine(l.label(), humanExcerpt),
                       RunComparison::fieldNames(row.fields).join(QStringLiteral(", ")));
        if (row.fields & RunComparison::InputField)
            out += differingLines(QStringLiteral("input"), l.input, r.input);
        if (row.fields & RunComparison::OutputField)
            out += differingLines(QStringLiteral("output"), l.output, r.output);
        if (row.fields & RunComparison::StatusField) {
            const auto status = [](const ComparedCall &call) {
                return !call.answered ? QStringLiteral("no result")
                    : call.isError    ? QStringLiteral("error")
                                      : QStringLiteral("ok");
            };
            out += sideLine(QStringLiteral("A"), QStringLiteral("status"), status(l))
                + sideLine(QStringLiteral("B"), QStringLiteral("status"), status(r));
        }
    }
    if (!comparison.files().isEmpty()) {
        out += QStringLiteral("\nFiles touched:\n");
        for (const RunComparison::FileTouch &file : comparison.files()) {
            const auto tools = [](const QStringList &list) {
                return list.isEmpty() ? QStringLiteral("-") : list.join(QLatin1Char(','));
            };
            const QChar mark = file.leftTools.isEmpty() ? QLatin1Char('+')
                : file.rightTools.isEmpty()             ? QLatin1Char('-')
                                                        : QLatin1Char(' ');
            out += QStringLiteral("%1 %2  A: %3  B: %4\n")
                       .arg(mark)
                       .arg(file.path, tools(file.leftTools), tools(file.rightTools));
        }
    }
    out += comparison.same() ? QStringLiteral("\nThe runs match.\n")
                             : QStringLiteral("\nThe runs differ.\n");
    return out;
}

QJsonValue callJson(const ComparedCall *call, int index)
{
    if (!call)
        return QJsonValue();
    return QJsonObject {
        {QStringLiteral("index"), index},
        {QStringLiteral("depth"), call->depth},
        {QStringLiteral("tool"), call->toolName},
        {QStringLiteral("tool_use_id"), call->toolUseId},
        {QStringLiteral("input"), call->input},
        {QStringLiteral("output"), call->output.left(jsonExcerpt)},
        {QStringLiteral("is_error"), call->isError},
    };
}

QJsonObject sideJson(const ComparedRun &run)
{
    return QJsonObject {
        {QStringLiteral("source"), run.source},
        {QStringLiteral("calls"), run.calls.size()},
        {QStringLiteral("outcome"), RunComparison::outcome(run.summary)},
        {QStringLiteral("skipped"), QJsonArray::fromStringList(run.skipped)},
    };
}

QString jsonReport(const RunComparison &comparison)
{
    QJsonObject deltas;
    for (const RunComparison::Delta &delta : comparison.deltas()) {
        if (delta.isText)
            deltas.insert(delta.key,
                QJsonObject {{QStringLiteral("left"), delta.leftText},
                    {QStringLiteral("right"), delta.rightText},
                    {QStringLiteral("same"), !delta.differs()}});
        else // a side that does not record the figure: null, and so is the delta
            deltas.insert(delta.key,
                QJsonObject {{QStringLiteral("left"),
                                 delta.leftRecorded ? QJsonValue(delta.left) : QJsonValue()},
                    {QStringLiteral("right"),
                        delta.rightRecorded ? QJsonValue(delta.right) : QJsonValue()},
                    {QStringLiteral("delta"),
                        delta.leftRecorded && delta.rightRecorded
                            ? QJsonValue(delta.right - delta.left)
                            : QJsonValue()}});
    }
    QJsonArray differences;
    for (const RunComparison::Row &row : comparison.rows()) {
        if (row.state == RunComparison::State::Same)
            continue;
        differences.append(QJsonObject {
            {QStringLiteral("state"), RunComparison::stateName(row.state)},
            {QStringLiteral("fields"),
                QJsonArray::fromStringList(RunComparison::fieldNames(row.fields))},
            {QStringLiteral("left"),
                callJson(row.left < 0 ? nullptr : &comparison.left().calls.at(row.left), row.left)},
            {QStringLiteral("right"),
                callJson(
                    row.right < 0 ? nullptr : &comparison.right().calls.at(row.right), row.right)},
        });
    }
    QJsonArray files;
    for (const RunComparison::FileTouch &file : comparison.files())
        files.append(QJsonObject {{QStringLiteral("path"), file.path},
            {QStringLiteral("left"), QJsonArray::fromStringList(file.leftTools)},
            {QStringLiteral("right"), QJsonArray::fromStringList(file.rightTools)}});
    const QJsonObject json {
        {QStringLiteral("type"), QStringLiteral("sandscope_compare")},
        {QStringLiteral("same"), comparison.same()},
        {QStringLiteral("fallback_alignment"), comparison.usedFallback()},
        {QStringLiteral("left"), sideJson(comparison.left())},
        {QStringLiteral("right"), sideJson(comparison.right())},
        {QStringLiteral("deltas"), deltas},
        {QStringLiteral("counts"),
            QJsonObject {
                {QStringLiteral("same"), comparison.count(RunComparison::State::Same)},
                {QStringLiteral("changed"), comparison.count(RunComparison::State::Changed)},
                {QStringLiteral("added"), comparison.count(RunComparison::State::Added)},
                {QStringLiteral("removed"), comparison.count(RunComparison::State::Removed)},
            }},
        {QStringLiteral("differences"), differences},
        {QStringLiteral("files"), files},
    };
    return QString::fromUtf8(QJsonDocument(json).toJson(QJsonDocument::Compact))
        + QLatin1Char('\n');
}

} // namespace

QString compareVerbSummary()
{
    return QStringLiteral(
        "  compare       Compare two runs (files or sessions) call by call; exits 0 when\n"
        "                they match, 1 when they differ\n");
}

int runCompare(const QStringList &arguments)
{
    QCommandLineParser parser;
    const QCommandLineOption jsonOption(
        QStringLiteral("json"), QStringLiteral("Print the comparison as one JSON object."));
    ConnectionOptions options;
    QStringList runs;
    bool json = false;
    if (namesASession(arguments)) {
        parser.addOption(jsonOption);
        parser.addPositionalArgument(QStringLiteral("A"), QStringLiteral("A run"));
        parser.addPositionalArgument(QStringLiteral("B"), QStringLiteral("The other run"));
        const int parsed = parseVerbArguments(parser, compareVerb, arguments,
            QStringLiteral("compare A B --server URL --user ID [--json]"), options, help());
        if (parsed >= 0)
            return parsed;
        if (options.userId.isEmpty())
            return usageError(
                QStringLiteral("session:SID needs --user ID (the sandbox user)"), compareVerb);
    } else {
        parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
        const QCommandLineOption helpOption(
            QStringList {QStringLiteral("h"), QStringLiteral("help")});
        parser.addOptions({helpOption, jsonOption});
        if (!parser.parse(QStringList {QStringLiteral("sandscope")} + arguments))
            return usageError(parser.errorText(), compareVerb);
        if (parser.isSet(helpOption)) {
            writeText(stdout, help());
            return RunsMatch;
        }
    }
    runs = parser.positionalArguments();
    json = parser.isSet(jsonOption);
    if (runs.size() != 2)
        return usageError(
            QStringLiteral("compare needs two runs, A and B (got %1)").arg(runs.size()),
            compareVerb);

    CompareJob job;
    for (int side = 0; side < 2; ++side) {
        LoadedRun loaded;
        const int code = loadRun(runs.at(side), options, &loaded);
        if (code >= 0)
            return code;
        job.setLoadedRun(side, loaded, runs.at(side));
        // The loader printed the reader's problems; the corrupt lines are named here.
        for (const QString &line : job.corruptLines(side))
            printError(QStringLiteral("warning: %1: %2").arg(runs.at(side), line));
    }
    job.run();
    const RunComparison &comparison = job.comparison();

    SecretRedactor redactor;
    redactor.addSecret(options.connection.apiKey);
    redactor.addSecret(qEnvironmentVariable("SANDSCOPE_API_KEY").trimmed());
    const QString out = json ? jsonReport(comparison) : humanReport(comparison);
    if (!(json ? writeText : writeTerminalText)(stdout, redactor.redact(out))) {
        printError(QStringLiteral("could not write to standard output"));
        return RunsDiffer;
    }
    return comparison.same() ? RunsMatch : RunsDiffer;
}

} // namespace sandscope::cli
