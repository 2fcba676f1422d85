#pragma once
// The pace of a poll that backs off while nothing happens: ProcessStream (a process's output)
// and TranscriptFollower (a transcript's growth) both poll fast while there is activity and
// double the delay while there is none, up to a ceiling. A quiet grace keeps the fast pace
// through short pauses (an agent between two tool calls), so the next line shows at once.

#include <QElapsedTimer>
#include <QtGlobal>

namespace sandscope {

class PollBackoff {
public:
    // fastMs is at least 1, idleMaxMs at least fastMs. Silence shorter than
    // quietGraceIntervals fast intervals keeps the fast pace (0: any silence backs off).
    PollBackoff(int fastMs, int idleMaxMs, int quietGraceIntervals = 0);

    // New intervals; the next delay starts from the fast one again.
    void setIntervals(int fastMs, int idleMaxMs);

    // The delay before the next poll, given whether the last one saw activity: the fast
    // interval (or floorMs when that is longer, at most idleMaxMs) on activity or within the
    // quiet grace, else the last delay doubled, at most idleMaxMs.
    int next(bool active, int floorMs = 0);
    // next() at a given time of a monotonic clock in ms (tests drive the clock).
    int nextAt(qint64 nowMs, bool active, int floorMs = 0);

    int fastMs() const { return m_fastMs; }
    int idleMaxMs() const { return m_idleMaxMs; }
    int delayMs() const { return m_delayMs; }

private:
    int m_fastMs = 1;
    int m_idleMaxMs = 1;
    int m_quietGraceIntervals = 0;
    int m_delayMs = 1;
    qint64 m_quietSinceMs = -1; // when activity was last seen; -1: not polled yet
    QElapsedTimer m_clock;
};

} // namespace sandscope
