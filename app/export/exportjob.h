#pragma once
// Exporting one run, the use case the window (File → Export Run…) and `sandscope export`
// share: the model's tree is copied when the job is made, on the model's thread; redacting,
// rendering and writing, the slow part, touch only that copy, so the window runs them on a
// worker thread behind a progress dialog.

#include "export/exportedrun.h"
#include "export/runexporter.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <atomic>

namespace sandscope {

class RunModel;

class ExportJob {
public:
    // Copies the model now. skipped: what the reader could not read, listed in the export;
    // secrets: besides the patterns, masked when redacting (the connection's API key).
    ExportJob(const RunModel &model, const QString &source, const QStringList &skipped, bool redact,
        const QStringList &secrets = {});

    // The copy, for what the model does not know (the number of lines the reader read).
    ExportedRun &run() { return m_run; }

    // Redacts the copy when asked (once) and renders it.
    QByteArray render(RunExporter::Format format);
    // render() and RunExporter::writeFile, unless `cancelled` turned true before writing:
    // then nothing is written. False with why() when not written.
    bool write(
        const QString &path, RunExporter::Format format, const std::atomic_bool *cancelled = {});
    QString why() const { return m_why; }

private:
    RunExporter m_exporter;
    ExportedRun m_run;
    bool m_redactPending = false;
    QString m_why;
};

} // namespace sandscope
