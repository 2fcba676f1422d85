#include "htmlrunwriter.h"

#include "export/codehighlighter.h"
#include "export/exporttext.h"
#include "runtree/runmodel.h"
#include "runtree/runnodetext.h"
#include "util/jsonindent.h"
#include "util/linediff.h"
#include "util/terminalsafe.h"

#include <QMetaEnum>

#include <vector>

namespace sandscope {

namespace {

using Kind = RunModel::NodeKind;
using Status = RunModel::Status;
using ToolKind = RunModel::ToolKind;

// Bidi overrides and invisible characters shown as <U+202E>: a name cannot pretend to be
// another, code cannot read differently from what it does.
QString esc(const QString &text)
{
    return TerminalSafe::visibleUnicode(text).toHtmlEscaped();
}

// The status words double as CSS classes ("ok", "error", ...).
QString statusClass(int status)
{
    const QString text = runtext::statusText(Status(status));
    return text.isEmpty() ? QStringLiteral("none") : text;
}

// The kind's enum name, lower case, as the node's CSS class ("turn", "toolcall", ...).
QString kindClass(int kind)
{
    return QString::fromLatin1(QMetaEnum::fromType<Kind>().valueToKey(kind)).toLower();
}

QString block(const QString &label, const QString &html, const QString &cssClass)
{
    if (html.isEmpty())
        return {};
    return QStringLiteral(
        "<div class=\"block\"><div class=\"label\">%1</div><pre class=\"%2\">%3</pre></div>")
        .arg(esc(label), cssClass, html);
}

// One block per line: the spans end lines themselves (a "\n" as well would double them).
QString diffHtml(const QString &oldText, const QString &newText)
{
    QString html;
    for (const LineDiff::Line &line : LineDiff::compute(oldText, newText)) {
        switch (line.op) {
        case LineDiff::Op::Same:
            html += QStringLiteral("<span class=\"same\">  %1</span>").arg(esc(line.text));
            break;
        case LineDiff::Op::Removed:
            html += QStringLiteral("<span class=\"del\">- %1</span>").arg(esc(line.text));
            break;
        case LineDiff::Op::Added:
            html += QStringLiteral("<span class=\"add\">+ %1</span>").arg(esc(line.text));
            break;
        }
    }
    return html;
}

QString todosHtml(const QVector<TodoItem> &todos)
{
    QString html = QStringLiteral("<ul class=\"todos\">");
    for (const TodoItem &todo : todos) {
        const QString mark = todo.status == QLatin1String("completed") ? QStringLiteral("☑")
            : todo.status == QLatin1String("in_progress")              ? QStringLiteral("◐")
                                                                       : QStringLiteral("☐");
        html += QStringLiteral("<li class=\"%1\">%2 %3</li>")
                    .arg(esc(todo.status), mark, esc(todo.content));
    }
    return html + QStringLiteral("</ul>");
}

QString toolBody(const RunNodeRecord &node, const CodeHighlighter &highlighter)
{
    const ToolInput &input = node.input;
    const QString outputClass
        = node.isError ? QStringLiteral("output error") : QStringLiteral("output");
    QString html;
    switch (ToolKind(node.toolKind)) {
    case ToolKind::Shell:
        if (!input.description.isEmpty())
            html += QStringLiteral("<p class=\"desc\">%1</p>").arg(esc(input.description));
        if (!input.command.isEmpty())
            html += block(QStringLiteral("Command"),
                QStringLiteral("<span class=\"prompt\">$ </span>")
                    + highlighter.toHtml(
                        TerminalSafe::visibleUnicode(input.command), QStringLiteral("Bash")),
                QStringLiteral("code"));
        else
            html += block(
                QStringLiteral("Input"), esc(indentedJson(node.inputJson)), QStringLiteral("code"));
        break;
    case ToolKind::Edit:
        if (!input.oldString.isEmpty() || !input.newString.isEmpty()) {
            html += QStringLiteral("<p class=\"path\">%1%2</p>")
                        .arg(esc(input.filePath),
                            input.replaceAll ? QStringLiteral(" (all occurrences)") : QString());
            html += block(QStringLiteral("Change"), diffHtml(input.oldString, input.newString),
                QStringLiteral("diff"));
        } else {
            html += block(
                QStringLiteral("Input"), esc(indentedJson(node.inputJson)), QStringLiteral("code"));
        }
        break;
    case ToolKind::Write:
        html += QStringLiteral("<p class=\"path\">%1</p>").arg(esc(input.filePath));
        html += block(QStringLiteral("Content"),
            highlighter.toHtml(TerminalSafe::visibleUnicode(input.content), input.filePath),
            QStringLiteral("code"));
        break;
    case ToolKind::Read:
        html += QStringLiteral("<p class=\"path\">%1</p>").arg(esc(input.filePath));
        break;
    case ToolKind::Todo:
        html += todosHtml(input.todos);
        break;
    case ToolKind::Agent:
        if (!input.prompt.isEmpty())
            html += block(QStringLiteral("Prompt"), esc(input.prompt), QStringLiteral("prose"));
        if (!node.task.summary.isEmpty())
            html += block(QStringLiteral("Task"), esc(node.task.summary), QStringLiteral("prose"));
        break;
    default:
        if (!node.inputJson.isEmpty() && node.inputJson != "{}")
            html += block(
                QStringLiteral("Input"), esc(indentedJson(node.inputJson)), QStringLiteral("code"));
        break;
    }
    if (ToolKind(node.toolKind) == ToolKind::Read && !node.isError)
        html += block(QStringLiteral("Output"),
            highlighter.toHtml(TerminalSafe::visibleUnicode(node.resultText), input.filePath),
            QStringLiteral("code"));
    else
        html += block(node.isError ? QStringLiteral("Error") : QStringLiteral("Output"),
            esc(node.resultText), outputClass);
    return html;
}

QString nodeBody(const RunNodeRecord &node, const CodeHighlighter &highlighter)
{
    switch (Kind(node.kind)) {
    case Kind::Run:
    case Kind::Turn:
        return {};
    case Kind::ToolCall:
        return toolBody(node, highlighter);
    case Kind::Raw:
        return block(QStringLiteral("Line"),
            esc(node.text.isEmpty() ? QString::fromUtf8(node.raw) : node.text),
            QStringLiteral("output"));
    default:
        return block(QString(), esc(node.text), QStringLiteral("prose"));
    }
}

QString summaryRow(const RunNodeRecord &node)
{
    QString html = QStringLiteral("<summary><span class=\"dot\"></span>");
    if (node.kind == int(Kind::ToolCall)) {
        html += QStringLiteral("<span class=\"tname\">%1</span>")
                    .arg(esc(node.toolName.isEmpty() ? QStringLiteral("tool") : node.toolName));
        html += QStringLiteral("<span class=\"title\">%1</span>").arg(esc(node.title));
    } else {
        html += QStringLiteral("<span class=\"title\">%1</span>")
                    .arg(esc(exporttext::heading(node)));
    }
    const QStringList facts = exporttext::facts(node);
    if (!facts.isEmpty())
        html += QStringLiteral("<span class=\"meta\">%1</span>")
                    .arg(esc(facts.join(QStringLiteral(" · "))));
    return html + QStringLiteral("</summary>");
}

QString style()
{
    return QStringLiteral(R"(
:root{--bg:#f7f8fa;--card:#fff;--ink:#1d2330;--mute:#667085;--line:#e3e6ec;--ok:#1f9d55;
--error:#d64545;--running:#2f6fdb;--warn:#c98a09;--denied:#8e44ad;--bg-code:#f3f4f7}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
header.summary{background:var(--card);border-bottom:1px solid var(--line);padding:18px 28px}
header h1{margin:0 0 6px;font-size:20px;font-weight:600}
.outcome{display:inline-block;padding:2px 10px;border-radius:12px;font-weight:600;font-size:13px}
.outcome.ok{background:#e3f5ea;color:var(--ok)}.outcome.error{background:#fbe5e5;color:var(--error)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:3px 16px;margin:12px 0 0;font-size:13px}
dl.facts dt{color:var(--mute)}dl.facts dd{margin:0;word-break:break-all}
.note{margin-top:10px;font-size:12px;color:var(--mute)}
.skipped{margin-top:10px;padding:8px 12px;border-left:3px solid var(--warn);background:#fff8e6;font-size:13px}
.skipped ul{margin:4px 0 0;padding-left:18px}
nav.toolbar{padding:10px 28px;display:flex;gap:8px}
nav.toolbar button{font:inherit;font-size:12px;padding:4px 12px;border:1px solid var(--line);border-radius:6px;background:var(--card);cursor:pointer}
main.tree{padding:0 28px 40px}
details{margin:2px 0}
details>summary{list-style:none;cursor:pointer;display:flex;align-items:baseline;gap:8px;padding:4px 8px;border-radius:6px}
details>summary::-webkit-details-marker{display:none}
details>summary::before{content:"▸";color:var(--mute);width:10px;flex:none;transition:transform .1s}
details[open]>summary::before{transform:rotate(90deg)}
details.leaf>summary::before{visibility:hidden}
summary:hover{background:#eef1f6}
.children{margin-left:18px;padding-left:8px;border-left:1px solid var(--line)}
.dot{width:9px;height:9px;border-radius:50%;flex:none;background:#c4c9d4;align-self:center}
.ok>summary .dot{background:var(--ok)}.error>summary .dot{background:var(--error)}
.running>summary .dot{background:var(--running)}.interrupted>summary .dot,.retrying>summary .dot{background:var(--warn)}
.denied>summary .dot{background:var(--denied)}.background>summary .dot{background:#1aa3a3}
.tname{font-weight:600;font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12.5px;background:#eef1f6;border-radius:4px;padding:0 6px}
.error>summary .tname{background:#fbe5e5;color:var(--error)}
.title{flex:1;min-width:0;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
details.turn>summary .title,details.run>summary .title{font-weight:600}
.thinking>summary .title{color:var(--mute);font-style:italic}
.meta{color:var(--mute);font-size:12px;white-space:nowrap}
.body{margin:4px 0 8px 26px;padding:10px 12px;background:var(--card);border:1px solid var(--line);border-radius:8px}
.block+.block{margin-top:8px}
.label{font-size:11px;text-transform:uppercase;letter-spacing:.04em;color:var(--mute);margin-bottom:3px}
pre{margin:0;padding:8px 10px;background:var(--bg-code);border-radius:6px;overflow:auto;max-height:480px;
font:12.5px/1.4 ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;white-space:pre-wrap;word-break:break-word}
pre.prose{background:none;padding:0;font:inherit;white-space:pre-wrap}
pre.output.error{background:#fdf0f0;color:#9b1c1c}
pre.diff .del{display:block;background:#fde8e8;color:#9b1c1c}pre.diff .add{display:block;background:#e3f5ea;color:#17603a}
pre.diff .same{display:block;color:var(--mute)}
.prompt{color:var(--mute);user-select:none}
.path{margin:0 0 6px;font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12.5px}
.desc{margin:0 0 6px;color:var(--mute)}
ul.todos{margin:0;padding-left:4px;list-style:none}ul.todos .completed{color:var(--mute);text-decoration:line-through}
)");
}

QString script()
{
    return QStringLiteral(R"(
function setAll(open){document.querySelectorAll('main.tree details:not(.leaf)').forEach(function(d){d.open=open;});}
document.getElementById('expand-all').addEventListener('click',function(){setAll(true);});
document.getElementById('collapse-all').addEventListener('click',function(){setAll(false);});
)");
}

} // namespace

QByteArray HtmlRunWriter::write(const ExportedRun &run, const CodeHighlighter &highlighter)
{
    const RunSummary &summary = run.summary;
    QString html;
    html.reserve(1 << 16);
    const QString titleText = summary.sessionId.isEmpty()
        ? QStringLiteral("Sandscope run")
        : QStringLiteral("Sandscope run %1").arg(summary.sessionId);
    html += QStringLiteral("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                           "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
                           "<meta name=\"generator\" content=\"Sandscope\"><title>%1</title>"
                           "<style>%2</style></head><body>\n")
                .arg(esc(titleText), style());

    const bool bad = exporttext::failed(run);
    html += QStringLiteral(
        "<header class=\"summary\"><h1>%1</h1><span class=\"outcome %2\">%3</span>"
        "<dl class=\"facts\">")
                .arg(esc(titleText), bad ? QStringLiteral("error") : QStringLiteral("ok"),
                    esc(exporttext::outcome(run)));
    for (const auto &[label, value] : exporttext::summaryRows(run))
        html += QStringLiteral("<dt>%1</dt><dd>%2</dd>").arg(esc(label), esc(value));
    html += QStringLiteral("</dl>");
    if (!run.skipped.isEmpty()) {
        html += QStringLiteral(
            "<div class=\"skipped\" id=\"skipped\"><strong>Not exported (%1):</strong><ul>")
                    .arg(run.skipped.size());
        for (const QString &item : run.skipped)
            html += QStringLiteral("<li>%1</li>").arg(esc(item));
        html += QStringLiteral("</ul></div>");
    }
    html += QStringLiteral("<div class=\"note\">%1</div></header>\n")
                .arg(esc(exporttext::redactionNote(run.redacted)));
    html
        += QStringLiteral("<nav class=\"toolbar\"><button id=\"expand-all\" type=\"button\">Expand "
                          "all</button><button id=\"collapse-all\" type=\"button\">Collapse "
                          "all</button></nav>\n<main class=\"tree\">\n");

    // Iterative, so a deeply nested tree from a hostile file cannot overflow the stack; a null
    // node closes the element its entry opened.
    struct Entry {
        const RunNodeRecord *node;
        bool close;
    };
    std::vector<Entry> pending {{&run.run, false}};
    while (!pending.empty()) {
        const Entry entry = pending.back();
        pending.pop_back();
        const RunNodeRecord &node = *entry.node;
        if (entry.close) {
            html += node.children.empty() ? QStringLiteral("</details>\n")
                                          : QStringLiteral("</div></details>\n");
            continue;
        }
        const QString body = nodeBody(node, highlighter);
        const bool leaf = body.isEmpty() && node.children.empty();
        const bool open = node.kind == int(Kind::Run) || node.kind == int(Kind::Turn);
        html += QStringLiteral("<details class=\"node %1 %2%3\" data-kind=\"%4\"%5%6>")
                    .arg(kindClass(node.kind), statusClass(node.status),
                        leaf ? QStringLiteral(" leaf") : QString(), esc(QString::number(node.kind)),
                        node.toolUseId.isEmpty()
                            ? QString()
                            : QStringLiteral(" data-tool-use-id=\"%1\"").arg(esc(node.toolUseId)),
                        open ? QStringLiteral(" open") : QString());
        html += summaryRow(node);
        if (!body.isEmpty())
            html += QStringLiteral("<div class=\"body\">%1</div>").arg(body);
        if (!node.children.empty())
            html += QStringLiteral("<div class=\"children\">");
        pending.push_back({entry.node, true});
        for (size_t i = node.children.size(); i-- > 0;)
            pending.push_back({&node.children[i], false});
    }
    html += QStringLiteral("</main>\n<script>%1</script>\n</body></html>\n").arg(script());
    return html.toUtf8();
}

} // namespace sandscope
