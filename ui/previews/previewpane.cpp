#include "previewpane.h"

#include "previews/csvparser.h"
#include "previews/hexdump.h"
#include "previews/previewcsv.h"
#include "previews/previewhex.h"
#include "previews/previewimage.h"
#include "previews/previewjson.h"
#include "previews/previewmarkdown.h"
#include "previews/previewpdf.h"
#include "previews/previewtext.h"
#include "util/format.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace sandscope {

namespace {
// Enough of the start of a file for MIME magic and the stream-json check.
constexpr qsizetype sniffBytes = 64 * 1024;
} // namespace

PreviewPane::PreviewPane(QWidget *parent)
    : QWidget(parent)
    , m_status(new QLabel(this))
    , m_openRun(new QPushButton(tr("Open as run"), this))
    , m_loadAll(new QPushButton(tr("Load all"), this))
    , m_stack(new QStackedWidget(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 0);
    m_status->setObjectName(QStringLiteral("previewStatus"));
    m_status->setTextFormat(Qt::PlainText);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setMinimumWidth(1); // long names must not widen the pane
    bar->addWidget(m_status, 1);
    m_openRun->setObjectName(QStringLiteral("previewOpenRun"));
    m_openRun->setToolTip(tr("This is a Claude stream-json log; open it in the run view"));
    m_loadAll->setObjectName(QStringLiteral("previewLoadAll"));
    m_loadAll->setToolTip(tr("Only the first part of the file is shown; fetch all of it"));
    bar->addWidget(m_openRun);
    bar->addWidget(m_loadAll);
    layout->addLayout(bar);
    layout->addWidget(m_stack, 1);
    m_openRun->hide();
    m_loadAll->hide();
    connect(m_loadAll, &QPushButton::clicked, this, &PreviewPane::loadAllRequested);
    connect(m_openRun, &QPushButton::clicked, this, &PreviewPane::openRunRequested);
    clear();
}

template <typename Page> Page *PreviewPane::page(Page *&slot)
{
    if (!slot) {
        slot = new Page(m_stack);
        m_stack->addWidget(slot);
    }
    return slot;
}

PreviewText *PreviewPane::textPage()
{
    return page(m_text);
}
PreviewMarkdown *PreviewPane::markdownPage()
{
    return page(m_markdown);
}
PreviewJson *PreviewPane::jsonPage()
{
    return page(m_json);
}
PreviewCsv *PreviewPane::csvPage()
{
    return page(m_csv);
}
PreviewImage *PreviewPane::imagePage()
{
    return page(m_image);
}
PreviewPdf *PreviewPane::pdfPage()
{
    return page(m_pdf);
}
PreviewHex *PreviewPane::hexPage()
{
    return page(m_hex);
}
PreviewPage *PreviewPane::messagePage()
{
    return page(m_message);
}

void PreviewPane::clear()
{
    m_kind = PreviewKind::Binary;
    m_mimeType.clear();
    setStatus(QString(), false);
    messagePage()->clearMessage();
    m_stack->setCurrentWidget(m_message);
}

void PreviewPane::showError(const QString &message)
{
    m_kind = PreviewKind::Binary;
    m_mimeType.clear();
    setStatus(QString(), false);
    messagePage()->setMessage(message, PreviewPage::Severity::Error);
    m_stack->setCurrentWidget(m_message);
}

void PreviewPane::showContent(
    const QString &fileName, const QByteArray &bytes, qint64 totalSize, bool isPartial)
{
    const qint64 size = std::max<qint64>(totalSize, bytes.size());
    const PreviewChoice choice = choosePreview(fileName, bytes.left(sniffBytes));
    QString status = QStringLiteral("%1 · %2").arg(choice.mimeType, format::byteSize(size));
    if (isPartial)
        status += tr(" · first %1 loaded").arg(format::byteSize(bytes.size()));

    switch (choice.kind) {
    case PreviewKind::Image:
        imagePage()->setImage(bytes, choice.mimeType, isPartial);
        showPage(m_image, choice.kind, choice.mimeType);
        break;
    case PreviewKind::Svg:
        imagePage()->setSvg(bytes, isPartial);
        showPage(m_image, choice.kind, choice.mimeType);
        break;
    case PreviewKind::Pdf:
        pdfPage()->setPdf(bytes, isPartial);
        showPage(m_pdf, choice.kind, choice.mimeType);
        break;
    case PreviewKind::Json:
        jsonPage()->setJson(fileName, bytes, isPartial);
        showPage(m_json, choice.kind, choice.mimeType);
        break;
    case PreviewKind::Binary:
        hexPage()->setBytes(bytes, size, choice.mimeType);
        showPage(m_hex, choice.kind, choice.mimeType);
        // The hex dump shows a prefix anyway; loading a 2 GB file whole would not help.
        setStatus(status, false);
        return;
    case PreviewKind::Text:
    case PreviewKind::Markdown:
    case PreviewKind::Csv:
    case PreviewKind::Tsv:
    case PreviewKind::RunStream: {
        const bool capped = bytes.size() > maxTextBytes;
        const QByteArray slice = capped ? bytes.left(maxTextBytes) : bytes;
        const bool prefix = isPartial || capped;
        const qsizetype invalidAt = firstInvalidUtf8Offset(slice, prefix);
        const qsizetype decoded = prefix ? completeUtf8Length(slice) : slice.size();
        const QString text = QString::fromUtf8(slice.constData(), int(decoded));
        if (capped)
            status += tr(" · showing the first %1").arg(format::byteSize(maxTextBytes));
        showDecodedText(fileName, choice, text, prefix);
        if (invalidAt >= 0) {
            const QString warning = tr("Not valid UTF-8 (first invalid byte at offset %L1); "
                                       "undecodable bytes show as \uFFFD.")
                                        .arg(invalidAt);
            if (m_stack->currentWidget() == m_text) {
                m_text->setWarning(warning);
            } else {
                auto *shown = static_cast<PreviewPage *>(m_stack->currentWidget());
                const QString earlier = shown->messageText();
                shown->setMessage(
                    earlier.isEmpty() ? warning : warning + QLatin1Char(' ') + earlier,
                    PreviewPage::Severity::Warning);
            }
        }
        break;
    }
    }
    setStatus(status, isPartial);
}

