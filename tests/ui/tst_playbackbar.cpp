// The run page's playback (offscreen): entering it keeps the whole run shown, scrubbing to the
// start shows an empty run, a step goes to the first tool call, playing at 100x reaches the end
// with the whole tree, leaving restores the whole run; a live run stays frozen while more
// arrives and "Live" shows all of it; entering returns at once and can be cancelled, and a live
// run that grows meanwhile is played whole. Expected trees are fresh models of the same events.

#include "livelines.h"
#include "playback/runplayback.h"
#include "runs/loadedrun.h"
#include "runs/playbackbar.h"
#include "runs/playbackscrubber.h"
#include "runs/runpage.h"
#include "runs/runsummarybar.h"
#include "runtree/runmodel.h"
#include "runtreeshape.h"
#include "streamjson/runparser.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QPushButton>
#include <QSignalSpy>
#include <QToolButton>
#include <QTreeView>
#include <QtTest/QTest>

using namespace sandscope;
using sandscope::test::LiveLines;

namespace {

QString capturePath(const QString &name)
{
    return QStringLiteral(SANDSCOPE_TEST_DATA_DIR) + QLatin1Char('/') + name;
}

bool openAndWait(RunPage &page, const QString &path)
{
    QSignalSpy finished(&page, &RunPage::loadFinished);
    return page.openFile(path) && finished.wait(10000) && finished.first().first().toBool();
}

QList<QByteArray> captureLines(const QString &name)
{
    QFile capture(capturePath(name));
    QList<QByteArray> lines
        = capture.open(QIODevice::ReadOnly) ? capture.readAll().split('\n') : QList<QByteArray>();
    lines.removeAll(QByteArray());
    return lines;
}

constexpr qint64 firstArrival = 1'700'000'000'000;

// Lines [from, to) reach a live page 500 ms apart; `arrival` is the last one's time.
void feed(LiveLines &live, const QList<QByteArray> &lines, int from, int to, qint64 *arrival)
{
    for (int i = from; i < to; ++i)
        live.append(lines[i], *arrival += 500);
}

// What a fresh model of every line shows, fed as feed() feeds them.
void buildExpected(RunModel *model, const QList<QByteArray> &lines)
{
    RunParser parser;
    qint64 arrival = firstArrival;
    for (const QByteArray &line : lines)
        model->addEvents(parser.parseLine(line, arrival += 500));
}

// A page that opened a capture, and the capture read on its own: its events and whole tree.
struct OpenedCapture {
    QString path;
    LoadedRun run;
    RunModel whole;
    RunPage page;

    bool open(const QString &name)
    {
        path = capturePath(name);
        if (!LoadedRun::fromFile(path, &run))
            return false;
        run.buildModel(&whole);
        page.resize(1100, 700);
        page.show();
        return openAndWait(page, path);
    }
};

// A live page that got the first half of a capture's lines, 500 ms apart (see feed()).
struct LiveCapture {
    QList<QByteArray> lines;
    RunPage page;
    LiveLines feed {&page};
    qint64 arrival = firstArrival;
    int half = 0;

    bool startWithHalf(const QString &name)
    {
        lines = captureLines(name);
        if (lines.isEmpty())
            return false;
        page.resize(1000, 600);
        page.show();
        half = int(lines.size()) / 2;
        ::feed(feed, lines, 0, half, &arrival);
        return true;
    }
};

} // namespace

