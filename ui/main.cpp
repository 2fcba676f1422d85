// Sandscope: the command line, or the window when argv asks for no verb.
//
// The executable links only the core and the command line (Qt Core + Network): every verb
// starts without loading Qt Widgets, Gui, Svg, Pdf, Charts, KSyntaxHighlighting or QTermWidget
// (when they were linked in, their relocations and static initialisers doubled the CPU time of
// `sandscope --version`, 10 ms instead of 5). The window lives in a module
// (ui/module/windowentry.cpp) loaded only when no verb is given.

#include "cli/cli.h"
#include "launcher/modulecodehighlighter.h"
#include "launcher/windowmodule.h"
#include "util/allocatortuning.h"

#include <cstdio>

using namespace sandscope;

int main(int argc, char **argv)
{
    if (cli::wantsCommandLine(argc, argv)) {
        // `sandscope export` colours code as the window does, with the module's highlighter,
        // loaded only when an export first has code to colour.
        static const ModuleCodeHighlighter highlighter;
        CodeHighlighter::setInstance(&highlighter);
        return cli::run(argc, argv);
    }
    tuneAllocatorForSteadyLatency();
    WindowModule module;
    const WindowModule::MainFunction windowMain = module.windowMain();
    if (!windowMain) {
        std::fprintf(stderr, "sandscope: %s\n", qPrintable(module.errorString()));
        return 1;
    }
    return windowMain(argc, argv);
}
