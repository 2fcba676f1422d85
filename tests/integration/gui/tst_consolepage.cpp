// The console page against a REAL open-terminal server (single-user mode): live, stripped
// output; exit codes and signals; Stop/Kill; the API key masked in the view even when split
// across chunks; Run disabled while a command runs.

#include "consolepage.h"
#include "realserver.h"
#include "security/auditlog.h"
#include "security/secretredactor.h"
#include "server/openterminalclient.h"
#include "testing.h"

#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTemporaryDir>
#include <QUuid>
#include <QtTest>

#include <memory>

using namespace sandscope;
using sandscope::test::RealServer;

class TestConsolePage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void showsStrippedOutputLiveAndExitCode();
    void stopAndKillEndCommandWithSignal_data();
    void stopAndKillEndCommandWithSignal();
    void masksApiKeyPrintedByCommand();
    void enterRunsAndRunIsDisabledWhileRunning();
    void cannotRunWithoutConnection();

private:
    std::unique_ptr<ConsolePage> makePage();
    static void runCommand(ConsolePage *page, const QString &command);
    // What the command printed: the view minus the "$ command" line the page puts first.
    static QString commandOutput(const ConsolePage *page);

    std::unique_ptr<RealServer> m_server;
    std::unique_ptr<OpenTerminalClient> m_client;
    QTemporaryDir m_auditDir;
};

void TestConsolePage::initTestCase()
{
    const QString version = RealServer::pinnedVersion("OPEN_TERMINAL_VERSION");
    SANDSCOPE_REQUIRE(QFile::exists(RealServer::executable(version)),
        QStringLiteral("open-terminal %1 is not installed").arg(version));
    m_server = std::make_unique<RealServer>(version, RealServer::Mode::SingleUser);
    QString error;
    QVERIFY2(m_server->start(&error), qPrintable(error));
    m_client = std::make_unique<OpenTerminalClient>(m_server->connection());
    QVERIFY(m_auditDir.isValid());
}

void TestConsolePage::cleanupTestCase()
{
    m_client.reset();
    m_server.reset();
}

std::unique_ptr<ConsolePage> TestConsolePage::makePage()
{
    auto page = std::make_unique<ConsolePage>();
    page->setClient(m_client.get());
    page->setIdentity(Identity {
        QStringLiteral("console-test"), QUuid::createUuid().toString(QUuid::WithoutBraces)});
    page->setApiKey(m_server->apiKey());
    page->setStopGracePeriod(2000);
    page->resize(800, 400);
    page->show();
    return page;
}

void TestConsolePage::runCommand(ConsolePage *page, const QString &command)
{
    page->commandEdit()->setText(command);
    QVERIFY(page->runButton()->isEnabled());
    QTest::mouseClick(page->runButton(), Qt::LeftButton);
    QVERIFY(page->isRunning());
}

QString TestConsolePage::commandOutput(const ConsolePage *page)
{
    const QString text = page->outputText();
    const int firstLineEnd = text.indexOf(QLatin1Char('\n'));
    return firstLineEnd < 0 ? QString() : text.mid(firstLineEnd + 1);
}

void TestConsolePage::showsStrippedOutputLiveAndExitCode()
{
    auto page = makePage();
    // Two lines at once, then a pause long enough to observe them before the process ends.
    runCommand(page.get(),
        QStringLiteral("printf '\\033[1;32mgreen\\033[0m first\\n'; echo second; "
                       "sleep 3; echo third; exit 3"));

    QTRY_VERIFY_WITH_TIMEOUT(commandOutput(page.get()).contains(QLatin1String("second")), 15000);
    QVERIFY2(page->isRunning(), "the first lines must be visible while the command still runs");
    QVERIFY(!commandOutput(page.get()).contains(QLatin1String("third")));
    QVERIFY(!page->runButton()->isEnabled());
    QVERIFY(page->stateText().startsWith(QLatin1String("Running"))
        || page->stateText().startsWith(QLatin1String("Starting")));

    QTRY_VERIFY_WITH_TIMEOUT(!page->isRunning(), 20000);
    const QString text = commandOutput(page.get());
    QVERIFY2(text.startsWith(QLatin1String("green first\nsecond\nthird")), qPrintable(text));
    QVERIFY2(!text.contains(QChar(0x1b)), "escape characters must be stripped");
    QVERIFY2(!text.contains(QLatin1String("[1;32m")), qPrintable(text));
    QVERIFY2(
        page->stateText().contains(QLatin1String("Exit code 3")), qPrintable(page->stateText()));
    QVERIFY(page->runButton()->isEnabled());
    QVERIFY(!page->stopButton()->isEnabled());
}

void TestConsolePage::stopAndKillEndCommandWithSignal_data()
{
    QTest::addColumn<bool>("useKill");
    QTest::addColumn<QString>("expectedSignal");
    // Stop sends SIGTERM first; `sleep` dies from it well within the grace period.
    QTest::newRow("stop") << false << QStringLiteral("signal 15 (SIGTERM)");
    QTest::newRow("kill") << true << QStringLiteral("signal 9 (SIGKILL)");
}

