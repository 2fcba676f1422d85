#include "playbackpreparer.h"

#include <QThread>

#include <atomic>

namespace sandscope {

struct PlaybackPreparer::Job {
    std::atomic_bool cancelled {false};
    std::atomic_int reported {-1}; // the last percent sent
    RunPlayback::Prepared result;
    QStringList problems;
    QString error;
    bool ok = false;
};

PlaybackPreparer::PlaybackPreparer(QObject *parent)
    : QObject(parent)
{
}

PlaybackPreparer::~PlaybackPreparer()
{
    if (m_worker) {
        m_job->cancelled = true;
        m_worker->wait();
        delete m_worker;
    }
}

void PlaybackPreparer::report(Job &job, int percent, const QString &what)
{
    // Queued to this object's thread; only when the figure changed.
    if (job.reported.exchange(percent) == percent)
        return;
    QMetaObject::invokeMethod(
        this, [this, percent, what] { Q_EMIT progress(percent, what); }, Qt::QueuedConnection);
}

void PlaybackPreparer::startFromFile(const QString &path, bool endAtLastEvent)
{
    const RunPlayback::Options options = m_options;
    QThread *owner = thread();
    run([this, path, endAtLastEvent, options, owner](Job &job) {
        const QString reading = tr("Reading the file");
        LoadedRun loaded;
        const bool read = LoadedRun::fromFile(
            path, &loaded, &job.error,
            [this, &job, &reading](qint64 done, qint64 total) {
                report(job, total > 0 ? int(done * 50 / total) : 0, reading);
            },
            &job.cancelled);
        if (!read || job.cancelled)
            return;
        job.problems = loaded.problems;
        if (loaded.events.isEmpty()) {
            job.error = tr("the run has no events");
            return;
        }
        QVector<RunPlayback::End> ends;
        if (endAtLastEvent)
            ends.append(RunPlayback::End {int(loaded.events.size()), loaded.lastArrivalMs});
        const QString building = tr("Building checkpoints");
        const int count = int(loaded.events.size());
        job.result = RunPlayback::prepare(
            loaded.events, loaded.clock, ends, options,
            [this, &job, &building, count](int done) {
                report(job, 50 + int(qint64(done) * 50 / count), building);
                return !job.cancelled;
            },
            owner);
        job.ok = job.result.index != nullptr;
    });
}

void PlaybackPreparer::startFromEvents(
    const RunEventBatch &events, LoadedRun::Clock clock, const QVector<RunPlayback::End> &ends)
{
    const RunPlayback::Options options = m_options;
    QThread *owner = thread();
    run([this, events, clock, ends, options, owner](Job &job) {
        const QString building = tr("Building checkpoints");
        const int count = std::max(1, int(events.size()));
        job.result = RunPlayback::prepare(
            events, clock, ends, options,
            [this, &job, &building, count](int done) {
                report(job, int(qint64(done) * 100 / count), building);
                return !job.cancelled;
            },
            owner);
        job.ok = job.result.index != nullptr;
    });
}

void PlaybackPreparer::run(std::function<void(Job &)> work)
{
    if (m_worker) {
        // The one running is dropped: its finished() still comes, as cancelled.
        m_job->cancelled = true;
        m_worker->wait();
        delete std::exchange(m_worker, nullptr);
        Q_EMIT finished(false, QString());
    }
    auto job = std::make_shared<Job>();
    m_job = job;
    m_worker = QThread::create([job, work = std::move(work)] { work(*job); });
    connect(m_worker, &QThread::finished, this, [this, job] {
        if (job != m_job)
            return;
        m_worker->wait(); // finished() comes just before the thread ends
        delete std::exchange(m_worker, nullptr);
        const bool ok = job->ok && !job->cancelled;
        if (!ok) // cancelled after the work was done still hands out nothing
            job->result = RunPlayback::Prepared();
        Q_EMIT finished(ok, ok || job->cancelled ? QString() : job->error);
    });
    m_worker->start();
}

void PlaybackPreparer::cancel()
{
    if (m_job)
        m_job->cancelled = true;
}

RunPlayback::Prepared PlaybackPreparer::takeResult()
{
    if (!m_job)
        return {};
    return std::exchange(m_job->result, RunPlayback::Prepared());
}

QStringList PlaybackPreparer::problems() const
{
    return m_job ? m_job->problems : QStringList();
}

} // namespace sandscope
