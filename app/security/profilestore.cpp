#include "profilestore.h"

#include "security/keyringbackend.h"
#include "security/keyringmodule.h"

#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QPointer>
#include <QSettings>
#include <QStandardPaths>
#include <QtGlobal>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

namespace sandscope {

namespace {

const QString keyringService = QStringLiteral("sandscope");

// Profile names are free text; QSettings treats '/' as a group separator and file names
// must not contain it either, so both use the percent-encoded form.
QString encodedName(const QString &name)
{
    return QString::fromLatin1(QUrl::toPercentEncoding(name));
}

QString decodedName(const QString &encoded)
{
    return QUrl::fromPercentEncoding(encoded.toLatin1());
}

std::unique_ptr<QSettings> openSettings(const QString &path)
{
    if (!path.isEmpty())
        return std::make_unique<QSettings>(path, QSettings::IniFormat);
    return std::make_unique<QSettings>(QSettings::IniFormat, QSettings::UserScope,
        QStringLiteral("sandscope"), QStringLiteral("profiles"));
}

// Not "general/…": QSettings writes a group named "general" as "[%General]" and reads that
// back as "General", so a key stored there was lost at the next start. Versions that
// stored it so are still read (legacyLastUsedKeys).
const QString lastUsedKey = QStringLiteral("connection/lastUsed");
const QStringList legacyLastUsedKeys {
    QStringLiteral("General/lastUsed"), QStringLiteral("general/lastUsed")};

QString profileGroup(const QString &name)
{
    return QStringLiteral("profiles/") + encodedName(name);
}

QString systemError()
{
    return QString::fromLocal8Bit(std::strerror(errno));
}

// Writes `bytes` to `path` so that no other user can ever read it: the temporary file is
// created 0600 before anything is written, then renamed over the target.
bool writeOwnerOnlyFile(const QString &path, const QByteArray &bytes, QString *error)
{
    const QByteArray target = QFile::encodeName(path);
    const QByteArray temporary = target + ".tmp";
    ::unlink(temporary.constData());
    const int fd = ::open(temporary.constData(),
        O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, S_IRUSR | S_IWUSR);
    if (fd < 0) {
        *error = QStringLiteral("cannot create %1: %2").arg(path, systemError());
        return false;
    }
    // The umask can only remove bits, but make the mode explicit anyway.
    bool ok = ::fchmod(fd, S_IRUSR | S_IWUSR) == 0;
    qsizetype written = 0;
    while (ok && written < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.constData() + written, size_t(bytes.size() - written));
        if (n < 0 && errno == EINTR)
            continue;
        ok = n > 0;
        if (ok)
            written += n;
    }
    ok = ok && ::fsync(fd) == 0;
    if (!ok)
        *error = QStringLiteral("cannot write %1: %2").arg(path, systemError());
    ::close(fd);
    if (ok && ::rename(temporary.constData(), target.constData()) != 0) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, systemError());
        ok = false;
    }
    if (!ok)
        ::unlink(temporary.constData());
    return ok;
}

bool ensureOwnerOnlyDirectory(const QString &dir, QString *error)
{
    if (!QDir().mkpath(dir)) {
        *error = QStringLiteral("cannot create the directory %1").arg(dir);
        return false;
    }
    if (::chmod(QFile::encodeName(dir).constData(), S_IRWXU) != 0) {
        *error = QStringLiteral("cannot restrict %1 to its owner: %2").arg(dir, systemError());
        return false;
    }
    return true;
}

ApiError keyFileError(const QString &message)
{
    ApiError error;
    error.kind = ApiError::Kind::BadRequest;
    error.message = message;
    return error;
}

} // namespace

// ---------------------------------------------------------------------------------------
// ProfileStore

ProfileStore::ProfileStore(const QString &settingsPath)
    : m_settingsPath(settingsPath)
{
}

QStringList ProfileStore::names() const
{
    auto settings = openSettings(m_settingsPath);
    settings->beginGroup(QStringLiteral("profiles"));
    QStringList result;
    const QStringList groups = settings->childGroups();
    for (const QString &group : groups)
        result.append(decodedName(group));
    result.sort(Qt::CaseInsensitive);
    return result;
}

bool ProfileStore::contains(const QString &name) const
{
    return !name.isEmpty() && names().contains(name);
}

