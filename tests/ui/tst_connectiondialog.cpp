// The connection dialog: URL and user id validated before connecting, the API key typed
// into a password field, stored through KeyStore and never read back into the field, and
// where it was stored said plainly (here: the owner-only fallback file); a fleet file checked
// as it is picked (its members shown, its error inline), the router's URL shown read-only, and
// the file kept with the profile.

#include "connectiondialog.h"
#include "security/profilestore.h"
#include "server/connection.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

using namespace sandscope;

class TestConnectionDialog : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void validatesUrl_data();
    void validatesUrl();
    void rejectsInvalidUserId();
    void storesProfileAndKeyAndNeverShowsKey();
    void adminCommandIsValidatedAndKeptWithTheProfile();
    void theProfileShownHasItsFieldsAndPickingItAgainRestoresThem();
    void aFleetFileIsCheckedAsPickedAndGivesTheRoutersUrl();
    void aLongKeyStorageMessageIsShownWhole();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<ProfileStore> m_profiles;
    std::unique_ptr<KeyStore> m_keys;
};

void TestConnectionDialog::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_profiles = std::make_unique<ProfileStore>(m_dir->filePath(QStringLiteral("profiles.ini")));
    m_keys = std::make_unique<KeyStore>(m_dir->filePath(QStringLiteral("keys")));
    m_keys->setKeyringEnabled(false);
}

void TestConnectionDialog::validatesUrl_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<bool>("valid");
    QTest::newRow("http with port") << QStringLiteral("http://127.0.0.1:8000") << true;
    QTest::newRow("https with path prefix") << QStringLiteral("https://example.com/ot") << true;
    QTest::newRow("empty") << QString() << false;
    QTest::newRow("no scheme") << QStringLiteral("127.0.0.1:8000") << false;
    QTest::newRow("ftp") << QStringLiteral("ftp://example.com") << false;
    QTest::newRow("credentials") << QStringLiteral("http://user:secret@example.com") << false;
    QTest::newRow("query") << QStringLiteral("http://example.com/?key=abc") << false;
    QTest::newRow("no host") << QStringLiteral("http://") << false;
}

void TestConnectionDialog::validatesUrl()
{
    QFETCH(QString, url);
    QFETCH(bool, valid);
    ConnectionDialog dialog(m_profiles.get(), m_keys.get());
    dialog.urlEdit()->setText(url);
    QCOMPARE(dialog.buttonBox()->button(QDialogButtonBox::Ok)->isEnabled(), valid);
    QString why;
    QCOMPARE(validateServerUrl(url, &why), valid);
    if (!valid) {
        QVERIFY(!why.isEmpty());
        QCOMPARE(dialog.validationLabel()->text(), why);
    }
}

void TestConnectionDialog::rejectsInvalidUserId()
{
    ConnectionDialog dialog(m_profiles.get(), m_keys.get());
    dialog.urlEdit()->setText(QStringLiteral("http://127.0.0.1:8000"));
    dialog.userEdit()->setText(QStringLiteral("root"));
    QVERIFY(!dialog.buttonBox()->button(QDialogButtonBox::Ok)->isEnabled());
    QVERIFY(dialog.validationLabel()->text().startsWith(QLatin1String("User id:")));

    dialog.userEdit()->setText(QStringLiteral("alice"));
    QVERIFY(dialog.buttonBox()->button(QDialogButtonBox::Ok)->isEnabled());
    dialog.userEdit()->clear();
    QVERIFY2(dialog.buttonBox()->button(QDialogButtonBox::Ok)->isEnabled(),
        "no user id (the server account) is allowed, with a warning");
    QVERIFY(dialog.validationLabel()->text().contains(QLatin1String("server account")));
}

void TestConnectionDialog::storesProfileAndKeyAndNeverShowsKey()
{
    const QString key = QStringLiteral("k3y-for-the-dialog-test");
    {
        ConnectionDialog dialog(m_profiles.get(), m_keys.get());
        QCOMPARE(dialog.keyEdit()->echoMode(), QLineEdit::Password);
        dialog.profileCombo()->setEditText(QStringLiteral("lab"));
        dialog.urlEdit()->setText(QStringLiteral("http://127.0.0.1:8123"));
        dialog.userEdit()->setText(QStringLiteral("alice"));
        dialog.keyEdit()->setText(key);
        dialog.timeoutSpin()->setValue(12);
        QSignalSpy accepted(&dialog, &QDialog::accepted);
        dialog.buttonBox()->button(QDialogButtonBox::Ok)->click();
        QTRY_COMPARE(accepted.count(), 1);
        QCOMPARE(dialog.keyStorage(), KeyStorage::FallbackFile);
        QVERIFY2(dialog.keyStorageLabel()->text().contains(QLatin1String("owner-only file")),
            qPrintable(dialog.keyStorageLabel()->text()));
        QVERIFY(!dialog.keyStorageLabel()->text().contains(key));
    }

    QVERIFY(m_profiles->contains(QStringLiteral("lab")));
    const Profile saved = m_profiles->profile(QStringLiteral("lab"));
    QCOMPARE(saved.serverUrl, QUrl(QStringLiteral("http://127.0.0.1:8123")));
    QCOMPARE(saved.defaultUserId, QStringLiteral("alice"));
    QCOMPARE(saved.timeoutMs, 12000);
    QCOMPARE(m_profiles->lastUsed(), QStringLiteral("lab"));

    KeyStorage where = KeyStorage::None;
    QString error;
    QCOMPARE(m_keys->readKeyBlocking(QStringLiteral("lab"), &where, &error), key);

    // Reopened: the profile is filled in, the key field stays empty, the location is shown.
    ConnectionDialog again(m_profiles.get(), m_keys.get());
    QCOMPARE(again.profileCombo()->currentText(), QStringLiteral("lab"));
    QCOMPARE(again.urlEdit()->text(), QStringLiteral("http://127.0.0.1:8123"));
    QVERIFY(again.keyEdit()->text().isEmpty());
    QTRY_VERIFY(again.keyStorageLabel()->text().contains(QLatin1String("owner-only file")));
    QVERIFY(again.enteredApiKey().isEmpty());
}

