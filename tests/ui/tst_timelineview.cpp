// The run's timeline in the run view, offscreen: a click on a bar selects its node in the tree
// and selecting a node in the tree selects its bar (a node without one, its turn's band); "Fit
// run" brings every bar into view; the wheel zooms around the pointer, Shift+wheel and dragging
// pan; hovering a bar shows the tool's name, its duration and its tokens; a live run's running
// call grows with the clock while the view keeps the run in view; playback's jumps show their
// moment on the timeline; the tree and the timeline share the top of the page as tabs. Times and
// names come from the captures' own JSON (tests/data).

#include "livelines.h"
#include "playback/runplayback.h"
#include "runs/rundetailpane.h"
#include "runs/runpage.h"
#include "runs/timelineview.h"
#include "runtree/runfilterproxy.h"
#include "runtree/runmodel.h"
#include "timeline/timelinemodel.h"
#include "util/format.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QDateTime>
#include <QFile>
#include <QHelpEvent>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScrollBar>
#include <QSignalSpy>
#include <QToolButton>
#include <QToolTip>
#include <QTreeView>
#include <QWheelEvent>
#include <QtTest>

using namespace sandscope;
using sandscope::test::LiveLines;
using ItemKind = TimelineModel::ItemKind;

namespace {

QString capturePath(const QString &name)
{
    return QStringLiteral(SANDSCOPE_TEST_DATA_DIR) + QLatin1Char('/') + name;
}

QList<QByteArray> captureLines(const QString &name)
{
    QFile file(capturePath(name));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QList<QByteArray> lines = file.readAll().split('\n');
    while (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    return lines;
}

bool loadCapture(RunPage &page, const QString &name)
{
    QSignalSpy finished(&page, &RunPage::loadFinished);
    if (!page.openFile(capturePath(name)))
        return false;
    if (!finished.wait(10000))
        return false;
    return finished.first().first().toBool();
}

// The item of the call named toolName (the first one).
int callRow(const TimelineModel *timeline, const QString &toolName)
{
    for (int row = 0; row < timeline->itemCount(); ++row) {
        const TimelineModel::Item &item = timeline->item(row);
        if (item.kind == ItemKind::Call
            && item.source.data(RunModel::ToolNameRole).toString() == toolName)
            return row;
    }
    return -1;
}

// The tool_use ids of stream-subagent.jsonl from its JSON: the Agent call and the sub-agent's.
QStringList toolUseIds(const QString &name)
{
    QStringList ids;
    for (const QByteArray &line : captureLines(name)) {
        const QJsonArray content = QJsonDocument::fromJson(line)
                                       .object()
                                       .value(QLatin1String("message"))
                                       .toObject()
                                       .value(QLatin1String("content"))
                                       .toArray();
        for (const QJsonValue &block : content) {
            if (block.toObject().value(QLatin1String("type")).toString()
                == QLatin1String("tool_use"))
                ids.append(block.toObject().value(QLatin1String("id")).toString());
        }
    }
    return ids;
}

void wheel(QWidget *viewport, const QPoint &position, const QPoint &angleDelta,
    Qt::KeyboardModifiers modifiers = Qt::NoModifier)
{
    QWheelEvent event(QPointF(position), QPointF(viewport->mapToGlobal(position)), QPoint(),
        angleDelta, Qt::NoButton, modifiers, Qt::NoScrollPhase, false);
    QApplication::sendEvent(viewport, &event);
}

struct Fixture {
    RunPage page;
    TimelineView *view = nullptr;
    TimelineModel *timeline = nullptr;
    bool open(const QString &name)
    {
        page.resize(1200, 900);
        page.show();
        if (!QTest::qWaitForWindowExposed(&page) || !loadCapture(page, name))
            return false;
        view = page.timelineView();
        timeline = page.timelineModel();
        page.setTimelineShown(true);
        QApplication::processEvents();
        return view && timeline && view->isVisible();
    }
};

} // namespace

class TestTimelineView : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void selectingABarSelectsItsNodeAndBack()
    {
        Fixture f;
        QVERIFY(f.open(QStringLiteral("stream-subagent.jsonl")));
        QAbstractItemModelTester tester(
            f.timeline, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QStringList ids = toolUseIds(QStringLiteral("stream-subagent.jsonl"));
        QCOMPARE(ids.size(), 2);
        const int agent = callRow(f.timeline, QStringLiteral("Agent"));
        const int bash = callRow(f.timeline, QStringLiteral("Bash"));
        QVERIFY(agent >= 0 && bash >= 0);

        // A click on the sub-agent's Bash bar selects that call in the tree.
        const QRect bar = f.view->visualRect(f.timeline->index(bash, 0));
        QVERIFY2(f.view->viewport()->rect().contains(bar.center()),
            qPrintable(QStringLiteral("bar %1,%2 %3x%4 in %5x%6")
                           .arg(bar.x())
                           .arg(bar.y())
                           .arg(bar.width())
                           .arg(bar.height())
                           .arg(f.view->viewport()->width())
                           .arg(f.view->viewport()->height())));
        QTest::mouseClick(f.view->viewport(), Qt::LeftButton, Qt::NoModifier, bar.center());
        QCOMPARE(f.view->currentIndex().row(), bash);
        const QModelIndex treeCurrent
            = f.page.proxy()->mapToSource(f.page.treeView()->currentIndex());
        QCOMPARE(treeCurrent.data(RunModel::ToolUseIdRole).toString(), ids.at(1));
        QCOMPARE(f.page.detailPane()->shownIndex(), treeCurrent);

        // Selecting the Agent call in the tree selects its bar.
        const QModelIndex agentNode = f.page.model()->indexForToolUseId(ids.at(0));
        f.page.treeView()->setCurrentIndex(f.page.proxy()->mapFromSource(agentNode));
        QCOMPARE(f.view->currentIndex().row(), agent);
        QVERIFY(f.view->selectionModel()->isSelected(f.timeline->index(agent, 0)));

        // A node without a bar of its own (the result line) selects its turn.
        QModelIndex result;
        const QModelIndex turn = f.page.model()->index(0, 0, f.page.model()->runIndex());
        for (int row = 0; row < f.page.model()->rowCount(turn); ++row) {
            const QModelIndex child = f.page.model()->index(row, 0, turn);
            if (child.data(RunModel::KindRole).toInt() == int(RunModel::NodeKind::Result))
                result = child;
        }
        QVERIFY(result.isValid());
        f.page.treeView()->setCurrentIndex(f.page.proxy()->mapFromSource(result));
        QCOMPARE(f.timeline->item(f.view->currentIndex().row()).kind, ItemKind::Turn);
        QCOMPARE(f.timeline->sourceIndex(f.view->currentIndex()), turn);
        // ...and the tree kept its own selection.
        QCOMPARE(f.page.proxy()->mapToSource(f.page.treeView()->currentIndex()), result);

        // A bar whose node the filter hides still shows its details.
        f.page.errorsOnlyButton()->setChecked(true);
        QTRY_VERIFY(!f.page.proxy()->mapFromSource(f.timeline->item(bash).source).isValid());
        f.view->setCurrentIndex(f.timeline->index(agent, 0));
        QTest::mouseClick(f.view->viewport(), Qt::LeftButton, Qt::NoModifier,
            f.view->visualRect(f.timeline->index(bash, 0)).center());
        QCOMPARE(f.page.detailPane()->shownIndex(), f.timeline->item(bash).source);
        f.page.errorsOnlyButton()->setChecked(false);

        // The keyboard walks from the sub-agent's call up to the Agent call's lane.
        f.view->setCurrentIndex(f.timeline->index(bash, 0));
        f.view->setFocus();
        QTest::keyClick(f.view, Qt::Key_Up);
        QTest::keyClick(f.view, Qt::Key_Up);
        QCOMPARE(f.view->currentIndex().row(), agent);
        QCOMPARE(f.page.proxy()->mapToSource(f.page.treeView()->currentIndex()), agentNode);
    }

