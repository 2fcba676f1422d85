// The transcript record types newer Claude Code writes, read from files that contain them: the
// interactive REPL's session recorded from the real CLI (tests/data/transcripts/interactive) and,
// for the records it cannot be made to write offline, constructed lines in the shape its code
// builds (tests/data/transcript-constructed.jsonl; both described in their READMEs). What each
// becomes is docs/stream-json.md's table "Reading a transcript into the run tree".

#include "loadedrunfile.h"
#include "runtree/runmodel.h"
#include "streamjson/runparser.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <functional>
#include <numeric>

using namespace sandscope;

namespace {

QString recordsDataPath(const QString &name)
{
    return QStringLiteral(SANDSCOPE_TEST_DATA_DIR) + QLatin1Char('/') + name;
}

QString interactiveTranscript()
{
    const QDir dir(recordsDataPath(QStringLiteral("transcripts/interactive/transcript")));
    const QStringList files = dir.entryList({QStringLiteral("*.jsonl")}, QDir::Files);
    return files.size() == 1 ? dir.filePath(files.constFirst()) : QString();
}

QString constructedTranscript()
{
    return recordsDataPath(QStringLiteral("transcript-constructed.jsonl"));
}

QList<QByteArray> nonBlankLines(const QString &path)
{
    QFile file(path);
    QList<QByteArray> lines;
    if (!file.open(QIODevice::ReadOnly))
        return lines;
    for (const QByteArray &line : file.readAll().split('\n'))
        if (!line.trimmed().isEmpty())
            lines.append(line);
    return lines;
}

// "type", or "system/<subtype>" for system records.
QString recordKind(const QJsonObject &record)
{
    const QString type = record.value(QStringLiteral("type")).toString();
    return type == QLatin1String("system")
        ? type + QLatin1Char('/') + record.value(QStringLiteral("subtype")).toString()
        : type;
}

using LoadedTranscript = test::LoadedRunFile;

LoadedTranscript loadTranscript(const QString &path, RunModel *model)
{
    return LoadedTranscript::read(path, model);
}

QList<QModelIndex> treeNodes(const RunModel &model)
{
    QList<QModelIndex> found;
    std::function<void(const QModelIndex &)> walk = [&](const QModelIndex &parent) {
        for (int row = 0; row < model.rowCount(parent); ++row) {
            const QModelIndex index = model.index(row, 0, parent);
            found.append(index);
            walk(index);
        }
    };
    walk(QModelIndex());
    return found;
}

QList<QModelIndex> nodesOf(const RunModel &model, RunModel::NodeKind kind)
{
    QList<QModelIndex> found;
    for (const QModelIndex &index : treeNodes(model))
        if (index.data(RunModel::KindRole).toInt() == int(kind))
            found.append(index);
    return found;
}

} // namespace

Q_DECLARE_METATYPE(RunEvent::Kind)

class TestTranscriptRecords : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void fixturesHoldTheRecordTypes();
    void recordBecomesItsEvent_data();
    void recordBecomesItsEvent();
    void knownTypesLeaveNoUnknownNode_data();
    void knownTypesLeaveNoUnknownNode();
    void turnDurationIsTheTurnsClaudeDurationAndEndsIt();
    void microCompactionIsACompactionInsideItsTurn();
    void sessionNameIsShownOnceWithItsName();
    void awaySummaryShowsTheRecap();
    void backgroundAgentEndsWithItsTaskNotification();
    void durationRunsFromTheFirstTimedRecord_data();
    void durationRunsFromTheFirstTimedRecord();
};

// The fixtures are what the tests below rely on: each record type is in them.
void TestTranscriptRecords::fixturesHoldTheRecordTypes()
{
    QSet<QString> kinds;
    for (const QString &path : {interactiveTranscript(), constructedTranscript()})
        for (const QByteArray &line : nonBlankLines(path))
            kinds.insert(recordKind(QJsonDocument::fromJson(line).object()));
    for (const char *kind : {"system/turn_duration", "system/away_summary", "agent-name", "mode",
             "permission-mode", "custom-title", "system/local_command", "bridge-session",
             "system/bridge_status", "system/microcompact_boundary", "sandscope-made-up-record"})
        QVERIFY2(kinds.contains(QLatin1String(kind)), kind);
}

