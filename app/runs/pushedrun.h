#pragma once
// A run's files followed by push (FollowChannel): its tee file as lines, byte for byte as claude
// wrote them, and how it ended: its exit file, or its shell gone without one.
//
// The run's shell writes its pid file first thing; once the pid is read, the follower watches
// that process (alive while its command line names the run). The exit file is renamed into place
// only after tee has written everything, and the process ends after that: on either, one sync
// makes sure every tee byte written before has arrived, so the last line is never missed.

#include "claude/claudecommand.h"

#include <QByteArray>
#include <QObject>
#include <QPointer>

namespace sandscope {

class FollowChannel;
class FollowedFile;

class PushedRun : public QObject {
    Q_OBJECT
public:
    PushedRun(FollowChannel *channel, const RunPaths &paths, const QString &runId,
        QObject *parent = nullptr);

    // The run's pid was read and its process is watched: the end of the run will be pushed.
    bool isWatchingProcess() const { return m_watching; }
    // Tee bytes delivered so far (the unterminated rest included).
    qint64 teeBytes() const { return m_teeBytes; }

Q_SIGNALS:
    // A complete line of the tee file, without its '\n'; a run cut off mid-line gives its
    // unterminated rest as the last line before ended() or vanished().
    void line(const QByteArray &bytes);
    void watchingProcess();
    // The exit file said `exitCode`; every line came before.
    void ended(int exitCode);
    // The run's shell is gone without an exit file (killed with its group, the sandbox
    // restarted); every line it wrote came before.
    void vanished();
    // The tee file was rewritten or removed while the run was followed: lines may be missing.
    void teeDamaged(const QString &what);
    void interrupted(const QString &reason);
    void reconnected(qint64 gapMs);
    void unavailable(const QString &reason);

private:
    void takeTee(const QByteArray &bytes);
    void takePid(const QByteArray &bytes);
    void takeExit(const QByteArray &bytes);
    void settle();
    void finishSettling();

    QPointer<FollowChannel> m_channel;
    RunPaths m_paths;
    QByteArray m_runId;
    FollowedFile *m_tee = nullptr;
    FollowedFile *m_exit = nullptr;
    FollowedFile *m_pid = nullptr;
    FollowedFile *m_process = nullptr;
    QByteArray m_partial;
    QByteArray m_pidBytes;
    QByteArray m_exitBytes;
    qint64 m_teeBytes = 0;
    bool m_watching = false;
    bool m_hasExit = false;
    int m_exitCode = 0;
    bool m_processGone = false;
    bool m_settling = false;
    bool m_done = false;
};

} // namespace sandscope
