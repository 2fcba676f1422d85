#pragma once
// Durations and sizes as people read them, the same in the window, the CLI and exports. Fixed
// English units (not the locale's), so that output is stable for scripts and tests.

#include <QString>

namespace sandscope::format {

// "850 ms", "12.3 s", "4 min 5 s", "21 h 2 min", "2 d 3 h".
QString duration(qint64 ms);

// "1 byte", "1023 bytes", "1.5 KiB", "2.0 GiB" (binary units).
QString byteSize(qint64 bytes);

} // namespace sandscope::format
