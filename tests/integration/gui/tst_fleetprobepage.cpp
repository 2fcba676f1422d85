// The Isolation page on a fleet of two REAL members behind the REAL nginx router
// (routedfleet.h), as a fleet profile gives it the members (setFanOutFactory):
//  * with the users field empty it offers, and runs, fresh users on every member;
//  * the matrix has only pairs of users living on one member, and a server column per member;
//    every pair cell is judged on the member both users live on;
//  * rerunning a cell of that run is refused (its users are gone), with the reason;
//  * users on different members are named in the message bar as not probed, never PASS.

#include "fleet/fleetfanout.h"
#include "isolation/probepage.h"
#include "messagebar.h"
#include "probereport/probematrixmodel.h"
#include "routedfleet.h"
#include "testing.h"

#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QToolButton>
#include <QtTest>

using namespace sandscope;
using namespace sandscope::test;

class FleetProbePageTest : public QObject {
    Q_OBJECT

private:
    RoutedFleet<2> m_fleet;
    std::unique_ptr<OpenTerminalClient> m_client; // the router, as the session's client
    std::unique_ptr<ProbePage> m_page;

    bool runToTheEnd()
    {
        QSignalSpy finished(m_page.get(), &ProbePage::probeFinished);
        QTest::mouseClick(m_page->runButton(), Qt::LeftButton);
        return m_page->isRunning() && finished.wait(240000);
    }
    void screenshot(const QString &suffix)
    {
        if (!qEnvironmentVariableIsSet("SANDSCOPE_SCREENSHOT"))
            return;
        QString path = qEnvironmentVariable("SANDSCOPE_SCREENSHOT");
        path.replace(QLatin1String(".png"), suffix + QLatin1String(".png"));
        m_page->grab().save(path);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString why;
        SANDSCOPE_REQUIRE(RealServer::canRunMultiUser(&why), why);
        SANDSCOPE_REQUIRE(!FleetRouter::nginx().isEmpty(), "needs nginx (scripts/install-deps.sh)");
        QVERIFY2(m_fleet.start(&why), qPrintable(why));
        m_client = std::make_unique<OpenTerminalClient>(m_fleet.routerConnection());
        m_page = std::make_unique<ProbePage>();
        m_page->setClient(m_client.get());
        m_page->setFanOutFactory(
            [this](QObject *parent) {
                return new FleetFanOut(m_fleet.fleet, m_fleet.routerConnection(), parent);
            },
            true);
        m_page->setChecks({CheckId::FilesRead, CheckId::AccountCase, CheckId::ServerEnvironApi,
            CheckId::MemberNetwork, CheckId::MemberApi});
        // On a fleet every check is offered, also those across members.
        for (QAction *action :
            m_page->findChild<QToolButton *>(QStringLiteral("checksButton"))->menu()->actions())
            QVERIFY(action->isEnabled());
        m_page->resize(1360, 800);
        m_page->show();
    }
    void cleanupTestCase()
    {
        m_page.reset();
        m_client.reset();
        m_fleet.stop();
    }

