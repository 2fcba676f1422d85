// LoadedRun: a whole run read at once keeps every event of the file in order, names where its
// times come from (a recording's arrival times, a transcript's or capture's own timestamps,
// or event order when the file has none), reports a corrupt line as a problem rather than a
// failure, refuses an unreadable file with a reason, and builds the same tree as feeding the
// reader's events by hand.

#include "recordings/runrecording.h"
#include "runs/loadedrun.h"
#include "runtree/runmodel.h"
#include "streamjson/runparser.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest/QTest>

using namespace sandscope;

namespace {

QString dataPath(const QString &name)
{
    return QStringLiteral(SANDSCOPE_TEST_DATA_DIR) + QLatin1Char('/') + name;
}

QString transcriptOf(const QString &scenario)
{
    const QDir dir(dataPath(QStringLiteral("transcripts/%1/transcript").arg(scenario)));
    const QStringList files = dir.entryList({QStringLiteral("*.jsonl")}, QDir::Files, QDir::Name);
    return files.isEmpty() ? QString() : dir.filePath(files.constFirst());
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// Every node with its kind, status and the text of every column, in pre-order.
QStringList treeText(const RunModel &model, const QModelIndex &parent = {}, int depth = 0)
{
    QStringList out;
    for (int row = 0; row < model.rowCount(parent); ++row) {
        const QModelIndex index = model.index(row, 0, parent);
        QString line = QString(depth, QLatin1Char(' '))
            + QString::number(index.data(RunModel::KindRole).toInt()) + QLatin1Char('/')
            + QString::number(index.data(RunModel::StatusRole).toInt());
        for (int column = 0; column < model.columnCount(parent); ++column)
            line += QLatin1String(" | ") + index.siblingAtColumn(column).data().toString();
        out << line << treeText(model, index, depth + 1);
    }
    return out;
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

} // namespace

class LoadedRunTest : public QObject {
    Q_OBJECT

private slots:
    void clockNamesWhereTimesComeFrom();
    void treeEqualsFeedingTheReaderByHand_data();
    void treeEqualsFeedingTheReaderByHand();
    void corruptLineIsAProblemNotAFailure();
    void missingFileIsRefusedWithAReason();
};

void LoadedRunTest::clockNamesWhereTimesComeFrom()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());

    // A recording: arrival times as recorded.
    const QString recordingPath = dir.filePath(QStringLiteral("run.jsonl"));
    {
        RunRecorder recorder;
        QVERIFY(recorder.open(recordingPath));
        const QList<QByteArray> lines
            = readFile(dataPath(QStringLiteral("stream-basic.jsonl"))).split('\n');
        qint64 t = 1'700'000'000'000;
        for (const QByteArray &line : lines) {
            if (!line.isEmpty())
                QVERIFY(recorder.record(line, t += 10) > 0);
        }
    }
    LoadedRun recording;
    QVERIFY(LoadedRun::fromFile(recordingPath, &recording));
    QCOMPARE(recording.format, RecordingReader::Format::Recording);
    QCOMPARE(recording.clock, LoadedRun::Clock::Arrival);
    QVERIFY(recording.lastArrivalMs > 1'700'000'000'000);

    LoadedRun transcript;
    QVERIFY(LoadedRun::fromFile(transcriptOf(QStringLiteral("bash")), &transcript));
    QCOMPARE(transcript.format, RecordingReader::Format::Transcript);
    QCOMPARE(transcript.clock, LoadedRun::Clock::Timestamps);

    // A capture whose lines carry no "timestamp" at all: order only, every time 0.
    QByteArray untimed;
    for (const QByteArray &line :
        readFile(dataPath(QStringLiteral("stream-basic.jsonl"))).split('\n')) {
        if (!line.contains("\"timestamp\""))
            untimed += line + '\n';
    }
    const QString untimedPath = dir.filePath(QStringLiteral("untimed.jsonl"));
    QVERIFY(writeFile(untimedPath, untimed));
    LoadedRun order;
    QVERIFY(LoadedRun::fromFile(untimedPath, &order));
    QCOMPARE(order.format, RecordingReader::Format::StreamJson);
    QCOMPARE(order.clock, LoadedRun::Clock::Order);
    QVERIFY(!order.events.isEmpty());
    for (const RunEvent &event : std::as_const(order.events))
        QCOMPARE(event.arrivalMs, qint64(0));
    QVERIFY(LoadedRun::clockText(LoadedRun::Clock::Order)
        != LoadedRun::clockText(LoadedRun::Clock::Arrival));
}

