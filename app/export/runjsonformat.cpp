#include "runjsonformat.h"

#include "runtree/runmodel.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMetaEnum>
#include <QObject>

#include <sys/stat.h>
#include <vector>

namespace sandscope {

namespace {

const QString exportKey = QStringLiteral("sandscope_export");

template <typename Enum> QString enumName(int value)
{
    return QString::fromLatin1(QMetaEnum::fromType<Enum>().valueToKey(value));
}

template <typename Enum> int enumValue(const QJsonValue &name, int fallback)
{
    bool ok = false;
    const int value = QMetaEnum::fromType<Enum>().keyToValue(name.toString().toLatin1(), &ok);
    return ok ? value : fallback;
}

// Only what is set is written, so a reader takes a missing member as the default.
void putString(QJsonObject &json, const char *key, const QString &value)
{
    if (!value.isEmpty())
        json.insert(QLatin1String(key), value);
}

// Embedded JSON (a tool's input, a structured result) stays readable as JSON; text that does
// not parse is kept as a string.
void putJson(QJsonObject &json, const char *key, const QByteArray &value)
{
    if (value.isEmpty())
        return;
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(value, &error);
    if (error.error == QJsonParseError::NoError && document.isObject())
        json.insert(QLatin1String(key), document.object());
    else if (error.error == QJsonParseError::NoError && document.isArray())
        json.insert(QLatin1String(key), document.array());
    else
        json.insert(QLatin1String(key), QString::fromUtf8(value));
}

QByteArray jsonBytes(const QJsonValue &value)
{
    if (value.isObject())
        return QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact);
    if (value.isArray())
        return QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact);
    return value.toString().toUtf8();
}

// The text members of the value types with their JSON names, for writing and reading alike.
template <typename Value> struct TextField {
    const char *key;
    QString Value::*member;
};

const TextField<ToolInput> inputFields[] = {{"command", &ToolInput::command},
    {"description", &ToolInput::description}, {"file_path", &ToolInput::filePath},
    {"old_string", &ToolInput::oldString}, {"new_string", &ToolInput::newString},
    {"content", &ToolInput::content}, {"pattern", &ToolInput::pattern}, {"path", &ToolInput::path},
    {"url", &ToolInput::url}, {"query", &ToolInput::query}, {"prompt", &ToolInput::prompt},
    {"subagent_type", &ToolInput::subagentType}, {"skill", &ToolInput::skill}};

const TextField<TaskInfo> taskFields[]
    = {{"task_id", &TaskInfo::taskId}, {"task_type", &TaskInfo::taskType},
        {"status", &TaskInfo::status}, {"description", &TaskInfo::description},
        {"subagent_type", &TaskInfo::subagentType}, {"last_tool_name", &TaskInfo::lastToolName},
        {"summary", &TaskInfo::summary}, {"output_file", &TaskInfo::outputFile}};

template <typename Value, size_t N>
void putFields(QJsonObject &json, const Value &value, const TextField<Value> (&fields)[N])
{
    for (const TextField<Value> &field : fields)
        putString(json, field.key, value.*field.member);
}

template <typename Value, size_t N>
void takeFields(const QJsonObject &json, Value &value, const TextField<Value> (&fields)[N])
{
    for (const TextField<Value> &field : fields)
        value.*field.member = json.value(QLatin1String(field.key)).toString();
}

QJsonObject inputJson(const ToolInput &input)
{
    QJsonObject json;
    putFields(json, input, inputFields);
    if (input.replaceAll)
        json.insert(QStringLiteral("replace_all"), true);
    if (input.runInBackground)
        json.insert(QStringLiteral("run_in_background"), true);
    QJsonArray todos;
    for (const TodoItem &todo : input.todos) {
        todos.append(QJsonObject {{QStringLiteral("content"), todo.content},
            {QStringLiteral("status"), todo.status},
            {QStringLiteral("active_form"), todo.activeForm}});
    }
    if (!todos.isEmpty())
        json.insert(QStringLiteral("todos"), todos);
    return json;
}

