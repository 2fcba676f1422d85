#pragma once
// PDF pages with QtPdf: page navigation and zoom (fit width, or a zoom factor). A file QtPdf
// cannot open (corrupt, truncated, password-protected) shows a message instead.

#include "previews/previewpage.h"

#include <QByteArray>

class QBuffer;
class QLabel;
class QPdfDocument;
class QPdfView;
class QToolButton;

namespace sandscope {

class PreviewPdf : public PreviewPage {
    Q_OBJECT
public:
    explicit PreviewPdf(QWidget *parent = nullptr);
    ~PreviewPdf() override;

    void setPdf(const QByteArray &bytes, bool isPartial);
    void clear();

    int pageCount() const;
    int currentPage() const; // 0-based
    bool isLoaded() const;
    QString pageText() const;
    QPdfView *view() const { return m_view; }

public Q_SLOTS:
    void goToPage(int page);
    void zoomIn();
    void zoomOut();
    void fitWidth();

private:
    void onStatusChanged();
    void updatePageLabel();
    void setZoomFactor(double factor);

    QToolButton *m_previous;
    QToolButton *m_next;
    QLabel *m_pageLabel;
    QPdfView *m_view;
    QPdfDocument *m_document;
    QBuffer *m_buffer;
    bool m_isPartial = false;
};

} // namespace sandscope
