// The main window against a REAL single-user open-terminal server: connecting probes in the
// background and fills the identity bar and status bar; switching users is shown and
// audited, and so are opening and exporting another user's session, also while acting as that
// user; a failed connection is reported in the non-modal message bar.

#include "consolepage.h"
#include "identitybar.h"
#include "mainwindow.h"
#include "messagebar.h"
#include "realserver.h"
#include "runs/runpage.h"
#include "runs/runtabs.h"
#include "sessions/sessionsource.h"
#include "testing.h"

#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <memory>

using namespace sandscope;
using sandscope::test::RealServer;

class TestMainWindow : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void connectShowsServerAndIdentity();
    void switchingUserIsShownAndAudited();
    void anotherUsersSessionAndItsExportAreAuditedAlsoWhileActingAsThem();
    void invalidUserIdIsRefused();
    void unreachableServerIsReportedWithoutBlocking();
    void silentServerLeavesTheWindowResponsiveWhileConnecting();

private:
    QByteArray auditLogContents() const;

    QTemporaryDir m_dir;
    std::unique_ptr<RealServer> m_server;
    std::unique_ptr<MainWindow> m_window;
};

void TestMainWindow::initTestCase()
{
    QVERIFY(m_dir.isValid());
    qputenv("SANDSCOPE_AUDIT_LOG", m_dir.filePath(QStringLiteral("audit.jsonl")).toUtf8());
    const QString version = RealServer::pinnedVersion("OPEN_TERMINAL_VERSION");
    SANDSCOPE_REQUIRE(QFile::exists(RealServer::executable(version)),
        QStringLiteral("open-terminal %1 is not installed").arg(version));
    m_server = std::make_unique<RealServer>(version, RealServer::Mode::SingleUser);
    QString error;
    QVERIFY2(m_server->start(&error), qPrintable(error));
    m_window = std::make_unique<MainWindow>(m_dir.filePath(QStringLiteral("profiles.ini")));
    m_window->show();
}

void TestMainWindow::cleanupTestCase()
{
    m_window.reset();
    m_server.reset();
}

