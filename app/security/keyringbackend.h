#pragma once
// The system keyring as KeyStore uses it: QtKeychain's three jobs behind an interface, so that
// QtKeychain (and through it Qt D-Bus, libdbus, libsystemd, libgcrypt ...) is loaded only when a
// key is stored, read or deleted, not by every start of `sandscope` (they were about 2 ms of
// each command's start: docs/architecture.md). The implementation is the module
// app/security/keyringmodule/, loaded by KeyringModule; this header is all the two share.

#include <QObject>
#include <QString>

#include <functional>

namespace sandscope {

class KeyringBackend {
public:
    enum class Outcome { Done, NotFound, Failed };
    // Runs on the context's thread; `text` is a read's secret, `error` the keyring's message.
    using Finished
        = std::function<void(Outcome outcome, const QString &text, const QString &error)>;

    virtual ~KeyringBackend() = default;
    // Each job lives as long as `context` at most: `finished` is not called after it is gone.
    virtual void write(const QString &service, const QString &key, const QString &secret,
        QObject *context, Finished finished)
        = 0;
    virtual void read(
        const QString &service, const QString &key, QObject *context, Finished finished)
        = 0;
    virtual void remove(
        const QString &service, const QString &key, QObject *context, Finished finished)
        = 0;
};

} // namespace sandscope
