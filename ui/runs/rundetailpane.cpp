#include "rundetailpane.h"

#include "claude/demomodel.h"
#include "monospacefont.h"
#include "runs/rundelegate.h"

#include <QApplication>
#include <QClipboard>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyle>
#include <QTabWidget>
#include <QTextBlock>
#include <QTextCursor>
#include <QToolButton>
#include <QVBoxLayout>

#ifdef SANDSCOPE_HAVE_KSYNTAXHIGHLIGHTING
#include <KSyntaxHighlighting/Definition>
#include <KSyntaxHighlighting/Repository>
#include <KSyntaxHighlighting/SyntaxHighlighter>
#include <KSyntaxHighlighting/Theme>
#endif

#include <vector>

namespace sandscope {

namespace {

using Kind = RunModel::NodeKind;
using Status = RunModel::Status;
using ToolKind = RunModel::ToolKind;

// Line diffs beyond this many cells (old lines x new lines) show as "all removed, all added"
// rather than spending seconds on a longest-common-subsequence table.
constexpr qint64 maxDiffCells = 4'000'000;

struct DiffLine {
    char op; // ' ', '-', '+'
    QString text;
};

std::vector<DiffLine> lineDiff(const QStringList &before, const QStringList &after)
{
    qsizetype prefix = 0;
    while (prefix < before.size() && prefix < after.size() && before[prefix] == after[prefix])
        ++prefix;
    qsizetype suffix = 0;
    while (suffix < before.size() - prefix && suffix < after.size() - prefix
        && before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix])
        ++suffix;
    const qsizetype n = before.size() - prefix - suffix;
    const qsizetype m = after.size() - prefix - suffix;

    std::vector<DiffLine> out;
    for (qsizetype i = 0; i < prefix; ++i)
        out.push_back({' ', before[i]});
    if (qint64(n) * qint64(m) > maxDiffCells) {
        for (qsizetype i = 0; i < n; ++i)
            out.push_back({'-', before[prefix + i]});
        for (qsizetype j = 0; j < m; ++j)
            out.push_back({'+', after[prefix + j]});
    } else {
        // lcs[i][j]: common subsequence length of before[i..] and after[j..] (middle parts).
        std::vector<int> lcs(size_t((n + 1) * (m + 1)), 0);
        auto at = [&](qsizetype i, qsizetype j) -> int & {
            return lcs[size_t(i * (m + 1) + j)];
        };
        for (qsizetype i = n - 1; i >= 0; --i) {
            for (qsizetype j = m - 1; j >= 0; --j) {
                at(i, j) = before[prefix + i] == after[prefix + j]
                    ? at(i + 1, j + 1) + 1
                    : std::max(at(i + 1, j), at(i, j + 1));
            }
        }
        qsizetype i = 0;
        qsizetype j = 0;
        while (i < n || j < m) {
            if (i < n && j < m && before[prefix + i] == after[prefix + j]) {
                out.push_back({' ', before[prefix + i]});
                ++i;
                ++j;
            } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
                out.push_back({'-', before[prefix + i]}); // removals first, as diff prints them
                ++i;
            } else {
                out.push_back({'+', after[prefix + j]});
                ++j;
            }
        }
    }
    for (qsizetype i = before.size() - suffix; i < before.size(); ++i)
        out.push_back({' ', before[i]});
    return out;
}

QPlainTextEdit *makeTextView(QWidget *parent, const QString &name)
{
    auto *view = new QPlainTextEdit(parent);
    view->setObjectName(name);
    view->setReadOnly(true);
    view->setFrameShape(QFrame::NoFrame);
    view->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    return view;
}

QString todoMarker(const QString &status)
{
    if (status == QLatin1String("completed"))
        return QStringLiteral("[x]");
    if (status == QLatin1String("in_progress"))
        return QStringLiteral("[~]");
    return QStringLiteral("[ ]");
}

} // namespace