    void fitRunShowsEveryBar()
    {
        Fixture f;
        QVERIFY(f.open(QStringLiteral("stream-subagent.jsonl")));
        QVERIFY(f.view->isFittingRun());
        const double width = f.view->viewport()->width();
        f.view->zoomAround(width / 2, 50);
        QVERIFY(!f.view->isFittingRun());
        auto everyBarInView = [&] {
            for (int row = 0; row < f.timeline->itemCount(); ++row) {
                if (f.timeline->item(row).kind != ItemKind::Call)
                    continue;
                const QRect rect = f.view->visualRect(f.timeline->index(row, 0));
                if (rect.left() < 0 || rect.right() > width)
                    return false;
            }
            return true;
        };
        QVERIFY(!everyBarInView());
        f.page.findChild<QToolButton *>(QStringLiteral("fitRunButton"))->click();
        QVERIFY(f.view->isFittingRun());
        QVERIFY(everyBarInView());
        QVERIFY(f.view->visibleStartMs() <= double(f.timeline->originMs()));
        QVERIFY(f.view->visibleEndMs() >= double(f.timeline->extentEndMs()));

        // Fit selection: the Agent call with its sub-agent fills the view.
        const int agent = callRow(f.timeline, QStringLiteral("Agent"));
        f.view->setCurrentIndex(f.timeline->index(agent, 0));
        f.page.findChild<QAction *>(QStringLiteral("fitSelectionAction"))->trigger();
        const QRect bar = f.view->visualRect(f.timeline->index(agent, 0));
        QVERIFY(bar.left() >= 0 && bar.right() <= width);
        QVERIFY2(bar.width() > width * 0.8, qPrintable(QString::number(bar.width())));
    }

