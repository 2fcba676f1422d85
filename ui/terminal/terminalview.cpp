#include "terminalview.h"

#ifdef SANDSCOPE_HAVE_QTERMWIDGET

#include "identitybar.h"
#include "monospacefont.h"
#include "security/auditlog.h"
#include "server/openterminalclient.h"
#include "terminal/terminalsession.h"
#include "util/format.h"

#include <QBuffer>
#include <QEvent>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QShortcut>
#include <QSocketNotifier>
#include <QTimer>
#include <QVBoxLayout>
#include <qtermwidget.h>

#include <cerrno>
#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

#if QT_VERSION < QT_VERSION_CHECK(6, 0, 0)
#include <QTextCodec>
#endif

namespace sandscope {

TerminalView::TerminalView(
    OpenTerminalClient *client, const Identity &identity, const QString &account, QWidget *parent)
    : QWidget(parent)
    , m_client(client)
    , m_identity(identity)
    , m_account(account)
    , m_term((substituteGenericMonospace(), new QTermWidget(0, this)))
    , m_header(new QLabel(this))
    , m_statusBar(new QWidget(this))
    , m_statusLabel(new QLabel(m_statusBar))
    , m_reconnect(new QPushButton(tr("Open a New Terminal"), m_statusBar))
{
    setObjectName(QStringLiteral("terminalView"));
    m_term->setObjectName(QStringLiteral("terminalEmulator"));
    m_header->setObjectName(QStringLiteral("terminalHeader"));
    m_statusLabel->setObjectName(QStringLiteral("terminalStatus"));
    m_reconnect->setObjectName(QStringLiteral("terminalReconnect"));

    // The acting user's colour around the terminal, as in the identity bar.
    const QColor colour = frameColour();
    auto *frame = new QFrame(this);
    frame->setObjectName(QStringLiteral("terminalFrame"));
    frame->setStyleSheet(QStringLiteral("#terminalFrame { border: 3px solid %1; background: %1; }")
                             .arg(colour.name()));
    auto *frameLayout = new QVBoxLayout(frame);
    frameLayout->setContentsMargins(3, 0, 3, 3);
    frameLayout->setSpacing(0);
    const QColor headerText = colour.lightnessF() > 0.55 ? QColor(0x1a, 0x1a, 0x1a) : Qt::white;
    m_header->setStyleSheet(QStringLiteral("color: %1; padding: 2px 4px;").arg(headerText.name()));
    m_header->setText(tr("Terminal as %1").arg(title()));
    frameLayout->addWidget(m_header);
    frameLayout->addWidget(m_term, 1);

    auto *statusLayout = new QHBoxLayout(m_statusBar);
    statusLayout->setContentsMargins(6, 4, 6, 4);
    statusLayout->addWidget(m_statusLabel, 1);
    statusLayout->addWidget(m_reconnect);
    m_statusLabel->setWordWrap(true);
    m_statusBar->setVisible(false);
    connect(m_reconnect, &QPushButton::clicked, this, &TerminalView::start);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_statusBar);
    layout->addWidget(frame, 1);

    m_term->setTerminalFont(monospaceFont());
    m_term->setHistorySize(10000);
    m_term->setScrollBarPosition(QTermWidget::ScrollBarRight);
    m_term->setFlowControlEnabled(false);
    m_term->setMotionAfterPasting(2); // scroll to the end
    if (QTermWidget::availableColorSchemes().contains(QStringLiteral("Linux")))
        m_term->setColorScheme(QStringLiteral("Linux"));
#if QT_VERSION < QT_VERSION_CHECK(6, 0, 0)
    m_term->setTextCodec(QTextCodec::codecForName("UTF-8"));
#endif
    // Teletype: no local program; keys come out of sendData, the screen is fed through the
    // PTY slave the widget reads from.
    m_term->startTerminalTeletype();
    m_slaveFd = m_term->getPtySlaveFd();
    if (m_slaveFd >= 0) {
        termios mode {};
        if (::tcgetattr(m_slaveFd, &mode) == 0) {
            ::cfmakeraw(&mode); // the remote PTY already did the line discipline
            ::tcsetattr(m_slaveFd, TCSANOW, &mode);
        }
        ::fcntl(m_slaveFd, F_SETFL, ::fcntl(m_slaveFd, F_GETFL) | O_NONBLOCK);
        m_writable = new QSocketNotifier(m_slaveFd, QSocketNotifier::Write, this);
        m_writable->setEnabled(false);
        connect(m_writable, &QSocketNotifier::activated, this, &TerminalView::flushToScreen);
    }
    connect(m_term, &QTermWidget::sendData, this, [this](const char *bytes, int size) {
        if (m_session)
            m_session->write(QByteArray(bytes, size));
    });
    m_term->installEventFilter(this);
    setFocusProxy(m_term);

