#include "hexdump.h"

namespace sandscope {

QString hexDump(const QByteArray &bytes, qint64 firstOffset, qsizetype maxBytes)
{
    static const char digits[] = "0123456789abcdef";
    const qsizetype size
        = maxBytes < 0 ? bytes.size() : std::min<qsizetype>(bytes.size(), maxBytes);
    constexpr int bytesPerLine = 16;
    // "oooooooo  " + 16 * "xx " + 1 extra gap + " |" + 16 chars + "|\n"
    constexpr int lineLength = 8 + 2 + bytesPerLine * 3 + 1 + 1 + 1 + bytesPerLine + 2;

    QByteArray out;
    out.reserve((size / bytesPerLine + 1) * lineLength);
    for (qsizetype lineStart = 0; lineStart < size; lineStart += bytesPerLine) {
        out += QByteArray::number(firstOffset + lineStart, 16).rightJustified(8, '0');
        out += "  ";
        const qsizetype count = std::min<qsizetype>(bytesPerLine, size - lineStart);
        for (int k = 0; k < bytesPerLine; ++k) {
            if (k == bytesPerLine / 2)
                out += ' ';
            if (k < count) {
                const auto byte = static_cast<unsigned char>(bytes.at(lineStart + k));
                out += digits[byte >> 4];
                out += digits[byte & 0x0f];
                out += ' ';
            } else {
                out += "   ";
            }
        }
        out += " |";
        for (qsizetype k = 0; k < count; ++k) {
            const char c = bytes.at(lineStart + k);
            out += (c >= 0x20 && c < 0x7f) ? c : '.';
        }
        out += "|\n";
    }
    return QString::fromLatin1(out);
}

} // namespace sandscope
