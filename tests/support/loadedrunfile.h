#pragma once
// Reading a run file the way the app does (RecordingReader with a transcript's sub-agent files,
// RunParser, RunModel) and its summary from the same events, for the transcript suites.

#include "recordings/runrecording.h"
#include "runtree/runmodel.h"
#include "streamjson/runparser.h"
#include "streamjson/runsummary.h"

#include <QStringList>

#include <algorithm>

namespace sandscope::test {

struct LoadedRunFile {
    QStringList problems;
    RunSummary summary;
    bool ok = false;

    // Reads `path` into `model` and ends the run at its last event.
    static LoadedRunFile read(const QString &path, RunModel *model)
    {
        LoadedRunFile loaded;
        RecordingReader reader;
        QString why;
        if (!reader.open(path, &why)) {
            loaded.problems.append(why);
            return loaded;
        }
        RunParser parser;
        RunSummaryBuilder summary;
        RecordedLine line;
        qint64 last = 0;
        while (reader.readLine(&line)) {
            const RunEventBatch events = reader.eventsOf(parser, line);
            summary.add(events);
            model->addEvents(events);
            if (!events.isEmpty())
                last = std::max(last, events.constLast().arrivalMs);
        }
        const RunEventBatch held = reader.finishReading();
        summary.add(held);
        model->addEvents(held);
        model->markRunEnded(last);
        loaded.problems = reader.problems();
        loaded.summary = summary.summary(true);
        loaded.ok = reader.readError().isEmpty();
        return loaded;
    }
};

} // namespace sandscope::test
