#include "runparser.h"

#include "streamjson/simdjsonfields.h"
#include "streamjson/streamjson.h"

#include <QCoreApplication>
#include <QDate>
#include <QDateTime>
#include <QHash>
#include <QSet>
#include <QStringList>

#include <cmath>
#include <limits>
#include <simdjson.h>
#include <string_view>

namespace sandscope {

namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

QByteArray toBytes(const std::string &text)
{
    return QByteArray(text.data(), static_cast<qsizetype>(text.size()));
}

using jsonfields::addModelUsage;
using jsonfields::boolField;
using jsonfields::doubleField;
using jsonfields::integerField;
using jsonfields::intField;
using jsonfields::stringField;
using jsonfields::toQString;
using jsonfields::usageFrom;

ToolInput toolInputFrom(const object &input)
{
    ToolInput result;
    result.command = stringField(input, "command");
    result.description = stringField(input, "description");
    result.filePath = stringField(input, "file_path");
    if (result.filePath.isEmpty())
        result.filePath = stringField(input, "notebook_path");
    result.oldString = stringField(input, "old_string");
    result.newString = stringField(input, "new_string");
    if (result.newString.isEmpty())
        result.newString = stringField(input, "new_source");
    result.content = stringField(input, "content");
    result.pattern = stringField(input, "pattern");
    result.path = stringField(input, "path");
    result.url = stringField(input, "url");
    result.query = stringField(input, "query");
    result.prompt = stringField(input, "prompt");
    result.subagentType = stringField(input, "subagent_type");
    result.skill = stringField(input, "skill");
    result.replaceAll = boolField(input, "replace_all");
    result.runInBackground = boolField(input, "run_in_background");
    array todos;
    if (input.at_key("todos").get(todos) == simdjson::SUCCESS) {
        for (element entry : todos) {
            object todo;
            if (entry.get(todo) != simdjson::SUCCESS)
                continue;
            result.todos.append({stringField(todo, "content"), stringField(todo, "status"),
                stringField(todo, "activeForm")});
        }
    }
    return result;
}

// tool_result content is a string or a list of blocks; images are only named, their base64
// data is not text anyone wants to read.
QString flattenedContent(const element &content)
{
    std::string_view text;
    if (content.get(text) == simdjson::SUCCESS)
        return toQString(text);
    array blocks;
    if (content.get(blocks) != simdjson::SUCCESS)
        return {};
    QString result;
    for (element entry : blocks) {
        object block;
        if (entry.get(block) != simdjson::SUCCESS)
            continue;
        if (!result.isEmpty())
            result += QLatin1Char('\n');
        const QString type = stringField(block, "type");
        if (type == QLatin1String("text"))
            result += stringField(block, "text");
        else
            result += QLatin1Char('[') + type + QLatin1Char(']');
    }
    return result;
}

QStringList stringList(const object &o, std::string_view key)
{
    array values;
    if (o.at_key(key).get(values) != simdjson::SUCCESS)
        return {};
    QStringList result;
    for (element entry : values) {
        std::string_view text;
        if (entry.get(text) == simdjson::SUCCESS)
            result.append(toQString(text));
    }
    return result;
}

} // namespace

struct RunParser::Impl {
    StreamLineReader reader;
    // stream_event lines carry api_message_id; older CLIs did not, so the id of the last
    // message_start per thread is the fallback for message_delta usage.
    QHash<QString, QString> streamingMessageByThread;

    RunEvent makeEvent(RunEvent::Kind kind) const
    {
        RunEvent event;
        event.kind = kind;
        return event;
    }