struct RunDetailPane::Highlighting {
#ifdef SANDSCOPE_HAVE_KSYNTAXHIGHLIGHTING
    static KSyntaxHighlighting::Repository &repository()
    {
        static KSyntaxHighlighting::Repository instance;
        return instance;
    }
    KSyntaxHighlighting::SyntaxHighlighter *code = nullptr;
    KSyntaxHighlighting::SyntaxHighlighter *raw = nullptr;
    KSyntaxHighlighting::SyntaxHighlighter *resultRaw = nullptr;

    static KSyntaxHighlighting::SyntaxHighlighter *attach(QPlainTextEdit *view)
    {
        auto *highlighter = new KSyntaxHighlighting::SyntaxHighlighter(view->document());
        highlighter->setTheme(repository().defaultTheme(RunDelegate::isDark(view->palette())
                ? KSyntaxHighlighting::Repository::DarkTheme
                : KSyntaxHighlighting::Repository::LightTheme));
        return highlighter;
    }
    // Returns whether a definition was found.
    static bool use(KSyntaxHighlighting::SyntaxHighlighter *highlighter, const QString &fileName,
        const QString &definitionName = {})
    {
        const KSyntaxHighlighting::Definition definition = definitionName.isEmpty()
            ? repository().definitionForFileName(fileName)
            : repository().definitionForName(definitionName);
        highlighter->setDefinition(definition);
        return definition.isValid();
    }
#endif
};

