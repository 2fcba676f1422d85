#include "runexporter.h"

#include "export/codehighlighter.h"
#include "export/htmlrunwriter.h"
#include "export/markdownrunwriter.h"
#include "export/runjsonformat.h"
#include "runtree/runmodel.h"

#include <QFileInfo>
#include <QObject>
#include <QSaveFile>

#include <vector>

namespace sandscope {

std::optional<RunExporter::Format> RunExporter::formatNamed(const QString &name)
{
    const QString lower = name.toLower();
    if (lower == QLatin1String("html") || lower == QLatin1String("htm"))
        return Format::Html;
    if (lower == QLatin1String("md") || lower == QLatin1String("markdown"))
        return Format::Markdown;
    if (lower == QLatin1String("json"))
        return Format::Json;
    return std::nullopt;
}

QString RunExporter::suffix(Format format)
{
    switch (format) {
    case Format::Html:
        return QStringLiteral("html");
    case Format::Markdown:
        return QStringLiteral("md");
    case Format::Json:
        return QStringLiteral("json");
    }
    return {};
}

QString RunExporter::sourceOfFile(const QString &path, bool fullPath)
{
    if (path.isEmpty())
        return path;
    const QFileInfo info(path);
    return fullPath ? info.absoluteFilePath() : info.fileName();
}

ExportedRun RunExporter::snapshot(
    const RunModel &model, const QString &source, const QStringList &skipped) const
{
    ExportedRun run;
    run.source = source;
    run.summary = model.summary();
    run.run = model.record();
    run.skipped = skipped;
    run.runEnded = !model.isRunning();
    if (m_redact)
        redact(&run);
    return run;
}

void RunExporter::redact(ExportedRun *run) const
{
    const CredentialRedactor &r = m_redactor;
    run->source = r.redact(run->source);
    for (QString &item : run->skipped)
        item = r.redact(item);
    std::vector<RunNodeRecord *> pending {&run->run};
    while (!pending.empty()) {
        RunNodeRecord *node = pending.back();
        pending.pop_back();
        for (QString *text : {&node->title, &node->text, &node->resultText, &node->model,
                 &node->errorCode, &node->input.command, &node->input.description,
                 &node->input.filePath, &node->input.oldString, &node->input.newString,
                 &node->input.content, &node->input.pattern, &node->input.path, &node->input.url,
                 &node->input.query, &node->input.prompt, &node->task.description,
                 &node->task.summary, &node->task.outputFile})
            *text = r.redact(*text);
        for (TodoItem &todo : node->input.todos) {
            todo.content = r.redact(todo.content);
            todo.activeForm = r.redact(todo.activeForm);
        }
        // JSON on its decoded strings (a "\n" glued to a token hid it from the rules);
        // redactJson treats a raw line that is not JSON as text.
        for (QByteArray *bytes :
            {&node->inputJson, &node->structuredResultJson, &node->raw, &node->resultRaw})
            *bytes = r.redactJson(*bytes);
        for (RunNodeRecord &child : node->children)
            pending.push_back(&child);
    }
    run->redacted = true;
}

QByteArray RunExporter::render(const ExportedRun &run, Format format) const
{
    switch (format) {
    case Format::Html:
        return HtmlRunWriter::write(
            run, m_highlighter ? *m_highlighter : CodeHighlighter::instance());
    case Format::Markdown:
        return MarkdownRunWriter::write(run);
    case Format::Json:
        return RunJsonFormat::toBytes(run);
    }
    return {};
}

bool RunExporter::writeFile(const QString &path, const QByteArray &bytes, QString *errorMessage)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        if (errorMessage)
            *errorMessage = QObject::tr("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace sandscope
