// The main window's tabs (offscreen, no server): opening any kind of tab, or going to any
// page, never resizes the window (a Compare tab grew it from 1100×700 to 1100×742, and it
// stayed so after the tab closed).

#include "compare/comparepage.h"
#include "compare/comparerunsdialog.h"
#include "mainwindow.h"
#include "runs/runpage.h"
#include "runs/runtabs.h"

#include <QApplication>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest/QTest>

#include <memory>

using namespace sandscope;

namespace {

const QString dataDir = QStringLiteral(SANDSCOPE_TEST_DATA_DIR);
const QSize defaultSize(1100, 700); // MainWindow's size when nothing was saved

} // namespace

class TestWindowTabs : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void openingAnyTabKeepsTheWindowSize_data();
    void openingAnyTabKeepsTheWindowSize();

private:
    // A window at its default size, shown and active (window shortcuts need that).
    std::unique_ptr<MainWindow> newWindow();
    // `count` run tabs read from the test data, loaded.
    bool openRunTabs(MainWindow *window, int count);
    // A Compare tab of two capture files, through File › Compare Runs… (its worker thread).
    ComparePage *openCompareTab(
        MainWindow *window, const QString &left = {}, const QString &right = {});
    // A copy of a capture under a long name with a damaged line: its comparison says more.
    QString damagedCopy(const QString &name);
    // The window's size once pending layouts are done.
    static QSize settledSize(MainWindow *window);

    QTemporaryDir m_dir;
    int m_windows = 0;
};

void TestWindowTabs::initTestCase()
{
    QVERIFY(m_dir.isValid());
    qputenv("SANDSCOPE_AUDIT_LOG", m_dir.filePath(QStringLiteral("audit.jsonl")).toUtf8());
}

std::unique_ptr<MainWindow> TestWindowTabs::newWindow()
{
    // A fresh settings file each: no geometry saved by an earlier window.
    auto window = std::make_unique<MainWindow>(
        m_dir.filePath(QStringLiteral("profiles-%1.ini").arg(++m_windows)));
    window->show();
    QApplication::setActiveWindow(window.get());
    if (!QTest::qWaitForWindowActive(window.get()))
        qWarning("the window did not become active");
    return window;
}

bool TestWindowTabs::openRunTabs(MainWindow *window, int count)
{
    const QStringList files {QStringLiteral("/stream-basic.jsonl"),
        QStringLiteral("/transcripts/resume/stream.jsonl"),
        QStringLiteral("/stream-subagent.jsonl"), QStringLiteral("/stream-maxturns.jsonl"),
        QStringLiteral("/stream-err-401.jsonl")};
    for (int i = 0; i < count; ++i) {
        RunPage *page = window->runTabs()->openRunFile(dataDir + files.at(i % files.size()));
        if (!page)
            return false;
        if (!QTest::qWaitFor([page] { return !page->isLoading(); }, 60000))
            return false;
    }
    return true;
}

QString TestWindowTabs::damagedCopy(const QString &name)
{
    QFile capture(dataDir + QStringLiteral("/stream-basic.jsonl"));
    if (!capture.open(QIODevice::ReadOnly))
        return {};
    QByteArray bytes = capture.readAll();
    bytes.insert(bytes.indexOf('\n') + 1, "{\"type\":\"assistant\",\"message\":{broken\n");
    const QString path = m_dir.filePath(
        name + QStringLiteral("-a-capture-with-a-rather-long-name-as-real-recordings-have.jsonl"));
    QFile copy(path);
    if (!copy.open(QIODevice::WriteOnly) || copy.write(bytes) != bytes.size())
        return {};
    return path;
}

ComparePage *TestWindowTabs::openCompareTab(
    MainWindow *window, const QString &left, const QString &right)
{
    QTimer::singleShot(0, window, [left, right] {
        for (QWidget *widget : QApplication::topLevelWidgets()) {
            if (auto *dialog = qobject_cast<CompareRunsDialog *>(widget)) {
                dialog->addFile(left.isEmpty()
                        ? dataDir + QStringLiteral("/transcripts/resume/stream.jsonl")
                        : left,
                    true);
                dialog->addFile(
                    right.isEmpty() ? dataDir + QStringLiteral("/stream-basic.jsonl") : right,
                    false);
                dialog->accept();
            }
        }
    });
    window->runTabs()->showCompareDialog();
    if (!QTest::qWaitFor(
            [window] { return qobject_cast<ComparePage *>(window->pages()->currentWidget()); },
            30000))
        return nullptr;
    return qobject_cast<ComparePage *>(window->pages()->currentWidget());
}