RunDetailPane::RunDetailPane(QWidget *parent)
    : QWidget(parent)
    , m_highlighting(std::make_unique<Highlighting>())
{
    setObjectName(QStringLiteral("runDetailPane"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);

    auto *header = new QHBoxLayout;
    header->setContentsMargins(6, 4, 6, 0);
    header->setSpacing(8);
    m_icon = new QLabel(this);
    m_icon->setFixedSize(16, 16);
    m_title = new QLabel(this);
    m_title->setObjectName(QStringLiteral("detailTitle"));
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.08);
    m_title->setFont(titleFont);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_title->setMinimumWidth(50);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("detailStatus"));
    m_openFileButton = new QToolButton(this);
    m_openFileButton->setObjectName(QStringLiteral("openFileButton"));
    m_openFileButton->setText(tr("Open File"));
    m_openFileButton->setToolTip(
        tr("Open the file this call read or wrote in the Files tab, as the run's user "
           "(Ctrl+Shift+O)"));
    m_openFileButton->setIcon(style()->standardIcon(QStyle::SP_FileLinkIcon));
    m_openFileButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_openFileButton->setAutoRaise(true);
    m_openFileButton->hide();
    connect(m_openFileButton, &QToolButton::clicked, this, [this] {
        if (!linkedFilePath().isEmpty())
            Q_EMIT openFileRequested(linkedFilePath());
    });
    header->addWidget(m_icon);
    header->addWidget(m_title, 1);
    header->addWidget(m_openFileButton);
    header->addWidget(m_status);
    layout->addLayout(header);

    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("detailTabs"));
    m_tabs->setDocumentMode(true);
    layout->addWidget(m_tabs, 1);

    auto *details = new QWidget(m_tabs);
    auto *detailsLayout = new QVBoxLayout(details);
    detailsLayout->setContentsMargins(6, 6, 6, 0);
    detailsLayout->setSpacing(6);
    m_facts = new QLabel(details);
    m_facts->setObjectName(QStringLiteral("detailFacts"));
    m_facts->setTextFormat(Qt::RichText);
    m_facts->setWordWrap(true);
    m_facts->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_facts->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    // Long fact lists scroll instead of pushing the tree above out of the way.
    m_factsArea = new QScrollArea(details);
    m_factsArea->setWidget(m_facts);
    m_factsArea->setWidgetResizable(true);
    m_factsArea->setFrameShape(QFrame::NoFrame);
    m_factsArea->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_factsMaxHeight = fontMetrics().lineSpacing() * 9 + 16;
    m_factsArea->setBackgroundRole(QPalette::Window);
    detailsLayout->addWidget(m_factsArea);

    m_splitter = new QSplitter(Qt::Vertical, details);
    m_splitter->setChildrenCollapsible(false);
    m_body = new QStackedWidget(m_splitter);
    m_emptyLabel = new QLabel(tr("Select a node to see its details."), m_body);
    m_emptyLabel->setAlignment(Qt::AlignCenter);
    m_emptyLabel->setEnabled(false);
    m_text = makeTextView(m_body, QStringLiteral("detailText"));
    m_code = makeTextView(m_body, QStringLiteral("detailCode"));
    m_code->setFont(monospaceFont());
    m_code->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_diff = makeTextView(m_body, QStringLiteral("detailDiff"));
    m_diff->setFont(monospaceFont());
    m_diff->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_checklist = new QListWidget(m_body);
    m_checklist->setObjectName(QStringLiteral("detailChecklist"));
    m_checklist->setFrameShape(QFrame::NoFrame);
    m_checklist->setSelectionMode(QAbstractItemView::NoSelection);
    for (QWidget *page : {static_cast<QWidget *>(m_emptyLabel), static_cast<QWidget *>(m_text),
             static_cast<QWidget *>(m_code), static_cast<QWidget *>(m_diff),
             static_cast<QWidget *>(m_checklist)})
        m_body->addWidget(page);

    m_resultBox = new QWidget(m_splitter);
    auto *resultLayout = new QVBoxLayout(m_resultBox);
    resultLayout->setContentsMargins(0, 4, 0, 0);
    resultLayout->setSpacing(2);
    m_resultLabel = new QLabel(tr("Result"), m_resultBox);
    QFont sectionFont = m_resultLabel->font();
    sectionFont.setBold(true);
    m_resultLabel->setFont(sectionFont);
    m_result = makeTextView(m_resultBox, QStringLiteral("detailResult"));
    m_result->setFont(monospaceFont());
    resultLayout->addWidget(m_resultLabel);
    resultLayout->addWidget(m_result, 1);
    m_splitter->addWidget(m_body);
    m_splitter->addWidget(m_resultBox);
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 2);
    const int lineHeight = fontMetrics().height();
    m_body->setMinimumHeight(lineHeight * 2 + 8);
    m_result->setMinimumHeight(lineHeight * 2 + 8);
    detailsLayout->addWidget(m_splitter, 1);
    m_tabs->addTab(details, tr("Details"));

    auto *rawPage = new QWidget(m_tabs);
    auto *rawLayout = new QVBoxLayout(rawPage);
    rawLayout->setContentsMargins(0, 0, 0, 0);
    rawLayout->setSpacing(0);
    auto *rawBar = new QHBoxLayout;
    rawBar->setContentsMargins(6, 2, 6, 2);
    auto *rawHint = new QLabel(tr("The stream-json line this node came from"), rawPage);
    rawHint->setEnabled(false);
    m_copyButton = new QToolButton(rawPage);
    m_copyButton->setObjectName(QStringLiteral("copyJsonButton"));
    m_copyButton->setText(tr("Copy JSON"));
    m_copyButton->setToolTip(tr("Copy the line as compact JSON"));
    m_copyButton->setAutoRaise(true);
    connect(m_copyButton, &QToolButton::clicked, this, &RunDetailPane::copyRawJson);
    rawBar->addWidget(rawHint, 1);
    rawBar->addWidget(m_copyButton);
    rawLayout->addLayout(rawBar);
    m_raw = makeTextView(rawPage, QStringLiteral("detailRawJson"));
    m_raw->setFont(monospaceFont());
    m_raw->setLineWrapMode(QPlainTextEdit::NoWrap);
    rawLayout->addWidget(m_raw, 1);
    m_tabs->addTab(rawPage, tr("JSON"));

    m_resultRaw = makeTextView(m_tabs, QStringLiteral("detailResultJson"));
    m_resultRaw->setFont(monospaceFont());
    m_resultRaw->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_tabs->addTab(m_resultRaw, tr("Result JSON"));

