#include "summaryscanner.h"

#include "streamjson/runsummary.h"
#include "streamjson/simdjsonfields.h"
#include "streamjson/streamjson.h"

#include <QByteArray>
#include <QString>

#include <cstring>
#include <simdjson.h>
#include <string>
#include <unordered_map>
#include <vector>

namespace sandscope {

using jsonfields::boolField;
using jsonfields::stringView;
using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

const size_t RunSummaryScanner::padding = simdjson::SIMDJSON_PADDING;

namespace {

using jsonfields::retainedCapacity;

QByteArray bytes(std::string_view text)
{
    return QByteArray(text.data(), qsizetype(text.size()));
}

} // namespace

struct RunSummaryScanner::Impl {
    RunSummaryBuilder *builder;
    simdjson::dom::parser parser;
    std::vector<char> copy; // scan(): the line followed by padding
    qint64 entryTimeMs = -1; // setLineTime's, for the next line
    // stream_event: the last message_start's id per thread (RunParser does the same).
    std::unordered_map<std::string, std::string> streamingMessageByThread;

    Line scanPadded(std::string_view line)
    {
        line = streamjson::withoutTerminator(line);
        if (streamjson::isBlank(line)) {
            entryTimeMs = -1;
            return Line::Blank;
        }
        if (qsizetype(line.size()) > StreamLineReader::defaultMaxLineBytes) {
            timeLine(-1);
            builder->addTurnContent(); // NotJson for RunParser too
            return Line::Counted;
        }
        const std::string_view json = streamjson::jsonText(line);
        object root;
        if (json.empty()
            || parser.parse(json.data(), json.size(), false).get(root) != simdjson::SUCCESS) {
            timeLine(-1);
            builder->addTurnContent(); // noise or corrupt: a raw node in the current turn
            return Line::Counted;
        }
        // RecordingReader::timestampOf parses the line as it is: one behind escape sequences
        // has no time of its own.
        const std::string_view stamp
            = json.data() == line.data() ? stringView(root, "timestamp") : std::string_view();
        const Line counted = facts(root, stamp);
        return counted;
    }

    // Gives the builder the line's time: a recording's, set before; else its timestamp.
    void timeLine(qint64 stampMs)
    {
        builder->setLineTime(entryTimeMs >= 0 ? entryTimeMs : stampMs);
        entryTimeMs = -1;
    }

    Line facts(const object &line, std::string_view stamp)
    {
        const std::string_view type = stringView(line, "type");
        if (jsonfields::isTranscriptRecord(line, type))
            return Line::NeedsEvents;
        timeLine(stamp.empty() ? -1 : jsonfields::isoTimeMs(stamp));
        const std::string_view thread = stringView(line, "parent_tool_use_id");
        builder->setLineThread(bytes(thread));
        turnFacts(line, type);
        if (!builder->hasSessionId()) {
            const std::string_view session = stringView(line, "session_id");
            if (!session.empty())
                builder->setSessionId(QString::fromUtf8(session.data(), qsizetype(session.size())));
        }
        object message;
        const bool hasMessage = line.at_key("message").get(message) == simdjson::SUCCESS;
        const std::string_view envelopeMessageId
            = hasMessage ? stringView(message, "id") : std::string_view();
        if (type == "assistant") {
            if (hasMessage)
                assistant(line, message, envelopeMessageId, thread.empty());
        } else if (type == "user") {
            if (hasMessage)
                user(message, thread.empty());
        } else if (type == "result") {
            result(line);
        } else if (type == "stream_event") {
            streamEvent(line, thread, envelopeMessageId);
        }
        return Line::Counted;
    }

    // Which turn the line goes to, as RunModel places its events (RunParser's Transient
    // lines go nowhere; a result finds its turn in addResult).
    void turnFacts(const object &line, std::string_view type)
    {
        const std::string_view subtype = stringView(line, "subtype");
        if (type == "result" || type == "keep_alive" || type == "tool_progress"
            || type == "control_response" || type == "control_cancel_request")
            return;
        if (type == "system" && subtype == "init") {
            builder->addTurnStart();
            return;
        }
        if (type == "system" && (subtype == "thinking_tokens" || subtype == "turn_duration"))
            return;
        if (type == "system" && subtype.substr(0, 5) == "task_") // RunParser: every task_*
            task(line, subtype);
        if (type == "system" && subtype == "compact_boundary") {
            builder->addCompactBoundary();
            return;
        }
        if (type == "stream_event" && !streamEventUsage(line))
            return;
        builder->addTurnContent();
    }

    // A task's status as RunParser::parseTask reads it.
    void task(const object &line, std::string_view subtype)
    {
        std::string_view status
            = subtype == "task_started" ? std::string_view("running") : stringView(line, "status");
        object patch;
        if (line.at_key("patch").get(patch) == simdjson::SUCCESS)
            status = stringView(patch, "status");
        builder->addTask(bytes(stringView(line, "tool_use_id")), bytes(stringView(line, "task_id")),
            QString::fromUtf8(status.data(), qsizetype(status.size())));
    }

