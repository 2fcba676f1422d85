#pragma once
// Markdown rendered with QTextDocument::setMarkdown, and a toggle to the highlighted source.
// Rendering never fetches anything: images and links in the document are not loaded. Texts over
// maxRenderedBytes open as source, since the Markdown parser runs on the UI thread.

#include "previews/previewpage.h"

class QStackedWidget;
class QTextBrowser;
class QToolButton;

namespace sandscope {

class PreviewText;

class PreviewMarkdown : public PreviewPage {
    Q_OBJECT
public:
    static constexpr int maxRenderedChars = 512 * 1024;

    explicit PreviewMarkdown(QWidget *parent = nullptr);

    void setMarkdown(const QString &fileName, const QString &markdown);
    void setShowSource(bool source);
    bool showsSource() const;

    QTextBrowser *renderedView() const { return m_rendered; }
    PreviewText *sourceView() const { return m_source; }

private:
    QToolButton *m_sourceToggle;
    QStackedWidget *m_stack;
    QTextBrowser *m_rendered;
    PreviewText *m_source;
};

} // namespace sandscope
