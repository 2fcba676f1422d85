#include "previewtext.h"

#include "monospacefont.h"

#include <QEvent>
#include <QFontDatabase>
#include <QPainter>
#include <QPlainTextEdit>
#include <QTextBlock>
#include <QTextCursor>
#include <QTimer>
#include <QVBoxLayout>

#ifdef SANDSCOPE_HAVE_KSYNTAXHIGHLIGHTING
#include <KSyntaxHighlighting/Definition>
#include <KSyntaxHighlighting/Repository>
#include <KSyntaxHighlighting/SyntaxHighlighter>
#include <KSyntaxHighlighting/Theme>
#endif

namespace sandscope {

namespace {

#ifdef SANDSCOPE_HAVE_KSYNTAXHIGHLIGHTING
// Loading the definitions takes a while; do it once, on first use.
KSyntaxHighlighting::Repository &repository()
{
    static KSyntaxHighlighting::Repository instance;
    return instance;
}
#endif

// Cuts lines longer than maxLength; returns the text unchanged (no copy) when none is.
QString shortenLongLines(const QString &text, int maxLength, bool *shortened)
{
    *shortened = false;
    qsizetype start = 0;
    bool anyLong = false;
    while (start < text.size()) {
        qsizetype end = text.indexOf(QLatin1Char('\n'), start);
        if (end < 0)
            end = text.size();
        if (end - start > maxLength) {
            anyLong = true;
            break;
        }
        start = end + 1;
    }
    if (!anyLong)
        return text;

    *shortened = true;
    QString result;
    result.reserve(text.size() / 2);
    start = 0;
    while (start < text.size()) {
        qsizetype end = text.indexOf(QLatin1Char('\n'), start);
        const bool lastLine = end < 0;
        if (lastLine)
            end = text.size();
        const qsizetype length = end - start;
        if (length > maxLength) {
            result += QStringView(text).mid(start, maxLength);
            result += QStringLiteral(" … [%1 more characters]").arg(length - maxLength);
        } else {
            result += QStringView(text).mid(start, length);
        }
        if (!lastLine)
            result += QLatin1Char('\n');
        start = end + 1;
    }
    return result;
}

} // namespace

// QPlainTextEdit with a gutter that paints the numbers of the visible blocks only.
class PreviewText::CodeView : public QPlainTextEdit {
public:
    explicit CodeView(QWidget *parent)
        : QPlainTextEdit(parent)
        , m_gutter(new Gutter(this))
    {
        setReadOnly(true);
        setLineWrapMode(QPlainTextEdit::NoWrap);
        setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
        setFont(monospaceFont());
        document()->setUndoRedoEnabled(false); // appending chunks must not build an undo stack
        connect(this, &QPlainTextEdit::blockCountChanged, this, [this] { updateGutterWidth(); });
        connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect &rect, int dy) {
            if (dy != 0)
                m_gutter->scroll(0, dy);
            else
                m_gutter->update(0, rect.y(), m_gutter->width(), rect.height());
        });
        updateGutterWidth();
    }

    void setFirstLineNumber(int number)
    {
        m_firstLineNumber = number;
        updateGutterWidth();
        m_gutter->update();
    }

    void setGutterColours(const QColor &background, const QColor &numbers)
    {
        m_gutterBackground = background;
        m_gutterNumbers = numbers;
        m_gutter->update();
    }

    int gutterWidth() const
    {
        const int lastNumber = m_firstLineNumber + std::max(1, blockCount()) - 1;
        const int digits = std::max(3, int(QString::number(lastNumber).size()));
        return 8 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * digits;
    }

protected:
    void resizeEvent(QResizeEvent *event) override
    {
        QPlainTextEdit::resizeEvent(event);
        const QRect area = contentsRect();
        m_gutter->setGeometry(QRect(area.left(), area.top(), gutterWidth(), area.height()));
    }

