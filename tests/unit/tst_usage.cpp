// Usage over time: the usage script run by the local sh against fake homes made from the
// recorded transcripts (tests/data/transcripts, sub-agents and a fork included), added up by
// UsageAggregator, must give the figures computed here straight from the same files with
// QJsonDocument (usageexpectation.h): per day, per user, the top tools; damaged lines are
// skipped and reported; the models under QAbstractItemModelTester; CSV and JSON output.

#include "fleet/fleetfanout.h"
#include "testing.h"
#include "transcripthome.h"
#include "usage/usageaggregator.h"
#include "usage/usagecollector.h"
#include "usage/usagefacts.h"
#include "usage/usagemodel.h"
#include "usage/usagetoolsmodel.h"
#include "usageexpectation.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest>

using namespace sandscope;
using namespace sandscope::test;

namespace {

const QStringList scenarios {QStringLiteral("bash"), QStringLiteral("compact"),
    QStringLiteral("fork"), QStringLiteral("parallel"), QStringLiteral("resume"),
    QStringLiteral("subagent"), QStringLiteral("tool-error")};

UsageReport reportOf(const ShellOutput &output, const QString &user, bool *ok)
{
    UsageAggregator aggregator;
    *ok = output.exitCode == 0 && usagefacts::parse(output.out, user, &aggregator);
    if (!*ok)
        qWarning().noquote() << "usage script failed:" << output.exitCode << output.err;
    return aggregator.report();
}

// Installs each "user/scenario" into <root>/<user>; false when one could not be written.
bool installHomes(const QString &root, const QStringList &userScenarios)
{
    for (const QString &pair : userScenarios) {
        const QString home = root + QLatin1Char('/') + pair.section(QLatin1Char('/'), 0, 0);
        if (installRecordedScenario(home, pair.section(QLatin1Char('/'), 1), 60).isEmpty())
            return false;
    }
    return true;
}

UsageReport everyHomeReport(const QString &root, bool *ok)
{
    return reportOf(runInHome(usagefacts::allUsersScript(root), root), QString(), ok);
}

// Rewrites the cache counts of every usage in the files under `projects` to values that grow
// from record to record (the records of one response then differ: the largest counts).
bool giveCacheTokens(const QString &projects)
{
    qint64 next = 1000;
    QDirIterator it(
        projects, {QStringLiteral("*.jsonl")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return false;
        QList<QByteArray> lines = file.readAll().split('\n');
        file.close();
        for (QByteArray &line : lines) {
            line.replace("\"cache_read_input_tokens\":0,",
                QByteArray("\"cache_read_input_tokens\":" + QByteArray::number(next += 7) + ','));
            line.replace("\"cache_creation_input_tokens\":0,",
                QByteArray(
                    "\"cache_creation_input_tokens\":" + QByteArray::number(next += 3) + ','));
        }
        if (!writeFile(path, lines.join('\n')))
            return false;
    }
    return true;
}

// Sandscope's figures of one user against the independent ones, day by day.
void compare(const UsageReport &report, const QString &user, ExpectedUsage expected)
{
    expected.finish();
    QVector<UsageDay> days;
    for (const UsageDay &day : report.days)
        if (day.user == user)
            days.append(day);
    QCOMPARE(days.size(), expected.days.size());
    for (const UsageDay &day : days) {
        QVERIFY2(expected.days.contains(day.day), qPrintable(day.day.toString()));
        const ExpectedDay want = expected.days.value(day.day);
        QCOMPARE(day.sessions, qint64(want.sessions.size()));
        QCOMPARE(day.turns, want.turns);
        QCOMPARE(day.toolCalls, want.toolCalls);
        QCOMPARE(day.errors, want.errors);
        QCOMPARE(day.inputTokens, want.input);
        QCOMPARE(day.outputTokens, want.output);
        QCOMPARE(day.cacheReadTokens, want.cacheRead);
        QCOMPARE(day.cacheCreationTokens, want.cacheCreation);
        QVERIFY2(qAbs(day.costUsd - want.cost) < 1e-9,
            qPrintable(QStringLiteral("%1 != %2").arg(day.costUsd).arg(want.cost)));
    }
}

} // namespace

class TestUsage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void oneUserEqualsIndependentSums_data()
    {
        QTest::addColumn<QString>("shell");
        QTest::addColumn<QStringList>("installed");
        QTest::addColumn<bool>("cacheTokens");
        QTest::newRow("sh, every scenario") << QStringLiteral("sh") << scenarios << false;
        if (!QStandardPaths::findExecutable(QStringLiteral("bash")).isEmpty())
            QTest::newRow("bash, every scenario") << QStringLiteral("bash") << scenarios << false;
        QTest::newRow("sub-agent only")
            << QStringLiteral("sh") << QStringList {QStringLiteral("subagent")} << false;
        QTest::newRow("fork only (copied history once)")
            << QStringLiteral("sh") << QStringList {QStringLiteral("fork")} << false;
        QTest::newRow("cache tokens, growing per record")
            << QStringLiteral("sh") << scenarios << true;
    }

