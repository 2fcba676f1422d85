// RunComparison, its models and `sandscope compare`:
// - every capture and transcript in tests/data compared with itself: every call the same,
//   as many calls as the file has distinct tool_use ids, and the verb exits 0;
// - each recorded transcript against the stream-json of the same run: the same calls by id;
// - a second attempt built from a capture's JSON (one call removed, one added, one input
//   changed) gives exactly those rows, and the deltas are the two summaries' differences
//   (summarised through the fast path, not the run tree);
// - the same run in another chat folder matches; the alignment is a longest common
//   subsequence (checked against dynamic programming) and stays valid when it falls back;
// - the models pass QAbstractItemModelTester;
// - the verb: exit 0/1/2, a file that is not a run is refused with exit 2, --json parses,
//   a truncated file is compared as far as it goes with a warning.

#include "compare/runcomparison.h"
#include "compare/runcomparisonmodel.h"
#include "compare/touchedfilesmodel.h"
#include "runs/loadedrun.h"
#include "sandscopecli.h"
#include "streamjson/runsummary.h"
#include "testing.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QSet>
#include <QTemporaryDir>
#include <QtTest/QTest>

using namespace sandscope;

namespace {

const QString dataDir = QStringLiteral(SANDSCOPE_TEST_DATA_DIR);

QList<QByteArray> fileLines(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QList<QByteArray> lines = file.readAll().split('\n');
    while (!lines.isEmpty() && lines.last().trimmed().isEmpty())
        lines.removeLast();
    return lines;
}

bool writeLines(const QString &path, const QList<QByteArray> &lines)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    for (const QByteArray &line : lines)
        file.write(line + '\n');
    return true;
}

// The distinct tool_use ids of the assistant messages in a file, read with QJsonDocument.
QStringList toolUseIds(const QString &path)
{
    QStringList ids;
    for (const QByteArray &line : fileLines(path)) {
        QJsonObject json = QJsonDocument::fromJson(line).object();
        if (json.contains(QLatin1String("line"))) // a recording's entry holds the run's line
            json = QJsonDocument::fromJson(json.value(QLatin1String("line")).toString().toUtf8())
                       .object();
        if (json.value(QStringLiteral("type")).toString() != QLatin1String("assistant"))
            continue;
        const QJsonArray content = json.value(QStringLiteral("message"))
                                       .toObject()
                                       .value(QStringLiteral("content"))
                                       .toArray();
        for (const QJsonValue &block : content) {
            const QString type = block.toObject().value(QStringLiteral("type")).toString();
            const QString id = block.toObject().value(QStringLiteral("id")).toString();
            if ((type == QLatin1String("tool_use") || type == QLatin1String("server_tool_use"))
                && !ids.contains(id))
                ids << id;
        }
    }
    return ids;
}

ComparedRun load(const QString &path)
{
    LoadedRun run;
    QString why;
    if (!LoadedRun::fromFile(path, &run, &why))
        qWarning() << "cannot load" << path << why;
    return ComparedRun::fromLoadedRun(run);
}