void TestTranscriptRecords::recordBecomesItsEvent_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<RunEvent::Kind>("first"); // the events of the first such record
    QTest::addColumn<RunEvent::Kind>("repeated"); // of the later ones
    const QString interactive = interactiveTranscript();
    const QString constructed = constructedTranscript();
    QTest::newRow("turn_duration") << interactive << QStringLiteral("system/turn_duration")
                                   << RunEvent::TurnDuration << RunEvent::TurnDuration;
    QTest::newRow("away_summary") << interactive << QStringLiteral("system/away_summary")
                                  << RunEvent::SystemNotice << RunEvent::SystemNotice;
    QTest::newRow("local_command") << interactive << QStringLiteral("system/local_command")
                                   << RunEvent::SystemNotice << RunEvent::SystemNotice;
    QTest::newRow("agent-name (recorded)") << interactive << QStringLiteral("agent-name")
                                           << RunEvent::SystemNotice << RunEvent::Transient;
    QTest::newRow("agent-name (same name again)") << constructed << QStringLiteral("agent-name")
                                                  << RunEvent::SystemNotice << RunEvent::Transient;
    QTest::newRow("mode") << interactive << QStringLiteral("mode") << RunEvent::Transient
                          << RunEvent::Transient;
    QTest::newRow("permission-mode") << interactive << QStringLiteral("permission-mode")
                                     << RunEvent::Transient << RunEvent::Transient;
    QTest::newRow("custom-title") << interactive << QStringLiteral("custom-title")
                                  << RunEvent::Transient << RunEvent::Transient;
    QTest::newRow("bridge-session") << constructed << QStringLiteral("bridge-session")
                                    << RunEvent::Transient << RunEvent::Transient;
    QTest::newRow("bridge_status") << constructed << QStringLiteral("system/bridge_status")
                                   << RunEvent::Transient << RunEvent::Transient;
    QTest::newRow("microcompact_boundary")
        << constructed << QStringLiteral("system/microcompact_boundary")
        << RunEvent::CompactBoundary << RunEvent::CompactBoundary;
    QTest::newRow("a made-up type") << constructed << QStringLiteral("sandscope-made-up-record")
                                    << RunEvent::Unknown << RunEvent::Unknown;
}

// Each record of the kind, read in its file's order by one parser, gives events of that kind.
void TestTranscriptRecords::recordBecomesItsEvent()
{
    QFETCH(QString, path);
    QFETCH(QString, kind);
    QFETCH(RunEvent::Kind, first);
    QFETCH(RunEvent::Kind, repeated);
    RunParser parser;
    int seen = 0;
    for (const QByteArray &line : nonBlankLines(path)) {
        const RunEventBatch events = parser.parseLine(line, 0);
        if (recordKind(QJsonDocument::fromJson(line).object()) != kind)
            continue;
        QVERIFY(!events.isEmpty());
        for (const RunEvent &event : events)
            QCOMPARE(int(event.kind), int(seen == 0 ? first : repeated));
        ++seen;
    }
    QVERIFY(seen > 0);
}

void TestTranscriptRecords::knownTypesLeaveNoUnknownNode_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QStringList>("unknown"); // the record types that stay Unknown
    QTest::newRow("interactive") << interactiveTranscript() << QStringList();
    QTest::newRow("constructed") << constructedTranscript()
                                 << QStringList {QStringLiteral("sandscope-made-up-record")};
}

// The tree's raw nodes are exactly the records of unknown types: every type the code knows
// becomes its node or stays quiet, and the made-up one is still shown as Unknown.
void TestTranscriptRecords::knownTypesLeaveNoUnknownNode()
{
    QFETCH(QString, path);
    QFETCH(QStringList, unknown);
    RunModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(loadTranscript(path, &model).ok);
    QStringList raw;
    for (const QModelIndex &index : nodesOf(model, RunModel::NodeKind::Raw)) {
        const QJsonObject record
            = QJsonDocument::fromJson(index.data(RunModel::RawLineRole).toByteArray()).object();
        raw.append(recordKind(record));
        QVERIFY2(index.data(Qt::DisplayRole).toString().startsWith(QLatin1String("Unknown")),
            qPrintable(index.data(Qt::DisplayRole).toString()));
    }
    QCOMPARE(raw, unknown);
}

