#include "messagebar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

namespace sandscope {

MessageBar::MessageBar(QWidget *parent)
    : QFrame(parent)
    , m_icon(new QLabel(this))
    , m_text(new QLabel(this))
    , m_close(new QToolButton(this))
{
    setObjectName(QStringLiteral("messageBar"));
    m_text->setObjectName(QStringLiteral("messageText"));
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_text->setTextFormat(Qt::PlainText);
    m_close->setObjectName(QStringLiteral("messageClose"));
    m_close->setAutoRaise(true);
    m_close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    m_close->setToolTip(tr("Dismiss"));

    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(10, 4, 4, 4);
    layout->addWidget(m_icon, 0, Qt::AlignTop);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_close, 0, Qt::AlignTop);

    connect(m_close, &QToolButton::clicked, this, &MessageBar::dismiss);
    hide();
}

void MessageBar::showMessage(const QString &text, Level level)
{
    m_level = level;
    m_text->setText(text);

    QStyle::StandardPixmap icon = QStyle::SP_MessageBoxInformation;
    QString background = QStringLiteral("#e3f2fd");
    QString border = QStringLiteral("#64b5f6");
    switch (level) {
    case Level::Information:
        break;
    case Level::Warning:
        icon = QStyle::SP_MessageBoxWarning;
        background = QStringLiteral("#fff8e1");
        border = QStringLiteral("#ffb300");
        break;
    case Level::Error:
        icon = QStyle::SP_MessageBoxCritical;
        background = QStringLiteral("#fdecea");
        border = QStringLiteral("#e53935");
        break;
    }
    const int size = style()->pixelMetric(QStyle::PM_SmallIconSize);
    m_icon->setPixmap(style()->standardIcon(icon).pixmap(size, size));
    // Fixed light colours with dark text, readable under light and dark palettes alike.
    setStyleSheet(QStringLiteral("QFrame#messageBar { background: %1; border: 1px solid %2; "
                                 "border-radius: 3px; } QFrame#messageBar QLabel { color: #202124; "
                                 "background: transparent; }")
                      .arg(background, border));
    show();
}

void MessageBar::dismiss()
{
    if (isHidden())
        return;
    hide();
    Q_EMIT dismissed();
}

QString MessageBar::text() const
{
    return isHidden() ? QString() : m_text->text();
}

} // namespace sandscope
