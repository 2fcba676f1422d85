#pragma once
// A named pipe for a test whose writer comes after the reader: the reader under test opens the
// pipe first, then writeAllAndClose() opens the write end (which waits for a reader), writes
// every byte and closes it, so that the reader sees the end.

#include <QByteArray>
#include <QFile>
#include <QString>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sandscope::test {

inline bool makeNamedPipe(const QString &path)
{
    return ::mkfifo(QFile::encodeName(path).constData(), 0600) == 0;
}

inline bool writeAllAndClose(const QString &pipe, const QByteArray &bytes)
{
    const int writer = ::open(QFile::encodeName(pipe).constData(), O_WRONLY | O_CLOEXEC);
    if (writer < 0)
        return false;
    qsizetype written = 0;
    while (written < bytes.size()) {
        const ssize_t got
            = ::write(writer, bytes.constData() + written, size_t(bytes.size() - written));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        written += got;
    }
    ::close(writer);
    return written == bytes.size();
}

} // namespace sandscope::test
