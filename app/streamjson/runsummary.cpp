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
    json.insert(QStringLiteral("cache_read_tokens"), cacheReadTokens);
    json.insert(QStringLiteral("cache_creation_tokens"), cacheCreationTokens);
    json.insert(QStringLiteral("turns"), turns);
    json.insert(QStringLiteral("round_trips"),
        roundTripsRecorded() ? QJsonValue(roundTrips) : QJsonValue(QJsonValue::Null));
    json.insert(QStringLiteral("duration_ms"), durationMs);
    json.insert(QStringLiteral("claude_duration_ms"),
        claudeDurationMs >= 0 ? QJsonValue(claudeDurationMs) : QJsonValue(QJsonValue::Null));
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

void RunSummaryBuilder::reserveForInput(qint64 bytes)
{
    // Runs hold a turn, an API response or a call per 5 to 10 KB (the captures in tests/data);
    // one of each per 2 KiB leaves room for denser ones, and the cap keeps a huge file's
    // reservation to tens of megabytes of address space. Ids are about 30 bytes. The hash
    // slots, which every new id probes at random, only for one id per 8 KiB: slots for four
    // times as many ids as came were cache misses to memory (100 MB: the whole process 1.6 ms
    // less in interleaved runs); a denser run grows them.
    constexpr qint64 bytesPerEntry = 2048;
    constexpr qint64 bytesPerSlottedEntry = 8192;
    constexpr qint64 maxEntries = 1 << 20;
    constexpr size_t idBytes = 32;
    const size_t entries = size_t(std::clamp<qint64>(bytes / bytesPerEntry, 0, maxEntries));
    const size_t slotted = size_t(std::clamp<qint64>(bytes / bytesPerSlottedEntry, 0, maxEntries));
    m_turns.reserve(entries);
    m_calls.reserve(entries, entries * idBytes, slotted);
    m_messageUsage.reserve(entries, entries * idBytes, slotted);
}

// The counts summary() gives are kept as ids arrive (a result may come before its call), so
// that a summary after every batch of a 1 GB run does not walk every call.
void RunSummaryBuilder::addToolUse(std::string_view toolUseId)
{
    if (toolUseId.empty())
        return;
    const int turn = contextTurn(); // before callOf: it may add the line's thread
    Call &call = callOf(toolUseId, turn);
    if (call.called)
        return;
    call.called = true;
    ++m_toolCalls;
    m_answeredCalls += call.answered ? 1 : 0;
    m_failedCalls += call.failed ? 1 : 0;
}

void RunSummaryBuilder::addToolResult(std::string_view toolUseId, bool isError, bool mainThread)
{
    if (mainThread)
        m_summary.turnFailed = false;
    if (toolUseId.empty())
        return;
    const int turn = contextTurn();
    Call &call = callOf(toolUseId, turn);
    // A call that ends after its turn did (a background agent's) moves the run's end with it,
    // as RunModel::onToolResult extends the spans around it.
    if (m_turns[size_t(call.turn)].ended)
        m_lastTurnEndMs = std::max(m_lastTurnEndMs, m_lastTimeMs);
    if (!call.answered && call.called)
        ++m_answeredCalls;
    call.answered = true;
    if (isError && !call.failed && call.called)
        ++m_failedCalls;
    call.failed = call.failed || isError;
}

namespace {

// The growth from `seen` to `merged` (each field only grows).
TokenUsage growth(const TokenUsage &seen, const TokenUsage &merged)
{
    TokenUsage added;
    added.inputTokens = merged.inputTokens - seen.inputTokens;
    added.outputTokens = merged.outputTokens - seen.outputTokens;
    added.cacheReadInputTokens = merged.cacheReadInputTokens - seen.cacheReadInputTokens;
    added.cacheCreationInputTokens
        = merged.cacheCreationInputTokens - seen.cacheCreationInputTokens;
    added.present = merged.present;
    return added;
}

qint64 lessClamped(qint64 total, qint64 part)
{
    return std::max<qint64>(0, total - part);
}

// total without part (which it holds; a saturated total stays as it is).
TokenUsage without(TokenUsage total, const TokenUsage &part)
{
    total.inputTokens = lessClamped(total.inputTokens, part.inputTokens);
    total.outputTokens = lessClamped(total.outputTokens, part.outputTokens);
    total.cacheReadInputTokens = lessClamped(total.cacheReadInputTokens, part.cacheReadInputTokens);
    total.cacheCreationInputTokens
        = lessClamped(total.cacheCreationInputTokens, part.cacheCreationInputTokens);
    return total;
}

} // namespace

void RunSummaryBuilder::noteTime(qint64 timeMs)
{
    if (timeMs < 0) {
        m_firstTimePending = m_firstTimePending || m_firstTimeMs < 0;
        return;
    }
    if (m_firstTimeMs < 0)
        m_firstTimeMs = timeMs;
    m_lastTimeMs = std::max(m_lastTimeMs, timeMs);
}

void RunSummaryBuilder::setLineTime(qint64 timeMs)
{
    noteTime(timeMs);
}