void PreviewPane::showText(
    const QString &fileName, const QString &text, qint64 totalLines, bool isPartial)
{
    const PreviewChoice choice = choosePreviewForText(fileName, text);
    qint64 shownLines = text.count(QLatin1Char('\n'));
    if (!text.isEmpty() && !text.endsWith(QLatin1Char('\n')))
        ++shownLines;
    QString status = choice.mimeType;
    if (isPartial)
        status += tr(" · lines 1–%L1 of %L2").arg(shownLines).arg(totalLines);
    else
        status += tr(" · %L1 lines").arg(std::max(totalLines, shownLines));

    if (choice.kind == PreviewKind::Svg) {
        imagePage()->setSvg(text.toUtf8(), isPartial);
        showPage(m_image, choice.kind, choice.mimeType);
    } else if (choice.kind == PreviewKind::Json) {
        jsonPage()->setJson(fileName, text.toUtf8(), isPartial);
        showPage(m_json, choice.kind, choice.mimeType);
    } else {
        showDecodedText(fileName, choice, text, isPartial);
    }
    setStatus(status, isPartial);
}

void PreviewPane::showDecodedText(
    const QString &fileName, const PreviewChoice &choice, const QString &text, bool isPartial)
{
    switch (choice.kind) {
    case PreviewKind::Markdown:
        markdownPage()->setMarkdown(fileName, text);
        showPage(m_markdown, choice.kind, choice.mimeType);
        return;
    case PreviewKind::Csv:
    case PreviewKind::Tsv: {
        const QChar separator = choice.kind == PreviewKind::Tsv
            ? QLatin1Char('\t')
            : CsvParser::guessSeparator(fileName, QStringView(text).left(4096));
        csvPage()->setCsv(text, separator, isPartial);
        showPage(m_csv, choice.kind, choice.mimeType);
        return;
    }
    default:
        // RunStream logs are JSON lines: highlight them as JSON whatever their name.
        textPage()->setText(
            choice.kind == PreviewKind::RunStream ? QStringLiteral("stream.json") : fileName,
            choice.mimeType, text);
        showPage(m_text, choice.kind, choice.mimeType);
        return;
    }
}

void PreviewPane::showPage(QWidget *page, PreviewKind kind, const QString &mimeType)
{
    m_kind = kind;
    m_mimeType = mimeType;
    m_stack->setCurrentWidget(page);
}

void PreviewPane::setStatus(const QString &text, bool partial)
{
    m_status->setText(text);
    m_loadAll->setVisible(partial);
    m_openRun->setVisible(m_kind == PreviewKind::RunStream && !text.isEmpty());
}

QWidget *PreviewPane::currentPage() const
{
    return m_stack->currentWidget();
}

QString PreviewPane::statusText() const
{
    return m_status->text();
}

QString PreviewPane::errorText() const
{
    const auto *shown = qobject_cast<const PreviewPage *>(m_stack->currentWidget());
    return shown ? shown->errorText() : QString();
}

QString PreviewPane::messageText() const
{
    const auto *shown = qobject_cast<const PreviewPage *>(m_stack->currentWidget());
    return shown ? shown->messageText() : QString();
}

bool PreviewPane::offersLoadAll() const
{
    return !m_loadAll->isHidden();
}

bool PreviewPane::offersOpenRun() const
{
    return !m_openRun->isHidden();
}

} // namespace sandscope
