#include "runplayback.h"

#include "runtree/runfilterproxy.h"
#include "runtree/runmodel.h"

#include <QSet>
#include <QThread>

#include <algorithm>

namespace sandscope {

namespace {

constexpr int tickMs = 33;
// Moving forward by at most this many events inserts rows (the view keeps what is open);
// further is one reset, which costs less than that many inserts through a proxy and a tree
// (bench_playback: about 0.15 ms an event inserted, 25 ms a median jump at 100,000 events).
constexpr int incrementalLimit = 200;

void applyEnds(const QVector<RunPlayback::End> &ends, RunModel *model, int from, int to)
{
    for (const RunPlayback::End &end : ends) {
        if (end.afterEvents >= from && end.afterEvents <= to)
            model->markRunEnded(end.ms);
    }
}

} // namespace

// Every event goes through the builder once: its row and data signals mark the step targets,
// and every `spacing` events its state becomes a checkpoint. Kept (with the builder) for a run
// that may grow.
struct RunPlayback::Index {
    struct Checkpoint {
        int position = 0;
        std::shared_ptr<const RunModel::Snapshot> snapshot;
        qint64 bytes = 0;
    };
    std::unique_ptr<RunModel> builder;
    int built = 0; // events the builder has applied
    std::vector<Checkpoint> checkpoints;
    int spacing = RunPlayback::minimumSpacing;
    qint64 budgetBytes = RunPlayback::defaultBudgetBytes;
    std::vector<int> toolTargets;
    std::vector<int> errorTargets;
    std::vector<int> turnTargets;
    int scanning = -1; // the event the builder applies (its signals mark the targets)
    QSet<const void *> errorNodes;

