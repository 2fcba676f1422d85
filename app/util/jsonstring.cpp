#include "jsonstring.h"

#include <algorithm>

namespace sandscope::jsonstring {

QString decode(const QString &literal)
{
    QString text;
    if (!literal.startsWith(QLatin1Char('"')))
        return text;
    text.reserve(literal.size());
    const qsizetype end = literal.size();
    for (qsizetype i = 1; i < end; ++i) {
        const QChar c = literal.at(i);
        if (c == QLatin1Char('"'))
            break;
        if (c != QLatin1Char('\\')) {
            text += c;
            continue;
        }
        if (++i >= end)
            break; // cut inside the escape
        switch (literal.at(i).unicode()) {
        case u'b':
            text += QLatin1Char('\b');
            break;
        case u'f':
            text += QLatin1Char('\f');
            break;
        case u'n':
            text += QLatin1Char('\n');
            break;
        case u'r':
            text += QLatin1Char('\r');
            break;
        case u't':
            text += QLatin1Char('\t');
            break;
        case u'u': {
            const QString digits = literal.mid(i + 1, 4);
            const bool hex = digits.size() == 4
                && std::all_of(digits.cbegin(), digits.cend(), [](QChar digit) {
                       const char16_t unit = digit.unicode();
                       return (unit >= u'0' && unit <= u'9') || (unit >= u'a' && unit <= u'f')
                           || (unit >= u'A' && unit <= u'F');
                   });
            if (!hex)
                return text; // cut inside the escape, or not an escape at all
            text += QChar(digits.toUShort(nullptr, 16)); // surrogate halves pair up as UTF-16
            i += 4;
            break;
        }
        default: // '"', '\\', '/' and anything a sloppy writer escaped
            text += literal.at(i);
        }
    }
    return text;
}

QString escape(const QString &text)
{
    QString escaped;
    escaped.reserve(text.size() + 8);
    for (const QChar c : text) {
        switch (c.unicode()) {
        case u'"':
            escaped += QLatin1String("\\\"");
            break;
        case u'\\':
            escaped += QLatin1String("\\\\");
            break;
        case u'\b':
            escaped += QLatin1String("\\b");
            break;
        case u'\f':
            escaped += QLatin1String("\\f");
            break;
        case u'\n':
            escaped += QLatin1String("\\n");
            break;
        case u'\r':
            escaped += QLatin1String("\\r");
            break;
        case u'\t':
            escaped += QLatin1String("\\t");
            break;
        default:
            if (c.unicode() < 0x20)
                escaped += QStringLiteral("\\u%1").arg(c.unicode(), 4, 16, QLatin1Char('0'));
            else
                escaped += c;
        }
    }
    return escaped;
}

} // namespace sandscope::jsonstring