void LoadedRunTest::treeEqualsFeedingTheReaderByHand_data()
{
    QTest::addColumn<QString>("path");
    for (const char *name : {"stream-basic.jsonl", "stream-subagent.jsonl", "stream-partial.jsonl",
             "stream-sigterm.jsonl", "transcript-basic.jsonl"})
        QTest::newRow(name) << dataPath(QString::fromLatin1(name));
    for (const char *scenario : {"subagent", "parallel", "resume", "compact"})
        QTest::newRow(scenario) << transcriptOf(QString::fromLatin1(scenario));
}

void LoadedRunTest::treeEqualsFeedingTheReaderByHand()
{
    QFETCH(QString, path);
    LoadedRun run;
    QString why;
    QVERIFY2(LoadedRun::fromFile(path, &run, &why), qPrintable(why));
    RunModel loaded;
    run.buildModel(&loaded);

    RecordingReader reader;
    QVERIFY(reader.open(path));
    RunParser parser;
    RunModel byHand;
    RecordedLine line;
    qint64 nonBlank = 0;
    qint64 last = 0;
    int events = 0;
    while (reader.readLine(&line)) {
        nonBlank += line.line.trimmed().isEmpty() ? 0 : 1;
        const RunEventBatch batch = reader.eventsOf(parser, line);
        events += batch.size();
        for (const RunEvent &event : batch)
            last = std::max(last, event.arrivalMs);
        byHand.addEvents(batch);
    }
    const RunEventBatch held = reader.finishReading();
    events += held.size();
    for (const RunEvent &event : held)
        last = std::max(last, event.arrivalMs);
    byHand.addEvents(held);
    byHand.markRunEnded(last);

    QCOMPARE(run.events.size(), events);
    QCOMPARE(run.lines, nonBlank);
    QCOMPARE(run.lastArrivalMs, last);
    QVERIFY(loaded.rowCount() > 0);
    QCOMPARE(treeText(loaded), treeText(byHand));
}

void LoadedRunTest::corruptLineIsAProblemNotAFailure()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    RunRecorder recorder;
    const QString path = dir.filePath(QStringLiteral("cut.jsonl"));
    QVERIFY(recorder.open(path));
    QVERIFY(recorder.record(R"({"type":"system","subtype":"init","session_id":"s1"})", 1000) > 0);
    recorder.close();
    QFile file(path);
    QVERIFY(file.open(QIODevice::Append));
    file.write("{\"t\":2000,\"line\":\"{\\\"type\\\":\\\"assis\n"); // a crash cut this entry
    file.close();

    LoadedRun run;
    QString why;
    QVERIFY2(LoadedRun::fromFile(path, &run, &why), qPrintable(why));
    QCOMPARE(run.problems.size(), 1);
    QVERIFY2(run.problems.constFirst().startsWith(QLatin1String("line 3")),
        qPrintable(run.problems.constFirst()));
    QVERIFY(!run.events.isEmpty());
    QCOMPARE(run.events.constFirst().kind, RunEvent::SessionInit);
}

void LoadedRunTest::missingFileIsRefusedWithAReason()
{
    LoadedRun run;
    QString why;
    QVERIFY(!LoadedRun::fromFile(QStringLiteral("/nonexistent/run.jsonl"), &run, &why));
    QVERIFY2(why.contains(QLatin1String("/nonexistent/run.jsonl")), qPrintable(why));
    QVERIFY(run.events.isEmpty());
}

QTEST_GUILESS_MAIN(LoadedRunTest)
#include "tst_loadedrun.moc"