    void wheelZoomsAroundThePointerAndPans()
    {
        Fixture f;
        QVERIFY(f.open(QStringLiteral("stream-subagent.jsonl")));
        QWidget *viewport = f.view->viewport();
        const QPoint pointer(viewport->width() / 3, viewport->height() / 2);
        const double anchor = f.view->timeAtX(pointer.x());
        const double span = f.view->visibleEndMs() - f.view->visibleStartMs();

        wheel(viewport, pointer, QPoint(0, 120));
        const double zoomedSpan = f.view->visibleEndMs() - f.view->visibleStartMs();
        QVERIFY2(zoomedSpan < span * 0.95,
            qPrintable(QStringLiteral("%1 -> %2").arg(span).arg(zoomedSpan)));
        QVERIFY(qAbs(f.view->timeAtX(pointer.x()) - anchor) <= f.view->msPerPixel());
        QVERIFY(!f.view->isFittingRun());

        wheel(viewport, pointer, QPoint(0, 240), Qt::ControlModifier);
        const double deeperSpan = f.view->visibleEndMs() - f.view->visibleStartMs();
        QVERIFY(deeperSpan < zoomedSpan * 0.95);
        QVERIFY(qAbs(f.view->timeAtX(pointer.x()) - anchor) <= f.view->msPerPixel());

        // Shift+wheel pans: the same span, later.
        const double before = f.view->visibleStartMs();
        wheel(viewport, pointer, QPoint(0, -120), Qt::ShiftModifier);
        QVERIFY(f.view->visibleStartMs() > before);
        QCOMPARE(qRound(f.view->visibleEndMs() - f.view->visibleStartMs()), qRound(deeperSpan));

        // Dragging pans back.
        const double dragged = f.view->visibleStartMs();
        QTest::mousePress(viewport, Qt::LeftButton, Qt::NoModifier, pointer);
        for (const int dx : {60, 120}) {
            QMouseEvent move(QEvent::MouseMove, QPointF(pointer + QPoint(dx, 0)),
                QPointF(viewport->mapToGlobal(pointer + QPoint(dx, 0))), Qt::NoButton,
                Qt::LeftButton, Qt::NoModifier);
            QApplication::sendEvent(viewport, &move);
        }
        QTest::mouseRelease(viewport, Qt::LeftButton, Qt::NoModifier, pointer + QPoint(120, 0));
        QVERIFY(qAbs(f.view->visibleStartMs() - (dragged - 120 * f.view->msPerPixel())) < 1);

        // Zooming out stops at the whole run.
        for (int i = 0; i < 20; ++i)
            wheel(viewport, pointer, QPoint(0, -120));
        QVERIFY(f.view->isFittingRun());
        QVERIFY(qAbs(f.view->visibleEndMs() - f.view->visibleStartMs() - span) < 1);
    }