#ifdef SANDSCOPE_HAVE_KSYNTAXHIGHLIGHTING
    m_highlighting->code = Highlighting::attach(m_code);
    m_highlighting->raw = Highlighting::attach(m_raw);
    m_highlighting->resultRaw = Highlighting::attach(m_resultRaw);
    Highlighting::use(m_highlighting->raw, {}, QStringLiteral("JSON"));
    Highlighting::use(m_highlighting->resultRaw, {}, QStringLiteral("JSON"));
#endif
    clear();
}

RunDetailPane::~RunDetailPane() = default;

void RunDetailPane::clear()
{
    m_index = QPersistentModelIndex();
    m_icon->clear();
    m_openFileButton->hide();
    m_title->setText(tr("No node selected"));
    m_status->clear();
    m_status->setStyleSheet(QString());
    setFacts({});
    m_raw->clear();
    m_resultRaw->clear();
    showResult(QString(), false);
    m_tabs->setTabEnabled(2, false);
    setView(View::Empty);
}

void RunDetailPane::setView(View view)
{
    m_view = view;
    switch (view) {
    case View::Empty:
        m_body->setCurrentWidget(m_emptyLabel);
        break;
    case View::Text:
        m_body->setCurrentWidget(m_text);
        break;
    case View::Code:
        m_body->setCurrentWidget(m_code);
        break;
    case View::Diff:
        m_body->setCurrentWidget(m_diff);
        break;
    case View::Checklist:
        m_body->setCurrentWidget(m_checklist);
        break;
    }
}

QString RunDetailPane::titleText() const
{
    return m_title->text();
}

QString RunDetailPane::bodyText() const
{
    switch (m_view) {
    case View::Empty:
        return {};
    case View::Text:
        return m_text->toPlainText();
    case View::Code:
        return m_code->toPlainText();
    case View::Diff:
        return m_diff->toPlainText();
    case View::Checklist: {
        QStringList lines;
        for (int row = 0; row < m_checklist->count(); ++row)
            lines.append(m_checklist->item(row)->text());
        return lines.join(QLatin1Char('\n'));
    }
    }
    return {};
}

bool RunDetailPane::isResultVisible() const
{
    return !m_resultBox->isHidden();
}

QString RunDetailPane::resultText() const
{
    return isResultVisible() ? m_result->toPlainText() : QString();
}

QString RunDetailPane::rawJsonText() const
{
    return m_raw->toPlainText();
}

QString RunDetailPane::resultJsonText() const
{
    return m_resultRaw->toPlainText();
}

void RunDetailPane::copyRawJson()
{
    const QByteArray raw
        = m_index.isValid() ? m_index.data(RunModel::RawLineRole).toByteArray() : QByteArray();
    QApplication::clipboard()->setText(
        raw.isEmpty() ? m_raw->toPlainText() : QString::fromUtf8(raw));
}

void RunDetailPane::setFacts(const QVector<Fact> &facts)
{
    m_factsPlain.clear();
    if (facts.isEmpty()) {
        m_facts->clear();
        m_factsArea->hide();
        return;
    }
    const QPalette palette = m_facts->palette();
    const QColor text = palette.color(QPalette::WindowText);
    const QColor window = palette.color(QPalette::Window);
    const QColor muted = QColor::fromRgbF((text.redF() * 3 + window.redF() * 2) / 5,
        (text.greenF() * 3 + window.greenF() * 2) / 5, (text.blueF() * 3 + window.blueF() * 2) / 5);
    QString html = QStringLiteral("<table cellspacing=\"0\" cellpadding=\"1\">");
    for (const Fact &fact : facts) {
        QString value = fact.value.toHtmlEscaped();
        value.replace(QLatin1Char('\n'), QStringLiteral("<br>"));
        if (fact.code)
            value = QStringLiteral("<code>") + value + QStringLiteral("</code>");
        html += QStringLiteral("<tr><td style=\"color:%1; padding-right:12px\">%2</td>"
                               "<td>%3</td></tr>")
                    .arg(muted.name(), fact.key.toHtmlEscaped(), value);
        m_factsPlain += fact.key + QStringLiteral(": ") + fact.value + QLatin1Char('\n');
    }
    html += QStringLiteral("</table>");
    m_facts->setText(html);
    // As tall as the facts (at most about eight rows; more scroll).
    const int width = std::max(m_factsArea->viewport()->width(), 400);
    const int wanted = m_facts->heightForWidth(width);
    m_factsArea->setFixedHeight(
        std::min(wanted > 0 ? wanted : m_facts->sizeHint().height(), m_factsMaxHeight) + 2);
    m_factsArea->show();
}

