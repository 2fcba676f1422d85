// Profiles persist without keys, keys fall back to an owner-only file when no keyring
// answers, --api-key-file refuses unsafe files, and audit lines carry their fields but
// never a credential.

#include "security/auditlog.h"
#include "security/keyringmodule.h"
#include "security/profilestore.h"
#include "testing.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace sandscope;

namespace {

// Permission bits (e.g. 0600) of a file or directory.
int modeOf(const QString &path)
{
    struct stat status { };
    if (::stat(QFile::encodeName(path).constData(), &status) != 0)
        return -1;
    return int(status.st_mode & 07777);
}

bool writeFile(const QString &path, const QByteArray &bytes, int mode)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    file.write(bytes);
    file.close();
    return ::chmod(QFile::encodeName(path).constData(), mode_t(mode)) == 0;
}

// QSettings keeps a parsed copy of each file for the process, so a store opened again in
// the same process may see what was written rather than what the file says. The next start
// of the app parses the file: a copy under a fresh name is parsed the same way.
QString asParsedAtNextStart(const QString &path)
{
    static int copies = 0;
    const QString copy = path + QStringLiteral(".next-start-%1.ini").arg(++copies);
    QFile::remove(copy);
    return QFile::copy(path, copy) ? copy : QString();
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

struct StoreOutcome {
    bool called = false;
    KeyStorage where = KeyStorage::None;
    QString error;
};

StoreOutcome storeKey(KeyStore &store, const QString &profile, const QString &key)
{
    StoreOutcome outcome;
    store.storeKey(profile, key, [&](KeyStorage where, const QString &error) {
        outcome.called = true;
        outcome.where = where;
        outcome.error = error;
    });
    // outcome.called tells the caller whether the callback came in time.
    [[maybe_unused]] const bool inTime = QTest::qWaitFor([&] { return outcome.called; }, 10000);
    return outcome;
}

} // namespace

class KeyFileProfilesTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }

    void profilesSurviveAReloadFromTheSettingsFile_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("plain") << QStringLiteral("prod-sandbox");
        QTest::newRow("slash and spaces") << QStringLiteral("team/prod box");
        QTest::newRow("non-ascii") << QStringLiteral("Büro ✓");
        QTest::newRow("ini syntax") << QStringLiteral("[general];=x");
    }
    void profilesSurviveAReloadFromTheSettingsFile()
    {
        QFETCH(QString, name);
        const QString settingsPath = m_dir.filePath(QStringLiteral("roundtrip.ini"));
        QFile::remove(settingsPath);
        Profile saved;
        saved.name = name;
        saved.serverUrl = QUrl(QStringLiteral("http://127.0.0.1:8123/prefix"));
        saved.defaultUserId = QStringLiteral("alice@example.com");
        saved.timeoutMs = 4500;
        {
            ProfileStore store(settingsPath);
            store.save(saved);
            Profile other;
            other.name = QStringLiteral("other");
            other.serverUrl = QUrl(QStringLiteral("https://ot.example.org"));
            store.save(other);
            store.setLastUsed(name);
        }
        const QString atNextStart = asParsedAtNextStart(settingsPath);
        ProfileStore reloaded(atNextStart);
        QCOMPARE(reloaded.names().size(), 2);
        QVERIFY(reloaded.names().contains(name));
        QVERIFY(reloaded.contains(name));
        const Profile loaded = reloaded.profile(name);
        QCOMPARE(loaded.name, name);
        QCOMPARE(loaded.serverUrl, saved.serverUrl);
        QCOMPARE(loaded.defaultUserId, saved.defaultUserId);
        QCOMPARE(loaded.timeoutMs, saved.timeoutMs);
        QCOMPARE(reloaded.lastUsed(), name);

        reloaded.remove(name);
        QCOMPARE(ProfileStore(atNextStart).names(), QStringList {QStringLiteral("other")});
        QVERIFY(!reloaded.contains(name));
        QVERIFY(reloaded.profile(name).name.isEmpty());
        QVERIFY2(reloaded.lastUsed().isEmpty(), "a removed profile must not stay the last used");
    }

    // Versions before this one stored the last profile where QSettings wrote it as
    // "[%General]" and lost it at the next start; such a file still opens its profile, and
    // the next choice replaces the old entry instead of adding a second section.
    void theLastProfileOfAnEarlierVersionIsReadAndReplacedOnce()
    {
        const QString settingsPath = m_dir.filePath(QStringLiteral("legacy.ini"));
        QFile file(settingsPath);
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write("[%General]\nlastUsed=lab\n\n[profiles]\nlab\\url=http://127.0.0.1:9\n");
        file.close();
        QCOMPARE(ProfileStore(settingsPath).lastUsed(), QStringLiteral("lab"));

        ProfileStore(settingsPath).setLastUsed(QStringLiteral("lab"));
        QCOMPARE(readAll(settingsPath).count("lastUsed="), 1);
        QCOMPARE(ProfileStore(asParsedAtNextStart(settingsPath)).lastUsed(), QStringLiteral("lab"));
    }

    void credentialsInAProfileUrlAreNotPersisted()
    {
        const QString settingsPath = m_dir.filePath(QStringLiteral("credentials.ini"));
        Profile profile;
        profile.name = QStringLiteral("with-credentials");
        profile.serverUrl = QUrl(QStringLiteral("http://admin:s3cr3t-in-url@127.0.0.1:8000"));
        ProfileStore(settingsPath).save(profile);
        QCOMPARE(ProfileStore(settingsPath).profile(profile.name).serverUrl,
            QUrl(QStringLiteral("http://127.0.0.1:8000")));
        QVERIFY(!readAll(settingsPath).contains("s3cr3t-in-url"));
    }

    void keyFallsBackToAnOwnerOnlyFileWithoutKeyring()
    {
        const QString keyDir = m_dir.filePath(QStringLiteral("keys"));
        const QString key = QStringLiteral("fallback-key-0123456789abcdef");
        KeyStore store(keyDir);
        store.setKeyringEnabled(false);

        const StoreOutcome stored = storeKey(store, QStringLiteral("team/prod"), key);
        QVERIFY(stored.called);
        QCOMPARE(stored.where, KeyStorage::FallbackFile);
        QVERIFY2(stored.error.isEmpty(), qPrintable(stored.error));

        const QString file = store.fallbackFile(QStringLiteral("team/prod"));
        QVERIFY2(file.startsWith(keyDir + QLatin1Char('/')), qPrintable(file));
        QCOMPARE(modeOf(file), 0600);
        QCOMPARE(modeOf(keyDir), 0700);
        QCOMPARE(readAll(file), key.toUtf8());

        KeyStorage where = KeyStorage::None;
        QString error;
        QCOMPARE(store.readKeyBlocking(QStringLiteral("team/prod"), &where, &error), key);
        QCOMPARE(where, KeyStorage::FallbackFile);

        bool deleted = false;
        store.deleteKey(QStringLiteral("team/prod"), [&] { deleted = true; });
        QTRY_VERIFY(deleted);
        QVERIFY(!QFile::exists(file));
        QVERIFY(store.readKeyBlocking(QStringLiteral("team/prod"), &where, &error).isEmpty());
        QCOMPARE(where, KeyStorage::None);
        QVERIFY2(error.contains(QStringLiteral("team/prod")), qPrintable(error));
    }

    // Headless machines (CI) have no Secret Service: the key must still be stored, in the
    // owner-only file, and reported as such. With a keyring the entry is removed again.
    void keyringPathEndsWithAUsableKeyEitherWay()
    {
        const QString keyDir = m_dir.filePath(QStringLiteral("keyring-or-file"));
        const QString profile
            = QStringLiteral("sandscope-test-%1").arg(QCoreApplication::applicationPid());
        const QString key = QStringLiteral("keyring-or-file-key-42");
        KeyStore store(keyDir);

        const StoreOutcome stored = storeKey(store, profile, key);
        QVERIFY(stored.called);
        QVERIFY2(stored.where != KeyStorage::None, qPrintable(stored.error));
        if (stored.where == KeyStorage::FallbackFile)
            QCOMPARE(modeOf(store.fallbackFile(profile)), 0600);
        else
            QVERIFY2(!QFile::exists(store.fallbackFile(profile)), "keyring used, no file expected");

        KeyStorage where = KeyStorage::None;
        QString error;
        QCOMPARE(store.readKeyBlocking(profile, &where, &error), key);
        QCOMPARE(where, stored.where);

        bool deleted = false;
        store.deleteKey(profile, [&] { deleted = true; });
        QTRY_VERIFY_WITH_TIMEOUT(deleted, 10000);
        QVERIFY(store.readKeyBlocking(profile, &where, &error).isEmpty());
        QCOMPARE(where, KeyStorage::None);
    }

    // QtKeychain lives in a module of its own (security/keyringbackend.h), loaded from beside
    // the core library: a missing or broken module would send every key to the file with no
    // keyring ever tried, which keyringPathEndsWithAUsableKeyEitherWay alone cannot tell.
    void theKeyringModuleLoadsFromBesideTheCoreLibrary()
    {
        QString error;
        QVERIFY2(KeyringModule::backend(&error) != nullptr, qPrintable(error));
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(
            KeyringModule::modulePath(QStringLiteral("/usr/lib/sandscope/libsandscope_core.so.0")),
            QStringLiteral("/usr/lib/sandscope/")
                + QFileInfo(KeyringModule::modulePath({})).fileName());
    }

    void storingOverALooseKeyFileMakesItOwnerOnly()
    {
        const QString keyDir = m_dir.filePath(QStringLiteral("loose"));
        KeyStore store(keyDir);
        store.setKeyringEnabled(false);
        QVERIFY(QDir().mkpath(keyDir));
        QVERIFY(::chmod(QFile::encodeName(keyDir).constData(), 0755) == 0);
        const QString file = store.fallbackFile(QStringLiteral("p"));
        QVERIFY(writeFile(file, "old-key-value", 0644));

        const StoreOutcome stored = storeKey(store, QStringLiteral("p"), QStringLiteral("new-key"));
        QVERIFY(stored.called);
        QCOMPARE(stored.where, KeyStorage::FallbackFile);
        QCOMPARE(modeOf(file), 0600);
        QCOMPARE(modeOf(keyDir), 0700);
        QCOMPARE(readAll(file), QByteArray("new-key"));
    }

    void apiKeyFileIsReadWhenOnlyTheOwnerCanReadIt_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("expected");
        QTest::newRow("trailing newline") << QByteArray("abc-123\n") << QStringLiteral("abc-123");
        QTest::newRow("CRLF") << QByteArray("abc-123\r\n") << QStringLiteral("abc-123");
        QTest::newRow("no newline") << QByteArray("abc-123") << QStringLiteral("abc-123");
    }
    void apiKeyFileIsReadWhenOnlyTheOwnerCanReadIt()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, expected);
        const QString path = m_dir.filePath(QStringLiteral("good.key"));
        QVERIFY(writeFile(path, content, 0600));
        const Result<QString> key = readApiKeyFile(path);
        QVERIFY2(key.ok(), qPrintable(key.error.message));
        QCOMPARE(key.value, expected);
    }

    void unsafeOrEmptyApiKeyFilesAreRefused_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("reason");
        QTest::newRow("world readable")
            << QByteArray("k-123456\n") << 0644 << QStringLiteral("chmod 600");
        QTest::newRow("group readable")
            << QByteArray("k-123456\n") << 0640 << QStringLiteral("chmod 600");
        QTest::newRow("empty") << QByteArray() << 0600 << QStringLiteral("empty");
        QTest::newRow("only a newline") << QByteArray("\n") << 0600 << QStringLiteral("empty");
    }
    void unsafeOrEmptyApiKeyFilesAreRefused()
    {
        QFETCH(QByteArray, content);
        QFETCH(int, mode);
        QFETCH(QString, reason);
        const QString path = m_dir.filePath(QStringLiteral("refused.key"));
        QVERIFY(writeFile(path, content, mode));
        const Result<QString> key = readApiKeyFile(path);
        QVERIFY(!key.ok());
        QVERIFY(key.value.isEmpty());
        QVERIFY2(key.error.message.contains(reason), qPrintable(key.error.message));
        QVERIFY2(key.error.message.contains(path), qPrintable(key.error.message));
        if (!content.trimmed().isEmpty())
            QVERIFY(!key.error.message.contains(QString::fromUtf8(content.trimmed())));
    }

    // Issue 27: a key file must belong to whoever runs Sandscope (root too) and nobody else
    // may write it.
    void apiKeyFileOfAnotherUserOrWritableIsRefused()
    {
        const QString writable = m_dir.filePath(QStringLiteral("writable.key"));
        QVERIFY(writeFile(writable, "k-123456\n", 0602));
        QVERIFY(!readApiKeyFile(writable).ok());
        if (::geteuid() != 0) {
            if (test::runningInCi())
                QFAIL("needs root to give a file to another user");
            QSKIP("needs root to give a file to another user");
        }
        const QString theirs = m_dir.filePath(QStringLiteral("theirs.key"));
        QVERIFY(writeFile(theirs, "k-123456\n", 0600));
        QCOMPARE(::chown(QFile::encodeName(theirs).constData(), 65534, 65534), 0);
        const Result<QString> key = readApiKeyFile(theirs);
        QVERIFY(!key.ok());
        QVERIFY2(key.error.message.contains(QStringLiteral("another user")),
            qPrintable(key.error.message));
        QVERIFY(!key.error.message.contains(QStringLiteral("k-123456")));
    }

    // Issue 27: a command line that holds a credential is logged with it masked.
    void auditedCommandLinesHaveTheirSecretsMasked_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("secret");
        QTest::newRow("bearer header") << "curl -H 'Authorization: Bearer abcd1234efgh' x"
                                       << "abcd1234efgh";
        QTest::newRow("mysql") << "mysql -u root -pHunter2Pw db"
                               << "Hunter2Pw";
        QTest::newRow("env assignment") << "GITHUB_TOKEN=tok123value ./deploy"
                                        << "tok123value";
        QTest::newRow("url password") << "git clone https://me:pw9secret@host/r"
                                      << "pw9secret";
        QTest::newRow("token shape") << "echo sk-ant-api03-0123456789abcdefXYZ"
                                     << "0123456789abcdefXYZ";
    }
    void auditedCommandLinesHaveTheirSecretsMasked()
    {
        QFETCH(QString, command);
        QFETCH(QString, secret);
        const QString path = m_dir.filePath(QStringLiteral("masked/audit.jsonl"));
        AuditLog log(path);
        QVERIFY(log.append({QString(), QStringLiteral("http://h:1"), QStringLiteral("alice"),
            QStringLiteral("exec"), command, QStringLiteral("failed: ") + command}));
        const QByteArray content = readAll(path);
        QVERIFY2(!content.contains(secret.toUtf8()), content.constData());
        QVERIFY(content.contains("\"action\":\"exec\""));
        QFile::remove(path);
    }

    void missingApiKeyFileIsRefused()
    {
        const Result<QString> key = readApiKeyFile(m_dir.filePath(QStringLiteral("absent.key")));
        QVERIFY(!key.ok());
        QVERIFY2(key.error.message.contains(QStringLiteral("does not exist")),
            qPrintable(key.error.message));
    }

    void auditLinesCarryEveryFieldAndNoCredential()
    {
        const QString path = m_dir.filePath(QStringLiteral("audit/sub/audit.jsonl"));
        qputenv("SANDSCOPE_AUDIT_LOG", QFile::encodeName(path));
        QCOMPARE(AuditLog::defaultPath(), path);
        qunsetenv("SANDSCOPE_AUDIT_LOG");
        QVERIFY(AuditLog::defaultPath().endsWith(QStringLiteral("/sandscope/audit.jsonl")));

        const QString secret = QStringLiteral("audit-secret-key-987");
        AuditLog log(path);
        const QDateTime before = QDateTime::currentDateTimeUtc().addSecs(-1);
        QVERIFY(log.append({QStringLiteral("prod"),
            QStringLiteral("http://user:%1@10.0.0.5:8000").arg(secret), QStringLiteral("alice"),
            QStringLiteral("exec"), QStringLiteral("id -un"), QStringLiteral("ok")}));
        QVERIFY(log.append({QString(), QStringLiteral("http://10.0.0.5:8000"),
            QStringLiteral("bob"), QStringLiteral("kill"), QStringLiteral("20260101-000000-abcdef"),
            QStringLiteral("Process not found")}));
        const QDateTime after = QDateTime::currentDateTimeUtc().addSecs(1);

        QCOMPARE(modeOf(path), 0600);
        const QByteArray content = readAll(path);
        QVERIFY(!content.contains(secret.toUtf8()));
        const QList<QByteArray> lines = content.trimmed().split('\n');
        QCOMPARE(lines.size(), 2);

        const QJsonObject first = QJsonDocument::fromJson(lines.at(0)).object();
        const QStringList fields {QStringLiteral("time"), QStringLiteral("profile"),
            QStringLiteral("server"), QStringLiteral("user"), QStringLiteral("action"),
            QStringLiteral("target"), QStringLiteral("result")};
        for (const QString &field : fields)
            QVERIFY2(first.contains(field), qPrintable(field));
        QCOMPARE(first.size(), fields.size());
        const QString time = first.value(QStringLiteral("time")).toString();
        QVERIFY2(time.endsWith(QLatin1Char('Z')), qPrintable(time));
        const QDateTime stamp = QDateTime::fromString(time, Qt::ISODateWithMs);
        QVERIFY(stamp.isValid());
        QVERIFY(stamp >= before && stamp <= after);
        QCOMPARE(first.value(QStringLiteral("profile")).toString(), QStringLiteral("prod"));
        QCOMPARE(first.value(QStringLiteral("server")).toString(),
            QStringLiteral("http://10.0.0.5:8000"));
        QCOMPARE(first.value(QStringLiteral("user")).toString(), QStringLiteral("alice"));
        QCOMPARE(first.value(QStringLiteral("action")).toString(), QStringLiteral("exec"));
        QCOMPARE(first.value(QStringLiteral("target")).toString(), QStringLiteral("id -un"));
        QCOMPARE(first.value(QStringLiteral("result")).toString(), QStringLiteral("ok"));

        const QJsonObject second = QJsonDocument::fromJson(lines.at(1)).object();
        QCOMPARE(second.value(QStringLiteral("action")).toString(), QStringLiteral("kill"));
        QCOMPARE(
            second.value(QStringLiteral("result")).toString(), QStringLiteral("Process not found"));
    }

    void auditLogTightensAnExistingLooseFile()
    {
        const QString path = m_dir.filePath(QStringLiteral("loose-audit.jsonl"));
        QVERIFY(writeFile(path, "{\"earlier\":true}\n", 0644));
        QVERIFY(AuditLog(path).append(
            {QStringLiteral("p"), QStringLiteral("http://h:1"), QStringLiteral("u"),
                QStringLiteral("write"), QStringLiteral("/tmp/x"), QStringLiteral("ok")}));
        QCOMPARE(modeOf(path), 0600);
        QCOMPARE(readAll(path).count('\n'), 2); // appended, not replaced
    }

    void auditAppendReportsAnUnwritableLocation()
    {
        const QString blocker = m_dir.filePath(QStringLiteral("not-a-dir"));
        QVERIFY(writeFile(blocker, "x", 0600));
        QVERIFY(!AuditLog(blocker + QStringLiteral("/audit.jsonl")).append({}));
    }

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(KeyFileProfilesTest)
#include "tst_keyfile_profiles.moc"
