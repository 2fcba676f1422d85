#pragma once
// Which of a user's listed sessions are being written now, learnt by push: every listed
// transcript is followed through the user's FollowChannel from its listed size, so a write shows
// in its row (last activity, size, running now) within a moment and without a request, and a
// row stops being "running now" runningSeconds after its last write. A new transcript under
// ~/.claude/projects is pushed too (sessionCreated), so the page lists again at once; the
// listing is what reads new sessions and recounts turns and costs.

#include "server/connection.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QTimer>

namespace sandscope {

class FollowedFile;
class OpenTerminalClient;
class SessionListModel;

class SessionActivity : public QObject {
    Q_OBJECT
public:
    // At most this many transcripts are followed, the most recently written first.
    static constexpr int maxFollowed = 500;

    SessionActivity(SessionListModel *model, QObject *parent = nullptr);

    // Follows the model's sessions as `identity` (after each listing); a null client stops.
    void watch(OpenTerminalClient *client, const Identity &identity);
    void stop();
    // Writes are pushed (false: no channel, or it cannot push; the page polls faster then).
    bool isPushed() const { return m_pushed; }

Q_SIGNALS:
    void pushedChanged(bool pushed);
    // A session's transcript appeared that the listing does not have yet.
    void sessionCreated(const QString &path);

private:
    void setPushed(bool pushed);
    void expire();

    QPointer<SessionListModel> m_model;
    QPointer<OpenTerminalClient> m_client;
    Identity m_identity;
    QHash<QString, FollowedFile *> m_files; // by transcript path
    FollowedFile *m_projects = nullptr; // ~/.claude/projects, for new transcripts
    QString m_projectsPath;
    QTimer m_expiry;
    bool m_pushed = false;
};

} // namespace sandscope
