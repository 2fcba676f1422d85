#pragma once
// Plain value types that RunParser produces from Claude Code stream-json lines
// (docs/stream-json.md, "Line types and the events they become"). No JSON DOM leaks out of the
// parser: content is copied into these structs; the original line is kept as bytes for a
// raw/pretty-printed view.

#include <QByteArray>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>

#include <limits>
#include <string_view>

namespace sandscope {

// a + b, held at the largest count instead of wrapping into a negative total (a hostile file
// can hold many huge counts).
inline qint64 saturatingAdd(qint64 a, qint64 b)
{
    qint64 sum = 0;
    if (!__builtin_add_overflow(a, b, &sum))
        return sum;
    return b > 0 ? std::numeric_limits<qint64>::max() : std::numeric_limits<qint64>::min();
}

// Token counts of one API response or one result line. `present` tells a zero count from a
// missing usage object; `invalid` says a count in the file was out of range (negative, not a
// whole number, 1e308, 16 digits and more): it counts as 0 and is shown as invalid.
struct TokenUsage {
    qint64 inputTokens = 0;
    qint64 outputTokens = 0;
    qint64 cacheReadInputTokens = 0;
    qint64 cacheCreationInputTokens = 0;
    bool present = false;
    bool invalid = false;

    TokenUsage &operator+=(const TokenUsage &other)
    {
        inputTokens = saturatingAdd(inputTokens, other.inputTokens);
        outputTokens = saturatingAdd(outputTokens, other.outputTokens);
        cacheReadInputTokens = saturatingAdd(cacheReadInputTokens, other.cacheReadInputTokens);
        cacheCreationInputTokens
            = saturatingAdd(cacheCreationInputTokens, other.cacheCreationInputTokens);
        present = present || other.present;
        invalid = invalid || other.invalid;
        return *this;
    }
    bool operator==(const TokenUsage &other) const
    {
        return inputTokens == other.inputTokens && outputTokens == other.outputTokens
            && cacheReadInputTokens == other.cacheReadInputTokens
            && cacheCreationInputTokens == other.cacheCreationInputTokens;
    }
    bool operator!=(const TokenUsage &other) const { return !(*this == other); }
};

namespace runtask {
// The task statuses that end it (system/task_* lines; docs/stream-json.md, "Tasks").
inline constexpr std::string_view endedStatuses[] = {"completed", "failed", "stopped", "killed"};

inline bool isEnded(std::string_view status)
{
    for (const std::string_view ended : endedStatuses) {
        if (status == ended)
            return true;
    }
    return false;
}

inline bool isEnded(const QString &status)
{
    for (const std::string_view ended : endedStatuses) {
        if (status == QLatin1String(ended.data(), int(ended.size())))
            return true;
    }
    return false;
}
} // namespace runtask

struct TodoItem {
    QString content;
    QString status; // pending, in_progress, completed
    QString activeForm;
};

// The fields of a tool_use input that the run view shows; the complete input stays available
// as JSON text in RunEvent::inputJson.
struct ToolInput {
    QString command; // Bash
    QString description; // Bash, Agent
    QString filePath; // Read, Write, Edit, NotebookEdit (notebook_path)
    QString oldString; // Edit
    QString newString; // Edit, NotebookEdit (new_source)
    QString content; // Write
    QString pattern; // Grep, Glob
    QString path; // Grep, Glob, LS
    QString url; // WebFetch
    QString query; // WebSearch
    QString prompt; // Agent, WebFetch
    QString subagentType; // Agent
    QString skill; // Skill
    bool replaceAll = false; // Edit
    bool runInBackground = false; // Agent, Bash
    QVector<TodoItem> todos; // TodoWrite
};

struct ResultInfo {
    QString subtype; // success, error_max_turns, error_during_execution, ...
    bool isError = false;
    bool hasCost = false;
    double totalCostUsd = 0; // cumulative for the CLI process
    bool hasTurnCost = false;
    double turnCostUsd = 0; // sum of model_usage_since_last_result[*].costUSD
    qint64 durationMs = -1;
    qint64 durationApiMs = -1;
    int numTurns = -1;
    int resultIndex = -1;
    QString resultText; // only on success subtypes
    QStringList errors; // error subtypes
    QString terminalReason;
    QString stopReason;
    QString apiErrorType;
    int apiErrorStatus = 0;
    TokenUsage usage; // main loop of this turn
    TokenUsage turnUsage; // model_usage_since_last_result summed over models (incl. sub-agents)
    bool invalidCost = false; // a cost in the line was out of range (negative, 1e308): not used
    QStringList deniedToolUseIds; // permission_denials[*].tool_use_id
};

// system/task_* and background_tasks_changed.
struct TaskInfo {
    QString taskId;
    QString taskType; // local_agent, local_bash, ...
    QString status; // running, completed, failed, stopped (task_updated patch / notification)
    QString description;
    QString subagentType;
    QString lastToolName;
    QString summary;
    QString outputFile;
    qint64 totalTokens = -1;
    qint64 toolUses = -1;
    qint64 durationMs = -1;
    bool backgrounded = false;
};

// Where an event's line is in the files a run was read from (LineSource): which file, and the
// line's bytes there as written. Invalid for lines that came from anywhere else.
struct LineRef {
    int source = -1;
    // Which of the line's events of one kind this is (0 for the first): the event to take
    // from the line when it is parsed again.
    int part = 0;
    qint64 offset = -1;
    qint64 length = 0;
    bool isValid() const { return source >= 0 && offset >= 0; }
};

struct RunEvent {
    enum Kind {
        SessionInit, // system/init: starts a turn
        AssistantText, // text block of an assistant line
        Thinking, // thinking / redacted_thinking block
        ToolUse, // tool_use (and server_tool_use) block
        ToolResult, // tool_result block of a user line
        UserText, // other user content: a sub-agent's prompt, an interrupt note, a replayed prompt
        MessageUsage, // usage of one API response (assistant line or stream_event), by message.id
        ApiRetry, // system/api_retry
        ApiError, // synthetic assistant message (is_api_error_message or model "<synthetic>")
        PermissionDenied, // system/permission_denied
        Task, // system/task_started/progress/updated/notification
        CompactBoundary, // system/compact_boundary
        SystemNotice, // other system subtypes (status, hooks, informational, ...)
        Result, // result line
        SessionCost, // transcript cost-state: the CLI process ended its turn; cumulative cost
        TurnDuration, // transcript system/turn_duration: the REPL ended its turn
                      // (result.durationMs)
        Transient, // no lasting content: stream_event partials, keep_alive, tool_progress, ...
        Unknown, // a JSON object of an unknown or unhandled type
        NotJson, // noise (stderr, warnings, ESC[?25h) or corrupt JSON
    };

