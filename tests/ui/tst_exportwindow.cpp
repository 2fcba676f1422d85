// File › Export Run… in the window: enabled only on a run tab; what a run tab shows exports
// and its JSON opens in a new tab as the same tree (every tool call with its nesting and
// outcome, same summary); a target that cannot be written leaves the tab as it was and says
// why; the dialog redacts by default and keeps the file's suffix in step with the format;
// the export folder is remembered.

#include "export/exportrundialog.h"
#include "mainwindow.h"
#include "messagebar.h"
#include "runs/runpage.h"
#include "runs/runtabs.h"
#include "runtreeshape.h"
#include "windowstate.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QMenuBar>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace sandscope;

namespace {

QAction *exportAction(MainWindow &window)
{
    const QList<QAction *> actions = window.menuBar()->findChildren<QAction *>();
    for (QAction *action : actions) {
        if (action->text().remove(QLatin1Char('&')).startsWith(QLatin1String("Export Run")))
            return action;
    }
    return nullptr;
}

RunPage *openAndWait(MainWindow &window, const QString &path)
{
    RunPage *page = window.runTabs()->openRunFile(path);
    if (!page)
        return nullptr;
    QSignalSpy finished(page, &RunPage::loadFinished);
    if (!finished.wait(20000) && finished.isEmpty())
        return nullptr;
    return page;
}

} // namespace

class TestExportWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void exportsWhatTheTabShowsAndReopensIt();
    void failedWriteKeepsTheTab();
    void dialogDefaults();
    void dialogExportWritesOffTheWindowThread();

private:
    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
};

void TestExportWindow::initTestCase()
{
    QVERIFY(m_dir.isValid());
    qputenv("SANDSCOPE_AUDIT_LOG", m_dir.filePath(QStringLiteral("audit.jsonl")).toUtf8());
    m_window = std::make_unique<MainWindow>(m_dir.filePath(QStringLiteral("profiles.ini")));
    m_window->show();
}

void TestExportWindow::exportsWhatTheTabShowsAndReopensIt()
{
    MainWindow &window = *m_window;
    QAction *action = exportAction(window);
    QVERIFY(action);
    QVERIFY(!action->isEnabled()); // the console is in front

    RunPage *page
        = openAndWait(window, QStringLiteral(SANDSCOPE_TEST_DATA_DIR "/stream-subagent.jsonl"));
    QVERIFY(page);
    QCOMPARE(window.pages()->currentWidget(), page);
    QVERIFY(action->isEnabled());

    const QString json = m_dir.filePath(QStringLiteral("run.json"));
    QString why;
    QVERIFY2(window.runTabs()->exportRun(page, json, RunExporter::Format::Json, true, &why),
        qPrintable(why));
    const QString html = m_dir.filePath(QStringLiteral("run.html"));
    QVERIFY2(window.runTabs()->exportRun(page, html, RunExporter::Format::Html, true, &why),
        qPrintable(why));
    QVERIFY(QFileInfo(html).size() > 1000);

    RunPage *reopened = openAndWait(window, json);
    QVERIFY(reopened);
    QVERIFY(reopened != page);
    const QStringList calls = test::toolCallShape(*page->model());
    QVERIFY(calls.size() >= 2);
    QCOMPARE(test::toolCallShape(*reopened->model()), calls);
    QCOMPARE(reopened->model()->summary().toJson(), page->model()->summary().toJson());
    QCOMPARE(reopened->model()->rowCount(reopened->model()->runIndex()),
        page->model()->rowCount(page->model()->runIndex()));
    QVERIFY(reopened->noticeText().contains(QLatin1String("export")));

    window.pages()->setCurrentIndex(0);
    QVERIFY(!action->isEnabled());
    window.pages()->setCurrentWidget(reopened);
    QVERIFY(action->isEnabled());
}

void TestExportWindow::failedWriteKeepsTheTab()
{
    MainWindow &window = *m_window;
    RunPage *page
        = openAndWait(window, QStringLiteral(SANDSCOPE_TEST_DATA_DIR "/stream-basic.jsonl"));
    QVERIFY(page);
    const QStringList before = test::toolCallShape(*page->model());
    const QString target = m_dir.filePath(QStringLiteral("missing/run.html"));
    QString why;
    QVERIFY(!window.runTabs()->exportRun(page, target, RunExporter::Format::Html, true, &why));
    QVERIFY(why.contains(target));
    QVERIFY(!QFile::exists(target));
    QCOMPARE(test::toolCallShape(*page->model()), before);
    QVERIFY(!before.isEmpty());
}

void TestExportWindow::dialogDefaults()
{
    ExportRunDialog dialog(m_dir.path(), QStringLiteral("my-run"));
    QVERIFY(dialog.redact());
    QCOMPARE(dialog.format(), RunExporter::Format::Html);
    QCOMPARE(dialog.path(), QDir(m_dir.path()).filePath(QStringLiteral("my-run.html")));
    auto *combo = dialog.findChild<QComboBox *>(QStringLiteral("formatCombo"));
    QVERIFY(combo);
    combo->setCurrentIndex(2);
    QCOMPARE(dialog.format(), RunExporter::Format::Json);
    QCOMPARE(dialog.path(), QDir(m_dir.path()).filePath(QStringLiteral("my-run.json")));
    combo->setCurrentIndex(1);
    QCOMPARE(dialog.path(), QDir(m_dir.path()).filePath(QStringLiteral("my-run.md")));
    dialog.findChild<QCheckBox *>(QStringLiteral("redactCheck"))->setChecked(false);
    QVERIFY(!dialog.redact());

    WindowState state(m_dir.filePath(QStringLiteral("profiles.ini")));
    state.setExportDirectory(m_dir.path());
    QCOMPARE(WindowState(m_dir.filePath(QStringLiteral("profiles.ini"))).exportDirectory(),
        m_dir.path());
}

// The dialog's export renders and writes on a worker thread: the result arrives later, on the
// message bar and through exportFinished; a failed write says so and keeps the tab as it was.
void TestExportWindow::dialogExportWritesOffTheWindowThread()
{
    MainWindow &window = *m_window;
    RunPage *page
        = openAndWait(window, QStringLiteral(SANDSCOPE_TEST_DATA_DIR "/stream-subagent.jsonl"));
    QVERIFY(page);
    QSignalSpy finished(window.runTabs(), &RunTabs::exportFinished);

    const QString target = m_dir.filePath(QStringLiteral("async.md"));
    window.runTabs()->startExport(page, target, RunExporter::Format::Markdown, true);
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.constLast().constFirst().toBool(), true);
    QVERIFY(QFileInfo(target).size() > 100);
    QVERIFY(window.messageBar()->text().contains(QLatin1String("async.md")));

    const QStringList before = test::toolCallShape(*page->model());
    const QString missing = m_dir.filePath(QStringLiteral("missing/async.md"));
    window.runTabs()->startExport(page, missing, RunExporter::Format::Markdown, true);
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.constLast().constFirst().toBool(), false);
    QVERIFY(!QFile::exists(missing));
    QVERIFY(window.messageBar()->text().contains(QLatin1String("not exported")));
    QCOMPARE(test::toolCallShape(*page->model()), before);
}

QTEST_MAIN(TestExportWindow)
#include "tst_exportwindow.moc"
