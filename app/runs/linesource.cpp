#include "linesource.h"

#include <QFile>
#include <QMutexLocker>

#include <array>

namespace sandscope {

struct LineSource::File {
    QFile file;
    RecordingReader::Format format = RecordingReader::Format::Unknown;
    Hold hold = Hold::Open;
};

LineSource::LineSource() = default;
LineSource::~LineSource() = default;

int LineSource::addFile(const QString &path, RecordingReader::Format format, Hold hold)
{
    const QMutexLocker lock(&m_mutex);
    auto file = std::make_unique<File>();
    file->file.setFileName(path);
    file->format = format;
    file->hold = hold;
    if (hold == Hold::Open)
        (void)file->file.open(QIODevice::ReadOnly);
    m_files.push_back(std::move(file));
    return int(m_files.size()) - 1;
}

int LineSource::fileCount() const
{
    const QMutexLocker lock(&m_mutex);
    return int(m_files.size());
}

void LineSource::locate(RunEvent *first, RunEvent *last, const LineRef &line, bool keepLine)
{
    std::array<int, RunEvent::NotJson + 1> seen {};
    for (RunEvent *event = first; event != last; ++event) {
        event->rawRef = line;
        event->rawRef.part = seen[size_t(event->kind)]++;
        if (!keepLine && event->kind != RunEvent::NotJson)
            event->raw = QByteArray();
    }
}

QByteArray LineSource::line(const LineRef &ref, QString *errorMessage) const
{
    const QMutexLocker lock(&m_mutex);
    if (!ref.isValid() || size_t(ref.source) >= m_files.size()) {
        if (errorMessage)
            *errorMessage = QStringLiteral("no such line");
        return {};
    }
    File &file = *m_files[size_t(ref.source)];
    if (!file.file.isOpen() && !file.file.open(QIODevice::ReadOnly)) {
        if (errorMessage)
            *errorMessage = QStringLiteral("cannot read %1: %2")
                                .arg(file.file.fileName(), file.file.errorString());
        return {};
    }
    QByteArray line
        = RecordingReader::lineAt(file.file, file.format, ref.offset, ref.length, errorMessage);
    if (file.hold == Hold::PerRead)
        file.file.close();
    return line;
}

} // namespace sandscope