QStringList runFiles()
{
    QStringList files;
    QDirIterator it(
        dataDir, {QStringLiteral("*.jsonl")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        // Sub-agent files are part of their transcript; requests.jsonl is the model server's log.
        if (path.contains(QLatin1String("/subagents/"))
            || path.endsWith(QLatin1String("/requests.jsonl")))
            continue;
        files << path;
    }
    files.sort();
    return files;
}

using Outcome = test::CliOutcome;
using test::runSandscope;

// Longest common subsequence length by dynamic programming, the reference for Myers.
int lcsLength(const QVector<int> &a, const QVector<int> &b)
{
    std::vector<std::vector<int>> table(
        size_t(a.size() + 1), std::vector<int>(size_t(b.size() + 1)));
    for (int i = 1; i <= a.size(); ++i)
        for (int j = 1; j <= b.size(); ++j)
            table[size_t(i)][size_t(j)] = a[i - 1] == b[j - 1]
                ? table[size_t(i - 1)][size_t(j - 1)] + 1
                : std::max(table[size_t(i - 1)][size_t(j)], table[size_t(i)][size_t(j - 1)]);
    return table[size_t(a.size())][size_t(b.size())];
}

bool isCommonSubsequence(
    const QVector<int> &a, const QVector<int> &b, const QVector<QPair<int, int>> &pairs)
{
    int lastI = -1;
    int lastJ = -1;
    for (const auto &[i, j] : pairs) {
        if (i <= lastI || j <= lastJ || i >= a.size() || j >= b.size() || a[i] != b[j])
            return false;
        lastI = i;
        lastJ = j;
    }
    return true;
}

// The second attempt of transcripts/resume/stream.jsonl: the first Bash call's command
// changed, the second Bash call replaced by a Read of notes.txt (removed + added).
struct Attempt {
    QString changedId; // kept id, input changed
    QString removedId;
    QString addedId = QStringLiteral("toolu_added_read");
    QList<QByteArray> lines;
};

Attempt makeSecondAttempt(const QList<QByteArray> &lines)
{
    Attempt attempt;
    for (const QByteArray &line : lines) {
        QJsonObject json = QJsonDocument::fromJson(line).object();
        const QString type = json.value(QStringLiteral("type")).toString();
        QJsonObject message = json.value(QStringLiteral("message")).toObject();
        QJsonArray content = message.value(QStringLiteral("content")).toArray();
        bool edited = false;
        for (int i = 0; i < content.size(); ++i) {
            QJsonObject block = content.at(i).toObject();
            const QString blockType = block.value(QStringLiteral("type")).toString();
            if (type == QLatin1String("assistant") && blockType == QLatin1String("tool_use")) {
                const QString id = block.value(QStringLiteral("id")).toString();
                if (attempt.changedId.isEmpty()) {
                    attempt.changedId = id;
                    QJsonObject input = block.value(QStringLiteral("input")).toObject();
                    input.insert(QStringLiteral("command"),
                        QString(input.value(QStringLiteral("command")).toString()
                            + QStringLiteral(" again")));
                    block.insert(QStringLiteral("input"), input);
                } else {
                    attempt.removedId = id;
                    block = QJsonObject {{QStringLiteral("type"), QStringLiteral("tool_use")},
                        {QStringLiteral("id"), attempt.addedId},
                        {QStringLiteral("name"), QStringLiteral("Read")},
                        {QStringLiteral("input"),
                            QJsonObject {{QStringLiteral("file_path"),
                                QStringLiteral("/home/someone/chat-x/notes.txt")}}}};
                }
                edited = true;
            } else if (type == QLatin1String("user") && blockType == QLatin1String("tool_result")
                && !attempt.removedId.isEmpty()
                && block.value(QStringLiteral("tool_use_id")).toString() == attempt.removedId) {
                block.insert(QStringLiteral("tool_use_id"), attempt.addedId);
                edited = true;
            }
            content[i] = block;
        }
        if (!edited) {
            attempt.lines << line;
            continue;
        }
        message.insert(QStringLiteral("content"), content);
        json.insert(QStringLiteral("message"), message);
        attempt.lines << QJsonDocument(json).toJson(QJsonDocument::Compact);
    }
    return attempt;
}

RunSummary fastSummary(const QString &path)
{
    RunSummary summary;
    summarizeRunFile(path, &summary);
    return summary;
}

} // namespace

class TestRunComparison : public QObject {
    Q_OBJECT

private slots:
    void selfComparison_data();
    void selfComparison();
    void transcriptMatchesItsStream_data();
    void transcriptMatchesItsStream();
    void secondAttempt();
    void chatFolderDoesNotMatter();
    void normalisedText_data();
    void normalisedText();
    void normalisedInputDropsIds();
    void commonSubsequenceIsLongest();
    void fallbackStaysACommonSubsequence();
    void subAgentCallsAlignOnlyAtTheirDepth();
    void comparisonModel();
    void touchedFilesModel();
    void hostileNamesAreShownVisibly();
    void verbExitCodes();
    void verbRefusesWhatIsNotARun_data();
    void verbRefusesWhatIsNotARun();
    void verbComparesATruncatedFile();
};