    void keysZoomPanAndFit()
    {
        Fixture f;
        QVERIFY(f.open(QStringLiteral("stream-subagent.jsonl")));
        f.view->setFocus();
        const double span = f.view->visibleEndMs() - f.view->visibleStartMs();
        QTest::keyClick(f.view, Qt::Key_W);
        QVERIFY(f.view->visibleEndMs() - f.view->visibleStartMs() < span * 0.9);
        const double start = f.view->visibleStartMs();
        QTest::keyClick(f.view, Qt::Key_D);
        QVERIFY(f.view->visibleStartMs() > start);
        QTest::keyClick(f.view, Qt::Key_A);
        QVERIFY(qAbs(f.view->visibleStartMs() - start) < 1);
        QTest::keyClick(f.view, Qt::Key_0);
        QVERIFY(f.view->isFittingRun());
        // A double-click on a bar fits it.
        const int bash = callRow(f.timeline, QStringLiteral("Bash"));
        QTest::mouseDClick(f.view->viewport(), Qt::LeftButton, Qt::NoModifier,
            f.view->visualRect(f.timeline->index(bash, 0)).center());
        QCOMPARE(f.view->currentIndex().row(), bash);
        const QRect bar = f.view->visualRect(f.timeline->index(bash, 0));
        QVERIFY2(bar.width() > f.view->viewport()->width() * 0.8,
            qPrintable(QString::number(bar.width())));
        QVERIFY(!f.view->isFittingRun());
    }

    void hoveringABarShowsNameDurationAndTokens()
    {
        Fixture f;
        QVERIFY(f.open(QStringLiteral("stream-subagent.jsonl")));
        const int agent = callRow(f.timeline, QStringLiteral("Agent"));
        const QModelIndex source = f.timeline->item(agent).source;
        const QString duration
            = format::duration(source.data(RunModel::DurationMsRole).toLongLong());
        const QString tokens = source.siblingAtColumn(RunModel::TokensColumn).data().toString();
        QVERIFY(!tokens.isEmpty());
        const QPoint at = f.view->visualRect(f.timeline->index(agent, 0)).center();

        const QString text = f.view->toolTipAt(at);
        QVERIFY2(text.startsWith(QStringLiteral("Agent")), qPrintable(text));
        QVERIFY2(text.contains(duration), qPrintable(text));
        QVERIFY2(text.contains(tokens), qPrintable(text));

        QHelpEvent help(QEvent::ToolTip, at, f.view->viewport()->mapToGlobal(at));
        QApplication::sendEvent(f.view->viewport(), &help);
        QTRY_COMPARE(QToolTip::text(), text);
        QToolTip::hideText();

        // The Bash call of the sub-agent: its name and command.
        const int bash = callRow(f.timeline, QStringLiteral("Bash"));
        const QString bashTip
            = f.view->toolTipAt(f.view->visualRect(f.timeline->index(bash, 0)).center());
        QVERIFY2(bashTip.startsWith(QStringLiteral("Bash: echo sub")), qPrintable(bashTip));
        QVERIFY(f.view->toolTipAt(QPoint(-100, -100)).isEmpty());
    }

