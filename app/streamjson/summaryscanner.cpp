#include "summaryscanner.h"

#include "streamjson/jsonlineview.h"
#include "streamjson/runsummary.h"
#include "streamjson/simdjsonfields.h"
#include "streamjson/streamjson.h"
#include "util/flatidtable.h"

#include <QString>

#include <cstring>
#include <simdjson.h>
#include <string>
#include <vector>

namespace sandscope {

using jsonfields::boolField;
using jsonfields::JsonOf;
using jsonfields::stringView;

const size_t RunSummaryScanner::padding = simdjson::SIMDJSON_PADDING;

namespace {

using jsonfields::retainedCapacity;

// The members of a line the summary reads, each the first of its name as at_key finds it, read
// in one pass over the object: at_key walks the object for every name it is asked (and to the
// end for the missing ones), which was 11 % of `replay --summary` on 100 MB. Over simdjson's
// DOM or JsonLineView (the Object type), as every reader below.
template <typename Object> struct ScannedLine {
    using element = typename JsonOf<Object>::Element;
    using object = Object;

    enum Member : unsigned {
        Type = 1,
        Timestamp = 2,
        Thread = 4,
        Session = 8,
        Subtype = 16,
        ApiMessageId = 32,
        Message = 64,
        Event = 128,
        ApiError = 256,
        ApiErrorCamel = 512,
        IsError = 1024,
        TotalCostUsd = 2048,
        DurationMs = 4096,
        NumTurns = 8192,
        Usage = 16384,
        SinceLastResult = 32768,
        Status = 65536,
        Patch = 131072,
        TaskId = 262144,
        ToolUseId = 524288,
    };
    std::string_view type;
    std::string_view timestamp;
    std::string_view thread; // parent_tool_use_id
    std::string_view sessionId; // session_id
    std::string_view subtype;
    std::string_view apiMessageId;
    object message;
    object event;
    bool hasMessage = false;
    bool hasEvent = false;
    // A result's: each element is there when its bit is in `present`.
    element isError;
    element totalCostUsd;
    element durationMs;
    element numTurns;
    object usage;
    object sinceLastResult; // model_usage_since_last_result
    bool hasUsage = false;
    bool hasSinceLastResult = false;
    // A system/task_* line's.
    std::string_view status;
    std::string_view taskId;
    std::string_view toolUseId;
    object patch;
    bool hasPatch = false;
    bool hasTranscriptSessionId = false; // "sessionId", of any type
    bool apiErrorFlag = false; // is_api_error_message or isApiErrorMessage true

    explicit ScannedLine(const Object &line)
    {
        unsigned seen = 0;
        auto first = [&seen](unsigned bit) {
            const bool isFirst = (seen & bit) == 0;
            seen |= bit;
            return isFirst;
        };
        auto text = [](element value) {
            std::string_view result;
            return value.get(result) == simdjson::SUCCESS ? result : std::string_view();
        };
        auto isTrue = [](element value) {
            bool result = false;
            return value.get(result) == simdjson::SUCCESS && result;
        };
        for (const auto field : line) {
            const std::string_view key = field.key;
            switch (key.size()) {
            case 4:
                if (jsonfields::is(key, "type") && first(Type))
                    type = text(field.value);
                break;
            case 5:
                if (jsonfields::is(key, "event") && first(Event))
                    hasEvent = field.value.get(event) == simdjson::SUCCESS;
                else if (jsonfields::is(key, "usage") && first(Usage))
                    hasUsage = field.value.get(usage) == simdjson::SUCCESS;
                else if (jsonfields::is(key, "patch") && first(Patch))
                    hasPatch = field.value.get(patch) == simdjson::SUCCESS;
                break;
            case 6:
                if (jsonfields::is(key, "status") && first(Status))
                    status = text(field.value);
                break;
            case 7:
                if (jsonfields::is(key, "message") && first(Message))
                    hasMessage = field.value.get(message) == simdjson::SUCCESS;
                else if (jsonfields::is(key, "subtype") && first(Subtype))
                    subtype = text(field.value);
                else if (jsonfields::is(key, "task_id") && first(TaskId))
                    taskId = text(field.value);
                break;
            case 8:
                if (jsonfields::is(key, "is_error") && first(IsError))
                    isError = field.value;
                break;
            case 9:
                if (jsonfields::is(key, "timestamp") && first(Timestamp))
                    timestamp = text(field.value);
                else if (jsonfields::is(key, "sessionId"))
                    hasTranscriptSessionId = true;
                else if (jsonfields::is(key, "num_turns") && first(NumTurns))
                    numTurns = field.value;
                break;
            case 10:
                if (jsonfields::is(key, "session_id") && first(Session))
                    sessionId = text(field.value);
                break;
            case 11:
                if (jsonfields::is(key, "duration_ms") && first(DurationMs))
                    durationMs = field.value;
                else if (jsonfields::is(key, "tool_use_id") && first(ToolUseId))
                    toolUseId = text(field.value);
                break;
            case 14:
                if (jsonfields::is(key, "api_message_id") && first(ApiMessageId))
                    apiMessageId = text(field.value);
                else if (jsonfields::is(key, "total_cost_usd") && first(TotalCostUsd))
                    totalCostUsd = field.value;
                break;
            case 17:
                if (jsonfields::is(key, "isApiErrorMessage") && first(ApiErrorCamel))
                    apiErrorFlag = apiErrorFlag || isTrue(field.value);
                break;
            case 18:
                if (jsonfields::is(key, "parent_tool_use_id") && first(Thread))
                    thread = text(field.value);
                break;
            case 20:
                if (jsonfields::is(key, "is_api_error_message") && first(ApiError))
                    apiErrorFlag = apiErrorFlag || isTrue(field.value);
                break;
            case 29:
                if (jsonfields::is(key, "model_usage_since_last_result") && first(SinceLastResult))
                    hasSinceLastResult = field.value.get(sinceLastResult) == simdjson::SUCCESS;
                break;
            default:
                break;
            }
        }
        present = seen;
    }

    bool has(Member member) const { return (present & member) != 0; }
    unsigned present = 0; // the Members found
};

// An API message's members the summary reads (the first of each name, as ScannedLine).
template <typename Object> struct ScannedMessage {
    std::string_view id;
    std::string_view model;
    typename JsonOf<Object>::Array content;
    Object usage;
    bool hasContent = false;
    bool hasUsage = false;

    explicit ScannedMessage(const Object &message)
    {
        bool seenId = false, seenModel = false, seenContent = false, seenUsage = false;
        for (const auto field : message) {
            const std::string_view key = field.key;
            if (jsonfields::is(key, "id") && !seenId) {
                seenId = true;
                if (field.value.get(id) != simdjson::SUCCESS)
                    id = {};
            } else if (jsonfields::is(key, "model") && !seenModel) {
                seenModel = true;
                if (field.value.get(model) != simdjson::SUCCESS)
                    model = {};
            } else if (jsonfields::is(key, "content") && !seenContent) {
                seenContent = true;
                hasContent = field.value.get(content) == simdjson::SUCCESS;
            } else if (jsonfields::is(key, "usage") && !seenUsage) {
                seenUsage = true;
                hasUsage = field.value.get(usage) == simdjson::SUCCESS;
            }
        }
    }
};

// A stream_event's event, read once for both questions asked of it: whether the line is a
// MessageUsage event (RunParser::parseStreamEvent), and which usage it counts. A message_start's
// usage is its message's; a message_delta's its own; no other event has one.
template <typename Object> struct StreamEvent {
    std::string_view type;
    Object message; // a message_start's
    Object usage;
    bool hasMessage = false;
    bool hasUsage = false;

    StreamEvent() = default;
    explicit StreamEvent(const Object &event)
        : type(stringView(event, "type"))
    {
        if (jsonfields::is(type, "message_start")) {
            hasMessage = event.at_key("message").get(message) == simdjson::SUCCESS;
            hasUsage = hasMessage && message.at_key("usage").get(usage) == simdjson::SUCCESS;
        } else if (jsonfields::is(type, "message_delta")) {
            hasUsage = event.at_key("usage").get(usage) == simdjson::SUCCESS;
        }
    }
};

} // namespace

struct RunSummaryScanner::Impl {
    RunSummaryBuilder *builder;
    simdjson::dom::parser parser;
    JsonLineView view {&parser}; // most lines; the others through the parser's DOM
    std::vector<char> copy; // scan(): the line followed by padding
    qint64 entryTimeMs = -1; // setLineTime's, for the next line
    // stream_event: the last message_start's id per thread (RunParser does the same).
    FlatIdTable<std::string> streamingMessageByThread;
    bool resultSubtypeKnown = false;
    std::string resultSubtype; // the last result's, and as a QString
    QString resultSubtypeText;

