#include "exporttext.h"

#include "runtree/runmodel.h"
#include "runtree/runnodetext.h"
#include "streamjson/runfacts.h"
#include "util/format.h"

#include <QLocale>

namespace sandscope::exporttext {

QString heading(const RunNodeRecord &node)
{
    if (node.kind != int(RunModel::NodeKind::ToolCall))
        return node.title;
    const QString name = node.toolName.isEmpty()
        ? QStringLiteral("(tool call %1)").arg(node.toolUseId)
        : node.toolName;
    return node.title.isEmpty() ? name : name + QStringLiteral(": ") + node.title;
}

QStringList facts(const RunNodeRecord &node)
{
    QStringList out;
    const QString status = runtext::statusText(RunModel::Status(node.status));
    if (!status.isEmpty())
        out.append(status);
    if (node.durationMs >= 0)
        out.append(format::duration(node.durationMs));
    const QString tokens = runtext::tokenText(node.tokens);
    if (!tokens.isEmpty())
        out.append(tokens);
    if (node.hasCost)
        out.append(runtext::costText(node.costUsd));
    return out;
}

bool failed(const ExportedRun &run)
{
    const runfacts::Outcome outcome = runfacts::outcomeOf(run.summary, !run.runEnded);
    return outcome == runfacts::Outcome::Failed || outcome == runfacts::Outcome::Interrupted;
}

QString outcome(const ExportedRun &run)
{
    QString text = runfacts::outcomeText(run.summary, !run.runEnded);
    if (!run.runEnded)
        text
            = QStringLiteral("%1 when exported: %2").arg(text, runfacts::progressText(run.summary));
    return text;
}

QList<QPair<QString, QString>> summaryRows(const ExportedRun &run)
{
    QList<QPair<QString, QString>> rows = runfacts::rows(run.summary, !run.runEnded);
    rows[0].second = outcome(run);
    if (!run.run.model.isEmpty())
        rows.insert(2, {QStringLiteral("Model"), run.run.model});
    if (!run.source.isEmpty())
        rows.append({QStringLiteral("Source"), run.source});
    return rows;
}

QString redactionNote(bool redacted)
{
    return redacted ? QStringLiteral("Secrets redacted: API keys, tokens and NAME=value "
                                     "credentials are shown as ••••••.")
                    : QStringLiteral("Not redacted: this export may contain secrets.");
}

} // namespace sandscope::exporttext
