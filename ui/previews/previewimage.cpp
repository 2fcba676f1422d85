#include "previewimage.h"

#include "previews/hexdump.h"
#include "util/format.h"

#include <QBuffer>
#include <QHBoxLayout>
#include <QImageReader>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QScrollArea>
#include <QScrollBar>
#include <QSvgRenderer>
#include <QToolButton>
#include <QVBoxLayout>

namespace sandscope {

namespace {
constexpr double minZoom = 1.0 / 32;
constexpr double maxZoom = 32.0;

QString formatName(const QString &mimeType)
{
    const QString subtype = mimeType.section(QLatin1Char('/'), 1);
    return subtype.isEmpty() ? QStringLiteral("image") : subtype.toUpper();
}
} // namespace

PreviewImage::PreviewImage(QWidget *parent)
    : PreviewPage(parent)
    , m_fitButton(new QToolButton(this))
    , m_summary(new QLabel(this))
    , m_scroll(new QScrollArea(this))
    , m_canvas(new QLabel(this))
{
    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(4, 0, 4, 0);
    bar->addWidget(m_summary, 1);
    m_fitButton->setText(tr("Fit"));
    m_fitButton->setCheckable(true);
    m_fitButton->setChecked(true);
    m_fitButton->setObjectName(QStringLiteral("imageFit"));
    bar->addWidget(m_fitButton);
    const auto addButton = [&](const QString &text, const QString &name, auto slot) {
        auto *button = new QToolButton(this);
        button->setText(text);
        button->setObjectName(name);
        connect(button, &QToolButton::clicked, this, slot);
        bar->addWidget(button);
    };
    addButton(tr("−"), QStringLiteral("imageZoomOut"), &PreviewImage::zoomOut);
    addButton(tr("100%"), QStringLiteral("imageActualSize"), [this] { setZoom(1.0); });
    addButton(tr("+"), QStringLiteral("imageZoomIn"), &PreviewImage::zoomIn);
    contentLayout()->addLayout(bar);

    m_canvas->setAlignment(Qt::AlignCenter);
    m_scroll->setWidget(m_canvas);
    m_scroll->setWidgetResizable(true);
    m_scroll->setAlignment(Qt::AlignCenter);
    contentLayout()->addWidget(m_scroll, 1);

    connect(m_fitButton, &QToolButton::toggled, this, &PreviewImage::setFitToView);
    m_scroll->viewport()->installEventFilter(this);
}

PreviewImage::~PreviewImage() = default;

void PreviewImage::clear()
{
    m_image = QImage();
    delete m_svg;
    m_svg = nullptr;
    m_canvas->clear();
    m_shownSize = QSize();
    m_summary->clear();
    clearMessage();
}

void PreviewImage::showFailure(const QString &message)
{
    m_image = QImage();
    delete m_svg;
    m_svg = nullptr;
    m_canvas->clear();
    m_shownSize = QSize();
    setMessage(message, Severity::Error);
}

void PreviewImage::setImage(const QByteArray &bytes, const QString &mimeType, bool isPartial)
{
    clear();
    const QString format = formatName(mimeType);
    QBuffer buffer;
    buffer.setData(bytes);
    buffer.open(QIODevice::ReadOnly);
    QImageReader reader(&buffer);
    reader.setDecideFormatFromContent(true);
#if QT_VERSION >= QT_VERSION_CHECK(6, 0, 0)
    reader.setAllocationLimit(int(maxPixels * 4 / (1024 * 1024)));
#endif
    const QString partialHint = isPartial ? tr(" Only the first part of the file is loaded; "
                                               "Load all to decode the whole image.")
                                          : QString();
    if (!reader.canRead()) {
        const QByteArray subtype = mimeType.section(QLatin1Char('/'), 1).toLatin1();
        const bool known = QImageReader::supportedImageFormats().contains(subtype)
            || QImageReader::supportedMimeTypes().contains(mimeType.toLatin1());
        if (!known && mimeType.startsWith(QLatin1String("image/"))) {
            showFailure(tr("This Qt installation cannot decode %1 images (no image format "
                           "plugin for it). %2 file.")
                            .arg(format, format::byteSize(bytes.size())));
        } else {
            showFailure(
                tr("Not a readable %1 image: %2.").arg(format, reader.errorString()) + partialHint);
        }
        return;
    }
    // The header gives the size; refuse absurd dimensions before allocating pixel memory.
    const QSize size = reader.size();
    if (size.isValid() && qint64(size.width()) * size.height() > maxPixels) {
        showFailure(tr("The %1 image is too large to preview (%2 × %3 pixels).")
                        .arg(format)
                        .arg(size.width())
                        .arg(size.height()));
        return;
    }
    const int frames = reader.imageCount();
    QImage image;
    if (!reader.read(&image) || image.isNull()) {
        showFailure(tr("The %1 image could not be decoded: %2.").arg(format, reader.errorString())
            + partialHint);
        return;
    }
    m_image = image;
    QString summary = tr("%1, %2 × %3 pixels, %4")
                          .arg(format)
                          .arg(image.width())
                          .arg(image.height())
                          .arg(format::byteSize(bytes.size()));
    if (frames > 1)
        summary += tr(", first of %n frame(s)", nullptr, int(frames));
    m_summary->setText(summary);
    render();
}

void PreviewImage::setSvg(const QByteArray &bytes, bool isPartial)
{
    clear();
    auto *renderer = new QSvgRenderer(this);
    if (!renderer->load(bytes) || !renderer->isValid() || renderer->defaultSize().isEmpty()) {
        delete renderer;
        showFailure(isPartial ? tr("Only the first part of this SVG is loaded; Load all to "
                                   "render it.")
                              : tr("Not a valid SVG image."));
        return;
    }
    m_svg = renderer;
    const QSize size = renderer->defaultSize();
    m_summary->setText(tr("SVG, %1 × %2, %3")
                           .arg(size.width())
                           .arg(size.height())
                           .arg(format::byteSize(bytes.size())));
    render();
}

QSize PreviewImage::imageSize() const
{
    if (m_svg)
        return m_svg->defaultSize();
    return m_image.size();
}

QString PreviewImage::summary() const
{
    return m_summary->text();
}

void PreviewImage::setFitToView(bool fit)
{
    m_fit = fit;
    const QSignalBlocker blocker(m_fitButton);
    m_fitButton->setChecked(fit);
    render();
}

void PreviewImage::setZoom(double zoom)
{
    m_zoom = std::clamp(zoom, minZoom, maxZoom);
    setFitToView(false);
}

void PreviewImage::zoomIn()
{
    setZoom(effectiveZoom() * 1.25);
}

void PreviewImage::zoomOut()
{
    setZoom(effectiveZoom() / 1.25);
}

double PreviewImage::effectiveZoom() const
{
    const QSize natural = imageSize();
    if (!m_fit || natural.isEmpty())
        return m_zoom;
    const QSize available = m_scroll->viewport()->size() - QSize(4, 4);
    const double scale = std::min(
        double(available.width()) / natural.width(), double(available.height()) / natural.height());
    return std::clamp(std::min(scale, 1.0), minZoom, maxZoom); // fit never enlarges
}

void PreviewImage::resizeEvent(QResizeEvent *event)
{
    PreviewPage::resizeEvent(event);
    if (m_fit)
        render();
}

// The scroll area's viewport gets its size after the page's first layout: fitting to the size
// it had when the picture arrived drew the first picture at a fraction of the room it has.
bool PreviewImage::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_scroll->viewport() && event->type() == QEvent::Resize && m_fit)
        render();
    return PreviewPage::eventFilter(watched, event);
}

void PreviewImage::render()
{
    if (!hasImage())
        return;
    const double zoom = effectiveZoom();
    QSize target = imageSize() * zoom;
    target = target.expandedTo(QSize(1, 1));
    // Bounded so that a big zoom on a big picture cannot allocate gigabytes.
    if (target.width() > maxRenderSide || target.height() > maxRenderSide)
        target.scale(maxRenderSide, maxRenderSide, Qt::KeepAspectRatio);
    QPixmap shown;
    if (m_svg) {
        QImage canvas(target, QImage::Format_ARGB32_Premultiplied);
        canvas.fill(Qt::transparent);
        QPainter painter(&canvas);
        m_svg->render(&painter);
        painter.end();
        shown = QPixmap::fromImage(canvas);
    } else if (target == m_image.size()) {
        shown = QPixmap::fromImage(m_image);
    } else {
        const auto mode = zoom < 1.0 ? Qt::SmoothTransformation : Qt::FastTransformation;
        shown = QPixmap::fromImage(m_image.scaled(target, Qt::KeepAspectRatio, mode));
    }
    m_shownSize = shown.size();
    m_canvas->setPixmap(shown);
}

} // namespace sandscope