Profile ProfileStore::profile(const QString &name) const
{
    auto settings = openSettings(m_settingsPath);
    settings->beginGroup(profileGroup(name));
    Profile result;
    if (!settings->contains(QStringLiteral("url")))
        return result;
    result.name = name;
    result.serverUrl = QUrl(settings->value(QStringLiteral("url")).toString());
    result.defaultUserId = settings->value(QStringLiteral("defaultUserId")).toString();
    result.timeoutMs = settings->value(QStringLiteral("timeoutMs"), result.timeoutMs).toInt();
    result.adminCommand = settings->value(QStringLiteral("adminCommand")).toString();
    result.fleetFile = settings->value(QStringLiteral("fleetFile")).toString();
    return result;
}

void ProfileStore::save(const Profile &profile)
{
    if (profile.name.isEmpty())
        return;
    auto settings = openSettings(m_settingsPath);
    settings->remove(profileGroup(profile.name));
    settings->beginGroup(profileGroup(profile.name));
    // Credentials never belong in the settings file, not even inside the URL.
    settings->setValue(
        QStringLiteral("url"), profile.serverUrl.adjusted(QUrl::RemoveUserInfo).toString());
    settings->setValue(QStringLiteral("defaultUserId"), profile.defaultUserId);
    settings->setValue(QStringLiteral("timeoutMs"), profile.timeoutMs);
    settings->setValue(QStringLiteral("adminCommand"), profile.adminCommand);
    settings->setValue(QStringLiteral("fleetFile"), profile.fleetFile);
    settings->endGroup();
    settings->sync();
}

void ProfileStore::remove(const QString &name)
{
    auto settings = openSettings(m_settingsPath);
    settings->remove(profileGroup(name));
    if (lastUsed() == name) {
        settings->remove(lastUsedKey);
        for (const QString &legacy : legacyLastUsedKeys)
            settings->remove(legacy);
    }
    settings->sync();
}

QString ProfileStore::lastUsed() const
{
    auto settings = openSettings(m_settingsPath);
    if (settings->contains(lastUsedKey))
        return settings->value(lastUsedKey).toString();
    for (const QString &legacy : legacyLastUsedKeys) {
        if (settings->contains(legacy))
            return settings->value(legacy).toString();
    }
    return {};
}

void ProfileStore::setLastUsed(const QString &name)
{
    auto settings = openSettings(m_settingsPath);
    settings->setValue(lastUsedKey, name);
    for (const QString &legacy : legacyLastUsedKeys)
        settings->remove(legacy);
    settings->sync();
}

// ---------------------------------------------------------------------------------------
// KeyStore

KeyStore::KeyStore(const QString &fallbackDir, QObject *parent)
    : QObject(parent)
    , m_fallbackDir(fallbackDir)
{
    if (m_fallbackDir.isEmpty())
        m_fallbackDir = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation)
            + QStringLiteral("/sandscope/keys");
}

QString KeyStore::fallbackFile(const QString &profile) const
{
    return m_fallbackDir + QLatin1Char('/') + encodedName(profile) + QStringLiteral(".key");
}

void KeyStore::storeKey(const QString &profile, const QString &key,
    std::function<void(KeyStorage, const QString &)> done)
{
    auto storeInFile = [this, profile, key, done](const QString &keyringError) {
        QString error;
        const QString file = fallbackFile(profile);
        if (ensureOwnerOnlyDirectory(m_fallbackDir, &error)
            && writeOwnerOnlyFile(file, key.toUtf8(), &error)) {
            done(KeyStorage::FallbackFile, QString());
            return;
        }
        if (!keyringError.isEmpty())
            error = QStringLiteral("no keyring available (%1) and %2").arg(keyringError, error);
        done(KeyStorage::None, error);
    };

    if (!m_keyringEnabled) {
        storeInFile(QString());
        return;
    }
    QString moduleError;
    KeyringBackend *keyring = KeyringModule::backend(&moduleError);
    if (!keyring) {
        storeInFile(moduleError);
        return;
    }
    QPointer<KeyStore> self(this);
    keyring->write(keyringService, profile, key, this,
        [self, profile, done, storeInFile](
            KeyringBackend::Outcome outcome, const QString &, const QString &error) {
            if (!self)
                return;
            if (outcome == KeyringBackend::Outcome::Done) {
                // A key saved earlier without a keyring must not linger on disk.
                QFile::remove(self->fallbackFile(profile));
                done(KeyStorage::Keyring, QString());
            } else {
                storeInFile(error);
            }
        });
}