void RunDetailPane::showText(const QString &text, bool monospace)
{
    m_text->setFont(monospace ? monospaceFont() : font());
    m_text->setLineWrapMode(monospace ? QPlainTextEdit::NoWrap : QPlainTextEdit::WidgetWidth);
    m_text->setPlainText(text);
    setView(View::Text);
}

void RunDetailPane::showCode(const QString &text, const QString &fileName)
{
    m_codeHighlighted = false;
#ifdef SANDSCOPE_HAVE_KSYNTAXHIGHLIGHTING
    m_codeHighlighted = Highlighting::use(m_highlighting->code, fileName);
#else
    Q_UNUSED(fileName)
#endif
    m_code->setPlainText(text);
    setView(View::Code);
}

static void colourDiff(QPlainTextEdit *view, const std::vector<DiffLine> &lines)
{
    QString text;
    for (const DiffLine &line : lines) {
        if (line.op == '@') // a section header, shown as it is
            text += line.text + QLatin1Char('\n');
        else
            text += QLatin1Char(line.op) + QLatin1Char(' ') + line.text + QLatin1Char('\n');
    }
    text.chop(1);
    view->setPlainText(text);

    const QPalette palette = view->palette();
    const QColor base = palette.color(QPalette::Base);
    const double weight = RunDelegate::isDark(palette) ? 0.28 : 0.16;
    auto tint = [&](const QColor &colour) {
        return QColor::fromRgbF(base.redF() * (1 - weight) + colour.redF() * weight,
            base.greenF() * (1 - weight) + colour.greenF() * weight,
            base.blueF() * (1 - weight) + colour.blueF() * weight);
    };
    const QColor removed = tint(QColor(0xd7, 0x3a, 0x49));
    const QColor added = tint(QColor(0x28, 0xa7, 0x45));
    const QColor header = tint(QColor(0x3b, 0x6f, 0xb6));
    QTextCursor cursor(view->document());
    cursor.beginEditBlock();
    size_t i = 0;
    for (QTextBlock block = view->document()->begin(); block.isValid() && i < lines.size();
         block = block.next(), ++i) {
        QColor colour;
        switch (lines[i].op) {
        case '-':
            colour = removed;
            break;
        case '+':
            colour = added;
            break;
        case '@':
            colour = header;
            break;
        default:
            continue;
        }
        QTextBlockFormat format;
        format.setBackground(colour);
        cursor.setPosition(block.position());
        cursor.mergeBlockFormat(format);
    }
    cursor.endEditBlock();
}

void RunDetailPane::showDiff(const QString &oldText, const QString &newText)
{
    colourDiff(
        m_diff, lineDiff(oldText.split(QLatin1Char('\n')), newText.split(QLatin1Char('\n'))));
    setView(View::Diff);
}

