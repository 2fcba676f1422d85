#pragma once
// Classic hex dump lines ("00000010  48 65 6c 6c 6f 20 77 6f  72 6c 64 0a  |Hello world.|")
// for the binary preview.

#include <QByteArray>
#include <QString>

namespace sandscope {

// Dumps at most maxBytes of `bytes`, 16 per line; `firstOffset` is the file offset of bytes[0].
// Bytes outside printable ASCII show as '.' in the text column.
QString hexDump(const QByteArray &bytes, qint64 firstOffset = 0, qsizetype maxBytes = -1);

} // namespace sandscope