void KeyStore::readKey(
    const QString &profile, std::function<void(const QString &, KeyStorage, const QString &)> done)
{
    auto readFromFile = [this, profile, done](const QString &keyringError) {
        const QString file = fallbackFile(profile);
        if (QFileInfo::exists(file)) {
            const Result<QString> key = readApiKeyFile(file);
            if (key.ok())
                done(key.value, KeyStorage::FallbackFile, QString());
            else
                done(QString(), KeyStorage::None, key.error.message);
            return;
        }
        QString error = QStringLiteral("no API key is stored for the profile \"%1\"").arg(profile);
        if (!keyringError.isEmpty())
            error += QStringLiteral(" (keyring: %1)").arg(keyringError);
        done(QString(), KeyStorage::None, error);
    };

    if (!m_keyringEnabled) {
        readFromFile(QString());
        return;
    }
    QString moduleError;
    KeyringBackend *keyring = KeyringModule::backend(&moduleError);
    if (!keyring) {
        readFromFile(moduleError);
        return;
    }
    QPointer<KeyStore> self(this);
    keyring->read(keyringService, profile, this,
        [self, done, readFromFile](
            KeyringBackend::Outcome outcome, const QString &text, const QString &error) {
            if (!self)
                return;
            if (outcome == KeyringBackend::Outcome::Done && !text.isEmpty())
                done(text, KeyStorage::Keyring, QString());
            else
                readFromFile(outcome == KeyringBackend::Outcome::NotFound ? QString() : error);
        });
}

void KeyStore::deleteKey(const QString &profile, std::function<void()> done)
{
    QFile::remove(fallbackFile(profile));
    if (!m_keyringEnabled) {
        if (done)
            done();
        return;
    }
    KeyringBackend *keyring = KeyringModule::backend();
    if (!keyring) { // nothing can be in a keyring that cannot be reached
        if (done)
            done();
        return;
    }
    keyring->remove(keyringService, profile, this,
        [done](KeyringBackend::Outcome, const QString &, const QString &) {
            if (done)
                done();
        });
}

QString KeyStore::readKeyBlocking(const QString &profile, KeyStorage *where, QString *error)
{
    QEventLoop loop;
    bool finished = false;
    QString result;
    readKey(profile, [&](const QString &key, KeyStorage storage, const QString &message) {
        result = key;
        if (where)
            *where = storage;
        if (error)
            *error = message;
        finished = true;
        loop.quit();
    });
    if (!finished)
        loop.exec();
    return result;
}

// ---------------------------------------------------------------------------------------

Result<QString> readApiKeyFile(const QString &path)
{
    const QFileInfo info(path);
    if (!info.exists())
        return Result<QString>::failure(
            keyFileError(QStringLiteral("the API key file %1 does not exist").arg(path)));
    if (!info.isFile())
        return Result<QString>::failure(
            keyFileError(QStringLiteral("the API key file %1 is not a regular file").arg(path)));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Result<QString>::failure(keyFileError(
            QStringLiteral("cannot read the API key file %1: %2").arg(path, file.errorString())));
    // What was opened is checked (not the path again): owned by whoever runs Sandscope (root
    // too: a key another user wrote could be theirs to swap), and nobody else may read or
    // write it.
    struct stat status { };
    if (::fstat(file.handle(), &status) != 0)
        return Result<QString>::failure(keyFileError(
            QStringLiteral("cannot read the API key file %1: %2").arg(path, systemError())));
    if (!S_ISREG(status.st_mode))
        return Result<QString>::failure(
            keyFileError(QStringLiteral("the API key file %1 is not a regular file").arg(path)));
    if (status.st_uid != ::geteuid())
        return Result<QString>::failure(
            keyFileError(QStringLiteral("the API key file %1 belongs to another user (uid %2); "
                                        "use a file of your own (chmod 600)")
                             .arg(path)
                             .arg(status.st_uid)));
    if (status.st_mode & (S_IRGRP | S_IWGRP | S_IROTH | S_IWOTH))
        return Result<QString>::failure(
            keyFileError(QStringLiteral("the API key file %1 is accessible to other users; "
                                        "restrict it with: chmod 600 %1")
                             .arg(path)));
    QString key = QString::fromUtf8(file.readAll());
    while (!key.isEmpty() && key.back().isSpace())
        key.chop(1);
    if (key.trimmed().isEmpty())
        return Result<QString>::failure(
            keyFileError(QStringLiteral("the API key file %1 is empty").arg(path)));
    return Result<QString>::success(key);
}

} // namespace sandscope
