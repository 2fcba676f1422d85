// libFuzzer target for shell::quote. For any input it checks the quoting invariants:
//  * the result is one single-quoted word: it starts and ends with a quote and is made only
//    of '…' segments (no quote inside) joined by the escaped quote \' — so no quote is ever
//    left unescaped and nothing outside the quotes is expanded by the shell;
//  * a small reference unquoter, written independently of the quoting code, decodes it back
//    to exactly the input bytes;
//  * for input that is valid UTF-8, the QString overload gives the same bytes.

#include "util/shellquote.h"

#include <QByteArray>
#include <QString>

#include <cstdint>
#include <cstdlib>
#include <optional>

namespace {

// Reads a word of the form  '…'  ( \' '…' )*  and returns its value, or nothing when the
// text is not exactly such a word.
std::optional<QByteArray> unquoteSingleQuotedWord(const QByteArray &word)
{
    QByteArray value;
    qsizetype position = 0;
    bool expectSegment = true;
    while (position < word.size()) {
        if (expectSegment) {
            if (word.at(position) != '\'')
                return std::nullopt;
            const qsizetype close = word.indexOf('\'', position + 1);
            if (close < 0)
                return std::nullopt; // unterminated
            value.append(word.mid(position + 1, close - position - 1));
            position = close + 1;
            expectSegment = false;
        } else {
            if (word.mid(position, 2) != "\\'")
                return std::nullopt; // only an escaped quote may sit between segments
            value.append('\'');
            position += 2;
            expectSegment = true;
        }
    }
    if (expectSegment)
        return std::nullopt; // empty, or ends with \' outside quotes
    return value;
}

void check(bool condition)
{
    if (!condition)
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray input(reinterpret_cast<const char *>(data), qsizetype(size));
    const QByteArray quoted = sandscope::shell::quote(input);

    check(quoted.size() >= 2 && quoted.startsWith('\'') && quoted.endsWith('\''));
    const std::optional<QByteArray> decoded = unquoteSingleQuotedWord(quoted);
    check(decoded.has_value());
    check(*decoded == input);

    const QString text = QString::fromUtf8(input);
    if (text.toUtf8() == input) // valid UTF-8 only; invalid bytes would become U+FFFD
        check(sandscope::shell::quote(text).toUtf8() == quoted);
    return 0;
}