    Kind kind = Unknown;
    qint64 arrivalMs = 0; // passed in by the caller, so replay and tests are deterministic
    qint64 lineNumber = 0; // 1-based position of the line in the fed stream
    QString type; // envelope type / subtype as written
    QString subtype;
    QString sessionId;
    QString uuid;
    QString parentToolUseId; // empty on the main thread
    QString messageId; // message.id (assistant), api_message_id (stream_event)

    // Text of text/thinking/user blocks, api error text, denial message, status text,
    // the error of a NotJson line.
    QString text;
    bool isError = false; // tool_result is_error, corrupt JSON, failed task, error result
    bool corrupt = false; // NotJson: started with "{" but did not parse

    // ToolUse / ToolResult / PermissionDenied / Task
    QString toolUseId;
    QString toolName;
    ToolInput input;
    QByteArray inputJson; // ToolUse: the input object as compact JSON
    QString resultText; // ToolResult: content flattened to text (images as a placeholder)
    QByteArray structuredResultJson; // ToolResult: the line's tool_use_result as JSON
    QString structuredStatus; // ToolResult: tool_use_result.status (Agent), e.g. async_launched

    TokenUsage usage; // MessageUsage
    QString model; // SessionInit, assistant message model
    QString cwd; // SessionInit
    QString cliVersion; // SessionInit
    QString permissionMode; // SessionInit

    // ApiRetry (attempt/max/delay) and ApiError (status, error code)
    int attempt = 0;
    int maxRetries = 0;
    qint64 retryDelayMs = 0;
    int errorStatus = 0;
    QString errorCode;

    ResultInfo
        result; // Result; SessionCost fills hasCost and totalCostUsd, TurnDuration durationMs
    TaskInfo task; // Task

    QByteArray raw; // the complete line (shared between the events of one line)
    // Where the line is in its file, when it came from one (RecordingReader); raw may then be
    // empty, and LineSource reads the line again when it is asked for.
    LineRef rawRef;
};

using RunEventBatch = QVector<RunEvent>;

} // namespace sandscope

Q_DECLARE_METATYPE(sandscope::RunEvent)
Q_DECLARE_METATYPE(sandscope::RunEventBatch)
