#pragma once
// Tells the person that something finished while they were looking elsewhere: through the
// desktop's notification service (org.freedesktop.Notifications on the session bus) when there
// is one, and in any case the window asks for attention (its taskbar entry is marked). Nothing
// is shown while the window is the active one: whoever looks at it sees the result already.

#include <QObject>
#include <QString>

#include <functional>

class QWidget;

namespace sandscope {

class DesktopNotifier : public QObject {
    Q_OBJECT
public:
    explicit DesktopNotifier(QWidget *window);

    // True when a notification went out (the window was not active).
    bool notifyIfUnfocused(const QString &title, const QString &body);

    // Where notifications go instead of the desktop (tests).
    using Sink = std::function<void(const QString &title, const QString &body)>;
    void setSink(Sink sink) { m_sink = std::move(sink); }

private:
    void sendToDesktop(const QString &title, const QString &body);

    QWidget *m_window;
    Sink m_sink;
};

} // namespace sandscope
