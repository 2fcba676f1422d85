#include "runsummary.h"

#include "runs/runparser.h"

#include <QFile>
#include <QJsonValue>

#include <algorithm>

namespace sandscope {

TokenUsage mergedUsage(const TokenUsage &seen, const TokenUsage &update)
{
    TokenUsage result;
    result.present = seen.present || update.present;
    result.inputTokens = std::max(seen.inputTokens, update.inputTokens);
    result.outputTokens = std::max(seen.outputTokens, update.outputTokens);
    result.cacheReadInputTokens = std::max(seen.cacheReadInputTokens, update.cacheReadInputTokens);
    result.cacheCreationInputTokens
        = std::max(seen.cacheCreationInputTokens, update.cacheCreationInputTokens);
    return result;
}

QJsonObject RunSummary::toJson() const
{
    QJsonObject json;
    json.insert(QStringLiteral("type"), QStringLiteral("sandscope_summary"));
    json.insert(QStringLiteral("session_id"), sessionId);
    json.insert(QStringLiteral("result_subtype"),
        hasResult ? QJsonValue(resultSubtype) : QJsonValue(QJsonValue::Null));
    json.insert(QStringLiteral("is_error"), isError);
    json.insert(QStringLiteral("tool_calls"), toolCalls);
    json.insert(QStringLiteral("tool_errors"), toolErrors);
    json.insert(QStringLiteral("unmatched_tool_calls"), unmatchedToolCalls);
    json.insert(QStringLiteral("cost_usd"), costUsd);
    json.insert(QStringLiteral("input_tokens"), inputTokens);
    json.insert(QStringLiteral("output_tokens"), outputTokens);
    return json;
}

void RunSummaryBuilder::add(const RunEventBatch &events)
{
    for (const RunEvent &event : events)
        add(event);
}

void RunSummaryBuilder::add(const RunEvent &event)
{
    if (m_summary.sessionId.isEmpty() && !event.sessionId.isEmpty())
        m_summary.sessionId = event.sessionId;
    switch (event.kind) {
    case RunEvent::ToolUse:
        if (!event.toolUseId.isEmpty())
            m_toolUses.insert(event.toolUseId);
        break;
    case RunEvent::MessageUsage:
        if (!event.messageId.isEmpty()) {
            TokenUsage &seen = m_messageUsage[event.messageId];
            seen = mergedUsage(seen, event.usage);
        }
        break;
    case RunEvent::SessionInit:
        if (event.type == QLatin1String("user")) { // a transcript prompt
            m_summary.isTranscript = true;
            m_summary.turnOpen = true;
            m_summary.turnFailed = false;
            ++m_summary.numTurns;
            m_turnStartedMs = event.arrivalMs;
        }
        break;
    case RunEvent::SessionCost:
        m_summary.isTranscript = true;
        if (m_summary.turnOpen && m_turnStartedMs >= 0)
            m_summary.durationMs += std::max<qint64>(0, event.arrivalMs - m_turnStartedMs);
        m_summary.turnOpen = false;
        if (event.result.hasCost) { // cumulative per process, as in RunModel
            const double total = event.result.totalCostUsd;
            m_summary.costUsd += total >= m_lastSessionCost ? total - m_lastSessionCost : total;
            m_lastSessionCost = total;
        }
        break;
    case RunEvent::ApiError: // what the main thread did last decides a transcript turn
    case RunEvent::AssistantText:
    case RunEvent::ToolResult:
        if (event.parentToolUseId.isEmpty())
            m_summary.turnFailed = event.kind == RunEvent::ApiError;
        if (event.kind == RunEvent::ToolResult && !event.toolUseId.isEmpty()) {
            m_answered.insert(event.toolUseId);
            if (event.isError)
                m_failed.insert(event.toolUseId);
        }
        break;
    case RunEvent::Result: {
        const ResultInfo &result = event.result;
        m_summary.hasResult = true;
        ++m_summary.resultCount;
        m_summary.resultSubtype = result.subtype;
        m_summary.isError = result.isError;
        if (result.hasCost)
            m_summary.costUsd = result.totalCostUsd;
        if (result.durationMs > 0)
            m_summary.durationMs += result.durationMs;
        if (result.numTurns > 0)
            m_summary.numTurns += result.numTurns;
        m_resultUsage += result.turnUsage.present ? result.turnUsage : result.usage;
        break;
    }
    default:
        break;
    }
}

RunSummary RunSummaryBuilder::summary(bool runEnded) const
{
    RunSummary result = m_summary;
    result.toolCalls = m_toolUses.size();
    qint64 failedCalls = 0;
    qint64 answeredCalls = 0;
    for (const QString &id : m_toolUses) {
        answeredCalls += m_answered.contains(id) ? 1 : 0;
        failedCalls += m_failed.contains(id) ? 1 : 0;
    }
    result.toolErrors = failedCalls;
    result.unmatchedToolCalls = result.toolCalls - answeredCalls;
    if (!result.hasResult)
        result.isError
            = result.isTranscript ? (runEnded && result.turnOpen) || result.turnFailed : runEnded;
    if (result.hasResult) {
        result.inputTokens = m_resultUsage.inputTokens;
        result.outputTokens = m_resultUsage.outputTokens;
    } else {
        for (const TokenUsage &usage : m_messageUsage) {
            result.inputTokens += usage.inputTokens;
            result.outputTokens += usage.outputTokens;
        }
    }
    return result;
}

bool summarizeRunFile(const QString &path, RunSummary *summary, QString *errorMessage)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (errorMessage)
            *errorMessage = QStringLiteral("cannot read %1: %2").arg(path, file.errorString());
        return false;
    }
    RunParser parser;
    RunSummaryBuilder builder;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine();
        if (line.isEmpty() && file.error() != QFileDevice::NoError) {
            if (errorMessage)
                *errorMessage = QStringLiteral("cannot read %1: %2").arg(path, file.errorString());
            return false;
        }
        builder.add(parser.parseLine(line, 0));
    }
    if (summary)
        *summary = builder.summary();
    return true;
}

} // namespace sandscope