    Line scanPadded(std::string_view line)
    {
        line = streamjson::withoutTerminator(line);
        // Trimmed once: a line with JSON text is not blank.
        const std::string_view json = streamjson::jsonText(line);
        if (json.empty() && streamjson::isBlank(line)) {
            entryTimeMs = -1;
            return Line::Blank;
        }
        if (qsizetype(line.size()) > StreamLineReader::defaultMaxLineBytes) {
            timeLine(-1);
            builder->addTurnContent(); // NotJson for RunParser too
            return Line::Counted;
        }
        // RecordingReader::timestampOf parses the line as it is: one behind escape sequences
        // has no time of its own.
        const bool ownTime = json.data() == line.data();
        JsonLineView::Object viewRoot;
        if (!json.empty() && view.read(json.data(), json.size(), &viewRoot)) {
            const ScannedLine<JsonLineView::Object> fields(viewRoot);
            return facts(fields, ownTime ? fields.timestamp : std::string_view());
        }
        simdjson::dom::object root;
        if (json.empty()
            || parser.parse(json.data(), json.size(), false).get(root) != simdjson::SUCCESS) {
            timeLine(-1);
            builder->addTurnContent(); // noise or corrupt: a raw node in the current turn
            return Line::Counted;
        }
        const ScannedLine<simdjson::dom::object> fields(root);
        return facts(fields, ownTime ? fields.timestamp : std::string_view());
    }

