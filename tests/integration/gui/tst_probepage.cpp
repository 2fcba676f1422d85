// The isolation-probe page: reports built here from the real value types are opened,
// painted, inspected, exported and compared through the page; invalid report files give a
// clear message. One test runs the real probe from the page against a REAL multi-user
// open-terminal (each pinned version) and reruns one of its cells.

#include "isolation/probedelegate.h"
#include "isolation/probepage.h"
#include "messagebar.h"
#include "monospacefont.h"
#include "probereport/probematrixmodel.h"
#include "probereport/probereport.h"
#include "realserver.h"
#include "server/openterminalclient.h"
#include "testing.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QFile>
#include <QFontInfo>
#include <QHash>
#include <QImage>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeWidget>
#include <QtTest>

#include <memory>

using namespace sandscope;
using sandscope::test::RealServer;

namespace {

// Answers the page's file questions from queues and records every title asked.
class ScriptedPrompter : public ProbePrompter {
public:
    QStringList savePaths;
    QStringList openPaths;
    QStringList asked;

    QString askSavePath(QWidget *, const QString &title, const QString &, const QString &) override
    {
        asked << title;
        return savePaths.isEmpty() ? QString() : savePaths.takeFirst();
    }
    QString askOpenPath(QWidget *, const QString &title, const QString &) override
    {
        asked << title;
        return openPaths.isEmpty() ? QString() : openPaths.takeFirst();
    }
};

CheckResult result(CheckId check, const QString &target, const QString &actor, Verdict verdict,
    const QString &explanation, const QVector<Evidence> &evidence = {})
{
    return CheckResult {check, actor, target, verdict, explanation, evidence, QString()};
}

const QString alice = QStringLiteral("alice");
const QString bob = QStringLiteral("bob");

// A report with one cell of each verdict (plus a server-wide FAIL), as the core would
// produce it after a run against a server with a few gaps.
ProbeReport sampleReport()
{
    ProbeReport report;
    report.server = QStringLiteral("http://127.0.0.1:8000");
    report.serverVersion = QStringLiteral("0.11.34");
    report.users = QStringList {alice, bob};
    report.startedAt = QDateTime(QDate(2026, 3, 1), QTime(12, 0), Qt::UTC);
    report.finishedAt = report.startedAt.addSecs(40);
    report.results = {
        result(CheckId::FilesRead, alice, bob, Verdict::Pass,
            QStringLiteral("bob could not read alice's marker."),
            {Evidence {QStringLiteral("GET /files/read?path=/home/alice/m.txt  (X-User-Id: alice)"),
                 200, QStringLiteral("marker-7f3a"),
                 QStringLiteral("precondition: alice reads its own marker")},
                Evidence {
                    QStringLiteral("GET /files/read?path=/home/alice/m.txt  (X-User-Id: bob)"), 403,
                    QStringLiteral("{\"detail\":\"Permission denied\"}"),
                    QStringLiteral("bob tries to read it")}}),
        result(CheckId::FilesWrite, alice, bob, Verdict::Fail,
            QStringLiteral("bob wrote a file into alice's home."),
            {Evidence {QStringLiteral("POST /files/write  (X-User-Id: bob)"), 200,
                QStringLiteral("{\"path\":\"/home/alice/intruder-91c2.txt\"}"),
                QStringLiteral("bob writes into alice's home")}}),
        result(CheckId::NetworkPort, alice, bob, Verdict::Info,
            QStringLiteral("bob connected to the port alice listens on.")),
        result(CheckId::ProcessKill, alice, bob, Verdict::Error,
            QStringLiteral("alice's process did not start, so nothing could be judged."),
            {Evidence {QStringLiteral("POST /execute  (X-User-Id: alice)"), 500,
                QStringLiteral("Internal Server Error"),
                QStringLiteral("precondition: alice starts a process")}}),
        result(CheckId::FilesRead, bob, alice, Verdict::Pass,
            QStringLiteral("alice could not read bob's marker.")),
        result(CheckId::ReservedIds, QString(), QString(), Verdict::Fail,
            QStringLiteral("The id root runs as uid 0."),
            {Evidence {QStringLiteral("POST /execute id  (X-User-Id: root)"), 200,
                QStringLiteral("uid=0(root) gid=0(root)"),
                QStringLiteral("what account root gets")}})};
    return report;
}

bool writeReport(const QString &fileName, const ProbeReport &report)
{
    QFile file(fileName);
    return file.open(QIODevice::WriteOnly)
        && file.write(QJsonDocument(report.toJson()).toJson()) > 0;
}

bool writeBytes(const QString &fileName, const QByteArray &bytes)
{
    QFile file(fileName);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

// The colour covering most of the image, and the share of pixels of each colour.
QHash<QRgb, double> colourShares(const QImage &image)
{
    QHash<QRgb, double> shares;
    const double pixels = double(image.width()) * image.height();
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x)
            shares[image.pixel(x, y) | 0xff000000u] += 1.0 / pixels;
    }
    return shares;
}

