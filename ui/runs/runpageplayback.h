#pragma once
// A run page's playback (RunPlayback, shown by the page's playback bar): the events a live run
// or a session keeps for it (a file is read again instead), preparing it on a worker thread
// (PlaybackPreparer) with progress and Cancel in the page's load panel, entering and leaving.
// While in playback, what the run goes on receiving is added to the playback, not the view.

#include "playback/runplayback.h"
#include "streamjson/runevents.h"

#include <QObject>
#include <QString>
#include <QVector>

namespace sandscope {

class PlaybackPreparer;
class RunPage;

class RunPagePlayback : public QObject {
    Q_OBJECT
public:
    explicit RunPagePlayback(RunPage *page);

    // The events the page received, kept for playback unless it shows a file. True when
    // playback took them: the view stays at its moment.
    bool addEvents(const RunEventBatch &events);
    // The process exited; true when playback took it.
    bool addEnd(qint64 arrivalMs);

    // See RunPage::enterPlayback.
    bool enter(QString *errorMessage);
    void leave();
    bool isPreparing() const;
    void cancelPreparing();
    RunPlayback *playback() const { return m_playback; }

private:
    void onPrepared(bool ok, const QString &error);

    RunPage *m_page;
    RunPlayback *m_playback = nullptr;
    PlaybackPreparer *m_preparer = nullptr;
    RunEventBatch m_events; // a live run's or session's events, for playback (not files)
    QVector<RunPlayback::End> m_ends;
    qint64 m_eventsShown = 0; // events the page received
};

} // namespace sandscope
