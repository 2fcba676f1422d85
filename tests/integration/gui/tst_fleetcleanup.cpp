// The Cleanup page on a fleet of two REAL members (tests/support/fleetmembers.h: each in a mount
// namespace with a private /home, one API key, admin command nsenter; member B's waits a few
// seconds first: the slow member) and the repository's sandbox/cleanup.sh:
//  * the dry run runs on both members at once: A's items are shown while B has not answered
//    ("1 of 2 members answered"), then both members' items, each row with its member (a user
//    whose home is on both members has a row on each); Save Plans writes one file per member;
//  * executing member A's plan deletes on A only: the confirmation names the member and the
//    paths, the same chat of the same user on B survives, the status and the audit entry name
//    "member A (URL)", and A's plan is not offered again;
//  * with member B beyond the member timeout, and then stopped, B is named in the page's
//    message bar while A's items are shown.
// The models are watched by QAbstractItemModelTester throughout. SANDSCOPE_SCREENSHOT=FILE.png
// saves the page with both members' plans (and FILE-stopped.png).

#include "cleanup/cleanupmodel.h"
#include "cleanuppage.h"
#include "cleanupscriptrun.h"
#include "fleet/fleetcleanupreview.h"
#include "fleet/fleetfanout.h"
#include "fleetmembers.h"
#include "messagebar.h"
#include "screenshot.h"
#include "testing.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTreeView>
#include <QtTest>

#include <memory>

using namespace sandscope;
using namespace sandscope::test;

namespace {

constexpr int answerTimeoutMs = 120000;
// Member B's admin command waits this long before it runs anything.
constexpr int slowMemberSeconds = 4;

} // namespace

class FleetCleanupTest : public QObject {
    Q_OBJECT

private:
    TestMember m_a;
    TestMember m_b;
    QTemporaryDir m_local;
    QString m_key;
    FleetConfig m_fleet;
    QString m_userA; // a home on A only
    QString m_userB; // a home on B only
    QString m_shared; // a home on both members, with the same chats
    std::unique_ptr<CleanupPage> m_page;
    std::unique_ptr<QAbstractItemModelTester> m_modelTester;
    std::unique_ptr<QAbstractItemModelTester> m_proxyTester;

    // A home `user` on `member` with a chat idle for 100 days and one for 2 days.
    bool makeHome(const TestMember &member, const QString &user)
    {
        const QString home = member.homes.filePath(user);
        QProcess process;
        process.start(QStringLiteral("sh"),
            {QStringLiteral("-c"),
                QStringLiteral("set -e; h=\"$1\"; mkdir -p \"$h/chat-old\" \"$h/chat-new\"; "
                               "echo old > \"$h/chat-old/notes.txt\"; echo new > "
                               "\"$h/chat-new/notes.txt\"; touch -d '100 days ago' "
                               "\"$h/chat-old/notes.txt\" \"$h/chat-old\"; touch -d '2 days "
                               "ago' \"$h/chat-new/notes.txt\" \"$h/chat-new\""),
                QStringLiteral("home"), home});
        return process.waitForFinished(30000) && process.exitCode() == 0;
    }
    static bool exists(const TestMember &member, const QString &user, const QString &chat)
    {
        return QFileInfo::exists(member.homes.filePath(user + QLatin1Char('/') + chat));
    }

    QTreeView *tree() const { return m_page->findChild<QTreeView *>(QStringLiteral("planTree")); }
    CleanupModel *model() const
    {
        return static_cast<CleanupModel *>(
            static_cast<QSortFilterProxyModel *>(tree()->model())->sourceModel());
    }

    // The rows shown: "member user path" of every item row, with the Member column's text.
    QSet<QString> shownItems() const
    {
        QSet<QString> rows;
        const QAbstractItemModel *view = tree()->model();
        for (int user = 0; user < view->rowCount(); ++user) {
            const QModelIndex parent = view->index(user, 0);
            const QString userMember
                = view->index(user, CleanupModel::MemberColumn).data().toString();
            for (int row = 0; row < view->rowCount(parent); ++row) {
                const QString member
                    = view->index(row, CleanupModel::MemberColumn, parent).data().toString();
                if (member != userMember)
                    rows.insert(QStringLiteral("mismatch ") + member);
                rows.insert(QStringLiteral("%1 %2 %3")
                                .arg(member, parent.data().toString(),
                                    view->index(row, 0, parent).data().toString()));
            }
        }
        return rows;
    }
    QString row(const TestMember &member, const QString &user, const QString &chat) const
    {
        return QStringLiteral("%1 %2 /home/%2/%3").arg(member.name, user, chat);
    }

