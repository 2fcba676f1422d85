#include "runfacts.h"

#include "util/format.h"

#include <QLocale>

namespace sandscope::runfacts {

Outcome outcomeOf(const RunSummary &summary, bool running)
{
    if (summary.turns == 0 || summary.lastTurnOpen)
        return running ? Outcome::Running : Outcome::Interrupted;
    const bool failed = summary.hasResult ? summary.isError : summary.turnFailed;
    return failed ? Outcome::Failed : Outcome::Succeeded;
}

QString outcomeText(const RunSummary &summary, bool running)
{
    switch (outcomeOf(summary, running)) {
    case Outcome::Running:
        return QStringLiteral("running");
    case Outcome::Succeeded:
        return QStringLiteral("succeeded");
    case Outcome::Failed:
        if (!summary.hasResult)
            return QStringLiteral("failed (API error)");
        // "success" with is_error (an API error ended the turn) would read as a contradiction.
        return summary.resultSubtype.startsWith(QLatin1String("error"))
            ? QStringLiteral("failed (%1)").arg(summary.resultSubtype)
            : QStringLiteral("failed");
    case Outcome::Interrupted:
        return QStringLiteral("interrupted: the last turn did not finish");
    }
    return {};
}

QString progressText(const RunSummary &summary)
{
    const QLocale c = QLocale::c();
    return QStringLiteral("turn %1, %2 tool call%3 so far")
        .arg(c.toString(summary.turns), c.toString(summary.toolCalls),
            summary.toolCalls == 1 ? QString() : QStringLiteral("s"));
}

QString turnsLabel()
{
    return QStringLiteral("Turns");
}

QString roundTripsLabel()
{
    return QStringLiteral("Round trips");
}

QString notRecordedText()
{
    return QStringLiteral("not recorded");
}

QString roundTripsNotRecordedReason(const RunSummary &summary)
{
    return summary.isTranscript
        ? QStringLiteral("a transcript does not record claude's num_turns, which only result "
                         "lines carry")
        : QStringLiteral("no result line, the only line that carries claude's num_turns");
}

QString roundTripsText(const RunSummary &summary)
{
    if (summary.roundTripsRecorded())
        return QLocale::c().toString(summary.roundTrips);
    return QStringLiteral("%1 (%2)").arg(notRecordedText(), roundTripsNotRecordedReason(summary));
}

QString claudeDurationLabel()
{
    return QStringLiteral("Claude's duration");
}

QList<QPair<QString, QString>> rows(const RunSummary &summary, bool running)
{
    const QLocale c = QLocale::c();
    QList<QPair<QString, QString>> out;
    QString outcome = outcomeText(summary, running);
    if (outcomeOf(summary, running) == Outcome::Running)
        outcome += QStringLiteral(": ") + progressText(summary);
    out.append({QStringLiteral("Outcome"), outcome});
    out.append({QStringLiteral("Session"),
        summary.sessionId.isEmpty() ? QStringLiteral("-") : summary.sessionId});
    out.append({turnsLabel(), c.toString(summary.turns)});
    out.append({roundTripsLabel(), roundTripsText(summary)});
    out.append({QStringLiteral("Tool calls"),
        QStringLiteral("%1 (%2 failed, %3 unanswered)")
            .arg(c.toString(summary.toolCalls), c.toString(summary.toolErrors),
                c.toString(summary.unmatchedToolCalls))});
    out.append({QStringLiteral("Errors"), c.toString(summary.toolErrors + summary.apiErrors)});
    out.append({QStringLiteral("Tokens"), summary.tokensText()});
    out.append({QStringLiteral("Cache"),
        QStringLiteral("%1 read, %2 written")
            .arg(c.toString(summary.cacheReadTokens), c.toString(summary.cacheCreationTokens))});
    out.append({QStringLiteral("Cost"), QStringLiteral("$%1").arg(summary.costUsd, 0, 'f', 6)});
    out.append({QStringLiteral("Duration"), format::duration(summary.durationMs)});
    if (summary.claudeDurationMs >= 0 && summary.claudeDurationMs != summary.durationMs)
        out.append({claudeDurationLabel(), format::duration(summary.claudeDurationMs)});
    return out;
}

} // namespace sandscope::runfacts
