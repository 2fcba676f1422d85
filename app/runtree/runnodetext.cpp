#include "runnodetext.h"

#include <QCoreApplication>
#include <QHash>
#include <QLocale>

#include <algorithm>

namespace sandscope::runtext {

QString oneLine(const QString &text)
{
    const QString trimmed = text.trimmed();
    qsizetype end = trimmed.indexOf(QLatin1Char('\n'));
    if (end < 0)
        end = trimmed.size();
    QString line = trimmed.left(std::min<qsizetype>(end, titleLimit));
    if (line.size() < trimmed.size())
        line += QStringLiteral("…");
    return line;
}

runnode::ToolKind toolKindOf(const QString &name)
{
    using Kind = runnode::ToolKind;
    static const QHash<QString, Kind> kinds = {
        {QStringLiteral("Bash"), Kind::Shell},
        {QStringLiteral("BashOutput"), Kind::Shell},
        {QStringLiteral("KillShell"), Kind::Shell},
        {QStringLiteral("KillBash"), Kind::Shell},
        {QStringLiteral("Read"), Kind::Read},
        {QStringLiteral("Write"), Kind::Write},
        {QStringLiteral("Edit"), Kind::Edit},
        {QStringLiteral("MultiEdit"), Kind::Edit},
        {QStringLiteral("NotebookEdit"), Kind::Notebook},
        {QStringLiteral("NotebookRead"), Kind::Notebook},
        {QStringLiteral("Grep"), Kind::Search},
        {QStringLiteral("Glob"), Kind::Search},
        {QStringLiteral("LS"), Kind::Search},
        {QStringLiteral("ToolSearch"), Kind::Search},
        {QStringLiteral("WebFetch"), Kind::Web},
        {QStringLiteral("WebSearch"), Kind::Web},
        {QStringLiteral("Agent"), Kind::Agent}, // on the wire since 2.1
        {QStringLiteral("Task"), Kind::Agent}, // init.tools and older CLIs
        {QStringLiteral("TodoWrite"), Kind::Todo},
    };
    if (name.isEmpty())
        return Kind::None;
    if (name.startsWith(QLatin1String("mcp__")))
        return Kind::Mcp;
    return kinds.value(name, Kind::Other);
}

QString toolSummary(runnode::ToolKind kind, const ToolInput &input, const QByteArray &inputJson)
{
    using Kind = runnode::ToolKind;
    switch (kind) {
    case Kind::Shell:
        return oneLine(input.command.isEmpty() ? input.description : input.command);
    case Kind::Read:
    case Kind::Write:
    case Kind::Edit:
    case Kind::Notebook:
        return input.filePath;
    case Kind::Search:
        return input.path.isEmpty() ? oneLine(input.pattern)
                                    : oneLine(input.pattern) + QStringLiteral(" in ") + input.path;
    case Kind::Web:
        return oneLine(input.url.isEmpty() ? input.query : input.url);
    case Kind::Agent:
        return input.subagentType.isEmpty() ? oneLine(input.description)
                                            : oneLine(input.description) + QStringLiteral(" (")
                + input.subagentType + QLatin1Char(')');
    case Kind::Todo:
        return QCoreApplication::translate(
            "RunNodeText", "%n todo(s)", nullptr, int(input.todos.size()));
    case Kind::None:
    case Kind::Mcp:
    case Kind::Other:
        break;
    }
    for (const QString *candidate :
        {&input.skill, &input.description, &input.command, &input.filePath, &input.query,
            &input.url, &input.pattern, &input.path, &input.prompt}) {
        if (!candidate->isEmpty())
            return oneLine(*candidate);
    }
    return inputJson == "{}" ? QString() : oneLine(QString::fromUtf8(inputJson));
}

QString statusText(runnode::Status status)
{
    using Status = runnode::Status;
    switch (status) {
    case Status::None:
        return {};
    case Status::Running:
        return QStringLiteral("running");
    case Status::Ok:
        return QStringLiteral("ok");
    case Status::Error:
        return QStringLiteral("error");
    case Status::Interrupted:
        return QStringLiteral("interrupted");
    case Status::Denied:
        return QStringLiteral("denied");
    case Status::Retrying:
        return QStringLiteral("retrying");
    case Status::Background:
        return QStringLiteral("background");
    }
    return {};
}

QString tokenText(const TokenUsage &tokens)
{
    if (!tokens.present)
        return QString();
    if (tokens.invalid)
        return QStringLiteral("tokens invalid (out of range in the file)");
    const QLocale locale;
    QString text
        = QStringLiteral("%1 in · %2 out")
              .arg(locale.toString(tokens.inputTokens), locale.toString(tokens.outputTokens));
    const qint64 cache
        = saturatingAdd(tokens.cacheReadInputTokens, tokens.cacheCreationInputTokens);
    if (cache > 0)
        text += QStringLiteral(" · %1 cache").arg(locale.toString(cache));
    return text;
}

QString tokenToolTip(const TokenUsage &tokens)
{
    if (!tokens.present)
        return QString();
    const QLocale locale;
    return QStringLiteral("Input: %1\nOutput: %2\nCache read: %3\nCache written: %4")
        .arg(locale.toString(tokens.inputTokens), locale.toString(tokens.outputTokens),
            locale.toString(tokens.cacheReadInputTokens),
            locale.toString(tokens.cacheCreationInputTokens));
}

QString costText(double usd)
{
    return QStringLiteral("$%1").arg(usd, 0, 'f', 6);
}

} // namespace sandscope::runtext
