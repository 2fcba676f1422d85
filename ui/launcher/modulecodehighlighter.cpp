#include "launcher/modulecodehighlighter.h"

#include <cstdio>

namespace sandscope {

QString ModuleCodeHighlighter::toHtml(const QString &code, const QString &fileNameOrLanguage) const
{
    std::call_once(m_loading, [this] {
        if (const WindowModule::HighlighterFunction function = m_module.codeHighlighter())
            m_loaded = function();
        else
            std::fprintf(stderr, "sandscope: code is not coloured: %s\n",
                qPrintable(m_module.errorString()));
    });
    return m_loaded ? m_loaded->toHtml(code, fileNameOrLanguage)
                    : CodeHighlighter::toHtml(code, fileNameOrLanguage);
}

} // namespace sandscope
