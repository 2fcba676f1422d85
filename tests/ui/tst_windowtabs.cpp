// The main window's tabs (offscreen, no server): opening any kind of tab, or going to any
// page, never resizes the window (a Compare tab grew it from 1100×700 to 1100×742, and it
// stayed so after the tab closed); every page stays reachable with run tabs open, by the
// keyboard (Ctrl+Tab, Ctrl+Shift+Tab, Ctrl+PgDown, Ctrl+PgUp, wrapping) and by the tab list in
// the tab bar's corner; Ctrl+W closes a closable tab and never a fixed page.

#include "compare/comparepage.h"
#include "compare/comparerunsdialog.h"
#include "live/livepage.h"
#include "mainwindow.h"
#include "runs/runpage.h"
#include "runs/runtabs.h"
#include "tabnavigator.h"

#include <QAction>
#include <QApplication>
#include <QMenu>
#include <QSet>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolButton>
#include <QtTest/QTest>

#include <memory>

using namespace sandscope;

namespace {

const QString dataDir = QStringLiteral(SANDSCOPE_TEST_DATA_DIR);
const QSize defaultSize(1100, 700); // MainWindow's size when nothing was saved

QString tabTitles(const QTabWidget *tabs)
{
    QStringList titles;
    for (int i = 0; i < tabs->count(); ++i)
        titles << tabs->tabText(i);
    return titles.join(QStringLiteral(" | "));
}

// Counts the Ctrl+W presses that reach the widgets it filters.
class CtrlWCounter : public QObject {
public:
    int count = 0;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::KeyPress) {
            const auto *key = static_cast<QKeyEvent *>(event);
            if (key->key() == Qt::Key_W && key->modifiers() == Qt::ControlModifier)
                ++count;
        }
        return QObject::eventFilter(watched, event);
    }
};

} // namespace

class TestWindowTabs : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void openingAnyTabKeepsTheWindowSize_data();
    void openingAnyTabKeepsTheWindowSize();
    void everyTabIsInViewWithTwoRunTabsAtTheDefaultWidth();
    void keysReachEveryTabAndWrap_data();
    void keysReachEveryTabAndWrap();
    void tabListReachesEveryTab();
    void closeTabClosesOnlyClosableTabs();

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
    QTest::newRow("live wall") << QStringLiteral("live wall");
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
    } else if (kind == QLatin1String("live wall")) {
        window->showLiveWall();
        opened = pages->currentWidget();
        QCOMPARE(opened, static_cast<QWidget *>(window->livePage()));
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
        QVERIFY(window->tabNavigator()->closeCurrent());
        QTRY_COMPARE(pages->count(), count - 1);
    }
    pages->setCurrentIndex(0);
    QCOMPARE(settledSize(window.get()), defaultSize);
}

// The defect: at the default width, two run tabs pushed Console and Terminal out of the bar.
void TestWindowTabs::everyTabIsInViewWithTwoRunTabsAtTheDefaultWidth()
{
    std::unique_ptr<MainWindow> window = newWindow();
    QTabWidget *pages = window->pages();
    QVERIFY(openRunTabs(window.get(), 2));
    // Live run tabs are titled "<user> · <chat> · <time>"; these are as long as real ones.
    pages->setTabText(pages->count() - 2, QStringLiteral("alice · quarterly-report · 14:05"));
    pages->setTabText(pages->count() - 1, QStringLiteral("alice · quarterly-report · 14:05 (2)"));
    QCOMPARE(settledSize(window.get()), defaultSize);
    const QTabBar *bar = pages->tabBar();
    for (int i = 0; i < pages->count(); ++i) {
        // An elided title can be read in the tab's tool tip (run tabs have tool tips of
        // their own, naming the chat and the user).
        if (i < pages->count() - 2)
            QCOMPARE(pages->tabToolTip(i), pages->tabText(i));
        const QRect tab = bar->tabRect(i);
        QVERIFY2(bar->rect().contains(tab),
            qPrintable(QStringLiteral("tab %1 (%2) at %3..%4 of a %5 px bar: %6")
                           .arg(i)
                           .arg(pages->tabText(i))
                           .arg(tab.left())
                           .arg(tab.right())
                           .arg(bar->width())
                           .arg(tabTitles(pages))));
    }
    if (qEnvironmentVariableIsSet("SANDSCOPE_SCREENSHOT"))
        window->grab().save(qEnvironmentVariable("SANDSCOPE_SCREENSHOT"));
}

void TestWindowTabs::keysReachEveryTabAndWrap_data()
{
    QTest::addColumn<int>("runTabs");
    QTest::addColumn<QKeySequence>("keys");
    QTest::addColumn<int>("step");
    for (const int runs : {0, 2, 6}) {
        const auto row = [runs](const char *name, const QKeySequence &keys, int step) {
            QTest::addRow("%d run tabs, %s", runs, name) << runs << keys << step;
        };
        row("Ctrl+Tab", QKeySequence(Qt::CTRL | Qt::Key_Tab), 1);
        row("Ctrl+PgDown", QKeySequence(Qt::CTRL | Qt::Key_PageDown), 1);
        row("Ctrl+Shift+Tab", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Tab), -1);
        row("Ctrl+Shift+Backtab", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Backtab), -1);
        row("Ctrl+PgUp", QKeySequence(Qt::CTRL | Qt::Key_PageUp), -1);
    }
}