QByteArray TestMainWindow::auditLogContents() const
{
    QFile file(m_dir.filePath(QStringLiteral("audit.jsonl")));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void TestMainWindow::connectShowsServerAndIdentity()
{
    QSignalSpy probed(m_window.get(), &MainWindow::serverChecked);
    m_window->connectToServer(
        m_server->connection(), QStringLiteral("alice"), QStringLiteral("lab"));
    QVERIFY(m_window->isCheckingServer());
    QVERIFY(!m_window->isConnected());
    QVERIFY(m_window->identityBar()->text().contains(QLatin1String("Not connected")));

    QTRY_COMPARE_WITH_TIMEOUT(probed.count(), 1, 60000);
    QCOMPARE(probed.at(0).at(0).toBool(), true);
    QVERIFY(m_window->isConnected());

    const ServerReport &report = m_window->serverReport();
    QVERIFY(!report.observedAccount.isEmpty());
    QCOMPARE(m_window->identityBar()->text(),
        QStringLiteral("Acting as alice (%1)").arg(report.observedAccount));
    // Single-user mode ignores X-User-Id, and the bar says so.
    QVERIFY(!report.multiUser);
    QVERIFY(m_window->identityBar()->note().contains(QLatin1String("single-user")));

    const QString status = m_window->serverStatusText();
    QVERIFY2(
        status.contains(m_server->url().toString(QUrl::StripTrailingSlash)), qPrintable(status));
    QVERIFY2(
        status.contains(QLatin1String("open-terminal ") + m_server->version()), qPrintable(status));
    QVERIFY2(status.contains(QLatin1String("single-user")), qPrintable(status));
    QVERIFY(!status.contains(m_server->apiKey()));

    m_window->consolePage()->commandEdit()->setText(QStringLiteral("true"));
    QVERIFY2(m_window->consolePage()->runButton()->isEnabled(), "connected: the console runs");
    QVERIFY(m_window->windowTitle().contains(QLatin1String("alice")));
}

void TestMainWindow::switchingUserIsShownAndAudited()
{
    QVERIFY(m_window->isConnected());
    QSignalSpy probed(m_window.get(), &MainWindow::serverChecked);
    // Something said while acting as alice does not stay up once bob acts.
    m_window->messageBar()->showMessage(
        QStringLiteral("Created /home/alice/notes"), MessageBar::Level::Information);
    m_window->switchUser(QStringLiteral("bob"));
    QVERIFY(m_window->messageBar()->isHidden());
    QCOMPARE(m_window->identity().userId, QStringLiteral("bob"));
    QVERIFY2(m_window->identityBar()->text().startsWith(QLatin1String("Acting as bob (")),
        qPrintable(m_window->identityBar()->text()));
    QCOMPARE(m_window->consolePage()->identity().userId, QStringLiteral("bob"));
    QTRY_COMPARE_WITH_TIMEOUT(probed.count(), 1, 60000);
    QCOMPARE(m_window->identityBar()->text(),
        QStringLiteral("Acting as bob (%1)").arg(m_window->serverReport().observedAccount));

    m_window->switchUser(QString());
    QVERIFY(m_window->identityBar()->showsWarning());
    QTRY_COMPARE_WITH_TIMEOUT(probed.count(), 2, 60000);
    QVERIFY(m_window->identityBar()->text().contains(
        QLatin1String("SERVER ACCOUNT (") + m_window->serverReport().serverAccount));
    QVERIFY2(m_window->serverStatusText().contains(QLatin1String("single-user")),
        "the mode learnt while acting as a user stays shown for the server account");

    const QByteArray audit = auditLogContents();
    QVERIFY2(audit.count("\"switch-user\"") >= 3, audit.constData()); // alice, bob, server
    QVERIFY(audit.contains("\"bob\""));
    QVERIFY(!audit.contains(m_server->apiKey().toUtf8()));
}

void TestMainWindow::anotherUsersSessionAndItsExportAreAuditedAlsoWhileActingAsThem()
{
    QVERIFY(m_window->isConnected());
    // Opens a session tab (the audit is written as it opens), exports it and closes it.
    const auto openAndExport = [this](const QString &path, const QString &exportName) {
        SessionSource source;
        source.identity = m_window->identity();
        source.transcriptPath = path;
        source.sessionId = QStringLiteral("5e55e55e-0000-4000-8000-000000000001");
        RunPage *page = m_window->runTabs()->openSession(source);
        QVERIFY(page);
        QSignalSpy finished(m_window->runTabs(), &RunTabs::exportFinished);
        m_window->runTabs()->startExport(
            page, m_dir.filePath(exportName), RunExporter::Format::Markdown, false);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        QVERIFY(finished.at(0).at(0).toBool());
        delete page;
    };
    // The profile's own user (alice, from connectShowsServerAndIdentity) acting as bob.
    m_window->switchUser(QStringLiteral("bob"));
    openAndExport(QStringLiteral("/home/bob/.claude/projects/-x/bobs.jsonl"),
        QStringLiteral("bobs-export.md"));
    QByteArray audit = auditLogContents();
    QVERIFY2(audit.contains("\"read-session\"") && audit.contains("bobs.jsonl"), audit.constData());
    QVERIFY2(
        audit.contains("\"export-session\"") && audit.contains("bobs-export.md (md, not redacted)"),
        audit.constData());

    // One's own session is not another user's.
    m_window->switchUser(QStringLiteral("alice"));
    openAndExport(QStringLiteral("/home/alice/.claude/projects/-x/alices.jsonl"),
        QStringLiteral("alices-export.md"));
    audit = auditLogContents();
    QVERIFY2(!audit.contains("alices"), audit.constData());
}

void TestMainWindow::invalidUserIdIsRefused()
{
    const Identity before = m_window->identity();
    const QByteArray auditBefore = auditLogContents();
    m_window->switchUser(QStringLiteral("root"));
    QCOMPARE(m_window->identity(), before);
    QCOMPARE(m_window->messageBar()->level(), MessageBar::Level::Error);
    QVERIFY(m_window->messageBar()->text().contains(QLatin1String("root")));
    QCOMPARE(auditLogContents(), auditBefore);
}

void TestMainWindow::unreachableServerIsReportedWithoutBlocking()
{
    // A port that was free a moment ago: nothing listens there.
    QTcpServer probe;
    QVERIFY(probe.listen(QHostAddress::LocalHost));
    const quint16 port = probe.serverPort();
    probe.close();

    ServerConnection connection;
    connection.baseUrl = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port));
    connection.timeoutMs = 5000;
    QSignalSpy probed(m_window.get(), &MainWindow::serverChecked);
    m_window->connectToServer(connection, QStringLiteral("alice"));
    QCOMPARE(probed.count(), 0); // reported later, from the event loop
    QTRY_COMPARE_WITH_TIMEOUT(probed.count(), 1, 30000);
    QCOMPARE(probed.at(0).at(0).toBool(), false);
    QVERIFY(!m_window->isConnected());
    QCOMPARE(m_window->messageBar()->level(), MessageBar::Level::Error);
    QVERIFY2(m_window->messageBar()->text().contains(QString::number(port)),
        qPrintable(m_window->messageBar()->text()));
    QCOMPARE(m_window->identityBar()->text(), QStringLiteral("Not connected"));
    m_window->consolePage()->commandEdit()->setText(QStringLiteral("true"));
    QVERIFY(!m_window->consolePage()->runButton()->isEnabled());
}

void TestMainWindow::silentServerLeavesTheWindowResponsiveWhileConnecting()
{
    // Accepts connections and never answers: the check stays outstanding until its timeout.
    QTcpServer silent;
    QVERIFY(silent.listen(QHostAddress::LocalHost));
    ServerConnection connection;
    connection.baseUrl = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(silent.serverPort()));
    connection.timeoutMs = 3000;
    QSignalSpy probed(m_window.get(), &MainWindow::serverChecked);
    m_window->connectToServer(connection, QStringLiteral("alice"));
    // Not blocking: the call returned while the request is outstanding, and the event loop
    // keeps turning (queued calls run, the window repaints) until the answer comes.
    QCOMPARE(probed.count(), 0);
    int probesWhenLoopTurned = -1;
    QTimer::singleShot(0, this, [&] { probesWhenLoopTurned = probed.count(); });
    QTRY_COMPARE_WITH_TIMEOUT(probesWhenLoopTurned, 0, 2000);
    QVERIFY(!m_window->grab().isNull());
    QTRY_COMPARE_WITH_TIMEOUT(probed.count(), 1, 30000);
    QCOMPARE(probed.at(0).at(0).toBool(), false);
    QVERIFY(!m_window->isConnected());
    QCOMPARE(m_window->messageBar()->level(), MessageBar::Level::Error);
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