    void parseAssistant(const object &line, RunEventBatch &out)
    {
        object message;
        if (line.at_key("message").get(message) != simdjson::SUCCESS) {
            out.append(makeEvent(RunEvent::Unknown));
            return;
        }
        const QString model = stringField(message, "model");
        array content;
        const bool hasContent = message.at_key("content").get(content) == simdjson::SUCCESS;

        if (boolField(line, "is_api_error_message") || boolField(line, "isApiErrorMessage")
            || model == QLatin1String("<synthetic>")) {
            RunEvent event = makeEvent(RunEvent::ApiError);
            event.model = model;
            event.isError = true;
            event.errorCode = stringField(line, "error");
            event.errorStatus = intField(line, "api_error_status", 0);
            if (event.errorStatus == 0)
                event.errorStatus = intField(line, "apiErrorStatus", 0);
            if (hasContent)
                event.text = flattenedContent(message.at_key("content").value_unsafe());
            out.append(event);
            return; // synthetic messages have zero usage and no model id to account
        }

        if (hasContent) {
            for (element entry : content) {
                object block;
                if (entry.get(block) != simdjson::SUCCESS)
                    continue;
                const QString type = stringField(block, "type");
                if (type == QLatin1String("text")) {
                    RunEvent event = makeEvent(RunEvent::AssistantText);
                    event.text = stringField(block, "text");
                    event.model = model;
                    out.append(event);
                } else if (type == QLatin1String("thinking")) {
                    RunEvent event = makeEvent(RunEvent::Thinking);
                    event.text = stringField(block, "thinking");
                    out.append(event);
                } else if (type == QLatin1String("redacted_thinking")) {
                    RunEvent event = makeEvent(RunEvent::Thinking);
                    event.text = QStringLiteral("(redacted thinking)");
                    out.append(event);
                } else if (type == QLatin1String("tool_use")
                    || type == QLatin1String("server_tool_use")
                    || type == QLatin1String("mcp_tool_use")) {
                    RunEvent event = makeEvent(RunEvent::ToolUse);
                    event.toolUseId = stringField(block, "id");
                    event.toolName = stringField(block, "name");
                    element input;
                    if (block.at_key("input").get(input) == simdjson::SUCCESS) {
                        event.inputJson = toBytes(simdjson::minify(input));
                        object inputObject;
                        if (input.get(inputObject) == simdjson::SUCCESS)
                            event.input = toolInputFrom(inputObject);
                    }
                    out.append(event);
                } else {
                    RunEvent event = makeEvent(RunEvent::Unknown);
                    event.text = QStringLiteral("assistant content block \"%1\"").arg(type);
                    out.append(event);
                }
            }
        }

        object usage;
        if (message.at_key("usage").get(usage) == simdjson::SUCCESS) {
            RunEvent event = makeEvent(RunEvent::MessageUsage);
            event.usage = usageFrom(usage);
            event.model = model;
            out.append(event);
        }
    }

    // resultKey: "tool_use_result" in stream-json, "toolUseResult" in transcripts.
    void parseUser(
        const object &line, RunEventBatch &out, std::string_view resultKey = "tool_use_result")
    {
        object message;
        if (line.at_key("message").get(message) != simdjson::SUCCESS) {
            out.append(makeEvent(RunEvent::Unknown));
            return;
        }
        element content;
        if (message.at_key("content").get(content) != simdjson::SUCCESS) {
            out.append(makeEvent(RunEvent::UserText));
            return;
        }
        std::string_view plain;
        if (content.get(plain) == simdjson::SUCCESS) {
            RunEvent event = makeEvent(RunEvent::UserText);
            event.text = toQString(plain);
            out.append(event);
            return;
        }
        array blocks;
        if (content.get(blocks) != simdjson::SUCCESS) {
            out.append(makeEvent(RunEvent::Unknown));
            return;
        }

        // tool_use_result belongs to the line: an object for successes, a string on errors.
        QByteArray structured;
        QString structuredStatus;
        element toolUseResult;
        if (line.at_key(resultKey).get(toolUseResult) == simdjson::SUCCESS) {
            structured = toBytes(simdjson::minify(toolUseResult));
            object resultObject;
            if (toolUseResult.get(resultObject) == simdjson::SUCCESS)
                structuredStatus = stringField(resultObject, "status");
        }

        for (element entry : blocks) {
            object block;
            if (entry.get(block) != simdjson::SUCCESS)
                continue;
            const QString type = stringField(block, "type");
            if (type == QLatin1String("tool_result")) {
                RunEvent event = makeEvent(RunEvent::ToolResult);
                event.toolUseId = stringField(block, "tool_use_id");
                event.isError = boolField(block, "is_error");
                element blockContent;
                if (block.at_key("content").get(blockContent) == simdjson::SUCCESS)
                    event.resultText = flattenedContent(blockContent);
                event.structuredResultJson = structured;
                event.structuredStatus = structuredStatus;
                out.append(event);
            } else {
                RunEvent event = makeEvent(RunEvent::UserText);
                event.text = type == QLatin1String("text")
                    ? stringField(block, "text")
                    : QLatin1Char('[') + type + QLatin1Char(']');
                out.append(event);
            }
        }
    }