    bool dryRun()
    {
        QSignalSpy finished(m_page.get(), &CleanupPage::runFinished);
        m_page->findChild<QPushButton *>(QStringLiteral("dryRunButton"))->click();
        return m_page->isRunning() && finished.wait(answerTimeoutMs);
    }

    void screenshot(const QString &suffix) { test::screenshot(m_page.get(), suffix); }

private Q_SLOTS:
    void initTestCase()
    {
        QString why;
        SANDSCOPE_REQUIRE(RealServer::canRunMultiUser(&why), why);
        QVERIFY(m_local.isValid());
        QString error;
        QVERIFY2(startMembers(m_a, m_b, m_local, &m_key, &error), qPrintable(error));
        for (TestMember *member : {&m_a, &m_b}) {
            FleetMember entry;
            entry.name = member->name;
            entry.url = member->server->url();
            entry.adminExec = member == &m_b
                ? QStringLiteral("sh -c 'sleep %1; exec \"$@\"' slow %2")
                      .arg(slowMemberSeconds)
                      .arg(member->adminCommand())
                : member->adminCommand();
            QVERIFY(AdminAccess::fromCommand(entry.adminExec, &entry.admin));
            m_fleet.members << entry;
        }
        m_fleet.router = m_a.server->url();
        m_userA = QStringLiteral("cla") + randomToken(6, true);
        m_userB = QStringLiteral("clb") + randomToken(6, true);
        m_shared = QStringLiteral("cls") + randomToken(6, true);
        QVERIFY(makeHome(m_a, m_userA));
        QVERIFY(makeHome(m_b, m_userB));
        QVERIFY(makeHome(m_a, m_shared));
        QVERIFY(makeHome(m_b, m_shared));

        m_page = std::make_unique<CleanupPage>();
        m_page->setClient(m_a.client.get()); // the router
        m_page->setAuditContext(QStringLiteral("fleet-test"), m_a.server->url().toString());
        m_page->setHomeRoot(QStringLiteral("/home"));
        m_page->findChild<QLineEdit *>(QStringLiteral("scriptPath"))
            ->setText(cleanupscript::scriptPath());
        m_page->findChild<QSpinBox *>(QStringLiteral("chatTtl"))->setValue(30);
        const ServerConnection connection = m_a.client->connection();
        m_page->setFanOutFactory(
            [this, connection](
                QObject *parent) { return new FleetFanOut(m_fleet, connection, parent); },
            true);
        m_modelTester = std::make_unique<QAbstractItemModelTester>(
            model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        m_proxyTester = std::make_unique<QAbstractItemModelTester>(
            tree()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        m_page->resize(1280, 640);
        m_page->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_page.get()));
    }

    void cleanupTestCase()
    {
        m_proxyTester.reset();
        m_modelTester.reset();
        m_page.reset();
        m_a.stop();
        m_b.stop();
    }

