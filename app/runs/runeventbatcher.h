#pragma once
// Parsed events reach a RunModel in batches rather than one by one: at least minIntervalMs
// apart, and further apart when applying a batch (together with the view work done in
// batchApplied's handlers) gets expensive, so that at most about a third of the time goes to
// updates and a flood of events cannot starve the event loop.

#include "runs/runevents.h"

#include <QObject>
#include <QTimer>

namespace sandscope {

class RunModel;

class RunEventBatcher : public QObject {
    Q_OBJECT
public:
    static constexpr int minIntervalMs = 40;
    static constexpr int maxIntervalMs = 1000;
    static constexpr int costFactor = 3;

    explicit RunEventBatcher(RunModel *model, QObject *parent = nullptr);

    void enqueue(const sandscope::RunEventBatch &events);
    // Applies the pending events now (e.g. when a run ends or a file finished loading).
    void flush();
    bool hasPending() const { return !m_pending.isEmpty(); }
    // How long the next batch waits: grows with the cost of the last one.
    int intervalMs() const { return m_intervalMs; }

Q_SIGNALS:
    // The model took a batch. Emitted synchronously; the handlers' time counts toward the
    // batch's cost (relayout, scrolling).
    void batchApplied();

private:
    RunModel *m_model;
    RunEventBatch m_pending;
    QTimer m_timer;
    int m_intervalMs = minIntervalMs;
};

} // namespace sandscope