// RunModel::currentTurn: the turn lines go to, opened when there is none.
int RunSummaryBuilder::currentTurn()
{
    if (m_current < 0) {
        m_turns.emplace_back();
        m_current = int(m_turns.size()) - 1;
        m_summary.turns = int(m_turns.size());
    }
    return m_current;
}

int RunSummaryBuilder::contextTurn()
{
    const int turn = currentTurn();
    return m_lineThread.empty() ? turn : turnOfCall(m_lineThread, turn);
}

RunSummaryBuilder::Call &RunSummaryBuilder::callOf(std::string_view toolUseId, int turn)
{
    bool inserted = false;
    Call &call = m_calls.insert(toolUseId, &inserted);
    if (inserted)
        call.turn = turn;
    return call;
}

void RunSummaryBuilder::addTurnStart()
{
    if (m_current >= 0 && (m_turns[size_t(m_current)].hasInit || m_turns[size_t(m_current)].ended))
        m_current = -1;
    m_turns[size_t(currentTurn())].hasInit = true;
}

void RunSummaryBuilder::addTurnContent()
{
    // A sub-agent's line names its call, which is placed now when it is new (contextFor).
    if (m_lineThread.empty())
        currentTurn();
    else
        contextTurn();
}

void RunSummaryBuilder::addCompactBoundary()
{
    if (m_current >= 0 && m_turns[size_t(m_current)].ended)
        m_current = -1;
    currentTurn();
}

void RunSummaryBuilder::endTurn(int turn)
{
    m_anyTurnEnded = true;
    m_turns[size_t(turn)].ended = true;
    m_lastTurnEndMs = m_lastTimeMs; // -1: no time known yet, the first one that comes
}

// A turn's figure is its results' usage once it has one, else its messages'.
void RunSummaryBuilder::addTurnTokens(int turn, const TokenUsage &messages)
{
    Turn &t = m_turns[size_t(turn)];
    t.messages += messages;
    if (!t.hasResult)
        m_tokens += messages; // saturating
}

void RunSummaryBuilder::addMessageUsage(std::string_view messageId, const TokenUsage &usage)
{
    m_summary.invalidNumbers = m_summary.invalidNumbers || usage.invalid;
    if (messageId.empty()) {
        addTurnTokens(contextTurn(), usage);
        return;
    }
    // One probe for a new id as for a known one; contextTurn (which may open a turn or place
    // the line's call) does not touch m_messageUsage, so `seen` stays valid.
    bool inserted = false;
    Message &seen = m_messageUsage.insert(messageId, &inserted);
    if (inserted) // placed where its first line is
        seen.turn = contextTurn();
    const TokenUsage merged = mergedUsage(seen.usage, usage);
    addTurnTokens(seen.turn, growth(seen.usage, merged));
    seen.usage = merged;
}

void RunSummaryBuilder::addResult(const ResultInfo &result)
{
    m_summary.hasResult = true;
    ++m_summary.resultCount;
    m_summary.resultSubtype = result.subtype;
    m_summary.isError = result.isError;
    if (result.hasCost)
        m_summary.costUsd = result.totalCostUsd;
    if (result.durationMs >= 0)
        m_summary.claudeDurationMs
            = saturatingAdd(std::max<qint64>(0, m_summary.claudeDurationMs), result.durationMs);
    if (result.numTurns > 0)
        m_summary.roundTrips = int(std::min<qint64>(
            std::numeric_limits<int>::max(), qint64(m_summary.roundTrips) + result.numTurns));
    m_summary.invalidNumbers = m_summary.invalidNumbers || result.invalidCost
        || result.usage.invalid || result.turnUsage.invalid;

    // Results close turns in order (RunModel::onResult).
    while (m_firstOpen < m_turns.size() && m_turns[m_firstOpen].ended)
        ++m_firstOpen;
    const int turn = m_firstOpen < m_turns.size() ? int(m_firstOpen) : currentTurn();
    Turn &t = m_turns[size_t(turn)];
    if (!t.hasResult) {
        m_tokens = without(m_tokens, t.messages);
        t.hasResult = true;
    }
    const TokenUsage usage = result.turnUsage.present ? result.turnUsage : result.usage;
    t.results += usage;
    m_tokens += usage;
    endTurn(turn);
}

void RunSummaryBuilder::addTask(std::string_view toolUseId, std::string_view taskId, bool ended)
{
    if (!toolUseId.empty()) // RunModel::onTask: a new call's placeholder in the current turn
        turnOfCall(toolUseId, currentTurn());
    if (!toolUseId.empty() && !taskId.empty())
        m_taskIds.insert(taskId);
    const bool found = !toolUseId.empty() || (!taskId.empty() && m_taskIds.contains(taskId));
    if (found && m_anyTurnEnded && ended)
        m_lastTurnEndMs = std::max(m_lastTurnEndMs, m_lastTimeMs);
}

