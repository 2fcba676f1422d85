// Run recordings: every capture round-trips through RunRecorder and RecordingReader with its
// lines and arrival times; times never decrease; lines that are not UTF-8 or hold control
// characters survive; a recording process killed with SIGKILL leaves every line it had
// shown on disk (the child records each line, then parses it, then acknowledges it);
// plain stream-json captures are detected and timed from their "timestamp" fields;
// transcripts are recognised as such; corrupt recording lines are reported and skipped, not fatal
// (reading on a worker thread: tst_recordingloader).

#include "capturelines.h"
#include "recordings/linesource.h"
#include "recordings/runrecording.h"
#include "runtree/runfilterproxy.h"
#include "runtree/runmodel.h"
#include "runtree/runnodedetails.h"
#include "streamjson/runparser.h"
#include "streamjson/runsummary.h"

#include <QAbstractItemModelTester>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest/QTest>

#include <cstdio>
#include <functional>
#include <iostream>
#include <string>

using namespace sandscope;

namespace {

using sandscope::test::capture::captureLines;

const char childVariable[] = "SANDSCOPE_RECORDER_CHILD";

QString capturePath(const QString &name)
{
    return QStringLiteral(SANDSCOPE_TEST_DATA_DIR) + QLatin1Char('/') + name;
}

// A tail of some 300 characters with a word of its own (n in letters), so that a block with
// it is over the 256 bytes a model keeps of a big run (RunModel::setLineSource).
QString paddingTail(int n)
{
    QString word = QStringLiteral("filler");
    for (int i = 0; i < 4; ++i, n /= 26)
        word += QChar(QLatin1Char('a' + n % 26));
    return QLatin1Char('\n') + QString(word + QLatin1Char(' ')).repeated(28);
}

// The line with every text, thinking and tool_result block and every tool_use input made big.
QByteArray padded(const QByteArray &line, int *counter)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(line, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return line;
    std::function<QJsonValue(const QJsonValue &)> pad = [&](const QJsonValue &value) {
        if (value.isArray()) {
            QJsonArray array;
            for (const QJsonValue &item : value.toArray())
                array.append(pad(item));
            return QJsonValue(array);
        }
        if (!value.isObject())
            return value;
        QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it)
            *it = pad(*it);
        const QString type = object.value(QLatin1String("type")).toString();
        for (const char *key : {"text", "thinking", "content"}) {
            const QJsonValue field = object.value(QLatin1String(key));
            const bool block = type == QLatin1String(key)
                || (type == QLatin1String("tool_result") && qstrcmp(key, "content") == 0);
            if (block && field.isString())
                object.insert(
                    QLatin1String(key), QString(field.toString() + paddingTail((*counter)++)));
        }
        if (type == QLatin1String("tool_use") && object.value(QLatin1String("input")).isObject()) {
            QJsonObject input = object.value(QLatin1String("input")).toObject();
            input.insert(QStringLiteral("padding"), paddingTail((*counter)++));
            object.insert(QLatin1String("input"), input);
        }
        return QJsonValue(object);
    };
    return QJsonDocument(pad(document.object()).toObject()).toJson(QJsonDocument::Compact);
}

QList<RecordedLine> readAll(RecordingReader &reader)
{
    QList<RecordedLine> lines;
    RecordedLine line;
    while (reader.readLine(&line))
        lines.append(line);
    return lines;
}

// The child of crashRecordingKeepsEveryShownLine: records each stdin line through
// RecordingFeed and prints "shown N" when the parser has delivered the line's events.
int recorderChild(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    RunRecorder recorder;
    if (!recorder.open(qEnvironmentVariable(childVariable)))
        return 3;
    RunParser parser;
    RecordingFeed feed(&parser, &recorder);
    qint64 given = 0;
    QObject::connect(&parser, &RunParser::eventsReady, [&given] {
        std::printf("shown %lld\n", static_cast<long long>(given));
        std::fflush(stdout);
    });
    std::string line;
    while (std::getline(std::cin, line)) {
        ++given;
        feed.feedLine(QByteArray::fromStdString(line), QDateTime::currentMSecsSinceEpoch());
    }
    return 0;
}

// Each row a proxy shows as "depth|summary", in view order.
QStringList outline(const QAbstractItemModel &model, const QModelIndex &parent = {}, int depth = 0)
{
    QStringList rows;
    for (int row = 0; row < model.rowCount(parent); ++row) {
        const QModelIndex index = model.index(row, 0, parent);
        rows << QString::number(depth) + QLatin1Char('|') + index.data().toString();
        rows += outline(model, index, depth + 1);
    }
    return rows;
}

// Feeds the file's lines from `from` on into the model (RecordingReader::readLine); the rest
// once `count` lines are read (-1: all of them, and the run ends).
void feedRun(RunModel &model, RecordingReader &reader, RunParser &parser, int count)
{
    RecordedLine line;
    for (int read = 0; (count < 0 || read < count) && reader.readLine(&line); ++read)
        model.addEvents(reader.eventsOf(parser, line));
    if (count < 0) {
        model.addEvents(reader.finishReading());
        model.markRunEnded(reader.lastArrivalMs());
    }
}

} // namespace