ToolInput inputFrom(const QJsonObject &json)
{
    ToolInput input;
    takeFields(json, input, inputFields);
    input.replaceAll = json.value(QStringLiteral("replace_all")).toBool();
    input.runInBackground = json.value(QStringLiteral("run_in_background")).toBool();
    const QJsonArray todos = json.value(QStringLiteral("todos")).toArray();
    for (const QJsonValue &value : todos) {
        const QJsonObject todo = value.toObject();
        input.todos.append({todo.value(QStringLiteral("content")).toString(),
            todo.value(QStringLiteral("status")).toString(),
            todo.value(QStringLiteral("active_form")).toString()});
    }
    return input;
}

bool hasTask(const TaskInfo &task)
{
    return !task.taskId.isEmpty() || !task.status.isEmpty() || !task.summary.isEmpty()
        || task.totalTokens >= 0 || task.toolUses >= 0 || task.durationMs >= 0;
}

QJsonObject taskJson(const TaskInfo &task)
{
    QJsonObject json;
    putFields(json, task, taskFields);
    json.insert(QStringLiteral("total_tokens"), task.totalTokens);
    json.insert(QStringLiteral("tool_uses"), task.toolUses);
    json.insert(QStringLiteral("duration_ms"), task.durationMs);
    json.insert(QStringLiteral("backgrounded"), task.backgrounded);
    return json;
}

TaskInfo taskFrom(const QJsonObject &json)
{
    TaskInfo task;
    takeFields(json, task, taskFields);
    auto count = [&json](const char *key) {
        return qint64(json.value(QLatin1String(key)).toDouble(-1));
    };
    task.totalTokens = count("total_tokens");
    task.toolUses = count("tool_uses");
    task.durationMs = count("duration_ms");
    task.backgrounded = json.value(QStringLiteral("backgrounded")).toBool();
    return task;
}

QJsonObject nodeValues(const RunNodeRecord &node)
{
    QJsonObject json;
    json.insert(QStringLiteral("kind"), enumName<RunModel::NodeKind>(node.kind));
    json.insert(QStringLiteral("status"), enumName<RunModel::Status>(node.status));
    if (node.toolKind != int(RunModel::ToolKind::None))
        json.insert(QStringLiteral("tool_kind"), enumName<RunModel::ToolKind>(node.toolKind));
    putString(json, "title", node.title);
    putString(json, "text", node.text);
    putString(json, "tool_name", node.toolName);
    putString(json, "tool_use_id", node.toolUseId);
    putString(json, "parent_tool_use_id", node.parentToolUseId);
    putString(json, "message_id", node.messageId);
    const QJsonObject input = inputJson(node.input);
    if (!input.isEmpty())
        json.insert(QStringLiteral("input"), input);
    putJson(json, "input_json", node.inputJson);
    putString(json, "output", node.resultText);
    putJson(json, "structured_result", node.structuredResultJson);
    putString(json, "raw", QString::fromUtf8(node.raw));
    if (!node.rawIsJson)
        json.insert(QStringLiteral("raw_is_json"), false);
    putString(json, "result_raw", QString::fromUtf8(node.resultRaw));
    if (node.isError)
        json.insert(QStringLiteral("is_error"), true);
    if (node.lineNumber > 0)
        json.insert(QStringLiteral("line"), node.lineNumber);
    if (node.startedMs >= 0)
        json.insert(QStringLiteral("started_ms"), node.startedMs);
    if (node.durationMs >= 0)
        json.insert(QStringLiteral("duration_ms"), node.durationMs);
    if (node.claudeDurationMs >= 0)
        json.insert(QStringLiteral("claude_duration_ms"), node.claudeDurationMs);
    if (node.toolCalls > 0)
        json.insert(QStringLiteral("tool_calls"), node.toolCalls);
    if (node.errors > 0)
        json.insert(QStringLiteral("errors"), node.errors);
    if (node.tokens.present) {
        json.insert(QStringLiteral("tokens"),
            QJsonObject {{QStringLiteral("input"), node.tokens.inputTokens},
                {QStringLiteral("output"), node.tokens.outputTokens},
                {QStringLiteral("cache_read"), node.tokens.cacheReadInputTokens},
                {QStringLiteral("cache_creation"), node.tokens.cacheCreationInputTokens}});
    }
    if (node.hasCost)
        json.insert(QStringLiteral("cost_usd"), node.costUsd);
    if (hasTask(node.task))
        json.insert(QStringLiteral("task"), taskJson(node.task));
    putString(json, "model", node.model);
    putString(json, "error_code", node.errorCode);
    return json;
}

