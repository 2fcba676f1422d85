// The Usage page against a REAL open-terminal server (the pinned version, single-user mode,
// whose home is local): the recorded transcripts of tests/data/transcripts are added up in the
// background and the table, the chart and the top tools show the figures computed here from
// the same files (usageexpectation.h); the models pass QAbstractItemModelTester; the CSV
// export is written and read back; "All users" reads every home through the admin command
// (audited through the hook); Cancel stops a collection and nothing arrives after it.

#include "realserver.h"
#include "server/openterminalclient.h"
#include "testing.h"
#include "transcripthome.h"
#include "usage/usagemodel.h"
#include "usage/usagepage.h"
#include "usage/usagetoolsmodel.h"
#include "usageexpectation.h"

#include <QAbstractItemModelTester>
#include <QProcess>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTemporaryDir>
#include <QUuid>
#include <QtTest>

#include <memory>

using namespace sandscope;
using namespace sandscope::test;

namespace {

constexpr int answerTimeoutMs = 60000;

} // namespace

class UsagePageTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        const QString version = RealServer::pinnedVersion("OPEN_TERMINAL_VERSION");
        SANDSCOPE_REQUIRE(QFile::exists(RealServer::executable(version)),
            QStringLiteral("open-terminal %1 is not installed").arg(version));
        m_server = std::make_unique<RealServer>(version, RealServer::Mode::SingleUser);
        QString error;
        QVERIFY2(m_server->start(&error), qPrintable(error));
        m_client = std::make_unique<OpenTerminalClient>(m_server->connection());
        m_home = QDir(m_server->homeDirectory()).canonicalPath();
        for (const QString &scenario : {QStringLiteral("bash"), QStringLiteral("subagent"),
                 QStringLiteral("tool-error"), QStringLiteral("resume")})
            QVERIFY(!installRecordedScenario(m_home, scenario, 3600).isEmpty());
        m_page = std::make_unique<UsagePage>();
        m_tester = std::make_unique<QAbstractItemModelTester>(
            m_page->model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
        m_toolsTester = std::make_unique<QAbstractItemModelTester>(
            m_page->toolsModel(), QAbstractItemModelTester::FailureReportingMode::Fatal);
        m_page->resize(1100, 700);
        m_page->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_page.get()));
        QCOMPARE(m_page->statusText(), QStringLiteral("Not connected."));
        m_page->setConnection(m_client.get(),
            Identity {QStringLiteral("alice"), QUuid::createUuid().toString(QUuid::WithoutBraces)});
    }

    void cleanupTestCase()
    {
        m_tester.reset();
        m_toolsTester.reset();
        m_page.reset();
        m_client.reset();
        m_server.reset();
    }

    void figuresEqualIndependentSums()
    {
        SANDSCOPE_REQUIRE(m_page != nullptr, "needs the pinned open-terminal");
        QVERIFY(collect());
        ExpectedUsage expected;
        expected.addProjects(projectsDirectory(m_home));
        expected.finish();
        const UsageModel *model = m_page->model();
        QCOMPARE(model->rowCount(), expected.days.size());
        for (int row = 0; row < model->rowCount(); ++row) {
            const QDate day = model->index(row, UsageModel::DayColumn).data(Qt::EditRole).toDate();
            const ExpectedDay want = expected.days.value(day);
            const auto number = [&](int column) {
                return model->index(row, column).data(Qt::EditRole).toDouble();
            };
            QCOMPARE(number(UsageModel::TurnsColumn), double(want.turns));
            QCOMPARE(number(UsageModel::ToolCallsColumn), double(want.toolCalls));
            QCOMPARE(number(UsageModel::ErrorsColumn), double(want.errors));
            QCOMPARE(number(UsageModel::InputTokensColumn), double(want.input));
            QCOMPARE(number(UsageModel::CacheReadColumn), double(want.cacheRead));
            QCOMPARE(number(UsageModel::SessionsColumn), double(want.sessions.size()));
            QVERIFY(qAbs(number(UsageModel::CostColumn) - want.cost) < 1e-9);
        }
        QVERIFY(expected.total().errors > 0); // tool-error's failed call
        // The chart shows the chosen figure per day.
        m_page->setMetric(UsageModel::ToolCallsColumn);
        const QVector<double> bars = m_page->chartValues(QStringLiteral("alice"));
        QCOMPARE(bars.size(), expected.days.size());
        QCOMPARE(
            std::accumulate(bars.cbegin(), bars.cend(), 0.0), double(expected.total().toolCalls));
        // Top tools by count, then by time.
        QCOMPARE(m_page->toolsModel()->rowCount(), expected.tools.size());
        QCOMPARE(m_page->toolsProxy()->index(0, UsageToolsModel::NameColumn).data().toString(),
            QStringLiteral("Bash"));
        QCOMPARE(m_page->toolsProxy()
                     ->index(0, UsageToolsModel::CallsColumn)
                     .data(Qt::EditRole)
                     .toLongLong(),
            expected.tools.value(QStringLiteral("Bash")).calls);
    }

    void exportWritesCsvThatReadsBack()
    {
        SANDSCOPE_REQUIRE(m_page != nullptr, "needs the pinned open-terminal");
        QVERIFY(m_page->model()->rowCount() > 0 || collect());
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("usage.csv"));
        QString error;
        QVERIFY2(m_page->exportCsv(path, &error), qPrintable(error));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
        QCOMPARE(lines.size(), m_page->model()->rowCount() + 1);
        QVERIFY(lines.at(0).startsWith("user,day,sessions,turns,tool_calls,errors,input_tokens"));
        qint64 input = 0;
        for (int i = 1; i < lines.size(); ++i)
            input += lines.at(i).split(',').at(6).toLongLong();
        qint64 shown = 0;
        for (int row = 0; row < m_page->model()->rowCount(); ++row)
            shown += m_page->model()
                         ->index(row, UsageModel::InputTokensColumn)
                         .data(Qt::EditRole)
                         .toLongLong();
        QCOMPARE(input, shown);

        // The tools table: one row per tool of the page's table, the calls it shows.
        const QString toolsPath = dir.filePath(QStringLiteral("tools.csv"));
        QVERIFY2(
            m_page->exportCsv(toolsPath, &error, UsagePage::CsvTable::Tools), qPrintable(error));
        QFile toolsFile(toolsPath);
        QVERIFY(toolsFile.open(QIODevice::ReadOnly));
        const QList<QByteArray> toolLines = toolsFile.readAll().trimmed().split('\n');
        UsageToolsModel *tools = m_page->toolsModel();
        QCOMPARE(toolLines.size(), tools->rowCount() + 1);
        QCOMPARE(toolLines.at(0).trimmed(),
            QByteArray("tool,calls,errors,timed_calls,total_ms,mean_ms"));
        QHash<QString, qint64> csvCalls;
        for (int i = 1; i < toolLines.size(); ++i) {
            const QList<QByteArray> fields = toolLines.at(i).split(',');
            csvCalls.insert(QString::fromUtf8(fields.at(0)), fields.at(1).toLongLong());
        }
        for (int row = 0; row < tools->rowCount(); ++row)
            QCOMPARE(csvCalls.value(tools->index(row, 0).data().toString(), -1),
                tools->index(row, UsageToolsModel::CallsColumn).data(Qt::EditRole).toLongLong());
    }

    void allUsersReadsEveryHomeAndIsAudited()
    {
        SANDSCOPE_REQUIRE(m_page != nullptr, "needs the pinned open-terminal");
        QTemporaryDir root;
        QVERIFY(root.isValid());
        QVERIFY(!installRecordedScenario(
            root.filePath(QStringLiteral("ann")), QStringLiteral("bash"), 60)
                     .isEmpty());
        QVERIFY(!installRecordedScenario(
            root.filePath(QStringLiteral("ben")), QStringLiteral("subagent"), 60)
                     .isEmpty());
        AdminAccess admin;
        QVERIFY(AdminAccess::fromCommand(QStringLiteral("env"), &admin));
        QStringList audited;
        m_page->setAuditHook([&audited](const QString &target) { audited.append(target); });
        m_page->setHomesRoot(root.path());
        m_page->setAdminAccess(admin, QString());
        QSignalSpy finished(m_page.get(), &UsagePage::collectionFinished);
        m_page->setAllUsers(true);
        QVERIFY(finished.wait(answerTimeoutMs));
        QVERIFY2(finished.first().first().toBool(), qPrintable(m_page->statusText()));
        QCOMPARE(audited, QStringList {root.path()});
        QCOMPARE(m_page->model()->report().users(),
            QStringList({QStringLiteral("ann"), QStringLiteral("ben")}));
        for (const QString &user : {QStringLiteral("ann"), QStringLiteral("ben")}) {
            ExpectedUsage expected;
            expected.addProjects(projectsDirectory(root.filePath(user)));
            expected.finish();
            qint64 calls = 0;
            for (const UsageDay &day : m_page->model()->report().days)
                calls += day.user == user ? day.toolCalls : 0;
            QCOMPARE(calls, expected.total().toolCalls);
        }
        m_page->setAllUsers(false);
        QVERIFY(finished.wait(answerTimeoutMs));
    }

    void cancelStopsTheCollection()
    {
        SANDSCOPE_REQUIRE(m_page != nullptr, "needs the pinned open-terminal");
        QSignalSpy finished(m_page.get(), &UsagePage::collectionFinished);
        m_page->refresh();
        QVERIFY(m_page->isCollecting());
        m_page->cancel();
        QVERIFY(!m_page->isCollecting());
        QCOMPARE(m_page->statusText(), QStringLiteral("Cancelled."));
        QTest::qWait(3000);
        QCOMPARE(finished.size(), 0);
    }

private:
    bool collect()
    {
        QSignalSpy finished(m_page.get(), &UsagePage::collectionFinished);
        m_page->refresh();
        if (!m_page->isCollecting())
            return false;
        return finished.wait(answerTimeoutMs) && finished.first().first().toBool();
    }

    std::unique_ptr<RealServer> m_server;
    std::unique_ptr<OpenTerminalClient> m_client;
    std::unique_ptr<UsagePage> m_page;
    std::unique_ptr<QAbstractItemModelTester> m_tester;
    std::unique_ptr<QAbstractItemModelTester> m_toolsTester;
    QString m_home;
};

QTEST_MAIN(UsagePageTest)
#include "tst_usagepage.moc"
