// The probe report (JSON round trip, Markdown, comparison, exit code) and the matrix model
// that shows it, updated cell by cell while a run is in progress.

#include "probereport/probematrixmodel.h"
#include "probereport/probereport.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QSignalSpy>
#include <QtTest/QTest>

using namespace sandscope;

namespace {

CheckResult result(CheckId check, const QString &target, const QString &actor, Verdict verdict,
    const QString &explanation = QStringLiteral("because"))
{
    CheckResult r;
    r.check = check;
    r.target = target;
    r.actor = actor;
    r.verdict = verdict;
    r.explanation = explanation;
    r.evidence << Evidence {QStringLiteral("GET /files/read?path=/home/a/m.txt  (X-User-Id: bob)"),
        403, QStringLiteral("{\"detail\":\"Access denied\"}"),
        QStringLiteral("B reads A's marker")};
    return r;
}

ProbeReport sampleReport()
{
    ProbeReport report;
    report.server = QStringLiteral("http://127.0.0.1:8000");
    report.serverVersion = QStringLiteral("0.11.34");
    report.users = QStringList {QStringLiteral("alice"), QStringLiteral("bob")};
    report.startedAt = QDateTime(QDate(2026, 11, 29), QTime(10, 0, 0, 250), Qt::UTC);
    report.finishedAt = QDateTime(QDate(2026, 11, 29), QTime(10, 0, 7), Qt::UTC);
    report.results << result(
        CheckId::FilesRead, QStringLiteral("alice"), QStringLiteral("bob"), Verdict::Pass);
    report.results << result(CheckId::ProcessKill, QStringLiteral("alice"), QStringLiteral("bob"),
        Verdict::Fail, QStringLiteral("B killed it | really"));
    report.results << result(
        CheckId::ReservedIds, QString(), QStringLiteral("root, user"), Verdict::Fail);
    report.results << result(
        CheckId::NetworkPort, QStringLiteral("bob"), QStringLiteral("alice"), Verdict::Info);
    return report;
}

} // namespace

class TestProbeReport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyCheckHasAUniqueKeyAndAnExplanation();
    void verdictAndSeverityNamesRoundTrip();
    void jsonRoundTripKeepsEverything();
    void jsonIsRejectedWhenItIsNoProbeReport();
    void jsonNamesSeverityAndFailMeaning();
    void markdownShowsMatrixDetailsAndEvidence();
    void markdownFencesEvidenceThatContainsBackticks();
    void compareListsChangedAppearedAndDisappearedCells();
    void compareSaysWhatAnUpgradeFixedAndIntroduced();
    void scorecardCountsEveryResultOnceAndLeadsWithTheWorstFinding();
    void documentedBehaviourStillFailsButIsMarked();
    void everyExportLeadsWithTheScorecard();
    void htmlEscapesEvidence();
    void exitCodePrefersFailOverError_data();
    void exitCodePrefersFailOverError();
    void modelHasOneRowPerCheckAndOneColumnPerPairPlusServer();
    void modelUpdatesSingleCellsWithoutReset();
    void modelMarksCellsThatDoNotApply();
    void modelAddsAColumnForAnUnknownPair();
    void modelShowsALoadedReport();
    void fleetReportRoundTripsMembersAndWhatWasNotProbed();
    void fleetMatrixHasOnlyPairsOfOneMemberAndAServerColumnPerMember();
    void somethingNotProbedIsNeverAClean0();
};

void TestProbeReport::everyCheckHasAUniqueKeyAndAnExplanation()
{
    QStringList keys;
    for (const CheckInfo &info : allChecks()) {
        QVERIFY2(!keys.contains(info.key), qPrintable(info.key));
        keys << info.key;
        QVERIFY(!info.title.isEmpty());
        QVERIFY(!info.failMeaning.isEmpty());
        CheckId parsed;
        QVERIFY(checkFromKey(info.key, &parsed));
        QCOMPARE(parsed, info.id);
        QCOMPARE(checkInfo(info.id).key, info.key);
    }
    CheckId unused;
    QVERIFY(!checkFromKey(QStringLiteral("no.such.check"), &unused));
}