RunNodeRecord nodeFrom(const QJsonObject &json)
{
    RunNodeRecord node;
    auto text = [&json](const char *key) {
        return json.value(QLatin1String(key)).toString();
    };
    auto number = [&json](const char *key, qint64 fallback) {
        const QJsonValue value = json.value(QLatin1String(key));
        return value.isDouble() ? qint64(value.toDouble()) : fallback;
    };
    node.kind = enumValue<RunModel::NodeKind>(
        json.value(QStringLiteral("kind")), int(RunModel::NodeKind::Raw));
    node.status = enumValue<RunModel::Status>(
        json.value(QStringLiteral("status")), int(RunModel::Status::None));
    node.toolKind = enumValue<RunModel::ToolKind>(
        json.value(QStringLiteral("tool_kind")), int(RunModel::ToolKind::None));
    node.title = text("title");
    node.text = text("text");
    node.toolName = text("tool_name");
    node.toolUseId = text("tool_use_id");
    node.parentToolUseId = text("parent_tool_use_id");
    node.messageId = text("message_id");
    node.input = inputFrom(json.value(QStringLiteral("input")).toObject());
    node.inputJson = jsonBytes(json.value(QStringLiteral("input_json")));
    node.resultText = text("output");
    node.structuredResultJson = jsonBytes(json.value(QStringLiteral("structured_result")));
    node.raw = text("raw").toUtf8();
    node.rawIsJson = json.value(QStringLiteral("raw_is_json")).toBool(true);
    node.resultRaw = text("result_raw").toUtf8();
    node.isError = json.value(QStringLiteral("is_error")).toBool();
    node.lineNumber = number("line", 0);
    node.startedMs = number("started_ms", -1);
    node.durationMs = number("duration_ms", -1);
    node.claudeDurationMs = number("claude_duration_ms", -1);
    node.toolCalls = qint64(json.value(QStringLiteral("tool_calls")).toDouble());
    node.errors = qint64(json.value(QStringLiteral("errors")).toDouble());
    const QJsonValue tokens = json.value(QStringLiteral("tokens"));
    if (tokens.isObject()) {
        const QJsonObject counts = tokens.toObject();
        node.tokens.present = true;
        node.tokens.inputTokens = qint64(counts.value(QStringLiteral("input")).toDouble());
        node.tokens.outputTokens = qint64(counts.value(QStringLiteral("output")).toDouble());
        node.tokens.cacheReadInputTokens
            = qint64(counts.value(QStringLiteral("cache_read")).toDouble());
        node.tokens.cacheCreationInputTokens
            = qint64(counts.value(QStringLiteral("cache_creation")).toDouble());
    }
    const QJsonValue cost = json.value(QStringLiteral("cost_usd"));
    node.hasCost = cost.isDouble();
    node.costUsd = cost.toDouble();
    if (json.value(QStringLiteral("task")).isObject())
        node.task = taskFrom(json.value(QStringLiteral("task")).toObject());
    node.model = text("model");
    node.errorCode = text("error_code");
    return node;
}

