#pragma once
// Reads a run file off the caller's thread: a RecordingReader of the loader's own and a
// RunParser work on a worker thread through the reader's synchronous API (readLine, eventsOf), and
// the parsed events come back to the loader's thread as eventsReady, in order, a slice at a
// time, then finished(). On a 1 GB recording the parsing was about half of the UI thread's
// time while a run loaded (bench/bench_runopen.cpp); the tree it feeds stays on that thread.
//
// The slices handed over but not yet delivered are bounded (inFlightLimit events): the worker
// waits when the loader's thread falls behind, as it does while paused.
//
// Events the loader's thread is done with may come back (giveBack) to be freed by the worker,
// which allocated them: freed on the loader's thread, each free took the lock of the worker's
// malloc arena while the worker was allocating in it, and the two threads waited on each other
// (a tenth of the UI thread while a 1 GB recording loaded, bench_runopen).

#include "recordings/runrecording.h"

#include <QObject>
#include <QStringList>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace sandscope {

class LineSource;

class RecordingLoader : public QObject {
    Q_OBJECT

public:
    // Parsed events on their way to the loader's thread beyond which the worker waits: about a
    // backlog of RunEventBatcher's (a few MB).
    static constexpr qsizetype inFlightLimit = 4096;

    explicit RecordingLoader(QObject *parent = nullptr);
    // Cancels a load and waits for the worker, which stops within a slice.
    ~RecordingLoader() override;

    // RecordingReader::open, on the calling thread; a loader reads one file. A named pipe is
    // opened by the worker instead, which waits for its writer and first line there (a
    // failure is then finished(false) with readError()); its format() is Unknown until then.
    bool open(const QString &path, QString *errorMessage = nullptr);
    RecordingReader::Format format() const { return m_format; }
    QString path() const { return m_path; }
    // RecordingReader::setKeepLines; before start().
    void setKeepLines(bool keep);
    // The file's lines, for a model that reads them again (LineSource is thread-safe).
    std::shared_ptr<LineSource> lineSource() const { return m_lineSource; }
    // Smaller limits (tests): RecordingReader::setLimits; before start().
    void setLimits(qint64 lineBytes, qint64 fileBytes);

    // Starts the worker: slices of at most sliceBudgetMs of parsing (or 4,000 lines), each
    // delivered as eventsReady and progress, then finished(true), or finished(false) when
    // reading failed (readError()).
    void start(int sliceBudgetMs = 8);
    // Ends the load at once: finished(false) is emitted now, and nothing after it.
    void cancel();
    bool isRunning() const { return m_running; }
    // While paused the worker reads no further slice; the ones it had already handed over
    // still arrive. resume() goes on where it stopped.
    void pause();
    void resume();
    bool isPaused() const { return m_paused; }
    // Events the worker has handed over that have not been delivered yet.
    qsizetype eventsOnTheirWay() const;
    // Events this thread is done with: freed by the worker while it runs, here once it ended.
    void giveBack(RunEventBatch &&events);
    // Of the events given back, those the worker freed (the others were freed here).
    qint64 eventsFreedByWorker() const;

    // As of the last slice delivered.
    qint64 bytesRead() const { return m_bytesRead; }
    qint64 totalBytes() const { return m_totalBytes; }
    // Once finished (RecordingReader's).
    QStringList problems() const { return m_problems; }
    QString readError() const { return m_readError; }
    qint64 lastArrivalMs() const { return m_lastArrivalMs; }

Q_SIGNALS:
    void eventsReady(const sandscope::RunEventBatch &events);
    void progress(qint64 bytesRead, qint64 totalBytes);
    void finished(bool completed);

private:
    // What the worker and the loader's thread share.
    struct Control {
        mutable std::mutex mutex;
        std::condition_variable wake;
        bool paused = false;
        qsizetype inFlight = 0; // events handed over, not yet delivered
        std::vector<RunEventBatch> givenBack; // for the worker to free
        bool workerEnded = false; // it frees nothing more
        qint64 freedByWorker = 0;
        std::atomic<bool> stop {false};
    };
    void work(int sliceBudgetMs); // the worker thread
    void parseSlices(int sliceBudgetMs);
    std::vector<RunEventBatch> takeGivenBack();
    void deliver(const RunEventBatch &events, qint64 bytesRead);
    void end(bool completed, const QStringList &problems, const QString &readError,
        qint64 lastArrivalMs, qint64 bytesRead);
    void stopWorker();

    std::unique_ptr<RecordingReader> m_reader; // the worker's while it runs; gone at the end
    Control m_control;
    std::thread m_worker;
    std::shared_ptr<LineSource> m_lineSource;
    RecordingReader::Format m_format = RecordingReader::Format::Unknown;
    QString m_path;
    bool m_openOnWorker = false; // a named pipe, opened by the worker
    bool m_running = false;
    bool m_paused = false;
    qint64 m_bytesRead = 0;
    qint64 m_totalBytes = 0;
    QStringList m_problems;
    QString m_readError;
    qint64 m_lastArrivalMs = 0;
};

} // namespace sandscope