    void parseTask(const object &line, const QString &subtype, RunEventBatch &out)
    {
        RunEvent event = makeEvent(RunEvent::Task);
        event.toolUseId = stringField(line, "tool_use_id");
        TaskInfo &task = event.task;
        task.taskId = stringField(line, "task_id");
        task.taskType = stringField(line, "task_type");
        task.description = stringField(line, "description");
        task.subagentType = stringField(line, "subagent_type");
        task.lastToolName = stringField(line, "last_tool_name");
        task.summary = stringField(line, "summary");
        task.outputFile = stringField(line, "output_file");
        task.backgrounded = boolField(line, "is_backgrounded");
        if (subtype == QLatin1String("task_started"))
            task.status = QStringLiteral("running");
        else
            task.status = stringField(line, "status");
        object usage;
        if (line.at_key("usage").get(usage) == simdjson::SUCCESS) {
            task.totalTokens = integerField(usage, "total_tokens", -1);
            task.toolUses = integerField(usage, "tool_uses", -1);
            task.durationMs = integerField(usage, "duration_ms", -1);
        }
        object patch;
        if (line.at_key("patch").get(patch) == simdjson::SUCCESS) {
            task.status = stringField(patch, "status");
            if (task.description.isEmpty())
                task.description = stringField(patch, "description");
            event.text = stringField(patch, "error");
            task.backgrounded = boolField(patch, "is_backgrounded");
        }
        event.isError = task.status == QLatin1String("failed") || !event.text.isEmpty();
        out.append(event);
    }

    void parseSystem(const object &line, const QString &subtype, RunEventBatch &out)
    {
        if (subtype == QLatin1String("init")) {
            RunEvent event = makeEvent(RunEvent::SessionInit);
            event.model = stringField(line, "model");
            event.cwd = stringField(line, "cwd");
            event.cliVersion = stringField(line, "claude_code_version");
            event.permissionMode = stringField(line, "permissionMode");
            out.append(event);
        } else if (subtype == QLatin1String("api_retry")) {
            RunEvent event = makeEvent(RunEvent::ApiRetry);
            event.attempt = intField(line, "attempt", 0);
            event.maxRetries = intField(line, "max_retries", 0);
            event.retryDelayMs = integerField(line, "retry_delay_ms", 0);
            event.errorStatus = intField(line, "error_status", 0);
            event.errorCode = stringField(line, "error");
            out.append(event);
        } else if (subtype == QLatin1String("permission_denied")) {
            RunEvent event = makeEvent(RunEvent::PermissionDenied);
            event.toolName = stringField(line, "tool_name");
            event.toolUseId = stringField(line, "tool_use_id");
            event.text = stringField(line, "message");
            event.isError = true;
            out.append(event);
        } else if (subtype.startsWith(QLatin1String("task_"))) {
            parseTask(line, subtype, out);
        } else if (subtype == QLatin1String("compact_boundary")) {
            appendCompaction(line, "compact_metadata", {}, out, [](const object &metadata) {
                return QStringLiteral("%1 compaction: %2 → %3 tokens")
                    .arg(stringField(metadata, "trigger"),
                        QString::number(integerField(metadata, "pre_tokens", 0)),
                        QString::number(integerField(metadata, "post_tokens", 0)));
            });
        } else if (subtype == QLatin1String("thinking_tokens")
            || subtype == QLatin1String("turn_duration")) {
            // turn_duration: the turn's result line carries the same duration_ms.
            out.append(makeEvent(RunEvent::Transient));
        } else {
            RunEvent event = makeEvent(RunEvent::SystemNotice);
            if (subtype == QLatin1String("status")) {
                event.text = stringField(line, "status");
                const QString compactResult = stringField(line, "compact_result");
                if (!compactResult.isEmpty())
                    event.text = QStringLiteral("compaction ") + compactResult;
                const QString compactError = stringField(line, "compact_error");
                event.isError = !compactError.isEmpty();
                if (event.isError)
                    event.text += QStringLiteral(": ") + compactError;
            } else if (subtype.startsWith(QLatin1String("hook_"))) {
                event.text = stringField(line, "hook_name");
                const QString outcome = stringField(line, "outcome");
                if (!outcome.isEmpty())
                    event.text += QStringLiteral(": ") + outcome;
                event.isError = outcome == QLatin1String("error");
            } else if (subtype == QLatin1String("background_tasks_changed")) {
                array tasks;
                const qsizetype count = line.at_key("tasks").get(tasks) == simdjson::SUCCESS
                    ? qsizetype(tasks.size())
                    : 0;
                event.text = QCoreApplication::translate(
                    "RunParser", "%n background task(s)", nullptr, int(count));
            } else {
                event.text = stringField(line, "content");
                if (event.text.isEmpty())
                    event.text = stringField(line, "message");
                event.isError = stringField(line, "level") == QLatin1String("error")
                    || subtype == QLatin1String("mirror_error");
            }
            out.append(event);
        }
    }

