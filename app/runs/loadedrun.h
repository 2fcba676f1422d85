#pragma once
// A whole run held as its events, for the tools that look at a run after the fact (export,
// compare, playback, the CLI): every event of a recording, a stream-json capture or a
// transcript with its sub-agents, in file order, with where its times came from and what
// could not be read. The run tree is built from it with buildModel().

#include "recordings/runrecording.h"
#include "streamjson/runevents.h"

#include <QString>
#include <QStringList>

#include <atomic>
#include <functional>
#include <memory>

namespace sandscope {

class RunModel;
struct ExportedRun;

struct LoadedRun {
    // Where the events' times come from (the run view and playback say which).
    enum class Clock {
        Arrival, // a recording: when each line reached Sandscope
        Timestamps, // a transcript's or capture's own "timestamp" fields
        Order, // nothing better: events are only in order (every arrivalMs is 0)
    };

    QString source; // the file path, or "user/session" for a session read from a server
    RecordingReader::Format format = RecordingReader::Format::Unknown;
    Clock clock = Clock::Order;
    RunEventBatch events;
    QStringList problems; // what was skipped ("line N: why"), never fatal
    qint64 lines = 0; // non-blank lines read
    qint64 lastArrivalMs = 0;
    // A Sandscope JSON export (docs/export.md) holds a tree, not events: events stay empty and
    // buildModel() restores this tree and its summary.
    std::shared_ptr<const ExportedRun> exported;

    // Reads the whole file synchronously (CLI, tests, background work). False with the reason
    // when it cannot be opened or read; a corrupt line is a problem, not a failure.
    // Background work: `progress` is told now and then the bytes read and the file's size;
    // `stop` set ends the reading, also a wait for a named pipe's writer or its next line
    // (false is returned, the reason "cancelled").
    using Progress = std::function<void(qint64 done, qint64 total)>;
    static bool fromFile(const QString &path, LoadedRun *run, QString *errorMessage = nullptr,
        const Progress &progress = {}, const std::atomic<bool> *stop = nullptr);
    // Appends events of one read (a server session), keeping lastArrivalMs and the clock.
    void append(const RunEventBatch &batch);
    // Feeds every event to an empty model and ends the run (an export: restores its tree).
    void buildModel(RunModel *model) const;

    static QString clockText(Clock clock);
};

} // namespace sandscope
