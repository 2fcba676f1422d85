#pragma once
// One run in numbers: what `sandscope replay FILE --summary --json` prints and what the run
// view's summary bar shows. Computed from RunEvents, so a file can be summarised while it is
// streamed through RunParser without building a tree.

#include "streamjson/runevents.h"

#include <QHash>
#include <QJsonObject>
#include <QSet>
#include <QString>
#include <QStringList>

namespace sandscope {

struct RunSummary {
    QString sessionId;
    QString resultSubtype; // of the last result line; empty when there was none
    bool hasResult = false;
    int resultCount = 0;
    // The last result's is_error; true as well when the run ended without any result line
    // (killed or crashed CLI: docs/stream-json.md, "Errors and endings").
    bool isError = false;
    qint64 toolCalls = 0; // distinct tool_use ids
    qint64 toolErrors = 0; // distinct tool_use ids whose tool_result had is_error
    qint64 unmatchedToolCalls = 0; // tool_use ids that never got a tool_result
    double costUsd = 0; // the last result's total_cost_usd (cumulative for the process)
    qint64 inputTokens = 0;
    qint64 outputTokens = 0;
    qint64 cacheReadTokens = 0; // counted like inputTokens
    qint64 cacheCreationTokens = 0;
    qint64 apiErrors = 0; // API error messages (synthetic assistant messages)
    qint64 durationMs = 0; // sum of the results' duration_ms (transcripts: of the turns' spans)
    qint64 claudeDurationMs = -1; // sum of the results' duration_ms; -1 without one
    int numTurns = 0; // sum of the results' num_turns (transcripts: prompts)
    int turns = 0; // the run tree's Turn nodes
    // Transcripts have no result lines: their turns end with a cost-state record, whose
    // cumulative cost counts instead.
    bool isTranscript = false;
    bool turnOpen = false; // a transcript turn without its cost-state (cut short, or running)
    bool turnFailed = false; // the last transcript turn ended on an API error
    // A token count or a cost in the file was out of range (negative, 1e308, 16 digits and
    // more): it was left out of the sums, which are then shown as invalid.
    bool invalidNumbers = false;
    // Non-blank lines of the run's file (a recording's entries, a transcript's main file);
    // filled by the readers, not by RunSummaryBuilder.
    qint64 lines = 0;

    // {"type":"sandscope_summary", "session_id", "result_subtype" (null without a result),
    //  "is_error", "tool_calls", "tool_errors", "unmatched_tool_calls", "cost_usd",
    //  "input_tokens", "output_tokens", and "invalid_numbers": true when invalidNumbers}
    QJsonObject toJson() const;
    // "1,234 in, 56 out", or with invalidNumbers "invalid: …" with the valid ones' sums.
    QString tokensText() const;
};

class RunSummaryBuilder {
public:
    void add(const RunEvent &event);
    void add(const RunEventBatch &events);

    // What add(event) does for the events that count, without building a RunEvent (the
    // summary fast path, RunSummaryScanner). Ids are UTF-8.
    bool hasSessionId() const { return !m_summary.sessionId.isEmpty(); }
    void setSessionId(const QString &sessionId);
    void addToolUse(const QByteArray &toolUseId);
    // mainThread: no parent_tool_use_id; decides a transcript turn's failure like add() does.
    void addToolResult(const QByteArray &toolUseId, bool isError, bool mainThread);
    void addMainThreadOutcome(bool apiError) { m_summary.turnFailed = apiError; }
    void addApiError() { ++m_summary.apiErrors; }
    void addMessageUsage(const QByteArray &messageId, const TokenUsage &usage);
    void addResult(const ResultInfo &result);
    // Token totals: per result line its model_usage_since_last_result (all models, including
    // sub-agents), else its usage. Without any result line, the usage of the assistant
    // messages seen, counted once per message.id.
    // runEnded=false (a live run) does not count a missing result line as an error yet.
    RunSummary summary(bool runEnded = true) const;
    // Ids held (playback's checkpoint memory estimate).
    qint64 entryCount() const
    {
        return m_toolUses.size() + m_answered.size() + m_failed.size() + m_messageUsage.size();
    }

private:
    RunSummary m_summary;
    QSet<QByteArray> m_toolUses;
    QSet<QByteArray> m_answered;
    QSet<QByteArray> m_failed;
    QHash<QByteArray, TokenUsage> m_messageUsage;
    qint64 m_answeredCalls = 0; // of m_toolUses, those in m_answered
    qint64 m_failedCalls = 0; // of m_toolUses, those in m_failed
    TokenUsage m_messageTokens; // m_messageUsage summed
    TokenUsage m_resultUsage;
    qint64 m_turnStartedMs = -1;
    double m_lastSessionCost = 0;
};

// Per-field maximum: the usage of one API response only grows while it streams (provisional
// values on the per-block lines, the final count on message_delta), so the maximum is the
// latest value whatever order the lines come in.
TokenUsage mergedUsage(const TokenUsage &seen, const TokenUsage &update);

} // namespace sandscope
