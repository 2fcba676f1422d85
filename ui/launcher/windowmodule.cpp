#include "launcher/windowmodule.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace sandscope {

QStringList WindowModule::candidatePaths(const QString &executablePath)
{
    const QString directory = QFileInfo(executablePath).absolutePath();
    const QString name = QStringLiteral(SANDSCOPE_WINDOW_MODULE);
    return {QDir::cleanPath(directory + QLatin1Char('/') + name),
        QDir::cleanPath(directory + QStringLiteral("/../" SANDSCOPE_PRIVATE_LIBDIR "/") + name)};
}

WindowModule::MainFunction WindowModule::windowMain()
{
    return reinterpret_cast<MainFunction>(resolve("sandscope_window_main"));
}

WindowModule::HighlighterFunction WindowModule::codeHighlighter()
{
    return reinterpret_cast<HighlighterFunction>(resolve("sandscope_code_highlighter"));
}

QFunctionPointer WindowModule::resolve(const char *symbol)
{
    if (!m_library.isLoaded()) {
        // Before any QCoreApplication exists: the kernel's link to the running executable,
        // with symbolic links resolved (a /usr/local/bin/sandscope link to an unpacked tree).
        const QString executable = QFileInfo(QStringLiteral("/proc/self/exe")).canonicalFilePath();
        const QStringList candidates = candidatePaths(executable);
        QStringList failures;
        for (const QString &path : candidates) {
            if (!QFileInfo::exists(path))
                continue;
            m_library.setFileName(path);
            if (m_library.load())
                break;
            failures << m_library.errorString();
        }
        if (!m_library.isLoaded()) {
            m_error = failures.isEmpty()
                ? QStringLiteral("the window is not installed (no %1). The command line works "
                                 "without it: sandscope --help")
                      .arg(candidates.join(QStringLiteral(" or ")))
                : QStringLiteral("cannot load the window: %1")
                      .arg(failures.join(QStringLiteral("; ")));
            return nullptr;
        }
    }
    const QFunctionPointer function = m_library.resolve(symbol);
    if (!function)
        m_error = QStringLiteral("%1 has no %2: it is not from this build of sandscope")
                      .arg(m_library.fileName(), QLatin1String(symbol));
    return function;
}

} // namespace sandscope
