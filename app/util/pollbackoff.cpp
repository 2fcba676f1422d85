#include "pollbackoff.h"

namespace sandscope {

PollBackoff::PollBackoff(int fastMs, int idleMaxMs, int quietGraceIntervals)
    : m_quietGraceIntervals(qMax(0, quietGraceIntervals))
{
    setIntervals(fastMs, idleMaxMs);
    m_clock.start();
}

void PollBackoff::setIntervals(int fastMs, int idleMaxMs)
{
    m_fastMs = qMax(1, fastMs);
    m_idleMaxMs = qMax(m_fastMs, idleMaxMs);
    m_delayMs = m_fastMs;
}

int PollBackoff::next(bool active, int floorMs)
{
    return nextAt(m_clock.elapsed(), active, floorMs);
}

int PollBackoff::nextAt(qint64 nowMs, bool active, int floorMs)
{
    if (active || m_quietSinceMs < 0)
        m_quietSinceMs = nowMs;
    const bool shortPause = nowMs - m_quietSinceMs < qint64(m_quietGraceIntervals) * m_fastMs;
    m_delayMs = active || shortPause ? qMax(m_fastMs, qMin(floorMs, m_idleMaxMs))
                                     : int(qMin<qint64>(qint64(m_delayMs) * 2, m_idleMaxMs));
    return m_delayMs;
}

} // namespace sandscope