void TestConsolePage::stopAndKillEndCommandWithSignal()
{
    QFETCH(bool, useKill);
    QFETCH(QString, expectedSignal);

    auto page = makePage();
    runCommand(page.get(), QStringLiteral("echo sleeping; sleep 60"));
    QTRY_VERIFY_WITH_TIMEOUT(commandOutput(page.get()).contains(QLatin1String("sleeping")), 15000);
    QTRY_VERIFY_WITH_TIMEOUT(page->stopButton()->isEnabled(), 5000);

    QTest::mouseClick(useKill ? page->killButton() : page->stopButton(), Qt::LeftButton);
    // Ended by the signal (checked below), not by `sleep 60` running out.
    QTRY_VERIFY_WITH_TIMEOUT(!page->isRunning(), 50000);
    QVERIFY2(page->stateText().contains(expectedSignal), qPrintable(page->stateText()));
    QVERIFY(page->runButton()->isEnabled());
}

void TestConsolePage::masksApiKeyPrintedByCommand()
{
    const QString key = m_server->apiKey();
    QVERIFY(key.size() >= 12);
    // A file in the user's home holding the key, as a careless config file would; the test
    // machine is the server machine, so it is written directly.
    QFile leaked(QDir(m_server->homeDirectory()).filePath(QStringLiteral("leaked.env")));
    QVERIFY(leaked.open(QIODevice::WriteOnly));
    leaked.write(key.toUtf8());
    leaked.close();

    const QString auditPath = m_auditDir.filePath(QStringLiteral("audit.jsonl"));
    AuditLog auditLog(auditPath);
    auto page = makePage();
    page->setAuditLog(&auditLog, QStringLiteral("test-profile"));

    // The key arrives split over two output chunks a second apart; the redactor must hold
    // back the first half until it knows what follows.
    runCommand(page.get(),
        QStringLiteral("printf 'key='; head -c 6 leaked.env; sleep 1; "
                       "tail -c +7 leaked.env; echo ."));
    QTRY_VERIFY_WITH_TIMEOUT(!page->isRunning(), 20000);

    const QString text = commandOutput(page.get());
    QVERIFY2(!text.contains(key), "the API key must never be shown");
    QVERIFY2(!text.contains(key.left(6)), "not even the part sent first");
    QVERIFY2(!text.contains(key.mid(6)), "nor the rest");
    const QString masked
        = QLatin1String("key=") + QString::fromUtf16(SecretRedactor::mask) + QLatin1Char('.');
    QVERIFY2(text.contains(masked), qPrintable(text));
    QVERIFY(page->stateText().contains(QLatin1String("Exit code 0")));

    QFile audit(auditPath);
    QVERIFY(audit.open(QIODevice::ReadOnly));
    const QByteArray entries = audit.readAll();
    QVERIFY2(entries.contains("\"exec\""), entries.constData());
    QVERIFY2(entries.contains("console-test"), entries.constData());
    QVERIFY(entries.contains("leaked.env"));
    QVERIFY(!entries.contains(key.toUtf8()));
}

void TestConsolePage::enterRunsAndRunIsDisabledWhileRunning()
{
    auto page = makePage();
    QSignalSpy runningSpy(page.get(), &ConsolePage::runningChanged);
    page->commandEdit()->setFocus();
    QTest::keyClicks(page->commandEdit(), QStringLiteral("sleep 2; echo done"));
    QTest::keyClick(page->commandEdit(), Qt::Key_Return);
    QVERIFY(page->isRunning());
    QVERIFY(!page->runButton()->isEnabled());

    // A second Enter while running must not start another command.
    QTest::keyClick(page->commandEdit(), Qt::Key_Return);
    QCOMPARE(runningSpy.count(), 1);

    QTRY_VERIFY_WITH_TIMEOUT(!page->isRunning(), 20000);
    QVERIFY(commandOutput(page.get()).contains(QLatin1String("done")));
    QVERIFY(page->runButton()->isEnabled());
    QCOMPARE(runningSpy.count(), 2);
    QCOMPARE(runningSpy.at(0).at(0).toBool(), true);
    QCOMPARE(runningSpy.at(1).at(0).toBool(), false);
}

void TestConsolePage::cannotRunWithoutConnection()
{
    ConsolePage page;
    page.commandEdit()->setText(QStringLiteral("echo hello"));
    QVERIFY(!page.runButton()->isEnabled());
    page.run();
    QVERIFY(!page.isRunning());
    QCOMPARE(page.stateText(), QStringLiteral("Not connected"));

    page.setClient(m_client.get());
    QVERIFY(page.runButton()->isEnabled());
    page.commandEdit()->setText(QStringLiteral("   "));
    QVERIFY2(!page.runButton()->isEnabled(), "a blank command cannot be run");
}

QTEST_MAIN(TestConsolePage)
#include "tst_consolepage.moc"