QColor dominantColour(const QImage &image)
{
    const QHash<QRgb, double> shares = colourShares(image);
    QRgb best = 0;
    double bestShare = -1;
    for (auto it = shares.cbegin(); it != shares.cend(); ++it) {
        if (it.value() > bestShare) {
            best = it.key();
            bestShare = it.value();
        }
    }
    return QColor(best);
}

// Colours that cover at least `minimum` of the image (text antialiasing spreads thin).
int substantialColours(const QImage &image, double minimum)
{
    const QHash<QRgb, double> shares = colourShares(image);
    return int(std::count_if(
        shares.cbegin(), shares.cend(), [minimum](double share) { return share >= minimum; }));
}

int hueDistance(const QColor &a, const QColor &b)
{
    const int distance = std::abs(a.hsvHue() - b.hsvHue());
    return std::min(distance, 360 - distance);
}

QPalette darkPalette()
{
    QPalette palette;
    palette.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    palette.setColor(QPalette::WindowText, QColor(0xe6, 0xe6, 0xe6));
    palette.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    palette.setColor(QPalette::AlternateBase, QColor(0x26, 0x26, 0x26));
    palette.setColor(QPalette::Text, QColor(0xe6, 0xe6, 0xe6));
    palette.setColor(QPalette::Button, QColor(0x33, 0x33, 0x33));
    palette.setColor(QPalette::ButtonText, QColor(0xe6, 0xe6, 0xe6));
    palette.setColor(QPalette::Highlight, QColor(0x3d, 0x8e, 0xe6));
    palette.setColor(QPalette::HighlightedText, Qt::white);
    return palette;
}

} // namespace