// A transcript turn with a turn_duration record states that figure as claude's duration, where a
// stream-json turn states its result's duration_ms: on the turn, in the run's sum and in the
// summary. The REPL writes cost-state only at exit, so the record also ends the turn: none of
// the interactive session's turns is interrupted.
void TestTranscriptRecords::turnDurationIsTheTurnsClaudeDurationAndEndsIt()
{
    const QString path = interactiveTranscript();
    QList<qint64> recorded;
    for (const QByteArray &line : nonBlankLines(path)) {
        const QJsonObject record = QJsonDocument::fromJson(line).object();
        if (recordKind(record) == QLatin1String("system/turn_duration"))
            recorded.append(qint64(record.value(QStringLiteral("durationMs")).toDouble()));
    }
    QVERIFY(recorded.size() >= 2);

    RunModel model;
    const LoadedTranscript loaded = loadTranscript(path, &model);
    QVERIFY(loaded.ok);
    QList<qint64> perTurn;
    for (const QModelIndex &turn : nodesOf(model, RunModel::NodeKind::Turn)) {
        QCOMPARE(turn.data(RunModel::StatusRole).toInt(), int(RunModel::Status::Ok));
        QVERIFY(turn.data(RunModel::ClaudeDurationMsRole).isValid());
        perTurn.append(turn.data(RunModel::ClaudeDurationMsRole).toLongLong());
    }
    QCOMPARE(perTurn, recorded); // one record per turn in this session

    const qint64 sum = std::accumulate(recorded.cbegin(), recorded.cend(), qint64(0));
    const QModelIndex run = model.index(0, 0);
    QCOMPARE(run.data(RunModel::KindRole).toInt(), int(RunModel::NodeKind::Run));
    QCOMPARE(run.data(RunModel::ClaudeDurationMsRole).toLongLong(), sum);
    QCOMPARE(loaded.summary.claudeDurationMs, sum);
    QCOMPARE(loaded.summary.turns, int(recorded.size()));
    QVERIFY(!loaded.summary.isError);
    QCOMPARE(loaded.summary.toJson().value(QStringLiteral("claude_duration_ms")).toDouble(),
        double(sum));
}

// A micro-compaction is a compaction node in the turn it happened in; it opens no turn.
void TestTranscriptRecords::microCompactionIsACompactionInsideItsTurn()
{
    RunModel model;
    const LoadedTranscript loaded = loadTranscript(constructedTranscript(), &model);
    QVERIFY(loaded.ok);
    const QList<QModelIndex> compactions = nodesOf(model, RunModel::NodeKind::CompactBoundary);
    QCOMPARE(compactions.size(), 1);
    const QModelIndex node = compactions.constFirst();
    const QJsonObject record
        = QJsonDocument::fromJson(node.data(RunModel::RawLineRole).toByteArray()).object();
    QCOMPARE(recordKind(record), QStringLiteral("system/microcompact_boundary"));
    const QJsonObject metadata = record.value(QStringLiteral("microcompactMetadata")).toObject();
    const QString title = node.data(Qt::DisplayRole).toString();
    QVERIFY2(title.contains(QString::number(metadata.value(QStringLiteral("preTokens")).toInt())),
        qPrintable(title));
    QVERIFY2(title.contains(QString::number(metadata.value(QStringLiteral("tokensSaved")).toInt())),
        qPrintable(title));
    QCOMPARE(node.parent().data(RunModel::KindRole).toInt(), int(RunModel::NodeKind::Turn));
    QCOMPARE(nodesOf(model, RunModel::NodeKind::Turn).size(), 1);
    QCOMPARE(loaded.summary.turns, 1);
}

// agent-name names the session (by sessionId, not a sub-agent): one notice with the name, not
// one per repeated record.
void TestTranscriptRecords::sessionNameIsShownOnceWithItsName()
{
    for (const QString &path : {interactiveTranscript(), constructedTranscript()}) {
        QSet<QString> names;
        for (const QByteArray &line : nonBlankLines(path)) {
            const QJsonObject record = QJsonDocument::fromJson(line).object();
            if (recordKind(record) == QLatin1String("agent-name"))
                names.insert(record.value(QStringLiteral("agentName")).toString());
        }
        QCOMPARE(names.size(), 1);
        RunModel model;
        QVERIFY(loadTranscript(path, &model).ok);
        int notices = 0;
        for (const QModelIndex &index : nodesOf(model, RunModel::NodeKind::SystemNotice)) {
            const QJsonObject record
                = QJsonDocument::fromJson(index.data(RunModel::RawLineRole).toByteArray()).object();
            if (recordKind(record) != QLatin1String("agent-name"))
                continue;
            ++notices;
            const QString title = index.data(Qt::DisplayRole).toString();
            QVERIFY2(title.contains(*names.cbegin()), qPrintable(title));
        }
        QCOMPARE(notices, 1);
    }
}

// The recap the REPL wrote while the user was away is a notice with its text.
void TestTranscriptRecords::awaySummaryShowsTheRecap()
{
    RunModel model;
    QVERIFY(loadTranscript(interactiveTranscript(), &model).ok);
    int found = 0;
    for (const QModelIndex &index : nodesOf(model, RunModel::NodeKind::SystemNotice)) {
        const QJsonObject record
            = QJsonDocument::fromJson(index.data(RunModel::RawLineRole).toByteArray()).object();
        if (recordKind(record) != QLatin1String("system/away_summary"))
            continue;
        ++found;
        QCOMPARE(index.data(RunModel::TextRole).toString(),
            record.value(QStringLiteral("content")).toString());
    }
    QCOMPARE(found, 1);
}