    void anEmptyFieldProbesFreshUsersOnEveryMember()
    {
        m_page->setUsers({});
        QVERIFY(m_page->runButton()->isEnabled());
        QCOMPARE(m_page->runButton()->text(), QStringLiteral("Probe with fresh users"));
        QVERIFY(runToTheEnd());
        screenshot(QStringLiteral("-fresh"));

        const ProbeReport &report = m_page->report();
        QCOMPARE(report.users.size(), 2 * ProbePage::freshUsersPerMember);
        QVERIFY2(report.notProbed.isEmpty(), qPrintable(report.notProbed.join(QLatin1Char('\n'))));
        const ProbeMatrixModel *model = m_page->matrixModel();
        QStringList serverColumns;
        QStringList crossColumns;
        int judgedPairCells = 0;
        for (int column = 0; column < model->columnCount(); ++column) {
            const QString subject = model->subjectAt(column);
            if (isServerSubject(subject)) {
                serverColumns << subject;
                continue;
            }
            const QString target = subject.section(QStringLiteral(" → "), 0, 0);
            const QString actor = subject.section(QStringLiteral(" → "), 1);
            const QString member = report.userMembers.value(target);
            QVERIFY(!member.isEmpty());
            if (report.userMembers.value(actor) != member) {
                // A column across members: only its checks apply, and its header says so.
                const QString actorMember = report.userMembers.value(actor);
                crossColumns << model->headerData(column, Qt::Horizontal).toString();
                QVERIFY(!model->indexOf(CheckId::FilesRead, subject)
                             .data(ProbeMatrixModel::ApplicableRole)
                             .toBool());
                const CheckResult *api
                    = model->resultAt(model->indexOf(CheckId::MemberApi, subject));
                QVERIFY2(api && api->verdict == Verdict::Fail, qPrintable(subject));
                QCOMPARE(api->member, actorMember);
                const CheckResult *network
                    = model->resultAt(model->indexOf(CheckId::MemberNetwork, subject));
                QVERIFY2(network && network->verdict == Verdict::Info, qPrintable(subject));
                continue;
            }
            QVERIFY(!model->indexOf(CheckId::MemberApi, subject)
                         .data(ProbeMatrixModel::ApplicableRole)
                         .toBool());
            const CheckResult *cell = model->resultAt(model->indexOf(CheckId::FilesRead, subject));
            QVERIFY2(cell, qPrintable(subject));
            QCOMPARE(cell->member, member);
            QVERIFY(cell->verdict == Verdict::Pass || cell->verdict == Verdict::Fail);
            ++judgedPairCells;
        }
        QCOMPARE(judgedPairCells, 2 * 2); // two ordered pairs on each member
        // One pair for each direction between the two members.
        QCOMPARE(crossColumns.size(), 2);
        const QString a = m_fleet.members[0].name;
        const QString b = m_fleet.members[1].name;
        QVERIFY2(crossColumns.join(QLatin1Char('|')).contains(a + QStringLiteral(" → ") + b)
                && crossColumns.join(QLatin1Char('|')).contains(b + QStringLiteral(" → ") + a),
            qPrintable(crossColumns.join(QLatin1Char('|'))));
        QCOMPARE(serverColumns,
            (QStringList {memberServerSubject(m_fleet.members[0].name),
                memberServerSubject(m_fleet.members[1].name)}));

        // A cell across members shows its evidence, and cannot be rerun on its own.
        QString crossSubject;
        for (int column = 0; column < model->columnCount(); ++column) {
            if (model->resultAt(model->indexOf(CheckId::MemberApi, model->subjectAt(column))))
                crossSubject = model->subjectAt(column);
        }
        QVERIFY(m_page->selectCell(CheckId::MemberApi, crossSubject));
        screenshot(QStringLiteral("-across"));
        QVERIFY(!m_page->rerunButton()->isEnabled());

        // A cell of this run cannot be rerun: its users were removed when it ended.
        QVERIFY(m_page->selectCell(CheckId::FilesRead, model->subjectAt(0)));
        QVERIFY(!m_page->rerunButton()->isEnabled());
        QVERIFY2(m_page->rerunButton()->toolTip().contains(QLatin1String("removed")),
            qPrintable(m_page->rerunButton()->toolTip()));
    }

    void usersOnDifferentMembersAreNamedAsNotProbed()
    {
        // One id per member, found where its home appears.
        const QHash<QString, QString> byMember = m_fleet.oneUserPerMember(m_client.get());
        QCOMPARE(byMember.size(), 2);
        m_page->setUsers(byMember.values());
        const auto *hint = m_page->findChild<QLabel *>(QStringLiteral("usersHint"));
        QVERIFY(hint);
        QVERIFY2(
            hint->text().contains(QLatin1String("alone on its member")), qPrintable(hint->text()));
        QVERIFY(runToTheEnd());
        screenshot(QStringLiteral("-apart"));
        const ProbeReport &report = m_page->report();
        for (const CheckResult &result : report.results)
            QVERIFY2(checkInfo(result.check).serverWide || checkInfo(result.check).acrossMembers,
                qPrintable(result.subject()));
        QCOMPARE(report.notProbed.size(), 2);
        const QString message = m_page->messageBar()->text();
        for (const QString &user : byMember)
            QVERIFY2(message.contains(user), qPrintable(message));
        QVERIFY(message.contains(QLatin1String("not proven")));
    }
};

QTEST_MAIN(FleetProbePageTest)
#include "tst_fleetprobepage.moc"
