// libFuzzer target for TerminalSafe. The input is read as UTF-16 code units (lone surrogate
// halves included) or, when its first byte is odd, as UTF-8. For any input:
//  * no output holds a code point that Unicode calls a control (Cc), a format character (Cf:
//    bidi controls, zero-width characters, tags) or a line/paragraph separator, nor a lone
//    surrogate half; text() keeps only \n and \t of the controls;
//  * line() is one-to-one: a decoder written here from the documented forms (\\, \n, \e, \xHH,
//    <U+XXXX>) gives back the input exactly, also when the input itself spells "<U+";
//  * visibleUnicode() keeps every C0 control (and DEL), name() shows none;
//  * isPlain() is true exactly when line() leaves the text alone.
// The oracle is Qt's Unicode database, not the sanitiser's own list.

#include "util/terminalsafe.h"

#include <QString>

#include <cstdint>
#include <cstdlib>
#include <optional>

using sandscope::TerminalSafe;

namespace {

void check(bool condition)
{
    if (!condition)
        std::abort();
}

bool looksLikeNothing(uint codePoint)
{
    const QChar::Category category = QChar::category(codePoint);
    return category == QChar::Other_Control || category == QChar::Other_Format
        || category == QChar::Separator_Line || category == QChar::Separator_Paragraph;
}

// Calls `visit` with each code point of `text`; a lone surrogate half is passed as itself with
// `lone` set.
template <typename Visit> void forEachCodePoint(const QString &text, Visit visit)
{
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char16_t unit = text.at(i).unicode();
        if (QChar::isHighSurrogate(unit) && i + 1 < text.size()
            && text.at(i + 1).isLowSurrogate()) {
            visit(QChar::surrogateToUcs4(unit, text.at(i + 1).unicode()), false);
            ++i;
        } else {
            visit(uint(unit), QChar::isSurrogate(unit));
        }
    }
}

// Nothing a terminal acts on or shows as nothing, except the controls in `allowed`.
void checkSafe(const QString &text, const QString &allowed = {})
{
    forEachCodePoint(text, [&](uint codePoint, bool lone) {
        check(!lone);
        check(!looksLikeNothing(codePoint) || allowed.contains(QChar(char16_t(codePoint))));
    });
}

int hexValue(QChar c)
{
    const char16_t u = c.unicode();
    if (u >= '0' && u <= '9')
        return u - '0';
    if (u >= 'a' && u <= 'f')
        return u - 'a' + 10;
    if (u >= 'A' && u <= 'F')
        return u - 'A' + 10;
    return -1;
}

// The text line() was given, read back from what it printed.
std::optional<QString> decodeLine(const QString &printed)
{
    QString out;
    for (qsizetype i = 0; i < printed.size(); ++i) {
        const QChar c = printed.at(i);
        if (c == QLatin1Char('<') && printed.mid(i, 3) == QLatin1String("<U+")) {
            const qsizetype close = printed.indexOf(QLatin1Char('>'), i);
            if (close < 0)
                return std::nullopt;
            bool ok = false;
            const uint codePoint = printed.mid(i + 3, close - i - 3).toUInt(&ok, 16);
            if (!ok)
                return std::nullopt;
            if (codePoint > 0xffff)
                out += QString::fromUcs4(reinterpret_cast<const char32_t *>(&codePoint), 1);
            else
                out += QChar(char16_t(codePoint));
            i = close;
            continue;
        }
        if (c != QLatin1Char('\\')) {
            out += c;
            continue;
        }
        if (++i >= printed.size())
            return std::nullopt;
        static const QString letters = QStringLiteral("abtnvfre\\");
        static const char16_t values[] = {0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1b, u'\\'};
        const qsizetype letter = letters.indexOf(printed.at(i));
        if (letter >= 0) {
            out += QChar(values[letter]);
        } else if (printed.at(i) == QLatin1Char('x') && i + 2 < printed.size()
            && hexValue(printed.at(i + 1)) >= 0 && hexValue(printed.at(i + 2)) >= 0) {
            out += QChar(char16_t(hexValue(printed.at(i + 1)) * 16 + hexValue(printed.at(i + 2))));
            i += 2;
        } else {
            return std::nullopt;
        }
    }
    return out;
}

// C0 controls and DEL: what visibleUnicode() leaves to the escaping of the document it goes in.
bool isC0(QChar c)
{
    return c.unicode() < 0x20 || c.unicode() == 0x7f;
}

qsizetype countC0(const QString &text)
{
    qsizetype count = 0;
    for (const QChar c : text)
        count += isC0(c) ? 1 : 0;
    return count;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const bool utf8 = data[0] & 1;
    const char *rest = reinterpret_cast<const char *>(data + 1);
    const QString input = utf8
        ? QString::fromUtf8(rest, qsizetype(size - 1))
        : QString(reinterpret_cast<const QChar *>(rest), qsizetype((size - 1) / 2));

    const QString line = TerminalSafe::line(input);
    checkSafe(line);
    const std::optional<QString> decoded = decodeLine(line);
    check(decoded.has_value() && *decoded == input);
    check(TerminalSafe::isPlain(input) == (line == input));

    checkSafe(TerminalSafe::text(input), QStringLiteral("\n\t"));
    checkSafe(TerminalSafe::name(input));

    const QString visible = TerminalSafe::visibleUnicode(input);
    check(countC0(visible) == countC0(input));
    QString withoutC0;
    for (const QChar c : visible)
        if (!isC0(c))
            withoutC0 += c;
    checkSafe(withoutC0);
    return 0;
}