    void aRunningCallGrowsInALiveRun()
    {
        // The lines of stream-basic.jsonl arrive one by one; the result of the Bash call comes
        // late, and until then its bar ends at "now".
        const QList<QByteArray> lines = captureLines(QStringLiteral("stream-basic.jsonl"));
        QVERIFY(lines.size() >= 4);
        RunPage page;
        LiveLines live(&page);
        page.resize(1100, 800);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        page.setTimelineShown(true);
        TimelineView *view = page.timelineView();
        TimelineModel *timeline = page.timelineModel();
        const qint64 t0 = 1'800'000'000'000;
        for (int i = 0; i < 3; ++i) // init, text, tool_use
            live.append(lines.at(i), t0 + i * 100);
        page.flushEvents();
        QApplication::processEvents();
        const int bash = callRow(timeline, QStringLiteral("Bash"));
        QVERIFY(bash >= 0);
        QVERIFY(timeline->item(bash).open());

        timeline->setNowMs(t0 + 10'000);
        QApplication::processEvents();
        QVERIFY(view->isFittingRun());
        const QRect growing = view->visualRect(timeline->index(bash, 0));
        QVERIFY(qAbs(growing.right() - view->xForTime(double(t0 + 10'000))) <= 2);
        QVERIFY(growing.right() <= view->viewport()->width());
        QVERIFY(growing.width() > view->viewport()->width() / 2);

        live.append(lines.at(3), t0 + 4000); // the tool_result
        page.flushEvents();
        QApplication::processEvents();
        QVERIFY(!timeline->item(bash).open());
        QCOMPARE(timeline->endMs(bash), t0 + 4000);
        const QRect done = view->visualRect(timeline->index(bash, 0));
        QVERIFY(qAbs(done.right() - view->xForTime(double(t0 + 4000))) <= 2);
    }

    void playbackShowsItsMomentOnTheTimeline()
    {
        // Playback resets the page's RunModel to a moment; the timeline follows each jump.
        Fixture f;
        QVERIFY(f.open(QStringLiteral("stream-subagent.jsonl")));
        QAbstractItemModelTester tester(
            f.timeline, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const int allCalls = f.timeline->callCount();
        QCOMPARE(allCalls, 2);
        auto sameAsScratch = [&] {
            TimelineModel scratch;
            scratch.setSourceModel(f.page.model());
            if (scratch.itemCount() != f.timeline->itemCount())
                return false;
            for (int row = 0; row < scratch.itemCount(); ++row) {
                const TimelineModel::Item &a = scratch.item(row);
                const TimelineModel::Item &b = f.timeline->item(row);
                if (a.kind != b.kind || a.startMs != b.startMs || a.lane != b.lane
                    || a.group != b.group || scratch.endMs(row) != f.timeline->endMs(row))
                    return false;
            }
            return true;
        };
        QVERIFY(f.page.enterPlayback());
        QTRY_VERIFY(f.page.isInPlayback());
        RunPlayback *playback = f.page.playback();
        playback->jumpToPosition(0);
        QCOMPARE(f.timeline->callCount(), 0);
        QVERIFY(playback->step(RunPlayback::Step::ToolCall, true));
        QCOMPARE(f.timeline->callCount(), 1);
        QVERIFY(f.timeline->item(callRow(f.timeline, QStringLiteral("Agent"))).open());
        QVERIFY(sameAsScratch());
        QVERIFY(playback->step(RunPlayback::Step::ToolCall, true));
        QCOMPARE(f.timeline->callCount(), 2);
        QVERIFY(sameAsScratch());
        // The view keeps painting what is there.
        f.view->viewport()->repaint();
        f.page.leavePlayback();
        QCOMPARE(f.timeline->callCount(), allCalls);
        QVERIFY(sameAsScratch());
        QVERIFY(!f.timeline->hasOpenItems());
    }

    void theTabsSwitchBetweenTreeAndTimeline()
    {
        RunPage page;
        page.resize(1000, 700);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        QVERIFY(loadCapture(page, QStringLiteral("stream-basic.jsonl")));
        // The tree first; Ctrl+Shift+L switches, and back.
        QVERIFY(!page.isTimelineShown());
        QVERIFY(page.treeView()->isVisible());
        QVERIFY(!page.timelineView()->isVisible());
        auto *fitRun = page.findChild<QToolButton *>(QStringLiteral("fitRunButton"));
        QVERIFY(fitRun && !fitRun->isVisible());
        page.findChild<QAction *>(QStringLiteral("switchViewAction"))->trigger();
        QVERIFY(page.isTimelineShown());
        QVERIFY(page.timelineView()->isVisible());
        QVERIFY(fitRun->isVisible());
        page.findChild<QAction *>(QStringLiteral("switchViewAction"))->trigger();
        QVERIFY(page.treeView()->isVisible());
        // Fitting from the tree shows the timeline.
        page.timelineView()->zoomAround(100, 10);
        QVERIFY(!page.timelineView()->isFittingRun());
        page.findChild<QAction *>(QStringLiteral("fitRunAction"))->trigger();
        QVERIFY(page.isTimelineShown());
        QVERIFY(page.timelineView()->isFittingRun());

        // The page's shortcuts stay distinct.
        QStringList shortcuts;
        for (QAction *action : page.findChildren<QAction *>()) {
            if (!action->shortcut().isEmpty())
                shortcuts.append(action->shortcut().toString());
        }
        QVERIFY(shortcuts.contains(QStringLiteral("Ctrl+Shift+R")));
        const int all = shortcuts.size();
        shortcuts.removeDuplicates();
        QCOMPARE(shortcuts.size(), all);
    }
};

QTEST_MAIN(TestTimelineView)
#include "tst_timelineview.moc"
