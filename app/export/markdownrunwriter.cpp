#include "markdownrunwriter.h"

#include "export/exporttext.h"
#include "runtree/runmodel.h"
#include "util/jsonindent.h"
#include "util/linediff.h"
#include "util/terminalsafe.h"

#include <QRegularExpression>

#include <algorithm>
#include <vector>

namespace sandscope {

namespace {

using Kind = RunModel::NodeKind;
using ToolKind = RunModel::ToolKind;

// One line of inline text (also a heading or a table cell): line breaks of every kind folded
// (a bare \r ends a line in CommonMark too), other controls and bidi overrides shown visibly,
// Markdown's active characters escaped.
QString inlineText(const QString &text)
{
    static const QRegularExpression breaks(QStringLiteral("\\r\\n|[\\r\\n]"));
    static const QRegularExpression active(QStringLiteral("([\\\\`*_\\[\\]<>#|~!&])"));
    QString out = text;
    out.replace(breaks, QStringLiteral(" "));
    out = TerminalSafe::text(out);
    out.replace(active, QStringLiteral("\\\\1"));
    return out;
}

// A fenced block indented under a list item; the fence is longer than any backtick run in
// the text, so the text cannot end it.
QString fenced(const QString &text, const QString &language, const QString &indent)
{
    if (text.isEmpty())
        return {};
    // \r\n as \n; a bare \r (which would end the line, and the fence with it) and other
    // controls shown visibly, like bidi overrides.
    const QString shown = TerminalSafe::text(text);
    int longest = 0;
    int run = 0;
    for (const QChar c : shown) {
        run = c == QLatin1Char('`') ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    const QString fence(std::max(3, longest + 1), QLatin1Char('`'));
    QString out = indent + fence + language + QLatin1Char('\n');
    QString body = shown;
    if (body.endsWith(QLatin1Char('\n')))
        body.chop(1);
    for (const QString &line : body.split(QLatin1Char('\n')))
        out += indent + line + QLatin1Char('\n');
    return out + indent + fence + QLatin1Char('\n');
}

QString diffText(const QString &oldText, const QString &newText)
{
    QString out;
    for (const LineDiff::Line &line : LineDiff::compute(oldText, newText)) {
        const char *mark = line.op == LineDiff::Op::Removed ? "-"
            : line.op == LineDiff::Op::Added                ? "+"
                                                            : " ";
        out += QLatin1String(mark) + line.text + QLatin1Char('\n');
    }
    return out;
}

QString toolBody(const RunNodeRecord &node, const QString &indent)
{
    const ToolInput &input = node.input;
    QString out;
    switch (ToolKind(node.toolKind)) {
    case ToolKind::Shell:
        out += fenced(input.command.isEmpty() ? indentedJson(node.inputJson) : input.command,
            input.command.isEmpty() ? QStringLiteral("json") : QStringLiteral("sh"), indent);
        break;
    case ToolKind::Edit:
        if (!input.oldString.isEmpty() || !input.newString.isEmpty())
            out += fenced(
                diffText(input.oldString, input.newString), QStringLiteral("diff"), indent);
        else
            out += fenced(indentedJson(node.inputJson), QStringLiteral("json"), indent);
        break;
    case ToolKind::Write:
        out += fenced(input.content, QString(), indent);
        break;
    case ToolKind::Read:
        break;
    case ToolKind::Todo:
        for (const TodoItem &todo : input.todos)
            out += indent
                + (todo.status == QLatin1String("completed") ? QStringLiteral("- [x] ")
                                                             : QStringLiteral("- [ ] "))
                + inlineText(todo.content) + QLatin1Char('\n');
        break;
    case ToolKind::Agent:
        out += fenced(input.prompt, QString(), indent);
        break;
    default:
        if (!node.inputJson.isEmpty() && node.inputJson != "{}")
            out += fenced(indentedJson(node.inputJson), QStringLiteral("json"), indent);
        break;
    }
    if (!node.resultText.isEmpty()) {
        out += indent + (node.isError ? QStringLiteral("Error:\n") : QStringLiteral("Output:\n"));
        out += fenced(node.resultText, QString(), indent);
    }
    return out;
}

QString nodeLine(const RunNodeRecord &node)
{
    QString line;
    if (node.kind == int(Kind::ToolCall)) {
        line = QStringLiteral("**%1**").arg(
            inlineText(node.toolName.isEmpty() ? QStringLiteral("tool call") : node.toolName));
        if (!node.title.isEmpty())
            line += QLatin1Char(' ') + inlineText(node.title);
        if (!node.toolUseId.isEmpty())
            line += QStringLiteral(" <sub>%1</sub>").arg(inlineText(node.toolUseId));
    } else if (node.kind == int(Kind::Thinking)) {
        line = QStringLiteral("*%1*").arg(inlineText(exporttext::heading(node)));
    } else {
        line = inlineText(exporttext::heading(node));
    }
    const QStringList facts = exporttext::facts(node);
    if (!facts.isEmpty())
        line += QStringLiteral(" — ") + facts.join(QStringLiteral(" · "));
    return line;
}

} // namespace

QByteArray MarkdownRunWriter::write(const ExportedRun &run)
{
    QString out;
    out += run.summary.sessionId.isEmpty()
        ? QStringLiteral("# Sandscope run\n\n")
        : QStringLiteral("# Sandscope run %1\n\n").arg(inlineText(run.summary.sessionId));
    out += QStringLiteral("| | |\n|---|---|\n");
    for (const auto &[label, value] : exporttext::summaryRows(run))
        out += QStringLiteral("| %1 | %2 |\n").arg(label, inlineText(value));
    out += QStringLiteral("\n> %1\n\n").arg(exporttext::redactionNote(run.redacted));
    if (!run.skipped.isEmpty()) {
        out += QStringLiteral("**Not exported (%1):**\n\n").arg(run.skipped.size());
        for (const QString &item : run.skipped)
            out += QStringLiteral("- %1\n").arg(inlineText(item));
        out += QLatin1Char('\n');
    }

    // Turns are headings; what they hold is a list nested by depth (iteratively: a deep tree
    // from a hostile file cannot overflow the stack).
    std::vector<std::pair<const RunNodeRecord *, int>> pending;
    for (size_t i = run.run.children.size(); i-- > 0;)
        pending.emplace_back(&run.run.children[i], 0);
    while (!pending.empty()) {
        const auto [node, depth] = pending.back();
        pending.pop_back();
        int childDepth = depth + 1;
        if (depth == 0 && node->kind == int(Kind::Turn)) {
            out += QStringLiteral("\n## %1\n\n").arg(nodeLine(*node));
            childDepth = 1;
        } else {
            const QString indent(2 * std::max(0, depth - 1), QLatin1Char(' '));
            const QString inner = indent + QStringLiteral("  ");
            out += indent + QStringLiteral("- ") + nodeLine(*node) + QLatin1Char('\n');
            if (node->kind == int(Kind::ToolCall))
                out += toolBody(*node, inner);
            else if (node->kind == int(Kind::Raw))
                out += fenced(QString::fromUtf8(node->raw), QString(), inner);
            else if (!node->title.contains(node->text.trimmed())) // more than its title shows
                out += fenced(node->text, QString(), inner);
        }
        for (size_t i = node->children.size(); i-- > 0;)
            pending.emplace_back(&node->children[i], childDepth);
    }
    return out.toUtf8();
}

} // namespace sandscope
