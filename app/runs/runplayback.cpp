#include "runplayback.h"

#include "runs/runfilterproxy.h"
#include "runs/runmodel.h"

#include <algorithm>

namespace sandscope {

namespace {

constexpr int tickMs = 33;
// Moving forward by at most this many events inserts rows (the view keeps what is open);
// further is one reset, which costs less than that many inserts through a proxy and a tree
// (bench_playback: about 0.15 ms an event inserted, 25 ms a median jump at 100,000 events).
constexpr int incrementalLimit = 200;

} // namespace

struct RunPlayback::Checkpoint {
    int position = 0;
    std::shared_ptr<const RunModel::Snapshot> snapshot;
    qint64 bytes = 0;
};

RunPlayback::RunPlayback(RunModel *model, QObject *parent)
    : QObject(parent)
    , m_model(model)
{
    m_timer.setInterval(tickMs);
    connect(&m_timer, &QTimer::timeout, this, [this] { advance(m_sinceTick.restart()); });
}

RunPlayback::~RunPlayback() = default;

void RunPlayback::setRun(const RunEventBatch &events, LoadedRun::Clock clock,
    const QVector<End> &ends, bool rebuildModel)
{
    pause();
    m_events = events;
    m_clock = clock;
    m_ends = ends;
    std::sort(m_ends.begin(), m_ends.end(),
        [](const End &a, const End &b) { return a.afterEvents < b.afterEvents; });
    m_times.clear();
    addTimes(m_events);
    m_builder.reset();
    m_built = 0;
    m_checkpoints.clear();
    // At most about 64 checkpoints to start with: each costs a walk over the tree.
    m_spacing = m_minimumSpacing;
    while (qint64(m_spacing) * 64 < events.size())
        m_spacing *= 2;
    m_toolTargets.clear();
    m_errorTargets.clear();
    m_turnTargets.clear();
    m_errorNodes.clear();
    buildFrom(0);
    m_position = eventCount();
    if (rebuildModel) {
        const Checkpoint *checkpoint = checkpointAtOrBefore(m_position);
        m_model->beginRebuild(checkpoint->snapshot.get());
        applyQuietly(checkpoint->position, m_position);
        m_model->endRebuild();
    }
    m_playTime = double(currentTime());
    // A finished run does not grow: its builder (a second copy of the tree) can go.
    if (!m_ends.isEmpty() && m_ends.constLast().afterEvents == eventCount()) {
        m_builder.reset();
        m_errorNodes.clear();
    }
    Q_EMIT positionChanged(m_position);
}

void RunPlayback::appendEvents(const RunEventBatch &events)
{
    if (events.isEmpty())
        return;
    m_events += events;
    addTimes(events);
    buildFrom(m_built);
    Q_EMIT positionChanged(m_position); // the run's length changed
}

void RunPlayback::appendEnd(qint64 ms)
{
    m_ends.append(End {eventCount(), ms});
    // A position includes the ends after its events: the model at the run's edge ends too.
    if (m_position == eventCount())
        m_model->markRunEnded(ms);
    if (m_builder && m_built == eventCount()) {
        m_scanning = m_built - 1;
        m_builder->markRunEnded(ms);
        m_scanning = -1;
    }
}

void RunPlayback::addTimes(const RunEventBatch &events)
{
    for (const RunEvent &event : events) {
        const qint64 previous = m_times.empty() ? 0 : m_times.back();
        if (m_clock == LoadedRun::Clock::Order)
            m_times.push_back(qint64(m_times.size()) + 1);
        else
            m_times.push_back(std::max(previous, event.arrivalMs));
    }
    // Events before the first one with a time take its time.
    if (m_clock != LoadedRun::Clock::Order && !m_times.empty() && m_times.front() <= 0) {
        const auto first
            = std::find_if(m_times.begin(), m_times.end(), [](qint64 t) { return t > 0; });
        if (first != m_times.end())
            std::fill(m_times.begin(), first, *first);
    }
}

qint64 RunPlayback::timeAt(int position) const
{
    if (m_clock == LoadedRun::Clock::Order)
        return position;
    if (m_times.empty())
        return 0;
    position = std::clamp(position, 0, eventCount());
    return position == 0 ? m_times.front() : m_times[size_t(position) - 1];
}

qint64 RunPlayback::currentTime() const
{
    return timeAt(m_position);
}

int RunPlayback::positionAtTime(qint64 time) const
{
    return int(std::upper_bound(m_times.begin(), m_times.end(), time) - m_times.begin());
}

// Every event goes through the builder once: its row and data signals mark the step targets,
// and every m_spacing events its state becomes a checkpoint.
void RunPlayback::buildFrom(int position)
{
    if (!m_builder) {
        m_builder = std::make_unique<RunModel>();
        const Checkpoint *start = checkpointAtOrBefore(position);
        if (start) {
            m_builder->beginRebuild(start->snapshot.get());
            for (int index = start->position; index < position; ++index) {
                m_builder->addEvent(m_events[index]);
                applyEnds(m_builder.get(), index + 1, index + 1);
            }
            m_builder->endRebuild();
        }
        auto isError = [](const QModelIndex &index) {
            return RunFilterProxy::isErrorIndex(index.siblingAtColumn(0));
        };
        auto mark = [this](std::vector<int> &targets) {
            const int at = m_scanning + 1;
            if (m_scanning >= 0 && (targets.empty() || targets.back() < at))
                targets.push_back(at);
        };
        RunModel *builder = m_builder.get();
        connect(builder, &RunModel::rowsInserted, this,
            [this, builder, isError, mark](const QModelIndex &parent, int first, int last) {
                for (int row = first; row <= last; ++row) {
                    const QModelIndex index = builder->index(row, 0, parent);
                    const auto kind = RunModel::NodeKind(index.data(RunModel::KindRole).toInt());
                    if (kind == RunModel::NodeKind::Turn)
                        mark(m_turnTargets);
                    else if (kind == RunModel::NodeKind::ToolCall)
                        mark(m_toolTargets);
                    if (isError(index) && !m_errorNodes.contains(index.internalPointer())) {
                        m_errorNodes.insert(index.internalPointer());
                        mark(m_errorTargets);
                    }
                }
            });
        connect(builder, &RunModel::dataChanged, this,
            [this, isError, mark](const QModelIndex &topLeft) {
                if (isError(topLeft) && !m_errorNodes.contains(topLeft.internalPointer())) {
                    m_errorNodes.insert(topLeft.internalPointer());
                    mark(m_errorTargets);
                }
            });
        if (m_checkpoints.empty()) {
            applyEnds(builder, 0, 0);
            m_checkpoints.push_back(Checkpoint {0, builder->saveSnapshot(), 0});
            m_checkpoints.back().bytes = RunModel::snapshotBytes(*m_checkpoints.back().snapshot);
        }
    }
    for (int index = m_built; index < eventCount(); ++index) {
        m_scanning = index;
        m_builder->addEvent(m_events[index]);
        applyEnds(m_builder.get(), index + 1, index + 1);
        m_scanning = -1;
        m_built = index + 1;
        if (m_built % m_spacing == 0) {
            Checkpoint checkpoint {
                m_built, m_builder->saveSnapshot(m_checkpoints.back().snapshot.get()), 0};
            checkpoint.bytes = RunModel::snapshotBytes(
                *checkpoint.snapshot, m_checkpoints.back().snapshot.get());
            m_checkpoints.push_back(std::move(checkpoint));
            thinCheckpoints();
        }
    }
}

// Over the budget: every other checkpoint goes and the spacing doubles, so the checkpoints
// left are still evenly spaced (the first, at position 0, always stays).
void RunPlayback::thinCheckpoints()
{
    while (checkpointBytes() > m_budgetBytes && m_checkpoints.size() > 1) {
        m_spacing *= 2;
        m_checkpoints.erase(
            std::remove_if(m_checkpoints.begin(), m_checkpoints.end(),
                [this](const Checkpoint &c) { return c.position % m_spacing != 0; }),
            m_checkpoints.end());
        // A checkpoint shares the nodes unchanged since the one before it, which may be gone.
        for (size_t i = 1; i < m_checkpoints.size(); ++i)
            m_checkpoints[i].bytes = RunModel::snapshotBytes(
                *m_checkpoints[i].snapshot, m_checkpoints[i - 1].snapshot.get());
    }
}

int RunPlayback::checkpointCount() const
{
    return int(m_checkpoints.size());
}

qint64 RunPlayback::checkpointBytes() const
{
    qint64 bytes = 0;
    for (const Checkpoint &checkpoint : m_checkpoints)
        bytes += checkpoint.bytes;
    return bytes;
}

const RunPlayback::Checkpoint *RunPlayback::checkpointAtOrBefore(int position) const
{
    const auto after = std::upper_bound(m_checkpoints.begin(), m_checkpoints.end(), position,
        [](int p, const Checkpoint &c) { return p < c.position; });
    return after == m_checkpoints.begin() ? nullptr : &*(after - 1);
}

void RunPlayback::applyEnds(RunModel *model, int from, int to) const
{
    for (const End &end : m_ends) {
        if (end.afterEvents >= from && end.afterEvents <= to)
            model->markRunEnded(end.ms);
    }
}

void RunPlayback::applyQuietly(int from, int to)
{
    for (int index = from; index < to; ++index) {
        m_model->addEvent(m_events[index]);
        applyEnds(m_model, index + 1, index + 1);
    }
}

void RunPlayback::applyForward(int position)
{
    for (int index = m_position; index < position; ++index) {
        m_model->addEvent(m_events[index]);
        applyEnds(m_model, index + 1, index + 1);
    }
    m_position = position;
    Q_EMIT positionChanged(m_position);
}

void RunPlayback::jumpToPosition(int position)
{
    position = std::clamp(position, 0, eventCount());
    if (position == m_position)
        return;
    if (position > m_position && position - m_position <= incrementalLimit) {
        applyForward(position);
    } else {
        const Checkpoint *checkpoint = checkpointAtOrBefore(position);
        // From where the model is when that is nearer than the checkpoint.
        if (position > m_position && (!checkpoint || checkpoint->position <= m_position)) {
            m_model->beginRebuild();
            applyQuietly(m_position, position);
        } else {
            m_model->beginRebuild(checkpoint->snapshot.get());
            applyQuietly(checkpoint->position, position);
        }
        m_model->endRebuild();
        m_position = position;
        Q_EMIT positionChanged(m_position);
    }
    m_playTime = double(currentTime());
}

void RunPlayback::jumpToTime(qint64 time)
{
    jumpToPosition(positionAtTime(time));
}

const std::vector<int> &RunPlayback::targets(Step step) const
{
    switch (step) {
    case Step::ToolCall:
        return m_toolTargets;
    case Step::Error:
        return m_errorTargets;
    case Step::Turn:
        break;
    }
    return m_turnTargets;
}

bool RunPlayback::step(Step step, bool forward)
{
    const std::vector<int> &list = targets(step);
    int target = -1;
    if (forward) {
        const auto it = std::upper_bound(list.begin(), list.end(), m_position);
        if (it != list.end())
            target = *it;
    } else {
        const auto it = std::lower_bound(list.begin(), list.end(), m_position);
        if (it != list.begin())
            target = *(it - 1);
    }
    if (target < 0)
        return false;
    jumpToPosition(target);
    return true;
}

void RunPlayback::setSpeed(double speed)
{
    m_speed = std::max(0.01, speed);
}

void RunPlayback::play()
{
    if (isPlaying())
        return;
    if (m_position >= eventCount())
        jumpToPosition(0); // from the start again
    m_playTime = double(currentTime());
    m_sinceTick.start();
    m_timer.start();
    Q_EMIT playingChanged(true);
}

void RunPlayback::pause()
{
    if (!isPlaying())
        return;
    m_timer.stop();
    Q_EMIT playingChanged(false);
}

void RunPlayback::setPlaying(bool playing)
{
    if (playing)
        play();
    else
        pause();
}

void RunPlayback::advance(qint64 elapsedMs)
{
    if (m_position < eventCount()) {
        const bool order = m_clock == LoadedRun::Clock::Order;
        const double units
            = double(elapsedMs) * m_speed * (order ? orderEventsPerSecond / 1000.0 : 1.0);
        const double next = double(m_times[size_t(m_position)]);
        // Waiting for the model or the user is nobody's work: long idle gaps shrink.
        if (!order && next - m_playTime > double(idleGapMs))
            m_playTime = next - double(idleGapMs);
        const double reached = m_playTime + units;
        const int target = positionAtTime(qint64(reached));
        if (target - m_position > incrementalLimit)
            jumpToPosition(target);
        else if (target > m_position)
            applyForward(target);
        m_playTime = reached;
    }
    if (m_position >= eventCount()) {
        pause();
        Q_EMIT reachedEnd();
    }
}

} // namespace sandscope
