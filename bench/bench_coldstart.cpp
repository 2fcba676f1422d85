// Cold start: from starting a new process to the main window's first painted frame (target
// <= 300 ms). Each round starts this benchmark again as a child that builds the window as
// `sandscope` does (QApplication, MainWindow, show) and prints "painted" once the first paint
// of the window has been flushed; the parent times each child from QProcess::start to that
// line, so process creation, dynamic linking and Qt's platform start-up are included. Each
// child gets an empty home, so no saved profile or window state is read. The platform is the
// caller's (scripts/bench.sh: offscreen; run under xvfb-run with QT_QPA_PLATFORM=xcb for X11).
//
//   ./build/<dir>/bench/bench_coldstart [rounds]   (default 7)

#include "benchcaptures.h"
#include "mainwindow.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cstdio>

using namespace sandscope;

namespace {

const char childArgument[] = "--child";

// Prints "painted" after the first paint event of the window has been handled and flushed.
class FirstPaint : public QObject {
public:
    explicit FirstPaint(QWidget *window)
        : m_window(window)
    {
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (!m_seen && event->type() == QEvent::Paint && watched->isWidgetType()
            && static_cast<QWidget *>(watched)->window() == m_window) {
            m_seen = true;
            QTimer::singleShot(0, this, [] {
                std::puts("painted");
                std::fflush(stdout);
                QCoreApplication::quit();
            });
        }
        return false;
    }

private:
    QWidget *m_window;
    bool m_seen = false;
};

int child(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("sandscope"));
    QApplication::setOrganizationName(QStringLiteral("sandscope"));
    MainWindow window;
    FirstPaint watcher(&window);
    app.installEventFilter(&watcher);
    window.show();
    return app.exec();
}

} // namespace

int main(int argc, char **argv)
{
    benchcaptures::useOffscreenPlatform();
    if (argc > 1 && qstrcmp(argv[1], childArgument) == 0)
        return child(argc, argv);

    QCoreApplication app(argc, argv);
    const int rounds = argc > 1 ? std::max(1, QByteArray(argv[1]).toInt()) : 7;
    QTemporaryDir home;
    if (!home.isValid())
        return 1;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const char *variable : {"HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"})
        environment.insert(QString::fromLatin1(variable), home.path());

    QList<qint64> times;
    for (int round = 0; round < rounds; ++round) {
        QProcess process;
        process.setProcessEnvironment(environment);
        process.setProcessChannelMode(QProcess::SeparateChannels);
        QElapsedTimer clock;
        clock.start();
        process.start(
            QCoreApplication::applicationFilePath(), {QString::fromLatin1(childArgument)});
        qint64 painted = -1;
        while (painted < 0 && process.waitForReadyRead(10000)) {
            if (process.readAllStandardOutput().contains("painted"))
                painted = clock.elapsed();
        }
        process.waitForFinished(10000);
        if (painted < 0) {
            std::printf("round %d: the window never painted (%s)\n", round + 1,
                process.readAllStandardError().constData());
            return 1;
        }
        // The first round also loads the libraries from disk; it is reported, not counted.
        std::printf("round %d: first frame after %lld ms\n", round + 1, painted);
        if (round > 0 || rounds == 1)
            times << painted;
    }
    std::sort(times.begin(), times.end());
    const qint64 median = times.at(times.size() / 2);
    std::printf("cold start to a painted window (%s): min %lld ms, median %lld ms, max %lld ms "
                "(target <= 300 ms: %s)\n",
        qgetenv("QT_QPA_PLATFORM").constData(), times.constFirst(), median, times.constLast(),
        median <= 300 ? "met" : "NOT MET");
    return 0;
}