private:
    class Gutter : public QWidget {
    public:
        explicit Gutter(CodeView *view)
            : QWidget(view)
            , m_codeView(view)
        {
        }
        QSize sizeHint() const override { return {m_codeView->gutterWidth(), 0}; }

    protected:
        void paintEvent(QPaintEvent *event) override { m_codeView->paintGutter(event); }

    private:
        CodeView *m_codeView;
    };

    void updateGutterWidth() { setViewportMargins(gutterWidth(), 0, 0, 0); }

    void paintGutter(QPaintEvent *event)
    {
        QPainter painter(m_gutter);
        painter.fillRect(event->rect(),
            m_gutterBackground.isValid() ? m_gutterBackground : palette().color(QPalette::Window));
        painter.setPen(m_gutterNumbers.isValid() ? m_gutterNumbers
                                                 : palette().color(QPalette::PlaceholderText));
        painter.setFont(font());
        QTextBlock block = firstVisibleBlock();
        int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
        const int lineHeight = fontMetrics().height();
        while (block.isValid() && top <= event->rect().bottom()) {
            const int height = qRound(blockBoundingRect(block).height());
            if (block.isVisible() && top + height >= event->rect().top()) {
                painter.drawText(0, top, m_gutter->width() - 4, lineHeight, Qt::AlignRight,
                    QString::number(m_firstLineNumber + block.blockNumber()));
            }
            top += height;
            block = block.next();
        }
    }

    Gutter *m_gutter;
    int m_firstLineNumber = 1;
    QColor m_gutterBackground;
    QColor m_gutterNumbers;
};

PreviewText::PreviewText(QWidget *parent)
    : PreviewPage(parent)
    , m_view(new CodeView(this))
{
    m_view->setObjectName(QStringLiteral("previewTextView"));
    contentLayout()->addWidget(m_view, 1);
    applyTheme();
}

PreviewText::~PreviewText() = default;

void PreviewText::setText(
    const QString &fileName, const QString &mimeType, const QString &text, int firstLineNumber)
{
    clear();
    bool shortened = false;
    const QString shown = shortenLongLines(text, maxLineLength, &shortened);
    const qsizetype totalLines = shown.count(QLatin1Char('\n')) + 1;

    bool tooLongToHighlight = false;
    bool highlight = false;
#ifdef SANDSCOPE_HAVE_KSYNTAXHIGHLIGHTING
    auto definition = repository().definitionForFileName(fileName);
    if (!definition.isValid() && !mimeType.isEmpty())
        definition = repository().definitionForMimeType(mimeType);
    tooLongToHighlight = definition.isValid() && totalLines > maxHighlightedLines;
    highlight = definition.isValid() && !tooLongToHighlight;
    if (highlight) {
        if (!m_highlighter)
            m_highlighter = new KSyntaxHighlighting::SyntaxHighlighter(this);
        m_highlighter->setDefinition(definition);
        m_highlightingName = definition.name();
        applyTheme();
        // Attached to the still empty document and settled at once, the highlighter then
        // formats each chunk as it is inserted instead of the whole text in one go later.
        m_highlighter->setDocument(m_view->document());
        m_highlighter->rehighlight();
    }
#else
    Q_UNUSED(fileName)
    Q_UNUSED(mimeType)
    Q_UNUSED(totalLines)
#endif
    applyTheme();

    // The first chunk goes in at once, the rest from the event loop (appendNextChunk).
    m_chunkLines = highlight ? highlightedChunkLines : chunkLines;
    const qsizetype firstEnd
        = chunkEnd(shown, 0, highlight ? firstHighlightedChunkLines : chunkLines);
    if (firstEnd < shown.size()) {
        m_pending = shown;
        m_loadPosition = firstEnd;
    }
    m_view->setFirstLineNumber(firstLineNumber);
    m_view->setPlainText(firstEnd < shown.size() ? shown.left(firstEnd) : shown);

    if (shortened)
        m_notes << tr("Lines longer than %L1 characters are shortened.").arg(maxLineLength);
    if (tooLongToHighlight)
        m_notes
            << tr("Syntax highlighting is off for texts over %L1 lines.").arg(maxHighlightedLines);
    showNotes();
    if (isLoading())
        QTimer::singleShot(0, this, &PreviewText::appendNextChunk);
}