void RunDetailPane::showMultiEditDiff(const QByteArray &inputJson)
{
    const QJsonArray edits
        = QJsonDocument::fromJson(inputJson).object().value(QLatin1String("edits")).toArray();
    std::vector<DiffLine> lines;
    for (int n = 0; n < edits.size(); ++n) {
        const QJsonObject edit = edits.at(n).toObject();
        QString label = tr("edit %1 of %2").arg(n + 1).arg(edits.size());
        if (edit.value(QLatin1String("replace_all")).toBool())
            label += tr(", every occurrence");
        lines.push_back({'@', QStringLiteral("@@ ") + label + QStringLiteral(" @@")});
        const std::vector<DiffLine> part
            = lineDiff(edit.value(QLatin1String("old_string")).toString().split(QLatin1Char('\n')),
                edit.value(QLatin1String("new_string")).toString().split(QLatin1Char('\n')));
        lines.insert(lines.end(), part.begin(), part.end());
    }
    colourDiff(m_diff, lines);
    setView(View::Diff);
}

void RunDetailPane::showChecklist(const QVector<TodoItem> &todos)
{
    m_checklist->clear();
    for (const TodoItem &todo : todos) {
        auto *item = new QListWidgetItem(m_checklist);
        const bool active = todo.status == QLatin1String("in_progress");
        item->setText(todoMarker(todo.status) + QLatin1Char(' ')
            + (active && !todo.activeForm.isEmpty() ? todo.activeForm : todo.content));
        item->setData(Qt::UserRole, todo.status);
        item->setFlags(Qt::ItemIsEnabled); // shown, not editable: the agent owns the list
        item->setCheckState(todo.status == QLatin1String("completed") ? Qt::Checked
                : active                                              ? Qt::PartiallyChecked
                                                                      : Qt::Unchecked);
        if (active) {
            QFont bold = item->font();
            bold.setBold(true);
            item->setFont(bold);
        }
    }
    setView(View::Checklist);
}

void RunDetailPane::showResult(const QString &text, bool isError)
{
    if (text.isEmpty()) {
        m_result->clear();
        m_resultBox->hide();
        return;
    }
    m_resultLabel->setText(isError ? tr("Result (error)") : tr("Result"));
    QPalette palette = m_result->palette();
    palette.setColor(QPalette::Text,
        isError ? RunDelegate::statusColor(Status::Error, palette)
                : this->palette().color(QPalette::Text));
    m_result->setPalette(palette);
    m_result->setPlainText(text);
    m_resultBox->show();
}

QString RunDetailPane::linkedFilePath() const
{
    if (!m_index.isValid())
        return {};
    return m_fileLinkResolver ? m_fileLinkResolver(m_index)
                              : m_index.data(RunModel::FilePathRole).toString();
}

void RunDetailPane::setFileLinkResolver(std::function<QString(const QModelIndex &)> resolver)
{
    m_fileLinkResolver = std::move(resolver);
    refresh();
}

bool RunDetailPane::offersOpenFile() const
{
    return !m_openFileButton->isHidden();
}

void RunDetailPane::showIndex(const QModelIndex &sourceIndex)
{
    m_index = sourceIndex.isValid() ? sourceIndex.siblingAtColumn(RunModel::SummaryColumn)
                                    : QModelIndex();
    refresh();
}

// A big run's content is read again from its file when shown: say so when that failed.
QVector<RunDetailPane::Fact> RunDetailPane::readErrorFacts(const RunNodeDetails &details)
{
    if (details.readError.isEmpty())
        return {};
    return {{tr("Unavailable"), details.readError, false}};
}

