// CleanupPlan (parsing the JSON lines of sandbox/cleanup.sh, diff, saving, CSV),
// CleanupModel under QAbstractItemModelTester and CleanupFilterProxy. The round trip runs the
// real script locally on a temporary home tree: a saved plan must be accepted by it again.

#include "cleanup/cleanupmodel.h"
#include "cleanup/cleanupplan.h"
#include "cleanup/cleanuprunner.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace sandscope;

Q_DECLARE_METATYPE(QVector<sandscope::CleanupItem::Kind>)

namespace {

QByteArray itemLine(const char *action, const char *kind, const char *user, const QByteArray &path,
    qint64 bytes, qint64 ageDays)
{
    return QByteArray("{\"action\":\"") + action + "\",\"kind\":\"" + kind + "\",\"user\":\"" + user
        + "\",\"path\":\"" + path + "\",\"bytes\":" + QByteArray::number(bytes)
        + ",\"last_activity\":\"2026-08-21T12:35:03Z\",\"last_activity_epoch\":"
        + QByteArray::number(1787315703 - ageDays) + ",\"age_days\":" + QByteArray::number(ageDays)
        + ",\"reason\":\"because\"}";
}

const QByteArray summaryLine = "{\"summary\":true,\"mode\":\"dry-run\",\"home_root\":\"/home\","
                               "\"chat_ttl_days\":30,\"session_ttl_days\":90,"
                               "\"generated_at_epoch\":1795963457,\"chat_delete\":2,"
                               "\"chat_delete_bytes\":3000}";

QByteArray samplePlan()
{
    return itemLine("delete", "chat", "alice", "/home/alice/chat-old", 1000, 100) + '\n'
        + itemLine("keep", "chat", "alice", "/home/alice/chat-new", 50, 1) + '\n'
        + itemLine("delete", "session", "bob", "/home/bob/.claude/projects/p/s.jsonl", 2000, 200)
        + '\n' + itemLine("report", "other", "carol", "/home/carol/chat-link", 7, 3) + '\n'
        + itemLine("delete", "chat", "bob", "/home/bob/chat-\\u00ffx", 5000, 40) + '\n'
        + summaryLine + '\n';
}

QString scriptPath()
{
    return QFileInfo(QStringLiteral(SANDSCOPE_VERSIONS_FILE)).absolutePath()
        + QStringLiteral("/cleanup.sh");
}

} // namespace

