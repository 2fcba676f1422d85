// The Terminal tab offscreen against a REAL multi-user open-terminal (the pinned version): the
// emulator shows the user's prompt, typed commands run as the user, resizing the widget
// reaches the shell, closing the sub-tab ends the remote terminal, and opening and closing are
// audited. Built without QTermWidget (the Qt 6 flavour on Debian 12), the tab says why and
// offers the Console instead.
#include "realserver.h"
#include "security/auditlog.h"
#include "server/openterminalclient.h"
#include "terminal/terminalpage.h"
#include "testing.h"

#ifdef SANDSCOPE_HAVE_QTERMWIDGET
#include "terminal/terminalsession.h"
#include "terminal/terminalview.h"
#endif

#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QtTest>

using namespace sandscope;
using sandscope::test::RealServer;

class TestTerminalPage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void withoutConnectionNothingOpens()
    {
        TerminalPage page;
        QVERIFY(!page.openTerminal());
        QCOMPARE(page.terminalCount(), 0);
    }

    void missingEmulatorOffersTheConsole()
    {
        TerminalPage page;
        page.show();
        if (TerminalPage::emulatorAvailable()) {
            // The Qt 5 flavour: terminals, no fallback.
            QVERIFY(page.newTerminalButton()->isVisible());
            QVERIFY(!page.consoleButton()->isVisible());
            QVERIFY(page.tabs());
            return;
        }
        QVERIFY(page.messageLabel()->text().contains(QLatin1String("QTermWidget")));
        QVERIFY(page.consoleButton()->isVisible());
        QVERIFY(!page.newTerminalButton()->isVisible());
        QSignalSpy console(&page, &TerminalPage::consoleRequested);
        page.consoleButton()->click();
        QCOMPARE(console.count(), 1);
    }

