#include "desktopnotifier.h"

#include <QApplication>
#include <QWidget>

#ifdef SANDSCOPE_HAVE_DBUS
#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusPendingCall>
#include <QVariantMap>
#endif

namespace sandscope {

DesktopNotifier::DesktopNotifier(QWidget *window)
    : QObject(window)
    , m_window(window)
{
}

bool DesktopNotifier::notifyIfUnfocused(const QString &title, const QString &body)
{
    if (m_window->isActiveWindow())
        return false;
    if (m_sink)
        m_sink(title, body);
    else
        sendToDesktop(title, body);
    QApplication::alert(m_window);
    return true;
}

void DesktopNotifier::sendToDesktop(const QString &title, const QString &body)
{
#ifdef SANDSCOPE_HAVE_DBUS
    // Asynchronous and fire-and-forget: a desktop without the service just has no popup.
    QDBusMessage message
        = QDBusMessage::createMethodCall(QStringLiteral("org.freedesktop.Notifications"),
            QStringLiteral("/org/freedesktop/Notifications"),
            QStringLiteral("org.freedesktop.Notifications"), QStringLiteral("Notify"));
    message << QStringLiteral("Sandscope") << quint32(0)
            << QStringLiteral("io.github.sandscope.sandscope") << title << body << QStringList()
            << QVariantMap() << qint32(-1);
    QDBusConnection::sessionBus().asyncCall(message);
#else
    Q_UNUSED(title)
    Q_UNUSED(body)
#endif
}

} // namespace sandscope
