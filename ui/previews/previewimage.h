#pragma once
// Raster images (PNG, JPEG, GIF, WebP when Qt has the plugin, ...) and SVG, fitted to the view or
// zoomed. Decoding is bounded: images whose header promises more than maxPixels are refused
// before any pixel memory is allocated, and unreadable data shows a message naming the format.

#include "previews/previewpage.h"

#include <QImage>

class QLabel;
class QScrollArea;
class QSvgRenderer;
class QToolButton;

namespace sandscope {

class PreviewImage : public PreviewPage {
    Q_OBJECT
public:
    static constexpr qint64 maxPixels = 100'000'000; // 400 MB as 32-bit RGBA
    static constexpr int maxRenderSide = 8192;

    explicit PreviewImage(QWidget *parent = nullptr);
    ~PreviewImage() override;

    // mimeType names the expected format ("image/png"), for messages.
    void setImage(const QByteArray &bytes, const QString &mimeType, bool isPartial);
    void setSvg(const QByteArray &bytes, bool isPartial);
    void clear();

    bool hasImage() const { return !m_image.isNull() || m_svg; }
    QSize imageSize() const; // natural size of the picture
    QSize shownSize() const { return m_shownSize; } // as currently drawn, after fit or zoom
    QString summary() const;

    bool fitsToView() const { return m_fit; }
    double zoom() const { return m_zoom; }

public Q_SLOTS:
    void setFitToView(bool fit);
    void setZoom(double zoom);
    void zoomIn();
    void zoomOut();

protected:
    void resizeEvent(QResizeEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void render();
    double effectiveZoom() const;
    void showFailure(const QString &message);

    QToolButton *m_fitButton;
    QLabel *m_summary;
    QScrollArea *m_scroll;
    QLabel *m_canvas;
    QImage m_image;
    QSvgRenderer *m_svg = nullptr;
    QSize m_shownSize;
    bool m_fit = true;
    double m_zoom = 1.0;
};

} // namespace sandscope
