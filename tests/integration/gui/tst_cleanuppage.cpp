// The cleanup page against a REAL multi-user open-terminal 0.11.34 (which runs requests without
// X-User-Id as its own account, root here) and the repository's sandbox/cleanup.sh. Test users
// get aged chats and sessions; the page's user filter is set to this test's account prefix, and
// since only shown items are executed, nothing outside the test accounts can be deleted (each
// executed plan is checked before the confirmation is answered).

#include "cleanup/cleanupmodel.h"
#include "cleanup/cleanuprunner.h"
#include "cleanupfixture.h"
#include "cleanuppage.h"
#include "mainwindow.h"
#include "realserver.h"
#include "server/openterminalclient.h"
#include "testing.h"
#include "util/format.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTabWidget>
#include <QTreeView>
#include <QtTest>

#include <memory>

using namespace sandscope;
using sandscope::test::RealServer;

namespace {

const QString sessionId = QStringLiteral("5f0c8d7e-2a41-4c3b-9e6d-7b1a2c3d4e5f");
const QString freshSessionId = QStringLiteral("a1b2c3d4-e5f6-4711-8899-aabbccddeeff");

} // namespace

class TestCleanupPage : public QObject, private test::CleanupFixture {
    Q_OBJECT

private:
    // A page connected to the server, showing only this test's accounts.
    std::unique_ptr<CleanupPage> makePage()
    {
        auto page = std::make_unique<CleanupPage>();
        page->setClient(m_client.get());
        page->setAuditContext(QStringLiteral("test"), m_server->url().toString());
        page->setHomeRoot(QStringLiteral("/home"));
        page->findChild<QLineEdit *>(QStringLiteral("scriptPath"))->setText(scriptPath());
        page->findChild<QLineEdit *>(QStringLiteral("userFilter"))->setText(m_server->prefix());
        return page;
    }
    bool dryRun(CleanupPage *page, int chatTtl)
    {
        page->findChild<QSpinBox *>(QStringLiteral("chatTtl"))->setValue(chatTtl);
        page->findChild<QSpinBox *>(QStringLiteral("sessionTtl"))->setValue(90);
        QSignalSpy finished(page, &CleanupPage::runFinished);
        page->findChild<QPushButton *>(QStringLiteral("dryRunButton"))->click();
        if (!page->isRunning()
            || !page->findChild<QPushButton *>(QStringLiteral("cancelButton"))->isEnabled())
            return false;
        return finished.wait(60000);
    }
    QStringList paths(const CleanupPlan &plan) const
    {
        QStringList result;
        for (const CleanupItem &item : plan.items())
            result << item.path;
        result.sort();
        return result;
    }
    // The shown item row with this path, or an invalid index.
    QModelIndex shownRow(CleanupPage *page, const QString &path) const
    {
        const QAbstractItemModel *model
            = page->findChild<QTreeView *>(QStringLiteral("planTree"))->model();
        for (int user = 0; user < model->rowCount(); ++user) {
            const QModelIndex parent = model->index(user, 0);
            for (int row = 0; row < model->rowCount(parent); ++row) {
                if (model->index(row, 0, parent).data().toString() == path)
                    return model->index(row, 0, parent);
            }
        }
        return {};
    }

    QString m_oldChat;
    QString m_newChat;
    QString m_oldSession;
    QString m_freshSession;

private Q_SLOTS:
    void initTestCase()
    {
        QString why;
        SANDSCOPE_REQUIRE(RealServer::canRunMultiUser(&why), why);
        QVERIFY(QFileInfo::exists(scriptPath()));
        QVERIFY(m_local.isValid());
        QString error;
        QVERIFY2(startServer(&error), qPrintable(error));
        QVERIFY(!m_server->prefix().isEmpty());
        makeChat(m_alice, QStringLiteral("chat-old"), 100);
        makeChat(m_alice, QStringLiteral("chat-new"), 2);
        makeSessions(m_bob, sessionId, 200, freshSessionId);
        const QString projects = QStringLiteral("/.claude/projects/-home-x-chat-demo/");
        m_oldChat = m_aliceHome + QStringLiteral("/chat-old");
        m_newChat = m_aliceHome + QStringLiteral("/chat-new");
        m_oldSession = m_bobHome + projects + sessionId + QStringLiteral(".jsonl");
        m_freshSession = m_bobHome + projects + freshSessionId + QStringLiteral(".jsonl");
        QVERIFY(exists(m_oldChat));
        QVERIFY(exists(m_oldSession));
    }

