// The all-users views of the real window against a REAL multi-user open-terminal of the
// pinned (newest) version, which refuses requests without a user id: connected as a user and
// with no admin command, Usage › All users, Users and Sessions › All users each say in one
// sentence what to do, with the command for this setup (the server runs on this machine:
// sudo -n), show no other scope's figures, and offer the admin command field of File ›
// Connect…, focused. With the admin command set the same views ask the server again.

#include "adminoverviewpage.h"
#include "connection/serversession.h"
#include "connectiondialog.h"
#include "mainwindow.h"
#include "messagebar.h"
#include "realserver.h"
#include "runs/sessionspage.h"
#include "server/adminaccess.h"
#include "server/openterminalclient.h"
#include "testing.h"
#include "usage/usagemodel.h"
#include "usage/usagepage.h"

#include <QApplication>
#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace sandscope;
using sandscope::test::RealServer;

class TestAdminAdvice : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QString why;
        SANDSCOPE_REQUIRE(RealServer::canRunMultiUser(&why), why);
        const QString version = RealServer::pinnedVersion("OPEN_TERMINAL_VERSION");
        m_server = std::make_unique<RealServer>(version, RealServer::Mode::MultiUser);
        QString error;
        QVERIFY2(m_server->start(&error), qPrintable(error));
        QVERIFY(m_dir.isValid());
        qputenv("SANDSCOPE_AUDIT_LOG", m_dir.filePath(QStringLiteral("audit.jsonl")).toUtf8());
        m_window = std::make_unique<MainWindow>(m_dir.filePath(QStringLiteral("profiles.ini")));
        m_window->resize(1100, 700);
        m_window->show();
        QSignalSpy checked(m_window.get(), &MainWindow::serverChecked);
        m_window->connectToServer(
            m_server->connection(), QStringLiteral("dana") + test::randomToken(4, true));
        QTRY_COMPARE_WITH_TIMEOUT(checked.count(), 1, 60000);
        QVERIFY(m_window->isConnected());
        QVERIFY2(m_window->session()->serverAccountRefused(),
            "the newest multi-user server refuses requests without X-User-Id");
        QVERIFY(!m_window->session()->report().setup.isEmpty());

        // The user has a session, so its own usage has figures that All users must not show.
        QFile transcript(QStringLiteral(SANDSCOPE_TEST_DATA_DIR
            "/transcripts/bash/transcript/a73e8800-a413-4ece-81c2-75169187a5df.jsonl"));
        QVERIFY(transcript.open(QIODevice::ReadOnly));
        const QString path = m_window->session()->report().home
            + QStringLiteral(
                "/.claude/projects/-advice/a73e8800-a413-4ece-81c2-75169187a5df.jsonl");
        OpenTerminalClient *client = m_window->client();
        const Identity identity = m_window->identity();
        const auto written = await<WriteResult>([&](auto done) {
            return client->writeFile(
                identity, path, QString::fromUtf8(transcript.readAll()), client, done);
        });
        QVERIFY2(written.ok(), qPrintable(written.error.toString()));
    }

    void cleanupTestCase()
    {
        m_window.reset();
        m_server.reset();
    }

    void usageOfAllUsersSaysWhatToDoAndShowsNoOtherScope()
    {
        UsagePage *page = m_window->usagePage();
        m_window->pages()->setCurrentWidget(page);
        page->refresh(); // the acting user's own usage
        QTRY_VERIFY_WITH_TIMEOUT(!page->isCollecting(), 30000);
        QVERIFY2(page->model()->rowCount() > 0, qPrintable(page->statusText()));
        page->setAllUsers(true);
        QTRY_VERIFY(!page->isCollecting());
        expectAdvice(page->statusText(), QStringLiteral("Usage of all users"));
        QCOMPARE(page->model()->rowCount(), 0);
        QVERIFY(page->chartCategories().isEmpty());
        expectTheButtonOpensTheAdminCommand(page);
        page->setAllUsers(false);
    }

    void usersOverviewSaysWhatToDoInsteadOfSwitchingAccounts()
    {
        AdminOverviewPage *page = m_window->adminOverviewPage();
        m_window->pages()->setCurrentWidget(page);
        QTRY_VERIFY(page->messageBar()->isVisible());
        expectAdvice(page->messageBar()->text(), QStringLiteral("The users overview"));
        auto *switchButton = page->findChild<QPushButton *>(QStringLiteral("serverAccountButton"));
        QVERIFY(switchButton);
        QVERIFY2(!switchButton->isVisible(), "acting as the server account would be refused too");
        expectTheButtonOpensTheAdminCommand(page);
    }

    void sessionsOfAllUsersSayWhatToDo()
    {
        SessionsPage *page = m_window->sessionsPage();
        m_window->pages()->setCurrentWidget(page);
        page->setAllUsers(true);
        QTRY_VERIFY(!page->isLoading());
        expectAdvice(page->statusText(), QStringLiteral("Listing every user's sessions"));
        expectTheButtonOpensTheAdminCommand(page);
        page->setAllUsers(false);
    }

    // With the admin command set, the views ask again (sudo -n: this machine is the sandbox).
    void withTheAdminCommandTheViewsAsk()
    {
        AdminAccess sudo;
        QVERIFY(AdminAccess::fromCommand(QStringLiteral("sudo -n"), &sudo));
        m_window->setAdminAccess(sudo);
        UsagePage *page = m_window->usagePage();
        page->setAllUsers(true);
        QTRY_VERIFY_WITH_TIMEOUT(!page->isCollecting(), 60000);
        QVERIFY2(!page->statusText().contains(QLatin1String("set the admin command")),
            qPrintable(page->statusText()));
        auto *button = page->findChild<QPushButton *>(QStringLiteral("adminCommandButton"));
        QVERIFY(button && !button->isVisible());
        page->setAllUsers(false);
        m_window->setAdminAccess(AdminAccess::serverAccount());
    }

private:
    static void expectAdvice(const QString &text, const QString &view)
    {
        QVERIFY2(text.startsWith(view), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("set the admin command")), qPrintable(text));
        // The server runs on this machine, so sudo is the way in.
        QVERIFY2(text.contains(QLatin1String("e.g. sudo -n")), qPrintable(text));
        QVERIFY2(!text.contains(QLatin1String("HTTP 400")), qPrintable(text));
    }

    void expectTheButtonOpensTheAdminCommand(QWidget *page)
    {
        auto *button = page->findChild<QPushButton *>(QStringLiteral("adminCommandButton"));
        QVERIFY(button);
        QVERIFY(button->isVisible());
        button->click();
        ConnectionDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = m_window->findChild<ConnectionDialog *>()) != nullptr);
        QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget *>(dialog->adminEdit()));
        dialog->close();
        delete dialog;
    }

    std::unique_ptr<RealServer> m_server;
    std::unique_ptr<MainWindow> m_window;
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestAdminAdvice)
#include "tst_adminadvice.moc"
