#include "format.h"

namespace sandscope::format {

QString duration(qint64 ms)
{
    if (ms < 1000)
        return QStringLiteral("%1 ms").arg(ms);
    if (ms < 60 * 1000)
        return QStringLiteral("%1 s").arg(double(ms) / 1000.0, 0, 'f', 1);
    if (ms < 3600 * 1000)
        return QStringLiteral("%1 min %2 s").arg(ms / 60000).arg((ms / 1000) % 60);
    // Long sessions: "1262 min 53 s" had to be worked out; seconds no longer matter there.
    if (ms < 24 * 3600 * 1000)
        return QStringLiteral("%1 h %2 min").arg(ms / 3600000).arg((ms / 60000) % 60);
    return QStringLiteral("%1 d %2 h").arg(ms / (24 * 3600000)).arg((ms / 3600000) % 24);
}

QString byteSize(qint64 bytes)
{
    if (bytes == 1)
        return QStringLiteral("1 byte");
    if (bytes < 1024)
        return QStringLiteral("%1 bytes").arg(bytes);
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double value = double(bytes) / 1024.0;
    int unit = 0;
    while (value >= 1024.0 && unit < 5) {
        value /= 1024.0;
        ++unit;
    }
    return QString::number(value, 'f', 1) + QLatin1Char(' ') + QLatin1String(units[unit]);
}

} // namespace sandscope::format
