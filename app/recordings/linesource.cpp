#include "linesource.h"

#include <QFile>
#include <QMutexLocker>

#include <array>
#include <cerrno>
#include <cstring>
#include <limits>
#include <simdjson.h>
#include <string_view>
#include <unistd.h>

namespace sandscope {

struct LineSource::File {
    QFile file;
    RecordingFormat format = RecordingFormat::Unknown;
    Hold hold = Hold::Open;
};

QByteArray LineSource::readAt(
    QFile &file, RecordingFormat format, qint64 offset, qint64 length, QString *errorMessage)
{
    auto fail = [&](const QString &why) {
        if (errorMessage)
            *errorMessage = why;
        return QByteArray();
    };
    auto outside = [&] {
        return fail(QStringLiteral("line at %1 is outside %2").arg(offset).arg(file.fileName()));
    };
    if (offset < 0 || length < 0 || length > std::numeric_limits<int>::max())
        return outside();
    if (file.handle() < 0)
        return fail(QStringLiteral("cannot read %1: it is not open").arg(file.fileName()));
    // pread: the file's position stays where it was, so several threads can read one file.
    QByteArray bytes(qsizetype(length), Qt::Uninitialized);
    qint64 got = 0;
    while (got < length) {
        const ssize_t read
            = ::pread(file.handle(), bytes.data() + got, size_t(length - got), off_t(offset + got));
        if (read < 0 && errno == EINTR)
            continue;
        if (read < 0)
            return fail(QStringLiteral("cannot read %1: %2")
                            .arg(file.fileName(), QString::fromLocal8Bit(std::strerror(errno))));
        if (read == 0)
            return outside();
        got += read;
    }
    if (format != RecordingFormat::Recording)
        return bytes;
    // One parser per thread: a new one allocated its buffers again for every line.
    thread_local simdjson::dom::parser parser;
    simdjson::dom::object object;
    std::string_view text;
    if (parser.parse(bytes.constData(), size_t(bytes.size())).get(object) != simdjson::SUCCESS)
        return fail(QStringLiteral("the entry at %1 of %2 is not a recording entry")
                        .arg(offset)
                        .arg(file.fileName()));
    if (object["line"].get(text) == simdjson::SUCCESS)
        return QByteArray(text.data(), qsizetype(text.size()));
    if (object["line_base64"].get(text) == simdjson::SUCCESS)
        return QByteArray::fromBase64(QByteArray(text.data(), qsizetype(text.size())));
    return fail(
        QStringLiteral("the entry at %1 of %2 has no \"line\"").arg(offset).arg(file.fileName()));
}

LineSource::LineSource() = default;
LineSource::~LineSource() = default;

int LineSource::addFile(const QString &path, RecordingFormat format, Hold hold)
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
    RecordingFormat format = RecordingFormat::Unknown;
    {
        // Only finding the file is serialised: readAt reads without moving
        // the file's position, so the filter's two threads read at the same time.
        const QMutexLocker lock(&m_mutex);
        if (!ref.isValid() || size_t(ref.source) >= m_files.size())
            return fail(QStringLiteral("no such line"));
        File &file = *m_files[size_t(ref.source)];
        format = file.format;
        if (file.hold == Hold::Never)
            return fail(QStringLiteral("%1 is a pipe: its lines are not read again")
                            .arg(file.file.fileName()));
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
        return readAt(*held, format, ref.offset, ref.length, errorMessage);
    QFile own(perRead);
    if (!own.open(QIODevice::ReadOnly))
        return fail(QStringLiteral("cannot read %1: %2").arg(perRead, own.errorString()));
    return readAt(own, format, ref.offset, ref.length, errorMessage);
}

QByteArray LineSource::storedBytes(const LineRef &ref, QByteArray *buffer) const
{
    QFile *held = nullptr;
    RecordingFormat format = RecordingFormat::Unknown;
    {
        const QMutexLocker lock(&m_mutex);
        if (!ref.isValid() || size_t(ref.source) >= m_files.size() || ref.length < 0
            || ref.length > std::numeric_limits<int>::max())
            return {};
        File &file = *m_files[size_t(ref.source)];
        format = file.format;
        if (file.hold == Hold::Open && file.file.isOpen())
            held = &file.file; // never closed nor moved while this source lives
    }
    if (!held) { // the line itself, read and decoded
        QString why;
        const QByteArray bytes = line(ref, &why);
        return why.isEmpty() ? bytes : QByteArray();
    }
    // pread into the caller's buffer: no allocation per line, and no mapping (a 1 GB file's
    // pages would all count as the process's memory).
    if (buffer->size() < ref.length)
        buffer->resize(int(ref.length));
    qint64 got = 0;
    while (got < ref.length) {
        const ssize_t read = ::pread(held->handle(), buffer->data() + got, size_t(ref.length - got),
            off_t(ref.offset + got));
        if (read < 0 && errno == EINTR)
            continue;
        if (read <= 0)
            return {};
        got += read;
    }
    const QByteArray bytes = QByteArray::fromRawData(buffer->constData(), int(ref.length));
    if (format == RecordingFormat::Recording && bytes.contains("\"line_base64\""))
        return {};
    return bytes;
}

} // namespace sandscope
