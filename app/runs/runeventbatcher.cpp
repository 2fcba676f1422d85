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
    connect(&m_timer, &QTimer::timeout, this, &RunEventBatcher::flush);
}

void RunEventBatcher::enqueue(const RunEventBatch &events)
{
    m_pending += events;
    if (!m_timer.isActive())
        m_timer.start(m_intervalMs);
}

void RunEventBatcher::flush()
{
    m_timer.stop();
    if (m_pending.isEmpty())
        return;
    QElapsedTimer cost;
    cost.start();
    m_model->addEvents(std::exchange(m_pending, RunEventBatch()));
    Q_EMIT batchApplied();
    m_intervalMs
        = int(std::clamp<qint64>(cost.elapsed() * costFactor, minIntervalMs, maxIntervalMs));
}

} // namespace sandscope
