#include "sessionactivity.h"

#include "server/openterminalclient.h"
#include "sessions/sessionlistmodel.h"
#include "terminal/followchannel.h"
#include "terminal/followedfile.h"

#include <algorithm>

namespace sandscope {

namespace {
// How far before now the new-session watch looks back when it starts: the listing it follows
// was made a moment earlier.
constexpr int listingSlackSecs = 10;
} // namespace

SessionActivity::SessionActivity(SessionListModel *model, QObject *parent)
    : QObject(parent)
    , m_model(model)
{
    m_expiry.setInterval(1000);
    connect(&m_expiry, &QTimer::timeout, this, &SessionActivity::expire);
}

void SessionActivity::watch(OpenTerminalClient *client, const Identity &identity)
{
    if (client != m_client || identity.userId != m_identity.userId)
        stop();
    m_client = client;
    m_identity = identity;
    FollowChannel *channel = client ? FollowChannel::shared(client, identity.userId) : nullptr;
    if (!channel || channel->state() == FollowChannel::State::Unavailable || !m_model) {
        setPushed(false);
        return;
    }
    QVector<DiscoveredSession> sessions = m_model->sessions();
    std::sort(sessions.begin(), sessions.end(),
        [](const DiscoveredSession &a, const DiscoveredSession &b) {
            return a.lastActivity > b.lastActivity;
        });
    if (sessions.size() > maxFollowed)
        sessions.resize(maxFollowed);
    QHash<QString, FollowedFile *> kept;
    for (const DiscoveredSession &session : std::as_const(sessions)) {
        if (FollowedFile *file = m_files.take(session.path)) {
            kept.insert(session.path, file);
            continue;
        }
        // Only what is written from now on: the listing counted what is there.
        FollowedFile *file = channel->follow(session.path, session.size, this);
        const QString path = session.path;
        connect(file, &FollowedFile::data, this, [this, path](qint64, const QByteArray &bytes) {
            if (m_model)
                m_model->noteWritten(path, bytes.size(), QDateTime::currentDateTimeUtc());
            m_expiry.start();
        });
        connect(file, &FollowedFile::unavailable, this, [this] { setPushed(false); });
        connect(file, &FollowedFile::reconnected, this, [this] { setPushed(true); });
        kept.insert(session.path, file);
    }
    qDeleteAll(m_files); // no longer listed
    m_files = kept;
    const QString projects = m_model->home().isEmpty()
        ? QString()
        : m_model->home() + QStringLiteral("/.claude/projects");
    if (projects != m_projectsPath) {
        delete m_projects;
        m_projects = nullptr;
        m_projectsPath = projects;
        if (!projects.isEmpty()) {
            // Since a little before this listing (its clock and the sandbox's may differ).
            m_projects = channel->watchTree(
                projects, QDateTime::currentDateTimeUtc().addSecs(-listingSlackSecs), this);
            connect(m_projects, &FollowedFile::created, this, [this](const QString &path) {
                if (m_model && m_model->rowOfPath(path) < 0)
                    Q_EMIT sessionCreated(path);
            });
        }
    }
    setPushed(true);
    m_expiry.start();
}

void SessionActivity::stop()
{
    qDeleteAll(m_files);
    m_files.clear();
    delete m_projects;
    m_projects = nullptr;
    m_projectsPath.clear();
    m_expiry.stop();
    setPushed(false);
}

void SessionActivity::setPushed(bool pushed)
{
    if (m_pushed == pushed)
        return;
    m_pushed = pushed;
    Q_EMIT pushedChanged(pushed);
}

void SessionActivity::expire()
{
    if (!m_model || m_model->expireRunning(QDateTime::currentDateTimeUtc()) == 0)
        m_expiry.stop();
}

} // namespace sandscope
