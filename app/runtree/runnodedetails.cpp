#include "runnodedetails.h"

namespace sandscope {

QStringList RunNodeDetails::searchTexts() const
{
    QStringList texts;
    for (const QString *field :
        {&text, &model, &errorCode, &toolName, &toolUseId, &output, &input.command,
            &input.description, &input.filePath, &input.oldString, &input.newString, &input.content,
            &input.pattern, &input.path, &input.url, &input.query, &input.prompt,
            &input.subagentType, &task.taskId, &task.status, &task.summary, &task.outputFile}) {
        if (!field->isEmpty())
            texts.append(*field);
    }
    for (const TodoItem &item : input.todos)
        texts.append(item.content);
    return texts;
}

} // namespace sandscope
