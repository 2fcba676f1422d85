#pragma once
// A run page showing a Claude Code session on the server (RunPage::openSession): read and then
// followed by a TranscriptFollower as the session's user, with progress in the page's load
// panel and what it says in the page's notice; the Artifacts tab watches the session's working
// directory; Resume…, Fork… and Open Folder in Files take the place of the live controls.

#include "sessions/sessionsource.h"
#include "sessions/transcriptfollower.h"

#include <QObject>
#include <QPointer>

namespace sandscope {

class OpenTerminalClient;
class RunPage;

class RunPageSession : public QObject {
    Q_OBJECT
public:
    RunPageSession(RunPage *page, OpenTerminalClient *client, const SessionSource &source);

    // Starts reading (and then following) the session into the page.
    void start();
    const SessionSource &source() const { return m_source; }
    TranscriptFollower *follower() const { return m_follower; }

private:
    void setupControls();

    RunPage *m_page;
    OpenTerminalClient *m_client;
    SessionSource m_source;
    QPointer<TranscriptFollower> m_follower;
};

} // namespace sandscope
