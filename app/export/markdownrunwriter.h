#pragma once
// The Markdown export, for pasting into an issue: the summary as a table, then the tree as a
// nested list (sub-agent work indented under its Agent call), each tool call with its id and
// its command or input, an Edit as a diff and the output in fenced blocks.

#include "export/exportedrun.h"

#include <QByteArray>

namespace sandscope {

class MarkdownRunWriter {
public:
    static QByteArray write(const ExportedRun &run);
};

} // namespace sandscope