class TestPlaybackBar : public QObject {
    Q_OBJECT

private slots:
    void playsScrubsStepsAndLeaves()
    {
        OpenedCapture opened;
        QVERIFY(opened.open(QStringLiteral("stream-subagent.jsonl")));
        const LoadedRun &run = opened.run;
        const RunModel &whole = opened.whole;
        RunPage &page = opened.page;
        QAbstractItemModelTester tester(
            page.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(page.playbackBar()->isHidden());
        page.playbackButton()->click();
        QTRY_VERIFY(page.isInPlayback());
        QVERIFY(page.playbackBar()->isVisible());
        RunPlayback *playback = page.playback();
        QCOMPARE(playback->position(), int(run.events.size()));
        QCOMPARE(test::firstDifference(*page.model(), whole), QString());
        QVERIFY2(page.playbackBar()->clockText().contains(LoadedRun::clockText(run.clock)),
            qPrintable(page.playbackBar()->clockText()));
        QVERIFY(page.playbackBar()->liveButton()->isHidden()); // a file is not live

        // Scrubbed halfway: every event up to that time, nothing after it.
        PlaybackScrubber *scrubber = page.playbackBar()->scrubber();
        QVERIFY(!scrubber->turnTicks().isEmpty());
        scrubber->setValue(scrubber->maximum() / 2);
        const qint64 half = page.playbackBar()->timeOfSlider(scrubber->maximum() / 2);
        int upToHalf = 0;
        qint64 latest = 0;
        for (const RunEvent &event : std::as_const(run.events)) {
            latest = run.clock == LoadedRun::Clock::Order ? upToHalf + 1
                                                          : std::max(latest, event.arrivalMs);
            if (latest > half)
                break;
            ++upToHalf;
        }
        QCOMPARE(playback->position(), upToHalf);
        RunModel atHalf;
        for (int i = 0; i < upToHalf; ++i)
            atHalf.addEvent(run.events[i]);
        QCOMPARE(test::firstDifference(*page.model(), atHalf), QString());

        // Scrubbed to the start: an empty run, and the summary says so.
        page.playbackBar()->scrubber()->setValue(0);
        QCOMPARE(playback->position(), 0);
        QCOMPARE(page.model()->rowCount(page.model()->runIndex()), 0);
        RunSummaryBar empty;
        empty.setSummary(RunModel().summary(), false);
        QTRY_COMPARE(page.summaryBar()->outcomeText(), empty.outcomeText());

        // The next tool call: the first event that makes one.
        page.playbackBar()->stepCombo()->setCurrentIndex(
            page.playbackBar()->stepCombo()->findData(int(RunPlayback::Step::ToolCall)));
        page.playbackBar()->nextStepButton()->click();
        int firstTool = 0;
        while (run.events[firstTool].kind != RunEvent::ToolUse
            && run.events[firstTool].parentToolUseId.isEmpty())
            ++firstTool;
        QCOMPARE(playback->position(), firstTool + 1);
        RunModel partial;
        for (int i = 0; i <= firstTool; ++i)
            partial.addEvent(run.events[i]);
        QCOMPARE(test::firstDifference(*page.model(), partial), QString());

        // Space in the tree plays; at 100x the run's end comes soon.
        page.playbackBar()->speedCombo()->setCurrentIndex(3);
        QCOMPARE(playback->speed(), 100.0);
        page.treeView()->setFocus();
        QTest::keyClick(page.treeView(), Qt::Key_Space);
        QVERIFY(playback->isPlaying());
        QCOMPARE(page.playbackBar()->playButton()->text(), tr("Pause"));
        QTRY_COMPARE_WITH_TIMEOUT(playback->position(), int(run.events.size()), 20000);
        QVERIFY(!playback->isPlaying());
        QCOMPARE(test::firstDifference(*page.model(), whole), QString());

        if (qEnvironmentVariableIsSet("SANDSCOPE_PLAYBACK_SHOT")) {
            playback->jumpToPosition(int(run.events.size()) * 2 / 3);
            QTest::qWait(300);
            page.grab().save(qEnvironmentVariable("SANDSCOPE_PLAYBACK_SHOT"));
        }

        // Somewhere in the middle, then leave: the whole run again.
        playback->jumpToPosition(int(run.events.size()) / 2);
        page.playbackButton()->click();
        QVERIFY(!page.isInPlayback());
        QVERIFY(page.playbackBar()->isHidden());
        QCOMPARE(test::firstDifference(*page.model(), whole), QString());
    }

    void liveRunStaysFrozenUntilLive()
    {
        LiveCapture live;
        QVERIFY(live.startWithHalf(QStringLiteral("stream-partial.jsonl")));
        const QList<QByteArray> &lines = live.lines;
        RunPage &page = live.page;
        qint64 &arrival = live.arrival;
        const int half = live.half;
        page.flushEvents();
        QVERIFY(page.enterPlayback());
        QTRY_VERIFY(page.isInPlayback());
        RunPlayback *playback = page.playback();
        QCOMPARE(playback->clock(), LoadedRun::Clock::Arrival);
        playback->jumpToPosition(1);
        const int shownRows = page.model()->rowCount(page.model()->runIndex());
        feed(live.feed, lines, half, int(lines.size()), &arrival);
        page.flushEvents();
        QTest::qWait(100);
        QCOMPARE(playback->position(), 1);
        QCOMPARE(page.model()->rowCount(page.model()->runIndex()), shownRows);
        QVERIFY(playback->eventCount() > half);
        QVERIFY(page.playbackBar()->timeText().contains(QLatin1String("event 1 of")));
        QVERIFY(page.playbackBar()->liveButton()->isVisible());
        page.playbackBar()->liveButton()->click();
        QVERIFY(!page.isInPlayback());
        QVERIFY(page.isFollowing());

        RunModel expected;
        buildExpected(&expected, lines);
        QCOMPARE(test::firstDifference(*page.model(), expected), QString());
    }

    // Entering playback returns at once: the checkpoints are built on a worker while the run
    // stays shown, with progress and Cancel in the load panel. Cancelled, the page says so and
    // shows the whole run as before.
    void preparingDoesNotWaitAndCanBeCancelled()
    {
        OpenedCapture opened;
        QVERIFY(opened.open(QStringLiteral("stream-subagent.jsonl")));
        RunPage &page = opened.page;
        QSignalSpy prepared(&page, &RunPage::playbackPrepared);
        QVERIFY(page.enterPlayback());
        QVERIFY(page.isPreparingPlayback());
        QVERIFY(!page.isInPlayback());
        QVERIFY(page.playbackButton()->isChecked());
        auto *panel = page.findChild<QWidget *>(QStringLiteral("loadPanel"));
        auto *cancel = page.findChild<QPushButton *>(QStringLiteral("cancelLoadButton"));
        QVERIFY(panel && cancel);
        QVERIFY(panel->isVisible());
        QVERIFY(cancel->toolTip().contains(QLatin1String("playback")));
        cancel->click();
        QVERIFY(prepared.wait(30000));
        QCOMPARE(prepared.first().first().toBool(), false);
        QVERIFY(!page.isInPlayback());
        QVERIFY(!page.isPreparingPlayback());
        QVERIFY(!page.playbackButton()->isChecked());
        QVERIFY(panel->isHidden());
        QVERIFY2(
            page.noticeText().contains(QLatin1String("cancelled")), qPrintable(page.noticeText()));
        QCOMPARE(test::firstDifference(*page.model(), opened.whole), QString());

        // The button again: this time it gets there.
        page.playbackButton()->click();
        QTRY_VERIFY(page.isInPlayback());
        QCOMPARE(page.playback()->eventCount(), int(opened.run.events.size()));
        QVERIFY(panel->isHidden());
        QVERIFY(!cancel->toolTip().contains(QLatin1String("playback")));
    }

    // A live run goes on while its playback is prepared: playback then holds every event and
    // the end that came meanwhile, and the page still shows the whole run.
    void liveRunThatGrewWhilePreparedPlaysAllOfIt()
    {
        LiveCapture live;
        QVERIFY(live.startWithHalf(QStringLiteral("stream-subagent.jsonl")));
        const QList<QByteArray> &lines = live.lines;
        RunPage &page = live.page;
        qint64 &arrival = live.arrival;
        const int half = live.half;
        QVERIFY(page.enterPlayback());
        feed(live.feed, lines, half, int(lines.size()), &arrival);
        page.endRun(arrival);
        QTRY_VERIFY(page.isInPlayback());

        RunModel expected;
        buildExpected(&expected, lines);
        expected.markRunEnded(arrival);
        RunPlayback *playback = page.playback();
        QCOMPARE(playback->position(), playback->eventCount());
        QCOMPARE(test::firstDifference(*page.model(), expected), QString());
        QCOMPARE(page.model()->runEnded(), true);
        playback->jumpToPosition(0);
        playback->jumpToPosition(playback->eventCount());
        QCOMPARE(test::firstDifference(*page.model(), expected), QString());
        QCOMPARE(page.model()->runEnded(), true);
    }

    void refusedWhileNothingToPlay()
    {
        RunPage page;
        QString why;
        QVERIFY(!page.enterPlayback(&why));
        QVERIFY(!why.isEmpty());
        QVERIFY(!page.playbackButton()->isChecked());
        QVERIFY(page.noticeText().contains(why));
    }
};

QTEST_MAIN(TestPlaybackBar)
#include "tst_playbackbar.moc"
