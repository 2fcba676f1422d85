#include "previewpage.h"

#include <QLabel>
#include <QVBoxLayout>

namespace sandscope {

PreviewPage::PreviewPage(QWidget *parent)
    : QWidget(parent)
    , m_layout(new QVBoxLayout(this))
    , m_message(new QLabel(this))
{
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setSpacing(2);
    m_message->setObjectName(QStringLiteral("previewMessage"));
    m_message->setWordWrap(true);
    m_message->setTextFormat(Qt::PlainText);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setMargin(6);
    m_message->setAutoFillBackground(true);
    m_message->hide();
    m_layout->addWidget(m_message);
}

void PreviewPage::setMessage(const QString &text, Severity severity)
{
    m_severity = severity;
    m_message->setText(text);
    // Tinted backgrounds that stay readable in light and dark palettes.
    QPalette palette = this->palette();
    const QColor base = palette.color(QPalette::Window);
    QColor tint;
    switch (severity) {
    case Severity::Note:
        tint = palette.color(QPalette::AlternateBase);
        break;
    case Severity::Warning:
        tint = QColor(230, 160, 0);
        break;
    case Severity::Error:
        tint = QColor(210, 40, 40);
        break;
    }
    const auto mix = [](int a, int b) {
        return (a * 3 + b) / 4;
    };
    const QColor background = severity == Severity::Note
        ? tint
        : QColor(mix(base.red(), tint.red()), mix(base.green(), tint.green()),
            mix(base.blue(), tint.blue()));
    palette.setColor(QPalette::Window, background);
    m_message->setPalette(palette);
    m_message->setVisible(!text.isEmpty());
}

void PreviewPage::clearMessage()
{
    m_message->clear();
    m_message->hide();
    m_severity = Severity::Note;
}

QString PreviewPage::messageText() const
{
    return m_message->text();
}

QString PreviewPage::errorText() const
{
    return m_severity == Severity::Error ? m_message->text() : QString();
}

} // namespace sandscope
