#pragma once
// Read-only text and code view with a line-number gutter. With KSyntaxHighlighting it highlights
// by file name (or MIME type) in a light or dark theme matching the palette. Nothing stalls the
// UI: a long text shows its first chunk at once and the rest is appended in slices from the
// event loop; highlighting (which runs over the whole document in one go) is skipped for texts
// over maxHighlightedLines; lines over maxLineLength are shortened for display, since one
// multi-megabyte line makes any text layout crawl.

#include "previews/previewpage.h"

class QPlainTextEdit;

namespace KSyntaxHighlighting {
class SyntaxHighlighter;
}

namespace sandscope {

class PreviewText : public PreviewPage {
    Q_OBJECT
public:
    static constexpr int maxHighlightedLines = 10000;
    static constexpr int maxLineLength = 10000;
    static constexpr int chunkLines = 5000;
    // Highlighted text goes in smaller chunks, since each is highlighted as it is inserted.
    static constexpr int firstHighlightedChunkLines = 1000;
    static constexpr int highlightedChunkLines = 2000;
    static constexpr int chunkChars = 512 * 1024;

    explicit PreviewText(QWidget *parent = nullptr);
    ~PreviewText() override;

    // firstLineNumber: what the gutter shows for the first line.
    void setText(const QString &fileName, const QString &mimeType, const QString &text,
        int firstLineNumber = 1);
    void clear();
    // A problem with the text itself (e.g. invalid UTF-8), shown above the notes until the
    // next setText().
    void setWarning(const QString &warning);

    QPlainTextEdit *editor() const;
    int lineCount() const; // lines in the view so far
    // True while the rest of a long text is still being appended.
    bool isLoading() const { return m_loadPosition < m_pending.size(); }
    // The syntax definition in use ("C++", "JSON", ...), empty when not highlighting.
    QString highlightingName() const;
    bool usesDarkTheme() const { return m_dark; }

Q_SIGNALS:
    void loadingFinished();

protected:
    void changeEvent(QEvent *event) override;

private:
    void applyTheme();
    static qsizetype chunkEnd(const QString &text, qsizetype from, int maxLines);
    void appendNextChunk();
    void showNotes();

    class CodeView;
    CodeView *m_view;
    KSyntaxHighlighting::SyntaxHighlighter *m_highlighter = nullptr;
    QString m_highlightingName;
    bool m_dark = false;
    QString m_pending; // the whole text while it is being appended
    qsizetype m_loadPosition = 0;
    int m_chunkLines = chunkLines;
    QStringList m_notes;
    QString m_warning;
};

} // namespace sandscope
