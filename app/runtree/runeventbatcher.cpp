#include "runeventbatcher.h"

#include "runtree/runmodel.h"

#include <QElapsedTimer>

#include <algorithm>
#include <utility>

namespace sandscope {

RunEventBatcher::RunEventBatcher(RunModel *model, QObject *parent)
    : QObject(parent)
    , m_model(model)
{
    m_timer.setSingleShot(true);
    m_timer.setObjectName(QStringLiteral("runEventBatcherTimer")); // for diagnostics
    connect(&m_timer, &QTimer::timeout, this, &RunEventBatcher::applyDue);
}

void RunEventBatcher::enqueue(const RunEventBatch &events)
{
    if (events.isEmpty())
        return;
    m_pending.push_back(events); // shared, not copied
    m_pendingEvents += events.size();
    if (backlogFull() && !m_wasFull) {
        // A producer that waits now waits for this: no interval (the tree's share of the time
        // is the whole time until the backlog is worked off).
        m_wasFull = true;
        m_timer.start(drainGapMs);
    } else if (!m_timer.isActive())
        m_timer.start(m_draining || m_wasFull ? drainGapMs : m_intervalMs);
}

void RunEventBatcher::flush()
{
    m_timer.stop();
    const bool wasDraining = std::exchange(m_draining, false);
    if (!hasPending()) {
        if (wasDraining)
            Q_EMIT drained();
        return;
    }
    QElapsedTimer cost;
    cost.start();
    for (; !m_pending.empty(); retireFront(), m_next = 0) {
        const RunEvent *events = std::as_const(m_pending.front()).constData();
        m_model->addEventRange(events + m_next, events + m_pending.front().size());
    }
    noteApplied(m_pendingEvents);
    Q_EMIT batchApplied();
    setIntervalFrom(cost.elapsed());
    if (wasDraining)
        Q_EMIT drained();
}

void RunEventBatcher::drain()
{
    m_draining = true;
    m_timer.start(drainGapMs);
}

void RunEventBatcher::setFollowUpCostMs(qint64 ms)
{
    m_intervalMs
        = int(std::clamp<qint64>((m_lastCostMs + ms) * costFactor, minIntervalMs, maxIntervalMs));
}

void RunEventBatcher::setIntervalFrom(qint64 costMs)
{
    m_lastCostMs = costMs;
    m_intervalMs = int(std::clamp<qint64>(costMs * costFactor, minIntervalMs, maxIntervalMs));
}

void RunEventBatcher::applyDue()
{
    QElapsedTimer cost;
    cost.start();
    const qint64 budgetNs = qint64(applyBudgetMs) * 1000000;
    qint64 applied = 0;
    // Small slices, read in place: one event can cost a hundred times another (a result line
    // settles its whole turn), so the clock is read often: after every sliceEvents events,
    // however they were enqueued (a live run's come a line at a time, and a clock read per
    // line let a moment's preemption split what waited for the same timer). Each batch as it
    // was enqueued is freed once applied: freeing a whole backlog's events at once took 10 ms
    // and more.
    int sinceClock = 0;
    while (hasPending()) {
        if (sinceClock == sliceEvents) {
            if (cost.nsecsElapsed() >= budgetNs)
                break;
            sinceClock = 0;
        }
        const RunEventBatch &front = m_pending.front();
        const RunEvent *events = front.constData();
        const int count = std::min(sliceEvents - sinceClock, int(front.size()) - m_next);
        m_model->addEventRange(events + m_next, events + m_next + count);
        m_next += count;
        applied += count;
        sinceClock += count;
        noteApplied(count);
        if (m_next == front.size()) {
            retireFront();
            m_next = 0;
        }
    }
    const bool done = !hasPending();
    if (applied > 0)
        Q_EMIT batchApplied();
    const qint64 spent = cost.elapsed();
    setIntervalFrom(spent);
    if (done) {
        if (std::exchange(m_draining, false))
            Q_EMIT drained();
        return;
    }
    // A backlog: about half the time to the tree, the rest to whoever produces the events
    // (all of it when the producer is done). The next slice's timer starts in the event loop
    // pass after this one, where what this slice set off at once (a view's delayed layout, a
    // zero timer) runs: started now, on a loaded machine it could expire by that pass and
    // run in it, the two adding up to one freeze.
    // A producer waiting for the backlog (backlogFull()) also leaves all of it to the tree.
    const bool backToBack = m_draining || m_wasFull;
    const int gapMs = backToBack ? drainGapMs : int(std::max<qint64>(spent, minIntervalMs / 4));
    QTimer::singleShot(0, this, [this, gapMs] {
        if (hasPending() && !m_timer.isActive())
            m_timer.start(m_draining ? drainGapMs : gapMs);
    });
}

void RunEventBatcher::setSpentBatchSink(std::function<void(RunEventBatch &&)> sink)
{
    m_spentSink = std::move(sink);
}

void RunEventBatcher::retireFront()
{
    if (m_spentSink)
        m_spentSink(std::move(m_pending.front()));
    m_pending.pop_front();
}

void RunEventBatcher::noteApplied(qsizetype count)
{
    m_pendingEvents -= count;
    if (m_wasFull && m_pendingEvents <= backlogLimit / 2) {
        m_wasFull = false;
        Q_EMIT backlogDrained();
    }
}

} // namespace sandscope