    // A compaction node, titled by `describe` from the record's metadata object `key` when it
    // has one, else `bare`.
    template <typename Describe>
    void appendCompaction(const object &line, const char *key, const QString &bare,
        RunEventBatch &out, Describe describe)
    {
        RunEvent event = makeEvent(RunEvent::CompactBoundary);
        event.text = bare;
        object metadata;
        if (line.at_key(key).get(metadata) == simdjson::SUCCESS)
            event.text = describe(metadata);
        out.append(event);
    }

    void parseResult(const object &line, RunEventBatch &out)
    {
        RunEvent event = makeEvent(RunEvent::Result);
        ResultInfo &result = event.result;
        result.subtype = stringField(line, "subtype");
        result.isError = boolField(line, "is_error");
        result.hasCost = jsonfields::costField(
            line, "total_cost_usd", &result.totalCostUsd, &result.invalidCost);
        result.durationMs = integerField(line, "duration_ms", -1);
        result.durationApiMs = integerField(line, "duration_api_ms", -1);
        result.numTurns = intField(line, "num_turns", -1);
        result.resultIndex = intField(line, "result_index", -1);
        result.resultText = stringField(line, "result");
        result.errors = stringList(line, "errors");
        result.terminalReason = stringField(line, "terminal_reason");
        result.stopReason = stringField(line, "stop_reason");
        result.apiErrorType = stringField(line, "api_error_type");
        result.apiErrorStatus = intField(line, "api_error_status", 0);
        object usage;
        if (line.at_key("usage").get(usage) == simdjson::SUCCESS)
            result.usage = usageFrom(usage);
        object sinceLast;
        if (line.at_key("model_usage_since_last_result").get(sinceLast) == simdjson::SUCCESS)
            addModelUsage(sinceLast, result);
        array denials;
        if (line.at_key("permission_denials").get(denials) == simdjson::SUCCESS) {
            for (element entry : denials) {
                object denial;
                if (entry.get(denial) == simdjson::SUCCESS)
                    result.deniedToolUseIds.append(stringField(denial, "tool_use_id"));
            }
        }
        event.isError = result.isError;
        event.text = result.isError && result.resultText.isEmpty() ? result.errors.join(u'\n')
                                                                   : result.resultText;
        out.append(event);
    }

    void parseStreamEvent(const object &line, const QString &thread, RunEventBatch &out)
    {
        object streamEvent;
        if (line.at_key("event").get(streamEvent) != simdjson::SUCCESS) {
            out.append(makeEvent(RunEvent::Transient));
            return;
        }
        const QString eventType = stringField(streamEvent, "type");
        QString messageId = stringField(line, "api_message_id");
        object usage;
        if (eventType == QLatin1String("message_start")) {
            object message;
            if (streamEvent.at_key("message").get(message) == simdjson::SUCCESS) {
                if (messageId.isEmpty())
                    messageId = stringField(message, "id");
                streamingMessageByThread.insert(thread, messageId);
                if (message.at_key("usage").get(usage) == simdjson::SUCCESS) {
                    RunEvent event = makeEvent(RunEvent::MessageUsage);
                    event.usage = usageFrom(usage);
                    event.messageId = messageId;
                    event.model = stringField(message, "model");
                    out.append(event);
                    return;
                }
            }
        } else if (eventType == QLatin1String("message_delta")
            && streamEvent.at_key("usage").get(usage) == simdjson::SUCCESS) {
            // The final output count of the response; the per-block assistant lines only
            // carry the provisional value from message_start.
            RunEvent event = makeEvent(RunEvent::MessageUsage);
            event.usage = usageFrom(usage);
            event.messageId
                = messageId.isEmpty() ? streamingMessageByThread.value(thread) : messageId;
            out.append(event);
            return;
        }
        out.append(makeEvent(RunEvent::Transient));
    }

