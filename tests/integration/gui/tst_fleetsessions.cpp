// The window on a fleet of two REAL members (tests/support/fleetmembers.h: each in a mount
// namespace with a private /home, one API key, admin command nsenter), opened as a fleet
// profile whose router is member A's own URL (as in tst_fleetstatus):
//  * the connection goes to the router, and the status bar names the member the acting user
//    lives on as soon as that member answers (not after the slow member);
//  * the Sessions page's "All users" lists both members' sessions, each row with its member in
//    the Member column, A's rows shown while B (whose admin command waits a few seconds first)
//    has not answered yet; the search across all users merges both members' hits;
//  * the Users page lists both members' homes, each with its member, A's before B has answered;
//  * the Usage page's "All users" adds up both members' transcripts, each row with its member,
//    A's figures shown while B has not answered yet;
//  * the Live wall watches both members, a real agent on A shown with its member and its id
//    prefixed;
//  * with member B stopped, B is named with its error in each page's message bar while A's rows
//    are shown.
// SANDSCOPE_SCREENSHOT=FILE.png saves the window with the Sessions page of both members, and
// FILE-users.png, FILE-usage.png, FILE-live.png and their -stopped.png beside it.

#include "adminoverviewpage.h"
#include "cleanuppage.h"
#include "connection/serversession.h"
#include "files/adminoverviewmodel.h"
#include "fleet/fleetlivewatcher.h"
#include "fleetmembers.h"
#include "live/liveagentmodel.h"
#include "live/livepage.h"
#include "mainwindow.h"
#include "messagebar.h"
#include "putfile.h"
#include "runs/sessionspage.h"
#include "screenshot.h"
#include "sessions/sessionlistmodel.h"
#include "sessions/sessionsearchmodel.h"
#include "testing.h"
#include "transcripthome.h"
#include "usage/usagemodel.h"
#include "usage/usagepage.h"
#include "util/shellquote.h"

#include <QDirIterator>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTreeView>
#include <QUuid>
#include <QtTest>

#include <csignal>
#include <memory>

using namespace sandscope;
using namespace sandscope::test;

namespace {

constexpr int answerTimeoutMs = 120000;
// The Live wall's waits, within the test function's own time limit.
constexpr int liveTimeoutMs = 60000;
// Member B's admin command waits this long before it runs anything: the slow member.
constexpr int slowMemberSeconds = 5;

// The CLI's project folder name of a working directory (sessiondiscovery's escaping rule).
QString escaped(QString path)
{
    for (QChar &c : path) {
        if (!(c.unicode() < 128 && c.isLetterOrNumber()))
            c = QLatin1Char('-');
    }
    return path;
}

} // namespace

class FleetSessionsTest : public QObject {
    Q_OBJECT

private:
    TestMember m_a;
    TestMember m_b;
    QTemporaryDir m_local;
    QString m_fleetFile;
    QString m_key;
    QString m_onA;
    QString m_onB;
    QString m_accountA;
    QString m_accountB;
    ScriptedModelServer m_model; // for the Live wall's agent
    QString m_agentSession;
    QHash<QString, QString> m_memberOfPath; // transcript path (as the member sees it) -> member
    std::unique_ptr<MainWindow> m_window;

    // A user whose home is on `member`, made through its own URL (eight letters: see
    // tst_fleetstatus); its account name in `account`.
    QString userOn(const TestMember &member, const QString &tag, QString *account)
    {
        const QString userId = tag + randomToken(8 - int(tag.size()), true);
        const QStringList home = shellLines(
            member.client.get(), {userId, QString()}, QStringLiteral("echo \"$HOME\""));
        if (home.isEmpty() || !home.constLast().startsWith(QLatin1String("/home/")))
            return {};
        *account = home.constLast().mid(6);
        return userId;
    }