    // One server: no Member column (a fleet's rows name their member: tst_fleetcleanup), and no
    // member to choose for Execute; a fleet shows the column (the choice once a plan is made).
    void oneServerHidesTheMemberColumnAndChoice()
    {
        const auto page = makePage();
        auto *tree = page->findChild<QTreeView *>(QStringLiteral("planTree"));
        auto *choice = page->findChild<QComboBox *>(QStringLiteral("executeMember"));
        QVERIFY(!page->isFleet());
        QVERIFY(tree->isColumnHidden(CleanupModel::MemberColumn));
        QVERIFY(choice->isHidden());
        page->setFanOutFactory([](QObject *) { return nullptr; }, true);
        QVERIFY(page->isFleet());
        QVERIFY(!tree->isColumnHidden(CleanupModel::MemberColumn));
        QVERIFY(choice->isHidden()); // until a member's plan has deletions
        QVERIFY(page->findChild<QPushButton *>(QStringLiteral("dryRunButton"))->isEnabled());
        page->setFanOutFactory({}, false);
        QVERIFY(!page->isFleet());
        QVERIFY(tree->isColumnHidden(CleanupModel::MemberColumn));
        QVERIFY(choice->isHidden());
    }

    void mainWindowHasACleanupTabThatRunsOnlyWhenConnected()
    {
        MainWindow window(m_local.filePath(QStringLiteral("settings.ini")));
        auto *tabs = window.findChild<QTabWidget *>(QStringLiteral("pages"));
        QVERIFY(tabs);
        const int tab = tabs->indexOf(window.cleanupPage());
        QVERIFY(tab >= 0);
        QCOMPARE(tabs->tabText(tab), QStringLiteral("Cleanup"));
        QVERIFY(!window.cleanupPage()
                     ->findChild<QPushButton *>(QStringLiteral("dryRunButton"))
                     ->isEnabled());
    }

    void cleanupTestCase() { stopServer(); }