    // --- transcript records (docs/stream-json.md, "Transcripts on disk") ------------------

    // Time of the record being parsed, ms since the epoch; -1 when it has none.
    qint64 recordTimestampMs = -1;
    bool transcriptRecord = false;

    static bool isTranscriptOnlyType(const QString &type)
    {
        for (const std::string_view known : jsonfields::transcriptOnlyTypes) {
            if (type == QLatin1String(known.data(), qsizetype(known.size())))
                return true;
        }
        return false;
    }

    // A prompt someone typed (or a pipe sent) starts a turn; tool results, harness context
    // (isMeta), compaction summaries, interrupt notes and a sub-agent's prompt do not.
    static bool promptText(const object &line, const object &message, QString *text)
    {
        if (boolField(line, "isMeta") || boolField(line, "isSidechain")
            || boolField(line, "isCompactSummary"))
            return false;
        element content;
        if (message.at_key("content").get(content) != simdjson::SUCCESS)
            return false;
        std::string_view plain;
        if (content.get(plain) == simdjson::SUCCESS) {
            *text = toQString(plain);
        } else {
            array blocks;
            if (content.get(blocks) != simdjson::SUCCESS || blocks.size() == 0)
                return false;
            for (element entry : blocks) {
                object block;
                if (entry.get(block) != simdjson::SUCCESS)
                    return false;
                const QString type = stringField(block, "type");
                if (type == QLatin1String("text")) {
                    if (!text->isEmpty())
                        *text += QLatin1Char('\n');
                    *text += stringField(block, "text");
                } else if (type != QLatin1String("image") && type != QLatin1String("document")) {
                    return false; // tool_result and friends
                }
            }
        }
        // Interrupt notes and a slash command's output are part of the turn; the slash
        // command itself (e.g. /compact) is its prompt.
        if (text->startsWith(QLatin1String("[Request interrupted"))
            || text->startsWith(QLatin1String("<local-command-")))
            return false;
        if (text->startsWith(QLatin1String("<command-name>")))
            *text = commandLine(*text);
        return true;
    }

    // "<command-name>/rename</command-name>…<command-args>x</command-args>" -> "/rename x".
    static QString commandLine(const QString &text)
    {
        return QString(taggedText(text, QStringLiteral("command-name")) + QLatin1Char(' ')
            + taggedText(text, QStringLiteral("command-args")))
            .trimmed();
    }

    static QString taggedText(const QString &text, const QString &tag)
    {
        const QString open = QLatin1Char('<') + tag + QLatin1Char('>');
        const qsizetype start = text.indexOf(open);
        if (start < 0)
            return {};
        const qsizetype from = start + open.size();
        const qsizetype end = text.indexOf(QStringLiteral("</") + tag + QLatin1Char('>'), from);
        return text.mid(from, end < 0 ? -1 : end - from);
    }

    // The REPL tells a background task's end as a prompt of its own (a turn it answers): it
    // also ends the task and its call, as a stream-json system/task_notification does.
    RunEvent taskNotification(const QString &text)
    {
        RunEvent event = makeEvent(RunEvent::Task);
        event.toolUseId = taggedText(text, QStringLiteral("tool-use-id"));
        event.task.taskId = taggedText(text, QStringLiteral("task-id"));
        event.task.status = taggedText(text, QStringLiteral("status"));
        event.task.summary = taggedText(text, QStringLiteral("summary"));
        event.task.outputFile = taggedText(text, QStringLiteral("output-file"));
        event.isError = event.task.status == QLatin1String("failed");
        return event;
    }

