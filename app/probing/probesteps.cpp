#include "probesteps.h"

#include <QTimer>

#include <utility>

namespace sandscope {

ProbeSteps::ProbeSteps(QObject *owner)
    : m_owner(owner)
{
}

void ProbeSteps::restart()
{
    m_steps.clear();
    ++m_generation;
    if (m_context) // restart() may be called from inside one of its callbacks
        m_context->deleteLater();
    m_context = new QObject(m_owner);
}

void ProbeSteps::add(Step step)
{
    m_steps.append(std::move(step));
}

void ProbeSteps::runFirst(const QVector<Step> &steps)
{
    m_steps = steps + m_steps;
    next();
}

void ProbeSteps::next()
{
    if (m_steps.isEmpty())
        return;
    Step step = m_steps.takeFirst();
    const int generation = m_generation;
    // Queued, so a long run never nests callbacks.
    QTimer::singleShot(0, m_context, [this, step, generation] {
        if (generation == m_generation)
            step();
    });
}

} // namespace sandscope
