// rundiscovery: the listing script run by the local sh against a fake home (finished, running
// and killed runs, an odd prompt), and the parser on hostile output.

#include "runs/rundiscovery.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace sandscope;

namespace {

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).path());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

QString runScript(const QString &home)
{
    QProcess shell;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("HOME"), home);
    shell.setProcessEnvironment(environment);
    shell.start(QStringLiteral("sh"), {QStringLiteral("-c"), rundiscovery::script()});
    shell.waitForFinished(30000);
    return QString::fromUtf8(shell.readAllStandardOutput());
}

} // namespace

class RunDiscoveryTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void scriptFindsEveryRunWithItsState()
    {
        QTemporaryDir home;
        QVERIFY(home.isValid());
        const QString runs = home.path() + QStringLiteral("/.sandscope/runs/");
        // Finished: exit file; running: its shell (command line names the run) is alive;
        // ended: neither (killed).
        QVERIFY(writeFile(runs + QStringLiteral("chat-a/run-done.jsonl"), "{}\n"));
        QVERIFY(writeFile(runs + QStringLiteral("chat-a/run-done.exit"), "3\n"));
        QVERIFY(writeFile(
            runs + QStringLiteral("chat-a/run-done.prompt"), "first line\tand a tab\nsecond line"));
        QProcess alive;
        alive.start(
            QStringLiteral("sh"), {QStringLiteral("-c"), QStringLiteral("sleep 30; : run-live")});
        QVERIFY(alive.waitForStarted());
        QVERIFY(writeFile(runs + QStringLiteral("chat-b/run-live.jsonl"), "{}\n{}\n"));
        QVERIFY(writeFile(runs + QStringLiteral("chat-b/run-live.pid"),
            QByteArray::number(alive.processId()) + '\n'));
        QVERIFY(writeFile(runs + QStringLiteral("chat-b/run-killed.jsonl"), ""));
        QVERIFY(writeFile(runs + QStringLiteral("chat-b/run-killed.pid"), "999999999\n"));

        rundiscovery::Listing listing;
        const QString output = runScript(home.path());
        QVERIFY2(rundiscovery::parse(output, &listing), qPrintable(output));
        alive.kill();
        alive.waitForFinished();
        QCOMPARE(listing.home, QDir(home.path()).canonicalPath());
        QCOMPARE(listing.runs.size(), 3);
        QHash<QString, DiscoveredRun> byId;
        for (const DiscoveredRun &run : std::as_const(listing.runs))
            byId.insert(run.runId, run);
        QCOMPARE(byId.value(QStringLiteral("run-done")).state, DiscoveredRun::State::Finished);
        QCOMPARE(byId.value(QStringLiteral("run-done")).exitCode, 3);
        QCOMPARE(byId.value(QStringLiteral("run-done")).chatId, QStringLiteral("chat-a"));
        QCOMPARE(byId.value(QStringLiteral("run-done")).promptStart,
            QStringLiteral("first line and a tab second line"));
        QCOMPARE(byId.value(QStringLiteral("run-live")).state, DiscoveredRun::State::Running);
        QCOMPARE(byId.value(QStringLiteral("run-live")).size, qint64(6));
        QCOMPARE(byId.value(QStringLiteral("run-killed")).state, DiscoveredRun::State::Ended);
        for (int i = 1; i < listing.runs.size(); ++i)
            QVERIFY(listing.runs.at(i - 1).lastWrite >= listing.runs.at(i).lastWrite);

        const RunHandle handle = rundiscovery::handleFor(
            {QStringLiteral("alice"), {}}, listing.home, byId.value(QStringLiteral("run-live")));
        QVERIFY(handle.isValid());
        QVERIFY(handle.processId.isEmpty()); // followed by its tee file
        QCOMPARE(handle.teePath(), byId.value(QStringLiteral("run-live")).teePath);
    }

    void scriptWithoutRunsListsNothing()
    {
        QTemporaryDir home;
        rundiscovery::Listing listing;
        QVERIFY(rundiscovery::parse(runScript(home.path()), &listing));
        QVERIFY(listing.runs.isEmpty());
    }

    void parserSkipsNoiseAndForeignFiles()
    {
        const QString output = QStringLiteral(
            "sudo: unable to resolve host\r\n"
            "SANDSCOPE-HOME=/home/alice\r\n"
            "SANDSCOPE-RUNFILE\t1700000000.250 "
            "42\t0\t0\tp\t/home/alice/.sandscope/runs/c1/r1.jsonl\r\n"
            "SANDSCOPE-RUNFILE\t1700000000 1\t-\t0\tp\t/home/alice/.sandscope/runs/../x.jsonl\n"
            "SANDSCOPE-RUNFILE\t1700000000 1\t-\t0\tp\t/home/alice/.sandscope/runs/c1/r2.txt\n"
            "SANDSCOPE-RUNFILE\ttoo few\n"
            "\x1b[?25h");
        rundiscovery::Listing listing;
        QVERIFY(rundiscovery::parse(output, &listing));
        QCOMPARE(listing.home, QStringLiteral("/home/alice"));
        QCOMPARE(listing.runs.size(), 1);
        QCOMPARE(listing.runs.first().runId, QStringLiteral("r1"));
        QCOMPARE(listing.runs.first().lastWrite.toMSecsSinceEpoch(), qint64(1700000000250));
        QCOMPARE(listing.runs.first().state, DiscoveredRun::State::Finished);

        QVERIFY(!rundiscovery::parse(QStringLiteral("no home here\n"), &listing));
    }

    void modelShowsTheListing()
    {
        rundiscovery::Listing listing;
        listing.home = QStringLiteral("/home/alice");
        DiscoveredRun run;
        run.chatId = QStringLiteral("c1");
        run.runId = QStringLiteral("r1");
        run.state = DiscoveredRun::State::Finished;
        run.exitCode = 0;
        run.size = 2048;
        listing.runs << run;
        DiscoveredRunModel model;
        QAbstractItemModelTester tester(
            &model, QAbstractItemModelTester::FailureReportingMode::Fatal);
        model.setListing(listing);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, DiscoveredRunModel::StateColumn).data().toString(),
            rundiscovery::stateText(run));
        QCOMPARE(model.index(0, DiscoveredRunModel::SizeColumn)
                     .data(DiscoveredRunModel::SortRole)
                     .toLongLong(),
            qint64(2048));
    }
};

QTEST_GUILESS_MAIN(RunDiscoveryTest)
#include "tst_rundiscovery.moc"
