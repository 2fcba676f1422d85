#include "runeventbatcher.h"

#include "runs/runmodel.h"

#include <QElapsedTimer>

#include <algorithm>
#include <utility>

namespace sandscope {

RunEventBatcher::RunEventBatcher(RunModel *model, QObject *parent)
    : QObject(parent)
    , m_model(model)
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &RunEventBatcher::applyDue);
}

void RunEventBatcher::enqueue(const RunEventBatch &events)
{
    m_pending += events;
    if (!m_timer.isActive())
        m_timer.start(m_draining ? 0 : m_intervalMs);
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
    RunEventBatch events = std::exchange(m_pending, RunEventBatch());
    if (m_next > 0)
        events.remove(0, std::exchange(m_next, 0));
    m_model->addEvents(events);
    Q_EMIT batchApplied();
    m_intervalMs
        = int(std::clamp<qint64>(cost.elapsed() * costFactor, minIntervalMs, maxIntervalMs));
    if (wasDraining)
        Q_EMIT drained();
}

void RunEventBatcher::drain()
{
    m_draining = true;
    m_timer.start(0);
}

void RunEventBatcher::applyDue()
{
    QElapsedTimer cost;
    cost.start();
    const qint64 budgetNs = qint64(applyBudgetMs) * 1000000;
    qint64 applied = 0;
    // Each slice is sized from the cost per event so far, to end near the budget.
    int slice = 256;
    while (hasPending()) {
        const int count = std::min(slice, int(m_pending.size()) - m_next);
        m_model->addEvents(m_pending.mid(m_next, count));
        m_next += count;
        applied += count;
        const qint64 spentNs = cost.nsecsElapsed();
        if (spentNs >= budgetNs)
            break;
        const qint64 perEventNs = std::max<qint64>(1, spentNs / applied);
        slice = int(std::clamp<qint64>((budgetNs - spentNs) / perEventNs, 64, 1024));
    }
    const bool done = !hasPending();
    if (done) {
        m_pending.clear();
        m_next = 0;
    }
    if (applied > 0)
        Q_EMIT batchApplied();
    const qint64 spent = cost.elapsed();
    m_intervalMs = int(std::clamp<qint64>(spent * costFactor, minIntervalMs, maxIntervalMs));
    if (done) {
        if (std::exchange(m_draining, false))
            Q_EMIT drained();
        return;
    }
    // A backlog: about half the time to the tree, the rest to whoever produces the events
    // (all of it when the producer is done).
    m_timer.start(m_draining ? 0 : int(std::max<qint64>(spent, minIntervalMs / 4)));
}

} // namespace sandscope
