#include "runpageplayback.h"

#include "playback/playbackpreparer.h"
#include "runs/playbackbar.h"
#include "runs/runpage.h"
#include "ui_runpage.h"

#include <QSignalBlocker>

#include <algorithm>
#include <utility>

namespace sandscope {

RunPagePlayback::RunPagePlayback(RunPage *page)
    : QObject(page)
    , m_page(page)
{
}

bool RunPagePlayback::addEvents(const RunEventBatch &events)
{
    // A file is read again for playback; other runs cannot be, so they keep their events.
    if (m_page->m_filePath.isEmpty())
        m_events += events;
    m_eventsShown += events.size();
    if (!m_playback)
        return false;
    m_playback->appendEvents(events); // the view stays at its moment
    return true;
}

bool RunPagePlayback::addEnd(qint64 arrivalMs)
{
    if (m_page->m_filePath.isEmpty())
        m_ends.append(RunPlayback::End {int(m_events.size()), arrivalMs});
    if (!m_playback)
        return false;
    m_playback->appendEnd(arrivalMs);
    return true;
}

bool RunPagePlayback::isPreparing() const
{
    return m_preparer && m_preparer->isRunning();
}

void RunPagePlayback::cancelPreparing()
{
    if (m_preparer)
        m_preparer->cancel();
}

bool RunPagePlayback::enter(QString *errorMessage)
{
    if (m_playback || isPreparing())
        return true;
    QString why;
    if (m_page->isLoading())
        why = RunPage::tr("the run is still being read");
    else if (m_page->m_filePath.isEmpty()) {
        m_page->flushEvents();
        if (m_events.isEmpty())
            why = RunPage::tr("the run has no events yet");
    }
    if (!why.isEmpty()) {
        m_page->showNotice(RunPage::tr("Playback is not available: %1.").arg(why), true);
        const QSignalBlocker blocker(m_page->m_ui->playbackButton);
        m_page->m_ui->playbackButton->setChecked(false);
        if (errorMessage)
            *errorMessage = why;
        return false;
    }
    if (!m_preparer) {
        m_preparer = new PlaybackPreparer(m_page);
        connect(m_preparer, &PlaybackPreparer::progress, this,
            [this](int percent, const QString &what) {
                m_page->m_ui->loadLabel->setText(RunPage::tr("Preparing playback: %1…").arg(what));
                m_page->m_ui->loadProgress->setValue(percent * 10);
            });
        connect(m_preparer, &PlaybackPreparer::finished, this, &RunPagePlayback::onPrepared);
    }
    if (!m_page->m_filePath.isEmpty()) {
        m_preparer->startFromFile(m_page->m_filePath, m_page->m_loadCompleted);
    } else {
        const bool timed = std::any_of(m_events.cbegin(), m_events.cend(),
            [](const RunEvent &event) { return event.arrivalMs > 0; });
        const LoadedRun::Clock clock = !timed ? LoadedRun::Clock::Order
            : m_page->sessionSource()         ? LoadedRun::Clock::Timestamps
                                              : LoadedRun::Clock::Arrival;
        m_preparer->startFromEvents(m_events, clock, m_ends);
    }
    m_page->m_ui->loadLabel->setText(RunPage::tr("Preparing playback…"));
    m_page->m_ui->loadProgress->setValue(0);
    m_page->m_ui->cancelLoadButton->setToolTip(
        RunPage::tr("Stop preparing playback; the run stays as shown"));
    m_page->m_ui->loadPanel->show();
    const QSignalBlocker blocker(m_page->m_ui->playbackButton);
    m_page->m_ui->playbackButton->setChecked(true);
    return true;
}

void RunPagePlayback::onPrepared(bool ok, const QString &error)
{
    m_page->m_ui->loadPanel->hide();
    m_page->m_ui->cancelLoadButton->setToolTip(
        RunPage::tr("Stop reading the file; what was read so far stays shown"));
    if (!ok) {
        m_page->showNotice(error.isEmpty()
                ? RunPage::tr("Playback cancelled.")
                : RunPage::tr("Playback is not available: %1.").arg(error),
            !error.isEmpty());
        const QSignalBlocker blocker(m_page->m_ui->playbackButton);
        m_page->m_ui->playbackButton->setChecked(false);
        Q_EMIT m_page->playbackPrepared(false);
        return;
    }
    RunPlayback::Prepared prepared = m_preparer->takeResult();
    const QStringList problems = m_preparer->problems();
    const int preparedEvents = int(prepared.events.size());
    m_playback = new RunPlayback(m_page->m_model, m_page);
    if (!m_page->m_filePath.isEmpty()) {
        // A cancelled load showed a part, and a file may have grown since: playback shows
        // the whole file as read now.
        m_playback->setRun(
            std::move(prepared), !m_page->m_loadCompleted || m_eventsShown != preparedEvents);
    } else {
        // A live run went on while playback was prepared: the model shows more than the
        // prepared events. From their end state, what came since is added as the run grew.
        m_page->flushEvents();
        const qsizetype preparedEnds = prepared.ends.size();
        const bool grew = m_events.size() > preparedEvents || m_ends.size() > preparedEnds;
        m_playback->setRun(std::move(prepared), grew);
        if (grew) {
            int added = preparedEvents;
            for (qsizetype i = preparedEnds; i < m_ends.size(); ++i) {
                const RunPlayback::End &end = m_ends.at(i);
                m_playback->appendEvents(m_events.mid(added, end.afterEvents - added));
                added = end.afterEvents;
                m_playback->appendEnd(end.ms);
            }
            m_playback->appendEvents(m_events.mid(added));
            m_playback->jumpToPosition(m_playback->eventCount());
        }
    }
    // Anything but a file may still grow.
    m_page->m_ui->playbackBar->setPlayback(m_playback, m_page->m_filePath.isEmpty());
    m_page->m_ui->playbackBar->show();
    if (!problems.isEmpty())
        m_page->showNotice(
            RunPage::tr("Playback: %n damaged line(s) skipped: %1", nullptr, int(problems.size()))
                .arg(problems.mid(0, 3).join(QStringLiteral("; "))),
            true);
    Q_EMIT m_page->playbackPrepared(true);
}

void RunPagePlayback::leave()
{
    if (!m_playback)
        return;
    m_playback->pause();
    m_playback->jumpToPosition(m_playback->eventCount());
    m_page->m_ui->playbackBar->setPlayback(nullptr, false);
    m_page->m_ui->playbackBar->hide();
    delete std::exchange(m_playback, nullptr); // and its checkpoints
    {
        const QSignalBlocker blocker(m_page->m_ui->playbackButton);
        m_page->m_ui->playbackButton->setChecked(false);
    }
    m_page->setFollowing(true);
    m_page->updateSummary();
}

} // namespace sandscope