    void oneUserEqualsIndependentSums()
    {
        QFETCH(QString, shell);
        QFETCH(QStringList, installed);
        QFETCH(bool, cacheTokens);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString home = dir.filePath(QStringLiteral("alice"));
        for (const QString &scenario : installed)
            QVERIFY(!installRecordedScenario(home, scenario, 60).isEmpty());
        if (cacheTokens) // the recorded model server reports none: give every record its own
            QVERIFY(giveCacheTokens(projectsDirectory(home)));
        bool ok = false;
        const UsageReport report
            = reportOf(runInHome(usagefacts::script(), home, shell), QStringLiteral("alice"), &ok);
        QVERIFY(ok);
        QVERIFY(report.skipped.isEmpty());
        ExpectedUsage expected;
        expected.addProjects(projectsDirectory(home));
        QCOMPARE(expected.unparsable, 0);
        compare(report, QStringLiteral("alice"), expected);
        expected.finish();
        const ExpectedDay total = expected.total();
        QVERIFY(total.turns > 0 && total.toolCalls > 0 && total.input > 0);
        QCOMPARE(total.cacheRead > 0 && total.cacheCreation > 0, cacheTokens);
        if (installed.contains(QStringLiteral("subagent"))) // the sub-agent's Bash call counts
            QVERIFY(expected.tools.value(QStringLiteral("Bash")).calls > 0
                && expected.tools.contains(QStringLiteral("Agent")));

        // Top tools: every name with its calls and failures.
        QCOMPARE(report.tools.size(), expected.tools.size());
        for (const ToolUsage &tool : report.tools) {
            QCOMPARE(tool.calls, expected.tools.value(tool.name).calls);
            QCOMPARE(tool.errors, expected.tools.value(tool.name).errors);
            QCOMPARE(tool.timedCalls, expected.tools.value(tool.name).answered);
            QVERIFY(tool.totalMs >= 0);
        }
        for (int i = 1; i < report.tools.size(); ++i)
            QVERIFY(report.tools[i - 1].calls >= report.tools[i].calls);
    }

    // A corrupt line in the middle and a last line cut short: counted what is there, and
    // said which lines were skipped.
    void damagedTranscriptCountsWhatItHas()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString home = dir.filePath(QStringLiteral("alice"));
        const QString path = installRecordedScenario(home, QStringLiteral("subagent"), 60);
        QVERIFY(!path.isEmpty());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QList<QByteArray> lines = file.readAll().split('\n');
        file.close();
        lines.insert(
            3, QByteArrayLiteral("{\"type\":\"assistant\",\"message\":{\"id\":\"x\" GARBAGE"));
        QByteArray bytes = lines.join('\n');
        bytes += QByteArrayLiteral("{\"parentUuid\":\"p\",\"type\":\"user\",\"message\":{\"role\":"
                                   "\"user\",\"content\":\"cut");
        QVERIFY(writeFile(path, bytes));

