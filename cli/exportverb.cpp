#include "exportverb.h"

#include "cli/clioutput.h"
#include "cli/runinput.h"
#include "cli/verbsupport.h"
#include "export/exportjob.h"
#include "export/runexporter.h"
#include "runtree/runmodel.h"

#include <QCommandLineParser>
#include <QFileInfo>

namespace sandscope::cli {

const QString exportVerb = QStringLiteral("export");

namespace {

enum ExitCode { Written = 0, Failed = 1 };

const QString usage = QStringLiteral(
    "export INPUT --format html|md|json [-o OUT] [--no-redact] [--full-source-path]\n"
    "       sandscope export --server URL --user ID --session SID --format html|md|json\n"
    "                        [-o OUT] [--no-redact]");

QString moreHelp()
{
    return QStringLiteral(
        "\n"
        "INPUT is any file Sandscope opens: a run recording, a stream-json capture, a\n"
        "session transcript (its sub-agents are read too) or a JSON export. The second form\n"
        "reads a session in the sandbox as --user:\n"
        "  --session SID         the session to read\n"
        "  --server URL, --profile NAME, --user ID\n"
        "                        where and as whom it is read (see `sandscope --help`)\n"
        "\n"
        "html   one self-contained page (no external resources): summary, collapsible tree,\n"
        "       commands and output, Edit diffs, highlighted code\n"
        "md     Markdown for pasting into an issue\n"
        "json   the normalised tree; Sandscope opens it again (File > Open, replay, export)\n"
        "\n"
        "Secrets (the API key, token-shaped strings, private keys, passwords in URLs and\n"
        "headers, NAME=value credentials) are masked unless --no-redact is given. The export\n"
        "names INPUT by its file name only (--full-source-path: by its absolute path). Lines\n"
        "that could not be read are listed in the export and reported as warnings. The output\n"
        "file is replaced only when all of it was written.\n"
        "\n"
        "Exit codes: 0 written; 1 the input cannot be read or OUT cannot be written; 2 usage\n"
        "error; 3 server error.\n");
}

} // namespace

QString exportVerbSummary()
{
    return QStringLiteral(
        "  export        Write a run (file or session) as self-contained HTML, Markdown or\n"
        "                normalised JSON, secrets redacted\n");
}

int runExport(const QStringList &arguments)
{
    const bool fromServer = namesAServer(arguments);
    QCommandLineParser parser;
    const QCommandLineOption formatOption(QStringLiteral("format"),
        QStringLiteral("html, md or json (default: from OUT's suffix)."), QStringLiteral("FORMAT"));
    const QCommandLineOption outputOption(
        QStringList {QStringLiteral("o"), QStringLiteral("output")},
        QStringLiteral("Where to write; - or none: standard output."), QStringLiteral("OUT"));
    const QCommandLineOption noRedactOption(QStringLiteral("no-redact"),
        QStringLiteral("Keep secrets in the export (they are masked by default)."));
    const QCommandLineOption fullSourceOption(QStringLiteral("full-source-path"),
        QStringLiteral("Name the input file by its absolute path in the export (by default only "
                       "its file name, so the export does not show your home folder)."));
    const QCommandLineOption sessionOption(QStringLiteral("session"),
        QStringLiteral("The session to read (with --server/--profile and --user)."),
        QStringLiteral("SID"));
    parser.addOptions({formatOption, outputOption, noRedactOption, fullSourceOption});
    ConnectionOptions options;
    int parsed = -1;
    if (fromServer) {
        parser.addOption(sessionOption);
        parsed = parseUserVerbArguments(parser, exportVerb, arguments, usage, options);
    } else { // a file: no connection options to resolve
        const QCommandLineOption helpOption = parser.addHelpOption();
        parser.addPositionalArgument(QStringLiteral("INPUT"), QStringLiteral("The run to export."));
        if (!parser.parse(QStringList {QStringLiteral("sandscope")} + arguments))
            return usageError(parser.errorText(), exportVerb);
        if (parser.isSet(helpOption)) {
            writeText(stdout, verbHelp(parser, usage, moreHelp()));
            return Written;
        }
    }
    if (parsed >= 0)
        return parsed;

    const QString output = parser.value(outputOption);
    QString formatName = parser.value(formatOption);
    if (formatName.isEmpty() && !output.isEmpty() && output != QLatin1String("-"))
        formatName = QFileInfo(output).suffix();
    if (formatName.isEmpty())
        return usageError(QStringLiteral("export needs --format html|md|json"), exportVerb);
    const std::optional<RunExporter::Format> format = RunExporter::formatNamed(formatName);
    if (!format)
        return usageError(
            QStringLiteral("unknown format '%1': use html, md or json").arg(formatName),
            exportVerb);

    LoadedRun run;
    if (fromServer) {
        const QString sessionId = parser.value(sessionOption);
        if (sessionId.isEmpty())
            return usageError(
                QStringLiteral("export from a server needs --session SID"), exportVerb);
        const int loaded = loadSessionRun(options, sessionId, &run);
        if (loaded >= 0)
            return loaded;
        // A copy of a user's session leaves the server: where it went, and whether unmasked.
        auditRead(options, QStringLiteral("export-session"),
            QStringLiteral("%1 -> %2 (%3, %4)")
                .arg(sessionId,
                    output.isEmpty() || output == QLatin1String("-")
                        ? QStringLiteral("standard output")
                        : QFileInfo(output).absoluteFilePath(),
                    formatName,
                    parser.isSet(noRedactOption) ? QStringLiteral("not redacted")
                                                 : QStringLiteral("redacted")));
    } else {
        const QStringList inputs = parser.positionalArguments();
        if (inputs.size() != 1)
            return usageError(inputs.isEmpty() ? QStringLiteral("export needs an INPUT file")
                                               : QStringLiteral("export takes one INPUT file"),
                exportVerb);
        const int loaded = loadFileRun(inputs.constFirst(), &run);
        if (loaded >= 0)
            return loaded;
    }

    RunModel model;
    run.buildModel(&model);
    QStringList skipped = run.problems;
    if (run.exported)
        skipped = run.exported->skipped + skipped;
    const QString source = fromServer
        ? run.source // user/session
        : RunExporter::sourceOfFile(run.source, parser.isSet(fullSourceOption));
    // A file's export masks the server's key too when it is known here.
    ExportJob job(model, source, skipped, !parser.isSet(noRedactOption),
        {options.connection.apiKey, qEnvironmentVariable("SANDSCOPE_API_KEY").trimmed()});
    if (!run.exported)
        job.run().summary.lines = run.lines; // the readers count lines, the model does not

    if (output.isEmpty() || output == QLatin1String("-")) {
        if (!writeBytes(stdout, job.render(*format))) {
            printError(QStringLiteral("could not write to standard output"));
            return Failed;
        }
        return Written;
    }
    if (!job.write(output, *format)) {
        printError(job.why());
        return Failed;
    }
    return Written;
}

} // namespace sandscope::cli
