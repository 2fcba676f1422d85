#include "exportjob.h"

namespace sandscope {

ExportJob::ExportJob(const RunModel &model, const QString &source, const QStringList &skipped,
    bool redact, const QStringList &secrets)
    : m_redactPending(redact)
{
    for (const QString &secret : secrets)
        m_exporter.addSecret(secret);
    // Unredacted here: render() redacts, on whichever thread renders.
    m_exporter.setRedacting(false);
    m_run = m_exporter.snapshot(model, source, skipped);
    m_exporter.setRedacting(redact);
}

QByteArray ExportJob::render(RunExporter::Format format)
{
    if (m_redactPending) {
        m_exporter.redact(&m_run);
        m_redactPending = false;
    }
    return m_exporter.render(m_run, format);
}

bool ExportJob::write(
    const QString &path, RunExporter::Format format, const std::atomic_bool *cancelled)
{
    const QByteArray bytes = render(format);
    if (cancelled && cancelled->load()) {
        m_why = QStringLiteral("cancelled");
        return false;
    }
    return RunExporter::writeFile(path, bytes, &m_why);
}

} // namespace sandscope