    // Whether a stream_event line becomes a MessageUsage event (RunParser::parseStreamEvent).
    static bool streamEventUsage(const object &line)
    {
        object event;
        if (line.at_key("event").get(event) != simdjson::SUCCESS)
            return false;
        const std::string_view eventType = stringView(event, "type");
        object inner;
        if (eventType == "message_start")
            return event.at_key("message").get(inner) == simdjson::SUCCESS
                && inner.at_key("usage").get(inner) == simdjson::SUCCESS;
        return eventType == "message_delta"
            && event.at_key("usage").get(inner) == simdjson::SUCCESS;
    }

    void assistant(
        const object &line, const object &message, std::string_view messageId, bool mainThread)
    {
        array content;
        const bool hasContent = message.at_key("content").get(content) == simdjson::SUCCESS;
        if (boolField(line, "is_api_error_message") || boolField(line, "isApiErrorMessage")
            || stringView(message, "model") == "<synthetic>") {
            builder->addApiError();
            if (mainThread)
                builder->addMainThreadOutcome(true);
            return; // no usage counted, as RunParser's ApiError
        }
        if (hasContent) {
            for (element entry : content) {
                object block;
                if (entry.get(block) != simdjson::SUCCESS)
                    continue;
                const std::string_view blockType = stringView(block, "type");
                if (blockType == "text") {
                    if (mainThread)
                        builder->addMainThreadOutcome(false);
                } else if (blockType == "tool_use" || blockType == "server_tool_use"
                    || blockType == "mcp_tool_use") {
                    const std::string_view id = stringView(block, "id");
                    if (!id.empty())
                        builder->addToolUse(bytes(id));
                }
            }
        }
        object usage;
        if (message.at_key("usage").get(usage) == simdjson::SUCCESS)
            addUsage(messageId, usage);
    }

    void user(const object &message, bool mainThread)
    {
        array blocks;
        if (message.at_key("content").get(blocks) != simdjson::SUCCESS)
            return; // missing, a string or something else: no tool results
        for (element entry : blocks) {
            object block;
            if (entry.get(block) != simdjson::SUCCESS || stringView(block, "type") != "tool_result")
                continue;
            builder->addToolResult(
                bytes(stringView(block, "tool_use_id")), boolField(block, "is_error"), mainThread);
        }
    }

    void result(const object &line)
    {
        ResultInfo info;
        const std::string_view subtype = stringView(line, "subtype");
        info.subtype = QString::fromUtf8(subtype.data(), qsizetype(subtype.size()));
        info.isError = boolField(line, "is_error");
        info.hasCost
            = jsonfields::costField(line, "total_cost_usd", &info.totalCostUsd, &info.invalidCost);
        info.durationMs = jsonfields::integerField(line, "duration_ms", -1);
        info.numTurns = jsonfields::intField(line, "num_turns", -1);
        object usage;
        if (line.at_key("usage").get(usage) == simdjson::SUCCESS)
            info.usage = jsonfields::usageFrom(usage);
        object sinceLast;
        if (line.at_key("model_usage_since_last_result").get(sinceLast) == simdjson::SUCCESS)
            jsonfields::addModelUsage(sinceLast, info);
        builder->addResult(info);
    }

    void streamEvent(const object &line, std::string_view thread, std::string_view envelopeId)
    {
        object event;
        if (line.at_key("event").get(event) != simdjson::SUCCESS)
            return;
        const std::string_view eventType = stringView(event, "type");
        std::string_view messageId = stringView(line, "api_message_id");
        object usage;
        if (eventType == "message_start") {
            object message;
            if (event.at_key("message").get(message) != simdjson::SUCCESS)
                return;
            if (messageId.empty())
                messageId = stringView(message, "id");
            streamingMessageByThread[std::string(thread)] = std::string(messageId);
            if (message.at_key("usage").get(usage) == simdjson::SUCCESS)
                addUsage(messageId.empty() ? envelopeId : messageId, usage);
        } else if (eventType == "message_delta"
            && event.at_key("usage").get(usage) == simdjson::SUCCESS) {
            std::string known;
            if (messageId.empty()) {
                const auto found = streamingMessageByThread.find(std::string(thread));
                if (found != streamingMessageByThread.end())
                    known = found->second;
                messageId = known;
            }
            addUsage(messageId.empty() ? envelopeId : messageId, usage);
        }
    }

    void addUsage(std::string_view messageId, const object &usage)
    {
        builder->addMessageUsage(bytes(messageId), jsonfields::usageFrom(usage));
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
    if (m_impl->parser.capacity() > retainedCapacity) {
        const simdjson::error_code error = m_impl->parser.allocate(256 * 1024);
        Q_UNUSED(error)
    }
}

} // namespace sandscope
