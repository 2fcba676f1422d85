#include "terminalpage.h"

#include "identitybar.h"
#include "server/openterminalclient.h"
#include "terminal/terminalview.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QPushButton>
#include <QStyle>
#include <QTabWidget>
#include <QVBoxLayout>

namespace sandscope {

#ifdef SANDSCOPE_HAVE_QTERMWIDGET
namespace {

QIcon colourIcon(const QColor &colour)
{
    QPixmap pixmap(12, 12);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setBrush(colour);
    painter.setPen(colour.darker(130));
    painter.drawRoundedRect(QRectF(0.5, 0.5, 11, 11), 2, 2);
    return QIcon(pixmap);
}

} // namespace
#endif

bool TerminalPage::emulatorAvailable()
{
#ifdef SANDSCOPE_HAVE_QTERMWIDGET
    return true;
#else
    return false;
#endif
}

QString TerminalPage::missingEmulatorText()
{
    return tr("No terminal in this build: the Terminal tab needs QTermWidget, and this Qt %1 "
              "build of Sandscope was made without it (no Qt %1 build of QTermWidget was "
              "installed; Debian packages it for Qt 5 only, as libqtermwidget5-1-dev). Use the "
              "Console to run commands as the acting user, the Qt 5 build, or `sandscope shell` "
              "for an interactive shell.")
        .arg(QT_VERSION_MAJOR);
}

TerminalPage::TerminalPage(QWidget *parent)
    : QWidget(parent)
    , m_message(new QLabel(this))
    , m_newButton(new QPushButton(tr("New Terminal"), this))
    , m_consoleButton(new QPushButton(tr("Open the Console"), this))
{
    setObjectName(QStringLiteral("terminalPage"));
    m_message->setObjectName(QStringLiteral("terminalPageMessage"));
    m_newButton->setObjectName(QStringLiteral("newTerminalButton"));
    m_consoleButton->setObjectName(QStringLiteral("terminalConsoleButton"));
    m_newButton->setIcon(QIcon::fromTheme(
        QStringLiteral("utilities-terminal"), style()->standardIcon(QStyle::SP_ComputerIcon)));
    m_newButton->setToolTip(tr("Open an interactive shell as the acting user (Ctrl+Shift+T)"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *layout = new QVBoxLayout(this);
    auto *row = new QHBoxLayout;
    row->addWidget(m_message, 1);
    row->addWidget(m_newButton);
    row->addWidget(m_consoleButton);
    layout->addLayout(row);
    connect(m_consoleButton, &QPushButton::clicked, this, &TerminalPage::consoleRequested);
    connect(m_newButton, &QPushButton::clicked, this, &TerminalPage::openTerminal);

    if (emulatorAvailable()) {
        m_tabs = new QTabWidget(this);
        m_tabs->setObjectName(QStringLiteral("terminalTabs"));
        m_tabs->setTabsClosable(true);
        m_tabs->setMovable(true);
        m_tabs->setDocumentMode(true);
        connect(m_tabs, &QTabWidget::tabCloseRequested, this, &TerminalPage::closeTerminal);
        layout->addWidget(m_tabs, 1);
        m_consoleButton->setVisible(false);
    } else {
        m_newButton->setVisible(false);
        layout->addStretch(1);
    }
    updateState();
}

TerminalPage::~TerminalPage()
{
    closeAll();
}

void TerminalPage::setConnection(
    OpenTerminalClient *client, const Identity &identity, const QString &account)
{
    m_client = client;
    m_identity = identity;
    m_account = account;
    updateState();
}

void TerminalPage::setAuditLog(AuditLog *auditLog, const QString &profile)
{
    m_auditLog = auditLog;
    m_profile = profile;
}

int TerminalPage::terminalCount() const
{
    return m_tabs ? m_tabs->count() : 0;
}

TerminalView *TerminalPage::terminal(int index) const
{
#ifdef SANDSCOPE_HAVE_QTERMWIDGET
    return m_tabs ? qobject_cast<TerminalView *>(m_tabs->widget(index)) : nullptr;
#else
    Q_UNUSED(index)
    return nullptr;
#endif
}

TerminalView *TerminalPage::openTerminal()
{
#ifdef SANDSCOPE_HAVE_QTERMWIDGET
    if (!m_client)
        return nullptr;
    auto *view = new TerminalView(m_client, m_identity, m_account, m_tabs);
    view->setAuditLog(m_auditLog, m_profile);
    if (m_livenessMs > 0)
        view->setLivenessInterval(m_livenessMs);
    const int index = m_tabs->addTab(view, colourIcon(view->frameColour()), view->title());
    m_tabs->setTabToolTip(index,
        tr("Terminal as %1 on %2")
            .arg(view->title(),
                m_client->connection().baseUrl.toString(
                    QUrl::RemoveUserInfo | QUrl::StripTrailingSlash)));
    m_tabs->setCurrentIndex(index);
    view->start();
    updateState();
    return view;
#else
    Q_EMIT consoleRequested();
    return nullptr;
#endif
}

void TerminalPage::closeTerminal(int index)
{
#ifdef SANDSCOPE_HAVE_QTERMWIDGET
    TerminalView *view = terminal(index);
    if (!view)
        return;
    view->closeTerminal();
    m_tabs->removeTab(index);
    view->deleteLater();
    updateState();
#else
    Q_UNUSED(index)
#endif
}

void TerminalPage::closeAll()
{
    while (terminalCount() > 0)
        closeTerminal(terminalCount() - 1);
}

void TerminalPage::updateState()
{
    if (!emulatorAvailable()) {
        m_message->setText(missingEmulatorText());
        return;
    }
    m_newButton->setEnabled(m_client != nullptr);
    if (!m_client) {
        m_message->setText(tr("Not connected. Connect to a server to open a terminal."));
        return;
    }
    const QString who = m_identity.isServerAccount()
        ? (m_account.isEmpty() ? tr("the server account")
                               : tr("the server account (%1)").arg(m_account))
        : (m_account.isEmpty() ? m_identity.userId
                               : QStringLiteral("%1 (%2)").arg(m_identity.userId, m_account));
    m_message->setText(terminalCount() == 0
            ? tr("New terminals open as %1. Closing a terminal's tab ends its shell.").arg(who)
            : tr("New terminals open as %1.").arg(who));
}

} // namespace sandscope
