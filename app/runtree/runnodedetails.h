#pragma once
// What one node of the run tree holds beyond its row: the value of RunModel::DetailRole
// (QVariant::fromValue). The detail pane shows it and RunFilterProxy searches it. Plain values
// copied from the events that made the node; only what applies to the node's kind is filled,
// everything else stays empty.

#include "streamjson/runevents.h"

#include <QByteArray>
#include <QMetaType>
#include <QString>
#include <QStringList>

namespace sandscope {

struct RunNodeDetails {
    // Every node.
    QString text; // the line's text (message, thinking, notice, error); the working
                  // directory of run and turn nodes
    QString model; // run and turn nodes: the model of system/init; assistant lines' model
    QString errorCode; // API retries and API errors: the error code as the CLI wrote it

    // Tool calls only (RunModel::NodeKind::ToolCall).
    QString toolName; // empty while only a result or sub-agent line named the call
    QString toolUseId;
    ToolInput input; // the input fields the view shows (command, file path, todos, ...)
    QByteArray inputJson; // the complete tool_use input, compact JSON as the CLI wrote it
    QString output; // the tool_result content as text
    QByteArray structuredResultJson; // the result line's tool_use_result, as JSON
    bool isError = false; // the result is an error, or the call was denied
    // Merged from the system/task_* events about the call (Agent calls): empty, with the
    // counts at -1, until one arrives.
    TaskInfo task;
    // Content of a big run read again from its file (RunModel::setLineSource) that could not
    // be: why (the file changed or went away). Empty otherwise.
    QString readError;

    // The texts a search looks at, the non-empty ones of: text, model, errorCode, toolName,
    // toolUseId, output, the input's command, description, filePath, oldString, newString,
    // content, pattern, path, url, query, prompt, subagentType and todo contents, and the
    // task's taskId, status, summary and outputFile. Not the JSON blobs: their key names
    // would make a search for "command" or "error" match every call.
    QStringList searchTexts() const;
    // Whether f(text) is true for one of searchTexts(), without building the list.
    template <typename F> bool anySearchText(F f) const
    {
        for (const QString *field : {&text, &model, &errorCode, &toolName, &toolUseId, &output,
                 &input.command, &input.description, &input.filePath, &input.oldString,
                 &input.newString, &input.content, &input.pattern, &input.path, &input.url,
                 &input.query, &input.prompt, &input.subagentType, &task.taskId, &task.status,
                 &task.summary, &task.outputFile}) {
            if (!field->isEmpty() && f(*field))
                return true;
        }
        for (const TodoItem &item : input.todos) {
            if (f(item.content))
                return true;
        }
        return false;
    }
};

} // namespace sandscope

Q_DECLARE_METATYPE(sandscope::RunNodeDetails)