void TestRunComparison::selfComparison_data()
{
    QTest::addColumn<QString>("path");
    const QStringList files = runFiles();
    QVERIFY(files.size() >= 15);
    for (const QString &path : files)
        QTest::newRow(qPrintable(QDir(dataDir).relativeFilePath(path))) << path;
}

void TestRunComparison::selfComparison()
{
    QFETCH(QString, path);
    const ComparedRun run = load(path);
    const RunComparison comparison = RunComparison::compare(run, run);
    QVERIFY(comparison.same());
    QCOMPARE(comparison.rows().size(), run.calls.size());
    QCOMPARE(comparison.count(RunComparison::State::Same), run.calls.size());
    for (const RunComparison::Delta &delta : comparison.deltas())
        QVERIFY2(!delta.differs(), qPrintable(delta.name));
    // Without sub-agent files beside it, the file's own tool_use ids are all its calls (in
    // tree order: parallel sub-agents' calls are in the file as they happened).
    const QString subagents = path.left(path.size() - 6) + QStringLiteral("/subagents");
    if (!QDir(subagents).exists()) {
        QStringList ids;
        for (const ComparedCall &call : run.calls)
            ids << call.toolUseId;
        QStringList inFile = toolUseIds(path);
        ids.sort();
        inFile.sort();
        QCOMPARE(ids, inFile);
    }

    const Outcome verb = runSandscope({QStringLiteral("compare"), path, path});
    QCOMPARE(verb.exitCode, 0);
    QVERIFY(verb.out.contains("The runs match."));
}

void TestRunComparison::transcriptMatchesItsStream_data()
{
    QTest::addColumn<QString>("stream");
    QTest::addColumn<QString>("transcript");
    const QDir transcripts(dataDir + QStringLiteral("/transcripts"));
    for (const QString &scenario : sandscope::test::scenariosWithStream()) {
        const QDir folder(transcripts.filePath(scenario) + QStringLiteral("/transcript"));
        // fork: the forked file holds both turns, the original only the first.
        QString longest;
        qint64 size = -1;
        for (const QFileInfo &file : folder.entryInfoList({QStringLiteral("*.jsonl")}))
            if (file.size() > size) {
                size = file.size();
                longest = file.filePath();
            }
        QTest::newRow(qPrintable(scenario))
            << transcripts.filePath(scenario) + QStringLiteral("/stream.jsonl") << longest;
    }
}

void TestRunComparison::transcriptMatchesItsStream()
{
    QFETCH(QString, stream);
    QFETCH(QString, transcript);
    const ComparedRun a = load(stream);
    const ComparedRun b = load(transcript);
    QVERIFY(b.summary.isTranscript);
    const RunComparison comparison = RunComparison::compare(a, b);
    QCOMPARE(comparison.count(RunComparison::State::Added), 0);
    QCOMPARE(comparison.count(RunComparison::State::Removed), 0);
    for (const RunComparison::Row &row : comparison.rows()) {
        QCOMPARE(a.calls.at(row.left).toolUseId, b.calls.at(row.right).toolUseId);
        QVERIFY2(row.state == RunComparison::State::Same,
            qPrintable(RunComparison::fieldNames(row.fields).join(QLatin1Char(','))));
    }
    QCOMPARE(comparison.rows().size(), toolUseIds(stream).size());
    QVERIFY(comparison.same()); // a transcript that ended counts as succeeded
}

