#include "previewpdf.h"

#include "previews/hexdump.h"

#include <QBuffer>
#include <QHBoxLayout>
#include <QLabel>
#include <QMetaEnum>
#include <QPdfDocument>
#include <QPdfView>
#include <QToolButton>
#include <QVBoxLayout>

#if QT_VERSION >= QT_VERSION_CHECK(6, 0, 0)
#include <QPdfPageNavigator>
#else
#include <QPdfPageNavigation>
#endif

namespace sandscope {

// Qt 5's QtPdf has QPdfPageNavigation and ZoomMode::CustomZoom; Qt 6.4 has QPdfPageNavigator and
// ZoomMode::Custom. These helpers are the only places that differ.
namespace {

int navigatorPage(QPdfView *view)
{
#if QT_VERSION >= QT_VERSION_CHECK(6, 0, 0)
    return view->pageNavigator()->currentPage();
#else
    return view->pageNavigation()->currentPage();
#endif
}

void navigatorJump(QPdfView *view, int page)
{
#if QT_VERSION >= QT_VERSION_CHECK(6, 0, 0)
    view->pageNavigator()->jump(page, QPointF(), view->zoomFactor());
#else
    view->pageNavigation()->setCurrentPage(page);
#endif
}

void connectPageChanged(QPdfView *view, QObject *context, const std::function<void()> &slot)
{
#if QT_VERSION >= QT_VERSION_CHECK(6, 0, 0)
    QObject::connect(view->pageNavigator(), &QPdfPageNavigator::currentPageChanged, context, slot);
#else
    QObject::connect(
        view->pageNavigation(), &QPdfPageNavigation::currentPageChanged, context, slot);
#endif
}

constexpr auto customZoom =
#if QT_VERSION >= QT_VERSION_CHECK(6, 0, 0)
    QPdfView::ZoomMode::Custom;
#else
    QPdfView::CustomZoom;
#endif

} // namespace

PreviewPdf::PreviewPdf(QWidget *parent)
    : PreviewPage(parent)
    , m_previous(new QToolButton(this))
    , m_next(new QToolButton(this))
    , m_pageLabel(new QLabel(this))
    , m_view(new QPdfView(this))
    , m_document(new QPdfDocument(this))
    , m_buffer(new QBuffer(this))
{
    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(4, 0, 4, 0);
    m_previous->setText(tr("◀"));
    m_previous->setToolTip(tr("Previous page"));
    m_next->setText(tr("▶"));
    m_next->setToolTip(tr("Next page"));
    bar->addWidget(m_previous);
    bar->addWidget(m_pageLabel);
    bar->addWidget(m_next);
    bar->addStretch(1);
    const auto addButton = [&](const QString &text, auto slot) {
        auto *button = new QToolButton(this);
        button->setText(text);
        connect(button, &QToolButton::clicked, this, slot);
        bar->addWidget(button);
    };
    addButton(tr("−"), &PreviewPdf::zoomOut);
    addButton(tr("Fit width"), &PreviewPdf::fitWidth);
    addButton(tr("+"), &PreviewPdf::zoomIn);
    contentLayout()->addLayout(bar);

    m_view->setPageMode(QPdfView::PageMode::MultiPage);
    m_view->setZoomMode(QPdfView::ZoomMode::FitToWidth);
    contentLayout()->addWidget(m_view, 1);

    connect(m_previous, &QToolButton::clicked, this, [this] { goToPage(currentPage() - 1); });
    connect(m_next, &QToolButton::clicked, this, [this] { goToPage(currentPage() + 1); });
    connect(m_document, &QPdfDocument::statusChanged, this, [this] { onStatusChanged(); });
    connectPageChanged(m_view, this, [this] { updatePageLabel(); });
    updatePageLabel();
}

PreviewPdf::~PreviewPdf()
{
    // The document reads from the buffer until it is closed.
    m_view->setDocument(nullptr);
    m_document->close();
}

void PreviewPdf::clear()
{
    m_view->setDocument(nullptr);
    m_document->close();
    m_buffer->close();
    m_buffer->setData(QByteArray());
    clearMessage();
    updatePageLabel();
}

void PreviewPdf::setPdf(const QByteArray &bytes, bool isPartial)
{
    clear();
    m_isPartial = isPartial;
    m_buffer->setData(bytes);
    m_buffer->open(QIODevice::ReadOnly);
    m_view->setDocument(m_document);
    m_document->load(m_buffer); // may finish at once or report through statusChanged
    onStatusChanged();
}

void PreviewPdf::onStatusChanged()
{
    const auto status = m_document->status();
    if (status == QPdfDocument::Status::Error) {
        const auto error = m_document->error();
        const QMetaEnum meta = QMetaEnum::fromType<decltype(error)>();
        const QString reason = QString::fromLatin1(meta.valueToKey(int(error)));
        QString text = reason.contains(QLatin1String("Password"))
            ? tr("This PDF is password-protected and cannot be previewed.")
            : tr("This PDF could not be opened (%1); the file may be corrupt.").arg(reason);
        if (m_isPartial)
            text += tr(" Only the first part of the file is loaded; Load all to open it.");
        m_view->setDocument(nullptr);
        setMessage(text, Severity::Error);
    }
    updatePageLabel();
}

QString PreviewPdf::pageText() const
{
    return m_pageLabel->text();
}

bool PreviewPdf::isLoaded() const
{
    return m_document->status() == QPdfDocument::Status::Ready;
}

int PreviewPdf::pageCount() const
{
    return isLoaded() ? m_document->pageCount() : 0;
}

int PreviewPdf::currentPage() const
{
    return isLoaded() ? navigatorPage(m_view) : 0;
}

void PreviewPdf::goToPage(int page)
{
    if (!isLoaded() || page < 0 || page >= pageCount())
        return;
    navigatorJump(m_view, page);
    updatePageLabel();
}

void PreviewPdf::updatePageLabel()
{
    const int count = pageCount();
    m_pageLabel->setText(
        count > 0 ? tr("Page %1 of %2").arg(currentPage() + 1).arg(count) : QString());
    m_previous->setEnabled(count > 0 && currentPage() > 0);
    m_next->setEnabled(count > 0 && currentPage() + 1 < count);
}

void PreviewPdf::setZoomFactor(double factor)
{
    m_view->setZoomMode(customZoom);
    m_view->setZoomFactor(std::clamp(factor, 0.1, 8.0));
}

void PreviewPdf::zoomIn()
{
    setZoomFactor(m_view->zoomFactor() * 1.25);
}

void PreviewPdf::zoomOut()
{
    setZoomFactor(m_view->zoomFactor() / 1.25);
}

void PreviewPdf::fitWidth()
{
    m_view->setZoomMode(QPdfView::ZoomMode::FitToWidth);
}

} // namespace sandscope