    const auto shortcut = [this](const QKeySequence &keys, void (TerminalView::*slot)()) {
        auto *action = new QShortcut(keys, this);
        action->setContext(Qt::WidgetWithChildrenShortcut);
        connect(action, &QShortcut::activated, this, slot);
    };
    shortcut(QKeySequence(tr("Ctrl+Shift+C")), &TerminalView::copy);
    shortcut(QKeySequence(tr("Ctrl+Shift+V")), &TerminalView::paste);
    shortcut(QKeySequence(tr("Ctrl+=")), &TerminalView::zoomIn);
    shortcut(QKeySequence(tr("Ctrl++")), &TerminalView::zoomIn);
    shortcut(QKeySequence(tr("Ctrl+-")), &TerminalView::zoomOut);
    shortcut(QKeySequence(tr("Ctrl+0")), &TerminalView::resetZoom);
}

TerminalView::~TerminalView()
{
    closeTerminal();
}

void TerminalView::setAuditLog(AuditLog *auditLog, const QString &profile)
{
    m_auditLog = auditLog;
    m_profile = profile;
}

QString TerminalView::title() const
{
    if (m_identity.isServerAccount())
        return m_account.isEmpty() ? tr("the server account")
                                   : tr("the server account (%1)").arg(m_account);
    return m_account.isEmpty() ? m_identity.userId
                               : QStringLiteral("%1 (%2)").arg(m_identity.userId, m_account);
}

QColor TerminalView::frameColour() const
{
    return m_identity.isServerAccount() ? IdentityBar::serverAccountColour()
                                        : IdentityBar::colourForUser(m_identity.userId);
}

void TerminalView::start()
{
    if (m_session) {
        m_session->disconnect(this);
        m_session->close();
        m_session->deleteLater();
    }
    m_openAudited = false;
    m_session = new TerminalSession(m_client, m_identity, this);
    m_session->setWorkingDirectory(m_workingDirectory);
    if (m_livenessMs > 0)
        m_session->setLivenessInterval(m_livenessMs);
    m_session->setInitialSize(m_term->screenColumnsCount(), m_term->screenLinesCount());
    connect(m_session, &TerminalSession::output, this, &TerminalView::feed);
    connect(m_session, &TerminalSession::opened, this, [this] {
        m_statusBar->setVisible(false);
        m_openAudited = true;
        audit(QStringLiteral("terminal-open"), QStringLiteral("ok"));
        checkSize();
        Q_EMIT stateChanged();
    });
    connect(m_session, &TerminalSession::ended, this, &TerminalView::handleEnded);
    connect(m_session, &TerminalSession::failed, this, &TerminalView::handleFailed);
    showStatus(tr("Opening a terminal as %1…").arg(title()), false, false);
    m_session->start();
    m_term->setFocus();
    Q_EMIT stateChanged();
}

void TerminalView::closeTerminal()
{
    if (!m_session || !m_session->isActive())
        return;
    const bool wasOpen = m_session->state() == TerminalSession::State::Open;
    const qint64 ms = m_session->openMilliseconds();
    m_session->disconnect(this);
    m_session->close();
    if (wasOpen && m_openAudited)
        audit(QStringLiteral("terminal-close"),
            QStringLiteral("closed after %1").arg(format::duration(ms)));
    showStatus(tr("The terminal was closed."), true, false);
    Q_EMIT stateChanged();
}

void TerminalView::handleEnded()
{
    audit(QStringLiteral("terminal-close"),
        QStringLiteral("shell ended after %1")
            .arg(format::duration(m_session->openMilliseconds())));
    feed(QByteArrayLiteral("\r\n"));
    showStatus(m_session->hasExitStatus()
            ? tr("The shell has ended with exit status %1.").arg(m_session->exitStatus())
            : tr("The shell has ended."),
        true, false);
    Q_EMIT stateChanged();
}

