#include "security/keyringmodule.h"

#include "security/keyringbackend.h"

#include <QDir>
#include <QFileInfo>
#include <QLibrary>

#include <dlfcn.h>

namespace sandscope {

namespace {

struct Loaded {
    KeyringBackend *backend = nullptr;
    QString error;
};

Loaded load()
{
    Loaded loaded;
    Dl_info info {};
    // This function's own library: the core, wherever it was loaded from.
    if (dladdr(reinterpret_cast<void *>(&load), &info) == 0 || !info.dli_fname) {
        loaded.error = QStringLiteral("cannot tell where the core library is");
        return loaded;
    }
    const QString path = KeyringModule::modulePath(
        QFileInfo(QString::fromLocal8Bit(info.dli_fname)).canonicalFilePath());
    if (!QFileInfo::exists(path)) {
        loaded.error = QStringLiteral("the keyring module is not installed (no %1)").arg(path);
        return loaded;
    }
    QLibrary library(path);
    if (!library.load()) {
        loaded.error
            = QStringLiteral("cannot load the keyring module: %1").arg(library.errorString());
        return loaded;
    }
    using Entry = KeyringBackend *(*)();
    const auto entry = reinterpret_cast<Entry>(library.resolve("sandscope_keyring_backend"));
    if (!entry) {
        loaded.error = QStringLiteral("%1 has no sandscope_keyring_backend: it is not from this "
                                      "build of sandscope")
                           .arg(path);
        return loaded;
    }
    // Never unloaded: the backend and the jobs it starts live in the module.
    loaded.backend = entry();
    return loaded;
}

} // namespace

KeyringBackend *KeyringModule::backend(QString *error)
{
    static const Loaded loaded = load();
    if (error)
        *error = loaded.error;
    return loaded.backend;
}

QString KeyringModule::modulePath(const QString &coreLibraryPath)
{
    return QDir::cleanPath(QFileInfo(coreLibraryPath).absolutePath() + QLatin1Char('/')
        + QStringLiteral(SANDSCOPE_KEYRING_MODULE));
}

} // namespace sandscope