void RunDetailPane::showToolCall(const QModelIndex &index, const RunNodeDetails &details)
{
    const ToolInput &input = details.input;
    const TaskInfo &task = details.task;
    const auto toolKind = ToolKind(index.data(RunModel::ToolKindRole).toInt());
    const QString toolName = index.data(RunModel::ToolNameRole).toString();
    const QString &output = details.output;
    const bool isError = details.isError;
    QVector<Fact> facts = readErrorFacts(details);
    auto fact = [&facts](const QString &key, const QString &text, bool code = false) {
        if (!text.isEmpty())
            facts.append({key, text, code});
    };

    switch (toolKind) {
    case ToolKind::Shell:
        fact(tr("Command"), input.command, true);
        fact(tr("Description"), input.description);
        if (input.runInBackground)
            fact(tr("Mode"), tr("background"));
        setFacts(facts);
        showText(output.isEmpty() ? tr("(no output yet)") : output, true);
        showResult(QString(), false);
        return;
    case ToolKind::Edit:
        fact(tr("File"), input.filePath, true);
        if (input.replaceAll)
            fact(tr("Replace"), tr("every occurrence"));
        setFacts(facts);
        if (toolName == QLatin1String("MultiEdit"))
            showMultiEditDiff(details.inputJson);
        else
            showDiff(input.oldString, input.newString);
        showResult(output, isError);
        return;
    case ToolKind::Write:
        fact(tr("File"), input.filePath, true);
        setFacts(facts);
        showCode(input.content, input.filePath);
        showResult(output, isError);
        return;
    case ToolKind::Notebook:
        fact(tr("Notebook"), input.filePath, true);
        setFacts(facts);
        showCode(input.newString, QStringLiteral("cell.py"));
        showResult(output, isError);
        return;
    case ToolKind::Read:
    case ToolKind::Search:
        fact(tr("File"), input.filePath, true);
        fact(tr("Pattern"), input.pattern, true);
        fact(tr("In"), input.path, true);
        setFacts(facts);
        showText(output.isEmpty() ? tr("(no output yet)") : output, true);
        showResult(QString(), false);
        return;
    case ToolKind::Web:
        fact(tr("URL"), input.url, true);
        fact(tr("Query"), input.query);
        fact(tr("Prompt"), input.prompt);
        setFacts(facts);
        showText(output.isEmpty() ? tr("(no output yet)") : output, false);
        showResult(QString(), false);
        return;
    case ToolKind::Todo:
        setFacts(facts);
        showChecklist(input.todos);
        showResult(output, isError);
        return;
    case ToolKind::Agent: {
        fact(tr("Task"), input.description);
        fact(tr("Agent type"), input.subagentType);
        if (input.runInBackground)
            fact(tr("Mode"), tr("background"));
        fact(tr("Task status"), task.status);
        if (task.toolUses >= 0)
            fact(tr("Tool uses"), QString::number(task.toolUses));
        if (task.totalTokens >= 0)
            fact(tr("Tokens"), QString::number(task.totalTokens));
        // What the tree counted of the sub-agent's own lines (tokens once per message.id).
        fact(tr("Sub-agent"),
            tr("calls %1 · errors %2 · %3")
                .arg(index.siblingAtColumn(RunModel::ToolCallsColumn).data().toString(),
                    index.siblingAtColumn(RunModel::ErrorsColumn).data().toString(),
                    index.siblingAtColumn(RunModel::TokensColumn).data().toString())
                .remove(QRegularExpression(QStringLiteral(" · $"))));
        fact(tr("Output file"), task.outputFile, true);
        setFacts(facts);
        showText(input.prompt, false);
        showResult(output, isError);
        return;
    }
    case ToolKind::None:
    case ToolKind::Mcp:
    case ToolKind::Other:
        break;
    }
    fact(tr("Tool"), toolName.isEmpty() ? tr("(not seen yet)") : toolName, true);
    fact(tr("Tool use id"), details.toolUseId, true);
    setFacts(facts);
    showCode(details.inputJson.isEmpty()
            ? QString()
            : QString::fromUtf8(QJsonDocument::fromJson(details.inputJson).toJson()),
        QStringLiteral("input.json"));
    showResult(output, isError);
}

