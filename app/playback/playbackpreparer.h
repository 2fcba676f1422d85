#pragma once
// Makes a run ready for playback on a worker thread, so entering playback never freezes the
// window: for a run opened from a file, reads the file again (the page may show only a part
// of it, and it may have grown), then builds the checkpoints and step targets
// (RunPlayback::prepare), with progress, and cancellable at any moment.

#include "playback/runplayback.h"
#include "runs/loadedrun.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

class QThread;

namespace sandscope {

class PlaybackPreparer : public QObject {
    Q_OBJECT

public:
    explicit PlaybackPreparer(QObject *parent = nullptr);
    // Cancels what is running and waits for the worker to stop.
    ~PlaybackPreparer() override;

    void setOptions(const RunPlayback::Options &options) { m_options = options; }
    // The run in `path`; `endAtLastEvent`: the run ended where the file ends (its load
    // completed), as the page showed it.
    void startFromFile(const QString &path, bool endAtLastEvent);
    // The events a page holds (live runs, followed sessions).
    void startFromEvents(
        const RunEventBatch &events, LoadedRun::Clock clock, const QVector<RunPlayback::End> &ends);
    // finished(false, "") follows once the worker has stopped.
    void cancel();
    bool isRunning() const { return m_worker != nullptr; }

    // After finished(true): the prepared run, and the lines of the file that were skipped.
    RunPlayback::Prepared takeResult();
    QStringList problems() const;

Q_SIGNALS:
    // 0 to 100; `what` says which step ("Reading the file", "Building checkpoints").
    void progress(int percent, const QString &what);
    // ok: takeResult() holds the run. Otherwise `error` says why, or is empty when cancelled.
    void finished(bool ok, const QString &error);

private:
    struct Job;
    void run(std::function<void(Job &)> work);
    void report(Job &job, int percent, const QString &what);

    RunPlayback::Options m_options;
    std::shared_ptr<Job> m_job;
    QThread *m_worker = nullptr;
};

} // namespace sandscope