void TestConnectionDialog::adminCommandIsValidatedAndKeptWithTheProfile()
{
    {
        ConnectionDialog dialog(m_profiles.get(), m_keys.get());
        dialog.profileCombo()->setEditText(QStringLiteral("compose"));
        dialog.urlEdit()->setText(QStringLiteral("http://127.0.0.1:8000"));
        dialog.userEdit()->setText(QStringLiteral("alice"));
        dialog.adminEdit()->setText(QStringLiteral("docker exec -i -u root 'my box"));
        QVERIFY(!dialog.buttonBox()->button(QDialogButtonBox::Ok)->isEnabled());
        QVERIFY2(dialog.validationLabel()->text().contains(QLatin1String("Admin command"))
                && dialog.validationLabel()->text().contains(QLatin1String("unclosed")),
            qPrintable(dialog.validationLabel()->text()));
        const QString command = QStringLiteral(
            "docker compose -f sandbox/docker-compose.yml exec -T -u root sandbox");
        dialog.adminEdit()->setText(command);
        QVERIFY(dialog.buttonBox()->button(QDialogButtonBox::Ok)->isEnabled());
        QSignalSpy accepted(&dialog, &QDialog::accepted);
        dialog.buttonBox()->button(QDialogButtonBox::Ok)->click();
        QTRY_COMPARE(accepted.count(), 1);
        QCOMPARE(m_profiles->profile(QStringLiteral("compose")).adminCommand, command);
    }
    ConnectionDialog again(m_profiles.get(), m_keys.get());
    again.selectProfile(QStringLiteral("compose"));
    QCOMPARE(again.adminEdit()->text(),
        QStringLiteral("docker compose -f sandbox/docker-compose.yml exec -T -u root sandbox"));
}

// With no last-used profile the combo shows the first saved one: its fields, not empty ones;
// picking the profile shown again brings back its saved fields after edits.
void TestConnectionDialog::theProfileShownHasItsFieldsAndPickingItAgainRestoresThem()
{
    Profile lab;
    lab.name = QStringLiteral("lab");
    lab.serverUrl = QUrl(QStringLiteral("http://127.0.0.1:8000"));
    lab.defaultUserId = QStringLiteral("alice");
    lab.adminCommand = QStringLiteral("sudo -n");
    m_profiles->save(lab);
    QVERIFY(m_profiles->lastUsed().isEmpty());

    ConnectionDialog dialog(m_profiles.get(), m_keys.get());
    QCOMPARE(dialog.profileCombo()->currentText(), lab.name);
    QCOMPARE(dialog.urlEdit()->text(), lab.serverUrl.toString());
    QCOMPARE(dialog.userEdit()->text(), lab.defaultUserId);
    QCOMPARE(dialog.adminEdit()->text(), lab.adminCommand);

    dialog.urlEdit()->setText(QStringLiteral("http://edited.example"));
    dialog.userEdit()->clear();
    Q_EMIT dialog.profileCombo()->activated(dialog.profileCombo()->currentIndex());
    QCOMPARE(dialog.urlEdit()->text(), lab.serverUrl.toString());
    QCOMPARE(dialog.userEdit()->text(), lab.defaultUserId);
}

