// The copy of sandbox/cleanup.sh that the core ships (CleanupRunner::shippedScript) is that
// file byte for byte, and a run says which script ran: run through a local admin command (no
// server is involved), a missing sandbox script fails with a message that offers the shipped
// copy, the shipped copy runs and is named with its checksum, and the sandbox's own script
// is named with its path and checksum.

#include "cleanup/cleanuprunner.h"
#include "server/adminaccess.h"
#include "server/openterminalclient.h"
#include "testing.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <unistd.h>

using namespace sandscope;

namespace {

QString repositoryScript()
{
    return QFileInfo(QStringLiteral(SANDSCOPE_VERSIONS_FILE)).absolutePath()
        + QStringLiteral("/cleanup.sh");
}

struct Outcome {
    bool finished = false;
    int exitCode = -1;
    QString failure;
};

} // namespace

class TestCleanupShippedScript : public QObject {
    Q_OBJECT

private:
    Outcome dryRun(CleanupRunner &runner)
    {
        Outcome outcome;
        connect(&runner, &CleanupRunner::finished, this, [&](int exitCode) {
            outcome.exitCode = exitCode;
            outcome.finished = true;
        });
        connect(&runner, &CleanupRunner::failed, this, [&](const QString &message) {
            outcome.failure = message;
            outcome.finished = true;
        });
        runner.startDryRun();
        if (!QTest::qWaitFor([&] { return outcome.finished; }, 60000))
            outcome.failure = QStringLiteral("timed out");
        runner.disconnect(this);
        return outcome;
    }

private Q_SLOTS:
    void shippedCopyIsTheSameBytesAsSandboxCleanupSh()
    {
        QFile file(repositoryScript());
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray bytes = file.readAll();
        QVERIFY(!bytes.isEmpty());
        QVERIFY(CleanupRunner::shippedScript() == bytes);
        QCOMPARE(CleanupRunner::shippedScriptSha256(),
            QString::fromLatin1(
                QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex()));
    }

    void aRunSaysWhichScriptRanOrThatItIsMissing_data()
    {
        QTest::addColumn<QString>("choice");
        QTest::newRow("sandbox script missing") << QStringLiteral("missing");
        QTest::newRow("the sandbox's own") << QStringLiteral("sandbox");
        QTest::newRow("the shipped copy") << QStringLiteral("shipped");
    }

    void aRunSaysWhichScriptRanOrThatItIsMissing()
    {
        QFETCH(QString, choice);
        // Root without a password, as on a sandbox host (the script reads every home as root).
        SANDSCOPE_REQUIRE(::geteuid() == 0, "the admin command runs the script as root");
        QTemporaryDir homes;
        QVERIFY(homes.isValid());
        OpenTerminalClient client(ServerConnection {
            QUrl(QStringLiteral("http://127.0.0.1:1")), QStringLiteral("unused"), 2000});
        CleanupRunner runner(&client);
        AdminAccess admin;
        QString why;
        QVERIFY2(AdminAccess::fromCommand(QStringLiteral("env"), &admin, &why), qPrintable(why));
        runner.setAdminAccess(admin);
        CleanupSettings settings;
        settings.homeRoot = homes.path();
        settings.scriptPath = choice == QLatin1String("missing")
            ? homes.filePath(QStringLiteral("no-such/cleanup.sh"))
            : repositoryScript();
        if (choice == QLatin1String("shipped"))
            settings.script = CleanupSettings::Script::Shipped;
        runner.setSettings(settings);

        const auto shippedCopies = [] {
            return QDir(QStringLiteral("/tmp"))
                .entryList({QStringLiteral("sandscope-cleanup-*.sh")}, QDir::Files);
        };
        const QStringList copiesBefore = shippedCopies();
        const Outcome outcome = dryRun(runner);
        QVERIFY(outcome.finished);
        if (choice == QLatin1String("missing")) {
            QVERIFY(runner.scriptMissing());
            QVERIFY(!runner.scriptRan().known);
            QVERIFY2(outcome.failure.contains(settings.scriptPath), qPrintable(outcome.failure));
            QVERIFY(outcome.failure.contains(QLatin1String("--shipped-script")));
            QVERIFY(outcome.failure.contains(CleanupRunner::shippedScriptSha256().left(12)));
            QVERIFY(!outcome.failure.contains(QLatin1String("exit 127")));
            return;
        }
        QVERIFY2(outcome.failure.isEmpty(), qPrintable(outcome.failure));
        QCOMPARE(outcome.exitCode, 0);
        QVERIFY(!runner.scriptMissing());
        QCOMPARE(runner.result().summary().mode, QStringLiteral("dry-run"));
        const CleanupScriptRan &ran = runner.scriptRan();
        QVERIFY(ran.known);
        QCOMPARE(ran.shipped, choice == QLatin1String("shipped"));
        // Both are the same bytes here, so the same checksum, whichever ran.
        QCOMPARE(ran.sha256, CleanupRunner::shippedScriptSha256());
        QCOMPARE(ran.path, ran.shipped ? QString() : settings.scriptPath);
        const QString description = ran.description();
        QVERIFY2(description.contains(ran.sha256.left(12)), qPrintable(description));
        QCOMPARE(description.contains(QLatin1String("ships")), true);
        QCOMPARE(description.contains(settings.scriptPath), !ran.shipped);
        // Nothing of the shipped copy is left behind.
        QCOMPARE(shippedCopies(), copiesBefore);
    }
};

QTEST_GUILESS_MAIN(TestCleanupShippedScript)
#include "tst_cleanupshippedscript.moc"