void TestProbeReport::verdictAndSeverityNamesRoundTrip()
{
    QStringList names;
    for (const Verdict verdict : {Verdict::Pass, Verdict::Fail, Verdict::Info, Verdict::Error}) {
        Verdict parsed = Verdict::Pass;
        QVERIFY(verdictFromName(verdictName(verdict), &parsed));
        QCOMPARE(parsed, verdict);
        names << verdictName(verdict);
    }
    QCOMPARE(names,
        (QStringList {QStringLiteral("PASS"), QStringLiteral("FAIL"), QStringLiteral("INFO"),
            QStringLiteral("ERROR")}));
    for (const Severity severity :
        {Severity::Info, Severity::Low, Severity::Medium, Severity::High, Severity::Critical}) {
        Severity parsed = Severity::Info;
        QVERIFY(severityFromName(severityName(severity), &parsed));
        QCOMPARE(parsed, severity);
    }
    Verdict unused = Verdict::Pass;
    QVERIFY(!verdictFromName(QStringLiteral("pass"), &unused));
}

void TestProbeReport::jsonRoundTripKeepsEverything()
{
    const ProbeReport report = sampleReport();
    ProbeReport parsed;
    QString error;
    QVERIFY2(ProbeReport::fromJson(report.toJson(), &parsed, &error), qPrintable(error));
    QCOMPARE(parsed.server, report.server);
    QCOMPARE(parsed.serverVersion, report.serverVersion);
    QCOMPARE(parsed.users, report.users);
    QCOMPARE(parsed.startedAt, report.startedAt);
    QCOMPARE(parsed.finishedAt, report.finishedAt);
    QCOMPARE(parsed.cancelled, report.cancelled);
    QCOMPARE(parsed.results.size(), report.results.size());
    for (int i = 0; i < report.results.size(); ++i)
        QVERIFY(parsed.results.at(i) == report.results.at(i));
}

void TestProbeReport::jsonIsRejectedWhenItIsNoProbeReport()
{
    ProbeReport parsed;
    QString error;
    QVERIFY(!ProbeReport::fromJson(
        QJsonObject {{QStringLiteral("format"), QStringLiteral("x")}}, &parsed, &error));
    QVERIFY(!error.isEmpty());

    QJsonObject json = sampleReport().toJson();
    QJsonArray results = json.value(QLatin1String("results")).toArray();
    QJsonObject first = results.at(0).toObject();
    first.insert(QStringLiteral("verdict"), QStringLiteral("MAYBE"));
    results.replace(0, first);
    json.insert(QStringLiteral("results"), results);
    QVERIFY(!ProbeReport::fromJson(json, &parsed, &error));
    QVERIFY(error.contains(QLatin1String("MAYBE")));
}

void TestProbeReport::jsonNamesSeverityAndFailMeaning()
{
    const QJsonObject json = sampleReport().toJson();
    const QJsonObject kill = json.value(QLatin1String("results")).toArray().at(1).toObject();
    QCOMPARE(kill.value(QLatin1String("check")).toString(), QStringLiteral("process.kill"));
    QCOMPARE(kill.value(QLatin1String("severity")).toString(),
        severityName(checkInfo(CheckId::ProcessKill).severity));
    QCOMPARE(kill.value(QLatin1String("fail_means")).toString(),
        checkInfo(CheckId::ProcessKill).failMeaning);
    QCOMPARE(kill.value(QLatin1String("subject")).toString(), QStringLiteral("alice → bob"));
    const QJsonObject summary = json.value(QLatin1String("summary")).toObject();
    QCOMPARE(summary.value(QLatin1String("fail")).toInt(), 2);
    QCOMPARE(summary.value(QLatin1String("pass")).toInt(), 1);
    QCOMPARE(summary.value(QLatin1String("info")).toInt(), 1);
    QCOMPARE(summary.value(QLatin1String("error")).toInt(), 0);
}