    void theDryRunShowsEveryMembersItemsWithTheirMember()
    {
        QVERIFY(m_page->isFleet());
        QVERIFY(!tree()->isColumnHidden(CleanupModel::MemberColumn));
        QCOMPARE(model()->headerData(CleanupModel::MemberColumn, Qt::Horizontal).toString(),
            QStringLiteral("Member"));
        QSignalSpy finished(m_page.get(), &CleanupPage::runFinished);
        QElapsedTimer clock;
        clock.start();
        m_page->findChild<QPushButton *>(QStringLiteral("dryRunButton"))->click();
        QVERIFY(m_page->isRunning());
        // A's items come while B still waits.
        QTRY_VERIFY_WITH_TIMEOUT(
            shownItems().contains(row(m_a, m_userA, QStringLiteral("chat-old"))), answerTimeoutMs);
        QVERIFY(m_page->isRunning());
        QTRY_VERIFY2_WITH_TIMEOUT(
            m_page->statusText().contains(QLatin1String("1 of 2 members answered")),
            qPrintable(m_page->statusText()), answerTimeoutMs);
        QVERIFY2(m_page->statusText().contains(QLatin1String("Waiting for member-b")),
            qPrintable(m_page->statusText()));
        QVERIFY(clock.elapsed() < slowMemberSeconds * 1000);
        QVERIFY(finished.wait(answerTimeoutMs));
        QVERIFY2(m_page->messageBar()->isHidden(), qPrintable(m_page->messageBar()->text()));
        QVERIFY2(m_page->statusText().contains(QLatin1String("plans of 2 of 2 members")),
            qPrintable(m_page->statusText()));

        const QSet<QString> shown = shownItems();
        for (const QString &chat : {QStringLiteral("chat-old"), QStringLiteral("chat-new")}) {
            QVERIFY(shown.contains(row(m_a, m_userA, chat)));
            QVERIFY(shown.contains(row(m_b, m_userB, chat)));
            QVERIFY(shown.contains(row(m_a, m_shared, chat)));
            QVERIFY(shown.contains(row(m_b, m_shared, chat)));
            QVERIFY(!shown.contains(row(m_a, m_userB, chat)));
            QVERIFY(!shown.contains(row(m_b, m_userA, chat)));
        }
        for (const QString &text : shown)
            QVERIFY2(!text.startsWith(QLatin1String("mismatch")), qPrintable(text));
        // The users came expanded as they streamed in.
        for (int user = 0; user < tree()->model()->rowCount(); ++user)
            QVERIFY(tree()->isExpanded(tree()->model()->index(user, 0)));

        // Each member's plan: its own items, to be executed on it.
        QStringList paths;
        const CleanupPlan reviewedOfA = m_page->reviewedPlan(m_a.name);
        for (const CleanupItem &item : reviewedOfA.items())
            paths << item.user + QLatin1Char(' ') + item.path;
        paths.sort();
        QStringList expected {m_userA + QStringLiteral(" /home/%1/chat-old").arg(m_userA),
            m_shared + QStringLiteral(" /home/%1/chat-old").arg(m_shared)};
        expected.sort();
        QCOMPARE(paths, expected);
        auto *choice = m_page->findChild<QComboBox *>(QStringLiteral("executeMember"));
        QVERIFY(choice->isVisible());
        QCOMPARE(choice->count(), 2);
        // A's plan is never applied on B, not even the shared user's chat at the same path (its
        // identity there is another entry's).
        auto *review = const_cast<FleetCleanupReview *>(m_page->fleetReview());
        CleanupPlan sharedOfA = reviewedOfA.filtered(
            [this](const CleanupItem &item) { return item.user == m_shared; });
        QCOMPARE(sharedOfA.items().size(), 1);
        QVERIFY(!review->startExecute(m_b.name, reviewedOfA, QStringLiteral("fleet-test")));
        QVERIFY(!review->startExecute(m_b.name, sharedOfA, QStringLiteral("fleet-test")));
        QVERIFY(!m_page->isRunning());
        QVERIFY(exists(m_b, m_shared, QStringLiteral("chat-old")));

        // Saved as the command line saves them: DIR/<member>.plan.jsonl.
        const QString folder = m_local.filePath(QStringLiteral("plans"));
        QStringList saved;
        QString error;
        QVERIFY2(m_page->savePlans(folder, &saved, &error), qPrintable(error));
        QCOMPARE(saved.size(), 2);
        for (const TestMember *member : {&m_a, &m_b}) {
            CleanupPlan plan;
            QVERIFY2(CleanupPlan::load(
                         QDir(folder).filePath(member->name + QStringLiteral(".plan.jsonl")), &plan,
                         &error),
                qPrintable(error));
            QCOMPARE(plan.items().size(), 4); // two chats of two users
            const QString own = member == &m_a ? m_userA : m_userB;
            for (const CleanupItem &item : plan.items())
                QVERIFY(item.user == own || item.user == m_shared);
        }
        screenshot(QString());
    }

