#include "pushedrun.h"

#include "terminal/followchannel.h"
#include "terminal/followedfile.h"

namespace sandscope {

PushedRun::PushedRun(
    FollowChannel *channel, const RunPaths &paths, const QString &runId, QObject *parent)
    : QObject(parent)
    , m_channel(channel)
    , m_paths(paths)
    , m_runId(runId.toUtf8())
{
    m_tee = channel->follow(paths.teeFile, 0, this);
    m_exit = channel->follow(paths.exitFile, 0, this);
    m_pid = channel->follow(paths.pidFile, 0, this);
    connect(m_tee, &FollowedFile::data, this,
        [this](qint64, const QByteArray &bytes) { takeTee(bytes); });
    connect(m_tee, &FollowedFile::rewritten, this, [this](qint64) {
        if (m_teeBytes > 0)
            Q_EMIT teeDamaged(
                tr("the tee file %1 was rewritten while it was followed").arg(m_paths.teeFile));
        m_teeBytes = 0;
        m_partial.clear();
    });
    connect(m_tee, &FollowedFile::failed, this, [this](const QString &message) {
        Q_EMIT teeDamaged(tr("the tee file cannot be read: %1").arg(message));
    });
    connect(m_tee, &FollowedFile::synced, this, &PushedRun::finishSettling);
    connect(m_pid, &FollowedFile::data, this,
        [this](qint64, const QByteArray &bytes) { takePid(bytes); });
    connect(m_pid, &FollowedFile::rewritten, this, [this](qint64) { m_pidBytes.clear(); });
    connect(m_exit, &FollowedFile::data, this,
        [this](qint64, const QByteArray &bytes) { takeExit(bytes); });
    connect(m_exit, &FollowedFile::rewritten, this, [this](qint64) { m_exitBytes.clear(); });
    // The channel's state reaches the owner once, through the tee file.
    connect(m_tee, &FollowedFile::interrupted, this, &PushedRun::interrupted);
    connect(m_tee, &FollowedFile::reconnected, this, &PushedRun::reconnected);
    connect(m_tee, &FollowedFile::unavailable, this, &PushedRun::unavailable);
}

void PushedRun::takeTee(const QByteArray &bytes)
{
    m_teeBytes += bytes.size();
    m_partial += bytes;
    qsizetype start = 0;
    for (qsizetype end = m_partial.indexOf('\n'); end >= 0; end = m_partial.indexOf('\n', start)) {
        Q_EMIT line(m_partial.mid(start, end - start));
        start = end + 1;
    }
    m_partial.remove(0, start);
}

void PushedRun::takePid(const QByteArray &bytes)
{
    m_pidBytes += bytes;
    if (m_process || !m_pidBytes.contains('\n'))
        return;
    m_process = m_channel->watchProcess(m_paths.pidFile, m_runId, this);
    connect(m_process, &FollowedFile::processGone, this, [this] {
        m_processGone = true;
        settle();
    });
    m_watching = true;
    Q_EMIT watchingProcess();
}

void PushedRun::takeExit(const QByteArray &bytes)
{
    m_exitBytes += bytes;
    if (m_hasExit || !m_exitBytes.contains('\n'))
        return;
    bool ok = false;
    const int code = m_exitBytes.trimmed().toInt(&ok);
    if (!ok)
        return;
    m_hasExit = true;
    m_exitCode = code;
    settle();
}

// The end is known: one sync, and every tee byte written before it has arrived.
void PushedRun::settle()
{
    if (m_settling || m_done)
        return;
    m_settling = true;
    m_tee->sync();
}

void PushedRun::finishSettling()
{
    if (!m_settling || m_done)
        return;
    m_done = true;
    if (!m_partial.isEmpty())
        Q_EMIT line(std::exchange(m_partial, {}));
    if (m_hasExit)
        Q_EMIT ended(m_exitCode);
    else
        Q_EMIT vanished();
}

} // namespace sandscope
