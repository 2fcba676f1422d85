#pragma once
// Classic hex dump lines ("00000010  48 65 6c 6c 6f 20 77 6f  72 6c 64 0a  |Hello world.|")
// and human-readable byte sizes for the binary preview.

#include <QByteArray>
#include <QString>

namespace sandscope {

// Dumps at most maxBytes of `bytes`, 16 per line; `firstOffset` is the file offset of bytes[0].
// Bytes outside printable ASCII show as '.' in the text column.
QString hexDump(const QByteArray &bytes, qint64 firstOffset = 0, qsizetype maxBytes = -1);

// "0 bytes", "1 byte", "512 bytes", "1.5 KiB", "2.0 GiB" (binary units, one decimal).
QString formatByteSize(qint64 bytes);

} // namespace sandscope