class TestCleanupPlan : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parsesItemsAndSummary()
    {
        const CleanupPlan plan = CleanupPlan::parse(samplePlan());
        QVERIFY(plan.problems().isEmpty());
        QCOMPARE(plan.items().size(), 5);
        const CleanupItem &session = plan.items().at(2);
        QCOMPARE(session.action, CleanupItem::Action::Delete);
        QCOMPARE(session.kind, CleanupItem::Kind::Session);
        QCOMPARE(session.user, QStringLiteral("bob"));
        QCOMPARE(session.bytes, qint64(2000));
        QCOMPARE(session.ageDays, qint64(200));
        QCOMPARE(session.lastActivityEpoch, qint64(1787315703 - 200));
        QCOMPARE(session.currentBytes, qint64(-1));
        // \u00ff stands for the raw byte 0xff of the file name: shown as U+00FF.
        QCOMPARE(plan.items().at(4).path, QStringLiteral("/home/bob/chat-\u00ffx"));
        QVERIFY(plan.summary().present);
        QCOMPARE(plan.summary().mode, QStringLiteral("dry-run"));
        QCOMPARE(plan.summary().counts.value(QStringLiteral("chat_delete")), qint64(2));
        QCOMPARE(plan.summary().bytes.value(QStringLiteral("chat_delete")), qint64(3000));
        QCOMPARE(plan.totalBytes(CleanupItem::Action::Delete), qint64(8000));
        QCOMPARE(plan.itemsWith(CleanupItem::Action::Keep).size(), 1);
    }

    void reportsBadLinesAndKeepsGoing_data()
    {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<QString>("why");
        QTest::newRow("not json") << QByteArray("cleanup: something went wrong")
                                  << QStringLiteral("not JSON");
        QTest::newRow("array") << QByteArray("[1,2]") << QStringLiteral("not a JSON object");
        QTest::newRow("unknown action")
            << QByteArray("{\"action\":\"explode\",\"kind\":\"chat\",\"path\":\"/x\",\"bytes\":1,"
                          "\"last_activity_epoch\":1}")
            << QStringLiteral("action");
        QTest::newRow("bytes as text") << QByteArray(
            "{\"action\":\"delete\",\"kind\":\"chat\",\"path\":\"/x\",\"bytes\":\"1\","
            "\"last_activity_epoch\":1}")
                                       << QStringLiteral("bytes");
        QTest::newRow("truncated")
            << itemLine("delete", "chat", "a", "/home/a/chat-x", 1, 1).left(40)
            << QStringLiteral("not JSON");
    }
    void reportsBadLinesAndKeepsGoing()
    {
        QFETCH(QByteArray, line);
        QFETCH(QString, why);
        const QByteArray good = itemLine("delete", "chat", "a", "/home/a/chat-x", 1, 1);
        const CleanupPlan plan = CleanupPlan::parse(good + "\r\n\n" + line + '\n' + good + '\n');
        QCOMPARE(plan.items().size(), 2);
        QCOMPARE(plan.problems().size(), 1);
        QCOMPARE(plan.problems().constFirst().lineNumber, 3);
        QVERIFY2(plan.problems().constFirst().why.contains(why),
            qPrintable(plan.problems().constFirst().why));
    }

    void parsesOutcomes()
    {
        const QByteArray line
            = "{\"action\":\"delete\",\"kind\":\"chat\",\"user\":\"a\",\"path\":\"/home/a/"
              "chat-x\",\"bytes\":10,\"last_activity_epoch\":5,\"age_days\":40,"
              "\"reason\":\"r\",\"outcome\":\"skipped-changed\",\"message\":\"changed\","
              "\"current_bytes\":12,\"current_last_activity_epoch\":9}";
        const CleanupPlan plan = CleanupPlan::parse(line + '\n' + line);
        QCOMPARE(plan.items().size(), 2);
        QCOMPARE(plan.items().constFirst().outcome, QStringLiteral("skipped-changed"));
        QCOMPARE(plan.items().constFirst().currentBytes, qint64(12));
        QCOMPARE(plan.items().constFirst().currentLastActivityEpoch, qint64(9));
        QCOMPARE(plan.outcomeCounts().value(QStringLiteral("skipped-changed")), 2);
    }

    void readsIdentitiesAndKeysTwinsApart()
    {
        // Two folders whose names differ only in one byte: 0xff (not UTF-8) and U+00FF ("ÿ").
        // After re-serialising, both paths read the same; their identities differ.
        const QByteArray raw = "/home/bob/chat-\xffx";
        const QByteArray utf8 = "/home/bob/chat-\xc3\xbfx";
        const auto line = [](const QByteArray &bytes, const char *inode) -> QByteArray {
            return QByteArray("{\"action\":\"delete\",\"kind\":\"chat\",\"user\":\"bob\","
                              "\"path\":\"/home/bob/chat-\u00ffx\",\"identity\":\"2049:")
                + inode + ':' + bytes.toHex()
                + "\",\"bytes\":1,\"last_activity_epoch\":1,\"reason\":\"r\"}";
        };
        const CleanupPlan plan = CleanupPlan::parse(line(raw, "11") + '\n' + line(utf8, "12"));
        QVERIFY(plan.problems().isEmpty());
        QCOMPARE(plan.items().size(), 2);
        QCOMPARE(plan.items().at(0).path, plan.items().at(1).path);
        QCOMPARE(plan.items().at(0).pathBytes(), raw);
        QCOMPARE(plan.items().at(1).pathBytes(), utf8);
        QVERIFY(plan.items().at(0).key() != plan.items().at(1).key());
        QCOMPARE(plan.items().at(0).identity,
            QStringLiteral("2049:11:") + QString::fromLatin1(raw.toHex()));
        // The lines themselves are kept byte for byte (the plan the app uploads).
        QCOMPARE(plan.toBytes(), line(raw, "11") + '\n' + line(utf8, "12") + '\n');

        const CleanupPlan bad = CleanupPlan::parse(
            "{\"action\":\"delete\",\"kind\":\"chat\",\"path\":\"/x\",\"identity\":\"1:2:zz\","
            "\"bytes\":1,\"last_activity_epoch\":1}");
        QCOMPARE(bad.items().size(), 0);
        QCOMPARE(bad.problems().size(), 1);
        QVERIFY(bad.problems().constFirst().why.contains(QLatin1String("identity")));
    }

    void diffCountsAddedAndRemovedDeletions()
    {
        const CleanupPlan before = CleanupPlan::parse(samplePlan());
        const QByteArray afterText
            = itemLine("delete", "chat", "alice", "/home/alice/chat-old", 1100, 101)
            + '\n'
            // was "keep", now expired: added
            + itemLine("delete", "chat", "alice", "/home/alice/chat-new", 50, 31)
            + '\n'
            // the session is gone; bob's chat is kept now: both removed
            + itemLine("keep", "chat", "bob", "/home/bob/chat-\\u00ffx", 5000, 1) + '\n';
        const CleanupPlanDiff diff
            = CleanupPlanDiff::between(before, CleanupPlan::parse(afterText));
        QCOMPARE(diff.added.size(), 1);
        QCOMPARE(diff.added.constFirst().path, QStringLiteral("/home/alice/chat-new"));
        QCOMPARE(diff.addedBytes, qint64(50));
        QCOMPARE(diff.removed.size(), 2);
        QCOMPARE(diff.removedBytes, qint64(7000));
        QVERIFY(CleanupPlanDiff::between(before, before).isEmpty());
    }

    void savesLinesByteForByte()
    {
        QTemporaryDir dir;
        const QByteArray text = samplePlan();
        const CleanupPlan plan = CleanupPlan::parse(text);
        QCOMPARE(plan.toBytes(), text);
        const QString file = dir.filePath(QStringLiteral("plan.jsonl"));
        QString error;
        QVERIFY(plan.save(file, &error));
        QFile saved(file);
        QVERIFY(saved.open(QIODevice::ReadOnly));
        QCOMPARE(saved.readAll(), text);
        CleanupPlan loaded;
        QVERIFY(CleanupPlan::load(file, &loaded, &error));
        QCOMPARE(loaded.items().size(), plan.items().size());
        QCOMPARE(loaded.items().at(4).line, plan.items().at(4).line);

        // Dropping an item keeps every other line exactly.
        const CleanupPlan reviewed = plan.filtered(
            [](const CleanupItem &item) { return item.user != QLatin1String("alice"); });
        QByteArray expected;
        for (const QByteArray &line : text.split('\n')) {
            if (!line.isEmpty() && !line.contains("\"user\":\"alice\""))
                expected += line + '\n';
        }
        QCOMPARE(reviewed.toBytes(), expected);
        QVERIFY(!CleanupPlan::load(dir.filePath(QStringLiteral("missing")), &loaded, &error));
        QVERIFY(error.contains(QLatin1String("missing")));
    }

    void exportsCsv()
    {
        const QByteArray line
            = "{\"action\":\"delete\",\"kind\":\"chat\",\"user\":\"a\",\"path\":\"/home/a/"
              "chat-1,2\",\"bytes\":10,\"last_activity\":\"T\",\"last_activity_epoch\":5,"
              "\"age_days\":40,\"reason\":\"=cmd|' /C calc'!A0\"}";
        const QString csv = CleanupPlan::parse(line).toCsv();
        const QStringList rows = csv.split(QStringLiteral("\r\n"), Qt::SkipEmptyParts);
        QCOMPARE(rows.size(), 2);
        QCOMPARE(rows.at(0),
            QStringLiteral(
                "action,kind,user,path,bytes,last_activity,age_days,reason,outcome,message"));
        QCOMPARE(rows.at(1),
            QStringLiteral("delete,chat,a,\"/home/a/chat-1,2\",10,T,40,\"'=cmd|' /C calc'!A0\",,"));
    }

    void modelGroupsByUserWithTotals()
    {
        CleanupModel model;
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPlan(CleanupPlan::parse(samplePlan()));
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.itemCount(), 5);
        QCOMPARE(model.totalBytes(), qint64(8057));
        QCOMPARE(model.deleteBytes(), qint64(8000));
        const QModelIndex alice = model.index(0, 0);
        QCOMPARE(alice.data().toString(), QStringLiteral("alice"));
        QCOMPARE(model.rowCount(alice), 2);
        QCOMPARE(alice.data(CleanupModel::BytesRole).toLongLong(), qint64(1050));
        QCOMPARE(alice.data(CleanupModel::DeleteBytesRole).toLongLong(), qint64(1000));
        const QModelIndex bobSession = model.index(0, CleanupModel::SizeColumn, model.index(1, 0));
        QCOMPARE(bobSession.data().toString(), QStringLiteral("2.0 KiB"));
        QCOMPARE(bobSession.data(CleanupModel::SortRole).toLongLong(), qint64(2000));
        QCOMPARE(model.itemAt(bobSession)->kind, CleanupItem::Kind::Session);
        QCOMPARE(model.itemAt(alice), nullptr);

        // Streaming in: a new item of a known user updates its totals.
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.addItem(
            CleanupPlan::parse(itemLine("delete", "chat", "alice", "/home/alice/chat-3", 5, 50))
                .items()
                .constFirst());
        QCOMPARE(model.rowCount(alice), 3);
        QCOMPARE(alice.data(CleanupModel::DeleteBytesRole).toLongLong(), qint64(1005));
        QVERIFY(!changed.isEmpty());
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void proxyFiltersAndSorts_data()
    {
        QTest::addColumn<QVector<CleanupItem::Kind>>("kinds");
        QTest::addColumn<QString>("user");
        QTest::addColumn<qint64>("minimumBytes");
        QTest::addColumn<qint64>("minimumAge");
        QTest::addColumn<QStringList>("expectedPaths");
        QTest::newRow("everything")
            << QVector<CleanupItem::Kind>() << QString() << qint64(0) << qint64(0)
            << QStringList {QStringLiteral("/home/alice/chat-old"),
                   QStringLiteral("/home/alice/chat-new"),
                   QStringLiteral("/home/bob/.claude/projects/p/s.jsonl"),
                   QStringLiteral("/home/bob/chat-\u00ffx"),
                   QStringLiteral("/home/carol/chat-link")};
        QTest::newRow("sessions") << QVector<CleanupItem::Kind> {CleanupItem::Kind::Session}
                                  << QString() << qint64(0) << qint64(0)
                                  << QStringList {
                                         QStringLiteral("/home/bob/.claude/projects/p/s.jsonl")};
        QTest::newRow("user bob, big")
            << QVector<CleanupItem::Kind>() << QStringLiteral("BO") << qint64(3000) << qint64(0)
            << QStringList {QStringLiteral("/home/bob/chat-\u00ffx")};
        QTest::newRow("old chats")
            << QVector<CleanupItem::Kind> {CleanupItem::Kind::Chat} << QString() << qint64(0)
            << qint64(50) << QStringList {QStringLiteral("/home/alice/chat-old")};
        QTest::newRow("nothing") << QVector<CleanupItem::Kind>() << QStringLiteral("dave")
                                 << qint64(0) << qint64(0) << QStringList();
    }
    void proxyFiltersAndSorts()
    {
        QFETCH(QVector<CleanupItem::Kind>, kinds);
        QFETCH(QString, user);
        QFETCH(qint64, minimumBytes);
        QFETCH(qint64, minimumAge);
        QFETCH(QStringList, expectedPaths);
        CleanupModel model;
        model.setPlan(CleanupPlan::parse(samplePlan()));
        CleanupFilterProxy proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(
            &proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setKinds(kinds);
        proxy.setUserFilter(user);
        proxy.setMinimumBytes(minimumBytes);
        proxy.setMinimumAgeDays(minimumAge);
        QStringList paths;
        for (int userRow = 0; userRow < proxy.rowCount(); ++userRow) {
            const QModelIndex group = proxy.index(userRow, 0);
            QVERIFY(proxy.rowCount(group) > 0); // users without matching items are hidden
            for (int row = 0; row < proxy.rowCount(group); ++row)
                paths << proxy.index(row, 0, group).data().toString();
        }
        QCOMPARE(paths, expectedPaths);
    }

    void proxySortsSizesNumerically()
    {
        CleanupModel model;
        model.setPlan(CleanupPlan::parse(samplePlan()));
        CleanupFilterProxy proxy;
        proxy.setSourceModel(&model);
        proxy.sort(CleanupModel::SizeColumn, Qt::DescendingOrder);
        // "4.9 KiB" (bob, 7000 in total) before "1.0 KiB" (alice) before "7 B" (carol).
        QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("bob"));
        QCOMPARE(proxy.index(2, 0).data().toString(), QStringLiteral("carol"));
        const QModelIndex bob = proxy.index(0, 0);
        QCOMPARE(
            proxy.index(0, 0, bob).data().toString(), QStringLiteral("/home/bob/chat-\u00ffx"));
    }

    void commandQuotesSettingsAndCleansUpThePlan()
    {
        CleanupSettings settings;
        settings.chatTtlDays = 7;
        settings.scriptPath = QStringLiteral("/opt/it's cleanup.sh");
        settings.homeRoot = QStringLiteral("/home");
        const QString dryRun = CleanupRunner::command(settings);
        QVERIFY2(dryRun.contains(QLatin1String("script='/opt/it'\\''s cleanup.sh'\n")),
            qPrintable(dryRun));
        QVERIFY2(dryRun.contains(QLatin1String(
                     "env CHAT_TTL_DAYS='7' SESSION_TTL_DAYS='90' CLEANUP_FORMAT=json "
                     "HOME_ROOT='/home' bash \"$script\"")),
            qPrintable(dryRun));
        QVERIFY(dryRun.contains(QLatin1String("sudo -n")));
        QVERIFY(!dryRun.contains(QLatin1String("CLEANUP_DRY_RUN")));
        const QString execute = CleanupRunner::command(settings, QStringLiteral("/tmp/p.jsonl"));
        QVERIFY(
            execute.contains(QLatin1String("CLEANUP_DRY_RUN=false CLEANUP_PLAN='/tmp/p.jsonl'")));
        QVERIFY(execute.endsWith(QLatin1String("rm -f -- '/tmp/p.jsonl'; exit $status")));
        // The shipped copy is removed with the plan.
        settings.script = CleanupSettings::Script::Shipped;
        QVERIFY(CleanupRunner::command(settings, QStringLiteral("/tmp/p.jsonl"))
                    .endsWith(QLatin1String("rm -f -- '/tmp/p.jsonl' \"$script\"; exit $status")));
    }

    void savedPlanIsAcceptedByTheRealScript()
    {
        QTemporaryDir dir;
        const QString home = dir.filePath(QStringLiteral("home"));
        QProcess setup;
        setup.start(QStringLiteral("bash"),
            {QStringLiteral("-c"),
                QStringLiteral("set -e; mkdir -p \"$1/alice/chat-old\" \"$1/bob/chat-$(printf "
                               "'\\377')x\"; echo hi > \"$1/alice/chat-old/a\"; touch -d '100 "
                               "days ago' \"$1/alice/chat-old/a\" \"$1/alice/chat-old\" \"$1/bob/"
                               "chat-$(printf '\\377')x\""),
                QStringLiteral("setup"), home});
        QVERIFY(setup.waitForFinished());
        QCOMPARE(setup.exitCode(), 0);
        const auto runScript = [&](const QString &plan) {
            QProcess script;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("HOME_ROOT"), home);
            env.insert(QStringLiteral("CLEANUP_FORMAT"), QStringLiteral("json"));
            if (!plan.isEmpty())
                env.insert(QStringLiteral("CLEANUP_PLAN"), plan);
            script.setProcessEnvironment(env);
            script.start(QStringLiteral("bash"), {scriptPath()});
            script.waitForFinished();
            return CleanupPlan::parse(script.readAllStandardOutput());
        };
        const CleanupPlan dryRun = runScript({});
        QVERIFY(dryRun.problems().isEmpty());
        QCOMPARE(dryRun.itemsWith(CleanupItem::Action::Delete).size(), 2);
        const QString file = dir.filePath(QStringLiteral("plan.jsonl"));
        QString error;
        QVERIFY(dryRun.save(file, &error));
        const CleanupPlan checked = runScript(file);
        QCOMPARE(checked.summary().mode, QStringLiteral("check-plan"));
        QCOMPARE(checked.outcomeCounts().value(QStringLiteral("would-delete")), 2);
        // QDir cannot remove a name that is not valid UTF-8.
        QProcess::execute(QStringLiteral("rm"), {QStringLiteral("-rf"), home});
    }
};

QTEST_GUILESS_MAIN(TestCleanupPlan)
#include "tst_cleanupplan.moc"
