#include "subagentmerger.h"

#include <algorithm>
#include <limits>

namespace sandscope {

namespace {

bool isAgentCall(const RunEvent &event)
{
    return event.kind == RunEvent::ToolUse
        && (event.toolName == QLatin1String("Agent") || event.toolName == QLatin1String("Task"));
}

} // namespace

SubagentMerger::Lane &SubagentMerger::laneFor(const QString &toolUseId)
{
    for (Lane &lane : m_lanes) {
        if (lane.toolUseId == toolUseId)
            return lane;
    }
    Lane lane;
    lane.toolUseId = toolUseId;
    m_lanes.push_back(std::move(lane));
    return m_lanes.back();
}

void SubagentMerger::startAt(Lane &lane, qint64 callTime)
{
    lane.started = true;
    for (size_t i = lane.next; i < lane.times.size(); ++i)
        lane.times[i] = std::max(lane.times[i], callTime);
}

void SubagentMerger::addSubagentEvents(const QString &toolUseId, const RunEventBatch &events)
{
    if (events.isEmpty())
        return;
    Lane &lane = laneFor(toolUseId);
    qint64 time = lane.times.empty() ? 0 : lane.times.back();
    for (const RunEvent &event : events) {
        time = std::max(time, event.arrivalMs);
        lane.events.append(event);
        lane.times.push_back(time);
    }
    const auto call = m_agentCallTimes.constFind(toolUseId);
    if (call != m_agentCallTimes.constEnd())
        startAt(lane, *call);
}

void SubagentMerger::releaseUpTo(qint64 time, RunEventBatch &out, bool startedOnly)
{
    for (;;) {
        Lane *earliest = nullptr;
        for (Lane &lane : m_lanes) {
            if (lane.done() || (startedOnly && !lane.started) || lane.times[lane.next] > time)
                continue;
            if (!earliest || lane.times[lane.next] < earliest->times[earliest->next])
                earliest = &lane;
        }
        if (!earliest)
            return;
        out.append(std::move(earliest->events[qsizetype(earliest->next)]));
        ++earliest->next;
    }
}

void SubagentMerger::dropFinishedLanes()
{
    m_lanes.erase(std::remove_if(
                      m_lanes.begin(), m_lanes.end(), [](const Lane &lane) { return lane.done(); }),
        m_lanes.end());
}

RunEventBatch SubagentMerger::merge(const RunEventBatch &mainEvents)
{
    if (m_lanes.empty()) {
        for (const RunEvent &event : mainEvents) {
            m_mainTime = std::max(m_mainTime, event.arrivalMs);
            if (isAgentCall(event))
                m_agentCallTimes.insert(event.toolUseId, m_mainTime);
        }
        return mainEvents;
    }
    RunEventBatch out;
    out.reserve(mainEvents.size());
    for (const RunEvent &event : mainEvents) {
        m_mainTime = std::max(m_mainTime, event.arrivalMs);
        releaseUpTo(m_mainTime, out);
        if (event.kind == RunEvent::ToolResult
            && event.structuredStatus != QLatin1String("async_launched")) {
            // A sub-agent is over when its call returns: all of it goes first. A background
            // call returns at once (the REPL's Agent calls, tests/data/transcripts/interactive):
            // its sub-agent goes on by time after it, as the stream has it.
            for (Lane &lane : m_lanes) {
                if (lane.toolUseId != event.toolUseId || lane.done())
                    continue;
                releaseUpTo(std::max(m_mainTime, lane.times.back()), out);
                while (!lane.done())
                    out.append(std::move(lane.events[qsizetype(lane.next++)]));
            }
        }
        out.append(event);
        if (isAgentCall(event)) {
            m_agentCallTimes.insert(event.toolUseId, m_mainTime);
            for (Lane &lane : m_lanes) {
                if (lane.toolUseId == event.toolUseId)
                    startAt(lane, m_mainTime);
            }
        }
    }
    dropFinishedLanes();
    return out;
}

RunEventBatch SubagentMerger::flush()
{
    RunEventBatch out;
    releaseUpTo(std::numeric_limits<qint64>::max(), out, false);
    m_lanes.clear();
    return out;
}

} // namespace sandscope
