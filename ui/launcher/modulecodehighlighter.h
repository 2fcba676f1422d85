#pragma once
// The command line's code highlighter: the window module's (ui/export/syntaxcodehighlighter.h),
// loaded on the first call, so only an export that has code to colour loads the GUI libraries.
// Without the module, code is only escaped (the core's default) and a warning says why, once.

#include "export/codehighlighter.h"
#include "launcher/windowmodule.h"

#include <mutex>

namespace sandscope {

class ModuleCodeHighlighter : public CodeHighlighter {
public:
    QString toHtml(const QString &code, const QString &fileNameOrLanguage) const override;

private:
    mutable WindowModule m_module;
    mutable const CodeHighlighter *m_loaded = nullptr;
    mutable std::once_flag m_loading; // exports may colour from worker threads
};

} // namespace sandscope
