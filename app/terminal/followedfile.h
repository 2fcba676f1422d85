#pragma once
// One file (or one run's process) followed by push through a FollowChannel: the bytes in
// order, exactly once each, with what happened to the file in between. Made by
// FollowChannel::follow / watchProcess; deleting it stops following.

#include <QObject>
#include <QPointer>
#include <QString>

namespace sandscope {

class FollowChannel;

class FollowedFile : public QObject {
    Q_OBJECT
public:
    ~FollowedFile() override;

    QString path() const { return m_path; }
    QByteArray id() const { return m_id; }
    // The next byte expected: every byte before it was delivered by data().
    qint64 offset() const { return m_offset; }
    // Asks the follower to look at every followed file now; synced() follows once every byte
    // written before this call was delivered.
    void sync();

Q_SIGNALS:
    void data(qint64 offset, const QByteArray &bytes);
    // The file was replaced or truncated: what follows starts again at offset 0.
    void rewritten(qint64 size);
    // The file does not exist (it may appear again: opened follows then).
    void gone();
    void opened(qint64 size);
    // The file cannot be read: a link, a FIFO, no permission. Nothing more comes.
    void failed(const QString &message);
    // watchProcess: the process is gone (checked once a second by the follower).
    void processGone();
    // watchTree: a new file at `path`.
    void created(const QString &path);
    void synced();
    // The channel's connection was lost (reconnecting), or opened again after `gapMs`.
    void interrupted(const QString &reason);
    void reconnected(qint64 gapMs);
    // Push is not possible (FollowChannel::reason): poll instead.
    void unavailable(const QString &reason);

private:
    friend class FollowChannel;
    FollowedFile(FollowChannel *channel, const QByteArray &id, const QString &path, qint64 offset);

    QPointer<FollowChannel> m_channel;
    QByteArray m_id;
    QString m_path;
    qint64 m_offset = 0;
    qint64 m_inode = 0; // known once opened: a reconnect resumes only in the same file
    QByteArray m_tail; // the last bytes delivered (followprotocol::tailBytes): the same, too
    enum class Kind { File, Process, Tree };
    Kind m_kind = Kind::File;
    QByteArray m_needle; // watchProcess: what the process's command line contains
    int m_syncsPending = 0;
};

} // namespace sandscope
