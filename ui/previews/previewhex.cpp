#include "previewhex.h"

#include "monospacefont.h"
#include "previews/hexdump.h"
#include "util/format.h"

#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QVBoxLayout>

namespace sandscope {

PreviewHex::PreviewHex(QWidget *parent)
    : PreviewPage(parent)
    , m_summary(new QLabel(this))
    , m_dump(new QPlainTextEdit(this))
{
    m_summary->setObjectName(QStringLiteral("hexSummary"));
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setMargin(4);
    m_dump->setReadOnly(true);
    m_dump->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_dump->setFont(monospaceFont());
    m_dump->setObjectName(QStringLiteral("hexDump"));
    contentLayout()->addWidget(m_summary);
    contentLayout()->addWidget(m_dump, 1);
}

void PreviewHex::setBytes(const QByteArray &bytes, qint64 totalSize, const QString &mimeType)
{
    clearMessage();
    const qint64 size = totalSize >= 0 ? totalSize : bytes.size();
    const qsizetype dumped = std::min<qsizetype>(bytes.size(), maxDumpedBytes);
    QString summary = tr("%1 (%L2 bytes), %3").arg(format::byteSize(size)).arg(size).arg(mimeType);
    if (dumped < size)
        summary += tr(" — showing the first %1").arg(format::byteSize(dumped));
    m_summary->setText(summary);
    m_dump->setPlainText(hexDump(bytes, 0, dumped));
}

QString PreviewHex::summary() const
{
    return m_summary->text();
}

} // namespace sandscope
