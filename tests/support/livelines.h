#pragma once
// Live stream-json lines for a RunPage, delivered the way a live chat's RunController
// delivers them (app/runs/runcontroller.h): recorded first when a recorder is given
// (RecordingFeed), parsed (RunParser), then queued into the page's model in batches.

#include "recordings/runrecording.h"
#include "runs/runpage.h"
#include "streamjson/runparser.h"

#include <QByteArray>

namespace sandscope::test {

class LiveLines {
public:
    explicit LiveLines(RunPage *page, RunRecorder *recorder = nullptr)
        : m_feed(&m_parser, recorder)
    {
        QObject::connect(&m_parser, &RunParser::eventsReady, page, &RunPage::enqueueEvents);
    }

    void append(const QByteArray &line, qint64 arrivalMs) { m_feed.feedLine(line, arrivalMs); }

private:
    RunParser m_parser;
    RecordingFeed m_feed;
};

} // namespace sandscope::test