void TestRunComparison::secondAttempt()
{
    const QString original = dataDir + QStringLiteral("/transcripts/resume/stream.jsonl");
    const Attempt attempt = makeSecondAttempt(fileLines(original));
    QVERIFY(!attempt.changedId.isEmpty());
    QVERIFY(!attempt.removedId.isEmpty());
    QTemporaryDir dir;
    const QString second = dir.filePath(QStringLiteral("second.jsonl"));
    QVERIFY(writeLines(second, attempt.lines));

    const ComparedRun a = load(original);
    const ComparedRun b = load(second);
    const RunComparison comparison = RunComparison::compare(a, b);
    QCOMPARE(comparison.rows().size(), 3);
    int seen = 0;
    for (const RunComparison::Row &row : comparison.rows()) {
        const QString left = row.left < 0 ? QString() : a.calls.at(row.left).toolUseId;
        const QString right = row.right < 0 ? QString() : b.calls.at(row.right).toolUseId;
        if (left == attempt.changedId) {
            QCOMPARE(row.state, RunComparison::State::Changed);
            QCOMPARE(right, attempt.changedId);
            QCOMPARE(row.fields, int(RunComparison::InputField));
            seen |= 1;
        } else if (left == attempt.removedId) {
            QCOMPARE(row.state, RunComparison::State::Removed);
            QVERIFY(right.isEmpty());
            seen |= 2;
        } else {
            QCOMPARE(row.state, RunComparison::State::Added);
            QCOMPARE(right, attempt.addedId);
            seen |= 4;
        }
    }
    QCOMPARE(seen, 7);
    QVERIFY(!comparison.same());
    QCOMPARE(comparison.files().size(), 1);
    QVERIFY(comparison.files().constFirst().path.endsWith(QLatin1String("notes.txt")));
    QVERIFY(comparison.files().constFirst().leftTools.isEmpty());
    QCOMPARE(comparison.files().constFirst().rightTools, QStringList {QStringLiteral("Read")});

    // The deltas are the differences of the two summaries, as the fast path counts them.
    const RunSummary sa = fastSummary(original);
    const RunSummary sb = fastSummary(second);
    QHash<QString, QPair<double, double>> expected {
        {QStringLiteral("turns"), {double(sa.turns), double(sb.turns)}},
        {QStringLiteral("round_trips"), {double(sa.roundTrips), double(sb.roundTrips)}},
        {QStringLiteral("tool_calls"), {double(sa.toolCalls), double(sb.toolCalls)}},
        {QStringLiteral("tool_errors"), {double(sa.toolErrors), double(sb.toolErrors)}},
        {QStringLiteral("input_tokens"), {double(sa.inputTokens), double(sb.inputTokens)}},
        {QStringLiteral("output_tokens"), {double(sa.outputTokens), double(sb.outputTokens)}},
        {QStringLiteral("cost_usd"), {sa.costUsd, sb.costUsd}},
        {QStringLiteral("duration_ms"), {double(sa.durationMs), double(sb.durationMs)}},
    };
    int checked = 0;
    for (const RunComparison::Delta &delta : comparison.deltas()) {
        if (delta.isText)
            continue;
        QVERIFY2(expected.contains(delta.key), qPrintable(delta.key));
        QCOMPARE(delta.left, expected.value(delta.key).first);
        QCOMPARE(delta.right, expected.value(delta.key).second);
        ++checked;
    }
    QCOMPARE(checked, expected.size());

    // The verb: exit 1, and the JSON names the same rows.
    const Outcome verb
        = runSandscope({QStringLiteral("compare"), original, second, QStringLiteral("--json")});
    QCOMPARE(verb.exitCode, 1);
    QJsonParseError error;
    const QJsonObject json = QJsonDocument::fromJson(verb.out, &error).object();
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(json.value(QStringLiteral("type")).toString(), QStringLiteral("sandscope_compare"));
    QCOMPARE(json.value(QStringLiteral("same")).toBool(true), false);
    const QJsonObject counts = json.value(QStringLiteral("counts")).toObject();
    QCOMPARE(counts.value(QStringLiteral("changed")).toInt(), 1);
    QCOMPARE(counts.value(QStringLiteral("added")).toInt(), 1);
    QCOMPARE(counts.value(QStringLiteral("removed")).toInt(), 1);
    QCOMPARE(counts.value(QStringLiteral("same")).toInt(), 0);
    QCOMPARE(json.value(QStringLiteral("differences")).toArray().size(), 3);
    const Outcome human = runSandscope({QStringLiteral("compare"), original, second});
    QCOMPARE(human.exitCode, 1);
    QVERIFY(human.out.contains("again"));
    QVERIFY(human.out.contains("+ B#2 Read"));
    QVERIFY(human.out.contains("- A#2 Bash"));
    QVERIFY(human.out.contains("The runs differ."));
}

