#include "terminaltext.h"

namespace sandscope {

namespace {

constexpr char16_t escape = 0x1b;
constexpr char16_t bell = 0x07;
constexpr char16_t backspace = 0x08;
constexpr char16_t cancel = 0x18; // CAN and SUB abort a sequence (ECMA-48)
constexpr char16_t substitute = 0x1a;
constexpr char16_t c1Csi = 0x9b;
constexpr char16_t c1StringTerminator = 0x9c;
constexpr char16_t c1Osc = 0x9d;

bool isCsiParameterOrIntermediate(char16_t c)
{
    return c >= 0x20 && c <= 0x3f;
}

bool isCsiFinal(char16_t c)
{
    return c >= 0x40 && c <= 0x7e;
}

} // namespace

void TerminalTextFilter::reset()
{
    m_mode = Mode::Text;
    m_afterCarriageReturn = false;
}

void TerminalTextFilter::appendText(QString &out, QChar c)
{
    const char16_t code = c.unicode();
    if (code == u'\r') {
        if (!m_afterCarriageReturn)
            out.append(QLatin1Char('\n'));
        m_afterCarriageReturn = true;
        return;
    }
    if (code == u'\n') {
        if (!m_afterCarriageReturn)
            out.append(QLatin1Char('\n'));
        m_afterCarriageReturn = false;
        return;
    }
    if (code == backspace) {
        if (!out.isEmpty() && !out.endsWith(QLatin1Char('\n')))
            out.chop(1);
        return;
    }
    // Other C0 controls, DEL and C1 controls have no printable form.
    if ((code < 0x20 && code != u'\t') || (code >= 0x7f && code < 0xa0))
        return;
    m_afterCarriageReturn = false;
    out.append(c);
}

QString TerminalTextFilter::filter(const QString &chunk)
{
    QString out;
    out.reserve(chunk.size());
    for (const QChar c : chunk)
        consume(out, c);
    return out;
}

void TerminalTextFilter::consume(QString &out, QChar c)
{
    const char16_t code = c.unicode();
    switch (m_mode) {
    case Mode::Text:
        if (code == escape)
            m_mode = Mode::Escape;
        else if (code == c1Csi)
            m_mode = Mode::Csi;
        else if (code == c1Osc)
            m_mode = Mode::Osc;
        else
            appendText(out, c);
        break;
    case Mode::Escape:
        if (code == u'[') {
            m_mode = Mode::Csi;
        } else if (code == u']' || code == u'P' || code == u'X' || code == u'^' || code == u'_') {
            m_mode = Mode::Osc; // OSC, DCS, SOS, PM, APC: strings ended by ST or BEL
        } else if (code >= 0x20 && code <= 0x2f) {
            m_mode = Mode::Charset; // ESC ( B and friends: one more character follows
        } else if (code == escape) {
            // ESC ESC: the first one was abandoned, the second starts a sequence.
        } else if (code < 0x20 || code > 0x7e) {
            m_mode = Mode::Text; // not an escape sequence: a control aborts it, text stays
            if (code != cancel && code != substitute)
                appendText(out, c);
        } else {
            m_mode = Mode::Text; // two-character escape (ESC 7, ESC =, ESC M, ...)
        }
        break;
    case Mode::Charset:
        m_mode = Mode::Text;
        break;
    case Mode::Csi:
        if (isCsiFinal(code)) {
            m_mode = Mode::Text;
        } else if (isCsiParameterOrIntermediate(code)) {
            // still inside the sequence
        } else if (code == escape) {
            m_mode = Mode::Escape;
        } else if (code == cancel || code == substitute) {
            m_mode = Mode::Text;
        } else if (code < 0x20) {
            appendText(out, c); // C0 controls are executed inside a CSI
        } else {
            m_mode = Mode::Text; // not a CSI after all: keep the character
            appendText(out, c);
        }
        break;
    case Mode::Osc:
        if (code == bell || code == c1StringTerminator) {
            m_mode = Mode::Text;
        } else if (code == escape) {
            m_mode = Mode::OscEscape;
        } else if (code == u'\n') {
            m_mode = Mode::Text;
            appendText(out, c);
        }
        break;
    case Mode::OscEscape:
        if (code == u'\\') {
            m_mode = Mode::Text;
        } else {
            // ESC not followed by "\": the string ended and this ESC starts a new sequence.
            m_mode = Mode::Escape;
            consume(out, c);
        }
        break;
    }
}

} // namespace sandscope
