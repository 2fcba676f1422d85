// The cleanup dry-run viewer core against a REAL multi-user open-terminal and the repository's
// sandbox/cleanup.sh, through either admin channel (run twice by CTest, see cleanupfixture.h):
// 0.11.34's own account, or the newest pinned server with the admin command `sudo -n`. Test
// users with aged chats and sessions (touch -d as each user), the dry run, executing a reviewed
// plan (a changed item is skipped), the `cleanup` CLI verb, and the clear refusal of the newer
// server's own account, which allows no request without X-User-Id.
//
// /home may hold other accounts: every check is limited to this test's account prefix, and
// every executed plan holds only items of the test accounts.

#include "cleanup/cleanupmodel.h"
#include "cleanup/cleanuprunner.h"
#include "cleanupfixture.h"
#include "realserver.h"
#include "server/openterminalclient.h"
#include "testing.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QtTest>

using namespace sandscope;
using sandscope::test::RealServer;

namespace {

const QString sessionId = QStringLiteral("69d37cd2-7f92-4547-b7cd-d2b4de2e2f3e");
const QString freshSessionId = QStringLiteral("0b7e5a52-4f7b-4c39-9d1e-0a4d5c6b7e8f");

struct RunOutcome {
    bool finished = false;
    int exitCode = -1;
    QString failure;
    int itemsBeforeFinish = 0;
};

struct CliOutcome {
    int exitCode = -1;
    QByteArray out;
    QString err;
};

} // namespace

class CleanupIntegration : public QObject, private test::CleanupFixture {
    Q_OBJECT

private:
    RunOutcome runToEnd(CleanupRunner &runner, const std::function<void()> &start)
    {
        RunOutcome outcome;
        QObject::connect(&runner, &CleanupRunner::itemReceived, &runner, [&](const CleanupItem &) {
            if (!outcome.finished)
                ++outcome.itemsBeforeFinish;
        });
        QObject::connect(&runner, &CleanupRunner::finished, &runner, [&](int exitCode) {
            outcome.exitCode = exitCode;
            outcome.finished = true;
        });
        QObject::connect(&runner, &CleanupRunner::failed, &runner, [&](const QString &message) {
            outcome.failure = message;
            outcome.finished = true;
        });
        start();
        if (!QTest::qWaitFor([&] { return outcome.finished; }, 180000))
            outcome.failure = QStringLiteral("timed out");
        runner.disconnect(&runner);
        return outcome;
    }
    CleanupPlan ownItems(const CleanupPlan &plan) const
    {
        const QString prefix = m_server->prefix();
        return plan.filtered([&](const CleanupItem &item) { return item.user.startsWith(prefix); });
    }
    CleanupSettings settings() const
    {
        CleanupSettings result;
        result.scriptPath = scriptPath();
        result.homeRoot = QStringLiteral("/home");
        return result;
    }
    CliOutcome cli(const QStringList &arguments)
    {
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("SANDSCOPE_API_KEY"), m_server->apiKey());
        env.insert(QStringLiteral("SANDSCOPE_AUDIT_LOG"), m_auditPath);
        env.remove(QStringLiteral("DISPLAY"));
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(SANDSCOPE_BINARY),
            QStringList {
                QStringLiteral("cleanup"), QStringLiteral("--server"), m_server->url().toString()}
                + arguments);
        CliOutcome outcome;
        if (!process.waitForFinished(180000)) {
            process.kill();
            process.waitForFinished();
            outcome.err = QStringLiteral("did not finish");
            return outcome;
        }
        outcome.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
        outcome.out = process.readAllStandardOutput();
        outcome.err = QString::fromUtf8(process.readAllStandardError());
        return outcome;
    }
    CleanupPlan m_dryRun;

