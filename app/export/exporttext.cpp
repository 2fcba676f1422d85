#include "exporttext.h"

#include "runtree/runmodel.h"
#include "runtree/runnodetext.h"
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

bool failed(const RunSummary &summary)
{
    if (summary.isTranscript && !summary.hasResult)
        return summary.turnOpen || summary.turnFailed;
    return summary.isError;
}

QString outcome(const RunSummary &summary)
{
    if (!summary.hasResult && summary.isTranscript)
        return summary.turnOpen  ? QStringLiteral("cut short: the last turn did not finish")
            : summary.turnFailed ? QStringLiteral("failed: the last turn ended on an API error")
                                 : QStringLiteral("ended");
    if (!summary.hasResult)
        return QStringLiteral("failed: no result line (the run was cut short)");
    if (summary.isError)
        return QStringLiteral("failed (%1)").arg(summary.resultSubtype);
    return QStringLiteral("succeeded");
}

QList<QPair<QString, QString>> summaryRows(const ExportedRun &run)
{
    const RunSummary &summary = run.summary;
    QList<QPair<QString, QString>> rows;
    rows.append({QStringLiteral("Outcome"),
        run.runEnded ? outcome(summary) : QStringLiteral("running when exported")});
    rows.append({QStringLiteral("Session"),
        summary.sessionId.isEmpty() ? QStringLiteral("-") : summary.sessionId});
    if (!run.run.model.isEmpty())
        rows.append({QStringLiteral("Model"), run.run.model});
    rows.append({QStringLiteral("Turns"), QString::number(summary.numTurns)});
    rows.append({QStringLiteral("Tool calls"),
        QStringLiteral("%1 (%2 failed, %3 unanswered)")
            .arg(summary.toolCalls)
            .arg(summary.toolErrors)
            .arg(summary.unmatchedToolCalls)});
    rows.append({QStringLiteral("Tokens"), summary.tokensText()});
    rows.append({QStringLiteral("Cost"), runtext::costText(summary.costUsd)});
    rows.append({QStringLiteral("Duration"), format::duration(summary.durationMs)});
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
