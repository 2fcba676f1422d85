#pragma once
// Files followed by push: one terminal per user carries every file Sandscope follows as that
// user (open-terminal 0.14.x allows 16 terminals per server and one client per terminal). The
// follower (followprotocol.h) is typed into the terminal and pushes each file's new bytes as
// soon as inotify says they were written, so nothing is polled and an idle run costs nothing.
//
// A dropped connection (a server restarted in place, a network that went away, a host that
// slept) is reopened by itself, over and over with a growing pause (up to 5 s): each file
// is followed again from the offset its last byte ended at, in the same file (its inode), so
// no byte is lost or repeated; reconnected() says how long the gap was.
// When the push path cannot be opened at all (the terminal limit reached, terminals turned
// off, a proxy that refuses WebSockets, no python3 in the sandbox, SANDSCOPE_PUSH=off), the
// channel becomes Unavailable with the reason, and the files' owners fall back to polling.

#include "server/apierror.h"
#include "server/connection.h"
#include "terminal/followprotocol.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QTimer>

namespace sandscope {

class FollowedFile;
class OpenTerminalClient;
class TerminalSession;

class FollowChannel : public QObject {
    Q_OBJECT
public:
    enum class State { Idle, Opening, Open, Reconnecting, Unavailable };
    Q_ENUM(State)

    // None of the follower's heartbeats for this long means the connection is dead.
    static constexpr int silenceLimitMs = followprotocol::silenceLimitMs;
    static constexpr int maxRetryMs = 5000;

    // The channel of `userId` (empty: the server's own account) on `client`'s server, made on
    // first use and shared by everything that follows files as that user. Null when push is
    // turned off (SANDSCOPE_PUSH=off).
    static FollowChannel *shared(OpenTerminalClient *client, const QString &userId);
    static bool isTurnedOff();

    FollowChannel(OpenTerminalClient *client, const QString &userId, QObject *parent = nullptr);
    ~FollowChannel() override;

    // Follows `path` from byte `offset`; the file is the caller's (a child of `owner`).
    FollowedFile *follow(const QString &path, qint64 offset, QObject *owner);
    // processGone() once the process whose pid is in `pidFile` no longer runs a command line
    // containing `needle` (a reused pid does not count).
    FollowedFile *watchProcess(const QString &pidFile, const QByteArray &needle, QObject *owner);
    // created() for each *.jsonl file one folder below `directory` (a user's
    // ~/.claude/projects: a new session) that appears, or was written since `since` when the
    // watch starts (what a listing made then could have missed); looked for once a second.
    FollowedFile *watchTree(const QString &directory, const QDateTime &since, QObject *owner);

    State state() const { return m_state; }
    QString userId() const { return m_userId; }
    // Why the channel is Unavailable, or what interrupted it while Reconnecting.
    QString reason() const { return m_reason; }
    // The follower's way of noticing writes: "inotify", or "poll" (every 20 ms).
    QString mode() const { return m_mode; }
    // Stops reconnecting after this many failed attempts in a row (0: never stops).
    void setMaxAttempts(int attempts) { m_maxAttempts = attempts; }
    // The current terminal, for tests that drop it on purpose.
    TerminalSession *terminal() const;

Q_SIGNALS:
    void stateChanged(sandscope::FollowChannel::State state);
    // Open again after `gapMs` without a connection; every file goes on where it stopped.
    void reconnected(qint64 gapMs);
    // The connection was lost; reconnecting.
    void interrupted(const QString &reason);
    // Push is not possible: the files' owners poll instead.
    void unavailable(const QString &reason);

private:
    friend class FollowedFile;
    void start();
    void openTerminal();
    void handleOutput(const QByteArray &bytes);
    void handleFrame(const followprotocol::Frame &frame);
    void sendProgram(const QByteArray &rest);
    void lost(const QString &reason, bool hard);
    void giveUp(const QString &reason);
    void setState(State state);
    void send(const QByteArray &command);
    void subscribe(FollowedFile *file);
    void remove(FollowedFile *file);
    void requestSync(FollowedFile *file);
    FollowedFile *add(FollowedFile *file, QObject *owner);
    QList<QPointer<FollowedFile>> filesNow() const;

    QPointer<OpenTerminalClient> m_client;
    QString m_userId;
    State m_state = State::Idle;
    QString m_reason;
    QString m_mode;
    QPointer<TerminalSession> m_terminal;
    followprotocol::FrameReader m_reader;
    bool m_ready = false; // the follower runs and takes commands
    bool m_wasOpen = false; // ready at least once
    QHash<QByteArray, QPointer<FollowedFile>> m_files;
    quint64 m_nextId = 1;
    quint64 m_nextSync = 1;
    QHash<QByteArray, QByteArray> m_syncs; // token -> file id
    QTimer m_retryTimer;
    QTimer m_silenceTimer;
    QTimer m_idleTimer; // closes the terminal a while after the last file went
    int m_retryMs = 250;
    int m_attempts = 0;
    int m_maxAttempts = 0;
    QElapsedTimer m_lostAt;
    QElapsedTimer m_lastHeard; // the follower's last output
    qint64 m_silentBeforeLossMs = 0; // from the last output to the loss being noticed
};

} // namespace sandscope