class TestRunRecording : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void everyCaptureRoundTrips_data();
    void everyCaptureRoundTrips();
    void unusualBytesRoundTrip();
    void arrivalTimesNeverDecrease();
    void crashRecordingKeepsEveryShownLine();
    void plainStreamJsonIsDetectedAndTimed();
    void transcriptsAreRecognised();
    void unreadableFileIsAnError();
    void corruptRecordingLinesAreReportedNotFatal();
    void newRecordingPathsAreUnique();
    void everyLineIsReadAgainFromItsPlaceInTheFile_data();
    void everyLineIsReadAgainFromItsPlaceInTheFile();
    void aLineOutsideTheFileIsAnError();
    void eventsSayWhereTheirLineIs_data();
    void eventsSayWhereTheirLineIs();
    void aModelShowsLinesItDidNotKeep_data();
    void aModelShowsLinesItDidNotKeep();
    void aBigRunsContentIsReadFromItsFile_data();
    void aBigRunsContentIsReadFromItsFile();
    void searchFindsContentLeftInTheFile();
    void aNodeMatchesByItsLinesBytesAsByItsText_data();
    void aNodeMatchesByItsLinesBytesAsByItsText();
    void aSearchJudgedAheadIsAppliedWithoutReadingTheFile_data();
    void aSearchJudgedAheadIsAppliedWithoutReadingTheFile();
    void anotherSearchWhileOneIsJudgedLeavesBothRight();
    void aSearchJudgedWhileTheRunLoadsShowsAllOfIt();

private:
    // The capture's path; for "recording", a recording of stream-subagent.jsonl with a line
    // that is neither JSON nor UTF-8 at its end, written as `name` (empty when it failed).
    // Reads the whole file into the model the way a run page does, keeping its lines (and
    // the content of its events) or leaving them to be read again from the file.
    static bool loadRun(RunModel &model, const QString &path, bool keepLines)
    {
        RecordingReader reader;
        if (!reader.open(path))
            return false;
        reader.setKeepLines(keepLines);
        if (!keepLines)
            model.setLineSource(reader.lineSource());
        RunParser parser;
        RecordedLine line;
        while (reader.readLine(&line))
            model.addEvents(reader.eventsOf(parser, line));
        model.addEvents(reader.finishReading());
        model.markRunEnded(reader.lastArrivalMs());
        return true;
    }

    // The run at path read twice: keeping its content, and leaving it in the file with
    // nothing read for a search kept (every verdict from the file).
    static bool loadKeptAndRead(const QString &path, RunModel &kept, RunModel &read)
    {
        read.setReadBackSearchBudget(0);
        return !path.isEmpty() && loadRun(kept, path, true) && loadRun(read, path, false);
    }

    // A copy of the capture, or a recording of stream-subagent.jsonl and a noise line, with
    // its content made big (padded()).
    QString captureOrRecording(const QString &capture, const QString &name)
    {
        const QString path = m_dir.filePath(name);
        QFile::remove(path);
        int counter = 0;
        if (capture.contains(QLatin1Char('/'))) {
            // A transcript with its session folder (sub-agents): both copied, under a folder
            // of their own.
            const QFileInfo source(capturePath(capture));
            const QString session = source.completeBaseName();
            QDir into(m_dir.filePath(name + QStringLiteral("-session")));
            into.removeRecursively();
            const QDir from(source.absolutePath());
            QDirIterator files(from.filePath(session), QDir::Files, QDirIterator::Subdirectories);
            QStringList copies {source.filePath()};
            while (files.hasNext())
                copies << files.next();
            for (const QString &file : copies) {
                const QString to = into.filePath(from.relativeFilePath(file));
                if (!into.mkpath(QFileInfo(to).path()))
                    return {};
                QFile out(to);
                if (!out.open(QIODevice::WriteOnly))
                    return {};
                const bool lines = file.endsWith(QLatin1String(".jsonl"));
                QFile in(file);
                if (!in.open(QIODevice::ReadOnly))
                    return {};
                for (const QByteArray &line : in.readAll().split('\n')) {
                    if (!line.isEmpty())
                        out.write(lines ? padded(line, &counter) + '\n' : line);
                }
            }
            return into.filePath(source.fileName());
        }
        if (capture != QLatin1String("recording")) {
            QFile file(path);
            if (!file.open(QIODevice::WriteOnly))
                return {};
            for (const QByteArray &line : captureLines(capture))
                file.write(padded(line, &counter) + '\n');
            return path;
        }
        RunRecorder recorder;
        if (!recorder.open(path))
            return {};
        for (const QByteArray &line : captureLines(QStringLiteral("stream-subagent.jsonl"))) {
            if (recorder.record(padded(line, &counter), 5) < 0)
                return {};
        }
        return recorder.record(QByteArray("\xff noise, not JSON"), 6) >= 0 ? path : QString();
    }

    QTemporaryDir m_dir;
};

void TestRunRecording::initTestCase()
{
    QVERIFY(m_dir.isValid());
}

void TestRunRecording::everyCaptureRoundTrips_data()
{
    QTest::addColumn<QString>("capture");
    for (const char *name : {"stream-basic.jsonl", "stream-partial.jsonl", "stream-subagent.jsonl",
             "stream-err-401.jsonl", "stream-sigterm.jsonl"})
        QTest::newRow(name) << QString::fromLatin1(name);
}