    void dryRunShowsTheAgedItemsOfTheTestUsersWithTotals()
    {
        auto page = makePage();
        auto *proxy = static_cast<QSortFilterProxyModel *>(
            page->findChild<QTreeView *>(QStringLiteral("planTree"))->model());
        QAbstractItemModelTester sourceTester(
            proxy->sourceModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(
            proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(dryRun(page.get(), 30));
        QVERIFY(!page->isRunning());
        QVERIFY(!page->findChild<QProgressBar *>(QStringLiteral("progress"))->isVisible());
        QCOMPARE(page->plan().summary().mode, QStringLiteral("dry-run"));

        const QAbstractItemModel *view
            = page->findChild<QTreeView *>(QStringLiteral("planTree"))->model();
        QCOMPARE(view->rowCount(), 2); // alice and bob
        for (const QString &path : {m_oldChat, m_newChat, m_oldSession, m_freshSession})
            QVERIFY2(shownRow(page.get(), path).isValid(), qPrintable(path));
        QCOMPARE(shownRow(page.get(), m_oldChat)
                     .siblingAtColumn(CleanupModel::AgeColumn)
                     .data(CleanupModel::SortRole)
                     .toLongLong(),
            qint64(100));

        const CleanupPlan reviewed = page->reviewedPlan();
        QCOMPARE(paths(reviewed), QStringList({m_oldChat, m_oldSession}));
        const QString totals = page->findChild<QLabel *>(QStringLiteral("totalsLabel"))->text();
        QVERIFY2(totals.contains(
                     QStringLiteral("to delete: 2 items (%1)")
                         .arg(format::byteSize(reviewed.totalBytes(CleanupItem::Action::Delete)))),
            qPrintable(totals));
        QVERIFY2(totals.contains(QLatin1String("Shown: 4 items of 2 users")), qPrintable(totals));
        QVERIFY(page->findChild<QPushButton *>(QStringLiteral("executeButton"))->isEnabled());
    }

    // A sandbox without the script (a local open-terminal): the dry run says so and offers the
    // shipped copy; one click runs it, which then finds the same items and says which ran.
    void aMissingScriptOffersTheShippedCopyWhichRunsOnOneClick()
    {
        auto page = makePage();
        page->setAdminAccess(m_admin);
        page->resize(1100, 600);
        page->show();
        const QString missing = QStringLiteral("/opt/sandscope-missing-%1/cleanup.sh")
                                    .arg(test::randomToken(6, true));
        page->findChild<QLineEdit *>(QStringLiteral("scriptPath"))->setText(missing);
        QVERIFY(dryRun(page.get(), 30));
        auto *status = page->findChild<QLabel *>(QStringLiteral("statusLabel"));
        QVERIFY2(status->text().contains(QLatin1String("no cleanup script at ") + missing),
            qPrintable(status->text()));
        auto *offer = page->findChild<QPushButton *>(QStringLiteral("useShippedScriptButton"));
        QVERIFY(offer->isVisible());

        QSignalSpy finished(page.get(), &CleanupPage::runFinished);
        offer->click();
        QVERIFY(finished.wait(60000));
        QVERIFY2(status->text().contains(QLatin1String("Script: the copy of cleanup.sh Sandscope "))
                && status->text().contains(CleanupRunner::shippedScriptSha256().left(12)),
            qPrintable(status->text()));
        QVERIFY(page->findChild<QCheckBox *>(QStringLiteral("shippedScript"))->isChecked());
        QVERIFY(!page->findChild<QLineEdit *>(QStringLiteral("scriptPath"))->isEnabled());
        QVERIFY(!offer->isVisible());
        QCOMPARE(paths(page->reviewedPlan()), QStringList({m_oldChat, m_oldSession}));
    }

    void kindFilterShowsOnlySessions()
    {
        auto page = makePage();
        QVERIFY(dryRun(page.get(), 30));
        auto *kinds = page->findChild<QComboBox *>(QStringLiteral("kindFilter"));
        kinds->setCurrentIndex(kinds->findData(int(CleanupItem::Kind::Session)));
        QVERIFY(!shownRow(page.get(), m_oldChat).isValid());
        QVERIFY(shownRow(page.get(), m_oldSession).isValid());
        QVERIFY(shownRow(page.get(), m_freshSession).isValid());
        QCOMPARE(paths(page->reviewedPlan()), QStringList({m_oldSession}));
    }

    void whatIfWithALargerTtlShowsTheRemovedAndThenAddedItems()
    {
        auto page = makePage();
        QVERIFY(dryRun(page.get(), 30));
        auto *diff = page->findChild<QLabel *>(QStringLiteral("diffLabel"));
        QVERIFY(diff->isHidden()); // nothing to compare the first plan with
        const QString before = m_local.filePath(QStringLiteral("ttl30.jsonl"));
        QString error;
        QVERIFY2(page->savePlan(before, &error), qPrintable(error));

        QVERIFY(dryRun(page.get(), 150));
        QVERIFY(!diff->isHidden());
        QVERIFY2(
            diff->text().contains(QLatin1String("no longer deleted")), qPrintable(diff->text()));
        QVERIFY2(diff->toolTip().contains(m_oldChat), qPrintable(diff->toolTip()));
        QVERIFY(!diff->toolTip().contains(m_oldSession));
        QCOMPARE(paths(page->reviewedPlan()), QStringList({m_oldSession}));
        const QString after = m_local.filePath(QStringLiteral("ttl150.jsonl"));
        QVERIFY2(page->savePlan(after, &error), qPrintable(error));

        // Back to 30 days: the old chat is marked as new in the plan.
        QVERIFY(dryRun(page.get(), 30));
        QVERIFY(shownRow(page.get(), m_oldChat).data(CleanupPage::AddedRole).toBool());
        QVERIFY(!shownRow(page.get(), m_oldSession).data(CleanupPage::AddedRole).toBool());

        // Comparing the saved plans in a fresh page shows the same.
        auto other = makePage();
        QVERIFY2(other->comparePlans(after, before, &error), qPrintable(error));
        QVERIFY(shownRow(other.get(), m_oldChat).data(CleanupPage::AddedRole).toBool());
        QVERIFY(!shownRow(other.get(), m_newChat).data(CleanupPage::AddedRole).toBool());
    }

    void savedPlanLoadsBackIdenticallyAndExportsCsv()
    {
        auto page = makePage();
        QVERIFY(dryRun(page.get(), 30));
        const QString fileName = m_local.filePath(QStringLiteral("roundtrip.jsonl"));
        QString error;
        QVERIFY2(page->savePlan(fileName, &error), qPrintable(error));

        auto loaded = makePage();
        QVERIFY2(loaded->loadPlan(fileName, &error), qPrintable(error));
        QCOMPARE(loaded->plan().toBytes(), page->plan().toBytes());
        QCOMPARE(paths(loaded->reviewedPlan()), paths(page->reviewedPlan()));
        QCOMPARE(loaded->findChild<QLabel *>(QStringLiteral("totalsLabel"))->text(),
            page->findChild<QLabel *>(QStringLiteral("totalsLabel"))->text());

        const QString csvName = m_local.filePath(QStringLiteral("plan.csv"));
        QVERIFY2(loaded->exportCsv(csvName, &error), qPrintable(error));
        QFile csv(csvName);
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(csv.readAll());
        QVERIFY(text.contains(m_oldChat));
        QVERIFY(text.contains(m_oldSession));
    }

    void wrongTypedConfirmationDeletesNothing()
    {
        auto page = makePage();
        QVERIFY(dryRun(page.get(), 30));
        QString asked;
        QString expected;
        page->setConfirmationPrompter(
            [&](QWidget *, const QString &question, const QString &wanted) {
                asked = question;
                expected = wanted;
                return QStringLiteral("delete 3 items");
            });
        QSignalSpy finished(page.get(), &CleanupPage::runFinished);
        page->findChild<QPushButton *>(QStringLiteral("executeButton"))->click();
        QCOMPARE(expected, QStringLiteral("delete 2 items"));
        QVERIFY(asked.contains(
            format::byteSize(page->reviewedPlan().totalBytes(CleanupItem::Action::Delete))));
        QVERIFY(!page->isRunning());
        QVERIFY(!finished.wait(500));
        const QString status = page->findChild<QLabel *>(QStringLiteral("statusLabel"))->text();
        QVERIFY2(status.contains(QLatin1String("nothing was deleted")), qPrintable(status));
        QVERIFY(exists(m_oldChat));
        QVERIFY(exists(m_oldSession));
    }

    void confirmedExecutionDeletesExactlyThePlannedTestItems()
    {
        auto page = makePage();
        QVERIFY(dryRun(page.get(), 30));
        const CleanupPlan reviewed = page->reviewedPlan();
        // Safety: only this test's accounts are in the plan that will be executed.
        QCOMPARE(paths(reviewed), QStringList({m_oldChat, m_oldSession}));
        for (const CleanupItem &item : reviewed.items())
            QVERIFY(item.user.startsWith(m_server->prefix()));
        page->setConfirmationPrompter(
            [](QWidget *, const QString &, const QString &wanted) { return wanted; });
        QSignalSpy finished(page.get(), &CleanupPage::runFinished);
        page->executeReviewedPlan();
        QVERIFY(page->isRunning());
        QVERIFY(finished.wait(60000));
        const QString status = page->findChild<QLabel *>(QStringLiteral("statusLabel"))->text();
        QVERIFY2(status.contains(QLatin1String("2 deleted, 0 skipped")), qPrintable(status));
        for (const QString &path : {m_oldChat, m_oldSession}) {
            const QModelIndex row = shownRow(page.get(), path);
            QVERIFY2(row.isValid(), qPrintable(path));
            QCOMPARE(row.siblingAtColumn(CleanupModel::OutcomeColumn).data().toString(),
                QStringLiteral("deleted"));
        }
        QVERIFY(!shownRow(page.get(), m_newChat).isValid()); // only planned items are listed
        QVERIFY(!page->findChild<QPushButton *>(QStringLiteral("executeButton"))->isEnabled());

        QVERIFY(!exists(m_oldChat));
        QVERIFY(!exists(m_oldSession));
        QVERIFY(!exists(m_oldSession.chopped(6)));
        QVERIFY(exists(m_newChat));
        QVERIFY(exists(m_freshSession));
    }
};

QTEST_MAIN(TestCleanupPage)
#include "tst_cleanuppage.moc"