QJsonObject summaryJson(const RunSummary &summary)
{
    return QJsonObject {{QStringLiteral("session_id"), summary.sessionId},
        {QStringLiteral("result_subtype"), summary.resultSubtype},
        {QStringLiteral("has_result"), summary.hasResult},
        {QStringLiteral("result_count"), summary.resultCount},
        {QStringLiteral("is_error"), summary.isError},
        {QStringLiteral("tool_calls"), summary.toolCalls},
        {QStringLiteral("tool_errors"), summary.toolErrors},
        {QStringLiteral("unmatched_tool_calls"), summary.unmatchedToolCalls},
        {QStringLiteral("cost_usd"), summary.costUsd},
        {QStringLiteral("input_tokens"), summary.inputTokens},
        {QStringLiteral("output_tokens"), summary.outputTokens},
        {QStringLiteral("cache_read_tokens"), summary.cacheReadTokens},
        {QStringLiteral("cache_creation_tokens"), summary.cacheCreationTokens},
        {QStringLiteral("api_errors"), summary.apiErrors},
        {QStringLiteral("duration_ms"), summary.durationMs},
        {QStringLiteral("claude_duration_ms"), // null: no result or turn_duration told it
            summary.claudeDurationMs >= 0 ? QJsonValue(summary.claudeDurationMs) : QJsonValue()},
        {QStringLiteral("turns"), summary.turns},
        {QStringLiteral("round_trips"), // null: not recorded (a transcript)
            summary.roundTripsRecorded() ? QJsonValue(summary.roundTrips) : QJsonValue()},
        {QStringLiteral("last_turn_open"), summary.lastTurnOpen},
        {QStringLiteral("is_transcript"), summary.isTranscript},
        {QStringLiteral("turn_open"), summary.turnOpen},
        {QStringLiteral("turn_failed"), summary.turnFailed},
        {QStringLiteral("lines"), summary.lines}};
}

RunSummary summaryFrom(const QJsonObject &json)
{
    RunSummary summary;
    auto number = [&json](const char *key) {
        return qint64(json.value(QLatin1String(key)).toDouble());
    };
    auto flag = [&json](const char *key) {
        return json.value(QLatin1String(key)).toBool();
    };
    summary.sessionId = json.value(QStringLiteral("session_id")).toString();
    summary.resultSubtype = json.value(QStringLiteral("result_subtype")).toString();
    summary.hasResult = flag("has_result");
    summary.resultCount = int(number("result_count"));
    summary.isError = flag("is_error");
    summary.toolCalls = number("tool_calls");
    summary.toolErrors = number("tool_errors");
    summary.unmatchedToolCalls = number("unmatched_tool_calls");
    summary.costUsd = json.value(QStringLiteral("cost_usd")).toDouble();
    summary.inputTokens = number("input_tokens");
    summary.outputTokens = number("output_tokens");
    summary.cacheReadTokens = number("cache_read_tokens");
    summary.cacheCreationTokens = number("cache_creation_tokens");
    summary.apiErrors = number("api_errors");
    summary.durationMs = number("duration_ms");
    const QJsonValue claudeDuration = json.value(QStringLiteral("claude_duration_ms"));
    summary.claudeDurationMs = claudeDuration.isDouble() ? qint64(claudeDuration.toDouble()) : -1;
    summary.turns = int(number("turns"));
    // Exports before issue 25 named the round trips num_turns.
    summary.roundTrips
        = int(number(json.contains(QStringLiteral("round_trips")) ? "round_trips" : "num_turns"));
    summary.lastTurnOpen = flag("last_turn_open");
    summary.isTranscript = flag("is_transcript");
    summary.turnOpen = flag("turn_open");
    summary.turnFailed = flag("turn_failed");
    summary.lines = number("lines");
    return summary;
}

} // namespace

QJsonObject RunJsonFormat::toJson(const ExportedRun &run)
{
    // Built bottom-up without recursion: QJsonObject values are copied into their parent, so
    // every node's children are finished before the node is.
    struct Frame {
        const RunNodeRecord *node;
        QJsonArray children;
        size_t next = 0;
    };
    std::vector<Frame> stack;
    stack.push_back({&run.run, {}, 0});
    QJsonObject root;
    while (!stack.empty()) {
        Frame &top = stack.back();
        if (top.next < top.node->children.size()) {
            const RunNodeRecord *child = &top.node->children[top.next++];
            stack.push_back({child, {}, 0});
            continue;
        }
        QJsonObject node = nodeValues(*top.node);
        if (!top.children.isEmpty())
            node.insert(QStringLiteral("children"), top.children);
        stack.pop_back();
        if (stack.empty())
            root = node;
        else
            stack.back().children.append(node);
    }
    QJsonObject json;
    json.insert(exportKey, version);
    json.insert(QStringLiteral("source"), run.source);
    json.insert(QStringLiteral("redacted"), run.redacted);
    json.insert(QStringLiteral("run_ended"), run.runEnded);
    json.insert(QStringLiteral("skipped"), QJsonArray::fromStringList(run.skipped));
    json.insert(QStringLiteral("summary"), summaryJson(run.summary));
    json.insert(QStringLiteral("run"), root);
    return json;
}

