#pragma once
// How the live views of one connection get their bytes, said in one line for the status bar:
// pushed while every FollowChannel in use is open, reconnecting while one is, polled (with the
// reason) when one could not open and its files' owners fell back to polling.

#include <QList>
#include <QObject>
#include <QPointer>

namespace sandscope {

class FollowChannel;
class OpenTerminalClient;

class FollowStatus : public QObject {
    Q_OBJECT
public:
    // The status of `client`'s channels, made on first use (a child of the client).
    static FollowStatus *of(OpenTerminalClient *client);

    void add(FollowChannel *channel);
    // Empty while nothing is followed.
    QString text() const;
    QString toolTip() const;

Q_SIGNALS:
    void changed();

private:
    explicit FollowStatus(QObject *parent);
    QList<QPointer<FollowChannel>> liveChannels() const;

    QList<QPointer<FollowChannel>> m_channels;
};

} // namespace sandscope
