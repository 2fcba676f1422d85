// `sandscope usage` against a REAL multi-user open-terminal (the pinned OPEN_TERMINAL_VERSION):
// recorded transcripts (tests/data/transcripts, a sub-agent's file included) put into two real
// users' homes give, per user and day, the figures computed here from the same files with
// QJsonDocument (usageexpectation.h): as the user (--user, JSON and CSV), and for every home
// as root through `sudo -n` (--all-users), which is audited.

#include "realserver.h"
#include "sandscopecli.h"
#include "server/openterminalclient.h"
#include "testing.h"
#include "transcripthome.h"
#include "usage/usagereport.h"
#include "usageexpectation.h"

#include <QJsonArray>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace sandscope;
using namespace sandscope::test;

namespace {

QByteArray diagnostics(const CliOutcome &run)
{
    return "exit " + QByteArray::number(run.exitCode) + "\n--- stdout:\n" + run.out.left(4000)
        + "\n--- stderr:\n" + run.err.left(3000);
}

// The rows of `user` in a usage JSON against the independent figures.
void compareRows(const QJsonObject &json, const QString &user, ExpectedUsage expected)
{
    expected.finish();
    int rows = 0;
    for (const QJsonValue &value : json.value(QLatin1String("days")).toArray()) {
        const QJsonObject day = value.toObject();
        if (day.value(QLatin1String("user")).toString() != user)
            continue;
        ++rows;
        const QDate date
            = QDate::fromString(day.value(QLatin1String("day")).toString(), Qt::ISODate);
        QVERIFY2(expected.days.contains(date), qPrintable(date.toString()));
        const ExpectedDay want = expected.days.value(date);
        const auto number = [&day](const char *key) {
            return qint64(day.value(QLatin1String(key)).toDouble());
        };
        QCOMPARE(number("sessions"), qint64(want.sessions.size()));
        QCOMPARE(number("turns"), want.turns);
        QCOMPARE(number("tool_calls"), want.toolCalls);
        QCOMPARE(number("errors"), want.errors);
        QCOMPARE(number("input_tokens"), want.input);
        QCOMPARE(number("output_tokens"), want.output);
        QCOMPARE(number("cache_read_tokens"), want.cacheRead);
        QCOMPARE(number("cache_creation_tokens"), want.cacheCreation);
        QVERIFY(qAbs(day.value(QLatin1String("cost_usd")).toDouble() - want.cost) < 1e-9);
    }
    QCOMPARE(rows, expected.days.size());
    QVERIFY(rows > 0);
}

} // namespace

class UsageServerTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QString why;
        if (!RealServer::canRunMultiUser(&why))
            return; // each test reports the requirement
        m_server = std::make_unique<RealServer>(
            RealServer::pinnedVersion("OPEN_TERMINAL_VERSION"), RealServer::Mode::MultiUser);
        QString error;
        QVERIFY2(m_server->start(&error), qPrintable(error));
        m_client = std::make_unique<OpenTerminalClient>(m_server->connection());
        QVERIFY(m_local.isValid());
        for (const QString &stem : {QStringLiteral("usea"), QStringLiteral("useb")}) {
            const QString suffix = randomToken(6, true);
            m_users.append(Identity {stem + suffix, stem + QLatin1String("-session-") + suffix});
        }
        // Each home gets its scenarios, owned by its user as the CLI would have written them.
        const QList<QStringList> scenarios {
            {QStringLiteral("subagent"), QStringLiteral("tool-error"), QStringLiteral("resume")},
            {QStringLiteral("bash"), QStringLiteral("parallel")}};
        for (int i = 0; i < m_users.size(); ++i) {
            const QString home = shellLines(m_client.get(), m_users[i], QStringLiteral("pwd -P"))
                                     .value(0)
                                     .trimmed();
            QVERIFY2(home.startsWith(QLatin1Char('/')), qPrintable(home));
            m_homes.append(home);
            m_accounts.append(home.mid(home.lastIndexOf(QLatin1Char('/')) + 1));
            for (const QString &scenario : scenarios.at(i))
                QVERIFY(!installRecordedScenario(home, scenario, 120).isEmpty());
            QCOMPARE(QProcess::execute(QStringLiteral("chown"),
                         {QStringLiteral("-R"), m_accounts.last() + QLatin1Char(':'),
                             home + QStringLiteral("/.claude")}),
                0);
        }
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_server.reset();
    }

    void oneUserAsJsonAndCsv()
    {
        SANDSCOPE_REQUIRE(
            m_server != nullptr, "needs root, sudo and useradd (multi-user open-terminal)");
        const QStringList connection {QStringLiteral("--server"), m_server->url().toString(),
            QStringLiteral("--user"), m_users.at(0).userId};
        const CliOutcome json = runCli(QStringList {QStringLiteral("usage")} + connection
            + QStringList {QStringLiteral("--json")});
        QVERIFY2(json.exitCode == 0, diagnostics(json));
        const QJsonObject report = QJsonDocument::fromJson(json.out).object();
        QCOMPARE(report.value(QLatin1String("type")).toString(), QStringLiteral("sandscope_usage"));
        QVERIFY(report.value(QLatin1String("skipped")).toArray().isEmpty());
        ExpectedUsage expected;
        expected.addProjects(projectsDirectory(m_homes.at(0)));
        compareRows(report, m_users.at(0).userId, expected);
        // The top tools: the sub-agent's Bash call and the failed one are counted.
        expected.finish();
        for (const QJsonValue &value : report.value(QLatin1String("tools")).toArray()) {
            const QJsonObject tool = value.toObject();
            const ExpectedTool want
                = expected.tools.value(tool.value(QLatin1String("name")).toString());
            QCOMPARE(qint64(tool.value(QLatin1String("calls")).toDouble()), want.calls);
            QCOMPARE(qint64(tool.value(QLatin1String("errors")).toDouble()), want.errors);
        }
        QVERIFY(expected.tools.value(QStringLiteral("Bash")).errors > 0);
        QVERIFY2(!json.out.contains(m_server->apiKey().toUtf8()), "the key must not be printed");

        const CliOutcome csv = runCli(QStringList {QStringLiteral("usage")} + connection
            + QStringList {QStringLiteral("--csv")});
        QVERIFY2(csv.exitCode == 0, diagnostics(csv));
        const QStringList lines
            = QString::fromUtf8(csv.out).trimmed().split(QStringLiteral("\r\n"));
        QVERIFY(lines.value(0).startsWith(QLatin1String("user,day,sessions,turns,tool_calls")));
        QCOMPARE(lines.size() - 1, expected.days.size());

        // The tools as CSV: the same calls per tool as counted from the transcripts.
        const CliOutcome toolsCsv = runCli(QStringList {QStringLiteral("usage")} + connection
            + QStringList {QStringLiteral("--csv-tools")});
        QVERIFY2(toolsCsv.exitCode == 0, diagnostics(toolsCsv));
        const QStringList toolRows
            = QString::fromUtf8(toolsCsv.out).trimmed().split(QStringLiteral("\r\n"));
        QCOMPARE(toolRows.value(0), UsageReport::toolsCsvHeader().join(QLatin1Char(',')));
        QCOMPARE(toolRows.size() - 1, expected.tools.size());
        for (const QString &row : toolRows.mid(1)) {
            const QStringList fields = row.split(QLatin1Char(','));
            QCOMPARE(fields.value(1).toLongLong(), expected.tools.value(fields.value(0)).calls);
            QCOMPARE(fields.value(2).toLongLong(), expected.tools.value(fields.value(0)).errors);
        }

        const CliOutcome future = runCli(QStringList {QStringLiteral("usage")} + connection
            + QStringList {
                QStringLiteral("--since"), QStringLiteral("2999-01-01"), QStringLiteral("--json")});
        QVERIFY2(future.exitCode == 0, diagnostics(future));
        QVERIFY(QJsonDocument::fromJson(future.out)
                    .object()
                    .value(QLatin1String("days"))
                    .toArray()
                    .isEmpty());
    }

    void everyUserThroughSudoIsAudited()
    {
        SANDSCOPE_REQUIRE(
            m_server != nullptr, "needs root, sudo and useradd (multi-user open-terminal)");
        const CliOutcome everyone = runCli({QStringLiteral("usage"), QStringLiteral("--server"),
            m_server->url().toString(), QStringLiteral("--all-users"),
            QStringLiteral("--admin-exec"), QStringLiteral("sudo -n"), QStringLiteral("--json")});
        QVERIFY2(everyone.exitCode == 0, diagnostics(everyone));
        QVERIFY2(everyone.err.contains("\"sudo -n sh -s\""), diagnostics(everyone));
        const QJsonObject report = QJsonDocument::fromJson(everyone.out).object();
        QVERIFY(report.value(QLatin1String("all_users")).toBool());
        for (int i = 0; i < m_users.size(); ++i) {
            ExpectedUsage expected;
            expected.addProjects(projectsDirectory(m_homes.at(i)));
            compareRows(report, m_accounts.at(i), expected);
        }
        QFile audit(m_local.filePath(QStringLiteral("audit.jsonl")));
        QVERIFY(audit.open(QIODevice::ReadOnly));
        QVERIFY(audit.readAll().contains("\"usage-all-users\""));
    }

    // Issue 25: the Usage tab names the acting user by its user id and the other homes by
    // account (UsageReport::nameUsers); `usage --all-users --user ID` names them the same way,
    // the same in every row: the rows of every home, each renamed as the tab renames it.
    void everyUserNamesTheActingUserAsTheUsageTabDoes()
    {
        SANDSCOPE_REQUIRE(
            m_server != nullptr, "needs root, sudo and useradd (multi-user open-terminal)");
        const QStringList everyone {QStringLiteral("usage"), QStringLiteral("--server"),
            m_server->url().toString(), QStringLiteral("--all-users"),
            QStringLiteral("--admin-exec"), QStringLiteral("sudo -n"), QStringLiteral("--json")};
        const CliOutcome byAccount = runCli(everyone);
        QVERIFY2(byAccount.exitCode == 0, diagnostics(byAccount));
        const CliOutcome named
            = runCli(everyone + QStringList {QStringLiteral("--user"), m_users.at(0).userId});
        QVERIFY2(named.exitCode == 0, diagnostics(named));
        const QJsonArray before = QJsonDocument::fromJson(byAccount.out)
                                      .object()
                                      .value(QLatin1String("days"))
                                      .toArray();
        const QJsonArray after
            = QJsonDocument::fromJson(named.out).object().value(QLatin1String("days")).toArray();
        QVERIFY(!before.isEmpty());
        QCOMPARE(after.size(), before.size());
        QSet<QString> names;
        for (int row = 0; row < before.size(); ++row) {
            QJsonObject want = before.at(row).toObject();
            const QString account = want.value(QLatin1String("user")).toString();
            if (account == m_accounts.at(0))
                want.insert(QStringLiteral("user"), m_users.at(0).userId);
            QCOMPARE(after.at(row).toObject(), want);
            names.insert(after.at(row).toObject().value(QLatin1String("user")).toString());
        }
        // The acting user by its id, the other user by its account; neither by anything else.
        QVERIFY2(names.contains(m_users.at(0).userId),
            qPrintable(names.values().join(QLatin1Char(','))));
        QVERIFY2(
            names.contains(m_accounts.at(1)), qPrintable(names.values().join(QLatin1Char(','))));
        QVERIFY(!names.contains(m_accounts.at(0)));
        QVERIFY(!names.contains(m_users.at(1).userId) || m_users.at(1).userId == m_accounts.at(1));
    }

private:
    CliOutcome runCli(const QStringList &arguments) const
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("SANDSCOPE_API_KEY"), m_server->apiKey());
        environment.insert(
            QStringLiteral("SANDSCOPE_AUDIT_LOG"), m_local.filePath(QStringLiteral("audit.jsonl")));
        environment.insert(
            QStringLiteral("XDG_DATA_HOME"), m_local.filePath(QStringLiteral("data")));
        environment.insert(
            QStringLiteral("XDG_CONFIG_HOME"), m_local.filePath(QStringLiteral("config")));
        return runSandscope(arguments, environment);
    }

    std::unique_ptr<RealServer> m_server;
    std::unique_ptr<OpenTerminalClient> m_client;
    QTemporaryDir m_local;
    QList<Identity> m_users;
    QStringList m_homes;
    QStringList m_accounts;
};

QTEST_GUILESS_MAIN(UsageServerTest)
#include "tst_usage_server.moc"
