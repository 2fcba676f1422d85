// Reading local run files safely (issue 27): a transcript's sub-agent or meta file that is a
// symlink leading out of the session's folder, a FIFO or anything but a regular file is not
// read, and the run says which file was skipped and why (before, a FIFO hung the replay and a
// symlink showed another file's content); `replay` of a device stops at once with a clear
// message; an endless pipe stops at the line-length and size limits.

#include "recordings/runrecording.h"
#include "runs/loadedrun.h"
#include "sandscopecli.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest/QTest>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace sandscope;

namespace {

const QString session = QStringLiteral("7739cfbb-888f-4e13-b920-0056c590c684");

QString dataPath(const QString &relative)
{
    return QStringLiteral(SANDSCOPE_TEST_DATA_DIR) + QLatin1Char('/') + relative;
}

// A copy of the recorded sub-agent transcript in dir: its main file, path returned.
QString copyTranscript(const QString &dir)
{
    const QString from = dataPath(QStringLiteral("transcripts/subagent/transcript"));
    QDir(dir).mkpath(session + QStringLiteral("/subagents"));
    QFile::copy(from + QLatin1Char('/') + session + QStringLiteral(".jsonl"),
        dir + QLatin1Char('/') + session + QStringLiteral(".jsonl"));
    const QDir subagents(from + QLatin1Char('/') + session + QStringLiteral("/subagents"));
    for (const QString &name : subagents.entryList(QDir::Files))
        QFile::copy(subagents.filePath(name),
            dir + QLatin1Char('/') + session + QStringLiteral("/subagents/") + name);
    return dir + QLatin1Char('/') + session + QStringLiteral(".jsonl");
}

// The one sub-agent file of the copy.
QString agentFile(const QString &dir, const char *suffix)
{
    const QDir subagents(dir + QLatin1Char('/') + session + QStringLiteral("/subagents"));
    const QStringList names
        = subagents.entryList({QStringLiteral("agent-*") + QLatin1String(suffix)});
    return names.size() == 1 ? subagents.filePath(names.constFirst()) : QString();
}

} // namespace

class TestLocalRunFiles : public QObject {
    Q_OBJECT

private slots:
    void notRegularSubagentFilesAreSkipped_data();
    void notRegularSubagentFilesAreSkipped();
    void linkInsideTheSessionIsRead();
    void devicesAreRefused();
    void endlessPipeStops_data();
    void endlessPipeStops();
};

void TestLocalRunFiles::notRegularSubagentFilesAreSkipped_data()
{
    QTest::addColumn<QString>("which"); // .jsonl or .meta.json
    QTest::addColumn<QString>("kind"); // link-out, fifo
    QTest::addColumn<QString>("why");
    QTest::newRow("transcript link out") << ".jsonl"
                                         << "link-out"
                                         << "outside the session's folder";
    QTest::newRow("transcript fifo") << ".jsonl"
                                     << "fifo"
                                     << "is a FIFO, not read";
    QTest::newRow("meta link out") << ".meta.json"
                                   << "link-out"
                                   << "outside the session's folder";
    QTest::newRow("meta fifo") << ".meta.json"
                               << "fifo"
                               << "is a FIFO, not read";
}

void TestLocalRunFiles::notRegularSubagentFilesAreSkipped()
{
    QFETCH(QString, which);
    QFETCH(QString, kind);
    QFETCH(QString, why);
    QTemporaryDir dir;
    QTemporaryDir elsewhere;
    const QString transcript = copyTranscript(dir.path());
    const QString file = agentFile(dir.path(), qPrintable(which));
    QVERIFY(!file.isEmpty());
    const QString secret = elsewhere.filePath(QStringLiteral("secret.txt"));
    {
        QFile out(secret);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(
            "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"SOMEONE-ELSES\"}}\n");
    }
    QVERIFY(QFile::remove(file));
    if (kind == QLatin1String("fifo"))
        QCOMPARE(::mkfifo(QFile::encodeName(file).constData(), 0600), 0);
    else
        QVERIFY(QFile::link(secret, file));

    // The command line, which used to hang on the FIFO (30 s: runSandscope gives up).
    QElapsedTimer timer;
    timer.start();
    const test::CliOutcome replay = test::runSandscope({QStringLiteral("replay"), transcript});
    QVERIFY2(replay.exitCode >= 0, "replay did not finish");
    QVERIFY(timer.elapsed() < 20000);
    const QString relative = QDir(dir.path()).relativeFilePath(file);
    QVERIFY2(replay.err.contains(relative.toUtf8()), replay.err.constData());
    QVERIFY2(replay.err.contains(why.toUtf8()), replay.err.constData());
    QVERIFY(!replay.out.contains("SOMEONE-ELSES"));

    LoadedRun run;
    QString error;
    QVERIFY2(LoadedRun::fromFile(transcript, &run, &error), qPrintable(error));
    QVERIFY2(run.problems.join(QLatin1Char('\n')).contains(relative),
        qPrintable(run.problems.join(QLatin1Char('\n'))));
}

