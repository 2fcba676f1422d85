#pragma once
// The benchmarks' memory figures: this process's resident memory now (VmRSS) and at its peak
// (VmHWM), from /proc/self/status, in MB; -1 where there is no such file.

#include <QByteArray>
#include <QFile>

namespace benchmemory {

inline double statusMb(const char *field)
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray name(field);
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith(name))
            return line.mid(name.size()).trimmed().split(' ').first().toDouble() / 1024;
    }
    return -1;
}

inline double residentMb()
{
    return statusMb("VmRSS:");
}

inline double peakMb()
{
    return statusMb("VmHWM:");
}

} // namespace benchmemory