qsizetype PreviewText::chunkEnd(const QString &text, qsizetype from, int maxLines)
{
    // Up to maxLines lines or about chunkChars characters, ending after a line break.
    const qsizetype limit = std::min<qsizetype>(text.size(), from + chunkChars);
    qsizetype position = from;
    int lines = 0;
    while (lines < maxLines) {
        const qsizetype lineBreak = text.indexOf(QLatin1Char('\n'), position);
        if (lineBreak < 0 || lineBreak >= limit)
            break;
        position = lineBreak + 1;
        ++lines;
    }
    if (lines < maxLines && limit == text.size())
        return text.size(); // the rest fits
    return position > from ? position : limit;
}

void PreviewText::appendNextChunk()
{
    if (!isLoading())
        return;
    const qsizetype end = chunkEnd(m_pending, m_loadPosition, m_chunkLines);
    QTextCursor cursor(m_view->document());
    cursor.movePosition(QTextCursor::End);
    cursor.insertText(m_pending.mid(m_loadPosition, end - m_loadPosition));
    m_loadPosition = end;
    showNotes();
    if (isLoading()) {
        QTimer::singleShot(0, this, &PreviewText::appendNextChunk);
    } else {
        m_pending.clear();
        m_loadPosition = 0;
        Q_EMIT loadingFinished();
    }
}

void PreviewText::setWarning(const QString &warning)
{
    m_warning = warning;
    showNotes();
}

void PreviewText::showNotes()
{
    QStringList notes = m_notes;
    if (isLoading())
        notes.prepend(tr("Loading… %1%").arg(m_loadPosition * 100 / m_pending.size()));
    if (!m_warning.isEmpty())
        notes.prepend(m_warning);
    if (notes.isEmpty())
        clearMessage();
    else
        setMessage(
            notes.join(QLatin1Char(' ')), m_warning.isEmpty() ? Severity::Note : Severity::Warning);
}

void PreviewText::clear()
{
#ifdef SANDSCOPE_HAVE_KSYNTAXHIGHLIGHTING
    if (m_highlighter)
        m_highlighter->setDocument(nullptr);
#endif
    m_highlightingName.clear();
    m_pending.clear();
    m_loadPosition = 0;
    m_notes.clear();
    m_warning.clear();
    m_view->clear();
    clearMessage();
}

QPlainTextEdit *PreviewText::editor() const
{
    return m_view;
}

int PreviewText::lineCount() const
{
    return m_view->blockCount();
}

QString PreviewText::highlightingName() const
{
    return m_highlightingName;
}

void PreviewText::changeEvent(QEvent *event)
{
    PreviewPage::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyTheme();
}

void PreviewText::applyTheme()
{
    // The application palette tells light from dark; the theme only follows it.
    const QColor base = palette().color(QPalette::Base);
    m_dark = base.lightness() < 128;
#ifdef SANDSCOPE_HAVE_KSYNTAXHIGHLIGHTING
    if (!m_highlighter || m_highlightingName.isEmpty()) {
        m_view->setGutterColours(QColor(), QColor());
        return;
    }
    const auto theme
        = repository().defaultTheme(m_dark ? KSyntaxHighlighting::Repository::DarkTheme
                                           : KSyntaxHighlighting::Repository::LightTheme);
    if (m_highlighter->theme().name() != theme.name()) {
        m_highlighter->setTheme(theme);
        if (m_highlighter->document())
            m_highlighter->rehighlight();
    }
    using Theme = KSyntaxHighlighting::Theme;
    m_view->setGutterColours(QColor::fromRgb(theme.editorColor(Theme::IconBorder)),
        QColor::fromRgb(theme.editorColor(Theme::LineNumbers)));
#endif
}

} // namespace sandscope