void TestProbeReport::markdownShowsMatrixDetailsAndEvidence()
{
    const QString markdown = sampleReport().toMarkdown();
    QVERIFY(markdown.contains(
        QStringLiteral("| Check | Severity | alice → bob | bob → alice | server |")));
    // The row of the kill check: FAIL in the pair column, nothing in the others.
    QVERIFY(markdown.contains(QStringLiteral("| B kills A's process | high | FAIL |  |  |")));
    QVERIFY(markdown.contains(QLatin1String("1 PASS, 2 FAIL, 1 INFO, 0 ERROR")));
    // A '|' inside an explanation is only in the details, never breaks the table.
    QVERIFY(markdown.contains(QLatin1String("B killed it | really")));
    QVERIFY(markdown.contains(checkInfo(CheckId::ProcessKill).failMeaning));
    QVERIFY(markdown.contains(
        QStringLiteral("B reads A's marker: `GET /files/read?path=/home/a/m.txt  (X-User-Id: "
                       "bob)` → HTTP 403")));
    QVERIFY(markdown.contains(QLatin1String("```\n{\"detail\":\"Access denied\"}\n```")));
}

void TestProbeReport::markdownFencesEvidenceThatContainsBackticks()
{
    ProbeReport report = sampleReport();
    report.results[0].evidence[0].response = QStringLiteral("a ``` b");
    const QString markdown = report.toMarkdown();
    QVERIFY(markdown.contains(QLatin1String("````\na ``` b\n````")));
}

void TestProbeReport::compareListsChangedAppearedAndDisappearedCells()
{
    const ProbeReport before = sampleReport();
    ProbeReport after = sampleReport();
    after.serverVersion = QStringLiteral("0.14.5");
    after.results[1].verdict = Verdict::Pass; // kill: FAIL → PASS
    after.results[0].explanation = QStringLiteral("other words, same verdict");
    after.results.removeAt(3); // network: gone
    after.results << result(CheckId::FilesGlob, QStringLiteral("alice"), QStringLiteral("bob"),
        Verdict::Fail); // new

    const QVector<ReportDifference> differences = ProbeReport::compare(before, after);
    QCOMPARE(differences.size(), 3);
    // In allChecks() order: files.glob, process.kill, network.port.
    QCOMPARE(differences.at(0).check, CheckId::FilesGlob);
    QVERIFY(!differences.at(0).inBefore && differences.at(0).inAfter);
    QCOMPARE(differences.at(1).check, CheckId::ProcessKill);
    QCOMPARE(differences.at(1).describe(), QStringLiteral("process.kill alice → bob: FAIL → PASS"));
    QCOMPARE(differences.at(2).check, CheckId::NetworkPort);
    QCOMPARE(
        differences.at(2).describe(), QStringLiteral("network.port bob → alice: INFO → (not run)"));
    QVERIFY(ProbeReport::compare(before, before).isEmpty());
}

void TestProbeReport::exitCodePrefersFailOverError_data()
{
    QTest::addColumn<QVector<int>>("verdicts");
    QTest::addColumn<int>("exitCode");
    QTest::newRow("all pass") << QVector<int> {int(Verdict::Pass), int(Verdict::Info)} << 0;
    QTest::newRow("error") << QVector<int> {int(Verdict::Pass), int(Verdict::Error)} << 2;
    QTest::newRow("fail") << QVector<int> {int(Verdict::Fail), int(Verdict::Pass)} << 1;
    QTest::newRow("fail and error") << QVector<int> {int(Verdict::Error), int(Verdict::Fail)} << 1;
    QTest::newRow("nothing") << QVector<int> {} << 0;
}

void TestProbeReport::exitCodePrefersFailOverError()
{
    QFETCH(QVector<int>, verdicts);
    QFETCH(int, exitCode);
    ProbeReport report;
    for (const int v : verdicts)
        report.results << result(
            CheckId::FilesRead, QStringLiteral("a"), QStringLiteral("b"), Verdict(v));
    QCOMPARE(report.exitCode(), exitCode);
}