void TestRunComparison::chatFolderDoesNotMatter()
{
    // The bash run with its call naming files in its working directory, and the same run
    // recorded in another home and chat folder.
    QList<QByteArray> lines = fileLines(dataDir + QStringLiteral("/transcripts/bash/stream.jsonl"));
    QVERIFY(!lines.isEmpty());
    const QByteArray cwd = QJsonDocument::fromJson(lines.constFirst())
                               .object()
                               .value(QStringLiteral("cwd"))
                               .toString()
                               .toUtf8();
    QVERIFY(cwd.endsWith("home-bash/chat-bash"));
    int edited = 0;
    for (QByteArray &line : lines) {
        edited += line.contains("\"command\":\"echo hi\"") + line.contains("\"content\":\"hi\"");
        line.replace("\"command\":\"echo hi\"", QByteArray("\"command\":\"ls " + cwd + "/src\""));
        line.replace("\"content\":\"hi\"", QByteArray("\"content\":\"" + cwd + "/src/a.txt\""));
    }
    QCOMPARE(edited, 2);
    QTemporaryDir dir;
    const QString first = dir.filePath(QStringLiteral("first.jsonl"));
    QVERIFY(writeLines(first, lines));
    for (QByteArray &line : lines)
        line.replace("home-bash/chat-bash", "home-elsewhere/chat-other-attempt");
    const QString moved = dir.filePath(QStringLiteral("moved.jsonl"));
    QVERIFY(writeLines(moved, lines));

    const ComparedRun a = load(first);
    const ComparedRun b = load(moved);
    QCOMPARE(a.calls.size(), 1);
    QVERIFY(a.workingDirectory != b.workingDirectory);
    QVERIFY(a.calls.constFirst().input.contains(QLatin1String("ls <cwd>/src")));
    QCOMPARE(a.calls.constFirst().output, QStringLiteral("<cwd>/src/a.txt"));
    const RunComparison comparison = RunComparison::compare(a, b);
    QVERIFY(comparison.same());
    QCOMPARE(comparison.count(RunComparison::State::Same), 1);
}

void TestRunComparison::normalisedText_data()
{
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("cwdA");
    QTest::addColumn<QString>("b");
    QTest::addColumn<QString>("cwdB");
    QTest::addColumn<bool>("equal");
    QTest::newRow("chat folders, no cwd known") << "cat /home/alice/chat-a/x.py"
                                                << ""
                                                << "cat /home/bob/chat-b/x.py"
                                                << "" << true;
    QTest::newRow("tilde chat folder") << "ls ~/chat-one/src"
                                       << ""
                                       << "ls /home/u/chat-two/src"
                                       << "" << true;
    QTest::newRow("working directories") << "cat /tmp/r1/work/a"
                                         << "/tmp/r1/work"
                                         << "cat /tmp/r2/work/a"
                                         << "/tmp/r2/work" << true;
    QTest::newRow("whitespace") << "echo  a\n\n\tb "
                                << ""
                                << "echo a\nb"
                                << "" << true;
    QTest::newRow("line breaks count") << "echo a\nb"
                                       << ""
                                       << "echo a b"
                                       << "" << false;
    QTest::newRow("other file") << "cat /home/a/chat-a/x.py"
                                << ""
                                << "cat /home/a/chat-a/y.py"
                                << "" << false;
    QTest::newRow("outside the chat") << "cat /etc/passwd"
                                      << ""
                                      << "cat /etc/shadow"
                                      << "" << false;
}

void TestRunComparison::normalisedText()
{
    QFETCH(QString, a);
    QFETCH(QString, cwdA);
    QFETCH(QString, b);
    QFETCH(QString, cwdB);
    QFETCH(bool, equal);
    QCOMPARE(
        RunComparison::normalisedText(a, cwdA) == RunComparison::normalisedText(b, cwdB), equal);
}

void TestRunComparison::normalisedInputDropsIds()
{
    const QString a = RunComparison::normalisedInput(
        R"({"task_id":"t1","shell_id":"s1","command":"ls  -l","nested":{"id":"x","k":1}})", {});
    const QString b = RunComparison::normalisedInput(
        R"({"command":"ls -l","nested":{"k":1,"id":"y"},"task_id":"t2","shell_id":"s2"})", {});
    QCOMPARE(a, b);
    QVERIFY(!a.contains(QLatin1String("t1")));
    QVERIFY(RunComparison::normalisedInput(R"({"command":"ls"})", {})
        != RunComparison::normalisedInput(R"({"command":"ls -a"})", {}));
}

