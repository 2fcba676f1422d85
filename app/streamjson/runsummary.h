#pragma once
// One run in numbers: what `sandscope replay FILE --summary --json` prints and what the run
// view's summary bar shows. Computed from RunEvents, so a file can be summarised while it is
// streamed through RunParser without building a tree.

#include "streamjson/runevents.h"
#include "util/flatidtable.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <string>
#include <string_view>
#include <vector>

namespace sandscope {

// A run's figures (docs/stream-json.md, "Figures"): each has one definition, computed here as
// the run's events arrive (RunSummaryBuilder) or straight from its lines by the summary fast
// path (RunSummaryScanner, which feeds the same builder), and equal to what the run tree's run
// node shows (tests/unit/tst_runfigures.cpp). Every surface reads these values.
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
    // Per turn: its result lines' usage once it has one (final counts), else its API
    // responses' usage, each message.id once; summed over the turns.
    qint64 inputTokens = 0;
    qint64 outputTokens = 0;
    qint64 cacheReadTokens = 0; // counted like inputTokens
    qint64 cacheCreationTokens = 0;
    qint64 apiErrors = 0; // API error messages (synthetic assistant messages)
    // The run's span on its clock (arrival times; a transcript's or capture's timestamps):
    // from its first line to the end of its last turn (or the run's end once it ended); 0
    // before any turn ended.
    qint64 durationMs = 0;
    // Claude's own duration: the results' duration_ms, or a transcript's turn_duration
    // durationMs, summed; -1 without any.
    qint64 claudeDurationMs = -1;
    int turns = 0; // the run tree's Turn nodes: each system/init line, or transcript prompt
    int roundTrips = 0; // API calls: the sum of the results' num_turns (see roundTripsRecorded)
    // Transcripts have no result lines: their turns end with a cost-state record (`claude -p`),
    // whose cumulative cost counts instead, or a turn_duration record (the interactive REPL).
    bool isTranscript = false;
    bool turnOpen = false; // a transcript turn that has not ended (cut short, or running)
    bool turnFailed = false; // the last transcript turn ended on an API error
    bool lastTurnOpen = false; // the last turn has no result (cost-state) yet: running or cut
    // A token count or a cost in the file was out of range (negative, 1e308, 16 digits and
    // more): it was left out of the sums, which are then shown as invalid.
    bool invalidNumbers = false;
    // Non-blank lines of the run's file (a recording's entries, a transcript's main file);
    // filled by the readers, not by RunSummaryBuilder.
    qint64 lines = 0;

    // {"type":"sandscope_summary", "session_id", "result_subtype" (null without a result),
    //  "is_error", "tool_calls", "tool_errors", "unmatched_tool_calls", "cost_usd",
    //  "input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens", "turns",
    //  "round_trips" and "claude_duration_ms" (without results: null), "duration_ms", and
    //  "invalid_numbers": true when invalidNumbers}
    QJsonObject toJson() const;
    // claude reports its round trips (num_turns) only in result lines: a transcript, or a
    // capture cut before its first result, does not record them (never a count of 0).
    bool roundTripsRecorded() const { return hasResult; }
    // "1,234 in, 56 out", or with invalidNumbers "invalid: …" with the valid ones' sums.
    QString tokensText() const;
};

class RunSummaryBuilder {
public:
    void add(const RunEvent &event);
    void add(const RunEventBatch &events);

    // Expects about `bytes` of input (a file read whole): reserves room for the turns and ids
    // such input holds, so that the tables do not copy themselves as they grow. Address space
    // mostly: a page costs only once it is used.
    void reserveForInput(qint64 bytes);

