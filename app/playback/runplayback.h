#pragma once
// Playback of a run as it happened (issue 14): a RunModel shown at any moment of its events.
// A position is a number of events: the model then holds exactly what those events (and the
// run's end, when it ended there) build, as a fresh model fed only them would. Jumps restore the
// nearest checkpoint (a RunModel::Snapshot taken every checkpointSpacing() events: about 64 to
// start with, fewer for big runs so that they stay within a memory budget; unchanged nodes are
// shared between them), apply the few events after it and reset the model once; short moves
// forward and playing apply events as they come (rows are inserted, no reset).
//
// The checkpoints and step targets (an Index) come from one pass over every event in a model
// of its own: about a second at 100,000 events, so the app prepares them on a worker thread
// (prepare(), PlaybackPreparer) and hands them over with setRun(Prepared).
//
// Times: the run's clock (LoadedRun::Clock) gives every event a time on one axis: milliseconds
// since the epoch for arrival times and timestamps (made non-decreasing), the event's number
// when the run has no times. Playing at 1x moves through that axis in real time (10 events a
// second for event order) and skips idle gaps longer than idleGapMs down to idleGapMs.

#include "runs/loadedrun.h"
#include "streamjson/runevents.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <QVector>

#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

class QThread;

namespace sandscope {

class RunModel;

class RunPlayback : public QObject {
    Q_OBJECT

public:
    enum class Step { ToolCall, Error, Turn };
    Q_ENUM(Step)

    // markRunEnded ran after `afterEvents` events, at `ms`.
    struct End {
        int afterEvents = 0;
        qint64 ms = 0;
    };

    static constexpr qint64 idleGapMs = 2000;
    static constexpr int orderEventsPerSecond = 10; // event order only, at 1x
    static constexpr qint64 defaultBudgetBytes = 96LL * 1024 * 1024;
    static constexpr int minimumSpacing = 256;

    struct Index;
    // A run made ready for playback: its events, clock, ends and index.
    struct Prepared {
        RunEventBatch events;
        LoadedRun::Clock clock = LoadedRun::Clock::Order;
        QVector<End> ends; // sorted
        std::shared_ptr<Index> index;
    };
    struct Options {
        int densestSpacing = minimumSpacing; // events between checkpoints, at least
        qint64 budgetBytes = defaultBudgetBytes;
    };
    // Builds the index on the calling thread (any thread). `keepGoing` is asked every few
    // thousand events with the number done; false cancels (the result has no index). The
    // model that keeps building a run that may grow is handed to `owner`'s thread.
    static Prepared prepare(const RunEventBatch &events, LoadedRun::Clock clock,
        const QVector<End> &ends, const Options &options,
        const std::function<bool(int done)> &keepGoing, QThread *owner);

    // Plays into `model`, which must already show the whole run when setRun is called.
    explicit RunPlayback(RunModel *model, QObject *parent = nullptr);
    ~RunPlayback() override;

    // The run the model shows: its events in order, its clock and where it ended. Builds the
    // checkpoints (one pass over every event in a model of its own) and the step targets; the
    // position is the end. A finished run's model takes that model's tree (one reset: the
    // same run, with the nodes the checkpoints share). A run that may grow keeps what the
    // model shows (rebuildModel: what it shows is not the end, e.g. it grew meanwhile; the
    // model is reset to the end).
    void setRun(const RunEventBatch &events, LoadedRun::Clock clock, const QVector<End> &ends,
        bool rebuildModel = false);
    // The same with the index prepared already (it must have one).
    void setRun(Prepared prepared, bool rebuildModel = false);
    // More of a live run arrived while playing it: the run grows, the model stays where it is.
    void appendEvents(const RunEventBatch &events);
    void appendEnd(qint64 ms);

    RunModel *model() const { return m_model; }
    const RunEventBatch &events() const { return m_events; }
    int eventCount() const { return int(m_events.size()); }
    int position() const { return m_position; }
    LoadedRun::Clock clock() const { return m_clock; }
    bool usesEventOrder() const { return m_clock == LoadedRun::Clock::Order; }

    // The axis: ms since the epoch (or the event number for event order) of a position,
    // i.e. of the last event it includes (position 0: the first event's).
    qint64 timeAt(int position) const;
    qint64 startTime() const { return timeAt(0); }
    qint64 endTime() const { return timeAt(eventCount()); }
    qint64 currentTime() const;
    // The position that includes every event up to `time`.
    int positionAtTime(qint64 time) const;

    void jumpToPosition(int position);
    void jumpToTime(qint64 time);
    // To the next (previous) moment a tool call started, an error showed or a turn started,
    // counted from the position. False (and no move) when there is none.
    bool step(Step step, bool forward);
    // Positions just after each such event, in order (the scrubber's ticks).
    const std::vector<int> &targets(Step step) const;

    bool isPlaying() const { return m_timer.isActive(); }
    double speed() const { return m_speed; }
    void setSpeed(double speed);
    void play();
    void pause();
    void setPlaying(bool playing);
    // One tick of playing, `elapsedMs` of real time later (the timer calls it; tests too).
    void advance(qint64 elapsedMs);

    int checkpointCount() const;
    int checkpointSpacing() const;
    qint64 checkpointBytes() const;
    void setBudgetBytes(qint64 bytes) { m_options.budgetBytes = bytes; }
    // Before setRun: the densest spacing (tests use a few events to exercise restores).
    void setMinimumSpacing(int events) { m_options.densestSpacing = std::max(1, events); }

Q_SIGNALS:
    void positionChanged(int position);
    void playingChanged(bool playing);
    // Playing reached the end of the run.
    void reachedEnd();

private:
    void addTimes(const RunEventBatch &events);
    // Applies events [m_position, position) to the model as rows inserted (playing forward).
    void applyForward(int position);
    void applyQuietly(int from, int to);

    RunModel *m_model;
    RunEventBatch m_events;
    std::vector<qint64> m_times; // per event, non-decreasing
    LoadedRun::Clock m_clock = LoadedRun::Clock::Order;
    QVector<End> m_ends;
    int m_position = 0;
    Options m_options;
    std::shared_ptr<Index> m_index;

    QTimer m_timer;
    QElapsedTimer m_sinceTick;
    double m_speed = 1;
    double m_playTime = 0; // the axis time playing has reached (between event times)
};

} // namespace sandscope
