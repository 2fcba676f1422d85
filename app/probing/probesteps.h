#pragma once
// The isolation probe's work as a queue of asynchronous steps. A step starts something (a
// request, a command) and calls next() exactly once when that is done; next() then runs the
// following step from the event loop, so a long run never nests callbacks. A step that plans
// more work puts those steps in front of the remaining ones (runFirst).
//
// restart() abandons everything at once: the queued steps are dropped, the context object
// that parents every request and timer in flight is replaced (the old one is deleted later:
// one of its callbacks may be running), and the generation changes, so callbacks of the
// abandoned work find isCurrent() false and return without effect.

#include <QObject>
#include <QPointer>
#include <QVector>

#include <functional>

namespace sandscope {

class ProbeSteps {
public:
    using Step = std::function<void()>;

    // `owner` is the parent of the context objects.
    explicit ProbeSteps(QObject *owner);

    void restart();
    void add(Step step);
    // Puts `steps` before the remaining ones, then next().
    void runFirst(const QVector<Step> &steps);
    // Runs the first remaining step, queued; nothing when none is left.
    void next();

    // Parent of everything in flight; replaced by restart(). Null before the first restart().
    QObject *context() const { return m_context; }
    int generation() const { return m_generation; }
    bool isCurrent(int generation) const { return generation == m_generation; }

private:
    QObject *m_owner;
    QPointer<QObject> m_context;
    // Callbacks of abandoned work check this; bumped by restart().
    int m_generation = 0;
    QVector<Step> m_steps;
};

} // namespace sandscope
