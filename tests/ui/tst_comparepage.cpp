// The Compare tab (offscreen): deltas, aligned calls tinted by state, the selected pair's
// input and output with the differing lines highlighted, the files touched, "Differences
// only"; the Compare Runs dialog over open run tabs and files; File → Compare Runs… in the
// window (its own shortcut) opening a Compare tab of two run tabs.

#include "compare/comparedelegate.h"
#include "compare/comparepage.h"
#include "compare/comparerunsdialog.h"
#include "compare/runcomparisonmodel.h"
#include "compare/touchedfilesmodel.h"
#include "mainwindow.h"
#include "messagebar.h"
#include "runs/loadedrun.h"
#include "runs/runpage.h"
#include "runs/runtabs.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QTreeView>
#include <QtTest/QTest>

using namespace sandscope;

namespace {

const QString dataDir = QStringLiteral(SANDSCOPE_TEST_DATA_DIR);

ComparedCall makeCall(
    const QString &tool, const QString &input, const QString &output, const QString &path = {})
{
    ComparedCall call;
    call.toolName = tool;
    call.input = input;
    call.output = output;
    call.answered = true;
    call.filePath = path;
    return call;
}

// A: Glob, Bash "ls", Read a.txt; B: Glob, Bash "ls -la" (changed), Write b.txt (added).
RunComparison sample()
{
    ComparedRun a;
    a.source = QStringLiteral("first.jsonl");
    a.summary.toolCalls = 3;
    a.summary.hasResult = true;
    a.summary.resultSubtype = QStringLiteral("success");
    ComparedRun b = a;
    b.source = QStringLiteral("second.jsonl");
    b.summary.toolCalls = 3;
    b.summary.toolErrors = 1;
    const ComparedCall glob
        = makeCall(QStringLiteral("Glob"), QStringLiteral(R"({"pattern":"*"})"), {});
    a.calls = {glob,
        makeCall(QStringLiteral("Bash"), QStringLiteral(R"({"command":"ls"})"),
            QStringLiteral("a.txt\nnotes")),
        makeCall(QStringLiteral("Read"), QStringLiteral(R"({"file_path":"<cwd>/a.txt"})"),
            QStringLiteral("hello"), QStringLiteral("<cwd>/a.txt"))};
    b.calls = {glob,
        makeCall(QStringLiteral("Bash"), QStringLiteral(R"({"command":"ls -la"})"),
            QStringLiteral("a.txt\nnotes\nb.txt")),
        makeCall(QStringLiteral("Write"), QStringLiteral(R"({"file_path":"<cwd>/b.txt"})"),
            QStringLiteral("ok"), QStringLiteral("<cwd>/b.txt"))};
    return RunComparison::compare(a, b);
}

int rowWithState(const RunComparisonModel *model, RunComparison::State state)
{
    for (int row = 0; row < model->rowCount(); ++row)
        if (model->index(row, 0).data(RunComparisonModel::StateRole).toInt() == int(state))
            return row;
    return -1;
}

} // namespace

class TestComparePage : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void showsTheComparison();
    void rowsAreTintedByState();
    void differencesOnly();
    void dialogChoosesTabsAndFiles();
    void windowOpensACompareTab();
    void filesAreReadOffTheWindowAndANonRunIsRefused();

private:
    QTemporaryDir m_dir;
};

void TestComparePage::initTestCase()
{
    QVERIFY(m_dir.isValid());
    qputenv("SANDSCOPE_AUDIT_LOG", m_dir.filePath(QStringLiteral("audit.jsonl")).toUtf8());
}