namespace {

// An event's id as the UTF-8 the builder takes, held while the call it is passed to runs.
class BuilderEventId {
public:
    explicit BuilderEventId(const QString &id)
        : m_bytes(id.toUtf8())
    {
    }
    operator std::string_view() const { return {m_bytes.constData(), size_t(m_bytes.size())}; }

private:
    QByteArray m_bytes;
};

} // namespace

void RunSummaryBuilder::add(const RunEvent &event)
{
    noteTime(event.arrivalMs);
    const QByteArray thread = event.parentToolUseId.toUtf8();
    m_lineThread.assign(thread.constData(), size_t(thread.size()));
    if (m_summary.sessionId.isEmpty() && !event.sessionId.isEmpty())
        m_summary.sessionId = event.sessionId;
    switch (event.kind) {
    case RunEvent::Transient:
    case RunEvent::Result:
    case RunEvent::SessionCost:
    case RunEvent::TurnDuration:
        break; // no turn of their own (a result finds one in addResult)
    case RunEvent::SessionInit:
        addTurnStart();
        break;
    case RunEvent::CompactBoundary:
        addCompactBoundary();
        break;
    default:
        addTurnContent();
        break;
    }
    switch (event.kind) {
    case RunEvent::ToolUse:
        addToolUse(BuilderEventId(event.toolUseId));
        break;
    case RunEvent::MessageUsage:
        addMessageUsage(BuilderEventId(event.messageId), event.usage);
        break;
    case RunEvent::SessionInit:
        if (event.type == QLatin1String("user")) { // a transcript prompt
            m_summary.isTranscript = true;
            m_summary.turnOpen = true;
            m_summary.turnFailed = false;
        }
        break;
    case RunEvent::TurnDuration:
        // Claude's duration of the current turn (RunModel::onTurnDuration), as a result's.
        if (m_current >= 0 && event.result.durationMs >= 0)
            m_summary.claudeDurationMs = saturatingAdd(
                std::max<qint64>(0, m_summary.claudeDurationMs), event.result.durationMs);
        endTranscriptTurn();
        break;
    case RunEvent::SessionCost:
        endTranscriptTurn();
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
        addToolResult(
            BuilderEventId(event.toolUseId), event.isError, event.parentToolUseId.isEmpty());
        break;
    case RunEvent::Result:
        addResult(event.result);
        break;
    case RunEvent::PermissionDenied: // RunModel::onPermissionDenied: a call's placeholder
        if (!event.toolUseId.isEmpty())
            turnOfCall(BuilderEventId(event.toolUseId), contextTurn());
        break;
    case RunEvent::Task:
        addTask(BuilderEventId(event.toolUseId), BuilderEventId(event.task.taskId),
            runtask::isEnded(event.task.status));
        break;
    default:
        break;
    }
}

// A transcript turn ends with its cost-state (`claude -p`) or turn_duration (the REPL).
void RunSummaryBuilder::endTranscriptTurn()
{
    m_summary.isTranscript = true;
    m_summary.turnOpen = false;
    if (m_current >= 0 && !m_turns[size_t(m_current)].ended)
        endTurn(m_current);
    else { // the run's end moves on all the same (RunModel::endTranscriptTurn)
        m_lastTurnEndMs = m_lastTimeMs;
        m_anyTurnEnded = true;
    }
}

TokenUsage RunSummaryBuilder::turnTokens(int turn) const
{
    if (turn < 0 || size_t(turn) >= m_turns.size())
        return {};
    const Turn &t = m_turns[size_t(turn)];
    return t.hasResult ? t.results : t.messages;
}

RunSummary RunSummaryBuilder::summary(bool runEnded, qint64 endedMs) const
{
    RunSummary result = m_summary;
    result.toolCalls = m_toolCalls;
    result.toolErrors = m_failedCalls;
    result.unmatchedToolCalls = result.toolCalls - m_answeredCalls;
    result.lastTurnOpen = m_turns.empty() || !m_turns.back().ended;
    if (!result.hasResult)
        result.isError
            = result.isTranscript ? (runEnded && result.turnOpen) || result.turnFailed : runEnded;
    // A run that ended in the middle of a turn was interrupted, whatever earlier turns did.
    result.isError = result.isError || (runEnded && result.lastTurnOpen);
    result.inputTokens = m_tokens.inputTokens;
    result.outputTokens = m_tokens.outputTokens;
    result.cacheReadTokens = m_tokens.cacheReadInputTokens;
    result.cacheCreationTokens = m_tokens.cacheCreationInputTokens;
    // Times not known when they were needed are the first one that came (0 when none did).
    const qint64 first = std::max<qint64>(0, m_firstTimeMs);
    const auto resolved = [first](qint64 timeMs) {
        return timeMs >= 0 ? timeMs : first;
    };
    qint64 end = -1;
    if (runEnded)
        end = endedMs >= 0 ? endedMs : resolved(m_lastTimeMs);
    else if (m_anyTurnEnded)
        end = resolved(m_lastTurnEndMs);
    result.durationMs = end >= 0 ? std::max<qint64>(0, end - first) : 0;
    return result;
}

} // namespace sandscope