void TestRunComparison::commonSubsequenceIsLongest()
{
    QRandomGenerator random(14);
    for (int round = 0; round < 300; ++round) {
        QVector<int> a(random.bounded(0, 40));
        QVector<int> b(random.bounded(0, 40));
        const int alphabet = random.bounded(1, 6);
        for (int &x : a)
            x = random.bounded(alphabet);
        for (int &x : b)
            x = random.bounded(alphabet);
        bool exact = false;
        const auto pairs = RunComparison::commonSubsequence(a, b, 1000, &exact);
        QVERIFY(exact);
        QVERIFY(isCommonSubsequence(a, b, pairs));
        QCOMPARE(int(pairs.size()), lcsLength(a, b));
    }
}

void TestRunComparison::fallbackStaysACommonSubsequence()
{
    QRandomGenerator random(41);
    QVector<int> a(3000);
    QVector<int> b(3000);
    for (int &x : a)
        x = random.bounded(50);
    for (int &x : b)
        x = random.bounded(50);
    bool exact = true;
    const auto pairs = RunComparison::commonSubsequence(a, b, 20, &exact);
    QVERIFY(!exact);
    QVERIFY(isCommonSubsequence(a, b, pairs));
    QVERIFY(!pairs.isEmpty());
    // Identical runs never need the fallback, however long.
    const auto same = RunComparison::commonSubsequence(a, a, 0, &exact);
    QVERIFY(exact);
    QCOMPARE(same.size(), a.size());
}

void TestRunComparison::subAgentCallsAlignOnlyAtTheirDepth()
{
    const ComparedRun run = load(dataDir + QStringLiteral("/stream-subagent.jsonl"));
    QCOMPARE(run.calls.size(), 2);
    QCOMPARE(run.calls.at(0).depth, 0); // the Agent call
    QCOMPARE(run.calls.at(1).depth, 1); // the sub-agent's call
    // The sub-agent's call moved to the main thread is not the same call.
    ComparedRun flat = run;
    flat.calls[1].depth = 0;
    const RunComparison comparison = RunComparison::compare(run, flat);
    QCOMPARE(comparison.count(RunComparison::State::Same), 1);
    QCOMPARE(comparison.count(RunComparison::State::Removed), 1);
    QCOMPARE(comparison.count(RunComparison::State::Added), 1);
}

void TestRunComparison::comparisonModel()
{
    const QString original = dataDir + QStringLiteral("/transcripts/resume/stream.jsonl");
    const Attempt attempt = makeSecondAttempt(fileLines(original));
    QTemporaryDir dir;
    const QString second = dir.filePath(QStringLiteral("second.jsonl"));
    QVERIFY(writeLines(second, attempt.lines));
    ComparedRun a = load(original);
    // One call the same on both sides too.
    ComparedRun b = load(second);
    ComparedCall shared;
    shared.toolName = QStringLiteral("Glob");
    shared.input = QStringLiteral(R"({"pattern":"*"})");
    a.calls.prepend(shared);
    b.calls.prepend(shared);

    RunComparisonModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QCOMPARE(model.rowCount(), 0);
    model.setComparison(RunComparison::compare(a, b));
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.columnCount(), int(RunComparisonModel::ColumnCount));
    QCOMPARE(model.index(0, 0).data(RunComparisonModel::StateRole).toInt(),
        int(RunComparison::State::Same));
    QCOMPARE(
        model.index(0, RunComparisonModel::LeftColumn).data().toString(), QStringLiteral("Glob"));
    QSet<int> states;
    for (int row = 0; row < model.rowCount(); ++row) {
        const QModelIndex index = model.index(row, 0);
        const int state = index.data(RunComparisonModel::StateRole).toInt();
        states << state;
        const int left = index.data(RunComparisonModel::LeftCallRole).toInt();
        const int right = index.data(RunComparisonModel::RightCallRole).toInt();
        QCOMPARE(left < 0, state == int(RunComparison::State::Added));
        QCOMPARE(right < 0, state == int(RunComparison::State::Removed));
        QCOMPARE(
            model.index(row, RunComparisonModel::LeftColumn).data().toString().isEmpty(), left < 0);
        if (state == int(RunComparison::State::Changed))
            QCOMPARE(model.index(row, RunComparisonModel::DiffersColumn).data().toString(),
                QStringLiteral("input"));
    }
    QCOMPARE(states.size(), 4);
    model.setDifferencesOnly(true);
    QCOMPARE(model.rowCount(), 3);
    for (int row = 0; row < model.rowCount(); ++row)
        QVERIFY(model.index(row, 0).data(RunComparisonModel::StateRole).toInt()
            != int(RunComparison::State::Same));
    model.setDifferencesOnly(false);
    QCOMPARE(model.rowCount(), 4);
    model.setComparison(RunComparison());
    QCOMPARE(model.rowCount(), 0);
}

