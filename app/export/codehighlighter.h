#pragma once
// How exports turn code into HTML. The core has no syntax highlighter (KSyntaxHighlighting
// links QtGui), so this default only escapes; the app installs one that colours
// (ui/export/syntaxcodehighlighter.h) with setInstance() before any export runs.

#include <QString>

namespace sandscope {

class CodeHighlighter {
public:
    virtual ~CodeHighlighter();

    // The code as HTML to put inside <pre>: escaped, coloured with inline styles or classes,
    // never a link or anything that loads. fileName ("main.cpp", "Makefile") or a language
    // name ("Bash") chooses the syntax; empty or unknown means plain text.
    virtual QString toHtml(const QString &code, const QString &fileNameOrLanguage) const;

    // The highlighter exports use; the escaping default until setInstance() (not owned).
    static const CodeHighlighter &instance();
    static void setInstance(const CodeHighlighter *highlighter);
};

} // namespace sandscope
