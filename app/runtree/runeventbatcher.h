#pragma once
// Parsed events reach a RunModel in batches rather than one by one: at least minIntervalMs
// apart, and further apart when applying a batch (together with the view work done in
// batchApplied's handlers) gets expensive, so that at most about a third of the time goes to
// updates and a flood of events cannot starve the event loop. A timed batch applies at most
// applyBudgetMs of events; a backlog (a file parsed faster than the tree grows) is worked off
// in further slices, so no single batch freezes the window.
//
// A backlog also holds memory: every pending event with its text. A producer that can wait (a
// file being read) pauses while backlogFull() and resumes on backlogDrained(); meanwhile the
// backlog's slices follow each other as in a drain, so the load takes no longer.

#include "streamjson/runevents.h"

#include <QObject>
#include <QTimer>

#include <deque>
#include <functional>

namespace sandscope {

class RunModel;

class RunEventBatcher : public QObject {
    Q_OBJECT
public:
    static constexpr int minIntervalMs = 40;
    static constexpr int maxIntervalMs = 1000;
    static constexpr int costFactor = 3;
    // With the file parsed on a worker (RecordingLoader) the tree's slices and the view's
    // layouts after them (about 25 ms for a 1 GB run's 100,000 turns) follow each other: at
    // 20 ms a slice and its layout could add up to more than 50 ms in one event loop pass
    // (bench_runopen 1000: longest stall 44-56 ms; at 12, 32-49 ms, loaded as fast).
    static constexpr int applyBudgetMs = 12;
    static constexpr int sliceEvents = 32; // between two looks at the clock
    // Between a drain's slices: not 0, so that what the last slice set off (a view's layout,
    // due at once) runs in a turn of its own rather than in the next slice's.
    static constexpr int drainGapMs = 1;
    // Pending events beyond which a producer that can wait should (backlogFull()): a few MB of
    // events, about 50 ms of applying them.
    static constexpr qsizetype backlogLimit = 4096;

    explicit RunEventBatcher(RunModel *model, QObject *parent = nullptr);

    void enqueue(const sandscope::RunEventBatch &events);
    // Applies every pending event now, in one batch (e.g. when a live run ends).
    void flush();
    // Works off the pending events in budgeted slices back to back (the producer is done,
    // e.g. a file finished parsing); drained() follows. Cheap when nothing is pending.
    void drain();
    bool hasPending() const { return !m_pending.empty(); }
    qsizetype pendingEvents() const { return m_pendingEvents; }
    bool backlogFull() const { return m_pendingEvents >= backlogLimit; }
    // How long the next batch waits: grows with the cost of the last one.
    int intervalMs() const { return m_intervalMs; }
    // What the last batch cost after it was applied, in later event loop turns (a view laying
    // out its rows): counted with the batch's own cost for the interval to the next one.
    void setFollowUpCostMs(qint64 ms);
    // Where each enqueued batch goes once applied (RecordingLoader::giveBack: its thread frees
    // what it allocated); none: freed here.
    void setSpentBatchSink(std::function<void(sandscope::RunEventBatch &&)> sink);

Q_SIGNALS:
    // The model took a batch. Emitted synchronously; the handlers' time counts toward the
    // batch's cost, as does setFollowUpCostMs.
    void batchApplied();
    // The pending events of a drain() are all applied (by its slices or a flush()).
    void drained();
    // The backlog was full and is down to half the limit: a waiting producer may go on.
    void backlogDrained();

private:
    void applyDue();
    void setIntervalFrom(qint64 costMs);
    void noteApplied(qsizetype count);
    void retireFront();

    RunModel *m_model;
    std::deque<RunEventBatch> m_pending; // as enqueued, none empty
    int m_next = 0; // the first batch's events before this were applied
    qsizetype m_pendingEvents = 0;
    bool m_wasFull = false; // backlogDrained() is due once the backlog is down to half
    bool m_draining = false;
    QTimer m_timer;
    int m_intervalMs = minIntervalMs;
    qint64 m_lastCostMs = 0; // the last batch's, in its own turn
    std::function<void(RunEventBatch &&)> m_spentSink;
};

} // namespace sandscope