void RunDetailPane::refresh()
{
    if (!m_index.isValid()) {
        clear();
        return;
    }
    const QModelIndex index = m_index;
    const auto kind = Kind(index.data(RunModel::KindRole).toInt());
    const auto status = Status(index.data(RunModel::StatusRole).toInt());
    const auto details = index.data(RunModel::DetailRole).value<RunNodeDetails>();

    m_icon->setPixmap(RunDelegate::iconFor(index).pixmap(16, 16));
    m_openFileButton->setVisible(!linkedFilePath().isEmpty());
    m_title->setText(index.data(Qt::DisplayRole).toString());
    m_title->setToolTip(m_title->text());
    const QString label = RunDelegate::statusLabel(status);
    m_status->setText(label);
    m_status->setStyleSheet(label.isEmpty()
            ? QString()
            : QStringLiteral("QLabel { color: %1; background: %2; border-radius: 8px;"
                             " padding: 1px 9px; font-weight: bold; }")
                  .arg(RunDelegate::statusColor(status, palette()).name(),
                      RunDelegate::statusFill(status, palette()).name()));

    m_raw->setPlainText(index.data(RunModel::RawJsonRole).toString());
    const QString resultJson = index.data(RunModel::ResultRawJsonRole).toString();
    m_resultRaw->setPlainText(resultJson);
    m_tabs->setTabEnabled(2, !resultJson.isEmpty());
    if (m_tabs->currentIndex() == 2 && resultJson.isEmpty())
        m_tabs->setCurrentIndex(0);

    if (kind == Kind::ToolCall) {
        showToolCall(index, details);
        return;
    }

    QVector<Fact> facts = readErrorFacts(details);
    auto fact = [&facts](const QString &key, const QVariant &value, bool code = false) {
        const QString text = value.toString();
        if (!text.isEmpty())
            facts.append({key, text, code});
    };
    const QString text = index.data(RunModel::TextRole).toString();
    switch (kind) {
    case Kind::Run:
    case Kind::Turn:
        fact(tr("Model"), DemoModel::describeModel(details.model));
        fact(tr("Directory"), text, true);
        fact(tr("Duration"), index.siblingAtColumn(RunModel::DurationColumn).data());
        fact(tr("Tokens"), index.siblingAtColumn(RunModel::TokensColumn).data());
        fact(tr("Cache"),
            tr("%1 read · %2 written")
                .arg(QLocale().toString(index.data(RunModel::CacheReadTokensRole).toLongLong()),
                    QLocale().toString(
                        index.data(RunModel::CacheCreationTokensRole).toLongLong())));
        fact(tr("Cost"), index.siblingAtColumn(RunModel::CostColumn).data());
        fact(tr("Tool calls"), index.siblingAtColumn(RunModel::ToolCallsColumn).data());
        fact(tr("Errors"), index.siblingAtColumn(RunModel::ErrorsColumn).data());
        fact(tr("Children"), index.model()->rowCount(index));
        setFacts(facts);
        setView(View::Empty);
        m_emptyLabel->setText(tr("Select a tool call or a message for its details."));
        break;
    case Kind::Result:
        fact(tr("Duration"), index.siblingAtColumn(RunModel::DurationColumn).data());
        fact(tr("Tokens"), index.siblingAtColumn(RunModel::TokensColumn).data());
        fact(tr("Total cost"), index.siblingAtColumn(RunModel::CostColumn).data());
        setFacts(facts);
        showText(text.isEmpty() ? index.data(Qt::DisplayRole).toString() : text, false);
        break;
    case Kind::ApiRetry:
    case Kind::ApiError:
        fact(tr("Error"), details.errorCode, true);
        fact(tr("Model"), details.model);
        setFacts(facts);
        showText(text.isEmpty() ? index.data(Qt::DisplayRole).toString() : text, false);
        break;
    case Kind::Raw:
        fact(tr("Line"), index.data(RunModel::LineNumberRole));
        setFacts(facts);
        showText(QString::fromUtf8(index.data(RunModel::RawLineRole).toByteArray()), true);
        break;
    case Kind::AssistantText:
    case Kind::Thinking:
    case Kind::UserText:
    case Kind::PermissionDenied:
    case Kind::CompactBoundary:
    case Kind::SystemNotice:
    case Kind::ToolCall:
        setFacts(facts);
        showText(text.isEmpty() ? index.data(Qt::DisplayRole).toString() : text, false);
        break;
    }
    showResult(QString(), false);
}

} // namespace sandscope
