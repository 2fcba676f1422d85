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
    auto fail = [errorMessage](const QString &why) {
        if (errorMessage)
            *errorMessage = why;
        return QByteArray();
    };
    QFile *held = nullptr;
    QString perRead;
    RecordingReader::Format format = RecordingReader::Format::Unknown;
    {
        // Only finding the file is serialised: RecordingReader::lineAt reads without moving
        // the file's position, so the filter's two threads read at the same time.
        const QMutexLocker lock(&m_mutex);
        if (!ref.isValid() || size_t(ref.source) >= m_files.size())
            return fail(QStringLiteral("no such line"));
        File &file = *m_files[size_t(ref.source)];
        format = file.format;
        if (file.hold == Hold::PerRead) {
            perRead = file.file.fileName();
        } else {
            if (!file.file.isOpen() && !file.file.open(QIODevice::ReadOnly))
                return fail(QStringLiteral("cannot read %1: %2")
                                .arg(file.file.fileName(), file.file.errorString()));
            held = &file.file; // never closed nor moved while this source lives
        }
    }
    if (held)
        return RecordingReader::lineAt(*held, format, ref.offset, ref.length, errorMessage);
    QFile own(perRead);
    if (!own.open(QIODevice::ReadOnly))
        return fail(QStringLiteral("cannot read %1: %2").arg(perRead, own.errorString()));
    return RecordingReader::lineAt(own, format, ref.offset, ref.length, errorMessage);
}

} // namespace sandscope
