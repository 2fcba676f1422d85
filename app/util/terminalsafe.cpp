#include "terminalsafe.h"

namespace sandscope {

namespace {

// Characters that show as nothing or reorder their neighbours: controls and every format
// character of Unicode (bidi controls, zero-width joiners, tags that hide ASCII text outside the
// BMP, ...), and the line and paragraph separators.
bool looksLikeNothing(char32_t codePoint)
{
    if ((codePoint >= 0x80 && codePoint <= 0x9f) // C1 controls (U+009B is CSI on some terminals)
        || codePoint == 0x2028 || codePoint == 0x2029)
        return true;
    return QChar::category(uint(codePoint)) == QChar::Other_Format;
}

QString codePoint(char32_t unit)
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

// Whether the '<' at i begins the text "<U+", the form the invisible characters are shown in.
bool spellsCodePoint(const QString &text, qsizetype i)
{
    return text.at(i) == QLatin1Char('<') && QStringView(text).mid(i + 1, 2) == QLatin1String("U+");
}

QString sanitised(const QString &text, Mode mode)
{
    QString out;
    const qsizetype size = text.size();
    for (qsizetype i = 0; i < size; ++i) {
        const char16_t unit = text.at(i).unicode();
        if (QChar::isHighSurrogate(unit) && i + 1 < size && text.at(i + 1).isLowSurrogate()) {
            const char32_t pair = QChar::surrogateToUcs4(unit, text.at(i + 1).unicode());
            if (looksLikeNothing(pair)) {
                out += codePoint(pair);
            } else {
                out += text.at(i);
                out += text.at(i + 1);
            }
            ++i;
            continue;
        }
        if (QChar::isSurrogate(unit) || looksLikeNothing(unit)) {
            out += codePoint(unit);
        } else if (mode == Mode::Line && spellsCodePoint(text, i)) {
            out += QStringLiteral("\\x3c"); // a name spelling "<U+202E>" is not one holding it
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
    const qsizetype size = text.size();
    for (qsizetype i = 0; i < size; ++i) {
        const char16_t unit = text.at(i).unicode();
        if (unit < 0x20 || unit == 0x7f || unit == u'\\' || looksLikeNothing(unit)
            || spellsCodePoint(text, i))
            return false;
        if (QChar::isSurrogate(unit)) {
            // Only a whole pair of a visible character is plain.
            if (!QChar::isHighSurrogate(unit) || i + 1 >= size || !text.at(i + 1).isLowSurrogate()
                || looksLikeNothing(QChar::surrogateToUcs4(unit, text.at(i + 1).unicode())))
                return false;
            ++i;
        }
    }
    return true;
}

} // namespace sandscope
