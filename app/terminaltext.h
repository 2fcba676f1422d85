#pragma once
// Turns PTY output into plain text for display: strips ANSI/VT escape sequences (CSI, OSC,
// charset selections), handles "\r" progress redraws and backspaces, keeps tabs/newlines.
// Stateful: an escape sequence split across chunks is removed correctly.

#include <QString>

namespace sandscope {

class TerminalTextFilter {
public:
    QString filter(const QString &chunk);
    void reset();

private:
    enum class Mode { Text, Escape, Csi, Osc, OscEscape, Charset };
    Mode m_mode = Mode::Text;
};

} // namespace sandscope