        bool ok = false;
        const UsageReport report
            = reportOf(runInHome(usagefacts::script(), home), QStringLiteral("alice"), &ok);
        QVERIFY(ok);
        ExpectedUsage expected;
        expected.addProjects(projectsDirectory(home));
        QCOMPARE(expected.unparsable, 2);
        compare(report, QStringLiteral("alice"), expected);
        QCOMPARE(report.skipped.size(), 2);
        QVERIFY(report.skipped.at(0).contains(QStringLiteral("line 4 ")));
        QVERIFY(report.skipped.at(0).startsWith(path));
        QCOMPARE(report.toJson().value(QLatin1String("skipped")).toArray().size(), 2);
    }

    // As root over every home: each home's account is a user with its own figures.
    void everyHomeIsAUser()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString root = dir.filePath(QStringLiteral("home"));
        QVERIFY(installHomes(root,
            {QStringLiteral("alice/subagent"), QStringLiteral("alice/bash"),
                QStringLiteral("bob/tool-error")}));
        QVERIFY(QDir().mkpath(root + QStringLiteral("/carol"))); // no sessions: no rows
        bool ok = false;
        const UsageReport report = everyHomeReport(root, &ok);
        QVERIFY(ok);
        QCOMPARE(report.users(), QStringList({QStringLiteral("alice"), QStringLiteral("bob")}));
        for (const QString &user : report.users()) {
            ExpectedUsage expected;
            expected.addProjects(projectsDirectory(root + QLatin1Char('/') + user));
            compare(report, user, expected);
        }
        QCOMPARE(report.sessions, qint64(3));
    }

    // A fleet's usage: two members, one of them slow to end (its admin command sleeps after the
    // listing), read through the fan-out. The figures come in partial reports before the slow
    // member ends; the final report is the members' own reports side by side: every row names
    // its member, the same user on both members has a row on each, and every figure of the
    // total is the sum of the members' (the user on both counted on both, never merged).
    void aFleetsUsageIsItsMembersSideBySide()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString rootA = dir.filePath(QStringLiteral("a"));
        const QString rootB = dir.filePath(QStringLiteral("b"));
        QVERIFY(
            installHomes(rootA, {QStringLiteral("alice/subagent"), QStringLiteral("bob/bash")}));
        QVERIFY(installHomes(
            rootB, {QStringLiteral("alice/tool-error"), QStringLiteral("carol/fork")}));
        bool ok = false;
        const UsageReport alone[] = {everyHomeReport(rootA, &ok), everyHomeReport(rootB, &ok)};
        QVERIFY(ok);

        // Each member lists its own homes: its admin command points the script at them.
        FleetConfig fleet;
        fleet.router = QUrl(QStringLiteral("http://router.invalid"));
        const QStringList commands {
            QStringLiteral("sh -c 'sed \"s#/home#%1#g\" | sh -s' --").arg(rootA),
            QStringLiteral("sh -c 'sed \"s#/home#%1#g\" | sh -s; sleep 2' --").arg(rootB)};
        for (int i = 0; i < 2; ++i) {
            FleetMember member;
            member.name = QStringLiteral("m%1").arg(i);
            member.url = QUrl(QStringLiteral("http://m%1.invalid").arg(i));
            QVERIFY(AdminAccess::fromCommand(commands.at(i), &member.admin));
            fleet.members.append(member);
        }
        FleetFanOut fanOut(fleet, ServerConnection {});
        UsageCollector collector;
        int partials = 0;
        bool done = false;
        UsageReport report;
        QSignalSpy failed(&collector, &UsageCollector::failed);
        connect(&collector, &UsageCollector::partialReport, this, [&] { ++partials; });
        connect(&collector, &UsageCollector::finished, this, [&](const UsageReport &final) {
            report = final;
            done = true;
        });
        collector.collectAllUsers(&fanOut);
        QTRY_VERIFY_WITH_TIMEOUT(done || !failed.isEmpty(), 30000);
        QVERIFY2(failed.isEmpty(), qPrintable(failed.value(0).value(0).toString()));
        QVERIFY2(partials > 0, "no figures before the slow member ended");
        QVERIFY(collector.memberErrors().isEmpty());

        QSet<QString> rows;
        for (const UsageDay &day : report.days)
            rows.insert(day.member + QLatin1Char('/') + day.user);
        for (int i = 0; i < 2; ++i)
            for (const UsageDay &day : alone[i].days)
                QVERIFY2(
                    rows.contains(QStringLiteral("m%1/").arg(i) + day.user), qPrintable(day.user));
        QVERIFY(
            rows.contains(QStringLiteral("m0/alice")) && rows.contains(QStringLiteral("m1/alice")));
        const UsageDay total = report.total();
        const UsageDay a = alone[0].total();
        const UsageDay b = alone[1].total();
        QCOMPARE(total.turns, a.turns + b.turns);
        QCOMPARE(total.toolCalls, a.toolCalls + b.toolCalls);
        QCOMPARE(total.errors, a.errors + b.errors);
        QCOMPARE(total.inputTokens, a.inputTokens + b.inputTokens);
        QCOMPARE(total.outputTokens, a.outputTokens + b.outputTokens);
        QCOMPARE(total.cacheReadTokens, a.cacheReadTokens + b.cacheReadTokens);
        QCOMPARE(report.sessions, alone[0].sessions + alone[1].sessions);
        QVERIFY(qAbs(total.costUsd - (a.costUsd + b.costUsd)) < 1e-9);
        qint64 calls = 0;
        for (const ToolUsage &tool : report.tools)
            calls += tool.calls;
        QCOMPARE(calls, total.toolCalls);
    }

    // Issue 25: Usage › All users named the account "ot_walkalic" "walkalic" (the prefix
    // stripped), neither the user id nor the account. The acting user is named by its id,
    // every other home by its account, the same in every row.
    void everyHomeIsNamedByUserIdWhereKnownElseByAccount()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString root = dir.filePath(QStringLiteral("home"));
        QVERIFY(installHomes(root,
            {QStringLiteral("ot_walkalic/subagent"), QStringLiteral("ot_walkalic/bash"),
                QStringLiteral("ot_bobsmith/tool-error")}));
        bool ok = false;
        UsageReport report = everyHomeReport(root, &ok);
        QVERIFY(ok);
        QVERIFY(report.days.size() >= 2);
        report.nameUsers(
            {QStringLiteral("walk-alice"), QStringLiteral("carol")}, QStringLiteral("ot_"));
        QCOMPARE(report.users(),
            QStringList({QStringLiteral("ot_bobsmith"), QStringLiteral("walk-alice")}));
        // Without the prefix known, the rule still finds the acting user's account.
        UsageReport again = everyHomeReport(root, &ok);
        again.nameUsers({QStringLiteral("walk-alice")}, QString());
        QCOMPARE(again.users(), report.users());
    }

    void sinceLeavesEarlierDaysOut()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString home = dir.filePath(QStringLiteral("alice"));
        QVERIFY(!installRecordedScenario(home, QStringLiteral("bash"), 60).isEmpty());
        const ShellOutput output = runInHome(usagefacts::script(), home);
        UsageAggregator aggregator;
        QVERIFY(usagefacts::parse(output.out, QStringLiteral("alice"), &aggregator));
        const UsageReport all = aggregator.report();
        QVERIFY(!all.days.isEmpty());
        const QDate first = all.days.first().day;
        QCOMPARE(aggregator.report(first).days.size(), all.days.size());
        QVERIFY(aggregator.report(first.addDays(1)).days.isEmpty());
        QVERIFY(aggregator.report(first.addDays(1)).tools.isEmpty());
    }

    void modelsAndCsv()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString root = dir.filePath(QStringLiteral("home"));
        QVERIFY(
            installHomes(root, {QStringLiteral("alice/subagent"), QStringLiteral("b,\"ob/bash")}));
        bool ok = false;
        const UsageReport report = everyHomeReport(root, &ok);
        QVERIFY(ok);
        QCOMPARE(report.days.size(), 2);

        UsageModel model;
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::Fatal);
        UsageToolsModel tools;
        QAbstractItemModelTester toolsTester(
            &tools, QAbstractItemModelTester::FailureReportingMode::Fatal);
        model.setReport(report);
        tools.setTools(report.tools);
        QCOMPARE(model.rowCount(), report.days.size());
        QCOMPARE(tools.rowCount(), report.tools.size());
        for (int row = 0; row < model.rowCount(); ++row) {
            const UsageDay &day = report.days.at(row);
            QCOMPARE(model.index(row, UsageModel::UserColumn).data().toString(), day.user);
            QCOMPARE(
                model.index(row, UsageModel::InputTokensColumn).data(Qt::EditRole).toLongLong(),
                day.inputTokens);
            QCOMPARE(model.index(row, UsageModel::ToolCallsColumn).data(Qt::EditRole).toLongLong(),
                day.toolCalls);
        }

        // CSV: the header row, then one row per user and day; a user name with a comma and
        // a quote comes back whole.
        const QList<QByteArray> csv = report.toCsv().trimmed().split('\n');
        QCOMPARE(csv.size(), report.days.size() + 1);
        QCOMPARE(QString::fromUtf8(csv.at(0).trimmed()),
            UsageReport::csvHeader().join(QLatin1Char(',')));
        QVERIFY(csv.at(2).startsWith("\"b,\"\"ob\","));
        const QList<QByteArray> alice = csv.at(1).trimmed().split(',');
        QCOMPARE(alice.size(), UsageReport::csvHeader().size());
        QCOMPARE(alice.at(6).toLongLong(), report.days.at(0).inputTokens);

        // The tools' CSV: a row per tool in the report's order, the mean over timed calls.
        const QList<QByteArray> toolRows = report.toolsCsv().trimmed().split('\n');
        QCOMPARE(toolRows.size(), report.tools.size() + 1);
        QCOMPARE(QString::fromUtf8(toolRows.at(0).trimmed()),
            UsageReport::toolsCsvHeader().join(QLatin1Char(',')));
        for (int i = 0; i < report.tools.size(); ++i) {
            const ToolUsage &tool = report.tools.at(i);
            const QList<QByteArray> fields = toolRows.at(i + 1).trimmed().split(',');
            QCOMPARE(QString::fromUtf8(fields.at(0)), tool.name);
            QCOMPARE(fields.at(1).toLongLong(), tool.calls);
            QCOMPARE(fields.at(3).toLongLong(), tool.timedCalls);
            QCOMPARE(fields.at(5).isEmpty(), tool.timedCalls == 0);
        }

        const QJsonObject json = report.toJson();
        QCOMPARE(json.value(QLatin1String("days")).toArray().size(), 2);
        QCOMPARE(qint64(json.value(QLatin1String("total"))
                            .toObject()
                            .value(QLatin1String("tool_calls"))
                            .toDouble()),
            report.days.at(0).toolCalls + report.days.at(1).toolCalls);
    }

    // The collector's failure path without a server: a context deleted on cancel means
    // nothing arrives afterwards.
    // A fleet's rows: one per member for a user with homes on two (never summed), the Member
    // column inserted and removed as a column while the rows stay.
    void fleetRowsHaveAMemberColumn()
    {
        UsageModel model;
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::Fatal);
        QCOMPARE(model.columnCount(), int(UsageModel::ColumnCount) - 1);
        QVERIFY(
            !model.headerData(UsageModel::MemberColumn, Qt::Horizontal, Qt::DisplayRole).isValid());
        UsageReport report;
        const QDate day(2026, 12, 1);
        for (const QString &member : {QStringLiteral("member-a"), QStringLiteral("member-b")}) {
            UsageDay row;
            row.user = QStringLiteral("alice");
            row.member = member;
            row.day = day;
            row.turns = member.endsWith(QLatin1Char('a')) ? 2 : 5;
            report.days.append(row);
        }
        model.setReport(report);
        QSignalSpy inserted(&model, &QAbstractItemModel::columnsInserted);
        model.setShowsMembers(true);
        QCOMPARE(inserted.size(), 1);
        model.setShowsMembers(true); // no change, no signal
        QCOMPARE(inserted.size(), 1);
        QCOMPARE(model.columnCount(), int(UsageModel::ColumnCount));
        QCOMPARE(model.headerData(UsageModel::MemberColumn, Qt::Horizontal, Qt::DisplayRole),
            QVariant(QStringLiteral("Member")));
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(
            model.index(0, UsageModel::MemberColumn).data().toString(), QStringLiteral("member-a"));
        QCOMPARE(
            model.index(1, UsageModel::MemberColumn).data().toString(), QStringLiteral("member-b"));
        QCOMPARE(model.index(1, UsageModel::TurnsColumn).data(Qt::EditRole).toLongLong(), 5);
        QVERIFY(!model.index(0, UsageModel::MemberColumn).data(Qt::TextAlignmentRole).isValid());
        // A partial report, then the whole one: the column stays.
        report.days.removeLast();
        model.setReport(report);
        QCOMPARE(model.columnCount(), int(UsageModel::ColumnCount));
        QCOMPARE(model.rowCount(), 1);
        QSignalSpy removed(&model, &QAbstractItemModel::columnsRemoved);
        model.setShowsMembers(false);
        QCOMPARE(removed.size(), 1);
        QCOMPARE(model.columnCount(), int(UsageModel::ColumnCount) - 1);
        QCOMPARE(model.rowCount(), 1);
    }

    void cancelledCollectorStaysQuiet()
    {
        UsageCollector collector;
        QSignalSpy cancelled(&collector, &UsageCollector::cancelled);
        collector.cancel(); // not running: nothing to cancel
        QCOMPARE(cancelled.size(), 0);
        QVERIFY(!collector.isRunning());
    }
};

QTEST_GUILESS_MAIN(TestUsage)
#include "tst_usage.moc"