// From the first tab, as many presses as there are tabs visit each once and come back.
void TestWindowTabs::keysReachEveryTabAndWrap()
{
    QFETCH(int, runTabs);
    QFETCH(QKeySequence, keys);
    QFETCH(int, step);
    std::unique_ptr<MainWindow> window = newWindow();
    QTabWidget *pages = window->pages();
    QVERIFY(openRunTabs(window.get(), runTabs));
    const int count = pages->count();
    pages->setCurrentIndex(0);
    QSet<int> visited;
    for (int press = 1; press <= count; ++press) {
        const int before = pages->currentIndex();
        // Where the focus is: the keys work from inside any page.
        QWidget *target = QApplication::focusWidget() ? QApplication::focusWidget() : window.get();
        QTest::keySequence(target, keys);
        QCOMPARE(pages->currentIndex(), ((before + step) % count + count) % count);
        visited.insert(pages->currentIndex());
    }
    QCOMPARE(visited.size(), count);
    QCOMPARE(pages->currentIndex(), 0);
}

void TestWindowTabs::tabListReachesEveryTab()
{
    std::unique_ptr<MainWindow> window = newWindow();
    QTabWidget *pages = window->pages();
    QVERIFY(openRunTabs(window.get(), 6));
    QVERIFY(openCompareTab(window.get()));
    TabNavigator *navigator = window->tabNavigator();
    QToolButton *corner = navigator->listButton();
    QCOMPARE(pages->cornerWidget(Qt::TopRightCorner), corner);
    QVERIFY(corner->isVisible());

    for (int target = 0; target < pages->count(); ++target) {
        navigator->updateListMenu();
        const QList<QAction *> entries = navigator->listMenu()->actions();
        QCOMPARE(entries.size(), pages->count());
        int checked = 0;
        for (int i = 0; i < entries.size(); ++i) {
            QCOMPARE(entries.at(i)->text(), pages->tabText(i));
            QCOMPARE(entries.at(i)->icon().cacheKey(), pages->tabIcon(i).cacheKey());
            QCOMPARE(entries.at(i)->isChecked(), i == pages->currentIndex());
            checked += entries.at(i)->isChecked() ? 1 : 0;
        }
        QCOMPARE(checked, 1);
        entries.at(target)->trigger();
        QCOMPARE(pages->currentIndex(), target);
    }

    // Through the button itself: it opens the list and a choice goes to that tab.
    bool shown = false;
    QTimer::singleShot(50, window.get(), [&shown, navigator] {
        QMenu *menu = navigator->listMenu();
        shown = menu->isVisible();
        const QList<QAction *> entries = menu->actions();
        if (!entries.isEmpty())
            entries.constFirst()->trigger();
        menu->close();
    });
    QTest::mouseClick(corner, Qt::LeftButton);
    QTRY_VERIFY(shown);
    QCOMPARE(pages->currentIndex(), 0);
    // View › All Tabs is the same list, for the keyboard through the menu bar.
    bool inViewMenu = false;
    for (QAction *action : window->findChildren<QAction *>())
        inViewMenu = inViewMenu || action->menu() == navigator->listMenu();
    QVERIFY(inViewMenu);
}

void TestWindowTabs::closeTabClosesOnlyClosableTabs()
{
    std::unique_ptr<MainWindow> window = newWindow();
    QTabWidget *pages = window->pages();
    const int fixedPages = pages->count();
    QVERIFY(openRunTabs(window.get(), 2));
    QAction *close = window->tabNavigator()->closeAction();
    QCOMPARE(close->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_W));

    // Every fixed page: Ctrl+W closes nothing and reaches the widget with the focus (a shell
    // in the Terminal tab erases a word with it).
    CtrlWCounter counter;
    for (int i = 0; i < fixedPages; ++i) {
        pages->setCurrentIndex(i);
        QVERIFY2(!close->isEnabled(), qPrintable(pages->tabText(i)));
        QWidget *focus = pages->currentWidget()->nextInFocusChain();
        focus->setFocus();
        focus->installEventFilter(&counter);
        const int before = counter.count;
        QTest::keyClick(focus, Qt::Key_W, Qt::ControlModifier);
        focus->removeEventFilter(&counter);
        QCOMPARE(pages->count(), fixedPages + 2);
        QVERIFY2(counter.count == before + 1, qPrintable(pages->tabText(i)));
    }
    // A run tab closes, and the next Ctrl+W closes the next one in front.
    pages->setCurrentIndex(fixedPages + 1);
    QVERIFY(close->isEnabled());
    QWidget *target = QApplication::focusWidget() ? QApplication::focusWidget() : window.get();
    QTest::keyClick(target, Qt::Key_W, Qt::ControlModifier);
    QTRY_COMPARE(pages->count(), fixedPages + 1);
    pages->setCurrentIndex(fixedPages);
    QTest::keyClick(window.get(), Qt::Key_W, Qt::ControlModifier);
    QTRY_COMPARE(pages->count(), fixedPages);
    QVERIFY(!close->isEnabled());
}

QTEST_MAIN(TestWindowTabs)
#include "tst_windowtabs.moc"
