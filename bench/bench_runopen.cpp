// Opening a big run recording in the run view and closing it again: writes a Sandscope
// recording of about N MB from the real stream-json captures in tests/data (every copy with
// ids of its own), opens it in a visible RunPage (offscreen) the way File → Open does, and
// reports the time to the first rows (target <= 300 ms), to fully loaded (<= 1.2 s for
// 100 MB, 10 s for 1 GB), the longest main-thread stall while loading (<= 50 ms), and the
// resident memory before opening, when loaded, at its peak (<= 1.5 x file + 50 MB; for a file of 16
// MiB or more, whose lines and content stay in the file, below the file's size: a 1 GB recording's
// memory is bounded by its rows), while searching (<= 0.5 x file for a 1 GB one) and after
// the page is closed (deleted, as closing its tab does); and a search typed at once: its first
// results (<= 1 s) and when it is complete, with no event loop turn over 50 ms; then another,
// and a word typed a letter at a time.
//
//   ./build/<dir>/bench/bench_runopen [--stream-json] [megabytes [file]]   (default 100 MB of a
//   recording, or of plain stream-json output as captured with --stream-json; a file named is built
//   there when missing and kept, and opened as it is otherwise: to profile the load alone, or
//   to measure a real run)

#include "benchcaptures.h"
#include "benchmemory.h"
#include "recordings/runrecording.h"
#include "runs/runpage.h"
#include "runtree/runfilterproxy.h"
#include "runtree/runmodel.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <unistd.h>

using namespace sandscope;

namespace {

// Times every event the loop hands out (not the ones sent from inside another), so that the
// longest stall can be told by what it was: receiver's class and event type.
class TimedApplication : public QApplication {
public:
    using QApplication::QApplication;
    bool notify(QObject *receiver, QEvent *event) override
    {
        if (m_depth > 0)
            return QApplication::notify(receiver, event);
        ++m_depth;
        QElapsedTimer timer;
        timer.start();
        const int type = int(event->type());
        const char *what = receiver->metaObject()->className();
        QObject *owner = receiver->parent(); // a timer: whose
        const char *whose = owner ? owner->metaObject()->className() : nullptr;
        const QByteArray name = receiver->objectName().toUtf8(); // a member timer: which
        const bool result = QApplication::notify(receiver, event);
        const qint64 spent = timer.elapsed();
        --m_depth;
        if (measuring && spent > longestMs) {
            longestMs = spent;
            longest = QByteArray(what) + (name.isEmpty() ? QByteArray() : " " + name)
                + (whose ? QByteArray(" of ") + whose : QByteArray()) + " event "
                + QByteArray::number(type);
        }
        return result;
    }
    bool measuring = false;
    qint64 longestMs = 0;
    QByteArray longest;

private:
    int m_depth = 0;
};

void settle()
{
    for (int round = 0; round < 3; ++round) {
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        QCoreApplication::processEvents();
    }
}

} // namespace