    // A recorded scenario as a session of `account` on `member`, as the member sees it
    // (/home/ACCOUNT/chat-SCENARIO), written where its /home is bound.
    bool installOn(const TestMember &member, const QString &account, const QString &scenario)
    {
        QTemporaryDir staging;
        const QString inside = QStringLiteral("/home/") + account;
        const QString stagedHome = staging.path() + inside;
        if (installRecordedScenario(stagedHome, scenario, 3600).isEmpty())
            return false;
        QDirIterator files(stagedHome, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
        while (files.hasNext()) {
            const QString from = files.next();
            QString relative = from.mid(stagedHome.size());
            relative.replace(escaped(stagedHome), escaped(inside));
            QFile file(from);
            if (!file.open(QIODevice::ReadOnly))
                return false;
            QByteArray bytes = file.readAll();
            bytes.replace(stagedHome.toUtf8(), inside.toUtf8());
            const QString to = member.homes.filePath(account) + relative; // bound onto /home
            if (!writeFile(to, bytes)
                || !setModified(to, file.fileTime(QFile::FileModificationTime)))
                return false;
            if (relative.endsWith(QLatin1String(".jsonl"))
                && !relative.contains(QLatin1String("/subagents/")))
                m_memberOfPath.insert(inside + relative, member.name);
        }
        // Written as root: the user's own, so that its agents can write their transcripts.
        member.asRoot(QStringLiteral("chown -R %1: /home/%1/.claude").arg(account));
        return true;
    }

    SessionsPage *page() const { return m_window->sessionsPage(); }

    // Every user's sessions listed again from scratch (the rows of earlier listings gone).
    bool listAllUsersAfresh(bool *ok)
    {
        QSignalSpy listed(page(), &SessionsPage::listingFinished);
        page()->setAllUsers(false);
        if (!listed.wait(answerTimeoutMs))
            return false;
        listed.clear();
        page()->setAllUsers(true);
        if (!listed.wait(answerTimeoutMs))
            return false;
        *ok = listed.constFirst().constFirst().toBool();
        return true;
    }

    // SANDSCOPE_SCREENSHOT with `suffix` before its .png.
    void screenshot(const QString &suffix) { test::screenshot(m_window.get(), suffix); }

    AdminOverviewPage *usersPage() const { return m_window->adminOverviewPage(); }
    UsagePage *usagePage() const { return m_window->usagePage(); }
    LivePage *livePage() const { return m_window->livePage(); }

    // The Live wall's row of the agent of `session`, or -1.
    int liveRowOf(const QString &session) const
    {
        const LiveAgentModel *model = livePage()->model();
        for (int row = 0; row < model->rowCount(); ++row) {
            if (model->agentAt(row).info.sessionId == session)
                return row;
        }
        return -1;
    }

    // The Users page's rows: account -> member.
    QHash<QString, QString> homeMembers() const
    {
        QHash<QString, QString> members;
        const AdminOverviewModel *model = usersPage()->model();
        for (int row = 0; row < model->rowCount(); ++row) {
            members.insert(model->index(row, AdminOverviewModel::AccountColumn).data().toString(),
                model->index(row, AdminOverviewModel::MemberColumn).data().toString());
        }
        return members;
    }

    // The Usage page's rows: member (as its column shows it) -> the users it has rows of.
    QHash<QString, QSet<QString>> usageMembers() const
    {
        QHash<QString, QSet<QString>> users;
        const UsageModel *model = usagePage()->model();
        for (int row = 0; row < model->rowCount(); ++row) {
            const QString member = model->index(row, UsageModel::MemberColumn).data().toString();
            users[member].insert(model->index(row, UsageModel::UserColumn).data().toString());
        }
        return users;
    }

    QHash<QString, QString> listedMembers() const
    {
        QHash<QString, QString> members;
        const SessionListModel *model = page()->model();
        for (int row = 0; row < model->rowCount(); ++row) {
            members.insert(model->session(row).path,
                model->index(row, SessionListModel::MemberColumn).data().toString());
        }
        return members;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString why;
        SANDSCOPE_REQUIRE(RealServer::canRunMultiUser(&why), why);
        QVERIFY(m_local.isValid());
        QString error;
        QVERIFY2(startMembers(m_a, m_b, m_local, &m_key, &error), qPrintable(error));
        m_fleetFile = m_local.filePath(QStringLiteral("fleet.json"));
        QFile file(m_fleetFile);
        QVERIFY(file.open(QIODevice::WriteOnly));
        const QJsonArray members {QJsonObject {{QStringLiteral("name"), m_a.name},
                                      {QStringLiteral("url"), m_a.server->url().toString()},
                                      {QStringLiteral("admin_exec"), m_a.adminCommand()}},
            QJsonObject {{QStringLiteral("name"), m_b.name},
                {QStringLiteral("url"), m_b.server->url().toString()},
                {QStringLiteral("admin_exec"),
                    QStringLiteral("sh -c 'sleep %1; exec \"$@\"' slow %2")
                        .arg(slowMemberSeconds)
                        .arg(m_b.adminCommand())}}};
        file.write(
            QJsonDocument(QJsonObject {{QStringLiteral("router"), m_a.server->url().toString()},
                              {QStringLiteral("members"), members}})
                .toJson());
        file.close();

        m_onA = userOn(m_a, QStringLiteral("ona"), &m_accountA);
        m_onB = userOn(m_b, QStringLiteral("onb"), &m_accountB);
        const QString &accountA = m_accountA;
        const QString &accountB = m_accountB;
        QVERIFY(!m_onA.isEmpty() && !m_onB.isEmpty());
        for (const QString &scenario : {QStringLiteral("bash"), QStringLiteral("parallel")})
            QVERIFY2(installOn(m_a, accountA, scenario), qPrintable(scenario));
        for (const QString &scenario : {QStringLiteral("bash"), QStringLiteral("subagent")})
            QVERIFY2(installOn(m_b, accountB, scenario), qPrintable(scenario));

        m_window = std::make_unique<MainWindow>(m_local.filePath(QStringLiteral("profiles.ini")));
        m_window->resize(1360, 760);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void cleanupTestCase()
    {
        m_window.reset();
        stopMembers({&m_a, &m_b});
    }

    void theFleetProfileConnectsToTheRouterAndNamesTheMember()
    {
        Profile profile;
        profile.name = QStringLiteral("fleet");
        profile.fleetFile = m_fleetFile;
        profile.defaultUserId = m_onA;
        m_window->session()->profiles()->save(profile);
        QSignalSpy checked(m_window.get(), &MainWindow::serverChecked);
        m_window->openProfile(m_window->session()->profiles()->profile(profile.name), m_key);
        QTRY_VERIFY_WITH_TIMEOUT(!checked.isEmpty(), answerTimeoutMs);
        QVERIFY2(
            checked.constFirst().constFirst().toBool(), qPrintable(m_window->messageBar()->text()));
        ServerSession *session = m_window->session();
        QVERIFY(session->isFleet());
        // Cleanup plans every member too (tst_fleetcleanup): it was given the fleet.
        QVERIFY(m_window->cleanupPage()->isFleet());
        QCOMPARE(session->client()->connection().baseUrl, m_a.server->url());
        // Member A holds the home: named before the slow member B has answered.
        QElapsedTimer clock;
        clock.start();
        QTRY_COMPARE_WITH_TIMEOUT(
            session->actingMemberState(), ServerSession::MemberState::Known, answerTimeoutMs);
        QVERIFY(clock.elapsed() < slowMemberSeconds * 1000);
        QCOMPARE(session->actingMembers(), QStringList {m_a.name});
        QVERIFY(session->actingMemberNote().contains(QLatin1String("Still asking")));
        QTRY_VERIFY_WITH_TIMEOUT(session->actingMemberNote().isEmpty(), answerTimeoutMs);
        QCOMPARE(session->actingMembers(), QStringList {m_a.name});
        const QString status = m_window->serverStatusText();
        QVERIFY2(status.contains(QStringLiteral("on member ") + m_a.name), qPrintable(status));
        QVERIFY(!status.contains(m_key));
    }

    void allUsersListsEveryMembersSessionsWithTheirMember()
    {
        QVERIFY(m_window->isConnected());
        m_window->pages()->setCurrentWidget(page());
        QSignalSpy listed(page(), &SessionsPage::listingFinished);
        page()->setAllUsers(false);
        QVERIFY(listed.wait(answerTimeoutMs));
        listed.clear();
        // A's rows come while B still waits: nothing waits for the slowest member.
        QElapsedTimer clock;
        clock.start();
        page()->setAllUsers(true);
        QTRY_VERIFY_WITH_TIMEOUT(listedMembers().values().contains(m_a.name), answerTimeoutMs);
        QVERIFY(page()->isLoading());
        QVERIFY(!listedMembers().values().contains(m_b.name));
        // A's rows are streamed before A's listing has ended: its end follows.
        QTRY_VERIFY2_WITH_TIMEOUT(
            page()->statusText().contains(QLatin1String("1 of 2 members answered")),
            qPrintable(page()->statusText()), answerTimeoutMs);
        QVERIFY(!listedMembers().values().contains(m_b.name));
        QVERIFY(clock.elapsed() < slowMemberSeconds * 1000);
        QVERIFY(listed.wait(answerTimeoutMs));
        QVERIFY2(listed.constFirst().constFirst().toBool(),
            qPrintable(page()->statusText() + page()->messageBar()->text()));
        QVERIFY(page()->model()->showsMembers());
        QVERIFY(!page()->view()->header()->isSectionHidden(SessionListModel::MemberColumn));
        QCOMPARE(page()->model()->headerData(
                     SessionListModel::MemberColumn, Qt::Horizontal, Qt::DisplayRole),
            QVariant(QStringLiteral("Member")));
        const QHash<QString, QString> members = listedMembers();
        for (auto it = m_memberOfPath.cbegin(); it != m_memberOfPath.cend(); ++it)
            QCOMPARE(members.value(it.key(), QStringLiteral("(not listed)")), it.value());
        QVERIFY(page()->messageBar()->isHidden());
        QVERIFY2(page()->statusText().contains(QLatin1String("2 members")),
            qPrintable(page()->statusText()));

        // The search across every user: both members' hits, each with its member.
        QSignalSpy searched(page(), &SessionsPage::searchFinished);
        page()->search(QStringLiteral("echo hi"), QStringLiteral("Bash"));
        QVERIFY(searched.wait(answerTimeoutMs));
        QVERIFY2(
            searched.constFirst().constFirst().toBool(), qPrintable(page()->searchStatusText()));
        QSet<QString> hitMembers;
        const SessionSearchModel *hits = page()->searchModel();
        for (int row = 0; row < hits->rowCount(); ++row) {
            QCOMPARE(hits->index(row, SessionSearchModel::MemberColumn).data().toString(),
                hits->hit(row).member);
            hitMembers.insert(hits->hit(row).member);
        }
        QCOMPARE(hitMembers, (QSet<QString> {m_a.name, m_b.name}));

        if (qEnvironmentVariableIsSet("SANDSCOPE_SCREENSHOT")) {
            QTest::qWait(200);
            m_window->grab().save(qEnvironmentVariable("SANDSCOPE_SCREENSHOT"));
        }
    }

    void theUsersPageListsEveryMembersHomesWithTheirMember()
    {
        QVERIFY(m_window->isConnected());
        QVERIFY(usersPage()->model()->isFleet());
        QSignalSpy loaded(usersPage()->model(), &AdminOverviewModel::loaded);
        // A's homes come while B still waits.
        QElapsedTimer clock;
        clock.start();
        m_window->pages()->setCurrentWidget(usersPage());
        QTRY_VERIFY_WITH_TIMEOUT(homeMembers().contains(m_accountA), answerTimeoutMs);
        QVERIFY(!homeMembers().contains(m_accountB));
        QVERIFY(clock.elapsed() < slowMemberSeconds * 1000);
        QVERIFY(loaded.wait(answerTimeoutMs));
        const QHash<QString, QString> members = homeMembers();
        QCOMPARE(members.value(m_accountA), m_a.name);
        QCOMPARE(members.value(m_accountB), m_b.name);
        QVERIFY(!usersPage()->accountsView()->isColumnHidden(AdminOverviewModel::MemberColumn));
        QVERIFY2(
            usersPage()->messageBar()->isHidden(), qPrintable(usersPage()->messageBar()->text()));
        screenshot(QStringLiteral("-users"));
    }

    void theUsagePageAddsUpEveryMemberWithItsMember()
    {
        QVERIFY(m_window->isConnected());
        m_window->pages()->setCurrentWidget(usagePage());
        QVERIFY(usagePage()->isFleet());
        QTRY_VERIFY_WITH_TIMEOUT(!usagePage()->isCollecting(), answerTimeoutMs);
        QSignalSpy finished(usagePage(), &UsagePage::collectionFinished);
        QElapsedTimer clock;
        clock.start();
        usagePage()->setAllUsers(true);
        // A's figures are shown while B still waits: a partial report.
        QTRY_VERIFY_WITH_TIMEOUT(usageMembers().contains(m_a.name), answerTimeoutMs);
        QVERIFY(usagePage()->isCollecting());
        QVERIFY(!usageMembers().contains(m_b.name));
        QVERIFY(clock.elapsed() < slowMemberSeconds * 1000);
        QVERIFY2(usagePage()->statusText().contains(QLatin1String("1 of 2 members answered")),
            qPrintable(usagePage()->statusText()));
        QVERIFY(finished.wait(answerTimeoutMs));
        QVERIFY2(
            finished.constFirst().constFirst().toBool(), qPrintable(usagePage()->statusText()));
        const UsageModel *model = usagePage()->model();
        QVERIFY(model->showsMembers());
        QCOMPARE(model->headerData(UsageModel::MemberColumn, Qt::Horizontal, Qt::DisplayRole),
            QVariant(QStringLiteral("Member")));
        QVERIFY(!usagePage()->daysView()->isColumnHidden(UsageModel::MemberColumn));
        for (int row = 0; row < model->rowCount(); ++row)
            QCOMPARE(model->index(row, UsageModel::MemberColumn).data().toString(),
                model->report().days.at(row).member);
        // Each user's rows with the member holding its home (the acting user by its id).
        const QHash<QString, QSet<QString>> users = usageMembers();
        QCOMPARE(users.keys().size(), 2);
        QCOMPARE(users.value(m_a.name), (QSet<QString> {m_onA}));
        QCOMPARE(users.value(m_b.name), (QSet<QString> {m_accountB}));
        QVERIFY(usagePage()->messageBar()->isHidden());
        QVERIFY2(!usagePage()->statusText().contains(QLatin1String("answered")),
            qPrintable(usagePage()->statusText()));
        screenshot(QStringLiteral("-usage"));
    }

    void theLiveWallWatchesEveryMemberWithTheAgentsMember()
    {
        SANDSCOPE_REQUIRE(!QStandardPaths::findExecutable(QStringLiteral("claude")).isEmpty(),
            "needs the claude CLI (scripts/install-deps.sh)");
        QVERIFY(m_window->isConnected());
        QVERIFY(livePage()->isFleet());
        QString error;
        QVERIFY2(m_model.start(&error), qPrintable(error));
        // A real agent of A's user, started through A's own URL, in a long Bash call (the CLI
        // refuses a chain that starts with a sleep of 25 s or more: 24 s).
        m_agentSession = QUuid::createUuid().toString(QUuid::WithoutBraces);
        QByteArray envFile;
        const QHash<QString, QString> environment
            = m_model.agentEnvironment(QStringLiteral("sk-ant-fleet-") + randomToken(16));
        for (auto it = environment.cbegin(); it != environment.cend(); ++it)
            envFile += it.key().toUtf8() + '=' + shell::quote(it.value()).toUtf8() + '\n';
        const Identity who {m_onA, QString()};
        QVERIFY(putFile(
            m_a.client.get(), who, QStringLiteral("/home/%1/.agent-env").arg(m_accountA), envFile));
        ExecuteOptions options;
        options.cwd = QStringLiteral("/home/") + m_accountA;
        const QString command
            = QStringLiteral("chmod 600 ~/.agent-env && set -a && . ~/.agent-env && set +a && "
                             "mkdir -p chat-live && cd chat-live && claude -p %1 "
                             "--session-id %2 --output-format stream-json --verbose "
                             "--allowedTools Bash > /dev/null 2>&1 < /dev/null")
                  .arg(shell::quote(QStringLiteral("CMD: sleep 24; echo done")), m_agentSession);
        OpenTerminalClient *client = m_a.client.get();
        const Result<ProcessSnapshot> started = sandscope::await<ProcessSnapshot>(
            [&](auto done) { return client->execute(who, command, options, client, done); });
        QVERIFY2(started.ok(), qPrintable(started.error.toString()));

        m_window->showLiveWall();
        QVERIFY(!livePage()->agentsView()->isColumnHidden(LiveAgentModel::MemberColumn));
        livePage()->startWatching();
        QVERIFY(livePage()->fleetWatcher());
        QTRY_VERIFY2_WITH_TIMEOUT(liveRowOf(m_agentSession) >= 0,
            qPrintable(livePage()->stateText() + QStringLiteral(" rows: ")
                + QString::number(livePage()->model()->rowCount()) + QLatin1Char(' ')
                + livePage()->messageBar()->text()),
            liveTimeoutMs);
        const LiveAgentModel *model = livePage()->model();
        const int row = liveRowOf(m_agentSession);
        QCOMPARE(model->index(row, LiveAgentModel::MemberColumn).data().toString(), m_a.name);
        // In its call, read from its transcript (a refused command, or a transcript the agent
        // could not write, would show an agent without one).
        const auto toolOfAgent = [&] {
            const int at = liveRowOf(m_agentSession);
            return at < 0 ? QStringLiteral("(gone)") : model->agentAt(at).toolName;
        };
        QTRY_COMPARE_WITH_TIMEOUT(toolOfAgent(), QStringLiteral("Bash"), liveTimeoutMs);
        QVERIFY(model->agentAt(row).info.id.startsWith(m_a.name.toUtf8() + '/'));
        QTRY_VERIFY2_WITH_TIMEOUT(livePage()->stateText().contains(QLatin1String("2 of 2")),
            qPrintable(livePage()->stateText()), answerTimeoutMs);
        QVERIFY(livePage()->messageBar()->isHidden());
        screenshot(QStringLiteral("-live"));

        // B's follower ends, as when its pod goes: B is named, A's agent stays on the wall.
        const QList<pid_t> followersOfB = m_b.liveFollowers();
        QVERIFY(!followersOfB.isEmpty());
        for (const pid_t pid : followersOfB)
            ::kill(pid, SIGKILL);
        QTRY_VERIFY2_WITH_TIMEOUT(livePage()->messageBar()->isVisible()
                && livePage()->messageBar()->text().contains(QStringLiteral("member ") + m_b.name),
            qPrintable(livePage()->messageBar()->text()), liveTimeoutMs);
        QVERIFY2(livePage()->stateText().contains(QLatin1String("1 of 2")),
            qPrintable(livePage()->stateText()));
        QVERIFY(liveRowOf(m_agentSession) >= 0);
        screenshot(QStringLiteral("-live-member-gone"));
    }

    void aStoppedMemberIsNamedWhileTheOthersRowsAreShown()
    {
        QVERIFY(m_window->isConnected());
        m_window->pages()->setCurrentWidget(page());
        const QString urlOfB = m_b.server->url().toString(QUrl::StripTrailingSlash);
        if (livePage()->isWatching())
            livePage()->stopWatching();
        m_b.stop();
        bool ok = true;
        QVERIFY(listAllUsersAfresh(&ok));
        QVERIFY(!ok); // not every member answered
        QVERIFY(!page()->statusIsError()); // but A's sessions are the listing
        QVERIFY(page()->messageBar()->isVisible());
        const QString message = page()->messageBar()->text();
        QVERIFY2(message.contains(QStringLiteral("member ") + m_b.name), qPrintable(message));
        QVERIFY2(message.contains(urlOfB), qPrintable(message));
        const QHash<QString, QString> listed = listedMembers();
        int ofA = 0;
        for (auto it = m_memberOfPath.cbegin(); it != m_memberOfPath.cend(); ++it) {
            if (it.value() == m_a.name) {
                QCOMPARE(listed.value(it.key()), m_a.name);
                ++ofA;
            }
        }
        QVERIFY(ofA >= 2);
        // None of B's (A also lists the live wall's agent session).
        for (auto it = listed.cbegin(); it != listed.cend(); ++it)
            QVERIFY2(it.value() == m_a.name && m_memberOfPath.value(it.key()) != m_b.name,
                qPrintable(it.key()));
        screenshot(QStringLiteral("-stopped"));

        // The Users page: B named, A's homes listed.
        m_window->pages()->setCurrentWidget(usersPage());
        QSignalSpy loaded(usersPage()->model(), &AdminOverviewModel::loaded);
        usersPage()->reload();
        QVERIFY(loaded.wait(answerTimeoutMs));
        QVERIFY(usersPage()->messageBar()->isVisible());
        QString usersMessage = usersPage()->messageBar()->text();
        QVERIFY2(
            usersMessage.contains(QStringLiteral("member ") + m_b.name), qPrintable(usersMessage));
        QVERIFY2(usersMessage.contains(urlOfB), qPrintable(usersMessage));
        QCOMPARE(homeMembers().value(m_accountA), m_a.name);
        QVERIFY(!homeMembers().contains(m_accountB));
        screenshot(QStringLiteral("-users-stopped"));

        // The Usage page: B named, A's figures shown.
        m_window->pages()->setCurrentWidget(usagePage());
        QSignalSpy finished(usagePage(), &UsagePage::collectionFinished);
        usagePage()->refresh();
        QVERIFY(finished.wait(answerTimeoutMs));
        QVERIFY(!finished.constFirst().constFirst().toBool()); // not every member answered
        QVERIFY(usagePage()->messageBar()->isVisible());
        const QString usageMessage = usagePage()->messageBar()->text();
        QVERIFY2(
            usageMessage.contains(QStringLiteral("member ") + m_b.name), qPrintable(usageMessage));
        QVERIFY2(usageMessage.contains(urlOfB), qPrintable(usageMessage));
        const QHash<QString, QSet<QString>> users = usageMembers();
        QCOMPARE(users.keys(), QStringList {m_a.name});
        QCOMPARE(users.value(m_a.name), (QSet<QString> {m_onA}));
        screenshot(QStringLiteral("-usage-stopped"));
    }
};

QTEST_MAIN(FleetSessionsTest)
#include "tst_fleetsessions.moc"