    // Applies events [built, events.size()); false when keepGoing said stop.
    bool build(const RunEventBatch &events, const QVector<End> &ends,
        const std::function<bool(int)> &keepGoing = {});
    void startBuilder(const RunEventBatch &events, const QVector<End> &ends);
    void thin();
    qint64 bytes() const;
    const Checkpoint *atOrBefore(int position) const;
};

void RunPlayback::Index::startBuilder(const RunEventBatch &events, const QVector<End> &ends)
{
    builder = std::make_unique<RunModel>();
    // A run that grew again after its builder went: from the last checkpoint.
    if (const Checkpoint *start = atOrBefore(built)) {
        builder->beginRebuild(start->snapshot.get());
        for (int index = start->position; index < built; ++index) {
            builder->addEvent(events[index]);
            applyEnds(ends, builder.get(), index + 1, index + 1);
        }
        builder->endRebuild();
    }
    auto isError = [](const QModelIndex &index) {
        return RunFilterProxy::isErrorIndex(index.siblingAtColumn(0));
    };
    auto mark = [this](std::vector<int> &targets) {
        const int at = scanning + 1;
        if (scanning >= 0 && (targets.empty() || targets.back() < at))
            targets.push_back(at);
    };
    RunModel *model = builder.get();
    // No context object: the builder may run on a worker thread, and the calls stay direct.
    QObject::connect(model, &RunModel::rowsInserted,
        [this, model, isError, mark](const QModelIndex &parent, int first, int last) {
            for (int row = first; row <= last; ++row) {
                const QModelIndex index = model->index(row, 0, parent);
                const auto kind = RunModel::NodeKind(index.data(RunModel::KindRole).toInt());
                if (kind == RunModel::NodeKind::Turn)
                    mark(turnTargets);
                else if (kind == RunModel::NodeKind::ToolCall)
                    mark(toolTargets);
                if (isError(index) && !errorNodes.contains(index.internalPointer())) {
                    errorNodes.insert(index.internalPointer());
                    mark(errorTargets);
                }
            }
        });
    QObject::connect(
        model, &RunModel::dataChanged, [this, isError, mark](const QModelIndex &topLeft) {
            if (isError(topLeft) && !errorNodes.contains(topLeft.internalPointer())) {
                errorNodes.insert(topLeft.internalPointer());
                mark(errorTargets);
            }
        });
    if (checkpoints.empty()) {
        applyEnds(ends, model, 0, 0);
        checkpoints.push_back(Checkpoint {0, model->saveSnapshot(), 0});
        checkpoints.back().bytes = RunModel::snapshotBytes(*checkpoints.back().snapshot);
    }
}

bool RunPlayback::Index::build(const RunEventBatch &events, const QVector<End> &ends,
    const std::function<bool(int)> &keepGoing)
{
    if (!builder)
        startBuilder(events, ends);
    const int count = int(events.size());
    for (int index = built; index < count; ++index) {
        if (keepGoing && index % 2048 == 0 && !keepGoing(index))
            return false;
        scanning = index;
        builder->addEvent(events[index]);
        applyEnds(ends, builder.get(), index + 1, index + 1);
        scanning = -1;
        built = index + 1;
        if (built % spacing == 0) {
            Checkpoint checkpoint {
                built, builder->saveSnapshot(checkpoints.back().snapshot.get()), 0};
            checkpoint.bytes
                = RunModel::snapshotBytes(*checkpoint.snapshot, checkpoints.back().snapshot.get());
            checkpoints.push_back(std::move(checkpoint));
            thin();
        }
    }
    return true;
}

// Over the budget: every other checkpoint goes and the spacing doubles, so the checkpoints
// left are still evenly spaced (the first, at position 0, always stays).
void RunPlayback::Index::thin()
{
    while (bytes() > budgetBytes && checkpoints.size() > 1) {
        spacing *= 2;
        checkpoints.erase(std::remove_if(checkpoints.begin(), checkpoints.end(),
                              [this](const Checkpoint &c) { return c.position % spacing != 0; }),
            checkpoints.end());
        // A checkpoint shares the nodes unchanged since the one before it, which may be gone.
        for (size_t i = 1; i < checkpoints.size(); ++i)
            checkpoints[i].bytes = RunModel::snapshotBytes(
                *checkpoints[i].snapshot, checkpoints[i - 1].snapshot.get());
    }
}

qint64 RunPlayback::Index::bytes() const
{
    qint64 total = 0;
    for (const Checkpoint &checkpoint : checkpoints)
        total += checkpoint.bytes;
    return total;
}

const RunPlayback::Index::Checkpoint *RunPlayback::Index::atOrBefore(int position) const
{
    const auto after = std::upper_bound(checkpoints.begin(), checkpoints.end(), position,
        [](int p, const Checkpoint &c) { return p < c.position; });
    return after == checkpoints.begin() ? nullptr : &*(after - 1);
}

RunPlayback::Prepared RunPlayback::prepare(const RunEventBatch &events, LoadedRun::Clock clock,
    const QVector<End> &ends, const Options &options,
    const std::function<bool(int done)> &keepGoing, QThread *owner)
{
    Prepared prepared;
    prepared.events = events;
    prepared.clock = clock;
    prepared.ends = ends;
    std::sort(prepared.ends.begin(), prepared.ends.end(),
        [](const End &a, const End &b) { return a.afterEvents < b.afterEvents; });
    auto index = std::make_shared<Index>();
    index->budgetBytes = options.budgetBytes;
    // At most about 64 checkpoints to start with: each costs a walk over the tree.
    index->spacing = std::max(1, options.densestSpacing);
    while (qint64(index->spacing) * 64 < events.size())
        index->spacing *= 2;
    if (!index->build(prepared.events, prepared.ends, keepGoing))
        return prepared;
    // setRun() takes the builder's tree (a finished run) or keeps it building (a live run).
    if (owner && index->builder->thread() != owner)
        index->builder->moveToThread(owner);
    prepared.index = std::move(index);
    return prepared;
}

RunPlayback::RunPlayback(RunModel *model, QObject *parent)
    : QObject(parent)
    , m_model(model)
    , m_index(std::make_shared<Index>())
{
    m_timer.setInterval(tickMs);
    connect(&m_timer, &QTimer::timeout, this, [this] { advance(m_sinceTick.restart()); });
}

RunPlayback::~RunPlayback() = default;

void RunPlayback::setRun(const RunEventBatch &events, LoadedRun::Clock clock,
    const QVector<End> &ends, bool rebuildModel)
{
    setRun(prepare(events, clock, ends, m_options, {}, thread()), rebuildModel);
}

void RunPlayback::setRun(Prepared prepared, bool rebuildModel)
{
    Q_ASSERT(prepared.index);
    pause();
    m_events = std::move(prepared.events);
    m_clock = prepared.clock;
    m_ends = std::move(prepared.ends);
    m_index = std::move(prepared.index);
    m_times.clear();
    addTimes(m_events);
    m_position = eventCount();
    if (!m_ends.isEmpty() && m_ends.constLast().afterEvents == eventCount()) {
        // A finished run does not grow: the model takes the builder's tree, which shows the
        // same run and whose nodes carry the checkpoints' stamps (a first jump would
        // otherwise copy every node), and the builder goes.
        m_model->replaceWith(*m_index->builder);
        m_index->builder.reset();
        m_index->errorNodes.clear();
    } else if (rebuildModel) {
        const Index::Checkpoint *checkpoint = m_index->atOrBefore(m_position);
        m_model->beginRebuild(checkpoint->snapshot.get());
        applyQuietly(checkpoint->position, m_position);
        m_model->endRebuild();
    }
    m_playTime = double(currentTime());
    Q_EMIT positionChanged(m_position);
}

void RunPlayback::appendEvents(const RunEventBatch &events)
{
    if (events.isEmpty())
        return;
    m_events += events;
    addTimes(events);
    m_index->build(m_events, m_ends);
    Q_EMIT positionChanged(m_position); // the run's length changed
}

void RunPlayback::appendEnd(qint64 ms)
{
    m_ends.append(End {eventCount(), ms});
    // A position includes the ends after its events: the model at the run's edge ends too.
    if (m_position == eventCount())
        m_model->markRunEnded(ms);
    Index &index = *m_index;
    if (index.builder && index.built == eventCount()) {
        index.scanning = index.built - 1;
        index.builder->markRunEnded(ms);
        index.scanning = -1;
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

int RunPlayback::checkpointCount() const
{
    return int(m_index->checkpoints.size());
}

int RunPlayback::checkpointSpacing() const
{
    return m_index->spacing;
}

qint64 RunPlayback::checkpointBytes() const
{
    return m_index->bytes();
}

void RunPlayback::applyQuietly(int from, int to)
{
    for (int index = from; index < to; ++index) {
        m_model->addEvent(std::as_const(m_events)[index]);
        applyEnds(m_ends, m_model, index + 1, index + 1);
    }
}

void RunPlayback::applyForward(int position)
{
    for (int index = m_position; index < position; ++index) {
        m_model->addEvent(std::as_const(m_events)[index]);
        applyEnds(m_ends, m_model, index + 1, index + 1);
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
        const Index::Checkpoint *checkpoint = m_index->atOrBefore(position);
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
        return m_index->toolTargets;
    case Step::Error:
        return m_index->errorTargets;
    case Step::Turn:
        break;
    }
    return m_index->turnTargets;
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
