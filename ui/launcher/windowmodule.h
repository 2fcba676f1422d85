#pragma once
// The window's module (sandscope-window.so, built from ui/module/windowentry.cpp), which the
// `sandscope` executable loads only when it opens the window or colours an export, so that the
// command line never loads the GUI libraries. Looked for next to the executable (the build
// tree) and in its private library directory (../lib/sandscope when installed).

#include "export/codehighlighter.h"

#include <QLibrary>
#include <QString>
#include <QStringList>

namespace sandscope {

class WindowModule {
public:
    // The window's main(): QApplication, the main window, its event loop; the exit code.
    using MainFunction = int (*)(int argc, char **argv);
    using HighlighterFunction = const CodeHighlighter *(*)();

    // Loads the module on first use; null with errorString() when it is missing or broken.
    MainFunction windowMain();
    HighlighterFunction codeHighlighter();
    QString errorString() const { return m_error; }

    // Where the module is looked for, in order, for the executable at executablePath.
    static QStringList candidatePaths(const QString &executablePath);

private:
    QFunctionPointer resolve(const char *symbol);

    QLibrary m_library;
    QString m_error;
};

} // namespace sandscope
