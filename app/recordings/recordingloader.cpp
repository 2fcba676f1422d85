#include "recordings/recordingloader.h"

#include "recordings/linesource.h"
#include "recordings/localfilecheck.h"
#include "streamjson/runparser.h"

#include <QElapsedTimer>

namespace sandscope {

namespace {
constexpr int maxLinesPerSlice = 4000;
} // namespace

RecordingLoader::RecordingLoader(QObject *parent)
    : QObject(parent)
    , m_reader(std::make_unique<RecordingReader>())
{
}

RecordingLoader::~RecordingLoader()
{
    stopWorker();
}

bool RecordingLoader::open(const QString &path, QString *errorMessage)
{
    if (!m_reader || m_running || !m_path.isEmpty())
        return false; // one file per loader
    if (LocalFileCheck::isNamedPipe(path)) {
        m_path = path; // opened by the worker: its first line may be long in coming
        m_openOnWorker = true;
        return true;
    }
    if (!m_reader->open(path, errorMessage))
        return false;
    m_format = m_reader->format();
    m_path = path;
    m_lineSource = m_reader->lineSource();
    m_totalBytes = m_reader->totalBytes();
    return true;
}

void RecordingLoader::setKeepLines(bool keep)
{
    if (m_reader)
        m_reader->setKeepLines(keep);
}

void RecordingLoader::setLimits(qint64 lineBytes, qint64 fileBytes)
{
    if (m_reader)
        m_reader->setLimits(lineBytes, fileBytes);
}

void RecordingLoader::start(int sliceBudgetMs)
{
    if (m_running || m_worker.joinable() || !m_reader)
        return;
    m_running = true;
    m_reader->setStopFlag(&m_control.stop);
    m_worker = std::thread([this, sliceBudgetMs] { work(std::max(1, sliceBudgetMs)); });
}

void RecordingLoader::work(int sliceBudgetMs)
{
    parseSlices(sliceBudgetMs);
    // What comes back from now on is freed by the loader's thread.
    std::vector<RunEventBatch> givenBack; // freed on leaving, here
    {
        std::lock_guard<std::mutex> lock(m_control.mutex);
        m_control.workerEnded = true;
        givenBack = takeGivenBack();
    }
}

// With the control's mutex held; the caller frees them (on the worker).
std::vector<RunEventBatch> RecordingLoader::takeGivenBack()
{
    std::vector<RunEventBatch> givenBack;
    givenBack.swap(m_control.givenBack);
    for (const RunEventBatch &batch : givenBack)
        m_control.freedByWorker += batch.size();
    return givenBack;
}

void RecordingLoader::parseSlices(int sliceBudgetMs)
{
    Control &control = m_control;
    // The parser's tables (every call's id) are many small blocks: built and freed here, off
    // the loader's thread.
    RunParser parser;
    if (m_openOnWorker) {
        QString error;
        const bool opened = m_reader->open(m_path, &error);
        if (control.stop.load())
            return;
        if (!opened) {
            QMetaObject::invokeMethod(
                this, [this, error] { end(false, {}, error, 0, 0); }, Qt::QueuedConnection);
            return;
        }
        QMetaObject::invokeMethod(
            this,
            [this, format = m_reader->format(), lineSource = m_reader->lineSource()] {
                m_format = format;
                m_lineSource = lineSource;
            },
            Qt::QueuedConnection);
    }
    QElapsedTimer clock;
    bool done = false;
    while (!done) {
        {
            std::unique_lock<std::mutex> lock(control.mutex);
            for (;;) {
                control.wake.wait(lock, [&control] {
                    return control.stop.load() || !control.givenBack.empty()
                        || (!control.paused && control.inFlight < inFlightLimit);
                });
                if (control.givenBack.empty())
                    break;
                std::vector<RunEventBatch> givenBack = takeGivenBack();
                lock.unlock();
                givenBack.clear(); // freed here, in the arena they were allocated in
                lock.lock();
            }
        }
        if (control.stop.load())
            return; // cancelled: the loader has said so already
        RunEventBatch batch;
        clock.start();
        for (int lines = 0; lines < maxLinesPerSlice && clock.elapsed() < sliceBudgetMs; ++lines) {
            if (!batch.isEmpty() && m_reader->wouldWait())
                break; // a quiet pipe: what came so far is shown while the worker waits
            RecordedLine line;
            if (!m_reader->readLine(&line)) {
                done = true;
                break;
            }
            batch += m_reader->eventsOf(parser, line);
        }
        if (done)
            batch += m_reader->finishReading();
        {
            std::lock_guard<std::mutex> lock(control.mutex);
            control.inFlight += batch.size();
        }
        const qint64 bytesRead = m_reader->bytesRead();
        QMetaObject::invokeMethod(
            this, [this, batch, bytesRead] { deliver(batch, bytesRead); }, Qt::QueuedConnection);
    }
    if (control.stop.load())
        return;
    const bool completed = m_reader->readError().isEmpty();
    QMetaObject::invokeMethod(
        this,
        [this, completed, problems = m_reader->problems(), readError = m_reader->readError(),
            lastArrivalMs = m_reader->lastArrivalMs(), bytesRead = m_reader->bytesRead()] {
            end(completed, problems, readError, lastArrivalMs, bytesRead);
        },
        Qt::QueuedConnection);
}

void RecordingLoader::deliver(const RunEventBatch &events, qint64 bytesRead)
{
    {
        std::lock_guard<std::mutex> lock(m_control.mutex);
        m_control.inFlight -= events.size();
    }
    m_control.wake.notify_one();
    if (!m_running)
        return; // cancelled meanwhile
    m_bytesRead = bytesRead;
    if (!events.isEmpty())
        Q_EMIT eventsReady(events);
    if (m_running) // not cancelled by a slot connected to eventsReady
        Q_EMIT progress(m_bytesRead, m_totalBytes);
}

void RecordingLoader::end(bool completed, const QStringList &problems, const QString &readError,
    qint64 lastArrivalMs, qint64 bytesRead)
{
    if (!m_running)
        return;
    stopWorker(); // it has ended: this was its last word
    // What reading needed goes now (simdjson's buffers sized to the longest line): the file's
    // lines stay readable through lineSource().
    m_reader.reset();
    m_problems = problems;
    m_readError = readError;
    m_lastArrivalMs = lastArrivalMs;
    m_bytesRead = bytesRead;
    m_running = false;
    m_paused = false;
    Q_EMIT finished(completed);
}

void RecordingLoader::cancel()
{
    if (!m_running)
        return;
    m_running = false;
    m_paused = false;
    m_control.stop = true;
    m_control.wake.notify_one();
    Q_EMIT finished(false);
}

void RecordingLoader::pause()
{
    if (!m_running)
        return;
    m_paused = true;
    std::lock_guard<std::mutex> lock(m_control.mutex);
    m_control.paused = true;
}

void RecordingLoader::resume()
{
    if (!m_running)
        return;
    m_paused = false;
    {
        std::lock_guard<std::mutex> lock(m_control.mutex);
        m_control.paused = false;
    }
    m_control.wake.notify_one();
}

void RecordingLoader::giveBack(RunEventBatch &&events)
{
    RunEventBatch mine = std::move(events);
    {
        std::lock_guard<std::mutex> lock(m_control.mutex);
        if (!m_worker.joinable() || m_control.workerEnded || m_control.stop.load())
            return; // freed here, on leaving
        m_control.givenBack.push_back(std::move(mine));
    }
    m_control.wake.notify_one();
}

qint64 RecordingLoader::eventsFreedByWorker() const
{
    std::lock_guard<std::mutex> lock(m_control.mutex);
    return m_control.freedByWorker;
}

qsizetype RecordingLoader::eventsOnTheirWay() const
{
    std::lock_guard<std::mutex> lock(m_control.mutex);
    return m_control.inFlight;
}

void RecordingLoader::stopWorker()
{
    if (!m_worker.joinable())
        return;
    m_control.stop = true;
    m_control.wake.notify_one();
    m_worker.join();
}

} // namespace sandscope