void TestProbeReport::modelHasOneRowPerCheckAndOneColumnPerPairPlusServer()
{
    ProbeMatrixModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setUsers({QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")});
    QCOMPARE(model.rowCount(), int(allChecks().size()));
    QCOMPARE(model.columnCount(), 7); // 3 × 2 ordered pairs + server
    // The subject "a → b" is b acting on a's resources; the column says so in words.
    QCOMPARE(model.subjectAt(0), QStringLiteral("a → b"));
    QCOMPARE(model.headerData(0, Qt::Horizontal).toString(), QStringLiteral("b reaches a"));
    QVERIFY(model.headerData(0, Qt::Horizontal, Qt::ToolTipRole)
                .toString()
                .startsWith(QStringLiteral("What b can reach of a's")));
    QCOMPARE(model.headerData(6, Qt::Horizontal).toString(), QStringLiteral("server"));
    QCOMPARE(model.headerData(0, Qt::Vertical).toString(), allChecks().at(0).title);
    QCOMPARE(model.subjectAt(1), QStringLiteral("a → c"));
    QCOMPARE(model.checkAt(1), allChecks().at(1).id);
}

void TestProbeReport::modelUpdatesSingleCellsWithoutReset()
{
    ProbeMatrixModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setUsers({QStringLiteral("alice"), QStringLiteral("bob")});
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);

    const CheckResult kill = result(
        CheckId::ProcessKill, QStringLiteral("alice"), QStringLiteral("bob"), Verdict::Fail);
    model.addResult(kill);
    QCOMPARE(resets.count(), 0);
    QCOMPARE(changes.count(), 1);
    const QModelIndex cell = model.indexOf(CheckId::ProcessKill, QStringLiteral("alice → bob"));
    QCOMPARE(changes.at(0).at(0).toModelIndex(), cell);
    QCOMPARE(changes.at(0).at(1).toModelIndex(), cell);
    QCOMPARE(cell.data().toString(), QStringLiteral("FAIL"));
    QCOMPARE(cell.data(ProbeMatrixModel::VerdictRole).toInt(), int(Verdict::Fail));
    QCOMPARE(cell.data(ProbeMatrixModel::SeverityRole).toString(), QStringLiteral("high"));
    QCOMPARE(cell.data(ProbeMatrixModel::ExplanationRole).toString(), kill.explanation);
    QCOMPARE(cell.data(ProbeMatrixModel::CheckKeyRole).toString(), QStringLiteral("process.kill"));
    QCOMPARE(cell.data(ProbeMatrixModel::FailMeaningRole).toString(),
        checkInfo(CheckId::ProcessKill).failMeaning);
    const QString evidence = cell.data(ProbeMatrixModel::EvidenceRole).toString();
    QVERIFY(evidence.contains(QLatin1String("# B reads A's marker")));
    QVERIFY(evidence.contains(QLatin1String("HTTP 403")));
    QVERIFY(model.resultAt(cell) && *model.resultAt(cell) == kill);

    // A rerun of the same check replaces the cell.
    model.addResult(result(
        CheckId::ProcessKill, QStringLiteral("alice"), QStringLiteral("bob"), Verdict::Pass));
    QCOMPARE(changes.count(), 2);
    QCOMPARE(cell.data().toString(), QStringLiteral("PASS"));

    // Cells without results are empty, not a verdict.
    const QModelIndex other = model.indexOf(CheckId::FilesRead, QStringLiteral("bob → alice"));
    QCOMPARE(other.data().toString(), QString());
    QVERIFY(!other.data(ProbeMatrixModel::VerdictRole).isValid());
    QVERIFY(!model.resultAt(other));
}

void TestProbeReport::modelMarksCellsThatDoNotApply()
{
    ProbeMatrixModel model;
    model.setUsers({QStringLiteral("alice"), QStringLiteral("bob")});
    const QModelIndex serverCheckInPair
        = model.indexOf(CheckId::AccountTwin, QStringLiteral("alice → bob"));
    QCOMPARE(serverCheckInPair.data().toString(), QStringLiteral("—"));
    QVERIFY(!serverCheckInPair.data(ProbeMatrixModel::ApplicableRole).toBool());
    const QModelIndex pairCheckInServer = model.indexOf(CheckId::FilesRead, serverSubject());
    QVERIFY(!pairCheckInServer.data(ProbeMatrixModel::ApplicableRole).toBool());
    QVERIFY(model.indexOf(CheckId::AccountTwin, serverSubject())
                .data(ProbeMatrixModel::ApplicableRole)
                .toBool());
}

void TestProbeReport::modelAddsAColumnForAnUnknownPair()
{
    ProbeMatrixModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setUsers({QStringLiteral("alice"), QStringLiteral("bob")});
    QSignalSpy inserted(&model, &QAbstractItemModel::columnsInserted);
    model.addResult(
        result(CheckId::FilesRead, QStringLiteral("carol"), QStringLiteral("bob"), Verdict::Pass));
    QCOMPARE(inserted.count(), 1);
    QCOMPARE(model.columnCount(), 4);
    QCOMPARE(model.subjectAt(2), QStringLiteral("carol → bob"));
    QCOMPARE(model.subjectAt(3), serverSubject());
    QCOMPARE(model.indexOf(CheckId::FilesRead, QStringLiteral("carol → bob")).data().toString(),
        QStringLiteral("PASS"));
}

void TestProbeReport::modelShowsALoadedReport()
{
    ProbeMatrixModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setReport(sampleReport());
    QCOMPARE(model.columnCount(), 3);
    QCOMPARE(model.indexOf(CheckId::ReservedIds, serverSubject()).data().toString(),
        QStringLiteral("FAIL"));
    QCOMPARE(model.indexOf(CheckId::NetworkPort, QStringLiteral("bob → alice")).data().toString(),
        QStringLiteral("INFO"));
}

void TestProbeReport::compareSaysWhatAnUpgradeFixedAndIntroduced()
{
    const ProbeReport before = sampleReport();
    ProbeReport after = sampleReport();
    after.results[1].verdict = Verdict::Pass; // kill: fixed
    after.results[0].verdict = Verdict::Fail; // read: introduced
    after.results[3].verdict = Verdict::Error; // network: neither
    after.results << result(CheckId::FilesGlob, QStringLiteral("alice"), QStringLiteral("bob"),
        Verdict::Fail); // a new check that fails: introduced
    QStringList seen;
    for (const ReportDifference &difference : ProbeReport::compare(before, after))
        seen << checkInfo(difference.check).key + QLatin1Char(' ') + difference.change();
    QCOMPARE(seen,
        (QStringList {QStringLiteral("files.read introduced"),
            QStringLiteral("files.glob introduced"), QStringLiteral("process.kill fixed"),
            QStringLiteral("network.port changed")}));
}

void TestProbeReport::scorecardCountsEveryResultOnceAndLeadsWithTheWorstFinding()
{
    ProbeReport report = sampleReport();
    report.results << result(
        CheckId::FilesReadSymlink, QStringLiteral("alice"), QStringLiteral("bob"), Verdict::Fail);
    report.results << result(
        CheckId::SessionReuse, QStringLiteral("alice"), QStringLiteral("bob"), Verdict::Error);
    const QVector<ScorecardRow> rows = report.scorecard();
    // Every result is counted in exactly one category.
    int pass = 0, fail = 0, info = 0, error = 0;
    for (const ScorecardRow &row : rows) {
        pass += row.pass;
        fail += row.fail;
        info += row.info;
        error += row.error;
        QVERIFY(!row.category.isEmpty());
    }
    QCOMPARE(pass, report.count(Verdict::Pass));
    QCOMPARE(fail, report.count(Verdict::Fail));
    QCOMPARE(info, report.count(Verdict::Info));
    QCOMPARE(error, report.count(Verdict::Error));
    // The worst finding: the most severe FAIL (critical files.read.symlink over the critical
    // reserved ids, which comes later in allChecks(), and the high process.kill).
    const CheckResult *worst = report.worstFinding();
    QVERIFY(worst);
    QCOMPARE(worst->check, CheckId::FilesReadSymlink);
    // Categories with a FAIL come first, worst first.
    QCOMPARE(rows.first().category, QStringLiteral("files"));
    QVERIFY(!ProbeReport().worstFinding());
}

void TestProbeReport::documentedBehaviourStillFailsButIsMarked()
{
    ProbeReport report;
    report.serverVersion = QStringLiteral("0.14.5");
    report.results << result(
        CheckId::ProcessShellList, QStringLiteral("alice"), QStringLiteral("bob"), Verdict::Fail);
    QVERIFY(checkInfo(CheckId::ProcessShellList).documented);
    QVERIFY(!checkInfo(CheckId::FilesReadSymlink).documented);
    QCOMPARE(report.count(Verdict::Fail), 1);
    QCOMPARE(report.exitCode(), 1);
    QVERIFY(report.toMarkdown().contains(QLatin1String("documented behaviour")));
    const QJsonObject json = report.toJson();
    QVERIFY(json.value(QLatin1String("results"))
                .toArray()
                .at(0)
                .toObject()
                .value(QLatin1String("documented"))
                .toBool());
    // An undocumented FAIL is the worse finding, even when less severe.
    report.results << result(
        CheckId::FilesGlob, QStringLiteral("alice"), QStringLiteral("bob"), Verdict::Fail);
    QCOMPARE(report.worstFinding()->check, CheckId::FilesGlob);
}

void TestProbeReport::everyExportLeadsWithTheScorecard()
{
    const ProbeReport report = sampleReport();
    const QString markdown = report.toMarkdown();
    const qsizetype scorecard = markdown.indexOf(QLatin1String("## Scorecard"));
    QVERIFY(scorecard > 0);
    QVERIFY(scorecard < markdown.indexOf(QLatin1String("## Matrix")));
    QVERIFY(markdown.indexOf(QLatin1String("0.11.34")) < scorecard + 400);
    // The worst finding says what an attacker gains and how bad it is.
    const CheckInfo &reserved = checkInfo(CheckId::ReservedIds);
    QVERIFY2(markdown.contains(reserved.failMeaning), qPrintable(markdown.left(1500)));
    QVERIFY(markdown.indexOf(reserved.failMeaning) < markdown.indexOf(QLatin1String("## Matrix")));

    const QJsonObject card = report.toJson().value(QLatin1String("scorecard")).toObject();
    QCOMPARE(card.value(QLatin1String("server_version")).toString(), QStringLiteral("0.11.34"));
    QCOMPARE(card.value(QLatin1String("worst")).toObject().value(QLatin1String("check")).toString(),
        reserved.key);
    QVERIFY(!card.value(QLatin1String("categories")).toArray().isEmpty());

    const QString html = report.toHtml();
    QVERIFY(html.startsWith(QLatin1String("<!DOCTYPE html>")));
    QVERIFY(html.indexOf(QLatin1String("Scorecard")) < html.indexOf(QLatin1String("Matrix")));
    QVERIFY(html.contains(reserved.failMeaning.toHtmlEscaped()));
}

void TestProbeReport::htmlEscapesEvidence()
{
    ProbeReport report = sampleReport();
    report.results[0].evidence[0].response = QStringLiteral("<script>alert(1)</script>");
    const QString html = report.toHtml();
    QVERIFY(!html.contains(QLatin1String("<script>")));
    QVERIFY(html.contains(QLatin1String("&lt;script&gt;")));
}

namespace {

// Users a, b on member m1, c, d on m2, e alone on m3; a result per same-member pair and a
// server-wide one per member.
ProbeReport fleetReport()
{
    ProbeReport report;
    report.server = QStringLiteral("http://router:8000");
    report.users = QStringList {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"),
        QStringLiteral("d"), QStringLiteral("e")};
    report.userMembers = {{QStringLiteral("a"), QStringLiteral("m1")},
        {QStringLiteral("b"), QStringLiteral("m1")}, {QStringLiteral("c"), QStringLiteral("m2")},
        {QStringLiteral("d"), QStringLiteral("m2")}, {QStringLiteral("e"), QStringLiteral("m3")}};
    report.notProbed << QStringLiteral("e is the only one of the users on member m3");
    report.leftBehind << QStringLiteral("the probe's account x_abc on member m1: refused");
    for (const auto &pair : userPairs(report.users)) {
        const QString member = report.userMembers.value(pair.first);
        if (member != report.userMembers.value(pair.second) || member == QLatin1String("m3"))
            continue;
        CheckResult r = result(CheckId::FilesRead, pair.first, pair.second, Verdict::Pass);
        r.member = member;
        report.results << r;
    }
    for (const QString &member : {QStringLiteral("m1"), QStringLiteral("m2")}) {
        CheckResult r = result(CheckId::AccountCase, QStringLiteral("a"), QString(), Verdict::Fail);
        r.member = member;
        report.results << r;
    }
    return report;
}

} // namespace

void TestProbeReport::fleetReportRoundTripsMembersAndWhatWasNotProbed()
{
    const ProbeReport report = fleetReport();
    ProbeReport parsed;
    QString error;
    QVERIFY2(ProbeReport::fromJson(report.toJson(), &parsed, &error), qPrintable(error));
    QCOMPARE(parsed.userMembers, report.userMembers);
    QCOMPARE(parsed.notProbed, report.notProbed);
    QCOMPARE(parsed.leftBehind, report.leftBehind);
    QCOMPARE(parsed.results.size(), report.results.size());
    for (int i = 0; i < report.results.size(); ++i)
        QVERIFY(parsed.results.at(i) == report.results.at(i));
    // Server-wide results keep apart per member, also after the round trip.
    QVERIFY(parsed.find(CheckId::AccountCase, memberServerSubject(QStringLiteral("m1"))));
    QVERIFY(parsed.find(CheckId::AccountCase, memberServerSubject(QStringLiteral("m2"))));
    const QString markdown = report.toMarkdown();
    QVERIFY(markdown.contains(QStringLiteral("Not probed: e is the only one")));
    QVERIFY(markdown.contains(QStringLiteral("May be left behind: the probe's account x_abc")));
    QVERIFY(markdown.contains(QStringLiteral("Members: a, b on m1; c, d on m2; e on m3")));
    QVERIFY(report.toHtml().contains(QStringLiteral("Not probed: e is the only one")));
}

void TestProbeReport::fleetMatrixHasOnlyPairsOfOneMemberAndAServerColumnPerMember()
{
    const ProbeReport report = fleetReport();
    ProbeMatrixModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setReport(report);
    QStringList servers;
    for (int column = 0; column < model.columnCount(); ++column) {
        const QString subject = model.subjectAt(column);
        if (isServerSubject(subject)) {
            servers << subject;
            continue;
        }
        // Every pair column: both users on one member.
        const QString target = subject.section(QStringLiteral(" → "), 0, 0);
        const QString actor = subject.section(QStringLiteral(" → "), 1);
        QCOMPARE(report.userMembers.value(actor), report.userMembers.value(target));
    }
    QCOMPARE(model.columnCount(), 2 + 2 + 3); // a↔b, c↔d, a server column per member
    QCOMPARE(servers,
        (QStringList {memberServerSubject(QStringLiteral("m1")),
            memberServerSubject(QStringLiteral("m2")), memberServerSubject(QStringLiteral("m3"))}));
    // Every result found its cell: no column was added for it.
    for (const CheckResult &r : report.results)
        QCOMPARE(model.indexOf(r.check, r.subject()).data().toString(), verdictName(r.verdict));
    QVERIFY(model.indexOf(CheckId::AccountCase, memberServerSubject(QStringLiteral("m1")))
                .data(ProbeMatrixModel::ApplicableRole)
                .toBool());
    QVERIFY(!model.indexOf(CheckId::FilesRead, memberServerSubject(QStringLiteral("m1")))
                 .data(ProbeMatrixModel::ApplicableRole)
                 .toBool());
}

void TestProbeReport::somethingNotProbedIsNeverAClean0()
{
    ProbeReport report;
    report.results << result(
        CheckId::FilesRead, QStringLiteral("a"), QStringLiteral("b"), Verdict::Pass);
    QCOMPARE(report.exitCode(), 0);
    report.notProbed << QStringLiteral("c is alone on its member");
    QCOMPARE(report.exitCode(), 2);
    report.results << result(
        CheckId::FilesList, QStringLiteral("a"), QStringLiteral("b"), Verdict::Fail);
    QCOMPARE(report.exitCode(), 1);
}

QTEST_GUILESS_MAIN(TestProbeReport)
#include "tst_probereport.moc"
