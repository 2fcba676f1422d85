#include "followstatus.h"

#include "server/openterminalclient.h"
#include "terminal/followchannel.h"

#include <QEvent>
#include <QTimer>

namespace sandscope {

FollowStatus::FollowStatus(QObject *parent)
    : QObject(parent)
{
    setObjectName(QStringLiteral("sandscope-follow-status"));
    parent->installEventFilter(this);
    findChannels();
}

bool FollowStatus::eventFilter(QObject *watched, QEvent *event)
{
    // A child is announced while it is still being constructed: looked at once it is done.
    if (watched == parent() && event->type() == QEvent::ChildAdded)
        QTimer::singleShot(0, this, &FollowStatus::findChannels);
    return false;
}

void FollowStatus::findChannels()
{
    const auto channels
        = parent()->findChildren<FollowChannel *>(QString(), Qt::FindDirectChildrenOnly);
    for (FollowChannel *channel : channels) {
        if (!m_channels.contains(channel))
            add(channel);
    }
}

FollowStatus *FollowStatus::of(OpenTerminalClient *client)
{
    if (auto *status = client->findChild<FollowStatus *>(
            QStringLiteral("sandscope-follow-status"), Qt::FindDirectChildrenOnly))
        return status;
    return new FollowStatus(client);
}

void FollowStatus::add(FollowChannel *channel)
{
    m_channels.append(channel);
    connect(channel, &FollowChannel::stateChanged, this, &FollowStatus::changed);
    connect(channel, &QObject::destroyed, this, &FollowStatus::changed, Qt::QueuedConnection);
    Q_EMIT changed();
}

QList<QPointer<FollowChannel>> FollowStatus::liveChannels() const
{
    QList<QPointer<FollowChannel>> live;
    for (const QPointer<FollowChannel> &channel : m_channels) {
        if (channel && channel->state() != FollowChannel::State::Idle)
            live.append(channel);
    }
    return live;
}

QString FollowStatus::text() const
{
    const auto channels = liveChannels();
    if (channels.isEmpty())
        return {};
    bool reconnecting = false;
    for (const QPointer<FollowChannel> &channel : channels) {
        if (channel->state() == FollowChannel::State::Unavailable)
            return tr("live: polled (%1)").arg(channel->reason());
        reconnecting = reconnecting || channel->state() == FollowChannel::State::Reconnecting;
    }
    if (reconnecting)
        return tr("live: reconnecting…");
    return tr("live: pushed");
}

QString FollowStatus::toolTip() const
{
    QStringList lines;
    for (const QPointer<FollowChannel> &channel : liveChannels()) {
        const QString who = channel->userId().isEmpty() ? tr("the server's account")
                                                        : tr("user %1").arg(channel->userId());
        switch (channel->state()) {
        case FollowChannel::State::Open:
            lines << tr("%1: pushed through a terminal (%2)").arg(who, channel->mode());
            break;
        case FollowChannel::State::Opening:
            lines << tr("%1: opening the terminal that pushes").arg(who);
            break;
        case FollowChannel::State::Reconnecting:
            lines << tr("%1: reconnecting (%2)").arg(who, channel->reason());
            break;
        case FollowChannel::State::Unavailable:
            lines << tr("%1: polled, as push is not available: %2").arg(who, channel->reason());
            break;
        case FollowChannel::State::Idle:
            break;
        }
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace sandscope