    // Gives the builder the line's time: a recording's, set before; else its timestamp.
    void timeLine(qint64 stampMs)
    {
        builder->setLineTime(entryTimeMs >= 0 ? entryTimeMs : stampMs);
        entryTimeMs = -1;
    }

    template <typename Object> Line facts(const ScannedLine<Object> &fields, std::string_view stamp)
    {
        const std::string_view type = fields.type;
        if (fields.hasTranscriptSessionId || jsonfields::isTranscriptOnlyType(type))
            return Line::NeedsEvents; // jsonfields::isTranscriptRecord
        timeLine(stamp.empty() ? -1 : jsonfields::isoTimeMs(stamp));
        const std::string_view thread = fields.thread;
        builder->setLineThread(thread);
        const bool isStreamEvent = jsonfields::is(type, "stream_event");
        const StreamEvent<Object> event = isStreamEvent && fields.hasEvent
            ? StreamEvent<Object>(fields.event)
            : StreamEvent<Object>();
        turnFacts(fields, event);
        if (!builder->hasSessionId() && !fields.sessionId.empty())
            builder->setSessionId(jsonfields::toQString(fields.sessionId));
        if (jsonfields::is(type, "assistant")) {
            if (fields.hasMessage)
                assistant(fields, ScannedMessage<Object>(fields.message), thread.empty());
        } else if (jsonfields::is(type, "user")) {
            if (fields.hasMessage)
                user(ScannedMessage<Object>(fields.message), thread.empty());
        } else if (jsonfields::is(type, "result")) {
            result(fields);
        } else if (isStreamEvent) {
            const std::string_view envelopeMessageId
                = fields.hasMessage ? stringView(fields.message, "id") : std::string_view();
            streamEvent(fields, event, envelopeMessageId);
        }
        return Line::Counted;
    }

    // Which turn the line goes to, as RunModel places its events (RunParser's Transient
    // lines go nowhere; a result finds its turn in addResult).
    template <typename Object>
    void turnFacts(const ScannedLine<Object> &fields, const StreamEvent<Object> &streamEvent)
    {
        const std::string_view type = fields.type;
        const std::string_view subtype = fields.subtype;
        if (jsonfields::is(type, "result") || jsonfields::is(type, "keep_alive")
            || jsonfields::is(type, "tool_progress") || jsonfields::is(type, "control_response")
            || jsonfields::is(type, "control_cancel_request"))
            return;
        if (jsonfields::is(type, "system") && jsonfields::is(subtype, "init")) {
            builder->addTurnStart();
            return;
        }
        if (jsonfields::is(type, "system")
            && (jsonfields::is(subtype, "thinking_tokens")
                || jsonfields::is(subtype, "turn_duration")))
            return;
        if (jsonfields::is(type, "system")
            && subtype.substr(0, 5) == "task_") // RunParser: every task_*
            task(fields, subtype);
        if (jsonfields::is(type, "system") && jsonfields::is(subtype, "compact_boundary")) {
            builder->addCompactBoundary();
            return;
        }
        if (jsonfields::is(type, "stream_event") && !streamEvent.hasUsage)
            return;
        builder->addTurnContent();
    }

    // A task's status as RunParser::parseTask reads it.
    template <typename Object>
    void task(const ScannedLine<Object> &fields, std::string_view subtype)
    {
        std::string_view status
            = jsonfields::is(subtype, "task_started") ? std::string_view("running") : fields.status;
        if (fields.hasPatch)
            status = stringView(fields.patch, "status");
        builder->addTask(fields.toolUseId, fields.taskId, runtask::isEnded(status));
    }

    template <typename Object>
    void assistant(
        const ScannedLine<Object> &fields, const ScannedMessage<Object> &message, bool mainThread)
    {
        if (fields.apiErrorFlag || message.model == "<synthetic>") {
            builder->addApiError();
            if (mainThread)
                builder->addMainThreadOutcome(true);
            return; // no usage counted, as RunParser's ApiError
        }
        if (message.hasContent) {
            for (const auto entry : message.content) {
                Object block;
                if (entry.get(block) != simdjson::SUCCESS)
                    continue;
                const std::string_view blockType = stringView(block, "type");
                if (jsonfields::is(blockType, "text")) {
                    if (mainThread)
                        builder->addMainThreadOutcome(false);
                } else if (jsonfields::is(blockType, "tool_use")
                    || jsonfields::is(blockType, "server_tool_use")
                    || jsonfields::is(blockType, "mcp_tool_use")) {
                    const std::string_view id = stringView(block, "id");
                    if (!id.empty())
                        builder->addToolUse(id);
                }
            }
        }
        if (message.hasUsage)
            addUsage(message.id, message.usage);
    }

