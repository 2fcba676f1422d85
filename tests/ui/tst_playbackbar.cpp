// The run page's playback (offscreen): entering it keeps the whole run shown, scrubbing to the
// start shows an empty run, a step goes to the first tool call, playing at 100x reaches the end
// with the whole tree, leaving restores the whole run; a live run stays frozen while more
// arrives and "Live" shows all of it. Expected trees are fresh models of the same events.

#include "runs/loadedrun.h"
#include "runs/playbackbar.h"
#include "runs/playbackscrubber.h"
#include "runs/runmodel.h"
#include "runs/runpage.h"
#include "runs/runplayback.h"
#include "runs/runsummarybar.h"
#include "runtreeshape.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QPushButton>
#include <QSignalSpy>
#include <QToolButton>
#include <QTreeView>
#include <QtTest/QTest>

using namespace sandscope;

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

} // namespace

class TestPlaybackBar : public QObject {
    Q_OBJECT

private slots:
    void playsScrubsStepsAndLeaves()
    {
        const QString path = capturePath(QStringLiteral("stream-subagent.jsonl"));
        LoadedRun run;
        QVERIFY(LoadedRun::fromFile(path, &run));
        RunModel whole;
        run.buildModel(&whole);

        RunPage page;
        page.resize(1100, 700);
        page.show();
        QVERIFY(openAndWait(page, path));
        QAbstractItemModelTester tester(
            page.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(page.playbackBar()->isHidden());
        page.playbackButton()->click();
        QVERIFY(page.isInPlayback());
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
        QFile capture(capturePath(QStringLiteral("stream-partial.jsonl")));
        QVERIFY(capture.open(QIODevice::ReadOnly));
        QList<QByteArray> lines = capture.readAll().split('\n');
        lines.removeAll(QByteArray());
        RunPage page;
        page.resize(1000, 600);
        page.show();
        qint64 arrival = 1'700'000'000'000;
        const int half = int(lines.size()) / 2;
        for (int i = 0; i < half; ++i)
            page.appendLine(lines[i], arrival += 500);
        page.flushEvents();
        QVERIFY(page.enterPlayback());
        RunPlayback *playback = page.playback();
        QCOMPARE(playback->clock(), LoadedRun::Clock::Arrival);
        playback->jumpToPosition(1);
        const int shownRows = page.model()->rowCount(page.model()->runIndex());
        for (int i = half; i < lines.size(); ++i)
            page.appendLine(lines[i], arrival += 500);
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
        RunParser parser;
        arrival = 1'700'000'000'000;
        for (const QByteArray &line : std::as_const(lines))
            expected.addEvents(parser.parseLine(line, arrival += 500));
        QCOMPARE(test::firstDifference(*page.model(), expected), QString());
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
