#pragma once
// Connection profiles (name, URL, default user, fleet file) persisted with QSettings; API keys kept
// out of them, in the system keyring through QtKeychain, with an owner-only file as a clearly
// reported fallback when no keyring is available.

#include "server/apierror.h"

#include <QObject>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <functional>

namespace sandscope {

struct Profile {
    QString name;
    QUrl serverUrl;
    QString defaultUserId; // empty = the server account
    int timeoutMs = 30000;
    // The local command that opens a root shell in the sandbox for admin scripts (see
    // server/adminaccess.h); empty = the server account.
    QString adminCommand;
    // A fleet file (fleet/fleetconfig.h); empty = a plain server. With a fleet, serverUrl is
    // its router's, kept only to show where the profile pointed when the file goes missing.
    QString fleetFile;
    bool isFleet() const { return !fleetFile.isEmpty(); }
};

class ProfileStore {
public:
    // organization/application select the QSettings file; tests pass a temporary path.
    explicit ProfileStore(const QString &settingsPath = {});

    QStringList names() const;
    bool contains(const QString &name) const;
    Profile profile(const QString &name) const;
    void save(const Profile &profile);
    void remove(const QString &name);
    QString lastUsed() const;
    void setLastUsed(const QString &name);

private:
    QString m_settingsPath;
};

// Where a key was stored or read from, shown to the user.
enum class KeyStorage { None, Keyring, FallbackFile };

class KeyStore : public QObject {
    Q_OBJECT
public:
    // fallbackDir holds owner-only (0600) key files used when no keyring answers.
    explicit KeyStore(const QString &fallbackDir = {}, QObject *parent = nullptr);

    // Asynchronous because keyrings are (D-Bus). The callback runs on this thread.
    void storeKey(const QString &profile, const QString &key,
        std::function<void(KeyStorage where, const QString &error)> done);
    void readKey(const QString &profile,
        std::function<void(const QString &key, KeyStorage where, const QString &error)> done);
    void deleteKey(const QString &profile, std::function<void()> done = {});

    // Blocking wrapper for the CLI (runs a local event loop).
    QString readKeyBlocking(const QString &profile, KeyStorage *where, QString *error);

    void setKeyringEnabled(bool enabled) { m_keyringEnabled = enabled; } // tests: force fallback
    QString fallbackDir() const { return m_fallbackDir; }
    // The owner-only file a profile's key goes to when no keyring is available.
    QString fallbackFile(const QString &profile) const;

private:
    QString m_fallbackDir;
    bool m_keyringEnabled = true;
};

// Reads an API key file for --api-key-file: refuses files that group/others can read.
Result<QString> readApiKeyFile(const QString &path);

} // namespace sandscope
