#pragma once
// The HTML export: one self-contained file (inline CSS and script, no URL that loads anything)
// with the run's summary header and its tree as nested <details> elements, so it folds and
// unfolds without script; tool calls rendered by kind (shell command and output, Edit as a
// line diff, written and read files through the CodeHighlighter), sub-agent work nested under
// its Agent call.

#include "export/exportedrun.h"

#include <QByteArray>

namespace sandscope {

class CodeHighlighter;

class HtmlRunWriter {
public:
    static QByteArray write(const ExportedRun &run, const CodeHighlighter &highlighter);
};

} // namespace sandscope
