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
    // The status of `client`'s channels (FollowChannel::shared makes them children of the
    // client, where this finds them), made on first use (a child of the client).
    static FollowStatus *of(OpenTerminalClient *client);

    // A channel that is not a child of the client (tests).
    void add(FollowChannel *channel);
    // Empty while nothing is followed.
    QString text() const;
    QString toolTip() const;

Q_SIGNALS:
    void changed();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    explicit FollowStatus(QObject *parent);
    void findChannels();
    QList<QPointer<FollowChannel>> liveChannels() const;

    QList<QPointer<FollowChannel>> m_channels;
};

} // namespace sandscope
