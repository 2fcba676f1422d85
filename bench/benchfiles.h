#pragma once
// What the benchmarks build their trees of homes with: plain system calls in this process (a
// shell forking mkdir for each of 10,000 chats took most of bench_adminscale's 20 s).

#include <QByteArray>
#include <QtGlobal>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace benchfiles {

// A new file with `content`, its times set to `epoch` (seconds).
inline bool writeFile(const QByteArray &path, const QByteArray &content, qint64 epoch)
{
    const int fd = ::open(path.constData(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return false;
    const bool ok = ::write(fd, content.constData(), size_t(content.size())) == content.size();
    const timespec times[2] = {{time_t(epoch), 0}, {time_t(epoch), 0}};
    ::futimens(fd, times);
    ::close(fd);
    return ok;
}

inline bool makeDir(const QByteArray &path)
{
    return ::mkdir(path.constData(), 0755) == 0;
}

// A link's own times, not its target's.
inline void setTime(const QByteArray &path, qint64 epoch)
{
    const timespec times[2] = {{time_t(epoch), 0}, {time_t(epoch), 0}};
    ::utimensat(AT_FDCWD, path.constData(), times, AT_SYMLINK_NOFOLLOW);
}

} // namespace benchfiles
