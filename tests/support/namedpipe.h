#pragma once
// A named pipe for a test whose writer comes after the reader: the reader under test opens the
// pipe first, then writeAllAndClose() opens the write end (which waits for a reader), writes
// every byte and closes it, so that the reader sees the end. HeldPipeWriter is a writer that
// stays: the reader waits for more until it closes. PipeRelease lets a stuck reader go, so
// that a test of a wait that does not end fails instead of hanging.

#include <QByteArray>
#include <QFile>
#include <QString>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <fcntl.h>
#include <functional>
#include <mutex>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <utility>

namespace sandscope::test {

inline bool makeNamedPipe(const QString &path)
{
    return ::mkfifo(QFile::encodeName(path).constData(), 0600) == 0;
}

// Writes every byte to `descriptor` (a pipe: a write may take only part).
inline bool writeAll(int descriptor, const QByteArray &bytes)
{
    qsizetype written = 0;
    while (descriptor >= 0 && written < bytes.size()) {
        const ssize_t got
            = ::write(descriptor, bytes.constData() + written, size_t(bytes.size() - written));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        written += got;
    }
    return written == bytes.size();
}

inline bool writeAllAndClose(const QString &pipe, const QByteArray &bytes)
{
    const int writer = ::open(QFile::encodeName(pipe).constData(), O_WRONLY | O_CLOEXEC);
    if (writer < 0)
        return false;
    const bool written = writeAll(writer, bytes);
    ::close(writer);
    return written;
}

// Holds a named pipe's write end from before its reader comes (Linux opens a FIFO for reading
// and writing at once, without waiting), so its reader never sees the end, and waits for more,
// until close(). A write up to the pipe's buffer (64 KiB) does not wait for the reader.
class HeldPipeWriter {
public:
    explicit HeldPipeWriter(const QString &pipe)
        : m_fd(::open(QFile::encodeName(pipe).constData(), O_RDWR | O_CLOEXEC))
    {
    }
    ~HeldPipeWriter() { close(); }
    HeldPipeWriter(const HeldPipeWriter &) = delete;
    HeldPipeWriter &operator=(const HeldPipeWriter &) = delete;

    bool isOpen() const { return m_fd >= 0; }
    bool write(const QByteArray &bytes) { return writeAll(m_fd, bytes); }
    void close()
    {
        if (m_fd >= 0)
            ::close(std::exchange(m_fd, -1));
    }

private:
    int m_fd;
};

// Ends a named pipe for whoever reads it, without waiting: a writer opens and closes it (a
// reader then sees the end). Does nothing when nobody reads it.
inline void endForReaders(const QString &pipe)
{
    const int writer
        = ::open(QFile::encodeName(pipe).constData(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (writer >= 0)
        ::close(writer);
}

// Calls `release` once, on its own thread: after timeoutMs, or when destroyed if that comes
// first. A test whose reader should stop by itself releases the pipe this way, so that a
// reader stuck in its wait (the bug looked for) lets the test fail instead of hanging it.
class PipeRelease {
public:
    PipeRelease(int timeoutMs, std::function<void()> release)
        : m_thread([this, timeoutMs, release = std::move(release)] {
            {
                std::unique_lock<std::mutex> lock(m_mutex);
                m_wake.wait_for(
                    lock, std::chrono::milliseconds(timeoutMs), [this] { return m_over; });
            }
            release();
        })
    {
    }
    ~PipeRelease()
    {
        {
            const std::lock_guard<std::mutex> lock(m_mutex);
            m_over = true;
        }
        m_wake.notify_all();
        m_thread.join();
    }
    PipeRelease(const PipeRelease &) = delete;
    PipeRelease &operator=(const PipeRelease &) = delete;

private:
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_over = false;
    std::thread m_thread; // last: started once the rest is there
};

} // namespace sandscope::test
