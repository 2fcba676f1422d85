// The keyring module (app/security/keyringbackend.h): QtKeychain's jobs behind KeyringBackend.
// Its one exported symbol is sandscope_keyring_backend (keyringentry.map).

#include "security/keyringbackend.h"

#if QT_VERSION_MAJOR >= 6
#include <qt6keychain/keychain.h>
#else
#include <qt5keychain/keychain.h>
#endif

#ifdef SANDSCOPE_KEYRING_DBUS
#include <QDBusConnection>
#include <QDBusError>
#endif

namespace sandscope {
namespace {

// What a failed job says. Without a D-Bus session bus (a shell over SSH, a container) QtKeychain
// says only "Unknown error": then the bus's own reason is given, which says what is missing.
QString failureText(const QKeychain::Job *job)
{
#ifdef SANDSCOPE_KEYRING_DBUS
    if (job->error() == QKeychain::OtherError || job->error() == QKeychain::NoBackendAvailable) {
        const QDBusConnection bus = QDBusConnection::sessionBus();
        if (!bus.isConnected())
            return QStringLiteral("no D-Bus session bus to reach the Secret Service or KWallet "
                                  "through: %1")
                .arg(bus.lastError().message());
    }
#endif
    return job->errorString();
}

KeyringBackend::Outcome outcomeOf(const QKeychain::Job *job)
{
    switch (job->error()) {
    case QKeychain::NoError:
        return KeyringBackend::Outcome::Done;
    case QKeychain::EntryNotFound:
        return KeyringBackend::Outcome::NotFound;
    default:
        return KeyringBackend::Outcome::Failed;
    }
}

class QtKeychainBackend final : public KeyringBackend {
public:
    void write(const QString &service, const QString &key, const QString &secret, QObject *context,
        Finished finished) override
    {
        auto *job = new QKeychain::WritePasswordJob(service, context);
        job->setTextData(secret);
        start(job, key, context, std::move(finished));
    }

    void read(
        const QString &service, const QString &key, QObject *context, Finished finished) override
    {
        start(new QKeychain::ReadPasswordJob(service, context), key, context, std::move(finished));
    }

    void remove(
        const QString &service, const QString &key, QObject *context, Finished finished) override
    {
        start(
            new QKeychain::DeletePasswordJob(service, context), key, context, std::move(finished));
    }

private:
    static void start(QKeychain::Job *job, const QString &key, QObject *context, Finished finished)
    {
        job->setAutoDelete(true);
        job->setKey(key);
        QObject::connect(job, &QKeychain::Job::finished, context,
            [finished = std::move(finished)](QKeychain::Job *done) {
                const auto *read = qobject_cast<const QKeychain::ReadPasswordJob *>(done);
                const Outcome outcome = outcomeOf(done);
                finished(outcome, read ? read->textData() : QString(),
                    outcome == Outcome::Done ? QString() : failureText(done));
            });
        job->start();
    }
};

} // namespace
} // namespace sandscope

extern "C" Q_DECL_EXPORT sandscope::KeyringBackend *sandscope_keyring_backend()
{
    static sandscope::QtKeychainBackend backend;
    return &backend;
}