private Q_SLOTS:
    void initTestCase()
    {
        QString why;
        SANDSCOPE_REQUIRE(RealServer::canRunMultiUser(&why), why);
        QVERIFY(QFileInfo::exists(scriptPath()));
        QVERIFY(m_local.isValid());
        QString error;
        QVERIFY2(startServer(&error), qPrintable(error));

        makeChat(m_alice, QStringLiteral("chat-old"), 100);
        makeChat(m_alice, QStringLiteral("chat-changing"), 60);
        makeChat(m_alice, QStringLiteral("chat-new"), 2);
        // bob: an aged session with its folder, and a recent one.
        makeSessions(m_bob, sessionId, 200, freshSessionId);
    }

    void cleanupTestCase() { stopServer(); }

    void dryRunListsExactlyTheAgedItemsOfTheTestUsers()
    {
        OpenTerminalClient client(m_server->connection());
        CleanupRunner runner(&client);
        runner.setSettings(settings());
        runner.setAdminAccess(m_admin);
        CleanupModel model;
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        connect(&runner, &CleanupRunner::itemReceived, &model, &CleanupModel::addItem);
        const RunOutcome outcome = runToEnd(runner, [&] { runner.startDryRun(); });
        QVERIFY2(outcome.failure.isEmpty(), qPrintable(outcome.failure));
        QCOMPARE(outcome.exitCode, 0);
        QVERIFY(outcome.itemsBeforeFinish > 0);
        for (const CleanupLineProblem &problem : runner.result().problems())
            QFAIL(qPrintable(problem.why + QStringLiteral(": ") + problem.text));
        QCOMPARE(runner.result().summary().mode, QStringLiteral("dry-run"));
        QCOMPARE(model.itemCount(), runner.result().items().size());

        m_dryRun = ownItems(runner.result());
        QStringList deletions;
        QStringList kept;
        for (const CleanupItem &item : m_dryRun.items()) {
            (item.action == CleanupItem::Action::Delete ? deletions : kept) << item.path;
        }
        deletions.sort();
        kept.sort();
        const QString projects = m_bobHome + QStringLiteral("/.claude/projects/-home-x-chat-demo/");
        QCOMPARE(deletions,
            QStringList({m_aliceHome + QStringLiteral("/chat-changing"),
                m_aliceHome + QStringLiteral("/chat-old"),
                projects + sessionId + QStringLiteral(".jsonl")}));
        QCOMPARE(kept,
            QStringList({m_aliceHome + QStringLiteral("/chat-new"),
                projects + freshSessionId + QStringLiteral(".jsonl")}));

        // Sizes and ages measured independently on the server.
        const QStringList sizes = shell(Identity {},
            QStringLiteral(
                "find '%1/chat-old' -printf '%s\\n' | awk '{s+=$1} END {print \"SUM=\" s}'")
                .arg(m_aliceHome));
        const CleanupItem old = *std::find_if(
            m_dryRun.items().cbegin(), m_dryRun.items().cend(), [&](const CleanupItem &item) {
                return item.path.endsWith(QLatin1String("/chat-old"));
            });
        QVERIFY(sizes.contains(QStringLiteral("SUM=%1").arg(old.bytes)));
        QCOMPARE(old.ageDays, qint64(100));
        QCOMPARE(old.user, m_aliceHome.mid(6));
        const CleanupItem session
            = *std::find_if(m_dryRun.items().cbegin(), m_dryRun.items().cend(),
                [](const CleanupItem &item) { return item.sessionId == sessionId; });
        QCOMPARE(session.ageDays, qint64(200));
        QCOMPARE(session.sessionDir,
            m_bobHome + QStringLiteral("/.claude/projects/-home-x-chat-demo/") + sessionId);

        // The model groups the test users with their totals.
        CleanupFilterProxy proxy;
        proxy.setSourceModel(&model);
        proxy.setUserFilter(m_server->prefix());
        QCOMPARE(proxy.rowCount(), 2);
        proxy.setMinimumAgeDays(150);
        QCOMPARE(proxy.rowCount(), 1);
        QCOMPARE(proxy.rowCount(proxy.index(0, 0)), 1);
        QCOMPARE(proxy.index(0, 0, proxy.index(0, 0)).data().toString(), session.path);
        // Nothing was deleted by the dry run.
        QVERIFY(exists(old.path));
    }

    // A sandbox without the script (a local open-terminal: defect "bash: /opt/cleanup.sh: No
    // such file or directory (exit 127)"): the run says so and offers the shipped copy, which
    // then runs through the same channel, finds the same items and is named with its checksum;
    // the `cleanup` verb behaves the same.
    void aMissingScriptIsSaidAndTheShippedCopyRunsInstead()
    {
        QVERIFY(!m_dryRun.items().isEmpty());
        const QString missingPath = QStringLiteral("/opt/sandscope-missing-%1/cleanup.sh")
                                        .arg(test::randomToken(6, true));
        OpenTerminalClient client(m_server->connection());
        CleanupRunner runner(&client);
        runner.setAdminAccess(m_admin);
        CleanupSettings missing = settings();
        missing.scriptPath = missingPath;
        runner.setSettings(missing);
        RunOutcome outcome = runToEnd(runner, [&] { runner.startDryRun(); });
        QVERIFY(runner.scriptMissing());
        QVERIFY2(outcome.failure.contains(QLatin1String("no cleanup script at ") + missingPath),
            qPrintable(outcome.failure));
        QVERIFY(outcome.failure.contains(QLatin1String("--shipped-script")));
        QVERIFY(!outcome.failure.contains(QLatin1String("No such file")));

        CleanupSettings shipped = settings();
        shipped.script = CleanupSettings::Script::Shipped;
        runner.setSettings(shipped);
        outcome = runToEnd(runner, [&] { runner.startDryRun(); });
        QVERIFY2(outcome.failure.isEmpty(), qPrintable(outcome.failure));
        QCOMPARE(outcome.exitCode, 0);
        QVERIFY(runner.scriptRan().known && runner.scriptRan().shipped);
        QCOMPARE(runner.scriptRan().sha256, CleanupRunner::shippedScriptSha256());
        const auto deletions = [](const CleanupPlan &plan) {
            QStringList paths;
            for (const CleanupItem &item : plan.itemsWith(CleanupItem::Action::Delete))
                paths << item.path;
            paths.sort();
            return paths;
        };
        QCOMPARE(deletions(ownItems(runner.result())), deletions(m_dryRun));
        // The shipped copy is not left behind in the sandbox.
        QVERIFY(
            shell(Identity {}, QStringLiteral("ls /tmp | grep -c '^sandscope-cleanup-' || true"))
                .value(0)
                .trimmed()
            == QLatin1String("0"));

        QStringList common {QStringLiteral("--home-root"), QStringLiteral("/home")};
        if (usesAdminCommand())
            common << QStringLiteral("--admin-exec") << QStringLiteral("sudo -n");
        const CliOutcome refused
            = cli(common + QStringList {QStringLiteral("--script"), missingPath});
        QCOMPARE(refused.exitCode, 3);
        QVERIFY2(refused.err.contains(QLatin1String("no cleanup script at ") + missingPath),
            qPrintable(refused.err));
        const CliOutcome ran = cli(common + QStringList {QStringLiteral("--shipped-script")});
        QVERIFY2(ran.exitCode == 0, qPrintable(ran.err));
        QVERIFY2(QString::fromUtf8(ran.out).contains(
                     QLatin1String("Script: the copy of cleanup.sh Sandscope ")),
            ran.out.constData());
        QVERIFY(QString::fromUtf8(ran.out).contains(CleanupRunner::shippedScriptSha256().left(12)));
    }

    // The Users overview (`chats` without --user) through the same channel: every test
    // account with its chats, sessions and disk use.
    void overviewListsEveryAccountWithItsSessionsAndDisk()
    {
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("SANDSCOPE_API_KEY"), m_server->apiKey());
        process.setProcessEnvironment(env);
        QStringList arguments {QStringLiteral("chats"), QStringLiteral("--server"),
            m_server->url().toString(), QStringLiteral("--json")};
        if (usesAdminCommand())
            arguments << QStringLiteral("--admin-exec") << QStringLiteral("sudo -n");
        process.start(QStringLiteral(SANDSCOPE_BINARY), arguments);
        QVERIFY(process.waitForFinished(180000));
        const QString err = QString::fromUtf8(process.readAllStandardError());
        QVERIFY2(process.exitCode() == 0, qPrintable(err));
        QHash<QString, QJsonObject> accounts;
        const QJsonArray list = QJsonDocument::fromJson(process.readAllStandardOutput())
                                    .object()
                                    .value(QLatin1String("accounts"))
                                    .toArray();
        for (const QJsonValue &account : list)
            accounts.insert(
                account.toObject().value(QLatin1String("account")).toString(), account.toObject());
        const QJsonObject alice = accounts.value(m_aliceHome.mid(6));
        const QJsonObject bob = accounts.value(m_bobHome.mid(6));
        QCOMPARE(alice.value(QLatin1String("chat_count")).toInt(), 3);
        QCOMPARE(alice.value(QLatin1String("sessions")).toInt(), 0);
        QCOMPARE(bob.value(QLatin1String("sessions")).toInt(), 2);
        // Disk use measured independently as root.
        const QStringList du
            = shell(Identity {}, QStringLiteral("du -sb '%1' | cut -f1").arg(m_bobHome));
        QCOMPARE(qint64(bob.value(QLatin1String("disk_bytes")).toDouble()),
            du.value(0).trimmed().toLongLong());
        QVERIFY(bob.value(QLatin1String("running_sessions")).toInt() <= 1);
    }

    void anUnwritableAuditLogRefusesTheExecutionAndDeletesNothing()
    {
        const CleanupPlan reviewed = m_dryRun.filtered(
            [](const CleanupItem &item) { return item.action == CleanupItem::Action::Delete; });
        QVERIFY(!reviewed.items().isEmpty());
        // A folder where the log file should be: not writable, even as root.
        const QString unwritable = m_local.filePath(QStringLiteral("audit-is-a-folder"));
        QVERIFY(QDir().mkpath(unwritable));
        qputenv("SANDSCOPE_AUDIT_LOG", unwritable.toUtf8());
        OpenTerminalClient client(m_server->connection());
        CleanupRunner runner(&client);
        runner.setSettings(settings());
        runner.setAdminAccess(m_admin);
        const RunOutcome outcome = runToEnd(runner, [&] { runner.startExecute(reviewed); });
        qputenv("SANDSCOPE_AUDIT_LOG", m_auditPath.toUtf8());
        QVERIFY2(outcome.failure.contains(unwritable), qPrintable(outcome.failure));
        QVERIFY2(outcome.failure.contains(QLatin1String("Nothing was deleted")),
            qPrintable(outcome.failure));
        QCOMPARE(outcome.exitCode, -1);
        for (const CleanupItem &item : reviewed.items())
            QVERIFY2(exists(item.path), qPrintable(item.path));
    }

    void executingTheReviewedPlanDeletesItAndSkipsAChangedItem()
    {
        QVERIFY(!m_dryRun.items().isEmpty());
        const CleanupPlan reviewed = m_dryRun.filtered(
            [](const CleanupItem &item) { return item.action == CleanupItem::Action::Delete; });
        QCOMPARE(reviewed.items().size(), 3);
        // Alice keeps working in one chat after the review.
        shell(m_alice, QStringLiteral("printf more >> /home/$(id -un)/chat-changing/sub/a.txt"));
        const qsizetype auditBefore = auditLines().size();

        OpenTerminalClient client(m_server->connection());
        CleanupRunner runner(&client);
        runner.setSettings(settings());
        runner.setAdminAccess(m_admin);
        runner.setAuditContext(QStringLiteral("test"), m_server->url().toString());
        const RunOutcome outcome = runToEnd(runner, [&] { runner.startExecute(reviewed); });
        QVERIFY2(outcome.failure.isEmpty(), qPrintable(outcome.failure));
        QCOMPARE(outcome.exitCode, 4); // some item was skipped
        QCOMPARE(runner.result().summary().mode, QStringLiteral("execute"));
        QHash<QString, QString> outcomes;
        for (const CleanupItem &item : runner.result().items())
            outcomes.insert(item.path, item.outcome);
        QCOMPARE(outcomes.size(), 3);
        QCOMPARE(
            outcomes.value(m_aliceHome + QStringLiteral("/chat-old")), QStringLiteral("deleted"));
        QCOMPARE(outcomes.value(m_aliceHome + QStringLiteral("/chat-changing")),
            QStringLiteral("skipped-changed"));
        const QString session = m_bobHome + QStringLiteral("/.claude/projects/-home-x-chat-demo/")
            + sessionId + QStringLiteral(".jsonl");
        QCOMPARE(outcomes.value(session), QStringLiteral("deleted"));

        QVERIFY(!exists(m_aliceHome + QStringLiteral("/chat-old")));
        QVERIFY(!exists(session));
        QVERIFY(!exists(
            m_bobHome + QStringLiteral("/.claude/projects/-home-x-chat-demo/") + sessionId));
        QVERIFY(exists(m_aliceHome + QStringLiteral("/chat-changing")));
        QVERIFY(exists(m_aliceHome + QStringLiteral("/chat-new")));
        // The uploaded plan was removed again.
        QCOMPARE(shell(Identity {},
                     QStringLiteral("ls /tmp | grep -c '^sandscope-cleanup-plan-' || true"))
                     .value(0)
                     .trimmed(),
            QStringLiteral("0"));

        // One entry before the plan left, one with the outcome.
        const QList<QJsonObject> audit = auditLines();
        QCOMPARE(audit.size(), auditBefore + 2);
        const QJsonObject started = audit.at(auditBefore);
        const QJsonObject ended = audit.at(auditBefore + 1);
        for (const QJsonObject &entry : {started, ended}) {
            QCOMPARE(
                entry.value(QLatin1String("action")).toString(), QStringLiteral("cleanup-execute"));
            QVERIFY2(entry.value(QLatin1String("target"))
                         .toString()
                         .contains(QLatin1String("with a plan of 3 item")),
                qPrintable(entry.value(QLatin1String("target")).toString()));
        }
        QVERIFY2(started.value(QLatin1String("result"))
                     .toString()
                     .startsWith(QLatin1String("starting: nothing deleted yet")),
            qPrintable(started.value(QLatin1String("result")).toString()));
        QVERIFY2(ended.value(QLatin1String("result"))
                     .toString()
                     .contains(QLatin1String("2 deleted, 1 skipped-changed")),
            qPrintable(ended.value(QLatin1String("result")).toString()));
    }

    void cliListsSavesAndExecutesAReviewedPlan()
    {
        makeChat(m_bob, QStringLiteral("chat-cli"), 45);
        const QString planFile = m_local.filePath(QStringLiteral("plan.jsonl"));
        QStringList common {QStringLiteral("--script"), scriptPath(), QStringLiteral("--home-root"),
            QStringLiteral("/home")};
        if (usesAdminCommand())
            common << QStringLiteral("--admin-exec") << QStringLiteral("sudo -n");
        const CliOutcome listed = cli(common
            + QStringList {QStringLiteral("--json"), QStringLiteral("--save-plan"), planFile});
        QVERIFY2(listed.exitCode == 0, qPrintable(listed.err));
        QVERIFY2(listed.err.contains(usesAdminCommand()
                         ? QLatin1String("as root through the admin command \"sudo -n sh -s\"")
                         : QLatin1String("as the open-terminal server account")),
            qPrintable(listed.err));
        QFile saved(planFile);
        QVERIFY(saved.open(QIODevice::ReadOnly));
        const QByteArray savedBytes = saved.readAll();
        QCOMPARE(savedBytes, listed.out); // --json prints the script's lines unchanged
        const CleanupPlan plan = ownItems(CleanupPlan::parse(savedBytes));
        const QString chat = m_bobHome + QStringLiteral("/chat-cli");

        // The review: only this test's chat-cli stays in the plan.
        const QByteArray ownUser = QByteArray("\"user\":\"") + m_server->prefix().toUtf8();
        const QByteArray chatPath = QByteArray("\"path\":\"") + chat.toUtf8() + '"';
        QByteArray reviewed;
        for (const QByteArray &line : savedBytes.split('\n')) {
            if (line.contains(ownUser) && line.contains(chatPath))
                reviewed += line + '\n';
        }
        QCOMPARE(reviewed.count('\n'), 1);
        QVERIFY(reviewed.contains("\"action\":\"delete\""));
        const QString reviewedFile = m_local.filePath(QStringLiteral("reviewed.jsonl"));
        QFile out(reviewedFile);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(reviewed);
        out.close();

        const CliOutcome unconfirmed = cli(common
            + QStringList {QStringLiteral("--execute"), QStringLiteral("--plan"), reviewedFile});
        QCOMPARE(unconfirmed.exitCode, 2);
        QVERIFY2(unconfirmed.err.contains(QLatin1String("--yes")), qPrintable(unconfirmed.err));
        QVERIFY(exists(chat));

        const CliOutcome executed = cli(common
            + QStringList {QStringLiteral("--execute"), QStringLiteral("--plan"), reviewedFile,
                QStringLiteral("--yes")});
        QVERIFY2(executed.exitCode == 0, qPrintable(executed.err));
        const QString text = QString::fromUtf8(executed.out);
        QVERIFY2(text.contains(QLatin1String("-> deleted")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("Outcomes: 1 deleted")), qPrintable(text));
        QVERIFY(!exists(chat));
        QVERIFY(exists(m_aliceHome + QStringLiteral("/chat-new")));
    }

    void newerServerRefusesRequestsWithoutAUserIdClearly()
    {
        RealServer newer(
            RealServer::pinnedVersion("OPEN_TERMINAL_VERSION"), RealServer::Mode::MultiUser);
        QString error;
        QVERIFY2(newer.start(&error), qPrintable(error));
        OpenTerminalClient client(newer.connection());
        CleanupRunner runner(&client);
        runner.setSettings(settings());
        const RunOutcome outcome = runToEnd(runner, [&] { runner.startDryRun(); });
        QVERIFY(outcome.finished);
        QVERIFY2(
            outcome.failure.contains(QLatin1String("X-User-Id is required in multi-user mode")),
            qPrintable(outcome.failure));
        QVERIFY(outcome.failure.contains(QLatin1String("refuses requests without X-User-Id")));
        QCOMPARE(runner.result().items().size(), 0);
    }
};

QTEST_GUILESS_MAIN(CleanupIntegration)
#include "tst_cleanup.moc"
