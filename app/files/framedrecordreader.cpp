#include "framedrecordreader.h"

#include <utility>

namespace sandscope {

namespace chatscan {

QString framedRecords(const QString &begin, const QString &body, const QString &end)
{
    return QStringLiteral(
        "printf '%1\\n'; { %2; } 2>/dev/null | LC_ALL=C sed -z -n 'l 0' | tr '\\000' "
        "'\\n'; printf '%3\\n'")
        .arg(begin, body, end);
}

QByteArray unescapeSedLine(QStringView line)
{
    QByteArray bytes;
    bytes.reserve(line.size());
    for (qsizetype i = 0; i < line.size(); ++i) {
        const char16_t c = line.at(i).unicode();
        if (c != u'\\' || i + 1 == line.size()) {
            bytes.append(char(c));
            continue;
        }
        const char16_t next = line.at(++i).unicode();
        switch (next) {
        case u'a':
            bytes.append('\a');
            break;
        case u'b':
            bytes.append('\b');
            break;
        case u'f':
            bytes.append('\f');
            break;
        case u'n':
            bytes.append('\n');
            break;
        case u'r':
            bytes.append('\r');
            break;
        case u't':
            bytes.append('\t');
            break;
        case u'v':
            bytes.append('\v');
            break;
        default:
            if (next >= u'0' && next <= u'7' && i + 2 < line.size()) {
                const int value = (next - u'0') * 64 + (line.at(i + 1).unicode() - u'0') * 8
                    + (line.at(i + 2).unicode() - u'0');
                bytes.append(char(value));
                i += 2;
            } else {
                bytes.append(char(next)); // "\\"
            }
        }
    }
    return bytes;
}

FramedRecordReader::FramedRecordReader(QString begin, QString end)
    : m_begin(std::move(begin))
    , m_end(std::move(end))
{
}

bool FramedRecordReader::feedLine(const QString &line, QByteArray *record)
{
    switch (m_state) {
    case State::BeforeBegin:
        if (line.trimmed() == m_begin)
            m_state = State::Inside;
        return false;
    case State::Ended:
        return false;
    case State::Inside:
        break;
    }
    if (line.trimmed() == m_end) {
        m_state = State::Ended;
        return false;
    }
    // Every record line ends in "$"; anything else is a stray message on the terminal.
    if (!line.endsWith(QLatin1Char('$')))
        return false;
    *record = unescapeSedLine(QStringView(line).chopped(1));
    return true;
}

} // namespace chatscan

} // namespace sandscope
