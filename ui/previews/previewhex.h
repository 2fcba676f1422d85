#pragma once
// Anything without a better preview: size and type, and a hex dump of the first maxDumpedBytes
// (a 2 GB file is never dumped whole; the caller passes only a prefix anyway).

#include "previews/previewpage.h"

class QLabel;
class QPlainTextEdit;

namespace sandscope {

class PreviewHex : public PreviewPage {
    Q_OBJECT
public:
    static constexpr int maxDumpedBytes = 256 * 1024;

    explicit PreviewHex(QWidget *parent = nullptr);

    // totalSize: size of the whole file (may exceed bytes.size()); -1 if unknown.
    void setBytes(const QByteArray &bytes, qint64 totalSize, const QString &mimeType);

    QString summary() const;
    QPlainTextEdit *dumpView() const { return m_dump; }

private:
    QLabel *m_summary;
    QPlainTextEdit *m_dump;
};

} // namespace sandscope