void TestRunComparison::touchedFilesModel()
{
    ComparedRun a;
    ComparedRun b;
    ComparedCall read;
    read.toolName = QStringLiteral("Read");
    read.filePath = QStringLiteral("<cwd>/a.txt");
    ComparedCall edit = read;
    edit.toolName = QStringLiteral("Edit");
    ComparedCall write;
    write.toolName = QStringLiteral("Write");
    write.filePath = QStringLiteral("<cwd>/b.txt");
    a.calls = {read, edit, read};
    b.calls = {read, write};
    const RunComparison comparison = RunComparison::compare(a, b);

    TouchedFilesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setFiles(comparison.files());
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(0, TouchedFilesModel::PathColumn).data().toString(),
        QStringLiteral("<cwd>/a.txt"));
    QCOMPARE(model.index(0, TouchedFilesModel::LeftColumn).data().toString(),
        QStringLiteral("Read, Edit"));
    QCOMPARE(
        model.index(0, TouchedFilesModel::RightColumn).data().toString(), QStringLiteral("Read"));
    QCOMPARE(model.index(0, 0).data(TouchedFilesModel::SidesRole).toInt(), 3);
    QCOMPARE(model.index(1, 0).data(TouchedFilesModel::SidesRole).toInt(), 2);
    model.setFiles({});
    QCOMPARE(model.rowCount(), 0);
}

// The Compare tab shows a path or command that would reorder (U+202E), hide (a tag character) or
// break its row visibly; the comparison itself keeps the exact text (issue 27).
void TestRunComparison::hostileNamesAreShownVisibly()
{
    ComparedCall read;
    read.toolName = QStringLiteral("Read");
    read.filePath = QStringLiteral("<cwd>/invoice");
    read.filePath.append(QChar(0x202e)).append(QStringLiteral("fdp.exe\nx"));
    read.filePath.append(QString::fromUcs4(U"\U000E0041"));
    read.summary = read.filePath;
    ComparedRun a;
    a.calls = {read};
    const RunComparison comparison = RunComparison::compare(a, a);
    const QString shown = QStringLiteral("<cwd>/invoice<U+202E>fdp.exe<U+000A>x<U+E0041>");

    TouchedFilesModel files;
    files.setFiles(comparison.files());
    QCOMPARE(files.index(0, TouchedFilesModel::PathColumn).data().toString(), shown);
    RunComparisonModel calls;
    calls.setComparison(comparison);
    QCOMPARE(calls.index(0, RunComparisonModel::LeftColumn).data().toString(),
        QStringLiteral("Read: ") + shown);
    QCOMPARE(comparison.files().at(0).path, read.filePath);
}