    void parseTranscriptUser(const object &line, RunEventBatch &out)
    {
        object message;
        if (line.at_key("message").get(message) != simdjson::SUCCESS) {
            out.append(makeEvent(RunEvent::Unknown));
            return;
        }
        if (boolField(line, "isMeta")) { // harness context, e.g. skill text or caveats
            out.append(makeEvent(RunEvent::Transient));
            return;
        }
        QString prompt;
        if (promptText(line, message, &prompt)) {
            if (prompt.startsWith(QLatin1String("<task-notification>")))
                out.append(taskNotification(prompt));
            RunEvent init = makeEvent(RunEvent::SessionInit);
            init.cwd = stringField(line, "cwd");
            init.cliVersion = stringField(line, "version");
            init.permissionMode = stringField(line, "permissionMode");
            out.append(init);
            RunEvent text = makeEvent(RunEvent::UserText);
            text.text = prompt;
            out.append(text);
            return;
        }
        const qsizetype first = out.size();
        parseUser(line, out, "toolUseResult");
        if (boolField(line, "isCompactSummary")) {
            for (qsizetype i = first; i < out.size(); ++i)
                out[i].text.prepend(QStringLiteral("(compaction summary) "));
        }
    }

    void parseTranscriptSystem(const object &line, const QString &subtype, RunEventBatch &out)
    {
        if (subtype == QLatin1String("compact_boundary")) {
            appendCompaction(line, "compactMetadata", {}, out, [](const object &metadata) {
                return QStringLiteral("%1 compaction: %2 tokens before")
                    .arg(stringField(metadata, "trigger"),
                        QString::number(integerField(metadata, "preTokens", 0)));
            });
        } else if (subtype == QLatin1String("microcompact_boundary")) {
            // A partial compaction (old tool results cleared), shown as a compaction, with the
            // same turn rule as compact_boundary (RunModel::apply).
            appendCompaction(line, "microcompactMetadata", QStringLiteral("micro-compaction"), out,
                [](const object &metadata) {
                    return QStringLiteral("%1 micro-compaction: %2 tokens before, %3 freed")
                        .arg(stringField(metadata, "trigger"),
                            QString::number(integerField(metadata, "preTokens", 0)),
                            QString::number(integerField(metadata, "tokensSaved", 0)));
                });
        } else if (subtype == QLatin1String("turn_duration")) {
            // The interactive REPL's "Done in Ns": written when a turn completed (not when
            // it was interrupted). It ends the turn and is claude's duration of it, the slot
            // a result's duration_ms fills (docs/stream-json.md, "Figures").
            RunEvent event = makeEvent(RunEvent::TurnDuration);
            event.result.durationMs = integerField(line, "durationMs", -1);
            out.append(event);
        } else if (subtype == QLatin1String("bridge_status")) {
            out.append(makeEvent(RunEvent::Transient)); // the /remote-control URL
        } else if (subtype == QLatin1String("local_command")) {
            // A slash command the REPL ran: its name and arguments, then its output.
            RunEvent event = makeEvent(RunEvent::SystemNotice);
            const QString content = stringField(line, "content");
            event.text = content.startsWith(QLatin1String("<command-name>"))
                ? commandLine(content)
                : taggedText(content, QStringLiteral("local-command-stdout"));
            if (event.text.isEmpty())
                event.text = content;
            out.append(event);
        } else if (subtype == QLatin1String("api_error")) {
            // One failed API attempt; the CLI retries after retryInMs.
            RunEvent event = makeEvent(RunEvent::ApiRetry);
            event.attempt = intField(line, "retryAttempt", 0);
            event.maxRetries = intField(line, "maxRetries", 0);
            event.retryDelayMs = integerField(line, "retryInMs", 0);
            object error;
            if (line.at_key("error").get(error) == simdjson::SUCCESS) {
                event.errorStatus = intField(error, "status", 0);
                event.errorCode = stringField(error, "message");
            }
            out.append(event);
        } else {
            parseSystem(line, subtype, out);
        }
    }

