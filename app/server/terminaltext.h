#pragma once
// Turns PTY output into plain text for display: strips ANSI/VT escape sequences (CSI, OSC,
// charset selections), handles "\r" progress redraws and backspaces, keeps tabs/newlines.
// Stateful: an escape sequence split across chunks is removed correctly.
//
// Line ends: "\r\n" (the tty's onlcr) becomes "\n". A bare "\r" (a progress bar redrawing its
// line) also becomes "\n": the output is appended to a plain-text view, so text already
// returned cannot be overwritten; one line per redraw keeps every state visible and makes
// the result independent of how the stream was chunked. Runs such as "\r\r\n" give one "\n".
// Backspace erases the previous character returned by the same filter() call (not a "\n");
// at the start of a chunk there is nothing left to erase and it is dropped.
// OSC, DCS, SOS, PM and APC strings end at BEL or ESC \; a "\n" also ends them so that a
// broken sequence cannot swallow the rest of the output.

#include <QString>

namespace sandscope {

class TerminalTextFilter {
public:
    QString filter(const QString &chunk);
    void reset();

private:
    enum class Mode { Text, Escape, Csi, Osc, OscEscape, Charset };
    void consume(QString &out, QChar c);
    void appendText(QString &out, QChar c);

    Mode m_mode = Mode::Text;
    bool m_afterCarriageReturn = false; // a "\n" right after "\r" is already emitted
};

} // namespace sandscope