int main(int argc, char **argv)
{
    benchcaptures::useOffscreenPlatform();
    TimedApplication app(argc, argv);
    QStringList arguments = app.arguments().mid(1);
    // Plain stream-json (claude -p output as captured) instead of a Sandscope recording.
    const bool streamJson = arguments.removeAll(QStringLiteral("--stream-json")) > 0;
    const double megabytes = !arguments.isEmpty() ? std::max(1.0, arguments.at(0).toDouble()) : 100;

    const QList<QJsonObject> objects
        = benchcaptures::captureObjects(QStringLiteral(SANDSCOPE_CAPTURES_DIR));
    QTemporaryDir dir;
    // A file of the caller's: built there when missing, kept, and opened as it is when it
    // exists (to profile the load alone, or to measure a real run).
    const QString given = arguments.size() > 1 ? arguments.at(1) : QString();
    const QString path = given.isEmpty() ? dir.filePath(QStringLiteral("run.jsonl")) : given;
    if (!QFile::exists(path)) {
        RunRecorder recorder;
        QFile plain(path);
        if (objects.isEmpty()
            || !(streamJson ? plain.open(QIODevice::WriteOnly) : recorder.open(path))) {
            std::fprintf(stderr, "bench_runopen: cannot build the file\n");
            return 1;
        }
        qint64 arrival = 1'700'000'000'000;
        const benchcaptures::CaptureCopies copies(objects);
        for (int copy = 0; QFileInfo(path).size() < qint64(megabytes * 1e6); ++copy) {
            for (const QByteArray &line : copies.lines(copy)) {
                if (streamJson)
                    plain.write(line + '\n');
                else
                    recorder.record(line, arrival += 3);
            }
            if (streamJson)
                plain.flush(); // the loop measures the file's size
        }
        plain.close();
        recorder.close();
        // On disk before it is opened: built in seconds now, a 1 GB file was otherwise still
        // being written back while it loaded.
        QFile written(path);
        if (written.open(QIODevice::ReadOnly))
            ::fsync(written.handle());
    }
    const double fileMb = double(QFile(path).size()) / 1e6;

    // A first page of a small run, opened and closed: what any page leaves behind (fonts,
    // icons, the style's caches) is then in "before", and "after closing" shows what the big
    // run kept.
    {
        auto *warmUp = new RunPage;
        warmUp->resize(1200, 800);
        warmUp->show();
        bool warm = false;
        QObject::connect(warmUp, &RunPage::loadFinished, [&](bool) { warm = true; });
        if (warmUp->openFile(QStringLiteral(SANDSCOPE_CAPTURES_DIR "/stream-subagent.jsonl"))) {
            while (!warm)
                QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
        }
        warmUp->deleteLater();
    }
    settle();
    // The peak is the open page's: building the file (a 100 MB stream-json written through a
    // buffered QFile) was otherwise the whole process's peak.
    const bool peakOfThePage = benchmemory::resetPeak();
    const double before = benchmemory::residentMb();
    QPointer<RunPage> page = new RunPage;
    page->resize(1200, 800);
    page->show();
    QElapsedTimer clock;
    QElapsedTimer beat;
    qint64 longestStall = 0;
    qint64 firstRowsMs = -1;
    QTimer heartbeat;
    heartbeat.setInterval(1);
    QObject::connect(&heartbeat, &QTimer::timeout, [&] {
        longestStall = std::max(longestStall, beat.restart());
        if (firstRowsMs < 0 && page->model()->rowCount(page->model()->runIndex()) > 0)
            firstRowsMs = clock.elapsed();
    });
    bool done = false;
    QObject::connect(page, &RunPage::loadFinished, [&](bool) { done = true; });
    clock.start();
    beat.start();
    heartbeat.start();
    app.measuring = true;
    QString why;
    if (!page->openFile(path, &why)) {
        std::fprintf(stderr, "bench_runopen: cannot open: %s\n", qPrintable(why));
        return 1;
    }
    while (!done)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    const qint64 loadedMs = clock.elapsed();
    heartbeat.stop();
    app.measuring = false;
    page->flushEvents();
    settle();
    const qint64 calls = page->model()->summary().toolCalls;
    const qint64 nodes = page->model()->nodeCount();
    const double loaded = benchmemory::residentMb();
    const double peak = benchmemory::peakMb();

    // A search typed at once: a big file's nodes are judged from their lines first (in slices,
    // with the progress shown) and the search applied at once, or, above 75,000 nodes, applied
    // a slice at a time, its matches shown as they come (RunPageSearch). Then another one.
    QLineEdit *edit = page->searchEdit();
    auto *countLabel = page->findChild<QLabel *>(QStringLiteral("searchCountLabel"));
    qint64 longestSearchTurnMs = 0;
    qint64 firstMatchesMs = -1; // of the first search: its first matches shown
    const auto search = [&](const QString &text) {
        QElapsedTimer searchClock;
        searchClock.start();
        edit->setText(text);
        Q_EMIT edit->returnPressed();
        QElapsedTimer turn;
        // A big run's search is applied in slices (RunPage's SlicedSearch): its results are
        // there once the filter is complete; its first matches come before.
        while ((page->proxy()->searchText() != text || !page->proxy()->filterComplete())
            && searchClock.elapsed() < 600'000) {
            if (firstMatchesMs < 0 && page->proxy()->searchText() == text
                && page->proxy()->matchCount() > 0)
                firstMatchesMs = searchClock.elapsed();
            turn.start();
            QCoreApplication::processEvents();
            longestSearchTurnMs = std::max(longestSearchTurnMs, turn.elapsed());
        }
        turn.start();
        QCoreApplication::processEvents(); // the view's layout of the results
        longestSearchTurnMs = std::max(longestSearchTurnMs, turn.elapsed());
        return searchClock.elapsed();
    };
    // The longest event while searching, named as the load's is.
    const qint64 loadLongestMs = app.longestMs;
    const QByteArray loadLongest = app.longest;
    app.longestMs = 0;
    app.measuring = true;
    const qint64 firstSearchMs = search(QStringLiteral("bash"));
    if (firstMatchesMs < 0)
        firstMatchesMs = firstSearchMs;
    const QString firstCount = countLabel ? countLabel->text() : QString();
    const qint64 nextSearchMs = search(QStringLiteral("echo"));
    double searched = benchmemory::residentMb();
    // Then a word typed a letter at a time, each search complete before the next letter: the
    // most the results kept for going back can hold (RunFilterProxy keeps the latest within a
    // bound). Its turns count in the longest, its memory in the RSS while searching.
    qint64 slowestKeystrokeMs = 0;
    for (const char *typed : {"f", "fi", "fil", "file"}) {
        slowestKeystrokeMs = std::max(slowestKeystrokeMs, search(QString::fromLatin1(typed)));
        searched = std::max(searched, benchmemory::residentMb());
    }
    app.measuring = false;
    edit->clear();
    Q_EMIT edit->returnPressed();
    QCoreApplication::processEvents();

    page->deleteLater(); // what the tab's close button does
    settle();
    const double closed = benchmemory::residentMb();
    const bool deleted = page.isNull();

    const double peakTarget = 1.5 * fileMb + 50;
    std::printf("bench_runopen: %s %.1f MB, %lld tool calls, %lld nodes (Qt %s)\n",
        streamJson ? "stream-json" : "recording", fileMb, static_cast<long long>(calls),
        static_cast<long long>(nodes), qVersion());
    std::printf("  first rows after %lld ms (target <= 300 ms): %s\n",
        static_cast<long long>(firstRowsMs),
        firstRowsMs >= 0 && firstRowsMs <= 300 ? "met" : "NOT MET");
    // Issue 30's targets: 1 GB loaded within 10 s, 100 MB within 1.2 s.
    const double loadTargetMs = fileMb >= 1000 ? 10 * fileMb : 12 * fileMb;
    std::printf("  fully loaded after %lld ms (target <= %.0f ms for this size): %s\n",
        static_cast<long long>(loadedMs), loadTargetMs,
        double(loadedMs) <= loadTargetMs ? "met" : "NOT MET");
    std::printf("  longest main-thread stall while loading: %lld ms (target <= 50 ms): %s\n",
        static_cast<long long>(longestStall), longestStall <= 50 ? "met" : "NOT MET");
    std::printf("  longest event: %lld ms, %s\n", static_cast<long long>(loadLongestMs),
        loadLongest.constData());
    std::printf("  RSS: %.0f MB before, %.0f MB loaded, %.0f MB peak (target <= %.0f MB): %s; "
                "%.0f MB after closing (%.0f MB above before; page %s)%s\n",
        before, loaded, peak, peakTarget, peak <= peakTarget ? "met" : "NOT MET", closed,
        closed - before, deleted ? "deleted" : "NOT deleted",
        peakOfThePage ? "" : "; the peak could not be reset: it includes building the file");
    if (fileMb >= 16.8) // 16 MiB: the page leaves lines and content in the file
        std::printf("  the run's peak (above before) %.2f x the file (bounded: the content stays "
                    "in the file, target < 1): %s\n",
            (peak - before) / fileMb, peak - before < fileMb ? "met" : "NOT MET");
    // The target is the first results (issue 30); a big run's search then goes on showing more.
    std::printf("  search typed at once: first matches shown after %lld ms, with its progress "
                "(target <= 1000 ms: %s); complete after %lld ms (\"%s\"), longest turn %lld ms "
                "(target <= 50 ms: %s), the next search %lld ms, then \"file\" typed a letter at a "
                "time: slowest keystroke %lld ms; RSS %.0f MB while searching (the most after "
                "each)\n",
        static_cast<long long>(firstMatchesMs),
        firstMatchesMs >= 0 && firstMatchesMs <= 1000 ? "met" : "NOT MET",
        static_cast<long long>(firstSearchMs), qPrintable(firstCount),
        static_cast<long long>(longestSearchTurnMs), longestSearchTurnMs <= 50 ? "met" : "NOT MET",
        static_cast<long long>(nextSearchMs), static_cast<long long>(slowestKeystrokeMs), searched);
    std::printf("  longest event while searching: %lld ms, %s\n",
        static_cast<long long>(app.longestMs), app.longest.constData());
    // Issue 30's target is a 1 GB run's; a smaller one's tables (sized in powers of two) and
    // buffers weigh more against its size.
    if (fileMb >= 1000)
        std::printf("  RSS while searching (above before) %.2f x the file (target <= 0.5): %s\n",
            (searched - before) / fileMb, searched - before <= 0.5 * fileMb ? "met" : "NOT MET");
    else if (fileMb >= 16.8)
        std::printf("  RSS while searching (above before) %.2f x the file (the target, <= 0.5, "
                    "is a 1 GB run's)\n",
            (searched - before) / fileMb);
    std::printf("  loaded run: %.0f bytes per node, %.2f MB per MB of file\n",
        (loaded - before) * 1e6 / double(std::max<qint64>(1, nodes)), (loaded - before) / fileMb);
    return 0;
}