void TestRunRecording::everyCaptureRoundTrips()
{
    QFETCH(QString, capture);
    const QList<QByteArray> lines = captureLines(capture);
    const QString path = m_dir.filePath(capture + QStringLiteral(".rec"));
    {
        RunRecorder recorder;
        QVERIFY(recorder.open(path, {{QStringLiteral("source"), capture}}));
        QVERIFY(QFile(path).permissions().testFlag(QFileDevice::ReadOwner));
        QVERIFY(!QFile(path).permissions().testFlag(QFileDevice::ReadOther));
        qint64 clock = 1'700'000'000'000;
        for (const QByteArray &line : lines) {
            clock += 7;
            QCOMPARE(recorder.record(line + "\n", clock), clock);
        }
        QCOMPARE(recorder.linesRecorded(), qint64(lines.size()));
    }
    // Each entry is one JSON object per line.
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> fileLines = file.readAll().trimmed().split('\n');
    QCOMPARE(fileLines.size(), lines.size() + 1);
    const QJsonObject header = QJsonDocument::fromJson(fileLines.first()).object();
    QCOMPARE(header.value(QLatin1String("sandscope_recording")).toInt(), 1);
    QCOMPARE(header.value(QLatin1String("source")).toString(), capture);
    const QJsonObject entry = QJsonDocument::fromJson(fileLines.at(1)).object();
    QCOMPARE(entry.value(QLatin1String("line")).toString().toUtf8(), lines.first());

    RecordingReader reader;
    QVERIFY(reader.open(path));
    QCOMPARE(reader.format(), RecordingReader::Format::Recording);
    QCOMPARE(reader.header().value(QLatin1String("source")).toString(), capture);
    const QList<RecordedLine> read = readAll(reader);
    QCOMPARE(read.size(), lines.size());
    for (int i = 0; i < read.size(); ++i) {
        QCOMPARE(read[i].line, lines[i]);
        QCOMPARE(read[i].arrivalMs, 1'700'000'000'000 + 7 * (i + 1));
        QCOMPARE(read[i].fileLine, qint64(i + 2));
    }
    QVERIFY(reader.atEnd());
    QVERIFY(reader.problems().isEmpty());
}

void TestRunRecording::unusualBytesRoundTrip()
{
    const QList<QByteArray> lines {QByteArray("\xff\xfe not utf-8 \x80"),
        QByteArray("tab\there \"quoted\" back\\slash \x01\x1f control"), QByteArray("\x1b[?25h"),
        QStringLiteral("ümlaut ✓ 😀").toUtf8(), QByteArray()};
    const QString path = m_dir.filePath(QStringLiteral("bytes.rec"));
    RunRecorder recorder;
    QVERIFY(recorder.open(path));
    for (const QByteArray &line : lines)
        QVERIFY(recorder.record(line, 5) >= 0);
    recorder.close();
    RecordingReader reader;
    QVERIFY(reader.open(path));
    QList<QByteArray> read;
    for (const RecordedLine &line : readAll(reader))
        read.append(line.line);
    QCOMPARE(read, lines);
}

void TestRunRecording::arrivalTimesNeverDecrease()
{
    const QString path = m_dir.filePath(QStringLiteral("clock.rec"));
    RunRecorder recorder;
    QVERIFY(recorder.open(path));
    QCOMPARE(recorder.record("a", 100), qint64(100));
    QCOMPARE(recorder.record("b", 50), qint64(100)); // the clock went back: clamped
    QCOMPARE(recorder.record("c", 120), qint64(120));
    recorder.close();
    RecordingReader reader;
    QVERIFY(reader.open(path));
    QList<qint64> times;
    for (const RecordedLine &line : readAll(reader))
        times.append(line.arrivalMs);
    QCOMPARE(times, QList<qint64>({100, 100, 120}));
}

void TestRunRecording::crashRecordingKeepsEveryShownLine()
{
    const QList<QByteArray> lines = captureLines(QStringLiteral("stream-subagent.jsonl"));
    const QString path = m_dir.filePath(QStringLiteral("crash.rec"));
    QProcess child;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QString::fromLatin1(childVariable), path);
    child.setProcessEnvironment(environment);
    child.start(QCoreApplication::applicationFilePath(), QStringList());
    QVERIFY(child.waitForStarted());

    const int shownBeforeKill = 7;
    for (int i = 0; i < shownBeforeKill; ++i) {
        child.write(lines[i] + '\n');
        // Wait until the child says the line is shown.
        const QByteArray ack = QStringLiteral("shown %1\n").arg(i + 1).toUtf8();
        QByteArray answer;
        while (!answer.endsWith('\n')) {
            QVERIFY2(child.waitForReadyRead(10000), "the child did not acknowledge a line");
            answer += child.readLine();
        }
        QCOMPARE(answer, ack);
    }
    child.kill(); // SIGKILL: no destructor, no close, no flush at exit
    QVERIFY(child.waitForFinished(10000));
    QCOMPARE(child.exitStatus(), QProcess::CrashExit);

    RecordingReader reader;
    QVERIFY(reader.open(path));
    QCOMPARE(reader.format(), RecordingReader::Format::Recording);
    const QList<RecordedLine> read = readAll(reader);
    QCOMPARE(read.size(), shownBeforeKill);
    qint64 previous = 0;
    for (int i = 0; i < read.size(); ++i) {
        QCOMPARE(read[i].line, lines[i]);
        QVERIFY(read[i].arrivalMs >= previous);
        previous = read[i].arrivalMs;
    }
    QVERIFY(reader.problems().isEmpty());
}