// The REPL runs an Agent call in the background (its result says async_launched) and tells
// its end as a <task-notification> prompt naming the call and its status: the call ends with
// that status, as a stream-json task_notification ends it, instead of "interrupted".
void TestTranscriptRecords::backgroundAgentEndsWithItsTaskNotification()
{
    QHash<QString, QString> statusOfCall;
    for (const QByteArray &line : nonBlankLines(interactiveTranscript())) {
        const QJsonObject record = QJsonDocument::fromJson(line).object();
        const QString content = record.value(QStringLiteral("message"))
                                    .toObject()
                                    .value(QStringLiteral("content"))
                                    .toString();
        if (!content.startsWith(QLatin1String("<task-notification>")))
            continue;
        const auto tag = [&content](const QString &name) {
            const QString open = QLatin1Char('<') + name + QLatin1Char('>');
            const qsizetype from = content.indexOf(open) + open.size();
            return content.mid(from, content.indexOf(QStringLiteral("</") + name, from) - from);
        };
        statusOfCall.insert(tag(QStringLiteral("tool-use-id")), tag(QStringLiteral("status")));
    }
    QCOMPARE(statusOfCall.size(), 1);
    QCOMPARE(statusOfCall.cbegin().value(), QStringLiteral("completed"));

    RunModel model;
    QVERIFY(loadTranscript(interactiveTranscript(), &model).ok);
    int checked = 0;
    for (const QModelIndex &index : treeNodes(model)) {
        QVERIFY2(index.data(RunModel::StatusRole).toInt() != int(RunModel::Status::Interrupted),
            qPrintable(index.data(Qt::DisplayRole).toString()));
        const QString id = index.data(RunModel::ToolUseIdRole).toString();
        if (index.data(RunModel::KindRole).toInt() == int(RunModel::NodeKind::ToolCall)
            && statusOfCall.contains(id)) {
            QCOMPARE(index.data(RunModel::StatusRole).toInt(), int(RunModel::Status::Ok));
            ++checked;
        }
    }
    QCOMPARE(checked, 1);
}

void TestTranscriptRecords::durationRunsFromTheFirstTimedRecord_data()
{
    QTest::addColumn<QString>("path");
    const QDir transcripts(recordsDataPath(QStringLiteral("transcripts")));
    for (const QString &scenario : transcripts.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        const QDir dir(transcripts.filePath(scenario + QStringLiteral("/transcript")));
        for (const QString &file : dir.entryList({QStringLiteral("*.jsonl")}, QDir::Files))
            QTest::newRow(qPrintable(scenario + QLatin1Char('/') + file)) << dir.filePath(file);
    }
    QTest::newRow("constructed") << constructedTranscript();
}

// The REPL's session files (and a fork's) start with records that have no timestamp (mode,
// permission-mode, bridge-session, …): they take no time of their own, so the run's span runs
// from the first timed record to the latest time in its files (a fork's copied history keeps
// its older times), not from the epoch.
void TestTranscriptRecords::durationRunsFromTheFirstTimedRecord()
{
    QFETCH(QString, path);
    QStringList files {path};
    const QDir subagents(path.left(path.size() - 6) + QStringLiteral("/subagents"));
    for (const QString &file : subagents.entryList({QStringLiteral("*.jsonl")}, QDir::Files))
        files.append(subagents.filePath(file));
    qint64 first = -1, last = -1;
    for (const QString &file : std::as_const(files)) {
        for (const QByteArray &line : nonBlankLines(file)) {
            const QDateTime stamp = QDateTime::fromString(QJsonDocument::fromJson(line)
                                                              .object()
                                                              .value(QStringLiteral("timestamp"))
                                                              .toString(),
                Qt::ISODateWithMs);
            if (!stamp.isValid())
                continue;
            first = first < 0 ? stamp.toMSecsSinceEpoch() : first; // the main file's first
            last = std::max(last, stamp.toMSecsSinceEpoch());
        }
    }
    QVERIFY(first >= 0);
    RunModel model;
    const LoadedTranscript loaded = loadTranscript(path, &model);
    QVERIFY(loaded.ok);
    QCOMPARE(loaded.summary.durationMs, last - first);
    QCOMPARE(model.index(0, 0).data(RunModel::DurationMsRole).toLongLong(), last - first);
}

QTEST_GUILESS_MAIN(TestTranscriptRecords)
#include "tst_transcriptrecords.moc"
