// The Live page, offscreen, fed the follower's frames in agents mode (tests/support/
// liveframes.h): agents appear as rows of its view, newest activity first; a double-click
// asks to open the agent's session as the user whose account runs it (the id recovered from
// the account under either naming rule); an account no id explains gets a clear message and
// opens nothing; without a connection there is nothing to start; Watch writes the audit entry,
// then runs one real follower (through a local admin command), and stops it again.

#include "live/liveagentmodel.h"
#include "live/liveagentproxy.h"
#include "live/liveagentwatcher.h"
#include "live/livepage.h"
#include "liveframes.h"
#include "messagebar.h"
#include "server/accountnames.h"
#include "server/openterminalclient.h"
#include "testing.h"

#include <QPushButton>
#include <QTreeView>
#include <QtTest>

using namespace sandscope;
using namespace sandscope::test;

namespace {

// A press, then the double-click (a view reacts to one only on the item it was pressed on).
void doubleClick(QTreeView *view, const QModelIndex &index)
{
    const QPoint at = view->visualRect(index).center();
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, at);
    QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, at);
}

} // namespace

class TestLivePage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void doubleClickOpensTheSessionAsTheAgentsUser_data()
    {
        QTest::addColumn<int>("rule");
        QTest::newRow("0.11 names") << int(AccountRule::FirstEightAlnum);
        QTest::newRow("newer names") << int(AccountRule::SlugWithHash);
    }
    void doubleClickOpensTheSessionAsTheAgentsUser()
    {
        QFETCH(int, rule);
        const QString account = predictAccountName(
            QStringLiteral("carolxyz"), AccountRule(rule), QStringLiteral("ot_"));
        LivePage page;
        page.resize(1000, 500);
        page.show();
        page.setAdminAccess(AdminAccess::serverAccount(), QStringLiteral("ot_"));
        QList<SessionSource> opened;
        connect(&page, &LivePage::openSessionRequested, this,
            [&opened](const SessionSource &source) { opened.append(source); });
        page.watcher()->feed(
            appearFrames("a1", 11, account, QStringLiteral("c1"), QStringLiteral("s-old"))
            + appearFrames(
                "a2", 12, QStringLiteral("root"), QStringLiteral("c2"), QStringLiteral("s-new")));
        QTRY_COMPARE(page.proxy()->rowCount(), 2);
        // Both started at the same moment: the later record makes one the newest.
        page.watcher()->feed(dataFrames("a1", 0,
            R"({"type":"user","sessionId":"s-old","timestamp":"2030-01-01T00:00:00.000Z","message":{"role":"user","content":"hi"}})"
            "\n",
            1000));
        QTRY_COMPARE(page.proxy()->index(0, LiveAgentModel::SessionColumn).data().toString(),
            QStringLiteral("s-old"));
        QTreeView *view = page.agentsView();
        const QModelIndex first = page.proxy()->index(0, LiveAgentModel::UserColumn);
        doubleClick(view, first);
        QVERIFY2(opened.size() == 1, qPrintable(page.messageBar()->text()));
        QCOMPARE(opened.first().identity.userId, QStringLiteral("carolxyz"));
        QCOMPARE(opened.first().sessionId, QStringLiteral("s-old"));
        QCOMPARE(opened.first().chatId, QStringLiteral("c1"));
        QVERIFY(opened.first().transcriptPath.endsWith(QLatin1String("/s-old.jsonl")));
        // "root" is no user's account: said, nothing opened.
        const QModelIndex second = page.proxy()->index(1, LiveAgentModel::UserColumn);
        doubleClick(view, second);
        QCOMPARE(opened.size(), 1);
        QVERIFY2(page.messageBar()->isVisible(), "no message");
        QVERIFY(page.messageBar()->text().contains(QLatin1String("root")));
    }

    void withoutAConnectionNothingStartsNorIsAudited()
    {
        LivePage page;
        QStringList audited;
        page.setAuditHook([&audited](const QString &target) { audited.append(target); });
        auto *watch = page.findChild<QPushButton *>(QStringLiteral("watchButton"));
        QVERIFY(watch);
        QVERIFY(!watch->isEnabled());
        page.startWatching();
        QVERIFY(!page.isWatching());
        QVERIFY(audited.isEmpty());
        QVERIFY(page.stateText().contains(QLatin1String("not connected")));
    }

    // The real follower through a local admin command (`env`: this machine, this account).
    void watchWritesTheAuditEntryThenRunsOneFollowerAndStopsIt()
    {
        LivePage page;
        QStringList audited;
        page.setAuditHook([&audited](const QString &target) { audited.append(target); });
        OpenTerminalClient client(ServerConnection {
            QUrl(QStringLiteral("http://127.0.0.1:9")), QStringLiteral("unused")});
        page.setClient(&client);
        AdminAccess admin;
        QVERIFY(AdminAccess::fromCommand(QStringLiteral("env"), &admin));
        page.setAdminAccess(admin, {});
        auto *watch = page.findChild<QPushButton *>(QStringLiteral("watchButton"));
        QVERIFY(watch && watch->isEnabled());
        watch->click();
        QCOMPARE(audited, QStringList {admin.describe()});
        QTRY_COMPARE_WITH_TIMEOUT(
            page.watcher()->state(), LiveAgentWatcher::State::Watching, 20000);
        QVERIFY(watch->isChecked());
        QCOMPARE(page.watcher()->processesStarted(), 1);
        watch->click();
        QVERIFY(!page.isWatching());
        QVERIFY(!watch->isChecked());
    }
};

QTEST_MAIN(TestLivePage)
#include "tst_livepage.moc"