#ifdef SANDSCOPE_HAVE_QTERMWIDGET
    void initTestCase()
    {
        QString why;
        SANDSCOPE_REQUIRE(RealServer::canRunMultiUser(&why), why);
        const QString version = RealServer::pinnedVersion("OPEN_TERMINAL_VERSION");
        m_server = std::make_unique<RealServer>(version, RealServer::Mode::MultiUser);
        QString error;
        QVERIFY2(m_server->start(&error), qPrintable(error));
        m_client = std::make_unique<OpenTerminalClient>(m_server->connection());
        m_user = QStringLiteral("carol") + test::randomToken(4, true);
        const QStringList account
            = shellLines(m_client.get(), Identity {m_user, {}}, QStringLiteral("id -un"));
        QVERIFY(!account.isEmpty());
        m_account = account.constFirst().trimmed();
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_server.reset();
    }

    void showsThePromptRunsAsTheUserAndAuditsOpenAndClose()
    {
        SANDSCOPE_REQUIRE(m_server, "no multi-user server");
        const QString auditPath = m_dir.filePath(QStringLiteral("audit.jsonl"));
        AuditLog audit(auditPath);
        TerminalPage page;
        page.setAuditLog(&audit, QStringLiteral("test-profile"));
        page.setConnection(m_client.get(), Identity {m_user, {}}, m_account);
        page.resize(900, 600);
        page.show();
        QVERIFY(page.messageLabel()->text().contains(m_account));

        TerminalView *view = page.openTerminal();
        QVERIFY(view);
        QCOMPARE(page.terminalCount(), 1);
        QVERIFY(page.tabs()->tabText(0).contains(m_account));
        QVERIFY(page.tabs()->tabText(0).contains(m_user));
        const auto screenHas = [&](const QString &text) {
            return QTest::qWaitFor([&] { return view->screenText().contains(text); }, 60000);
        };
        // The prompt names the account (user@host:~$).
        QVERIFY2(screenHas(m_account + QLatin1Char('@')), qPrintable(view->screenText()));
        QVERIFY(view->screenText().contains(QLatin1String("$ ")));

        // The widget's size reaches the shell.
        QSignalSpy applied(view->session(), &TerminalSession::sizeApplied);
        QVERIFY(QTest::qWaitFor(
            [&] {
                return !applied.isEmpty() && applied.last().at(0).toInt() == view->screenColumns()
                    && applied.last().at(1).toInt() == view->screenLines();
            },
            60000));
        view->sendText(QStringLiteral("echo \"WHO=$(whoami) SIZE=$(stty size)\"\r"));
        QVERIFY2(screenHas(QStringLiteral("WHO=%1 SIZE=%2 %3")
                               .arg(m_account)
                               .arg(view->screenLines())
                               .arg(view->screenColumns())),
            qPrintable(view->screenText()));

        const QString terminalId = view->session()->terminalId();
        QVERIFY(!terminalId.isEmpty());
        page.closeTerminal(0);
        QCOMPARE(page.terminalCount(), 0);

        const QList<QJsonObject> entries = test::auditEntries(auditPath);
        QCOMPARE(entries.size(), 2);
        QCOMPARE(entries.at(0).value(QLatin1String("action")).toString(),
            QStringLiteral("terminal-open"));
        QCOMPARE(entries.at(1).value(QLatin1String("action")).toString(),
            QStringLiteral("terminal-close"));
        for (const QJsonObject &entry : entries) {
            QCOMPARE(entry.value(QLatin1String("user")).toString(), m_user);
            QCOMPARE(entry.value(QLatin1String("target")).toString(), terminalId);
            QCOMPARE(
                entry.value(QLatin1String("profile")).toString(), QStringLiteral("test-profile"));
        }
        QVERIFY(entries.at(1)
                    .value(QLatin1String("result"))
                    .toString()
                    .startsWith(QLatin1String("closed after")));
    }

    void anEndedShellOffersANewTerminal()
    {
        SANDSCOPE_REQUIRE(m_server, "no multi-user server");
        TerminalPage page;
        page.setLivenessInterval(300);
        page.setConnection(m_client.get(), Identity {m_user, {}}, m_account);
        page.show();
        TerminalView *view = page.openTerminal();
        QVERIFY(QTest::qWaitFor(
            [&] { return view->screenText().contains(QLatin1String("$ ")); }, 60000));
        view->sendText(QStringLiteral("exit\r"));
        QVERIFY(QTest::qWaitFor([&] { return view->reconnectOffered(); }, 60000));
        QVERIFY(view->statusText().contains(QLatin1String("ended")));
        view->reconnectButton()->click();
        QVERIFY(QTest::qWaitFor(
            [&] { return view->session()->state() == TerminalSession::State::Open; }, 60000));
        QVERIFY(!view->reconnectOffered());
    }

    // A full-screen program that switches to the alternate screen (less, vim, htop; TERM is an
    // xterm) leaves the primary screen as it was when it ends. Debian's top (procps-ng 4)
    // never switches, so its last frame stays, as in xterm; that is top's choice.
    void aFullScreenProgramLeavesThePrimaryScreenAsItWas()
    {
        SANDSCOPE_REQUIRE(m_server, "no multi-user server");
        TerminalPage page;
        page.setConnection(m_client.get(), Identity {m_user, {}}, m_account);
        page.resize(900, 600);
        page.show();
        TerminalView *view = page.openTerminal();
        const auto screenHas = [&](const QString &text) {
            return QTest::qWaitFor([&] { return view->screenText().contains(text); }, 60000);
        };
        QVERIFY(screenHas(QStringLiteral("$ ")));
        view->sendText(
            QStringLiteral("echo TERM=$TERM; seq 1000 1300 | sed 's/^/line-/' | less\r"));
        QVERIFY2(screenHas(QStringLiteral("line-1005")), qPrintable(view->screenText()));
        view->sendText(QStringLiteral("q"));
        QVERIFY2(
            QTest::qWaitFor(
                [&] { return !view->screenText().contains(QLatin1String("line-1005")); }, 30000),
            qPrintable(view->screenText()));
        // The shell goes on below what was there before less started.
        view->sendText(QStringLiteral("echo AFTER-$((6*7))\r"));
        QVERIFY2(screenHas(QStringLiteral("AFTER-42")), qPrintable(view->screenText()));
        const QString screen = view->screenText();
        QVERIFY2(screen.contains(QLatin1String("TERM=xterm")), qPrintable(screen)); // smcup: ?1049h
        QVERIFY2(!screen.contains(QLatin1String("line-1005")), qPrintable(screen));
    }

private:
    std::unique_ptr<RealServer> m_server;
    std::unique_ptr<OpenTerminalClient> m_client;
    QString m_user;
    QString m_account;
    QTemporaryDir m_dir;
#endif
};

QTEST_MAIN(TestTerminalPage)
#include "tst_terminalpage.moc"
