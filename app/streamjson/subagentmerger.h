#pragma once
// Puts sub-agents' events among the main thread's in the order they happened. A transcript
// keeps each sub-agent in a file of its own (SubagentSplicer), so file order would show a
// sub-agent's whole run right after its call: two sub-agents started in one message would run
// one after the other, and playback would show the second call only once the first sub-agent
// had finished. Instead each sub-agent event goes out just before the first main event that is
// later than it, and at the latest just before its call's result (unless the call went to the
// background, async_launched: that result comes at once); sub-agents' events among
// themselves go in time order too. Each file keeps its own order; an event without a time
// takes the latest time before it in its file, a sub-agent's first ones its call's time; on
// equal times a sub-agent's event comes first (it follows its call in the files).

#include "streamjson/runevents.h"

#include <QHash>
#include <QString>

#include <vector>

namespace sandscope {

class SubagentMerger {
public:
    // More events of the sub-agent run by the call `toolUseId` (all of them for a file read
    // whole; the new ones for a followed file). Held until the main thread gets past them.
    void addSubagentEvents(const QString &toolUseId, const RunEventBatch &events);
    // The main thread's next events, each preceded by the held sub-agent events before it.
    RunEventBatch merge(const RunEventBatch &mainEvents);
    // Every held event in time order: the end of a file, or the end of what a follower has
    // read so far (a running sub-agent is shown as far as it got).
    RunEventBatch flush();
    bool isHolding() const { return !m_lanes.empty(); }

private:
    struct Lane {
        QString toolUseId;
        RunEventBatch events;
        std::vector<qint64> times; // non-decreasing
        size_t next = 0;
        bool started = false; // its call went out
        bool done() const { return next >= size_t(events.size()); }
    };

    Lane &laneFor(const QString &toolUseId);
    static void startAt(Lane &lane, qint64 callTime);
    // Sends held events with times up to `time` (of started lanes) in time order.
    void releaseUpTo(qint64 time, RunEventBatch &out, bool startedOnly = true);
    void dropFinishedLanes();

    std::vector<Lane> m_lanes;
    QHash<QString, qint64> m_agentCallTimes; // Agent/Task calls gone out, with their times
    qint64 m_mainTime = 0;
};

} // namespace sandscope