    // What add(event) does for the events that count, without building a RunEvent (the
    // summary fast path, RunSummaryScanner). Ids are UTF-8, only read during the call.
    bool hasSessionId() const { return !m_summary.sessionId.isEmpty(); }
    void setSessionId(const QString &sessionId);
    // The time of the line being read (ms since the epoch, never less than the last one's),
    // or -1 when it has none: it then takes the latest time seen, or before any the first
    // one that comes (RecordingReader's rule for captures).
    void setLineTime(qint64 timeMs);
    // A line that starts a turn (system/init, a transcript prompt), and one that goes into
    // the current turn, opening one when there is none (any line but transient ones).
    void addTurnStart();
    void addTurnContent();
    void addCompactBoundary(); // after an ended turn it opens the next one
    // The parent_tool_use_id of the line being read (empty: the main thread). Its calls and
    // API responses belong to the turn of the call that started its agent, where the tree
    // nests them, also when they arrive during a later turn (a background agent).
    void setLineThread(std::string_view parentToolUseId)
    {
        if (!parentToolUseId.empty() || !m_lineThread.empty()) // most lines: main thread again
            m_lineThread = parentToolUseId;
    }
    void addToolUse(std::string_view toolUseId);
    // mainThread: no parent_tool_use_id; decides a transcript turn's failure like add() does.
    void addToolResult(std::string_view toolUseId, bool isError, bool mainThread);
    void addMainThreadOutcome(bool apiError) { m_summary.turnFailed = apiError; }
    void addApiError() { ++m_summary.apiErrors; }
    // An empty id: counted for the current turn as it is (no later line can repeat it).
    void addMessageUsage(std::string_view messageId, const TokenUsage &usage);
    void addResult(const ResultInfo &result);
    // A system/task_* line: a call's task that ended (completed, failed, stopped, killed)
    // after a turn did moves the run's end with it, as RunModel::onTask extends the spans.
    // ended: its status is one that ends it (runtask::isEnded).
    void addTask(std::string_view toolUseId, std::string_view taskId, bool ended);
    // runEnded=false (a live run) does not count a missing result line as an error yet, nor
    // an open turn in the duration. endedMs: when the run ended (-1: at its last line).
    RunSummary summary(bool runEnded = true, qint64 endedMs = -1) const;
    // The turns so far, and one turn's tokens (0-based, in the order the tree's Turn nodes
    // come): its results' usage once it has one, else its API responses'.
    int turnCount() const { return int(m_turns.size()); }
    TokenUsage turnTokens(int turn) const;
    // Ids held (playback's checkpoint memory estimate).
    qint64 entryCount() const
    {
        return m_calls.size() + m_messageUsage.size() + m_taskIds.size() + qint64(m_turns.size());
    }

private:
    struct Turn {
        TokenUsage messages; // its API responses' usage, each message.id once
        TokenUsage results; // its result lines' usage, once it has one
        bool ended = false; // a result or cost-state arrived
        bool hasResult = false;
        bool hasInit = false;
    };
    struct Message {
        TokenUsage usage;
        int turn = -1;
    };
    // A call id met in any line: the turn its node is in (RunModel::toolNode's placeholder),
    // and whether its tool_use, a tool_result and a failed one were seen.
    struct Call {
        int turn = -1;
        bool called = false;
        bool answered = false;
        bool failed = false;
    };
    int currentTurn(); // opens one when there is none
    // The turn of the line's thread (RunModel::contextFor): the current one for the main
    // thread, else its call's.
    int contextTurn();
    // The turn of a call, given `turn` when it is new (RunModel::toolNode's placeholder).
    int turnOfCall(std::string_view toolUseId, int turn) { return callOf(toolUseId, turn).turn; }
    Call &callOf(std::string_view toolUseId, int turn); // valid until the next id is added
    void endTurn(int turn);
    void endTranscriptTurn(); // a cost-state or turn_duration record
    void addTurnTokens(int turn, const TokenUsage &messages);
    void noteTime(qint64 timeMs);

    RunSummary m_summary;
    FlatIdTable<Call> m_calls;
    FlatIdTable<Message> m_messageUsage;
    FlatIdTable<bool> m_taskIds; // tasks RunModel finds by their id (named with their call)
    std::string m_lineThread;
    qint64 m_toolCalls = 0; // of m_calls, those called
    qint64 m_answeredCalls = 0; // of those, the answered ones
    qint64 m_failedCalls = 0; // of those, the failed ones
    std::vector<Turn> m_turns;
    int m_current = -1; // the turn lines go to; -1 when none is open for them
    size_t m_firstOpen = 0; // results close the oldest turn still without one
    TokenUsage m_tokens; // the turns' figures summed, kept as they change
    qint64 m_firstTimeMs = -1;
    qint64 m_lastTimeMs = -1;
    qint64 m_lastTurnEndMs = -1;
    bool m_anyTurnEnded = false;
    bool m_firstTimePending = false; // lines came before any time was known
    double m_lastSessionCost = 0;
};

// Per-field maximum: the usage of one API response only grows while it streams (provisional
// values on the per-block lines, the final count on message_delta), so the maximum is the
// latest value whatever order the lines come in.
TokenUsage mergedUsage(const TokenUsage &seen, const TokenUsage &update);

} // namespace sandscope
