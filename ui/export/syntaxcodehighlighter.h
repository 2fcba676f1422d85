#pragma once
// Code in HTML exports coloured by KSyntaxHighlighting (where the build has it): the syntax
// from the file name or language, the light default theme, every run of text as a <span> with
// an inline style, so the export stays one file with nothing to load. Installed by main.cpp
// for the window and the command line (CodeHighlighter::setInstance).

#include "export/codehighlighter.h"

namespace sandscope {

class SyntaxCodeHighlighter : public CodeHighlighter {
public:
    QString toHtml(const QString &code, const QString &fileNameOrLanguage) const override;

    // Code longer than this is only escaped: colouring megabytes would stall an export.
    static constexpr int maxLength = 512 * 1024;
};

} // namespace sandscope