void TestLocalRunFiles::linkInsideTheSessionIsRead()
{
    QTemporaryDir dir;
    const QString transcript = copyTranscript(dir.path());
    const QString file = agentFile(dir.path(), ".jsonl");
    const QString moved = dir.path() + QLatin1Char('/') + session + QStringLiteral("/moved.jsonl");
    QVERIFY(QFile::rename(file, moved));
    QVERIFY(QFile::link(moved, file));
    LoadedRun run;
    QString error;
    QVERIFY2(LoadedRun::fromFile(transcript, &run, &error), qPrintable(error));
    QVERIFY2(run.problems.isEmpty(), qPrintable(run.problems.join(QLatin1Char('\n'))));
}

void TestLocalRunFiles::devicesAreRefused()
{
    for (const char *device : {"/dev/zero", "/dev/null", "/tmp"}) {
        QElapsedTimer timer;
        timer.start();
        const test::CliOutcome replay
            = test::runSandscope({QStringLiteral("replay"), QLatin1String(device)});
        QCOMPARE(replay.exitCode, 1);
        QVERIFY(timer.elapsed() < 10000);
        QVERIFY2(replay.err.contains("not read"), replay.err.constData());
    }
}

void TestLocalRunFiles::endlessPipeStops_data()
{
    QTest::addColumn<QByteArray>("pattern");
    QTest::addColumn<QString>("why");
    QTest::newRow("one endless line") << QByteArray(4096, '\0') << "is longer than";
    QTest::newRow("endless lines")
        << QByteArray("{\"type\":\"x\"}\n").repeated(256) << "is larger than";
}

void TestLocalRunFiles::endlessPipeStops()
{
    QFETCH(QByteArray, pattern);
    QFETCH(QString, why);
    std::signal(SIGPIPE, SIG_IGN);
    QTemporaryDir dir;
    const QString fifo = dir.filePath(QStringLiteral("endless"));
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    std::atomic<bool> stop {false};
    std::thread writer([&] {
        const int fd = ::open(QFile::encodeName(fifo).constData(), O_WRONLY);
        if (fd < 0)
            return;
        ::fcntl(fd, F_SETFL, O_NONBLOCK);
        while (!stop) {
            if (::write(fd, pattern.constData(), size_t(pattern.size())) >= 0)
                continue;
            if (errno != EAGAIN)
                break; // EPIPE: the reader is gone
            ::usleep(1000);
        }
        ::close(fd);
    });
    QString error;
    {
        RecordingReader reader;
        reader.setLimits(64 * 1024, 512 * 1024); // small: the parse of each line costs (ASan)
        if (reader.open(fifo, &error)) {
            RecordedLine line;
            while (reader.readLine(&line)) { }
            error = reader.readError();
        }
    } // the reader closes its end
    stop = true;
    // A writer still waiting in open() for a reader goes on, sees stop and ends.
    const int unblock = ::open(QFile::encodeName(fifo).constData(), O_RDONLY | O_NONBLOCK);
    writer.join();
    if (unblock >= 0)
        ::close(unblock);
    QVERIFY2(error.contains(why), qPrintable(error));
}

QTEST_GUILESS_MAIN(TestLocalRunFiles)
#include "tst_localrunfiles.moc"
