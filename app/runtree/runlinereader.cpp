#include "runlinereader.h"

#include "recordings/linesource.h"
#include "runtree/runnode.h"
#include "streamjson/runparser.h"

namespace sandscope {

void RunLineReader::setSource(std::shared_ptr<const LineSource> source)
{
    m_source = std::move(source);
}

QByteArray RunLineReader::lineOf(const QByteArray &kept, const LineRef &ref) const
{
    if (!kept.isEmpty() || !ref.isValid() || !m_source)
        return kept;
    QString why;
    const QByteArray line = m_source->line(ref, &why);
    return why.isEmpty() ? line : why.toUtf8(); // what went wrong, in place of the line
}

RunEvent RunLineReader::eventAgain(
    const LineRef &ref, RunEvent::Kind kind, QString *errorMessage) const
{
    if (!m_source) {
        *errorMessage = tr("The run's file is no longer open.");
        return {};
    }
    QString why;
    const QByteArray again = m_source->line(ref, &why);
    if (!why.isEmpty()) {
        *errorMessage = tr("Cannot read this again from the run's file: %1").arg(why);
        return {};
    }
    RunParser parser; // a line's content does not depend on the lines before it
    RunEventBatch events = parser.parseLine(again, 0);
    int seen = 0;
    for (RunEvent &event : events) {
        if (event.kind == kind && seen++ == ref.part)
            return std::move(event);
    }
    *errorMessage = tr("The run's file changed since it was read: its line no longer holds this.");
    return {};
}

RunNodeDetails RunLineReader::detailsOf(const RunNode *node) const
{
    RunNodeDetails details = node->details();
    if (node->textOnDisk) {
        const RunEvent event
            = eventAgain(node->rawRef, RunEvent::Kind(node->textKind), &details.readError);
        details.text = details.readError.isEmpty() ? event.text : details.readError;
    }
    if (node->inputOnDisk) {
        QString why;
        const RunEvent event = eventAgain(node->rawRef, RunEvent::ToolUse, &why);
        details.input = event.input;
        details.inputJson = event.inputJson;
        if (!why.isEmpty())
            details.readError = why;
    }
    if (node->resultOnDisk) {
        QString why;
        const RunEvent event = eventAgain(node->call().resultRawRef, RunEvent::ToolResult, &why);
        details.output = why.isEmpty() ? event.resultText : why;
        details.structuredResultJson = event.structuredResultJson;
        if (!why.isEmpty())
            details.readError = why;
    }
    return details;
}

} // namespace sandscope