QByteArray RunJsonFormat::toBytes(const ExportedRun &run)
{
    // QJsonObject sorts its keys; the marker goes first by hand, so looksLikeExport() finds it
    // in the first bytes.
    QJsonObject json = toJson(run);
    json.remove(exportKey);
    QByteArray bytes = QJsonDocument(json).toJson(QJsonDocument::Indented);
    bytes.insert(1, QByteArray("\n    \"sandscope_export\": ") + QByteArray::number(version) + ',');
    return bytes;
}

bool RunJsonFormat::fromJson(const QJsonObject &json, ExportedRun *run, QString *errorMessage)
{
    auto fail = [errorMessage](const QString &why) {
        if (errorMessage)
            *errorMessage = why;
        return false;
    };
    const int fileVersion = json.value(exportKey).toInt(-1);
    if (fileVersion < 1)
        return fail(QObject::tr("not a Sandscope export"));
    if (fileVersion > version)
        return fail(QObject::tr("a Sandscope export of a newer version (%1)").arg(fileVersion));
    if (!json.value(QStringLiteral("run")).isObject())
        return fail(QObject::tr("the export has no run"));
    *run = ExportedRun();
    run->source = json.value(QStringLiteral("source")).toString();
    run->redacted = json.value(QStringLiteral("redacted")).toBool();
    run->runEnded = json.value(QStringLiteral("run_ended")).toBool(true);
    const QJsonArray skipped = json.value(QStringLiteral("skipped")).toArray();
    for (const QJsonValue &value : skipped)
        run->skipped.append(value.toString());
    run->summary = summaryFrom(json.value(QStringLiteral("summary")).toObject());

    std::vector<std::pair<QJsonObject, RunNodeRecord *>> pending;
    pending.emplace_back(json.value(QStringLiteral("run")).toObject(), &run->run);
    while (!pending.empty()) {
        auto [object, node] = std::move(pending.back());
        pending.pop_back();
        *node = nodeFrom(object);
        const QJsonArray children = object.value(QStringLiteral("children")).toArray();
        node->children.resize(size_t(children.size()));
        for (qsizetype i = 0; i < children.size(); ++i)
            pending.emplace_back(children.at(i).toObject(), &node->children[size_t(i)]);
    }
    run->run.kind = int(RunModel::NodeKind::Run);
    return true;
}

bool RunJsonFormat::looksLikeExport(const QString &path)
{
    // An export is a regular file. A pipe is not looked into: what this read took of it would
    // be lost to the reader after it (and opening it waited for a writer).
    struct stat target { };
    if (::stat(QFile::encodeName(path).constData(), &target) != 0 || !S_ISREG(target.st_mode))
        return false;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    const QByteArray start = file.read(256);
    return start.trimmed().startsWith('{') && start.contains("\"sandscope_export\"");
}

bool RunJsonFormat::readFile(const QString &path, ExportedRun *run, QString *errorMessage)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (errorMessage)
            *errorMessage = QObject::tr("%1: %2").arg(path, file.errorString());
        return false;
    }
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &error);
    if (error.error != QJsonParseError::NoError || !document.isObject()) {
        if (errorMessage)
            *errorMessage = QObject::tr("%1: not a readable Sandscope export (%2 at byte %3)")
                                .arg(path, error.errorString())
                                .arg(error.offset);
        return false;
    }
    return fromJson(document.object(), run, errorMessage);
}

} // namespace sandscope