void TestRunRecording::plainStreamJsonIsDetectedAndTimed()
{
    const QList<QByteArray> lines = captureLines(QStringLiteral("stream-subagent.jsonl"));
    RecordingReader reader;
    QVERIFY(reader.open(capturePath(QStringLiteral("stream-subagent.jsonl"))));
    QCOMPARE(reader.format(), RecordingReader::Format::StreamJson);
    const QList<RecordedLine> read = readAll(reader);
    QCOMPARE(read.size(), lines.size());

    // Expected times: each line's own timestamp; lines without one take the latest earlier
    // one; the lines before the first timestamp take that first timestamp.
    QList<qint64> stamps;
    for (const QByteArray &line : lines) {
        const QString text
            = QJsonDocument::fromJson(line).object().value(QLatin1String("timestamp")).toString();
        stamps.append(text.isEmpty()
                ? -1
                : QDateTime::fromString(text, Qt::ISODateWithMs).toMSecsSinceEpoch());
    }
    qint64 first = -1;
    for (qint64 stamp : stamps) {
        if (first < 0 && stamp >= 0)
            first = stamp;
    }
    QVERIFY(first > 0);
    qint64 latest = first;
    for (int i = 0; i < read.size(); ++i) {
        QCOMPARE(read[i].line, lines[i]);
        QCOMPARE(read[i].fileLine, qint64(i + 1));
        latest = std::max(latest, stamps[i]);
        QCOMPARE(read[i].arrivalMs, latest);
    }
}

void TestRunRecording::transcriptsAreRecognised()
{
    RecordingReader reader;
    QString why;
    QVERIFY2(
        reader.open(capturePath(QStringLiteral("transcript-basic.jsonl")), &why), qPrintable(why));
    QCOMPARE(reader.format(), RecordingReader::Format::Transcript);
    RecordedLine first;
    QVERIFY(reader.readLine(&first));
    QCOMPARE(first.fileLine, 1); // the line looked at for detection is not skipped
    QVERIFY(first.line.contains("queue-operation"));
}

void TestRunRecording::unreadableFileIsAnError()
{
    RecordingReader reader;
    QString why;
    QVERIFY(!reader.open(m_dir.filePath(QStringLiteral("missing.rec")), &why));
    QVERIFY(why.contains(QStringLiteral("missing.rec")));
}

void TestRunRecording::corruptRecordingLinesAreReportedNotFatal()
{
    const QList<QByteArray> lines = captureLines(QStringLiteral("stream-basic.jsonl"));
    const QString path = m_dir.filePath(QStringLiteral("corrupt.rec"));
    {
        RunRecorder recorder;
        QVERIFY(recorder.open(path));
        for (int i = 0; i < 3; ++i)
            recorder.record(lines[i], 10 + i);
    }
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::Append));
        // Lines 5 to 7: noise, an entry without a time, an entry cut in the middle.
        file.write("garbage that is not json\n");
        file.write("{\"line\":\"no time\"}\n");
        file.write("{\"t\":20,\"line\":\"" + lines[3].left(30).replace('"', "\\\"") + "\n");
    }
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::Append));
        file.write("{\"t\":30,\"line\":\"tail\"}\n");
        file.write("{\"t\":31,\"line\":\"cut sho"); // a crash cut the last entry short
    }
    RecordingReader reader;
    QSignalSpy problems(&reader, &RecordingReader::problemFound);
    QVERIFY(reader.open(path));
    const QList<RecordedLine> read = readAll(reader);
    QCOMPARE(read.size(), 4);
    QCOMPARE(read[2].line, lines[2]);
    QCOMPARE(read[3].line, QByteArray("tail"));
    QCOMPARE(read[3].arrivalMs, qint64(30));
    QCOMPARE(reader.problems().size(), 4);
    QCOMPARE(problems.count(), 4);
    QVERIFY(reader.problems().at(0).startsWith(QLatin1String("line 5:")));
    QVERIFY(reader.problems().at(1).startsWith(QLatin1String("line 6:")));
    QVERIFY(reader.problems().at(3).startsWith(QLatin1String("line 9:")));
    QVERIFY(reader.readError().isEmpty());
}

void TestRunRecording::newRecordingPathsAreUnique()
{
    const QString first
        = RunRecorder::newRecordingPath(m_dir.path(), QStringLiteral("chat/7f3a x"));
    QVERIFY(first.startsWith(m_dir.path() + QStringLiteral("/run-")));
    QVERIFY(first.endsWith(QStringLiteral("-chat-7f3a-x.jsonl")));
    QFile(first).open(QIODevice::WriteOnly);
    const QString second
        = RunRecorder::newRecordingPath(m_dir.path(), QStringLiteral("chat/7f3a x"));
    QVERIFY(second != first);
    QVERIFY(!RunRecorder::defaultDirectory().isEmpty());
}

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsSet(childVariable))
        return recorderChild(argc, argv);
    QCoreApplication app(argc, argv);
    TestRunRecording test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

// RecordedLine::fileOffset/fileLength and RecordingReader::lineAt: each line a reader hands
// out, read again on its own from where it is, equals what the reader gave (a recording's
// entry decoded, the unusual bytes of a base64 entry included).
void TestRunRecording::everyLineIsReadAgainFromItsPlaceInTheFile_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("format");
    QTest::newRow("plain capture") << capturePath(QStringLiteral("stream-subagent.jsonl"))
                                   << int(RecordingReader::Format::StreamJson);
    QTest::newRow("plain capture, CRLF and blank lines")
        << QStringLiteral("crlf") << int(RecordingReader::Format::StreamJson);
    QTest::newRow("transcript") << capturePath(QStringLiteral("transcript-basic.jsonl"))
                                << int(RecordingReader::Format::Transcript);
    QTest::newRow("recording") << QStringLiteral("recording")
                               << int(RecordingReader::Format::Recording);
}

