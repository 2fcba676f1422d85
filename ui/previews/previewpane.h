#pragma once
// The file browser's preview: picks a page by MIME type (name and content) and shows a status
// line with type and size. For a partial file (only its first part was fetched) it offers
// "Load all"; for a Claude stream-json log it offers to open it in the run view. Input of any
// size or quality shows something or a clear message; nothing here blocks for long.

#include "previews/previewkind.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QStackedWidget;

namespace sandscope {

class PreviewCsv;
class PreviewHex;
class PreviewImage;
class PreviewJson;
class PreviewMarkdown;
class PreviewPage;
class PreviewPdf;
class PreviewText;

class PreviewPane : public QWidget {
    Q_OBJECT
public:
    // Text beyond this is not decoded for display; the status line says so.
    static constexpr qsizetype maxTextBytes = 64 * 1024 * 1024;

    explicit PreviewPane(QWidget *parent = nullptr);

    // Raw bytes (GET /files/view, or the raw image answer of /files/read). totalSize is the size
    // of the whole file; isPartial says `bytes` is only its beginning.
    void showContent(
        const QString &fileName, const QByteArray &bytes, qint64 totalSize, bool isPartial);
    // Decoded text from GET /files/read. isPartial: `text` holds the first lines only.
    void showText(const QString &fileName, const QString &text, qint64 totalLines, bool isPartial);
    void showError(const QString &message);
    void clear();

    PreviewKind kind() const { return m_kind; }
    QString mimeType() const { return m_mimeType; }
    QWidget *currentPage() const;
    QString statusText() const;
    // The current page's error message, or the one given to showError(); empty if none.
    QString errorText() const;
    // Any message the current page shows (note, warning or error).
    QString messageText() const;
    bool offersLoadAll() const;
    bool offersOpenRun() const;

    PreviewText *textPage();
    PreviewMarkdown *markdownPage();
    PreviewJson *jsonPage();
    PreviewCsv *csvPage();
    PreviewImage *imagePage();
    PreviewPdf *pdfPage();
    PreviewHex *hexPage();
    PreviewPage *messagePage();

Q_SIGNALS:
    void loadAllRequested();
    // The shown file is a Claude stream-json log; the user wants it in the run view.
    void openRunRequested();

private:
    template <typename Page> Page *page(Page *&slot);
    void showPage(QWidget *page, PreviewKind kind, const QString &mimeType);
    void showDecodedText(
        const QString &fileName, const PreviewChoice &choice, const QString &text, bool isPartial);
    void setStatus(const QString &text, bool partial);

    QLabel *m_status;
    QPushButton *m_openRun;
    QPushButton *m_loadAll;
    QStackedWidget *m_stack;
    PreviewText *m_text = nullptr;
    PreviewMarkdown *m_markdown = nullptr;
    PreviewJson *m_json = nullptr;
    PreviewCsv *m_csv = nullptr;
    PreviewImage *m_image = nullptr;
    PreviewPdf *m_pdf = nullptr;
    PreviewHex *m_hex = nullptr;
    PreviewPage *m_message = nullptr;
    PreviewKind m_kind = PreviewKind::Binary;
    QString m_mimeType;
};

} // namespace sandscope