class TestProbePage : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<ProbePage> m_page;
    std::unique_ptr<ScriptedPrompter> m_prompter;
    std::unique_ptr<QAbstractItemModelTester> m_modelTester;
    std::unique_ptr<QAbstractItemModelTester> m_viewModelTester;

    QString path(const QString &name) const { return m_dir.filePath(name); }

    // The page's scorecard shows exactly `report`'s.
    void expectScorecardOf(const ProbeReport &report) const
    {
        const QVector<ScorecardRow> rows = report.scorecard();
        QTableWidget *view = m_page->scorecardView();
        QCOMPARE(view->rowCount(), int(rows.size()));
        for (int row = 0; row < rows.size(); ++row) {
            const ScorecardRow &card = rows.at(row);
            QCOMPARE(view->item(row, 0)->text(), card.category);
            for (const auto &[column, count] : {std::pair {1, card.pass}, std::pair {2, card.fail},
                     std::pair {3, card.info}, std::pair {4, card.error}})
                QCOMPARE(view->item(row, column)->text().toInt(), count);
            QCOMPARE(view->item(row, 5)->text(),
                card.fail > 0 ? severityName(card.worstFail) : QString());
        }
        // FAILs first: no row with a FAIL follows one without.
        for (int row = 1; row < rows.size(); ++row)
            QVERIFY(rows.at(row).fail == 0 || rows.at(row - 1).fail > 0);
        const QString worst = m_page->worstFindingText();
        const CheckResult *finding = report.worstFinding();
        QVERIFY(finding);
        const CheckInfo &info = checkInfo(finding->check);
        QVERIFY2(worst.contains(info.key) && worst.contains(severityName(info.severity))
                && worst.contains(info.failMeaning) && worst.contains(finding->subject()),
            qPrintable(worst));
        QVERIFY2(worst.contains(report.serverVersion), qPrintable(worst));
    }

    // Opens `report` through the page's "Open report…" button.
    void openThroughPage(const ProbeReport &report, const QString &name)
    {
        QVERIFY(writeReport(path(name), report));
        m_prompter->openPaths << path(name);
        m_page->findChild<QPushButton *>(QStringLiteral("openButton"))->click();
        QVERIFY2(m_page->hasReport(), qPrintable(m_page->messageBar()->text()));
    }

    // The cell as painted on the screen; `inset` trims the grid and the cell's margin.
    QImage cellImage(CheckId check, const QString &subject, int inset = 0) const
    {
        QTableView *view = m_page->matrixView();
        const QModelIndex index
            = view->model()->index(m_page->matrixModel()->indexOf(check, subject).row(),
                m_page->matrixModel()->indexOf(check, subject).column());
        view->scrollTo(index);
        const QRect rect = view->visualRect(index).adjusted(inset, inset, -inset, -inset);
        return view->viewport()->grab(rect).toImage().scaled(rect.size());
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // Runs are recorded in the audit log: keep that inside the test's directory.
        qputenv("SANDSCOPE_AUDIT_LOG", path(QStringLiteral("audit.jsonl")).toUtf8());
    }

    void init()
    {
        m_page = std::make_unique<ProbePage>();
        m_prompter = std::make_unique<ScriptedPrompter>();
        m_page->setPrompter(m_prompter.get());
        m_modelTester = std::make_unique<QAbstractItemModelTester>(
            m_page->matrixModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        m_viewModelTester = std::make_unique<QAbstractItemModelTester>(
            m_page->matrixView()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        m_page->resize(1400, 900);
        m_page->show();
    }

    void cleanup()
    {
        m_viewModelTester.reset();
        m_modelTester.reset();
        m_page.reset();
        m_prompter.reset();
    }

    void openingAReportFillsTheMatrixReadOnly()
    {
        const ProbeReport report = sampleReport();
        openThroughPage(report, QStringLiteral("sample.json"));

        ProbeMatrixModel *model = m_page->matrixModel();
        QCOMPARE(model->rowCount(), int(allChecks().size()));
        QCOMPARE(model->columnCount(), 3); // alice → bob, bob → alice, server
        for (const CheckResult &expected : report.results) {
            const QModelIndex cell = model->indexOf(expected.check, expected.subject());
            QVERIFY2(cell.isValid(), qPrintable(expected.subject()));
            QCOMPARE(cell.data(ProbeMatrixModel::VerdictRole).toInt(), int(expected.verdict));
        }
        // A cell the report has no result for stays empty.
        QVERIFY(!model->indexOf(CheckId::FilesGlob, pairSubject(alice, bob))
                     .data(ProbeMatrixModel::VerdictRole)
                     .isValid());

        QVERIFY(m_page->isReadOnly());
        QVERIFY(
            m_page->summaryText().contains(QStringLiteral("PASS 2 · FAIL 2 · INFO 1 · ERROR 1")));
        QVERIFY(m_page->summaryText().contains(QStringLiteral("read-only")));
        QVERIFY(m_page->selectCell(CheckId::FilesWrite, pairSubject(alice, bob)));
        QVERIFY(!m_page->rerunButton()->isEnabled());
        QVERIFY(m_page->rerunButton()->toolTip().contains(QStringLiteral("opened from a file")));
    }

    // The scorecard above the matrix is the report's: a row per category in the report's
    // order (FAILs first), its counts, the worst finding and the server version.
    void scorecardShowsCategoriesWorstFindingAndVersion()
    {
        QVERIFY(!m_page->scorecardView()->isVisible());
        const ProbeReport report = sampleReport();
        openThroughPage(report, QStringLiteral("scorecard.json"));
        expectScorecardOf(report);
        QVERIFY(m_page->scorecardView()->isVisible());
    }

    void rowHeadersShowSeverityAndFailMeaning()
    {
        QAbstractItemModel *shown = m_page->matrixView()->model();
        const auto &checks = allChecks();
        const int row = int(std::find_if(checks.cbegin(), checks.cend(), [](const CheckInfo &c) {
            return c.id == CheckId::ProcessKill;
        }) - checks.cbegin());
        const CheckInfo &info = checkInfo(CheckId::ProcessKill);
        const QString header = shown->headerData(row, Qt::Vertical).toString();
        QVERIFY2(header.contains(info.title) && header.contains(severityName(info.severity)),
            qPrintable(header));
        QVERIFY(shown->headerData(row, Qt::Vertical, Qt::ToolTipRole)
                    .toString()
                    .contains(info.failMeaning));
    }

    void delegatePaintsEachVerdictDistinctly_data()
    {
        QTest::addColumn<bool>("dark");
        QTest::newRow("light palette") << false;
        QTest::newRow("dark palette") << true;
    }

    void delegatePaintsEachVerdictDistinctly()
    {
        QFETCH(bool, dark);
        if (dark)
            m_page->matrixView()->setPalette(darkPalette());
        openThroughPage(sampleReport(), QStringLiteral("colours.json"));
        m_page->matrixView()->clearSelection();
        m_page->matrixView()->setCurrentIndex({});

        const QString a2b = pairSubject(alice, bob);
        const QImage passCell = cellImage(CheckId::FilesRead, a2b, 2);
        const QColor pass = dominantColour(passCell);
        const QColor fail = dominantColour(cellImage(CheckId::FilesWrite, a2b, 2));
        const QColor info = dominantColour(cellImage(CheckId::NetworkPort, a2b, 2));
        const QImage errorCell = cellImage(CheckId::ProcessKill, a2b, 2);
        const QColor error = dominantColour(errorCell);
        const QColor base = m_page->matrixView()->palette().color(QPalette::Base);

        const QList<QColor> colours {pass, fail, info, error};
        for (int i = 0; i < colours.size(); ++i) {
            for (int j = i + 1; j < colours.size(); ++j)
                QVERIFY2(colours.at(i) != colours.at(j),
                    qPrintable(QStringLiteral("verdicts %1 and %2 share %3")
                                   .arg(i)
                                   .arg(j)
                                   .arg(colours.at(i).name())));
        }
        QVERIFY2(pass.green() > pass.red() && pass.green() > pass.blue(), qPrintable(pass.name()));
        QVERIFY2(fail.red() > fail.green() && fail.red() > fail.blue(), qPrintable(fail.name()));
        QVERIFY2(
            error.red() > error.blue() && error.green() > error.blue(), qPrintable(error.name()));
        QVERIFY2(hueDistance(error, pass) > 45, qPrintable(error.name() + pass.name()));
        QVERIFY2(info.hsvSaturation() < 40, qPrintable(info.name())); // neutral
        // The palette is respected: dark cells on a dark base, light ones on a light base.
        QCOMPARE(pass.lightness() < 128, base.lightness() < 128);
        QCOMPARE(error.lightness() < 128, base.lightness() < 128);
        // ERROR is striped: a second colour covers a real share of the cell; PASS is plain.
        QVERIFY(substantialColours(errorCell, 0.05) >= 2);
        QCOMPARE(substantialColours(passCell, 0.05), 1);
    }

    void selectingACellShowsItsEvidence()
    {
        openThroughPage(sampleReport(), QStringLiteral("evidence.json"));
        QVERIFY(m_page->selectCell(CheckId::FilesWrite, pairSubject(alice, bob)));

        const QString evidence = m_page->evidenceView()->toPlainText();
        QVERIFY2(evidence.contains(QStringLiteral("POST /files/write  (X-User-Id: bob)")),
            qPrintable(evidence));
        QVERIFY(evidence.contains(QStringLiteral("HTTP 200")));
        QVERIFY(evidence.contains(QStringLiteral("/home/alice/intruder-91c2.txt")));
        // The face itself is tst_monospacefont's subject; the page must use it.
        QCOMPARE(m_page->evidenceView()->font().family(), monospaceFont().family());
        QVERIFY(m_page->evidenceView()->isReadOnly());

        const QString detail = m_page->detailText();
        QVERIFY2(detail.contains(QStringLiteral("bob wrote a file into alice's home.")),
            qPrintable(detail));
        QVERIFY(detail.contains(QStringLiteral("FAIL")));
        QVERIFY(detail.contains(severityName(checkInfo(CheckId::FilesWrite).severity)));
        QVERIFY(detail.contains(checkInfo(CheckId::FilesWrite).failMeaning));

        // Clicking another cell switches the pane to that cell's evidence.
        QTableView *view = m_page->matrixView();
        const QModelIndex server = view->model()->index(
            m_page->matrixModel()->indexOf(CheckId::ReservedIds, serverSubject()).row(),
            m_page->matrixModel()->indexOf(CheckId::ReservedIds, serverSubject()).column());
        view->scrollTo(server);
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(server).center());
        QVERIFY(m_page->evidenceView()->toPlainText().contains(
            QStringLiteral("uid=0(root) gid=0(root)")));

        // A cell that does not apply says so and shows no evidence.
        QVERIFY(m_page->selectCell(CheckId::ReservedIds, pairSubject(alice, bob)));
        QVERIFY(m_page->detailText().contains(QStringLiteral("does not apply")));
        QVERIFY(m_page->evidenceView()->toPlainText().isEmpty());
    }

    void exportWritesTheCoreMarkdownAndJsonOfTheShownReport()
    {
        QVERIFY(!m_page->findChild<QPushButton *>(QStringLiteral("exportJsonButton"))->isEnabled());
        QString error;
        QVERIFY(!m_page->exportJson(path(QStringLiteral("none.json")), &error));
        QVERIFY(!error.isEmpty());

        openThroughPage(sampleReport(), QStringLiteral("export-source.json"));
        // What the page shows is what the file holds, read by the core itself.
        QFile source(path(QStringLiteral("export-source.json")));
        QVERIFY(source.open(QIODevice::ReadOnly));
        ProbeReport shown;
        QVERIFY(ProbeReport::fromJson(QJsonDocument::fromJson(source.readAll()).object(), &shown));

        m_prompter->savePaths << path(QStringLiteral("out.md")) << path(QStringLiteral("out.json"));
        m_page->findChild<QPushButton *>(QStringLiteral("exportMarkdownButton"))->click();
        m_page->findChild<QPushButton *>(QStringLiteral("exportJsonButton"))->click();
        QCOMPARE(m_prompter->asked.size(), 3); // open, markdown, json

        QFile markdown(path(QStringLiteral("out.md")));
        QVERIFY(markdown.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(markdown.readAll()), shown.toMarkdown());
        QFile json(path(QStringLiteral("out.json")));
        QVERIFY(json.open(QIODevice::ReadOnly));
        QJsonParseError parseError;
        const QJsonDocument document = QJsonDocument::fromJson(json.readAll(), &parseError);
        QCOMPARE(parseError.error, QJsonParseError::NoError);
        QCOMPARE(document.object(), shown.toJson());
        QCOMPARE(m_page->messageBar()->level(), MessageBar::Level::Information);
    }

    void compareMarksTheChangedCells()
    {
        ProbeReport before = sampleReport();
        before.serverVersion = QStringLiteral("0.11.34");
        ProbeReport after = sampleReport();
        after.serverVersion = QStringLiteral("0.14.5");
        after.results[1].verdict = Verdict::Pass; // files.write alice → bob: FAIL → PASS
        after.results.removeAt(5); // reserved ids: not run any more
        after.results << result(CheckId::ProcessList, alice, bob, Verdict::Pass,
            QStringLiteral("bob does not see alice's process.")); // new cell

        QVERIFY(writeReport(path(QStringLiteral("before.json")), before));
        openThroughPage(after, QStringLiteral("after.json"));
        m_prompter->openPaths << path(QStringLiteral("before.json"));
        m_page->findChild<QPushButton *>(QStringLiteral("compareButton"))->click();

        QTreeWidget *list = m_page->differencesView();
        QVERIFY(list->isVisibleTo(m_page.get()));
        QCOMPARE(list->topLevelItemCount(), 3);
        QStringList rows;
        for (int i = 0; i < list->topLevelItemCount(); ++i) {
            const QTreeWidgetItem *item = list->topLevelItem(i);
            rows << item->text(1) + QLatin1Char(' ') + item->text(2) + QLatin1Char('>')
                    + item->text(3);
        }
        const QString a2b = pairSubject(alice, bob);
        QVERIFY2(rows.contains(a2b + QStringLiteral(" FAIL>PASS")), qPrintable(rows.join(u'|')));
        QVERIFY2(rows.contains(serverSubject() + QStringLiteral(" FAIL>(no result)")),
            qPrintable(rows.join(u'|')));

        QAbstractItemModel *shown = m_page->matrixView()->model();
        const auto changed = [&](CheckId check, const QString &subject) {
            const QModelIndex source = m_page->matrixModel()->indexOf(check, subject);
            return shown->index(source.row(), source.column())
                .data(ProbeDelegate::ChangedRole)
                .toString();
        };
        QVERIFY(changed(CheckId::FilesWrite, a2b).contains(QStringLiteral("FAIL → PASS")));
        QVERIFY(!changed(CheckId::ProcessList, a2b).isEmpty());
        QVERIFY(changed(CheckId::FilesRead, a2b).isEmpty()); // unchanged

        // The changed cell carries the highlight mark in its top-right corner.
        m_page->matrixView()->setCurrentIndex({});
        const QImage marked = cellImage(CheckId::FilesWrite, a2b);
        const QColor highlight = m_page->matrixView()->palette().color(QPalette::Highlight);
        QCOMPARE(QColor(marked.pixel(marked.width() - 4, 2)), highlight);
        const QImage plain = cellImage(CheckId::FilesRead, a2b);
        QVERIFY(QColor(plain.pixel(plain.width() - 4, 2)) != highlight);

        // Choosing a difference selects its cell.
        list->setCurrentItem(list->topLevelItem(0));
        QVERIFY(m_page->matrixView()->currentIndex().isValid());
        QVERIFY(m_page->detailText().contains(QStringLiteral("Changed since the compared report")));

        m_page->closeComparison();
        QVERIFY(changed(CheckId::FilesWrite, a2b).isEmpty());
        QVERIFY(!list->isVisibleTo(m_page.get()));
    }

    void invalidReportFileGivesAClearMessage_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("expected");
        QTest::newRow("broken JSON")
            << QByteArray("{\"users\": [\"alice\"") << QStringLiteral("not valid JSON");
        QTest::newRow("JSON array") << QByteArray("[1, 2]") << QStringLiteral("not a JSON object");
        QTest::newRow("other JSON object")
            << QByteArray("{\"hello\": 1}") << QStringLiteral("not a probe report");
        QTest::newRow("missing file") << QByteArray() << QStringLiteral("Cannot read");
    }

    void invalidReportFileGivesAClearMessage()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, expected);
        openThroughPage(sampleReport(), QStringLiteral("good.json"));
        const QString summaryBefore = m_page->summaryText();

        const QString bad
            = path(QStringLiteral("bad-%1.json")
                       .arg(QString::fromLatin1(QTest::currentDataTag()).replace(u' ', u'-')));
        if (!content.isEmpty())
            QVERIFY(writeBytes(bad, content));
        m_prompter->openPaths << bad << bad;
        m_page->findChild<QPushButton *>(QStringLiteral("openButton"))->click();
        QCOMPARE(m_page->messageBar()->level(), MessageBar::Level::Error);
        QVERIFY2(m_page->messageBar()->text().contains(expected),
            qPrintable(m_page->messageBar()->text()));
        QVERIFY(m_page->messageBar()->text().contains(bad));
        // The report shown before stays.
        QCOMPARE(m_page->summaryText(), summaryBefore);
        QCOMPARE(m_page->matrixModel()->columnCount(), 3);

        m_page->findChild<QPushButton *>(QStringLiteral("compareButton"))->click();
        QCOMPARE(m_page->messageBar()->level(), MessageBar::Level::Error);
        QVERIFY(m_page->messageBar()->text().contains(expected));
        QVERIFY(m_page->differences().isEmpty());
    }

    void runButtonNamesTheUsersItWillActAs_data()
    {
        QTest::addColumn<QString>("typed");
        QTest::addColumn<bool>("connected");
        QTest::addColumn<bool>("runnable");
        QTest::addColumn<QString>("expected"); // in the button text when runnable, else the hint
        QTest::newRow("two users") << QStringLiteral("alice, bob") << true << true
                                   << QStringLiteral("Probe as alice, bob");
        QTest::newRow("space separated") << QStringLiteral("alice bob carol") << true << true
                                         << QStringLiteral("Probe as alice, bob, carol");
        QTest::newRow("many users") << QStringLiteral("a1,b2,c3,d4,e5") << true << true
                                    << QStringLiteral("Probe as a1, b2, c3 +2 more");
        QTest::newRow("one user") << QStringLiteral("alice") << true << false
                                  << QStringLiteral("at least two user ids");
        QTest::newRow("reserved id") << QStringLiteral("alice, root") << true << false
                                     << QStringLiteral("\"root\" is not a valid user id");
        QTest::newRow("twice") << QStringLiteral("alice, alice") << true << false
                               << QStringLiteral("given twice");
        QTest::newRow("not connected")
            << QStringLiteral("alice, bob") << false << false << QStringLiteral("Not connected");
    }

    void runButtonNamesTheUsersItWillActAs()
    {
        QFETCH(QString, typed);
        QFETCH(bool, connected);
        QFETCH(bool, runnable);
        QFETCH(QString, expected);
        OpenTerminalClient client(ServerConnection {
            QUrl(QStringLiteral("http://127.0.0.1:9")), QStringLiteral("k"), 1000});
        if (connected)
            m_page->setClient(&client);
        QVERIFY(!m_page->runButton()->isEnabled()); // empty by default
        QTest::keyClicks(m_page->usersEdit(), typed);
        QCOMPARE(m_page->runButton()->isEnabled(), runnable);
        const QString hint = m_page->findChild<QLabel *>(QStringLiteral("usersHint"))->text();
        if (runnable) {
            QCOMPARE(m_page->runButton()->text(), expected);
            // The tooltip and hint name every user and the privileged ids also used.
            for (const QString &id : m_page->users())
                QVERIFY(m_page->runButton()->toolTip().contains(id));
            QVERIFY(hint.contains(QStringLiteral("root")));
            QVERIFY(hint.contains(QStringLiteral("without X-User-Id")));
        } else {
            QVERIFY2(hint.contains(expected), qPrintable(hint));
        }
        m_page->setClient(nullptr);
    }

    void checkSelectionNarrowsTheRun()
    {
        OpenTerminalClient client(ServerConnection {
            QUrl(QStringLiteral("http://127.0.0.1:9")), QStringLiteral("k"), 1000});
        m_page->setClient(&client);
        auto *checksButton = m_page->findChild<QToolButton *>(QStringLiteral("checksButton"));
        QCOMPARE(checksButton->text(), QStringLiteral("Checks: all"));
        QVERIFY(m_page->checks().isEmpty());
        // On one server the checks across members are not offered.
        int acrossMembers = 0;
        for (QAction *action : checksButton->menu()->actions()) {
            if (!action->isCheckable() || !checkInfo(CheckId(action->data().toInt())).acrossMembers)
                continue;
            ++acrossMembers;
            QVERIFY(!action->isEnabled());
            QVERIFY2(
                action->toolTip().contains(QLatin1String("fleet")), qPrintable(action->toolTip()));
        }
        QCOMPARE(acrossMembers, 2);

        m_page->setChecks({CheckId::FilesRead, CheckId::FilesList});
        QCOMPARE(m_page->checks(), (QVector<CheckId> {CheckId::FilesList, CheckId::FilesRead}));
        QCOMPARE(checksButton->text(), QStringLiteral("Checks: 2 of %1").arg(allChecks().size()));
        // Without the account-mapping checks no other ids are used, and the hint says only
        // the chosen users are acted as.
        m_page->setUsers({alice, bob});
        const auto hint = [this] {
            return m_page->findChild<QLabel *>(QStringLiteral("usersHint"))->text();
        };
        QVERIFY(!hint().contains(QStringLiteral("root")));
        QVERIFY(m_page->runButton()->isEnabled());

        // The reserved-ids check alone acts only as the reserved ids: no users needed.
        m_page->setUsers({});
        QVERIFY(!m_page->runButton()->isEnabled());
        m_page->setChecks({CheckId::ReservedIds});
        QVERIFY(m_page->runButton()->isEnabled());
        QVERIFY(hint().contains(QStringLiteral("root")));

        // Nothing chosen: nothing to run.
        for (QAction *action : checksButton->menu()->actions()) {
            if (action->isCheckable())
                action->setChecked(false);
        }
        QCOMPARE(checksButton->text(), QStringLiteral("Checks: none"));
        QVERIFY(!m_page->runButton()->isEnabled());
        m_page->setChecks({});
        QCOMPARE(checksButton->text(), QStringLiteral("Checks: all"));
        m_page->setClient(nullptr);
    }

    // On both pinned versions: one server each.
    void probeRunsFromThePageAgainstARealServer_data() { sandscope::test::addVersionRows(); }
    void probeRunsFromThePageAgainstARealServer()
    {
        QFETCH(QString, version);
        QString why;
        SANDSCOPE_REQUIRE(RealServer::canRunMultiUser(&why), why);
        RealServer server(version, RealServer::Mode::MultiUser);
        QVERIFY2(server.start(&why), qPrintable(why));
        OpenTerminalClient client(server.connection());
        const QString suffix = sandscope::test::randomToken(6);
        const QString ui1 = QStringLiteral("pp-alice-") + suffix;
        const QString ui2 = QStringLiteral("pp-bob-") + suffix;

        m_page->setClient(&client);
        m_page->setIdentityContext(QStringLiteral("test"), server.url().toString());
        m_page->setUsers({ui1, ui2});
        QVERIFY(m_page->runButton()->text().contains(ui1 + QStringLiteral(", ") + ui2));

        QSignalSpy finished(m_page.get(), &ProbePage::probeFinished);
        QSignalSpy results(m_page->matrixModel(), &QAbstractItemModel::dataChanged);
        m_page->runButton()->click();
        QVERIFY2(m_page->isRunning(), qPrintable(m_page->messageBar()->text()));
        QVERIFY(!m_page->runButton()->isEnabled());
        QVERIFY(m_page->cancelButton()->isEnabled());
        QVERIFY(m_page->findChild<QProgressBar *>(QStringLiteral("busyIndicator"))->isVisible());
        QVERIFY(finished.wait(180000) || finished.count() == 1);
        QCOMPARE(finished.count(), 1);
        QVERIFY(!results.isEmpty()); // cells were filled one by one during the run

        const ProbeReport report = m_page->report();
        QVERIFY(!report.cancelled);
        QVERIFY(!m_page->isRunning());
        QVERIFY(!m_page->findChild<QProgressBar *>(QStringLiteral("busyIndicator"))->isVisible());
        QVERIFY(m_page->runButton()->isEnabled());
        QCOMPARE(report.users, (QStringList {ui1, ui2}));
        // The matrix is full: every cell that applies shows the verdict the report holds.
        ProbeMatrixModel *model = m_page->matrixModel();
        QCOMPARE(model->columnCount(), 3);
        int filled = 0;
        for (int row = 0; row < model->rowCount(); ++row) {
            for (int column = 0; column < model->columnCount(); ++column) {
                const QModelIndex cell = model->index(row, column);
                if (!cell.data(ProbeMatrixModel::ApplicableRole).toBool())
                    continue;
                const QString where = checkInfo(model->checkAt(row)).key + QLatin1Char(' ')
                    + model->subjectAt(column);
                const CheckResult *found
                    = report.find(model->checkAt(row), model->subjectAt(column));
                QVERIFY2(found, qPrintable(where + QStringLiteral(" has no result")));
                QCOMPARE(cell.data(ProbeMatrixModel::VerdictRole).toInt(), int(found->verdict));
                ++filled;
            }
        }
        QCOMPARE(filled, int(report.results.size()));
        // The file checks run as real users on a working server: they must be judged.
        for (CheckId check : {CheckId::FilesList, CheckId::FilesRead}) {
            for (const QString &subject : {pairSubject(ui1, ui2), pairSubject(ui2, ui1)})
                QVERIFY2(report.find(check, subject)->verdict != Verdict::Error,
                    qPrintable(report.find(check, subject)->explanation));
        }
        QVERIFY(m_page->summaryText().contains(
            QStringLiteral("PASS %1 ·").arg(report.count(Verdict::Pass))));
        expectScorecardOf(report);

        QFile audit(path(QStringLiteral("audit.jsonl")));
        QVERIFY(audit.open(QIODevice::ReadOnly));
        const QByteArray auditText = audit.readAll();
        QVERIFY(auditText.contains((ui1 + QLatin1Char(',') + ui2).toUtf8()));
        QVERIFY(!auditText.contains(server.apiKey().toUtf8()));

        // Rerun one cell: fresh markers, the cell is replaced, nothing else changes.
        const QString subject = pairSubject(ui1, ui2);
        QVERIFY(m_page->selectCell(CheckId::FilesRead, subject));
        const QString evidenceBefore = m_page->evidenceView()->toPlainText();
        QVERIFY(!evidenceBefore.isEmpty());
        QVERIFY(!evidenceBefore.contains(server.apiKey()));
        QVERIFY2(m_page->rerunButton()->isEnabled(), qPrintable(m_page->rerunButton()->toolTip()));
        const qsizetype resultCount = report.results.size();
        m_page->rerunButton()->click();
        QVERIFY(m_page->isRunning());
        QVERIFY(finished.wait(120000) || finished.count() == 2);
        QCOMPARE(finished.count(), 2);
        QCOMPARE(m_page->report().results.size(), resultCount);
        const QString evidenceAfter = m_page->evidenceView()->toPlainText();
        QVERIFY(!evidenceAfter.isEmpty());
        QVERIFY2(evidenceAfter != evidenceBefore, "the rerun used fresh random markers");
        QVERIFY(m_page->report().find(CheckId::FilesRead, subject)->verdict != Verdict::Error);
        // The other pair's cell is untouched.
        QCOMPARE(*m_page->report().find(CheckId::FilesRead, pairSubject(ui2, ui1)),
            *report.find(CheckId::FilesRead, pairSubject(ui2, ui1)));

        // Cancel a new run at its first result: it ends as cancelled and the page is idle.
        QObject cancelContext;
        connect(model, &QAbstractItemModel::dataChanged, &cancelContext, [this, &cancelContext] {
            m_page->cancel();
            cancelContext.disconnect();
        });
        m_page->runButton()->click();
        QVERIFY(m_page->isRunning());
        QVERIFY(finished.wait(120000) || finished.count() == 3);
        QCOMPARE(finished.count(), 3);
        QVERIFY(m_page->report().cancelled);
        QVERIFY(m_page->report().results.size() < resultCount);
        QVERIFY(m_page->summaryText().contains(QStringLiteral("cancelled")));
        QVERIFY2(m_page->messageBar()->text().contains(QStringLiteral("Cancelled")),
            qPrintable(m_page->messageBar()->text()));
        QVERIFY(m_page->runButton()->isEnabled());
        m_page->setClient(nullptr);
    }
};

QTEST_MAIN(TestProbePage)
#include "tst_probepage.moc"