void TestRunRecording::everyLineIsReadAgainFromItsPlaceInTheFile()
{
    QFETCH(QString, path);
    QFETCH(int, format);
    if (path == QLatin1String("recording")) { // every capture line, then unusual bytes
        path = m_dir.filePath(QStringLiteral("lineat.rec"));
        RunRecorder recorder;
        QVERIFY(recorder.open(path));
        for (const QByteArray &line : captureLines(QStringLiteral("stream-basic.jsonl")))
            QVERIFY(recorder.record(line, 5) >= 0);
        for (const QByteArray &line : {QByteArray("\xff\xfe not utf-8 \x80"),
                 QByteArray("tab\there \"quoted\" \x01 control"), QByteArray()})
            QVERIFY(recorder.record(line, 6) >= 0);
    } else if (path == QLatin1String("crlf")) {
        path = m_dir.filePath(QStringLiteral("crlf.jsonl"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("\r\n");
        for (const QByteArray &line : captureLines(QStringLiteral("stream-basic.jsonl")))
            file.write(line + "\r\n\n");
        file.write(captureLines(QStringLiteral("stream-basic.jsonl")).constLast()); // no newline
    }
    RecordingReader reader;
    QString why;
    QVERIFY2(reader.open(path, &why), qPrintable(why));
    QCOMPARE(int(reader.format()), format);
    const QList<RecordedLine> lines = readAll(reader);
    QVERIFY(lines.size() > 3);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    for (const RecordedLine &line : lines) {
        QVERIFY(line.fileOffset >= 0);
        const QByteArray again = RecordingReader::lineAt(
            file, reader.format(), line.fileOffset, line.fileLength, &why);
        QVERIFY2(why.isEmpty(), qPrintable(why));
        QCOMPARE(again, line.line);
    }
}

void TestRunRecording::aLineOutsideTheFileIsAnError()
{
    QFile file(capturePath(QStringLiteral("stream-basic.jsonl")));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QString why;
    QVERIFY(RecordingReader::lineAt(
        file, RecordingReader::Format::StreamJson, file.size() - 2, 10, &why)
                .isEmpty());
    QVERIFY(why.contains(QLatin1String("outside")));
    why.clear();
    // Bytes that are not a recording entry are refused, not handed out as a line.
    QVERIFY(
        RecordingReader::lineAt(file, RecordingReader::Format::Recording, 0, 20, &why).isEmpty());
    QVERIFY(why.contains(QLatin1String("not a recording entry")));
}

void TestRunRecording::eventsSayWhereTheirLineIs_data()
{
    QTest::addColumn<QString>("capture");
    QTest::newRow("plain capture") << QStringLiteral("stream-subagent.jsonl");
    QTest::newRow("transcript") << QStringLiteral("transcript-basic.jsonl");
    QTest::newRow("transcript with a sub-agent")
        << QStringLiteral("transcript-subagent/4babb74a-6fa5-4352-a0d3-723caf885db8.jsonl");
    QTest::newRow("recording") << QStringLiteral("recording");
}

// RunEvent::rawRef: the reader's LineSource reads each event's line again, equal to its raw.
void TestRunRecording::eventsSayWhereTheirLineIs()
{
    QFETCH(QString, capture);
    const QString path = captureOrRecording(capture, QStringLiteral("refs.rec"));
    QVERIFY(!path.isEmpty());
    RecordingReader reader;
    QVERIFY(reader.open(path));
    QVERIFY(reader.lineSource());
    RunParser parser;
    int located = 0;
    int fromSubagentFiles = 0;
    RecordedLine line;
    while (reader.readLine(&line)) {
        for (const RunEvent &event : reader.eventsOf(parser, line)) {
            QVERIFY(event.rawRef.isValid());
            QString why;
            QCOMPARE(reader.lineSource()->line(event.rawRef, &why), event.raw);
            QVERIFY2(why.isEmpty(), qPrintable(why));
            ++located;
            fromSubagentFiles += event.rawRef.source > 0 ? 1 : 0;
        }
    }
    QVERIFY(located > 5);
    // A sub-agent's lines are in its own file.
    QCOMPARE(fromSubagentFiles > 0, capture.startsWith(QLatin1String("transcript-subagent/")));
}

void TestRunRecording::aModelShowsLinesItDidNotKeep_data()
{
    eventsSayWhereTheirLineIs_data();
}

// A run read without keeping its lines shows every node's line, and its tool results' lines,
// read again from the file: the same as a run that kept them.
void TestRunRecording::aModelShowsLinesItDidNotKeep()
{
    QFETCH(QString, capture);
    const QString path = captureOrRecording(capture, QStringLiteral("kept.rec"));
    QVERIFY(!path.isEmpty());
    RunModel kept;
    RunModel read;
    QVERIFY(loadRun(kept, path, true));
    QVERIFY(loadRun(read, path, false));
    int compared = 0;
    std::function<void(const QModelIndex &, const QModelIndex &)> compare
        = [&](const QModelIndex &a, const QModelIndex &b) {
              QCOMPARE(read.rowCount(b), kept.rowCount(a));
              for (const int role : {int(RunModel::RawLineRole), int(RunModel::RawJsonRole),
                       int(RunModel::ResultRawJsonRole), int(Qt::DisplayRole),
                       int(RunModel::TextRole), int(Qt::ToolTipRole)})
                  QCOMPARE(b.data(role), a.data(role));
              const auto keptDetails = a.data(RunModel::DetailRole).value<RunNodeDetails>();
              const auto readDetails = b.data(RunModel::DetailRole).value<RunNodeDetails>();
              QCOMPARE(readDetails.searchTexts(), keptDetails.searchTexts());
              QCOMPARE(readDetails.inputJson, keptDetails.inputJson);
              QCOMPARE(readDetails.structuredResultJson, keptDetails.structuredResultJson);
              QCOMPARE(readDetails.readError, QString());
              QCOMPARE(read.foldedSearchText(b), kept.foldedSearchText(a));
              compared += a.data(RunModel::RawLineRole).toByteArray().isEmpty() ? 0 : 1;
              for (int row = 0; row < kept.rowCount(a); ++row)
                  compare(kept.index(row, 0, a), read.index(row, 0, b));
          };
    compare(kept.runIndex(), read.runIndex());
    QVERIFY(compared > 5);
    // Exports take the lines read again too.
    const auto linesOf = [](const RunNodeRecord &root) {
        QList<QByteArray> lines;
        std::function<void(const RunNodeRecord &)> collect = [&](const RunNodeRecord &node) {
            lines << node.raw << node.resultRaw;
            for (const RunNodeRecord &child : node.children)
                collect(child);
        };
        collect(root);
        return lines;
    };
    QCOMPARE(linesOf(read.record()), linesOf(kept.record()));
    // And their content read again.
    const auto contentOf = [](const RunNodeRecord &root) {
        QStringList texts;
        std::function<void(const RunNodeRecord &)> collect = [&](const RunNodeRecord &node) {
            texts << node.text << node.input.command << node.input.content << node.input.prompt
                  << QString::fromUtf8(node.inputJson) << node.resultText
                  << QString::fromUtf8(node.structuredResultJson);
            for (const RunNodeRecord &child : node.children)
                collect(child);
        };
        collect(root);
        return texts;
    };
    QCOMPARE(contentOf(read.record()), contentOf(kept.record()));
}

void TestRunRecording::aBigRunsContentIsReadFromItsFile_data()
{
    eventsSayWhereTheirLineIs_data();
}

// A run that does not keep its lines keeps none of their content either: once the file is
// overwritten, every node with a text, an input or an output says why it cannot show it, while
// the rows stay as they were, and so does what did not come from a line of the file (the
// working directory of run and turns, a line that is not JSON).
void TestRunRecording::aBigRunsContentIsReadFromItsFile()
{
    QFETCH(QString, capture);
    const QString path = captureOrRecording(capture, QStringLiteral("big.rec"));
    QVERIFY(!path.isEmpty());
    RunModel kept;
    RunModel read;
    QVERIFY(loadRun(kept, path, true));
    QVERIFY(loadRun(read, path, false));
    // The file, and a transcript's sub-agent files, blanked where they are.
    const QFileInfo main(path);
    QStringList blanked {path};
    QDirIterator subagents(main.dir().filePath(main.completeBaseName()),
        {QStringLiteral("*.jsonl")}, QDir::Files, QDirIterator::Subdirectories);
    while (subagents.hasNext())
        blanked << subagents.next();
    for (const QString &name : blanked) {
        QFile file(name);
        QVERIFY(file.open(QIODevice::ReadWrite));
        QByteArray bytes = file.readAll();
        for (char &c : bytes) {
            if (c != '\n')
                c = ' ';
        }
        QVERIFY(file.seek(0));
        QCOMPARE(file.write(bytes), bytes.size());
    }
    int readAgain = 0;
    int keptInMemory = 0;
    std::function<void(const QModelIndex &, const QModelIndex &)> compare
        = [&](const QModelIndex &a, const QModelIndex &b) {
              QCOMPARE(b.data(Qt::DisplayRole), a.data(Qt::DisplayRole));
              const auto kind = RunModel::NodeKind(a.data(RunModel::KindRole).toInt());
              const auto keptDetails = a.data(RunModel::DetailRole).value<RunNodeDetails>();
              const auto readDetails = b.data(RunModel::DetailRole).value<RunNodeDetails>();
              const bool fromLine = kind != RunModel::NodeKind::Run
                  && kind != RunModel::NodeKind::Turn
                  && !a.data(RunModel::RawLineRole).toByteArray().startsWith('\xff');
              const bool content = (fromLine && !keptDetails.text.isEmpty())
                  || !keptDetails.inputJson.isEmpty() || !keptDetails.output.isEmpty();
              if (content) {
                  QVERIFY2(!readDetails.readError.isEmpty(), qPrintable(a.data().toString()));
                  ++readAgain;
              } else if (!keptDetails.text.isEmpty()) {
                  QCOMPARE(readDetails.readError, QString());
                  QCOMPARE(readDetails.text, keptDetails.text);
                  ++keptInMemory;
              }
              for (int row = 0; row < kept.rowCount(a); ++row)
                  compare(kept.index(row, 0, a), read.index(row, 0, b));
          };
    compare(kept.runIndex(), read.runIndex());
    QVERIFY(readAgain >= 3);
    QVERIFY(keptInMemory > 0);
}

// Searching a run that left its big content in the file finds what only the file holds, as a
// run that kept it does. The texts read for a search are kept up to the model's budget: within
// it a search no longer reads the file; beyond it (a budget of 0) every search reads it again.
void TestRunRecording::searchFindsContentLeftInTheFile()
{
    const QString path = captureOrRecording(
        QStringLiteral("stream-subagent.jsonl"), QStringLiteral("search.jsonl"));
    QVERIFY(!path.isEmpty());
    RunModel kept;
    RunModel read;
    RunModel unkept; // nothing read for a search is kept
    unkept.setReadBackSearchBudget(0);
    QVERIFY(loadRun(kept, path, true));
    QVERIFY(loadRun(read, path, false));
    QVERIFY(loadRun(unkept, path, false));

    // Words from tool outputs too big to be kept, not in their row's own summary.
    QStringList words;
    std::function<void(const QModelIndex &)> collect = [&](const QModelIndex &index) {
        const QString output = index.data(RunModel::DetailRole).value<RunNodeDetails>().output;
        if (output.size() * 2 > 256) {
            const QString summary = index.data().toString().toCaseFolded();
            const QRegularExpression word(QStringLiteral("[A-Za-z]{7,}"));
            for (auto it = word.globalMatch(output); it.hasNext();) {
                const QString found = it.next().captured().toCaseFolded();
                if (!summary.contains(found) && !words.contains(found)) {
                    words << found;
                    break;
                }
            }
        }
        for (int row = 0; row < kept.rowCount(index); ++row)
            collect(kept.index(row, 0, index));
    };
    collect(kept.runIndex());
    QVERIFY(words.size() >= 2);

    RunFilterProxy keptProxy;
    RunFilterProxy readProxy;
    RunFilterProxy unkeptProxy;
    keptProxy.setSourceModel(&kept);
    readProxy.setSourceModel(&read);
    unkeptProxy.setSourceModel(&unkept);
    QVector<int> counts;
    for (const QString &word : words) {
        for (RunFilterProxy *proxy : {&keptProxy, &readProxy, &unkeptProxy})
            proxy->setSearchText(word);
        QVERIFY(keptProxy.matchCount() > 0);
        QCOMPARE(readProxy.matchCount(), keptProxy.matchCount());
        QCOMPARE(unkeptProxy.matchCount(), keptProxy.matchCount());
        counts << keptProxy.matchCount();
    }

    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.close();
    // New proxies: a proxy keeps the results of the filters it had.
    RunFilterProxy readAgainProxy;
    RunFilterProxy unkeptAgainProxy;
    readAgainProxy.setSourceModel(&read);
    unkeptAgainProxy.setSourceModel(&unkept);
    int lost = 0;
    for (int i = 0; i < words.size(); ++i) {
        for (RunFilterProxy *proxy : {&readAgainProxy, &unkeptAgainProxy})
            proxy->setSearchText(words.at(i));
        QCOMPARE(readAgainProxy.matchCount(), counts.at(i));
        QVERIFY(unkeptAgainProxy.matchCount() <= counts.at(i));
        lost += counts.at(i) - unkeptAgainProxy.matchCount();
    }
    QVERIFY(lost > 0);
}

void TestRunRecording::aNodeMatchesByItsLinesBytesAsByItsText_data()
{
    eventsSayWhereTheirLineIs_data();
}

// RunModel::matchesWords passes over most nodes of a big run by their lines' bytes: its verdict
// for every node is the one its search text gives, for words in the tool names, in the big
// content (only in the file; "SUBTASK" there in capitals), in JSON keys only (in the bytes,
// in no text), with a slash or beyond ASCII (left to the texts), two at once, and none.
void TestRunRecording::aNodeMatchesByItsLinesBytesAsByItsText()
{
    QFETCH(QString, capture);
    RunModel kept;
    RunModel read; // every verdict from the file
    QVERIFY(loadKeptAndRead(
        captureOrRecording(capture, QStringLiteral("bytes-search.rec")), kept, read));
    const QList<QList<QByteArray>> searches {{"bash"}, {"read"}, {"filler"}, {"tool_use_id"},
        {"type"}, {"/"}, {"é"}, {"filler", "bash"}, {"zzqqzz"}, {"\\n"}, {"subtask"}, {"explore"}};
    QVector<int> matched(searches.size());
    std::function<void(const QModelIndex &, const QModelIndex &)> compare
        = [&](const QModelIndex &a, const QModelIndex &b) {
              const QByteArray text = kept.foldedSearchText(a);
              for (int i = 0; i < searches.size(); ++i) {
                  const QList<QByteArray> &words = searches.at(i);
                  const bool expected = std::all_of(words.cbegin(), words.cend(),
                      [&text](const QByteArray &word) { return text.contains(word); });
                  QCOMPARE(read.matchesWords(b, words), expected);
                  matched[i] += expected ? 1 : 0;
              }
              for (int row = 0; row < kept.rowCount(a); ++row)
                  compare(kept.index(row, 0, a), read.index(row, 0, b));
          };
    compare(kept.runIndex(), read.runIndex());
    QVERIFY(matched.at(2) > 0); // the big content is searched
    QCOMPARE(matched.at(3), 0); // a key is no text
    if (!capture.startsWith(QLatin1String("transcript"))) // stream-subagent.jsonl's
        QVERIFY(matched.at(10) > 0); // written in capitals there
}

void TestRunRecording::aSearchJudgedAheadIsAppliedWithoutReadingTheFile_data()
{
    QTest::addColumn<QString>("capture");
    QTest::addColumn<QString>("search");
    QTest::addColumn<bool>("errorsOnly");
    for (const char *capture : {"stream-subagent.jsonl", "recording"}) {
        for (const char *search : {"bash", "filler", "filler bash", "zzqqzz", "tool_use_id"}) {
            for (const bool errorsOnly : {false, true}) {
                QTest::addRow("%s: %s%s", capture, search, errorsOnly ? ", errors only" : "")
                    << QString::fromLatin1(capture) << QString::fromLatin1(search) << errorsOnly;
            }
        }
    }
}

// RunFilterProxy::prepareFilter judges every node ahead: the search applied after it shows
// what the same search shows on the run that kept its content, though the file is gone by
// then (the verdicts are used, not read again).
void TestRunRecording::aSearchJudgedAheadIsAppliedWithoutReadingTheFile()
{
    QFETCH(QString, capture);
    QFETCH(QString, search);
    QFETCH(bool, errorsOnly);
    const QString path = captureOrRecording(capture, QStringLiteral("ahead.rec"));
    RunModel kept;
    RunModel read; // every verdict from the file
    QVERIFY(loadKeptAndRead(path, kept, read));
    RunFilterProxy direct;
    direct.setSourceModel(&kept);
    direct.setSearchText(search);
    direct.setErrorsOnly(errorsOnly);
    RunFilterProxy ahead;
    ahead.setSourceModel(&read);
    QAbstractItemModelTester tester(&ahead, QAbstractItemModelTester::FailureReportingMode::Fatal);
    int calls = 1;
    for (; !ahead.prepareFilter(search, errorsOnly, 0); ++calls)
        QVERIFY(calls < 100000);
    QVERIFY(ahead.prepareFilter(search, errorsOnly, 0)); // done: nothing more to judge
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.close();
    ahead.setSearchText(search);
    ahead.setErrorsOnly(errorsOnly);
    QCOMPARE(outline(ahead), outline(direct));
    QCOMPARE(ahead.matchCount(), direct.matchCount());
}

// A search typed while another is judged: the first is dropped half-judged and the second
// judged from the start; either applied then shows what it shows on the run that kept its
// content, and so does one applied without being judged in between.
void TestRunRecording::anotherSearchWhileOneIsJudgedLeavesBothRight()
{
    // Copies of the capture: more nodes than one slice judges (its ids repeat, so that
    // most of its nodes are made once).
    const QString path = m_dir.filePath(QStringLiteral("another.rec"));
    {
        RunRecorder recorder;
        QVERIFY(recorder.open(path));
        int counter = 0;
        for (int copy = 0; copy < 150; ++copy) {
            for (const QByteArray &line : captureLines(QStringLiteral("stream-subagent.jsonl")))
                QVERIFY(recorder.record(padded(line, &counter), 5 + copy) >= 0);
        }
    }
    RunModel kept;
    RunModel read;
    QVERIFY(loadKeptAndRead(path, kept, read));
    RunFilterProxy direct;
    direct.setSourceModel(&kept);
    RunFilterProxy proxy;
    proxy.setSourceModel(&read);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QVERIFY2(read.nodeCount() > 2 * 256, qPrintable(QString::number(read.nodeCount())));
    QVERIFY(!proxy.prepareFilter(QStringLiteral("filler"), false, 0)); // stopped half-way
    QVERIFY(proxy.preparedPercent() > 0);
    QVERIFY(proxy.preparedPercent() < 99);
    while (!proxy.prepareFilter(QStringLiteral("bash"), false, 0)) { }
    for (const QString &search : {QStringLiteral("bash"), QStringLiteral("filler"),
             QStringLiteral("agent"), QStringLiteral("bash")}) {
        proxy.setSearchText(search);
        direct.setSearchText(search);
        QCOMPARE(outline(proxy), outline(direct));
        QCOMPARE(proxy.matchCount(), direct.matchCount());
    }
    // Typing on judges the current matches only, and is right too.
    proxy.setSearchText(QStringLiteral("fill"));
    while (!proxy.prepareFilter(QStringLiteral("filler"), false, 0)) { }
    proxy.setSearchText(QStringLiteral("filler"));
    direct.setSearchText(QStringLiteral("filler"));
    QCOMPARE(outline(proxy), outline(direct));
}

// A search judged while the run still loads, applied once it has loaded: the nodes that came
// after it was judged, and the ones that changed, are judged when it is applied.
void TestRunRecording::aSearchJudgedWhileTheRunLoadsShowsAllOfIt()
{
    const QString path
        = captureOrRecording(QStringLiteral("recording"), QStringLiteral("loading.rec"));
    QVERIFY(!path.isEmpty());
    RunModel kept;
    QVERIFY(loadRun(kept, path, true));
    RunFilterProxy direct;
    direct.setSourceModel(&kept);
    direct.setSearchText(QStringLiteral("filler"));
    QVERIFY(direct.matchCount() > 1);

    RunModel read;
    RecordingReader reader;
    QVERIFY(reader.open(path));
    reader.setKeepLines(false);
    read.setLineSource(reader.lineSource());
    RunParser parser;
    RunFilterProxy proxy;
    proxy.setSourceModel(&read);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    feedRun(read, reader, parser, 6);
    while (!proxy.prepareFilter(QStringLiteral("filler"), false, 0)) { }
    const qint64 judged = read.nodeCount();
    feedRun(read, reader, parser, -1);
    QVERIFY(read.nodeCount() > judged);
    proxy.setSearchText(QStringLiteral("filler"));
    QCOMPARE(outline(proxy), outline(direct));
    QCOMPARE(proxy.matchCount(), direct.matchCount());
}

#include "tst_runrecording.moc"
