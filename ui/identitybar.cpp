#include "identitybar.h"

#include <QCryptographicHash>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QStyle>

namespace sandscope {

namespace {

// Hues that look like the warning red are never used for a user.
constexpr int firstUserHue = 35;
constexpr int userHueRange = 290; // 35..324

QColor textColourOn(const QColor &background)
{
    // Relative luminance decides between dark and light text.
    const double luminance
        = 0.2126 * background.redF() + 0.7152 * background.greenF() + 0.0722 * background.blueF();
    return luminance > 0.55 ? QColor(0x1a, 0x1a, 0x1a) : QColor(Qt::white);
}

} // namespace

IdentityBar::IdentityBar(QWidget *parent)
    : QFrame(parent)
    , m_icon(new QLabel(this))
    , m_label(new QLabel(this))
    , m_note(new QLabel(this))
    , m_profile(new QLabel(this))
    , m_switchButton(new QPushButton(tr("Switch user…"), this))
{
    setObjectName(QStringLiteral("identityBar"));
    m_label->setObjectName(QStringLiteral("identityText"));
    m_note->setObjectName(QStringLiteral("identityNote"));
    m_profile->setObjectName(QStringLiteral("identityProfile"));
    m_switchButton->setObjectName(QStringLiteral("switchUserButton"));
    m_switchButton->setToolTip(tr("Choose the user id requests are sent as (Ctrl+K)"));
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);

    QFont bold = m_label->font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() * 1.1);
    m_label->setFont(bold);

    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(10, 6, 10, 6);
    layout->setSpacing(10);
    layout->addWidget(m_icon);
    layout->addWidget(m_label);
    layout->addWidget(m_note, 1);
    layout->addWidget(m_profile);
    layout->addWidget(m_switchButton);

    connect(m_switchButton, &QPushButton::clicked, this, &IdentityBar::switchUserRequested);
    refresh();
}

void IdentityBar::setIdentity(const QString &userId, const QString &account)
{
    m_userId = userId;
    m_account = account;
    refresh();
}

void IdentityBar::setAccount(const QString &account)
{
    m_account = account;
    refresh();
}

void IdentityBar::setProfileName(const QString &profile)
{
    m_profileName = profile;
    refresh();
}

void IdentityBar::setNote(const QString &note)
{
    m_noteText = note;
    refresh();
}

void IdentityBar::setConnected(bool connected)
{
    m_connected = connected;
    refresh();
}

bool IdentityBar::showsWarning() const
{
    return m_connected && isServerAccount();
}

QColor IdentityBar::colourForUser(const QString &userId)
{
    const QByteArray digest = QCryptographicHash::hash(userId.toUtf8(), QCryptographicHash::Sha256);
    const int bits = (static_cast<unsigned char>(digest.at(0)) << 8)
        | static_cast<unsigned char>(digest.at(1));
    const int hue = firstUserHue + bits % userHueRange;
    // Three lightness steps keep neighbouring hues apart.
    const int lightness = 150 + (static_cast<unsigned char>(digest.at(2)) % 3) * 20;
    return QColor::fromHsl(hue, 150, lightness);
}

QColor IdentityBar::serverAccountColour()
{
    return QColor(0xb7, 0x1c, 0x1c);
}

QColor IdentityBar::disconnectedColour()
{
    return QColor(0x5f, 0x63, 0x68);
}

void IdentityBar::setServerAccountRefused(bool refused)
{
    m_serverAccountRefused = refused;
    refresh();
}

void IdentityBar::setAccountUnknown(bool unknown)
{
    m_accountUnknown = unknown;
    refresh();
}

QString IdentityBar::text() const
{
    return m_label->text();
}

void IdentityBar::refresh()
{
    QString message;
    QStyle::StandardPixmap icon = QStyle::SP_CustomBase;
    if (!m_connected) {
        m_background = disconnectedColour();
        message = tr("Not connected");
        icon = QStyle::SP_DriveNetIcon;
    } else if (isServerAccount() && m_serverAccountRefused) {
        m_background = disconnectedColour();
        message = tr("No user chosen — this multi-user server refuses requests without a user "
                     "id; choose a user to act as");
        icon = QStyle::SP_MessageBoxInformation;
    } else if (isServerAccount()) {
        m_background = serverAccountColour();
        const QString account = !m_account.isEmpty() ? m_account
            : m_accountUnknown                       ? tr("account unknown")
                                                     : tr("checking account…");
        message = tr("Acting as the SERVER ACCOUNT (%1) — privileged").arg(account);
        icon = QStyle::SP_MessageBoxWarning;
    } else {
        m_background = colourForUser(m_userId);
        const QString account = !m_account.isEmpty() ? m_account
            : m_accountUnknown                       ? tr("account unknown")
                                                     : tr("checking account…");
        message = tr("Acting as %1 (%2)").arg(m_userId, account);
        icon = QStyle::SP_CustomBase; // none
    }
    m_label->setText(message);
    m_note->setText(m_connected && !m_noteText.isEmpty()
            ? QString(QStringLiteral("· ") + m_noteText)
            : QString());
    m_profile->setText(m_profileName.isEmpty() ? QString() : tr("Profile: %1").arg(m_profileName));
    m_profile->setVisible(!m_profileName.isEmpty());
    m_switchButton->setEnabled(m_connected);

    // Users are told apart by colour and name; an icon only marks the exceptional states.
    const int iconSize = style()->pixelMetric(QStyle::PM_SmallIconSize);
    m_icon->setVisible(icon != QStyle::SP_CustomBase);
    if (m_icon->isVisibleTo(this))
        m_icon->setPixmap(style()->standardIcon(icon).pixmap(iconSize, iconSize));

    const QColor foreground = textColourOn(m_background);
    const QColor border = showsWarning() ? QColor(0xff, 0xd5, 0x4f) : m_background.darker(130);
    setStyleSheet(
        QStringLiteral("QFrame#identityBar { background-color: %1; border-bottom: %3px "
                       "solid %4; }"
                       "QFrame#identityBar QLabel { color: %2; background: transparent; }")
            .arg(m_background.name(), foreground.name(), QString::number(showsWarning() ? 4 : 2),
                border.name()));
    setAccessibleName(message);
}

} // namespace sandscope
