#pragma once
// Text from elsewhere (the server, a transcript, a file name, a tool's output) made safe to
// print on a terminal and to show as a name: nothing in it can move the cursor, change colours,
// set the window title, end a line early or reorder what follows. Control characters and escape
// sequences are shown the way `ls -b` and bash's $'…' write them ("\e[31m", "\n", "\x01");
// C1 controls, Unicode's format characters (bidirectional overrides and isolates, zero-width
// characters, tags), line separators and lone surrogate halves as <U+202E>, so a file name
// cannot pretend to be another.
// Machine output (--json) stays exact: JSON escapes what it must.

#include <QString>

namespace sandscope {

class TerminalSafe {
public:
    // One row's field (a name, an id, a title): every control visible, backslashes doubled
    // (so "a\nb" typed by someone and a name with a line break differ), the '<' of a literal
    // "<U+" as \x3c (so a name spelling "<U+202E>" and one holding it differ), nothing splits
    // the row.
    static QString line(const QString &text);
    // Text of many lines (a tool's output, a message): line breaks (\n, \r\n) and tabs stay,
    // every other control is shown visibly, backslashes stay as they are.
    static QString text(const QString &text);
    // Only the characters that look like nothing (C1, format characters, separators, lone
    // surrogates) as <U+XXXX>; the GUI's names and exported documents, whose own escaping
    // deals with the C0 controls.
    static QString visibleUnicode(const QString &text);
    // A name in the GUI (a file, a chat, a session's title): every control and invisible
    // character as <U+XXXX> (a line break too), everything else as it is.
    static QString name(const QString &text);
    // True when text holds nothing that line() would change.
    static bool isPlain(const QString &text);
};

} // namespace sandscope