QSize TestWindowTabs::settledSize(MainWindow *window)
{
    // A layout asks for its minimum in a posted LayoutRequest; the window grows after it.
    for (int i = 0; i < 3; ++i) {
        QCoreApplication::sendPostedEvents();
        QTest::qWait(20);
    }
    return window->size();
}

void TestWindowTabs::openingAnyTabKeepsTheWindowSize_data()
{
    QTest::addColumn<QString>("kind");
    // Every fixed page by its title, then the tabs the window opens: a run file, a Compare.
    for (const char *page :
        {"Console", "Terminal", "Files", "Sessions", "Usage", "Isolation", "Users", "Cleanup"})
        QTest::newRow(page) << QString::fromLatin1(page);
    QTest::newRow("run recording") << QStringLiteral("run");
    QTest::newRow("compare") << QStringLiteral("compare");
    QTest::newRow("compare, damaged runs") << QStringLiteral("compare damaged");
    QTest::newRow("compare of two run tabs") << QStringLiteral("compare tabs");
}

void TestWindowTabs::openingAnyTabKeepsTheWindowSize()
{
    QFETCH(QString, kind);
    std::unique_ptr<MainWindow> window = newWindow();
    QCOMPARE(settledSize(window.get()), defaultSize);
    QTabWidget *pages = window->pages();
    const int fixedPages = pages->count();

    QWidget *opened = nullptr;
    if (kind == QLatin1String("run")) {
        QVERIFY(openRunTabs(window.get(), 1));
        opened = pages->currentWidget();
    } else if (kind == QLatin1String("compare")) {
        opened = openCompareTab(window.get());
        QVERIFY(opened);
    } else if (kind == QLatin1String("compare tabs")) {
        // The dialog offers the two open run tabs; accepted as it comes.
        QVERIFY(openRunTabs(window.get(), 2));
        QTimer::singleShot(0, window.get(), [] {
            for (QWidget *widget : QApplication::topLevelWidgets()) {
                if (auto *dialog = qobject_cast<CompareRunsDialog *>(widget))
                    dialog->accept();
            }
        });
        window->runTabs()->showCompareDialog();
        QVERIFY(QTest::qWaitFor(
            [&window] { return qobject_cast<ComparePage *>(window->pages()->currentWidget()); },
            30000));
        opened = window->pages()->currentWidget();
    } else if (kind == QLatin1String("compare damaged")) {
        const QString left = damagedCopy(QStringLiteral("first"));
        const QString right = damagedCopy(QStringLiteral("second"));
        QVERIFY(!left.isEmpty() && !right.isEmpty());
        auto *page = openCompareTab(window.get(), left, right);
        QVERIFY(page);
        QVERIFY(!page->comparison().left().skipped.isEmpty());
        opened = page;
    } else {
        for (int i = 0; i < pages->count(); ++i) {
            if (pages->tabText(i) == kind)
                pages->setCurrentIndex(i);
        }
        QCOMPARE(pages->tabText(pages->currentIndex()), kind);
    }
    const QSize minimum = window->minimumSizeHint();
    QVERIFY2(minimum.height() <= defaultSize.height() && minimum.width() <= defaultSize.width(),
        qPrintable(QStringLiteral("%1: the window needs at least %2×%3")
                       .arg(kind)
                       .arg(minimum.width())
                       .arg(minimum.height())));
    QCOMPARE(settledSize(window.get()), defaultSize);

    // Closing them all (the last one in front each time) leaves the window as it was.
    while (opened && pages->count() > fixedPages) {
        const int count = pages->count();
        pages->setCurrentIndex(count - 1);
        delete pages->widget(count - 1); // what its close button does, later
        QTRY_COMPARE(pages->count(), count - 1);
    }
    pages->setCurrentIndex(0);
    QCOMPARE(settledSize(window.get()), defaultSize);
}

QTEST_MAIN(TestWindowTabs)
#include "tst_windowtabs.moc"