void TestConnectionDialog::aFleetFileIsCheckedAsPickedAndGivesTheRoutersUrl()
{
    const QString good = m_dir->filePath(QStringLiteral("fleet.json"));
    QFile file(good);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{\"router\": \"http://router.example:8000\", \"members\": ["
               "{\"name\": \"open-terminal-0\", \"url\": \"http://ot-0:8000\"},"
               "{\"name\": \"open-terminal-1\", \"url\": \"http://ot-1:8000\"}]}");
    file.close();
    const QString bad = m_dir->filePath(QStringLiteral("not-a-fleet.json"));
    QFile badFile(bad);
    QVERIFY(badFile.open(QIODevice::WriteOnly));
    badFile.write("{\"router\": \"http://router.example:8000\", \"members\": []}");
    badFile.close();

    {
        ConnectionDialog dialog(m_profiles.get(), m_keys.get());
        dialog.show();
        dialog.profileCombo()->setEditText(QStringLiteral("fleet"));
        dialog.urlEdit()->setText(QStringLiteral("http://127.0.0.1:8000"));
        dialog.userEdit()->setText(QStringLiteral("alice"));
        QVERIFY(!dialog.fleetInfoLabel()->isVisible());
        QVERIFY(!dialog.urlEdit()->isReadOnly());

        dialog.fleetEdit()->setText(bad);
        QVERIFY(dialog.fleetInfoLabel()->isVisible());
        QVERIFY2(dialog.fleetInfoLabel()->text().contains(QLatin1String("\"members\"")),
            qPrintable(dialog.fleetInfoLabel()->text()));
        QVERIFY(!dialog.buttonBox()->button(QDialogButtonBox::Ok)->isEnabled());
        QVERIFY(dialog.validationLabel()->text().contains(QLatin1String("fleet file")));
        if (qEnvironmentVariableIsSet("SANDSCOPE_SCREENSHOT")) {
            QString path = qEnvironmentVariable("SANDSCOPE_SCREENSHOT");
            dialog.grab().save(path.replace(QLatin1String(".png"), QLatin1String("-error.png")));
        }

        dialog.fleetEdit()->setText(good);
        QVERIFY2(dialog.fleetInfoLabel()->text().contains(
                     QLatin1String("2 members: open-terminal-0, open-terminal-1")),
            qPrintable(dialog.fleetInfoLabel()->text()));
        QCOMPARE(dialog.urlEdit()->text(), QStringLiteral("http://router.example:8000"));
        QVERIFY(dialog.urlEdit()->isReadOnly());
        QVERIFY(!dialog.adminEdit()->isEnabled()); // each member's admin_exec is in the file
        QVERIFY(dialog.buttonBox()->button(QDialogButtonBox::Ok)->isEnabled());
        QCOMPARE(dialog.profile().fleetFile, good);
        if (qEnvironmentVariableIsSet("SANDSCOPE_SCREENSHOT"))
            dialog.grab().save(qEnvironmentVariable("SANDSCOPE_SCREENSHOT"));
        QCOMPARE(dialog.profile().serverUrl, QUrl(QStringLiteral("http://router.example:8000")));

        // No fleet again: the URL typed for the server comes back, editable.
        dialog.fleetEdit()->clear();
        QCOMPARE(dialog.urlEdit()->text(), QStringLiteral("http://127.0.0.1:8000"));
        QVERIFY(!dialog.urlEdit()->isReadOnly());
        QVERIFY(!dialog.fleetInfoLabel()->isVisible());

        dialog.fleetEdit()->setText(good);
        QSignalSpy accepted(&dialog, &QDialog::accepted);
        dialog.buttonBox()->button(QDialogButtonBox::Ok)->click();
        QTRY_COMPARE(accepted.count(), 1);
    }
    QCOMPARE(m_profiles->profile(QStringLiteral("fleet")).fleetFile, good);
    ConnectionDialog again(m_profiles.get(), m_keys.get());
    again.selectProfile(QStringLiteral("fleet"));
    QCOMPARE(again.fleetEdit()->text(), good);
    QVERIFY(again.urlEdit()->isReadOnly());
    QCOMPARE(again.urlEdit()->text(), QStringLiteral("http://router.example:8000"));
}

// Where the stored key could not be read, the reason (a keyring's, a key file's path) takes
// several lines: the dialog grows to show them all, not the first two of them.
void TestConnectionDialog::aLongKeyStorageMessageIsShownWhole()
{
    Profile lab;
    lab.name = QStringLiteral("lab");
    lab.serverUrl = QUrl(QStringLiteral("http://127.0.0.1:8123"));
    lab.defaultUserId = QStringLiteral("alice");
    m_profiles->save(lab);
    // The key's file is a folder: reading it fails, naming its whole path.
    const QString keyFile = m_keys->fallbackFile(lab.name);
    QVERIFY(QDir().mkpath(keyFile));
    ConnectionDialog dialog(m_profiles.get(), m_keys.get());
    dialog.show();
    QLabel *label = dialog.keyStorageLabel();
    QTRY_VERIFY(label->text().contains(QLatin1String("not a regular file")));
    QVERIFY2(label->text().contains(keyFile), qPrintable(label->text()));
    QCoreApplication::processEvents();
    QVERIFY2(label->heightForWidth(label->width()) >= 2 * label->fontMetrics().height(),
        "the message takes one line: it shows nothing about wrapping");
    QVERIFY2(label->height() >= label->heightForWidth(label->width()),
        qPrintable(QStringLiteral("%1 px shown of %2")
                       .arg(label->height())
                       .arg(label->heightForWidth(label->width()))));
    if (qEnvironmentVariableIsSet("SANDSCOPE_SCREENSHOT"))
        dialog.grab().save(qEnvironmentVariable("SANDSCOPE_SCREENSHOT"));
}

QTEST_MAIN(TestConnectionDialog)
#include "tst_connectiondialog.moc"
