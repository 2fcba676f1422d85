#include "loadedrun.h"

#include "export/runjsonformat.h"
#include "runtree/runmodel.h"
#include "streamjson/runparser.h"

#include <QObject>

#include <algorithm>

namespace sandscope {

bool LoadedRun::fromFile(const QString &path, LoadedRun *run, QString *errorMessage,
    const Progress &progress, const std::atomic<bool> *stop)
{
    *run = LoadedRun();
    run->source = path;
    const auto stopped = [stop, errorMessage] {
        if (!stop || !stop->load())
            return false;
        if (errorMessage)
            *errorMessage = QObject::tr("cancelled");
        return true;
    };
    if (RunJsonFormat::looksLikeExport(path)) {
        auto exported = std::make_shared<ExportedRun>();
        if (!RunJsonFormat::readFile(path, exported.get(), errorMessage))
            return false;
        run->exported = exported;
        run->lastArrivalMs = std::max<qint64>(0, exported->run.startedMs);
        return true;
    }
    RecordingReader reader;
    reader.setStopFlag(stop); // before open: a named pipe's first line is waited for there
    if (!reader.open(path, errorMessage))
        return false;
    run->format = reader.format();
    RunParser parser;
    RecordedLine line;
    while (reader.readLine(&line)) {
        if (run->lines % 4096 == 0) {
            if (stopped())
                return false;
            if (progress)
                progress(reader.bytesRead(), reader.totalBytes());
        }
        if (!line.line.trimmed().isEmpty())
            ++run->lines;
        run->append(reader.eventsOf(parser, line));
    }
    if (stopped()) // the reader gave up waiting for a pipe: not the end of the run
        return false;
    run->append(reader.finishReading());
    run->problems = reader.problems();
    if (!reader.readError().isEmpty()) {
        if (errorMessage)
            *errorMessage = reader.readError();
        return false;
    }
    // Recordings carry arrival times; transcripts and most captures their own timestamps.
    if (run->lastArrivalMs <= 0)
        run->clock = Clock::Order;
    else if (run->format == RecordingReader::Format::Recording)
        run->clock = Clock::Arrival;
    else
        run->clock = Clock::Timestamps;
    return true;
}

void LoadedRun::append(const RunEventBatch &batch)
{
    for (const RunEvent &event : batch)
        lastArrivalMs = std::max(lastArrivalMs, event.arrivalMs);
    events += batch;
    if (lastArrivalMs > 0 && clock == Clock::Order)
        clock = format == RecordingReader::Format::Recording ? Clock::Arrival : Clock::Timestamps;
}

void LoadedRun::buildModel(RunModel *model) const
{
    if (exported) {
        model->restore(exported->run, exported->summary);
        return;
    }
    model->addEvents(events);
    model->markRunEnded(lastArrivalMs);
}

QString LoadedRun::clockText(Clock clock)
{
    switch (clock) {
    case Clock::Arrival:
        return QObject::tr("arrival times recorded by Sandscope");
    case Clock::Timestamps:
        return QObject::tr("the run's own timestamps");
    case Clock::Order:
        return QObject::tr("event order only (the file has no times)");
    }
    return {};
}

} // namespace sandscope
