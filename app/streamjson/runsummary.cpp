#include "runsummary.h"

#include "streamjson/runparser.h"

#include <QFile>
#include <QJsonValue>
#include <QLocale>

#include <algorithm>
#include <limits>
#include <memory>

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
    if (invalidNumbers)
        json.insert(QStringLiteral("invalid_numbers"), true);
    return json;
}

QString RunSummary::tokensText() const
{
    const QLocale c = QLocale::c();
    const QString sums
        = QStringLiteral("%1 in, %2 out").arg(c.toString(inputTokens), c.toString(outputTokens));
    return invalidNumbers ? QStringLiteral("invalid: a count or cost in the file is out of range "
                                           "(the others: %1)")
                                .arg(sums)
                          : sums;
}

void RunSummaryBuilder::add(const RunEventBatch &events)
{
    for (const RunEvent &event : events)
        add(event);
}

void RunSummaryBuilder::setSessionId(const QString &sessionId)
{
    if (m_summary.sessionId.isEmpty())
        m_summary.sessionId = sessionId;
}

namespace {

// Adds id to the set; true when it was not there yet.
bool added(QSet<QByteArray> &set, const QByteArray &id)
{
    const auto before = set.size();
    set.insert(id);
    return set.size() != before;
}

} // namespace

// The counts summary() gives are kept as ids arrive (a result may come before its call), so
// that a summary after every batch of a 1 GB run does not walk every call.
void RunSummaryBuilder::addToolUse(const QByteArray &toolUseId)
{
    if (toolUseId.isEmpty() || !added(m_toolUses, toolUseId))
        return;
    m_answeredCalls += m_answered.contains(toolUseId) ? 1 : 0;
    m_failedCalls += m_failed.contains(toolUseId) ? 1 : 0;
}

void RunSummaryBuilder::addToolResult(const QByteArray &toolUseId, bool isError, bool mainThread)
{
    if (mainThread)
        m_summary.turnFailed = false;
    if (toolUseId.isEmpty())
        return;
    const bool called = m_toolUses.contains(toolUseId);
    if (added(m_answered, toolUseId) && called)
        ++m_answeredCalls;
    if (isError && added(m_failed, toolUseId) && called)
        ++m_failedCalls;
}

void RunSummaryBuilder::addMessageUsage(const QByteArray &messageId, const TokenUsage &usage)
{
    if (messageId.isEmpty())
        return;
    TokenUsage &seen = m_messageUsage[messageId];
    const TokenUsage merged = mergedUsage(seen, usage);
    TokenUsage added;
    added.inputTokens = merged.inputTokens - seen.inputTokens;
    added.outputTokens = merged.outputTokens - seen.outputTokens;
    added.cacheReadInputTokens = merged.cacheReadInputTokens - seen.cacheReadInputTokens;
    added.cacheCreationInputTokens
        = merged.cacheCreationInputTokens - seen.cacheCreationInputTokens;
    added.present = merged.present;
    m_messageTokens += added; // saturating
    m_summary.invalidNumbers = m_summary.invalidNumbers || usage.invalid;
    seen = merged;
}

void RunSummaryBuilder::addResult(const ResultInfo &result)
{
    m_summary.hasResult = true;
    ++m_summary.resultCount;
    m_summary.resultSubtype = result.subtype;
    m_summary.isError = result.isError;
    if (result.hasCost)
        m_summary.costUsd = result.totalCostUsd;
    if (result.durationMs > 0)
        m_summary.durationMs = saturatingAdd(m_summary.durationMs, result.durationMs);
    if (result.numTurns > 0)
        m_summary.numTurns = int(std::min<qint64>(
            std::numeric_limits<int>::max(), qint64(m_summary.numTurns) + result.numTurns));
    m_resultUsage += result.turnUsage.present ? result.turnUsage : result.usage;
    m_summary.invalidNumbers = m_summary.invalidNumbers || result.invalidCost
        || result.usage.invalid || result.turnUsage.invalid;
}

void RunSummaryBuilder::add(const RunEvent &event)
{
    if (m_summary.sessionId.isEmpty() && !event.sessionId.isEmpty())
        m_summary.sessionId = event.sessionId;
    switch (event.kind) {
    case RunEvent::ToolUse:
        addToolUse(event.toolUseId.toUtf8());
        break;
    case RunEvent::MessageUsage:
        addMessageUsage(event.messageId.toUtf8(), event.usage);
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
        m_summary.invalidNumbers = m_summary.invalidNumbers || event.result.invalidCost;
        if (event.result.hasCost) { // cumulative per process, as in RunModel
            const double total = event.result.totalCostUsd;
            m_summary.costUsd += total >= m_lastSessionCost ? total - m_lastSessionCost : total;
            m_lastSessionCost = total;
        }
        break;
    case RunEvent::ApiError: // what the main thread did last decides a transcript turn
        addApiError();
        [[fallthrough]];
    case RunEvent::AssistantText:
        if (event.parentToolUseId.isEmpty())
            addMainThreadOutcome(event.kind == RunEvent::ApiError);
        break;
    case RunEvent::ToolResult:
        addToolResult(event.toolUseId.toUtf8(), event.isError, event.parentToolUseId.isEmpty());
        break;
    case RunEvent::Result:
        addResult(event.result);
        break;
    default:
        break;
    }
}

RunSummary RunSummaryBuilder::summary(bool runEnded) const
{
    RunSummary result = m_summary;
    result.toolCalls = m_toolUses.size();
    result.toolErrors = m_failedCalls;
    result.unmatchedToolCalls = result.toolCalls - m_answeredCalls;
    if (!result.hasResult)
        result.isError
            = result.isTranscript ? (runEnded && result.turnOpen) || result.turnFailed : runEnded;
    TokenUsage tokens = m_resultUsage;
    if (!result.hasResult)
        tokens = m_messageTokens;
    result.inputTokens = tokens.inputTokens;
    result.outputTokens = tokens.outputTokens;
    result.cacheReadTokens = tokens.cacheReadInputTokens;
    result.cacheCreationTokens = tokens.cacheCreationInputTokens;
    return result;
}

} // namespace sandscope