void TerminalView::handleFailed(const ApiError &error, bool dropped)
{
    if (dropped || m_openAudited)
        audit(QStringLiteral("terminal-close"),
            QStringLiteral("connection lost after %1: %2")
                .arg(format::duration(m_session->openMilliseconds()), error.toString()));
    else
        audit(QStringLiteral("terminal-open"), error.toString());
    showStatus(dropped ? tr("Connection lost: %1").arg(error.toString())
                       : tr("Could not open the terminal: %1").arg(error.toString()),
        true, true);
    Q_EMIT stateChanged();
}

void TerminalView::showStatus(const QString &text, bool offerReconnect, bool isError)
{
    m_statusLabel->setText(text);
    QPalette labelPalette = palette();
    if (isError)
        labelPalette.setColor(QPalette::WindowText, QColor(0xc6, 0x28, 0x28));
    m_statusLabel->setPalette(labelPalette);
    m_reconnect->setVisible(offerReconnect);
    m_reconnect->setText(isError ? tr("Reconnect") : tr("Open a New Terminal"));
    m_statusBar->setVisible(true);
}

QString TerminalView::statusText() const
{
    return m_statusBar->isVisibleTo(this) ? m_statusLabel->text() : QString();
}

bool TerminalView::reconnectOffered() const
{
    return m_statusBar->isVisibleTo(this) && m_reconnect->isVisibleTo(this);
}

void TerminalView::audit(const QString &action, const QString &result)
{
    // Acting as the server account is not "as another user": only users are recorded.
    if (!m_auditLog || !m_client || m_identity.isServerAccount())
        return;
    AuditEntry entry;
    entry.profile = m_profile;
    entry.server = m_client->connection().baseUrl.toString(QUrl::RemoveUserInfo);
    entry.userId = m_identity.userId;
    entry.action = action;
    entry.target = m_session ? m_session->terminalId() : QString();
    entry.result = result;
    m_auditLog->append(entry);
}

void TerminalView::feed(const QByteArray &bytes)
{
    m_toScreen += bytes;
    flushToScreen();
}

void TerminalView::flushToScreen()
{
    if (m_slaveFd < 0) {
        m_toScreen.clear();
        return;
    }
    while (!m_toScreen.isEmpty()) {
        const ssize_t written
            = ::write(m_slaveFd, m_toScreen.constData(), size_t(m_toScreen.size()));
        if (written > 0) {
            m_toScreen.remove(0, int(written));
            continue;
        }
        if (written < 0 && errno == EINTR)
            continue;
        break; // EAGAIN: the emulator reads the other end; go on when there is room
    }
    if (m_writable)
        m_writable->setEnabled(!m_toScreen.isEmpty());
}

bool TerminalView::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_term && event->type() == QEvent::Resize)
        scheduleSizeCheck();
    return QWidget::eventFilter(watched, event);
}

void TerminalView::scheduleSizeCheck()
{
    if (m_sizeCheckPending)
        return;
    m_sizeCheckPending = true;
    // After the emulator has laid out its new size.
    QTimer::singleShot(0, this, &TerminalView::checkSize);
}

void TerminalView::checkSize()
{
    m_sizeCheckPending = false;
    if (m_session)
        m_session->resize(m_term->screenColumnsCount(), m_term->screenLinesCount());
}

QString TerminalView::screenText() const
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    m_term->saveHistory(&buffer);
    return QString::fromUtf8(buffer.data());
}

int TerminalView::screenColumns() const
{
    return m_term->screenColumnsCount();
}

int TerminalView::screenLines() const
{
    return m_term->screenLinesCount();
}

void TerminalView::sendText(const QString &text)
{
    if (m_session)
        m_session->write(text.toUtf8());
}

void TerminalView::copy()
{
    m_term->copyClipboard();
}

void TerminalView::paste()
{
    m_term->pasteClipboard();
}

void TerminalView::zoomIn()
{
    ++m_zoomSteps;
    m_term->zoomIn();
    scheduleSizeCheck();
}

void TerminalView::zoomOut()
{
    --m_zoomSteps;
    m_term->zoomOut();
    scheduleSizeCheck();
}

void TerminalView::resetZoom()
{
    m_zoomSteps = 0;
    m_term->setTerminalFont(monospaceFont());
    scheduleSizeCheck();
}

} // namespace sandscope

#endif // SANDSCOPE_HAVE_QTERMWIDGET