    // A forked session's file starts with a copy of the original's history; only the copied
    // answers still name the session they were requested in (requestSessionId).
    QSet<QString> announcedOrigins;
    void noteCopiedHistory(const object &line, RunEventBatch &out)
    {
        const QString origin = stringField(line, "requestSessionId");
        if (origin.isEmpty() || origin == stringField(line, "sessionId")
            || announcedOrigins.contains(origin))
            return;
        announcedOrigins.insert(origin);
        RunEvent event = makeEvent(RunEvent::SystemNotice);
        event.subtype = QStringLiteral("forked");
        event.text = QStringLiteral("forked from session %1: the history up to here is a copy "
                                    "of that session's")
                         .arg(origin);
        out.append(event);
    }

    // The session's name (/rename, a fork's title, or one the CLI picked): the CLI appends the
    // record again after later turns, so only a new name is shown.
    QString agentName;
    void noteAgentName(const object &line, RunEventBatch &out)
    {
        const QString name = stringField(line, "agentName");
        if (name.isEmpty() || name == agentName) {
            out.append(makeEvent(RunEvent::Transient));
            return;
        }
        agentName = name;
        RunEvent event = makeEvent(RunEvent::SystemNotice);
        event.text = QStringLiteral("the session is named \"%1\"").arg(name);
        out.append(event);
    }

    void parseTranscriptRecord(const object &line, const QString &type, RunEventBatch &out)
    {
        if (type == QLatin1String("user")) {
            parseTranscriptUser(line, out);
        } else if (type == QLatin1String("assistant")) {
            noteCopiedHistory(line, out);
            parseAssistant(line, out);
        } else if (type == QLatin1String("system")) {
            parseTranscriptSystem(line, stringField(line, "subtype"), out);
        } else if (type == QLatin1String("cost-state")) {
            RunEvent event = makeEvent(RunEvent::SessionCost);
            event.result.hasCost = jsonfields::costField(
                line, "totalCostUSD", &event.result.totalCostUsd, &event.result.invalidCost);
            event.result.durationApiMs = integerField(line, "totalAPIDuration", -1);
            out.append(event);
        } else if (type == QLatin1String("agent-name")) {
            noteAgentName(line, out);
        } else if (type == QLatin1String("summary")) {
            RunEvent event = makeEvent(RunEvent::SystemNotice);
            event.text = stringField(line, "summary");
            out.append(event);
        } else if (isTranscriptOnlyType(type)) {
            out.append(makeEvent(RunEvent::Transient)); // bookkeeping and harness context
        } else {
            out.append(makeEvent(RunEvent::Unknown));
        }
    }

    void parseObject(const object &line, RunEventBatch &out)
    {
        const QString type = stringField(line, "type");
        // Transcript records name the session "sessionId" (stream-json: "session_id").
        transcriptRecord
            = line.at_key("sessionId").error() == simdjson::SUCCESS || isTranscriptOnlyType(type);
        recordTimestampMs = -1;
        if (transcriptRecord) {
            std::string_view stamp;
            if (line.at_key("timestamp").get(stamp) == simdjson::SUCCESS)
                recordTimestampMs = jsonfields::isoTimeMs(stamp);
            parseTranscriptRecord(line, type, out);
            return;
        }
        if (type == QLatin1String("assistant"))
            parseAssistant(line, out);
        else if (type == QLatin1String("user"))
            parseUser(line, out);
        else if (type == QLatin1String("system"))
            parseSystem(line, stringField(line, "subtype"), out);
        else if (type == QLatin1String("result"))
            parseResult(line, out);
        else if (type == QLatin1String("stream_event"))
            parseStreamEvent(line, stringField(line, "parent_tool_use_id"), out);
        else if (type == QLatin1String("keep_alive") || type == QLatin1String("tool_progress")
            || type == QLatin1String("control_response")
            || type == QLatin1String("control_cancel_request"))
            out.append(makeEvent(RunEvent::Transient));
        else if (type == QLatin1String("rate_limit_event")) {
            RunEvent event = makeEvent(RunEvent::SystemNotice);
            object info;
            if (line.at_key("rate_limit_info").get(info) == simdjson::SUCCESS)
                event.text = QStringLiteral("rate limit: ") + stringField(info, "status");
            event.isError = event.text.endsWith(QLatin1String("rejected"));
            out.append(event);
        } else if (type == QLatin1String("tool_use_summary")) {
            RunEvent event = makeEvent(RunEvent::SystemNotice);
            event.text = stringField(line, "summary");
            out.append(event);
        } else if (type == QLatin1String("auth_status")
            || type == QLatin1String("prompt_suggestion")
            || type == QLatin1String("conversation_reset") || type == QLatin1String("active_goal")
            || type == QLatin1String("control_request")) {
            out.append(makeEvent(RunEvent::SystemNotice));
        } else {
            out.append(makeEvent(RunEvent::Unknown));
        }
    }
};