void TestRunComparison::verbExitCodes()
{
    const QString a = dataDir + QStringLiteral("/stream-basic.jsonl");
    const QString b = dataDir + QStringLiteral("/stream-maxturns.jsonl");
    QCOMPARE(runSandscope({QStringLiteral("compare"), a, a}).exitCode, 0);
    const Outcome differ = runSandscope({QStringLiteral("compare"), a, b});
    QCOMPARE(differ.exitCode, 1);
    QVERIFY(differ.out.contains("Outcome:"));
    QCOMPARE(runSandscope({QStringLiteral("compare"), a}).exitCode, 2);
    QCOMPARE(runSandscope({QStringLiteral("compare")}).exitCode, 2);
    QCOMPARE(runSandscope({QStringLiteral("compare"), a, a, a}).exitCode, 2);
    QCOMPARE(
        runSandscope({QStringLiteral("compare"), a, a, QStringLiteral("--bogus")}).exitCode, 2);
    const Outcome help = runSandscope({QStringLiteral("compare"), QStringLiteral("--help")});
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.contains("Usage: sandscope compare"));
    QVERIFY(runSandscope({QStringLiteral("--help")}).out.contains("compare"));
    // session: needs a server and a user.
    QCOMPARE(
        runSandscope({QStringLiteral("compare"), QStringLiteral("session:abc"), a}).exitCode, 2);
    const Outcome missing = runSandscope(
        {QStringLiteral("compare"), a, dataDir + QStringLiteral("/no-such-run.jsonl")});
    QCOMPARE(missing.exitCode, 2);
    QVERIFY(missing.err.contains("no-such-run.jsonl"));
}

void TestRunComparison::verbRefusesWhatIsNotARun_data()
{
    QTest::addColumn<QByteArray>("content");
    static const char png[] = "\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10";
    QTest::newRow("png") << QByteArray(png, sizeof png - 1);
    QTest::newRow("html") << QByteArray("<!DOCTYPE html>\n<html><body><p>Hi</p></body></html>\n");
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("other json") << QByteArray("{\"name\":\"pkg\",\"version\":\"1.0.0\"}\n");
}

void TestRunComparison::verbRefusesWhatIsNotARun()
{
    QFETCH(QByteArray, content);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("not-a-run.jsonl"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(content);
    file.close();
    const QString run = dataDir + QStringLiteral("/stream-basic.jsonl");
    for (const QStringList &order : {QStringList {run, path}, QStringList {path, run}}) {
        const Outcome outcome = runSandscope(QStringList {QStringLiteral("compare")} + order);
        QCOMPARE(outcome.exitCode, 2);
        QVERIFY2(outcome.err.contains("not a Claude Code run"), outcome.err.constData());
        QVERIFY(outcome.err.contains("not-a-run.jsonl"));
        QVERIFY(outcome.out.isEmpty());
    }
}

void TestRunComparison::verbComparesATruncatedFile()
{
    const QString original = dataDir + QStringLiteral("/transcripts/resume/stream.jsonl");
    QFile file(original);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    // Cut in the middle of the last line (the second turn's result).
    const int lastLine = int(bytes.lastIndexOf('\n', bytes.size() - 2)) + 1;
    QTemporaryDir dir;
    const QString cut = dir.filePath(QStringLiteral("cut.jsonl"));
    QFile out(cut);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(bytes.left(lastLine + 40));
    out.close();
    const int lineNumber = int(bytes.left(lastLine).count('\n')) + 1;

    const Outcome outcome
        = runSandscope({QStringLiteral("compare"), original, cut, QStringLiteral("--json")});
    QCOMPARE(outcome.exitCode, 1); // the cut run has no second result
    QVERIFY2(outcome.err.contains(QStringLiteral("line %1").arg(lineNumber).toUtf8()),
        outcome.err.constData());
    const QJsonObject json = QJsonDocument::fromJson(outcome.out).object();
    const QJsonArray skipped
        = json.value(QStringLiteral("right")).toObject().value(QStringLiteral("skipped")).toArray();
    QCOMPARE(skipped.size(), 1);
    // Every call is still there and the same: only the outcome differs.
    QCOMPARE(json.value(QStringLiteral("counts")).toObject().value(QStringLiteral("same")).toInt(),
        toolUseIds(original).size());
    QCOMPARE(json.value(QStringLiteral("differences")).toArray().size(), 0);
    QCOMPARE(runSandscope({QStringLiteral("compare"), cut, cut}).exitCode, 0);
}

QTEST_GUILESS_MAIN(TestRunComparison)
#include "tst_runcomparison.moc"
