#include "terminalsafe.h"

namespace sandscope {

namespace {

// Characters that show as nothing or reorder their neighbours.
bool looksLikeNothing(char16_t unit)
{
    return (unit >= 0x80 && unit <= 0x9f) // C1 controls (U+009B is CSI on some terminals)
        || unit == 0xad // soft hyphen
        || unit == 0x061c // Arabic letter mark
        || (unit >= 0x200b && unit <= 0x200f) // zero-width space/joiners, LRM, RLM
        || (unit >= 0x2028 && unit <= 0x202e) // line/paragraph separators, embeddings, overrides
        || (unit >= 0x2060 && unit <= 0x2069) // word joiner, invisible operators, isolates
        || unit == 0xfeff; // zero-width no-break space (BOM)
}

QString codePoint(char16_t unit)
{
    return QStringLiteral("<U+") + QString::number(uint(unit), 16).toUpper().rightJustified(4, u'0')
        + QLatin1Char('>');
}

QString c0(char16_t unit)
{
    switch (unit) {
    case u'\a':
        return QStringLiteral("\\a");
    case u'\b':
        return QStringLiteral("\\b");
    case u'\t':
        return QStringLiteral("\\t");
    case u'\n':
        return QStringLiteral("\\n");
    case u'\v':
        return QStringLiteral("\\v");
    case u'\f':
        return QStringLiteral("\\f");
    case u'\r':
        return QStringLiteral("\\r");
    case 0x1b:
        return QStringLiteral("\\e");
    default:
        return QStringLiteral("\\x%1").arg(uint(unit), 2, 16, QLatin1Char('0'));
    }
}

enum class Mode { Line, Text, UnicodeOnly, Name };

QString sanitised(const QString &text, Mode mode)
{
    QString out;
    const qsizetype size = text.size();
    for (qsizetype i = 0; i < size; ++i) {
        const char16_t unit = text.at(i).unicode();
        if (QChar::isHighSurrogate(unit) && i + 1 < size && text.at(i + 1).isLowSurrogate()) {
            out += text.at(i);
            out += text.at(++i);
            continue;
        }
        if (QChar::isSurrogate(unit) || looksLikeNothing(unit)) {
            out += codePoint(unit);
        } else if (mode == Mode::UnicodeOnly || (unit >= 0x20 && unit != 0x7f && unit != u'\\')) {
            out += QChar(unit);
        } else if (mode == Mode::Name) {
            out += unit == u'\\' ? QString(QChar(unit)) : codePoint(unit);
        } else if (unit == u'\\') {
            out += mode == Mode::Line ? QStringLiteral("\\\\") : QStringLiteral("\\");
        } else if (mode == Mode::Text && (unit == u'\n' || unit == u'\t')) {
            out += QChar(unit);
        } else if (mode == Mode::Text && unit == u'\r' && i + 1 < size
            && text.at(i + 1) == QLatin1Char('\n')) {
            continue; // \r\n: the \n ends the line
        } else {
            out += c0(unit);
        }
    }
    return out;
}

} // namespace

QString TerminalSafe::line(const QString &text)
{
    return isPlain(text) ? text : sanitised(text, Mode::Line);
}

QString TerminalSafe::text(const QString &text)
{
    return sanitised(text, Mode::Text);
}

QString TerminalSafe::visibleUnicode(const QString &text)
{
    return sanitised(text, Mode::UnicodeOnly);
}

QString TerminalSafe::name(const QString &text)
{
    return isPlain(text) ? text : sanitised(text, Mode::Name);
}

bool TerminalSafe::isPlain(const QString &text)
{
    for (const QChar c : text) {
        const char16_t unit = c.unicode();
        if (unit < 0x20 || unit == 0x7f || unit == u'\\' || QChar::isSurrogate(unit)
            || looksLikeNothing(unit))
            return false;
    }
    return true;
}

} // namespace sandscope