RunParser::RunParser(QObject *parent)
    : QObject(parent)
    , m_impl(std::make_unique<Impl>())
{
    qRegisterMetaType<sandscope::RunEventBatch>("sandscope::RunEventBatch");
}

RunParser::~RunParser() = default;

void RunParser::appendLine(const QByteArray &line, qint64 arrivalMs, RunEventBatch &out)
{
    ++m_lineNumber;
    const qsizetype firstNew = out.size();
    const StreamLine envelope = m_impl->reader.parse(
        line, [&](const simdjson::dom::object &root) { m_impl->parseObject(root, out); });
    if (envelope.kind == StreamLine::Empty)
        return;
    if (envelope.kind == StreamLine::NotJson) {
        RunEvent event;
        event.kind = RunEvent::NotJson;
        event.text = envelope.error;
        event.corrupt = envelope.corrupt;
        event.isError = envelope.corrupt;
        out.append(event);
    } else if (out.size() == firstNew) {
        out.append(RunEvent()); // Unknown; parseObject always appends, this keeps it so
    }
    // Transcript records carry their own time; records without one (cost-state, bookkeeping)
    // take the latest time seen, so durations come from the session, not from when it is read
    // (before any, the caller's: -1 from the transcript readers, a time not known).
    if (envelope.kind == StreamLine::Json && m_impl->transcriptRecord) {
        if (m_impl->recordTimestampMs >= 0)
            m_lastRecordMs = std::max(m_lastRecordMs, m_impl->recordTimestampMs);
        if (m_lastRecordMs >= 0)
            arrivalMs = m_lastRecordMs;
    }
    for (qsizetype i = firstNew; i < out.size(); ++i) {
        RunEvent &event = out[i];
        event.arrivalMs = arrivalMs;
        event.lineNumber = m_lineNumber;
        event.type = envelope.type;
        event.subtype = envelope.subtype;
        event.sessionId = envelope.sessionId;
        event.uuid = envelope.uuid;
        event.parentToolUseId = envelope.parentToolUseId;
        if (event.messageId.isEmpty())
            event.messageId = envelope.messageId;
        event.raw = envelope.raw;
    }
}

RunEventBatch RunParser::parseLine(const QByteArray &line, qint64 arrivalMs)
{
    RunEventBatch events;
    appendLine(line, arrivalMs, events);
    return events;
}

void RunParser::emitIfAny(const RunEventBatch &events)
{
    if (!events.isEmpty())
        Q_EMIT eventsReady(events);
}

void RunParser::feedLine(const QByteArray &line, qint64 arrivalMs)
{
    emitIfAny(parseLine(line, arrivalMs));
}

void RunParser::feedLine(const QString &line, qint64 arrivalMs)
{
    feedLine(line.toUtf8(), arrivalMs);
}

void RunParser::feedLines(const QList<QByteArray> &lines, qint64 arrivalMs)
{
    RunEventBatch events;
    for (const QByteArray &line : lines)
        appendLine(line, arrivalMs, events);
    emitIfAny(events);
}

void RunParser::feedBytes(const QByteArray &chunk, qint64 arrivalMs)
{
    RunEventBatch events;
    qsizetype searchFrom = m_pending.size(); // the pending part holds no "\n"
    m_pending += chunk;
    qsizetype lineStart = 0;
    for (qsizetype newline = m_pending.indexOf('\n', searchFrom); newline >= 0;
         newline = m_pending.indexOf('\n', lineStart)) {
        appendLine(m_pending.mid(lineStart, newline - lineStart), arrivalMs, events);
        lineStart = newline + 1;
    }
    if (lineStart > 0)
        m_pending.remove(0, lineStart);
    emitIfAny(events);
}

void RunParser::finish(qint64 arrivalMs)
{
    if (m_pending.isEmpty())
        return;
    const QByteArray rest = m_pending;
    m_pending.clear();
    feedLine(rest, arrivalMs);
}

} // namespace sandscope