    template <typename Object> void user(const ScannedMessage<Object> &message, bool mainThread)
    {
        if (!message.hasContent)
            return; // missing, a string or something else: no tool results
        for (const auto entry : message.content) {
            Object block;
            if (entry.get(block) != simdjson::SUCCESS || stringView(block, "type") != "tool_result")
                continue;
            builder->addToolResult(
                stringView(block, "tool_use_id"), boolField(block, "is_error"), mainThread);
        }
    }

    template <typename Object> void result(const ScannedLine<Object> &fields)
    {
        ResultInfo info;
        // A run's results mostly share one subtype: made a QString once, not per result.
        if (!resultSubtypeKnown || fields.subtype != resultSubtype) {
            resultSubtypeKnown = true;
            resultSubtype.assign(fields.subtype.data(), fields.subtype.size());
            resultSubtypeText = jsonfields::toQString(fields.subtype);
        }
        info.subtype = resultSubtypeText;
        bool isError = false;
        info.isError = fields.has(ScannedLine<Object>::IsError)
            && fields.isError.get(isError) == simdjson::SUCCESS && isError;
        info.hasCost = fields.has(ScannedLine<Object>::TotalCostUsd)
            && jsonfields::costValue(fields.totalCostUsd, &info.totalCostUsd, &info.invalidCost);
        info.durationMs = fields.has(ScannedLine<Object>::DurationMs)
            ? jsonfields::integerValue(fields.durationMs, -1)
            : -1;
        info.numTurns = fields.has(ScannedLine<Object>::NumTurns)
            ? jsonfields::intValue(fields.numTurns, -1)
            : -1;
        if (fields.hasUsage)
            info.usage = jsonfields::usageFrom(fields.usage);
        if (fields.hasSinceLastResult)
            jsonfields::addModelUsage(fields.sinceLastResult, info);
        builder->addResult(info);
    }

    template <typename Object>
    void streamEvent(const ScannedLine<Object> &fields, const StreamEvent<Object> &event,
        std::string_view envelopeId)
    {
        const std::string_view thread = fields.thread;
        std::string_view messageId = fields.apiMessageId;
        if (jsonfields::is(event.type, "message_start")) {
            if (!event.hasMessage)
                return;
            if (messageId.empty())
                messageId = stringView(event.message, "id");
            streamingMessageByThread.insert(thread).assign(messageId.data(), messageId.size());
            if (event.hasUsage)
                addUsage(messageId.empty() ? envelopeId : messageId, event.usage);
        } else if (event.hasUsage) { // a message_delta's
            if (messageId.empty()) {
                if (const std::string *known = streamingMessageByThread.find(thread))
                    messageId = *known;
            }
            addUsage(messageId.empty() ? envelopeId : messageId, event.usage);
        }
    }

    template <typename Object> void addUsage(std::string_view messageId, const Object &usage)
    {
        builder->addMessageUsage(messageId, jsonfields::usageFrom(usage));
    }
};

RunSummaryScanner::RunSummaryScanner(RunSummaryBuilder *builder)
    : m_impl(std::make_unique<Impl>())
{
    m_impl->builder = builder;
}

RunSummaryScanner::~RunSummaryScanner() = default;

RunSummaryScanner::Line RunSummaryScanner::scanPadded(std::string_view line)
{
    return m_impl->scanPadded(line);
}

RunSummaryScanner::Line RunSummaryScanner::scan(std::string_view line)
{
    std::vector<char> &copy = m_impl->copy;
    if (copy.size() < line.size() + padding)
        copy.resize(line.size() + padding);
    if (!line.empty())
        std::memcpy(copy.data(), line.data(), line.size());
    std::memset(copy.data() + line.size(), 0, padding);
    const Line result = m_impl->scanPadded(std::string_view(copy.data(), line.size()));
    if (copy.size() > retainedCapacity + padding)
        std::vector<char>().swap(copy);
    return result;
}

void RunSummaryScanner::setLineTime(qint64 timeMs)
{
    m_impl->entryTimeMs = timeMs;
}

void RunSummaryScanner::releaseLargeBuffers()
{
    m_impl->view.releaseLargeBuffers();
    if (m_impl->parser.capacity() > retainedCapacity) {
        const simdjson::error_code error = m_impl->parser.allocate(256 * 1024);
        Q_UNUSED(error)
    }
}

} // namespace sandscope