void TestComparePage::showsTheComparison()
{
    ComparePage page;
    QAbstractItemModelTester tester(
        page.model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester filesTester(
        page.filesModel(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    const RunComparison comparison = sample();
    page.resize(1000, 700);
    page.show();
    page.setComparison(comparison);
    QCOMPARE(page.model()->rowCount(), comparison.rows().size());
    QCOMPARE(page.filesModel()->rowCount(), 2);

    // The deltas: one column per delta, A / B / B − A.
    auto *deltas = page.findChild<QTableWidget *>(QStringLiteral("deltasTable"));
    QVERIFY(deltas);
    QCOMPARE(deltas->columnCount(), comparison.deltas().size());
    QCOMPARE(deltas->rowCount(), 3);
    for (int column = 0; column < deltas->columnCount(); ++column) {
        const RunComparison::Delta &delta = comparison.deltas().at(column);
        if (delta.key == QLatin1String("tool_errors")) {
            QCOMPARE(deltas->item(0, column)->text(), QStringLiteral("0"));
            QCOMPARE(deltas->item(1, column)->text(), QStringLiteral("1"));
            QCOMPARE(deltas->item(2, column)->text(), QStringLiteral("+1"));
        }
        if (delta.key == QLatin1String("tool_calls"))
            QCOMPARE(deltas->item(2, column)->text(), QStringLiteral("0"));
    }

    // The first difference is selected: the changed Bash call, its differing lines marked.
    const int changed = rowWithState(page.model(), RunComparison::State::Changed);
    QVERIFY(changed > 0);
    auto *calls = page.findChild<QTreeView *>(QStringLiteral("callsView"));
    QCOMPARE(calls->currentIndex().row(), changed);
    QVERIFY(page.leftText().contains(QLatin1String("\"command\": \"ls\"")));
    QVERIFY(page.rightText().contains(QLatin1String("\"command\": \"ls -la\"")));
    // Left: the command line; right: the command line and the extra output line.
    QCOMPARE(page.highlightedLines(true), 1);
    QCOMPARE(page.highlightedLines(false), 2);

    // A call only in B: the left side says so, and every line on the right differs.
    const int added = rowWithState(page.model(), RunComparison::State::Added);
    QVERIFY(added >= 0);
    page.selectRow(added);
    QVERIFY(page.leftText().contains(QLatin1String("no call")));
    QVERIFY(page.rightText().startsWith(QLatin1String("Write")));
    // The same call: nothing highlighted.
    page.selectRow(rowWithState(page.model(), RunComparison::State::Same));
    QCOMPARE(page.leftText(), page.rightText());
    QCOMPARE(page.highlightedLines(true), 0);
    QCOMPARE(page.highlightedLines(false), 0);
}

void TestComparePage::rowsAreTintedByState()
{
    ComparePage page;
    page.resize(1000, 700);
    page.show();
    page.setComparison(sample());
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    auto *calls = page.findChild<QTreeView *>(QStringLiteral("callsView"));
    calls->clearSelection();
    calls->setCurrentIndex(QModelIndex());
    const QImage image = calls->viewport()->grab().toImage();
    for (const auto state : {RunComparison::State::Changed, RunComparison::State::Added,
             RunComparison::State::Removed}) {
        const int row = rowWithState(page.model(), state);
        QVERIFY(row >= 0);
        const QRect rect
            = calls->visualRect(page.model()->index(row, RunComparisonModel::LeftColumn));
        const QColor pixel = image.pixelColor(rect.right() - 4, rect.center().y());
        QCOMPARE(pixel.name(), CompareDelegate::tint(state, calls->palette()).name());
    }
    const QRect same = calls->visualRect(
        page.model()->index(rowWithState(page.model(), RunComparison::State::Same), 1));
    QCOMPARE(image.pixelColor(same.right() - 4, same.center().y()).name(),
        calls->palette().color(QPalette::Base).name());
    if (qEnvironmentVariableIsSet("SANDSCOPE_SCREENSHOT")) {
        page.selectRow(rowWithState(page.model(), RunComparison::State::Changed));
        page.grab().save(
            qEnvironmentVariable("SANDSCOPE_SCREENSHOT") + QStringLiteral(".page.png"));
        page.findChild<QTabWidget *>(QStringLiteral("detailTabs"))->setCurrentIndex(1);
        page.grab().save(
            qEnvironmentVariable("SANDSCOPE_SCREENSHOT") + QStringLiteral(".files.png"));
    }
}

void TestComparePage::differencesOnly()
{
    ComparePage page;
    const RunComparison comparison = sample();
    page.setComparison(comparison);
    auto *box = page.findChild<QCheckBox *>(QStringLiteral("differencesOnlyBox"));
    QVERIFY(box);
    box->setChecked(true);
    QCOMPARE(page.model()->rowCount(),
        comparison.rows().size() - comparison.count(RunComparison::State::Same));
    box->setChecked(false);
    QCOMPARE(page.model()->rowCount(), comparison.rows().size());
}

void TestComparePage::dialogChoosesTabsAndFiles()
{
    RunPage first;
    RunPage second;
    QVERIFY(first.openFile(dataDir + QStringLiteral("/stream-basic.jsonl")));
    QVERIFY(second.openFile(dataDir + QStringLiteral("/stream-maxturns.jsonl")));
    CompareRunsDialog dialog(
        {{QStringLiteral("basic"), &first}, {QStringLiteral("maxturns"), &second}});
    QCOMPARE(dialog.left().page.data(), &first);
    QCOMPARE(dialog.right().page.data(), &second);
    auto *ok = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
    QVERIFY(ok->isEnabled());
    const QString file = dataDir + QStringLiteral("/stream-subagent.jsonl");
    dialog.addFile(file, false);
    QCOMPARE(dialog.right().filePath, file);
    QVERIFY(!dialog.right().page);
    QCOMPARE(dialog.left().page.data(), &first);
    QVERIFY(ok->isEnabled());

    // Without open runs, only files can be chosen: OK waits for one; with one file both sides
    // are that file, and the dialog says there will be no difference.
    CompareRunsDialog empty({});
    auto *emptyOk = empty.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
    auto *status = empty.findChild<QLabel *>(QStringLiteral("statusLabel"));
    QVERIFY(!emptyOk->isEnabled());
    QVERIFY(!status->text().isEmpty());
    empty.addFile(file, true);
    QCOMPARE(empty.right().filePath, file);
    QVERIFY(status->text().contains(QLatin1String("same run")));
    empty.addFile(dataDir + QStringLiteral("/stream-basic.jsonl"), false);
    QVERIFY(emptyOk->isEnabled());
    QCOMPARE(empty.left().filePath, file);
    QVERIFY(status->text().isEmpty());
}

void TestComparePage::windowOpensACompareTab()
{
    MainWindow window(m_dir.filePath(QStringLiteral("profiles.ini")));
    window.show();
    // Both tabs read their files asynchronously: compared once they are read.
    for (const QString &name : {QStringLiteral("/transcripts/resume/stream.jsonl"),
             QStringLiteral("/stream-basic.jsonl")}) {
        RunPage *opened = window.runTabs()->openRunFile(dataDir + name);
        QVERIFY(opened);
        QTRY_VERIFY_WITH_TIMEOUT(!opened->isLoading(), 60000);
    }

    QAction *compare = nullptr;
    QHash<QString, int> shortcuts;
    for (QAction *action : window.findChildren<QAction *>()) {
        if (action->text().contains(QLatin1String("Com&pare Runs")))
            compare = action;
        for (const QKeySequence &key : action->shortcuts())
            ++shortcuts[key.toString()];
    }
    QVERIFY(compare);
    QCOMPARE(compare->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+D")));
    QCOMPARE(shortcuts.value(QStringLiteral("Ctrl+Shift+D")), 1);

    bool accepted = false;
    QTimer::singleShot(0, &window, [&accepted] {
        for (QWidget *widget : QApplication::topLevelWidgets()) {
            if (auto *dialog = qobject_cast<CompareRunsDialog *>(widget)) {
                accepted = dialog->left().page && dialog->right().page;
                if (qEnvironmentVariableIsSet("SANDSCOPE_SCREENSHOT"))
                    dialog->grab().save(qEnvironmentVariable("SANDSCOPE_SCREENSHOT")
                        + QStringLiteral(".dialog.png"));
                dialog->accept();
            }
        }
    });
    compare->trigger();
    QVERIFY(accepted);
    // The runs are aligned on a worker thread; the tab follows.
    QTRY_VERIFY(qobject_cast<ComparePage *>(window.pages()->currentWidget()));
    auto *page = qobject_cast<ComparePage *>(window.pages()->currentWidget());
    // resume (2 Bash calls, 2 turns) against basic (1 call): they differ.
    const RunComparison &comparison = page->comparison();
    QCOMPARE(comparison.left().calls.size(), 2);
    QCOMPARE(comparison.right().calls.size(), 1);
    QVERIFY(!comparison.same());
    if (qEnvironmentVariableIsSet("SANDSCOPE_SCREENSHOT")) {
        window.resize(1280, 800);
        QTest::qWait(500);
        window.grab().save(qEnvironmentVariable("SANDSCOPE_SCREENSHOT"));
    }
    QVERIFY(window.pages()
                ->tabText(window.pages()->currentIndex())
                .startsWith(QLatin1String("Compare:")));
}

// Files are read on a worker thread: the tab appears later; a file that holds no run ends in an
// error on the message bar and no tab.
void TestComparePage::filesAreReadOffTheWindowAndANonRunIsRefused()
{
    MainWindow window(m_dir.filePath(QStringLiteral("profiles.ini")));
    window.show();
    const int pagesBefore = window.pages()->count();
    const auto compareFiles = [&window](const QString &left, const QString &right) {
        QTimer::singleShot(0, &window, [left, right] {
            for (QWidget *widget : QApplication::topLevelWidgets()) {
                if (auto *dialog = qobject_cast<CompareRunsDialog *>(widget)) {
                    dialog->addFile(left, true);
                    dialog->addFile(right, false);
                    dialog->accept();
                }
            }
        });
        window.runTabs()->showCompareDialog();
    };

    const QString notARun = m_dir.filePath(QStringLiteral("page.html"));
    QFile html(notARun);
    QVERIFY(html.open(QIODevice::WriteOnly));
    html.write("<!DOCTYPE html><html><body>502 Bad Gateway</body></html>\n");
    html.close();
    compareFiles(dataDir + QStringLiteral("/stream-basic.jsonl"), notARun);
    QTRY_VERIFY(window.messageBar()->text().contains(QLatin1String("not a Claude Code run")));
    QCOMPARE(window.pages()->count(), pagesBefore);

    compareFiles(dataDir + QStringLiteral("/transcripts/resume/stream.jsonl"),
        dataDir + QStringLiteral("/stream-basic.jsonl"));
    QTRY_VERIFY(qobject_cast<ComparePage *>(window.pages()->currentWidget()));
    const auto *page = qobject_cast<ComparePage *>(window.pages()->currentWidget());
    QCOMPARE(page->comparison().left().calls.size(), 2);
    QCOMPARE(page->comparison().right().calls.size(), 1);
    QCOMPARE(window.pages()->count(), pagesBefore + 1);
}

QTEST_MAIN(TestComparePage)
#include "tst_comparepage.moc"
