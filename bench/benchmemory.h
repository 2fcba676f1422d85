#pragma once
// The benchmarks' memory figures: this process's resident memory now (VmRSS) and at its peak
// (VmHWM), from /proc/self/status, in MB; -1 where there is no such file. resetPeak() starts a
// new peak from now (Linux' /proc/self/clear_refs, "5"): what the benchmark did before, such as
// building its input file, is not the peak of what it measures.

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

// Whether the peak could be reset: where it cannot, peakMb() holds everything before too.
inline bool resetPeak()
{
    QFile clearRefs(QStringLiteral("/proc/self/clear_refs"));
    return clearRefs.open(QIODevice::WriteOnly) && clearRefs.write("5") == 1 && clearRefs.flush();
}

} // namespace benchmemory
