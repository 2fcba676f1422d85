#include "linesource.h"

#include <QFile>
#include <QMutexLocker>

namespace sandscope {

struct LineSource::File {
    QFile file;
    RecordingReader::Format format = RecordingReader::Format::Unknown;
};

LineSource::LineSource() = default;
LineSource::~LineSource() = default;

int LineSource::addFile(const QString &path, RecordingReader::Format format)
{
    const QMutexLocker lock(&m_mutex);
    auto file = std::make_unique<File>();
    file->file.setFileName(path);
    file->format = format;
    // Open now and kept open: the lines stay readable if the file is deleted meanwhile.
    (void)file->file.open(QIODevice::ReadOnly);
    m_files.push_back(std::move(file));
    return int(m_files.size()) - 1;
}

int LineSource::fileCount() const
{
    const QMutexLocker lock(&m_mutex);
    return int(m_files.size());
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
    return RecordingReader::lineAt(file.file, file.format, ref.offset, ref.length, errorMessage);
}

} // namespace sandscope
