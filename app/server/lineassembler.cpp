#include "lineassembler.h"

#include <utility>

namespace sandscope {

namespace {

void chopOneCarriageReturn(QString &line)
{
    if (line.endsWith(QLatin1Char('\r')))
        line.chop(1);
}

} // namespace

QStringList LineAssembler::feed(const QString &chunk)
{
    // m_pending never contains '\n' (every '\n' completes a line), so only the new chunk
    // is scanned: each character is looked at once, however long a line grows.
    QStringList lines;
    qsizetype lineStart = 0;
    for (qsizetype newline = chunk.indexOf(QLatin1Char('\n')); newline >= 0;
         newline = chunk.indexOf(QLatin1Char('\n'), lineStart)) {
        QString line;
        if (m_pending.isEmpty()) {
            line = chunk.mid(lineStart, newline - lineStart);
        } else {
            m_pending.append(chunk.constData() + lineStart, newline - lineStart);
            line = std::move(m_pending);
            m_pending = QString();
        }
        chopOneCarriageReturn(line);
        lines.append(std::move(line));
        lineStart = newline + 1;
    }
    if (lineStart < chunk.size())
        m_pending.append(chunk.constData() + lineStart, chunk.size() - lineStart);
    return lines;
}

QString LineAssembler::flush()
{
    // At end of stream a trailing "\r" is the first half of a line end that never completed.
    QString rest = std::move(m_pending);
    m_pending = QString();
    chopOneCarriageReturn(rest);
    return rest;
}

} // namespace sandscope
