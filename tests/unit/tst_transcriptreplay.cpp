// Session transcripts replay into the same tree as the stream-json of the same run: real
// runs of the claude CLI recorded both ways (tests/data/transcripts, see its README), the
// calls' names, ids, nesting under sub-agents, errors and the session id agree. Turns start at
// prompts, durations come from record times, the cost from the last cost-state record, and
// bad input (corrupt or unknown records, a line still being written, a missing or unreadable
// sub-agent file) is shown or reported, never fatal.

#include "loadedrunfile.h"
#include "recordings/runrecording.h"
#include "runs/loadedrun.h"
#include "runtree/runmodel.h"
#include "runtreeshape.h"
#include "streamjson/runparser.h"
#include "streamjson/runsummary.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

using namespace sandscope;
using sandscope::test::toolCallShape;

namespace {

QString dataPath(const QString &name)
{
    return QStringLiteral(SANDSCOPE_TEST_DATA_DIR) + QLatin1Char('/') + name;
}

// The main transcript of a recorded scenario: the one named `session`, or the only one.
QString transcriptOf(const QString &scenario, const QString &session = {})
{
    const QDir dir(dataPath(QStringLiteral("transcripts/%1/transcript").arg(scenario)));
    const QStringList files = dir.entryList({QStringLiteral("*.jsonl")}, QDir::Files);
    for (const QString &file : files) {
        if (session.isEmpty() || file.startsWith(session))
            return dir.filePath(file);
    }
    return {};
}

using Loaded = test::LoadedRunFile;

Loaded load(const QString &path, RunModel *model)
{
    return Loaded::read(path, model);
}

QList<QModelIndex> nodesOfKind(const RunModel &model, RunModel::NodeKind kind)
{
    QList<QModelIndex> found;
    std::function<void(const QModelIndex &)> walk = [&](const QModelIndex &parent) {
        for (int row = 0; row < model.rowCount(parent); ++row) {
            const QModelIndex index = model.index(row, 0, parent);
            if (index.data(RunModel::KindRole).toInt() == int(kind))
                found.append(index);
            walk(index);
        }
    };
    walk(QModelIndex());
    return found;
}

QList<QJsonObject> records(const QString &path)
{
    QList<QJsonObject> result;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return result;
    for (const QByteArray &line : file.readAll().split('\n')) {
        if (!line.trimmed().isEmpty())
            result.append(QJsonDocument::fromJson(line).object());
    }
    return result;
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).path());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TestTranscriptReplay : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void transcriptAndStreamGiveTheSameTree_data()
    {
        QTest::addColumn<QString>("stream");
        QTest::addColumn<QString>("transcript");
        QTest::addColumn<int>("expectedCalls");
        QTest::addColumn<int>("expectedTurns");
        for (const char *scenario :
            {"bash", "parallel", "subagent", "parallel-agents", "tool-error", "resume"}) {
            const QString name = QString::fromLatin1(scenario);
            const int calls = name == QLatin1String("parallel-agents") ? 4
                : name == QLatin1String("parallel") || name == QLatin1String("resume")
                    || name == QLatin1String("subagent")
                ? 2
                : 1;
            QTest::newRow(scenario)
                << dataPath(QStringLiteral("transcripts/%1/stream.jsonl").arg(name))
                << transcriptOf(name) << calls << (name == QLatin1String("resume") ? 2 : 1);
        }
        // The fork: the stream of both turns, the forked session's file (history copied).
        QTest::newRow("fork") << dataPath(QStringLiteral("transcripts/fork/stream.jsonl"))
                              << transcriptOf(QStringLiteral("fork"), QStringLiteral("f21c908d"))
                              << 2 << 2;
        QTest::newRow("compact") << dataPath(QStringLiteral("transcripts/compact/stream.jsonl"))
                                 << transcriptOf(QStringLiteral("compact")) << 1 << 2;
        QTest::newRow("reference sub-agent capture")
            << dataPath(QStringLiteral("stream-subagent.jsonl"))
            << dataPath(
                   QStringLiteral("transcript-subagent/4babb74a-6fa5-4352-a0d3-723caf885db8.jsonl"))
            << 2 << 1;
        QTest::newRow("reference basic capture")
            << dataPath(QStringLiteral("stream-basic.jsonl"))
            << dataPath(QStringLiteral("transcript-basic.jsonl")) << 1 << 1;
    }

    void transcriptAndStreamGiveTheSameTree()
    {
        QFETCH(QString, stream);
        QFETCH(QString, transcript);
        QFETCH(int, expectedCalls);
        QFETCH(int, expectedTurns);
        QVERIFY2(QFile::exists(transcript), qPrintable(transcript));

        RunModel fromStream;
        RunModel fromTranscript;
        QAbstractItemModelTester tester(
            &fromTranscript, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const Loaded streamed = load(stream, &fromStream);
        const Loaded read = load(transcript, &fromTranscript);
        QVERIFY(streamed.ok);
        QVERIFY(read.ok);
        QVERIFY2(read.problems.isEmpty(), qPrintable(read.problems.join(u'\n')));

        const QStringList streamCalls = toolCallShape(fromStream);
        QCOMPARE(streamCalls.size(), expectedCalls);
        QCOMPARE(toolCallShape(fromTranscript), streamCalls);
        // The session is the file's (a fork's stream starts in the original session).
        const QString session
            = QFileInfo(transcript).completeBaseName().startsWith(QLatin1String("transcript-"))
            ? QStringLiteral("69d37cd2-7f92-4547-b7cd-d2b4de2e2f3e") // transcript-basic.jsonl
            : QFileInfo(transcript).completeBaseName();
        QCOMPARE(read.summary.sessionId, session);
        QVERIFY(
            readFile(stream).contains(QByteArray("\"session_id\":\"" + session.toUtf8() + '"')));
        QCOMPARE(read.summary.toolCalls, streamed.summary.toolCalls);
        QCOMPARE(read.summary.toolErrors, streamed.summary.toolErrors);
        QCOMPARE(read.summary.unmatchedToolCalls, 0);
        QCOMPARE(read.summary.isError, false);
        QCOMPARE(nodesOfKind(fromTranscript, RunModel::NodeKind::Turn).size(), expectedTurns);
        // Nothing in a transcript the CLI wrote is unknown to the reader.
        QCOMPARE(nodesOfKind(fromTranscript, RunModel::NodeKind::Raw).size(), 0);
    }

    // The stream is written as the run happens; the transcript keeps each sub-agent in a file of
    // its own. Read back, the transcript's calls start and return in the stream's order: two
    // sub-agents started in one message run side by side, not one after the other, and each
    // sub-agent's events come after its call and before its result.
    void transcriptEventsComeInTheOrderTheyHappened_data()
    {
        transcriptAndStreamGiveTheSameTree_data();
    }

    void transcriptEventsComeInTheOrderTheyHappened()
    {
        QFETCH(QString, stream);
        QFETCH(QString, transcript);
        LoadedRun streamed;
        LoadedRun read;
        QVERIFY(LoadedRun::fromFile(stream, &streamed));
        QVERIFY(LoadedRun::fromFile(transcript, &read));
        auto callOrder = [](const LoadedRun &run) {
            QStringList order;
            for (const RunEvent &event : run.events) {
                if (event.kind == RunEvent::ToolUse)
                    order.append(QStringLiteral("call ") + event.toolUseId);
                else if (event.kind == RunEvent::ToolResult)
                    order.append(QStringLiteral("result ") + event.toolUseId);
            }
            return order;
        };
        const QStringList fromTranscript = callOrder(read);
        QCOMPARE(fromTranscript,
            callOrder(streamed).mid(callOrder(streamed).size()
                - fromTranscript.size())); // a fork: its own turn's calls

        // Each sub-agent event: after its call, before its result, and no main-thread event
        // that happened later is shown before it.
        QHash<QString, qsizetype> callAt;
        QHash<QString, qsizetype> resultAt;
        for (qsizetype i = 0; i < read.events.size(); ++i) {
            const RunEvent &event = read.events.at(i);
            if (event.kind == RunEvent::ToolUse)
                callAt.insert(event.toolUseId, i);
            else if (event.kind == RunEvent::ToolResult && event.parentToolUseId.isEmpty())
                resultAt.insert(event.toolUseId, i);
        }
        qint64 mainTime = 0;
        for (qsizetype i = 0; i < read.events.size(); ++i) {
            const RunEvent &event = read.events.at(i);
            if (event.parentToolUseId.isEmpty()) {
                mainTime = std::max(mainTime, event.arrivalMs);
                continue;
            }
            const QString where = QStringLiteral("event %1 (%2)").arg(i).arg(event.parentToolUseId);
            QVERIFY2(callAt.value(event.parentToolUseId, i) < i, qPrintable(where));
            QVERIFY2(resultAt.value(event.parentToolUseId, i + 1) > i, qPrintable(where));
            if (event.arrivalMs > 0)
                QVERIFY2(mainTime <= event.arrivalMs, qPrintable(where));
        }
    }

    void costIsTheLastCostStateAndTokensCountOncePerMessage()
    {
        const QString path = transcriptOf(QStringLiteral("resume"));
        double lastCost = -1;
        QHash<QString, QJsonObject> usageByMessage;
        for (const QJsonObject &record : records(path)) {
            if (record.value(QStringLiteral("type")).toString() == QLatin1String("cost-state"))
                lastCost = record.value(QStringLiteral("totalCostUSD")).toDouble();
            const QJsonObject message = record.value(QStringLiteral("message")).toObject();
            if (record.value(QStringLiteral("type")).toString() == QLatin1String("assistant"))
                usageByMessage.insert(message.value(QStringLiteral("id")).toString(),
                    message.value(QStringLiteral("usage")).toObject());
        }
        QVERIFY(lastCost > 0);
        qint64 output = 0;
        for (const QJsonObject &usage : std::as_const(usageByMessage))
            output += usage.value(QStringLiteral("output_tokens")).toVariant().toLongLong();

        RunModel model;
        const Loaded read = load(path, &model);
        QCOMPARE(read.summary.costUsd, lastCost);
        QCOMPARE(read.summary.outputTokens, output);
        QCOMPARE(read.summary.turns, 2);
        const QModelIndex run = model.index(0, 0);
        QCOMPARE(run.data(RunModel::CostUsdRole).toDouble(), lastCost);
        QCOMPARE(run.data(RunModel::OutputTokensRole).toLongLong(), output);
        QCOMPARE(run.data(RunModel::StatusRole).toInt(), int(RunModel::Status::Ok));
    }

    void durationsComeFromRecordTimes()
    {
        const QString path = transcriptOf(QStringLiteral("bash"));
        qint64 useMs = -1;
        qint64 resultMs = -1;
        for (const QJsonObject &record : records(path)) {
            const QDateTime time = QDateTime::fromString(
                record.value(QStringLiteral("timestamp")).toString(), Qt::ISODateWithMs);
            const QByteArray json = QJsonDocument(record).toJson(QJsonDocument::Compact);
            if (json.contains("\"type\":\"tool_use\""))
                useMs = time.toMSecsSinceEpoch();
            if (json.contains("\"type\":\"tool_result\""))
                resultMs = time.toMSecsSinceEpoch();
        }
        QVERIFY(useMs > 0 && resultMs >= useMs);

        RunModel model;
        load(path, &model);
        const QList<QModelIndex> calls = nodesOfKind(model, RunModel::NodeKind::ToolCall);
        QCOMPARE(calls.size(), 1);
        QCOMPARE(calls.first().data(RunModel::StartedAtMsRole).toLongLong(), useMs);
        QCOMPARE(calls.first().data(RunModel::DurationMsRole).toLongLong(), resultMs - useMs);
    }

    void turnsStartAtPromptsAndShowThem()
    {
        RunModel model;
        load(transcriptOf(QStringLiteral("compact")), &model);
        const QList<QModelIndex> turns = nodesOfKind(model, RunModel::NodeKind::Turn);
        QCOMPARE(turns.size(), 2);
        QStringList prompts;
        for (const QModelIndex &text : nodesOfKind(model, RunModel::NodeKind::UserText)) {
            if (text.parent().data(RunModel::KindRole).toInt() == int(RunModel::NodeKind::Turn))
                prompts.append(text.data(RunModel::TextRole).toString());
        }
        QVERIFY2(prompts.contains(QStringLiteral("CMD: echo hi")), qPrintable(prompts.join(u'|')));
        QVERIFY2(prompts.contains(QStringLiteral("/compact")), qPrintable(prompts.join(u'|')));
        // The compaction boundary belongs to the /compact turn, as in the stream.
        const QList<QModelIndex> boundaries
            = nodesOfKind(model, RunModel::NodeKind::CompactBoundary);
        QCOMPARE(boundaries.size(), 1);
        QCOMPARE(boundaries.first().parent(), turns.at(1));
    }

    void aForkSaysWhichSessionItCameFrom()
    {
        RunModel model;
        load(transcriptOf(QStringLiteral("fork"), QStringLiteral("f21c908d")), &model);
        const QString original
            = QFileInfo(transcriptOf(QStringLiteral("fork"), QStringLiteral("992b2e96")))
                  .completeBaseName();
        QVERIFY(!original.isEmpty());
        bool named = false;
        for (const QModelIndex &notice : nodesOfKind(model, RunModel::NodeKind::SystemNotice))
            named = named || notice.data().toString().contains(original);
        QVERIFY(named);
    }

    void badInputIsShownOrReportedNeverFatal()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QByteArray good = readFile(transcriptOf(QStringLiteral("bash")));
        QList<QByteArray> lines = good.split('\n');
        while (!lines.isEmpty() && lines.last().isEmpty())
            lines.removeLast();
        QVERIFY(lines.size() > 10);
        // A corrupt record and a record type from a newer CLI in the middle, and a last line
        // still being written.
        lines.insert(5, "{\"type\":\"user\",\"sessionId\":\"x\",\"message\":{\"content\":");
        lines.insert(6,
            "{\"type\":\"hologram\",\"sessionId\":\"x\",\"timestamp\":\"2026-11-29T09:28:56."
            "900Z\"}");
        const QByteArray text = lines.join('\n') + "\n{\"type\":\"assistant\",\"sessionId\":\"x";
        const QString path = dir.filePath(QStringLiteral("11111111-2222.jsonl"));
        QVERIFY(writeFile(path, text));

        RunModel model;
        const Loaded read = load(path, &model);
        QVERIFY(read.ok);
        QCOMPARE(toolCallShape(model), toolCallShape([&] {
            static RunModel reference;
            load(transcriptOf(QStringLiteral("bash")), &reference);
            return std::cref(reference);
        }()));
        QStringList raw;
        for (const QModelIndex &node : nodesOfKind(model, RunModel::NodeKind::Raw))
            raw.append(node.data().toString());
        QCOMPARE(raw.size(), 2);
        QVERIFY2(
            raw.join(u'|').contains(QStringLiteral("Corrupt JSON")), qPrintable(raw.join(u'|')));
        QVERIFY2(raw.join(u'|').contains(QStringLiteral("hologram")), qPrintable(raw.join(u'|')));
        QCOMPARE(read.problems.size(), 1);
        QVERIFY2(read.problems.first().contains(QStringLiteral("still being written")),
            qPrintable(read.problems.first()));
    }

    void missingOrUnreadableSubagentsAreReported()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString main = transcriptOf(QStringLiteral("subagent"));
        const QString session = QFileInfo(main).completeBaseName();

        // No subagents/ folder: the Agent call is there, its inside is reported missing.
        const QString alone
            = dir.filePath(QStringLiteral("alone/") + session + QStringLiteral(".jsonl"));
        QVERIFY(writeFile(alone, readFile(main)));
        RunModel withoutFolder;
        const Loaded missing = load(alone, &withoutFolder);
        QVERIFY(missing.ok);
        QCOMPARE(toolCallShape(withoutFolder).size(), 1);
        QCOMPARE(missing.problems.size(), 1);
        QVERIFY2(missing.problems.first().contains(QStringLiteral("no sub-agent transcript")),
            qPrintable(missing.problems.first()));

        // The sub-agent file cannot be read (here: a folder in its place): said under its call,
        // with why.
        const QString broken
            = dir.filePath(QStringLiteral("broken/") + session + QStringLiteral(".jsonl"));
        QVERIFY(writeFile(broken, readFile(main)));
        const QDir source(
            QFileInfo(main).path() + QLatin1Char('/') + session + QStringLiteral("/subagents"));
        const QString subagents
            = dir.filePath(QStringLiteral("broken/") + session + QStringLiteral("/subagents/"));
        for (const QString &file : source.entryList(QDir::Files)) {
            if (file.endsWith(QLatin1String(".meta.json")))
                QVERIFY(writeFile(subagents + file, readFile(source.filePath(file))));
            else
                QVERIFY(QDir().mkpath(subagents + file));
        }
        RunModel unreadable;
        const Loaded failed = load(broken, &unreadable);
        QVERIFY(failed.ok);
        bool reported = false;
        for (const QModelIndex &notice :
            nodesOfKind(unreadable, RunModel::NodeKind::SystemNotice)) {
            reported = reported
                || (notice.data().toString().contains(QStringLiteral("is a folder, not read"))
                    && notice.data(RunModel::StatusRole).toInt() == int(RunModel::Status::Error)
                    && notice.parent().data(RunModel::KindRole).toInt()
                        == int(RunModel::NodeKind::ToolCall));
        }
        QVERIFY(reported);
    }

    void aTurnWithoutItsCostStateIsCutShort()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QList<QByteArray> lines = readFile(transcriptOf(QStringLiteral("bash"))).split('\n');
        QList<QByteArray> kept;
        for (const QByteArray &line : lines) {
            if (!line.isEmpty() && !line.contains("\"type\":\"cost-state\""))
                kept.append(line);
        }
        const QString path = dir.filePath(QStringLiteral("cut.jsonl"));
        QVERIFY(writeFile(path, kept.join('\n') + '\n'));
        RunModel model;
        const Loaded read = load(path, &model);
        QVERIFY(read.summary.isError);
        QVERIFY(read.summary.turnOpen);
        QCOMPARE(model.index(0, 0).data(RunModel::StatusRole).toInt(),
            int(RunModel::Status::Interrupted));
    }
};

QTEST_GUILESS_MAIN(TestTranscriptReplay)
#include "tst_transcriptreplay.moc"
