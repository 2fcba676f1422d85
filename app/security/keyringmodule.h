#pragma once
// Loads the keyring module (app/security/keyringbackend.h) on first use: from the folder of the
// core library itself, where the build puts it and the package installs it.

#include <QString>

namespace sandscope {

class KeyringBackend;

class KeyringModule {
public:
    // The backend, loaded once per process; null with *error saying why (missing or broken
    // module), which KeyStore reports as the keyring's failure.
    static KeyringBackend *backend(QString *error = nullptr);

    // Where the module is looked for: next to the core library at `coreLibraryPath`.
    static QString modulePath(const QString &coreLibraryPath);
};

} // namespace sandscope