    void executingAMembersPlanDeletesOnThatMemberOnly()
    {
        QVERIFY(!m_page->isRunning());
        m_page->setExecuteMember(m_a.name);
        QCOMPARE(m_page->executeMember(), m_a.name);
        QString asked;
        QString wanted;
        m_page->setConfirmationPrompter(
            [&](QWidget *, const QString &question, const QString &expected) {
                asked = question;
                wanted = expected;
                return expected;
            });
        QSignalSpy finished(m_page.get(), &CleanupPage::runFinished);
        m_page->findChild<QPushButton *>(QStringLiteral("executeButton"))->click();
        QCOMPARE(wanted, QStringLiteral("delete 2 items on member-a"));
        const QString urlOfA = m_a.server->url().toString(QUrl::StripTrailingSlash);
        QVERIFY2(asked.contains(QStringLiteral("member member-a (")), qPrintable(asked));
        QVERIFY2(asked.contains(urlOfA), qPrintable(asked));
        QVERIFY2(
            asked.contains(QStringLiteral("/home/%1/chat-old").arg(m_userA)), qPrintable(asked));
        QVERIFY2(
            asked.contains(QStringLiteral("/home/%1/chat-old").arg(m_shared)), qPrintable(asked));
        QVERIFY(m_page->isRunning());
        QVERIFY(finished.wait(answerTimeoutMs));
        QVERIFY2(m_page->statusText().contains(QLatin1String("member member-a"))
                && m_page->statusText().contains(QLatin1String("2 deleted, 0 skipped")),
            qPrintable(m_page->statusText()));

        QVERIFY(!exists(m_a, m_userA, QStringLiteral("chat-old")));
        QVERIFY(!exists(m_a, m_shared, QStringLiteral("chat-old")));
        QVERIFY(exists(m_a, m_userA, QStringLiteral("chat-new")));
        // The same user's same chat on B was not reviewed for A: it is still there.
        QVERIFY(exists(m_b, m_shared, QStringLiteral("chat-old")));
        QVERIFY(exists(m_b, m_userB, QStringLiteral("chat-old")));

        // A's rows carry the outcomes; B's plan is untouched and still the one to execute.
        const QSet<QString> shown = shownItems();
        QVERIFY(shown.contains(row(m_a, m_userA, QStringLiteral("chat-old"))));
        QVERIFY(shown.contains(row(m_b, m_shared, QStringLiteral("chat-new"))));
        auto *choice = m_page->findChild<QComboBox *>(QStringLiteral("executeMember"));
        QCOMPARE(choice->count(), 1);
        QCOMPARE(choice->currentText(), m_b.name);
        QCOMPARE(m_page->reviewedPlan(m_b.name).items().size(), 2);
        QVERIFY(m_page->reviewedPlan(m_a.name).items().isEmpty());

        // The audit entry names the member, as `cleanup --fleet --member` does.
        QFile audit(m_local.filePath(QStringLiteral("audit.jsonl")));
        QVERIFY(audit.open(QIODevice::ReadOnly));
        bool found = false;
        for (const QByteArray &line : audit.readAll().split('\n')) {
            const QJsonObject entry = QJsonDocument::fromJson(line).object();
            if (entry.value(QStringLiteral("action")).toString()
                != QLatin1String("cleanup-execute"))
                continue;
            found = true;
            QVERIFY2(entry.value(QStringLiteral("server"))
                         .toString()
                         .startsWith(QStringLiteral("member member-a (") + urlOfA),
                line.constData());
            QCOMPARE(
                entry.value(QStringLiteral("profile")).toString(), QStringLiteral("fleet-test"));
        }
        QVERIFY(found);
    }

    // B outlasts the member timeout: named in the message bar, A's plan shown and executable.
    void aSlowMemberIsNamedWhileTheOthersItemsStay()
    {
        const ServerConnection connection = m_a.client->connection();
        const auto factory = [this, connection](int timeoutMs) {
            return [this, connection, timeoutMs](QObject *parent) {
                auto *fanOut = new FleetFanOut(m_fleet, connection, parent);
                if (timeoutMs > 0)
                    fanOut->setMemberTimeout(timeoutMs);
                return fanOut;
            };
        };
        m_page->setFanOutFactory(factory(slowMemberSeconds * 1000 / 2), true);
        QVERIFY(dryRun());
        m_page->setFanOutFactory(factory(0), true);
        QVERIFY(m_page->messageBar()->isVisible());
        const QString message = m_page->messageBar()->text();
        QVERIFY2(message.contains(QStringLiteral("member ") + m_b.name)
                && message.contains(QLatin1String("did not answer within")),
            qPrintable(message));
        QVERIFY2(m_page->statusText().contains(QLatin1String("plans of 1 of 2 members")),
            qPrintable(m_page->statusText()));
        const QSet<QString> shown = shownItems();
        QVERIFY(shown.contains(row(m_a, m_userA, QStringLiteral("chat-new"))));
        for (const QString &text : shown)
            QVERIFY2(!text.startsWith(m_b.name), qPrintable(text));
    }

    void aStoppedMemberIsNamedWhileTheOthersItemsStay()
    {
        const QString urlOfB = m_b.server->url().toString(QUrl::StripTrailingSlash);
        m_b.stop();
        QVERIFY(dryRun());
        QVERIFY(m_page->messageBar()->isVisible());
        const QString message = m_page->messageBar()->text();
        QVERIFY2(message.contains(QStringLiteral("member ") + m_b.name), qPrintable(message));
        QVERIFY2(message.contains(urlOfB), qPrintable(message));
        QVERIFY2(m_page->statusText().contains(QLatin1String("plans of 1 of 2 members")),
            qPrintable(m_page->statusText()));
        const QSet<QString> shown = shownItems();
        QVERIFY(shown.contains(row(m_a, m_userA, QStringLiteral("chat-new"))));
        QVERIFY(shown.contains(row(m_a, m_shared, QStringLiteral("chat-new"))));
        for (const QString &text : shown)
            QVERIFY2(!text.startsWith(m_b.name), qPrintable(text));
        // A's old chat went with its plan: nothing of A is to be deleted, B made no plan.
        QCOMPARE(m_page->findChild<QComboBox *>(QStringLiteral("executeMember"))->count(), 0);
        QVERIFY(!m_page->findChild<QPushButton *>(QStringLiteral("executeButton"))->isEnabled());
        screenshot(QStringLiteral("-stopped"));
    }
};

QTEST_MAIN(FleetCleanupTest)
#include "tst_fleetcleanup.moc"
