// RunFilterProxy over the RunModel of real captures, under QAbstractItemModelTester: a search
// keeps the matching nodes and all of their ancestors and nothing else; every word must match;
// clearing restores the full tree in source order; "errors only" keeps retries, API errors and
// failed calls (from the capture JSON) with their ancestors; filters stay correct while
// events keep arriving.

#include "capturelines.h"
#include "runtree/runfilterproxy.h"
#include "runtree/runmodel.h"
#include "runtree/runnodedetails.h"
#include "streamjson/runparser.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QtTest/QTest>

#include <algorithm>
#include <functional>
#include <memory>

using namespace sandscope;
using Kind = RunModel::NodeKind;

namespace {

using sandscope::test::capture::captureLines;

void load(RunModel &model, const QList<QByteArray> &lines)
{
    RunParser parser;
    qint64 clock = 1000;
    for (const QByteArray &line : lines)
        model.addEvents(parser.parseLine(line, clock += 10));
    model.markRunEnded(clock);
}

void forEachIndex(const QAbstractItemModel *model, const QModelIndex &parent,
    const std::function<void(const QModelIndex &)> &visit)
{
    for (int row = 0; row < model->rowCount(parent); ++row) {
        const QModelIndex index = model->index(row, 0, parent);
        visit(index);
        forEachIndex(model, index, visit);
    }
}

// Each visible node as "depth|summary", in view order.
QStringList outline(const QAbstractItemModel *model)
{
    QStringList lines;
    forEachIndex(model, QModelIndex(), [&lines](const QModelIndex &index) {
        int depth = 0;
        for (QModelIndex parent = index.parent(); parent.isValid(); parent = parent.parent())
            ++depth;
        lines.append(QString::number(depth) + QLatin1Char('|') + index.data().toString());
    });
    return lines;
}

// What a user can read about a node: its row text, its full text and every detail text.
bool nodeMentions(const QModelIndex &index, const QString &word)
{
    const auto details = index.data(RunModel::DetailRole).value<RunNodeDetails>();
    const ToolInput &input = details.input;
    const QStringList texts {index.data().toString(), index.data(RunModel::TextRole).toString(),
        details.text, details.model, details.errorCode, details.toolName, details.toolUseId,
        details.output, input.command, input.description, input.filePath, input.oldString,
        input.newString, input.content, input.pattern, input.path, input.url, input.query,
        input.prompt, input.subagentType, details.task.taskId, details.task.status,
        details.task.summary, details.task.outputFile};
    return texts.join(QLatin1Char('\n')).contains(word, Qt::CaseInsensitive);
}

// An empty model under an "errors only" proxy, checked by QAbstractItemModelTester.
struct ErrorsOnly {
    RunModel model;
    RunFilterProxy proxy;
    QAbstractItemModelTester tester {&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal};
    ErrorsOnly()
    {
        proxy.setSourceModel(&model);
        proxy.setErrorsOnly(true);
    }
};

} // namespace

class TestRunFilterProxy : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void searchKeepsMatchesAndTheirAncestorsOnly_data();
    void searchKeepsMatchesAndTheirAncestorsOnly();
    void everyWordMustMatch();
    void noMatchLeavesNothing();
    void clearingRestoresTheFullTreeInOrder();
    void errorsOnlyKeepsTheCapturesErrors_data();
    void errorsOnlyKeepsTheCapturesErrors();
    void errorsOnlyAndSearchCombine();
    void filtersFollowLiveEvents();
    void everyLineLeavesTheTreeAFreshFilterGives_data();
    void everyLineLeavesTheTreeAFreshFilterGives();
    void aNodeThatStopsMatchingGoesWithTheAncestorsItKept();
    void typingOnAndDeletingBackMatchFreshFilters();
    void keptResultsAreBoundedByTheNodesTheyShow_data();
    void keptResultsAreBoundedByTheNodesTheyShow();
    void searchTextsArePreparedInSlices();
    void anOlderNodeThatStartsMatchingIsShownInItsPlace();
    void filterChangedIsSignalledOncePerChange();
    void matchCountCountsTheNodesThatMatch();
    void twoProxiesOfOneModelKeepTheirOwnFilters();
    void nodesKeepTheSearchTextOfSearchableText();
    void onlyNodesThatCannotShowChildrenSayTheyNeverHaveAny();
    void aRunOfManyTurnsIsFilteredInOrder_data();
    void aRunOfManyTurnsIsFilteredInOrder();
    void aSlicedFilterShowsWhatAPlainOneShows_data();
    void aSlicedFilterShowsWhatAPlainOneShows();
    void aChangeInATurnJudgedButNotShownIsShown();
};

void TestRunFilterProxy::searchKeepsMatchesAndTheirAncestorsOnly_data()
{
    QTest::addColumn<QString>("capture");
    QTest::addColumn<QString>("word");
    QTest::newRow("sub-agent command")
        << QStringLiteral("stream-subagent.jsonl") << QStringLiteral("echo SUB");
    QTest::newRow("tool output") << QStringLiteral("stream-basic.jsonl") << QStringLiteral("hi");
    QTest::newRow("api error text")
        << QStringLiteral("stream-err-401.jsonl") << QStringLiteral("api key");
    QTest::newRow("partial capture")
        << QStringLiteral("stream-partial.jsonl") << QStringLiteral("think");
}

void TestRunFilterProxy::searchKeepsMatchesAndTheirAncestorsOnly()
{
    QFETCH(QString, capture);
    QFETCH(QString, word);
    RunModel model;
    load(model, captureLines(capture));
    RunFilterProxy proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    proxy.setSourceModel(&model);
    proxy.setSearchText(word);

    // Expected from the source: a node is visible when it or a descendant mentions the word.
    QSet<QString> expected;
    std::function<bool(const QModelIndex &)> collect = [&](const QModelIndex &index) {
        bool keep = nodeMentions(index, word);
        for (int row = 0; row < model.rowCount(index); ++row)
            keep = collect(model.index(row, 0, index)) || keep;
        if (keep)
            expected.insert(QString::number(index.data(RunModel::LineNumberRole).toLongLong())
                + QLatin1Char('|') + index.data().toString());
        return keep;
    };
    collect(model.index(0, 0));
    QVERIFY(expected.size() > 1);

    QSet<QString> visible;
    forEachIndex(&proxy, QModelIndex(), [&](const QModelIndex &index) {
        visible.insert(QString::number(index.data(RunModel::LineNumberRole).toLongLong())
            + QLatin1Char('|') + index.data().toString());
        // Ancestors are there: the parent of every visible node is visible.
        if (index.parent().isValid())
            QVERIFY(visible.contains(
                QString::number(index.parent().data(RunModel::LineNumberRole).toLongLong())
                + QLatin1Char('|') + index.parent().data().toString()));
    });
    QCOMPARE(visible, expected);
    int total = 0;
    forEachIndex(&model, QModelIndex(), [&total](const QModelIndex &) { ++total; });
    QVERIFY(visible.size() < total);
}

void TestRunFilterProxy::everyWordMustMatch()
{
    RunModel model;
    load(model, captureLines(QStringLiteral("stream-subagent.jsonl")));
    RunFilterProxy proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    proxy.setSourceModel(&model);
    proxy.setSearchText(QStringLiteral("  subtask   echo "));
    QCOMPARE(proxy.searchText(), QStringLiteral("subtask echo"));
    QStringList leaves;
    forEachIndex(&proxy, QModelIndex(), [&](const QModelIndex &index) {
        if (proxy.rowCount(index) == 0)
            leaves.append(index.data().toString());
    });
    // The sub-agent's prompt line holds both words; the Bash call "echo sub" only one.
    QCOMPARE(leaves, QStringList {QStringLiteral("Prompt: SUBTASK: run echo sub")});
}

void TestRunFilterProxy::noMatchLeavesNothing()
{
    RunModel model;
    load(model, captureLines(QStringLiteral("stream-basic.jsonl")));
    RunFilterProxy proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    proxy.setSourceModel(&model);
    proxy.setSearchText(QStringLiteral("no-such-text-anywhere"));
    QCOMPARE(proxy.rowCount(), 0);
}

void TestRunFilterProxy::clearingRestoresTheFullTreeInOrder()
{
    RunModel model;
    load(model, captureLines(QStringLiteral("stream-subagent-forward.jsonl")));
    RunFilterProxy proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    proxy.setSourceModel(&model);
    const QStringList full = outline(&model);
    QCOMPARE(outline(&proxy), full);
    proxy.setSearchText(QStringLiteral("sub"));
    proxy.setErrorsOnly(true);
    QVERIFY(outline(&proxy) != full);
    proxy.setErrorsOnly(false);
    proxy.setSearchText(QString());
    QVERIFY(!proxy.isFiltering());
    QCOMPARE(outline(&proxy), full);
}

void TestRunFilterProxy::errorsOnlyKeepsTheCapturesErrors_data()
{
    QTest::addColumn<QString>("capture");
    QTest::newRow("err-401") << QStringLiteral("stream-err-401.jsonl");
    QTest::newRow("err-529") << QStringLiteral("stream-err-529.jsonl");
    QTest::newRow("sigterm") << QStringLiteral("stream-sigterm.jsonl");
    QTest::newRow("maxturns") << QStringLiteral("stream-maxturns.jsonl");
    QTest::newRow("basic (none)") << QStringLiteral("stream-basic.jsonl");
}

void TestRunFilterProxy::errorsOnlyKeepsTheCapturesErrors()
{
    QFETCH(QString, capture);
    const QList<QByteArray> lines = captureLines(capture);
    // Lines reporting trouble: api_retry, synthetic API error messages, failed results and
    // failed tool results (counted at their tool_use line, where the call's node starts).
    QHash<QString, qint64> toolUseLine;
    QList<qint64> expected;
    for (int i = 0; i < lines.size(); ++i) {
        const QJsonObject json = QJsonDocument::fromJson(lines[i]).object();
        const QString type = json.value(QLatin1String("type")).toString();
        if (json.value(QLatin1String("subtype")) == QLatin1String("api_retry"))
            expected.append(i + 1);
        if (type == QLatin1String("assistant")
            && json.value(QLatin1String("is_api_error_message")).toBool())
            expected.append(i + 1);
        if (type == QLatin1String("result") && json.value(QLatin1String("is_error")).toBool())
            expected.append(i + 1);
        for (const QJsonValue &value : json.value(QLatin1String("message"))
                                           .toObject()
                                           .value(QLatin1String("content"))
                                           .toArray()) {
            const QJsonObject block = value.toObject();
            if (block.value(QLatin1String("type")) == QLatin1String("tool_use"))
                toolUseLine.insert(block.value(QLatin1String("id")).toString(), i + 1);
            if (block.value(QLatin1String("type")) == QLatin1String("tool_result")
                && block.value(QLatin1String("is_error")).toBool())
                expected.append(
                    toolUseLine.value(block.value(QLatin1String("tool_use_id")).toString()));
        }
    }
    std::sort(expected.begin(), expected.end());

    RunModel model;
    load(model, lines);
    RunFilterProxy proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    proxy.setSourceModel(&model);
    proxy.setErrorsOnly(true);
    QList<qint64> shownErrors;
    forEachIndex(&proxy, QModelIndex(), [&](const QModelIndex &index) {
        const auto kind = Kind(index.data(RunModel::KindRole).toInt());
        if (kind == Kind::Run || kind == Kind::Turn)
            return; // the ancestors that keep the errors reachable
        shownErrors.append(index.data(RunModel::LineNumberRole).toLongLong());
    });
    std::sort(shownErrors.begin(), shownErrors.end());
    QCOMPARE(shownErrors, expected);
    if (expected.isEmpty())
        QCOMPARE(proxy.rowCount(), 0);
}

void TestRunFilterProxy::errorsOnlyAndSearchCombine()
{
    RunModel model;
    load(model, captureLines(QStringLiteral("stream-err-401.jsonl")));
    RunFilterProxy proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    proxy.setSourceModel(&model);
    proxy.setErrorsOnly(true);
    proxy.setSearchText(QStringLiteral("retry"));
    QStringList kinds;
    forEachIndex(&proxy, QModelIndex(), [&](const QModelIndex &index) {
        if (proxy.rowCount(index) == 0)
            kinds.append(QString::number(index.data(RunModel::KindRole).toInt()));
    });
    const QString retry = QString::number(int(Kind::ApiRetry));
    QCOMPARE(kinds, QStringList({retry, retry}));
}

void TestRunFilterProxy::filtersFollowLiveEvents()
{
    const QList<QByteArray> lines = captureLines(QStringLiteral("stream-subagent.jsonl"));
    RunModel reference;
    load(reference, lines);
    RunFilterProxy referenceProxy;
    referenceProxy.setSourceModel(&reference);
    referenceProxy.setSearchText(QStringLiteral("sub"));

    // The same filter set before any event: the proxy follows every insert and change.
    RunModel model;
    RunFilterProxy proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    proxy.setSourceModel(&model);
    proxy.setSearchText(QStringLiteral("sub"));
    RunParser parser;
    qint64 clock = 1000;
    for (const QByteArray &line : lines)
        model.addEvents(parser.parseLine(line, clock += 10));
    model.markRunEnded(clock);
    QCOMPARE(outline(&proxy), outline(&referenceProxy));
}

// Live filtering row by row (new rows shown with the ancestors they bring, older nodes that
// start to match shown between their siblings) ends each line where filtering the same tree
// from scratch ends, with the same count.
void TestRunFilterProxy::everyLineLeavesTheTreeAFreshFilterGives_data()
{
    QTest::addColumn<QString>("capture");
    QTest::addColumn<QString>("search");
    QTest::addColumn<bool>("errorsOnly");
    const QDir data(QStringLiteral(SANDSCOPE_TEST_DATA_DIR));
    for (const QString &capture : data.entryList({QStringLiteral("stream-*.jsonl")})) {
        QTest::addRow("%s, a", qPrintable(capture)) << capture << QStringLiteral("a") << false;
        QTest::addRow("%s, bash", qPrintable(capture))
            << capture << QStringLiteral("bash") << false;
        QTest::addRow("%s, errors", qPrintable(capture)) << capture << QString() << true;
        QTest::addRow("%s, errors + e", qPrintable(capture))
            << capture << QStringLiteral("e") << true;
    }
}

void TestRunFilterProxy::everyLineLeavesTheTreeAFreshFilterGives()
{
    QFETCH(QString, capture);
    QFETCH(QString, search);
    QFETCH(bool, errorsOnly);
    RunModel model;
    RunFilterProxy proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    proxy.setSourceModel(&model);
    proxy.setSearchText(search);
    proxy.setErrorsOnly(errorsOnly);
    RunParser parser;
    qint64 clock = 1000;
    const QList<QByteArray> lines = captureLines(capture);
    QVERIFY(!lines.isEmpty());
    for (qsizetype i = 0; i <= lines.size(); ++i) {
        if (i < lines.size())
            model.addEvents(parser.parseLine(lines.at(i), clock += 10));
        else
            model.markRunEnded(clock);
        RunFilterProxy fresh;
        fresh.setSourceModel(&model);
        fresh.setSearchText(search);
        fresh.setErrorsOnly(errorsOnly);
        QCOMPARE(outline(&proxy), outline(&fresh));
        QCOMPARE(proxy.matchCount(), fresh.matchCount());
    }
}

// Typing on narrows from what was shown, deleting goes back to a kept result: both must end
// where a fresh filter ends, also when the run grew in between (kept results are stale then).
void TestRunFilterProxy::typingOnAndDeletingBackMatchFreshFilters()
{
    const QList<QByteArray> lines = captureLines(QStringLiteral("stream-subagent.jsonl"));
    RunModel model;
    RunParser parser;
    qint64 clock = 1000;
    const qsizetype half = lines.size() / 2;
    for (qsizetype i = 0; i < half; ++i)
        model.addEvents(parser.parseLine(lines.at(i), clock += 10));
    RunFilterProxy proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    proxy.setSourceModel(&model);
    const auto matchesFresh = [&] {
        RunFilterProxy fresh;
        fresh.setSourceModel(&model);
        fresh.setSearchText(proxy.searchText());
        fresh.setErrorsOnly(proxy.errorsOnly());
        return outline(&proxy) == outline(&fresh) && proxy.matchCount() == fresh.matchCount();
    };
    const QStringList steps {QStringLiteral("e"), QStringLiteral("ec"), QStringLiteral("ech"),
        QStringLiteral("echo"), QStringLiteral("echo s"), QStringLiteral("echo"),
        QStringLiteral("ech"), QStringLiteral("e"), QString(), QStringLiteral("s"),
        QStringLiteral("su"), QStringLiteral("s")};
    for (const QString &step : steps) {
        proxy.setSearchText(step);
        QVERIFY2(matchesFresh(), qPrintable(step));
    }
    proxy.setSearchText(QStringLiteral("sub"));
    for (qsizetype i = half; i < lines.size(); ++i) // the run grows under "sub"
        model.addEvents(parser.parseLine(lines.at(i), clock += 10));
    for (const QString &step : {QStringLiteral("su"), QStringLiteral("s"), QString()}) {
        proxy.setSearchText(step); // kept results of "su" and "s" are from the shorter run
        QVERIFY2(matchesFresh(), qPrintable(step));
    }
    proxy.setErrorsOnly(true);
    QVERIFY(matchesFresh());
    proxy.setSearchText(QStringLiteral("a"));
    QVERIFY(matchesFresh());
    proxy.setErrorsOnly(false);
    QVERIFY(matchesFresh());
}

// Kept results are bounded by the nodes they show, the latest first: as many as fit in the
// limit (a table entry per shown node and the root), never more than four.
void TestRunFilterProxy::keptResultsAreBoundedByTheNodesTheyShow_data()
{
    QTest::addColumn<int>("fitting"); // how many of the latest results the limit holds
    QTest::newRow("none") << 0;
    QTest::newRow("the latest") << 1;
    QTest::newRow("the two latest") << 2;
    QTest::newRow("four at most") << 5;
}

void TestRunFilterProxy::keptResultsAreBoundedByTheNodesTheyShow()
{
    QFETCH(int, fitting);
    const QList<QByteArray> lines = captureLines(QStringLiteral("stream-subagent.jsonl"));
    RunModel model;
    RunParser parser;
    qint64 clock = 1000;
    for (const QByteArray &line : lines)
        model.addEvents(parser.parseLine(line, clock += 10));
    const QStringList searches {QStringLiteral("a"), QStringLiteral("e"), QStringLiteral("s"),
        QStringLiteral("t"), QStringLiteral("o")};
    // What each result holds: its shown nodes and the root.
    const auto shownBy = [&model](const QString &search) {
        RunFilterProxy alone;
        alone.setSourceModel(&model);
        alone.setSearchText(search);
        std::function<int(const QModelIndex &)> count = [&](const QModelIndex &parent) {
            int nodes = alone.rowCount(parent);
            for (int row = 0; row < alone.rowCount(parent); ++row)
                nodes += count(alone.index(row, 0, parent));
            return nodes;
        };
        return 1 + count({});
    };
    int limit = 0;
    for (int i = 0; i < std::min<int>(fitting, searches.size()); ++i)
        limit += shownBy(searches.at(searches.size() - 1 - i));
    RunFilterProxy proxy;
    proxy.setSourceModel(&model);
    proxy.setRememberedNodesLimit(limit);
    for (const QString &search : searches)
        proxy.setSearchText(search);
    proxy.setSearchText(QStringLiteral("zzqqzz")); // the others are kept, or not
    QCOMPARE(proxy.matchCount(), 0);
    for (int i = 0; i < searches.size(); ++i) {
        const int fromLatest = int(searches.size()) - 1 - i;
        const bool expected = fromLatest < std::min(fitting, 4);
        QVERIFY2(shownBy(searches.at(i)) > 1, qPrintable(searches.at(i)));
        QVERIFY2(
            proxy.filterPrepared(searches.at(i), false) == expected, qPrintable(searches.at(i)));
    }
}

// prepareSearchTexts() goes on where it stopped and ends; a reset starts it again.
void TestRunFilterProxy::searchTextsArePreparedInSlices()
{
    RunModel model;
    for (int i = 0; i < 1000; ++i) { // over 256 nodes: more than one slice
        RunEvent text;
        text.kind = RunEvent::AssistantText;
        text.text = QStringLiteral("text %1").arg(i);
        model.addEvent(text);
    }
    RunFilterProxy proxy;
    proxy.setSourceModel(&model);
    int slices = 1;
    while (!proxy.prepareSearchTexts(0))
        ++slices;
    QVERIFY(slices > 1);
    QVERIFY(proxy.searchTextsPrepared());
    model.beginRebuild();
    model.endRebuild();
    QVERIFY(!proxy.searchTextsPrepared());
    QVERIFY(proxy.prepareSearchTexts(60'000));
    proxy.releaseSearchTexts();
    QVERIFY(!proxy.searchTextsPrepared());
}

// A failed call answered again without the error (the CLI can repeat a tool_result): under
// "errors only" it goes, and so do its turn and the run, kept only for it.
void TestRunFilterProxy::aNodeThatStopsMatchingGoesWithTheAncestorsItKept()
{
    ErrorsOnly filtered;
    RunModel &model = filtered.model;
    RunFilterProxy &proxy = filtered.proxy;
    RunEvent call;
    call.kind = RunEvent::ToolUse;
    call.toolName = QStringLiteral("Bash");
    call.toolUseId = QStringLiteral("toolu_1");
    RunEvent failed;
    failed.kind = RunEvent::ToolResult;
    failed.toolUseId = call.toolUseId;
    failed.isError = true;
    failed.resultText = QStringLiteral("exit 1");
    RunEvent answered = failed;
    answered.isError = false;
    model.addEvent(call);
    QCOMPARE(proxy.rowCount(), 0);
    model.addEvent(failed);
    QCOMPARE(proxy.matchCount(), 1);
    const QModelIndex run = proxy.index(0, 0);
    QVERIFY(run.isValid());
    QCOMPARE(proxy.rowCount(run), 1); // the turn
    QSignalSpy removed(&proxy, &QAbstractItemModel::rowsRemoved);
    model.addEvent(answered);
    QCOMPARE(proxy.matchCount(), 0);
    QCOMPARE(proxy.rowCount(), 0);
    QCOMPARE(removed.count(), 3); // the call, its turn, the run
}

// Two parallel calls: the second fails first, then the first; under "errors only" the first
// comes back above the second, where it is in the run.
void TestRunFilterProxy::anOlderNodeThatStartsMatchingIsShownInItsPlace()
{
    ErrorsOnly filtered;
    RunModel &model = filtered.model;
    RunFilterProxy &proxy = filtered.proxy;
    auto call = [](const QString &id, const QString &command) {
        RunEvent event;
        event.kind = RunEvent::ToolUse;
        event.toolName = QStringLiteral("Bash");
        event.toolUseId = id;
        event.input.command = command;
        return event;
    };
    auto failure = [](const QString &id) {
        RunEvent event;
        event.kind = RunEvent::ToolResult;
        event.toolUseId = id;
        event.isError = true;
        return event;
    };
    model.addEvent(call(QStringLiteral("toolu_a"), QStringLiteral("first")));
    model.addEvent(call(QStringLiteral("toolu_b"), QStringLiteral("second")));
    model.addEvent(failure(QStringLiteral("toolu_b")));
    model.addEvent(failure(QStringLiteral("toolu_a")));
    const QModelIndex turn = proxy.index(0, 0, proxy.index(0, 0));
    QCOMPARE(proxy.rowCount(turn), 2);
    QCOMPARE(proxy.index(0, 0, turn).data(RunModel::ToolUseIdRole).toString(),
        QStringLiteral("toolu_a"));
    QCOMPARE(proxy.index(1, 0, turn).data(RunModel::ToolUseIdRole).toString(),
        QStringLiteral("toolu_b"));
    QCOMPARE(proxy.mapFromSource(model.indexForToolUseId(QStringLiteral("toolu_b"))).row(), 1);
}

void TestRunFilterProxy::filterChangedIsSignalledOncePerChange()
{
    RunFilterProxy proxy;
    QSignalSpy changed(&proxy, &RunFilterProxy::filterChanged);
    proxy.setSearchText(QStringLiteral("a"));
    proxy.setSearchText(QStringLiteral(" a "));
    proxy.setErrorsOnly(true);
    proxy.setErrorsOnly(true);
    QCOMPARE(changed.count(), 2);
}

// The count the run page shows: nodes that match on their own (not their kept ancestors),
// over the whole run, following live events.
void TestRunFilterProxy::matchCountCountsTheNodesThatMatch()
{
    const QList<QByteArray> lines = captureLines(QStringLiteral("stream-subagent.jsonl"));
    RunModel model;
    RunFilterProxy proxy;
    proxy.setSourceModel(&model);
    QCOMPARE(proxy.matchCount(), 0); // not filtering
    RunParser parser;
    qint64 clock = 1000;
    const qsizetype half = lines.size() / 2;
    auto expected = [&](const std::function<bool(const QModelIndex &)> &matches) {
        int count = 0;
        forEachIndex(&model, QModelIndex(),
            [&](const QModelIndex &index) { count += matches(index) ? 1 : 0; });
        return count;
    };
    auto mentionsBash = [](const QModelIndex &index) {
        return RunFilterProxy::searchableText(index).contains(
            QLatin1String("bash"), Qt::CaseInsensitive);
    };
    for (qsizetype i = 0; i < half; ++i)
        model.addEvents(parser.parseLine(lines.at(i), clock += 10));
    proxy.setSearchText(QStringLiteral("BASH"));
    QCOMPARE(proxy.matchCount(), expected(mentionsBash));
    for (qsizetype i = half; i < lines.size(); ++i)
        model.addEvents(parser.parseLine(lines.at(i), clock += 10));
    model.markRunEnded(clock);
    QVERIFY(expected(mentionsBash) > 0);
    QCOMPARE(proxy.matchCount(), expected(mentionsBash));

    proxy.setSearchText(QString());
    proxy.setErrorsOnly(true);
    QCOMPARE(proxy.matchCount(), expected(&RunFilterProxy::isErrorIndex));
    proxy.setSearchText(QStringLiteral("bash"));
    QCOMPARE(proxy.matchCount(), expected([&](const QModelIndex &index) {
        return RunFilterProxy::isErrorIndex(index) && mentionsBash(index);
    }));
    proxy.setSearchText(QStringLiteral("no such text anywhere"));
    QCOMPARE(proxy.matchCount(), 0);
}

// Verdicts are kept on the model's nodes per filter: two proxies never read each other's.
void TestRunFilterProxy::twoProxiesOfOneModelKeepTheirOwnFilters()
{
    const QList<QByteArray> lines = captureLines(QStringLiteral("stream-subagent.jsonl"));
    RunModel model;
    load(model, lines);
    RunFilterProxy first;
    RunFilterProxy second;
    first.setSourceModel(&model);
    second.setSourceModel(&model);
    first.setSearchText(QStringLiteral("sub"));
    second.setErrorsOnly(true);

    RunModel firstModel;
    load(firstModel, lines);
    RunFilterProxy firstReference;
    firstReference.setSourceModel(&firstModel);
    firstReference.setSearchText(QStringLiteral("sub"));
    RunModel secondModel;
    load(secondModel, lines);
    RunFilterProxy secondReference;
    secondReference.setSourceModel(&secondModel);
    secondReference.setErrorsOnly(true);
    for (int round = 0; round < 2; ++round) { // reading one proxy must not disturb the other
        QCOMPARE(outline(&first), outline(&firstReference));
        QCOMPARE(outline(&second), outline(&secondReference));
        QCOMPARE(first.matchCount(), firstReference.matchCount());
        QCOMPARE(second.matchCount(), secondReference.matchCount());
    }
}

// RunModel builds the text a search looks at from the node itself: the same as
// searchableText, case-folded, also after the node changed.
void TestRunFilterProxy::nodesKeepTheSearchTextOfSearchableText()
{
    RunModel model;
    RunParser parser;
    qint64 clock = 1000;
    const QList<QByteArray> lines = captureLines(QStringLiteral("stream-subagent.jsonl"));
    auto check = [&] {
        int nodes = 0;
        forEachIndex(&model, QModelIndex(), [&](const QModelIndex &index) {
            ++nodes;
            QCOMPARE(model.foldedSearchText(index),
                RunFilterProxy::searchableText(index).toCaseFolded().toUtf8());
        });
        return nodes;
    };
    for (qsizetype i = 0; i < lines.size(); ++i) {
        model.addEvents(parser.parseLine(lines.at(i), clock += 10));
        if (i % 3 == 0)
            check(); // cached now; later lines change some of these nodes
    }
    model.markRunEnded(clock);
    QVERIFY(check() > 5);
    model.dropSearchTexts();
    QVERIFY(check() > 5);
}

QTEST_GUILESS_MAIN(TestRunFilterProxy)
#include "tst_runfilterproxy.moc"

// A QTreeView neither expands nor lays out under a node that says it never has children
// (RunPage expands every match): say so only where no row can show up.
void TestRunFilterProxy::onlyNodesThatCannotShowChildrenSayTheyNeverHaveAny()
{
    ErrorsOnly filtered;
    RunModel &model = filtered.model;
    RunFilterProxy &proxy = filtered.proxy;
    const auto never = [](const QModelIndex &index) {
        return index.flags().testFlag(Qt::ItemNeverHasChildren);
    };
    RunEvent agent;
    agent.kind = RunEvent::ToolUse;
    agent.toolName = QStringLiteral("Agent");
    agent.toolUseId = QStringLiteral("toolu_agent");
    model.addEvent(agent);
    RunEvent text;
    text.kind = RunEvent::AssistantText;
    text.text = QStringLiteral("looking");
    model.addEvent(text);
    // Unfiltered, the model's own flags: text can never get children, a tool call can.
    const QModelIndex turn = proxy.index(0, 0, proxy.index(0, 0));
    QCOMPARE(proxy.rowCount(turn), 0); // errors only: nothing failed yet
    proxy.setErrorsOnly(false);
    const QModelIndex shownTurn = proxy.index(0, 0, proxy.index(0, 0));
    QCOMPARE(proxy.rowCount(shownTurn), 2);
    QVERIFY(!never(shownTurn));
    QVERIFY(!never(proxy.index(0, 0, shownTurn))); // the Agent call
    QVERIFY(never(proxy.index(1, 0, shownTurn))); // the text
    QVERIFY(model.flags(model.index(1, 0, model.index(0, 0, model.runIndex())))
                .testFlag(Qt::ItemNeverHasChildren));

    // Filtering: the failed Agent call is a shown leaf until a row under it is shown too.
    proxy.setErrorsOnly(true);
    RunEvent failed;
    failed.kind = RunEvent::ToolResult;
    failed.toolUseId = agent.toolUseId;
    failed.isError = true;
    model.addEvent(failed);
    const QModelIndex call = proxy.index(0, 0, proxy.index(0, 0, proxy.index(0, 0)));
    QCOMPARE(call.data(RunModel::ToolUseIdRole).toString(), agent.toolUseId);
    QVERIFY(never(call));
    QVERIFY(!never(proxy.index(0, 0, proxy.index(0, 0)))); // the turn shows the call
    RunEvent inner;
    inner.kind = RunEvent::ToolUse;
    inner.toolName = QStringLiteral("Bash");
    inner.toolUseId = QStringLiteral("toolu_inner");
    inner.parentToolUseId = agent.toolUseId;
    model.addEvent(inner);
    RunEvent innerFailed = failed;
    innerFailed.toolUseId = inner.toolUseId;
    innerFailed.parentToolUseId = agent.toolUseId;
    model.addEvent(innerFailed);
    QCOMPARE(proxy.rowCount(call), 1);
    QVERIFY(!never(call));
    QVERIFY(never(proxy.index(0, 0, call)));
}

void TestRunFilterProxy::aRunOfManyTurnsIsFilteredInOrder_data()
{
    QTest::addColumn<QStringList>("searches"); // typed one after the other
    QTest::addColumn<bool>("errorsOnly");
    QTest::newRow("typing on") << QStringList {QStringLiteral("e"), QStringLiteral("ec"),
        QStringLiteral("ech"), QStringLiteral("echo")}
                               << false;
    QTest::newRow("two words") << QStringList {QStringLiteral("hi"), QStringLiteral("hi the")}
                               << false;
    QTest::newRow("errors only") << QStringList {QString()} << true;
    QTest::newRow("errors with a word")
        << QStringList {QStringLiteral("a"), QStringLiteral("ap")} << true;
}

// Every capture in one run, a turn each: the filter walks the turns in two halves at once
// (RunFilterProxy::rebuild), and the result is the nodes that match or have a matching
// descendant, in the source's order, wherever the halves meet.
void TestRunFilterProxy::aRunOfManyTurnsIsFilteredInOrder()
{
    QFETCH(QStringList, searches);
    QFETCH(bool, errorsOnly);
    QList<QByteArray> lines;
    const QStringList captures = QDir(QStringLiteral(SANDSCOPE_TEST_DATA_DIR))
                                     .entryList({QStringLiteral("stream-*.jsonl")}, QDir::Files);
    QVERIFY(captures.size() >= 5);
    for (const QString &capture : captures)
        lines += captureLines(capture);
    RunModel model;
    load(model, lines);
    QCOMPARE(model.rowCount(model.runIndex()), int(captures.size())); // a turn each
    RunFilterProxy proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    proxy.setSourceModel(&model);
    proxy.setErrorsOnly(errorsOnly);
    for (const QString &search : std::as_const(searches)) {
        proxy.setSearchText(search);
        const QStringList words = search.split(QLatin1Char(' '), Qt::SkipEmptyParts);
        const auto matches = [&](const QModelIndex &index) {
            if (errorsOnly && !RunFilterProxy::isErrorIndex(index))
                return false;
            return std::all_of(words.cbegin(), words.cend(),
                [&index](const QString &word) { return nodeMentions(index, word); });
        };
        // Expected from the source, in view order: "depth|summary" of each kept node.
        QStringList expected;
        int expectedMatches = 0;
        std::function<bool(const QModelIndex &, int)> collect = [&](const QModelIndex &index,
                                                                    int depth) {
            const int at = int(expected.size());
            const bool itself = matches(index);
            expected.append(QString::number(depth) + QLatin1Char('|') + index.data().toString());
            bool keep = itself;
            for (int row = 0; row < model.rowCount(index); ++row)
                keep = collect(model.index(row, 0, index), depth + 1) || keep;
            if (!keep)
                expected.erase(expected.begin() + at, expected.end());
            expectedMatches += itself ? 1 : 0;
            return keep;
        };
        collect(model.runIndex(), 0);
        QVERIFY2(outline(&proxy) == expected, qPrintable(search));
        QCOMPARE(proxy.matchCount(), expectedMatches);
        QVERIFY(proxy.matchCount() > 0);
    }
}

void TestRunFilterProxy::aSlicedFilterShowsWhatAPlainOneShows_data()
{
    QTest::addColumn<quint32>("seed");
    for (quint32 seed = 1; seed <= 24; ++seed)
        QTest::addRow("seed %u", seed) << seed;
}

// RunFilterProxy::startFilter walks the run's turns a slice at a time: at every step what it
// shows is the start of what a plain filter of the same run shows (the turns walked so far),
// and once complete all of it, with the same match count, while lines keep arriving and
// searches are typed over one under way. Random captures order, searches (words of the run's
// own summaries), slices and insertions, per seed.
void TestRunFilterProxy::aSlicedFilterShowsWhatAPlainOneShows()
{
    QFETCH(quint32, seed);
    QRandomGenerator random(seed);
    QStringList captures = QDir(QStringLiteral(SANDSCOPE_TEST_DATA_DIR))
                               .entryList({QStringLiteral("stream-*.jsonl")}, QDir::Files);
    std::shuffle(captures.begin(), captures.end(), random);
    QList<QByteArray> lines;
    for (const QString &capture : std::as_const(captures))
        lines += captureLines(capture);
    RunModel model;
    RunParser parser;
    qint64 clock = 1000;
    qsizetype next = 0;
    const auto addLine = [&] {
        if (next < lines.size())
            model.addEvents(parser.parseLine(lines.at(next++), clock += 10));
        else if (next++ == lines.size())
            model.markRunEnded(clock);
    };
    const qsizetype loadedFirst = random.bounded(int(lines.size()) + 2);
    while (next < loadedFirst)
        addLine();
    RunFilterProxy proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    proxy.setSourceModel(&model);
    // Searches: pieces of the summaries shown, and a word nothing has.
    QStringList words {QStringLiteral("zzqx-none")};
    forEachIndex(&model, QModelIndex(), [&words](const QModelIndex &index) {
        const QString summary = index.data().toString();
        if (summary.size() >= 3)
            words.append(summary.mid(summary.size() / 3, 3).trimmed());
    });
    const auto anySearch = [&] {
        QString search = words.at(random.bounded(int(words.size())));
        if (random.bounded(4) == 0)
            search += QLatin1Char(' ') + words.at(random.bounded(int(words.size())));
        return search;
    };
    const auto plain = [&](const QString &search, bool errorsOnly) {
        RunFilterProxy fresh;
        fresh.setSourceModel(&model);
        fresh.setSearchText(search);
        fresh.setErrorsOnly(errorsOnly);
        return std::make_pair(outline(&fresh), fresh.matchCount());
    };
    // A result for a call of an earlier turn (walked, judged or not yet): it changes there.
    const auto failCall = [&](const QString &says) {
        QStringList calls;
        forEachIndex(&model, QModelIndex(), [&calls](const QModelIndex &index) {
            if (index.data(RunModel::KindRole).toInt() == int(Kind::ToolCall))
                calls.append(index.data(RunModel::ToolUseIdRole).toString());
        });
        if (calls.isEmpty())
            return;
        RunEvent result;
        result.kind = RunEvent::ToolResult;
        result.toolUseId = calls.at(random.bounded(int(calls.size())));
        result.isError = true;
        result.text = says;
        model.addEvent(result);
    };
    for (int search = 0; search < 3; ++search) {
        const QString text = anySearch();
        const bool errorsOnly = random.bounded(5) == 0;
        proxy.startFilter(text, errorsOnly);
        QCOMPARE(proxy.searchText(), text.simplified());
        // The one after the last is typed over this one, half-way.
        const int stopAfter = search < 2 ? random.bounded(6) : -1;
        for (int step = 0; !proxy.continueFilter(0, random.bounded(4) == 0); ++step) {
            if (random.bounded(3) == 0)
                addLine();
            if (random.bounded(3) == 0) // a call of any turn fails, saying the search
                failCall(text);
            const auto expected = plain(text, errorsOnly).first;
            const QStringList shown = outline(&proxy);
            if (expected.isEmpty()) // the run stays until the walk is complete
                QVERIFY2(shown.size() <= 1, qPrintable(shown.join(QLatin1Char('/'))));
            else
                QCOMPARE(shown, expected.mid(0, shown.size()));
            QVERIFY(proxy.filterPercent() < 100);
            if (step == stopAfter)
                break;
        }
        if (!proxy.filterComplete())
            continue; // typed over
        const auto [expected, matches] = plain(text, errorsOnly);
        QCOMPARE(outline(&proxy), expected);
        QCOMPARE(proxy.matchCount(), matches);
        QCOMPARE(proxy.filterPercent(), 100);
        // Lines after the walk are filtered as they come.
        for (int more = 0; more < 20; ++more)
            addLine();
        QCOMPARE(outline(&proxy), plain(text, errorsOnly).first);
        QCOMPARE(proxy.matchCount(), plain(text, errorsOnly).second);
    }
}

// A turn judged and walked but not inserted yet (continueFilter without insertRows) that
// changes is walked again: a call of the first turn that fails is shown by "errors only".
void TestRunFilterProxy::aChangeInATurnJudgedButNotShownIsShown()
{
    QList<QByteArray> lines;
    const QStringList captures = QDir(QStringLiteral(SANDSCOPE_TEST_DATA_DIR))
                                     .entryList({QStringLiteral("stream-*.jsonl")}, QDir::Files);
    for (const QString &capture : captures)
        lines += captureLines(capture);
    RunModel model;
    load(model, lines);
    QString callId;
    forEachIndex(&model, model.index(0, 0, model.runIndex()), [&callId](const QModelIndex &index) {
        if (callId.isEmpty() && index.data(RunModel::KindRole).toInt() == int(Kind::ToolCall)
            && !RunFilterProxy::isErrorIndex(index))
            callId = index.data(RunModel::ToolUseIdRole).toString();
    });
    QVERIFY(!callId.isEmpty()); // a call of the first turn that did not fail
    const auto plain = [&model] {
        RunFilterProxy fresh;
        fresh.setSourceModel(&model);
        fresh.setErrorsOnly(true);
        return std::make_pair(outline(&fresh), fresh.matchCount());
    };
    const auto before = plain();
    RunFilterProxy proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    proxy.setSourceModel(&model);
    proxy.startFilter(QString(), true);
    while (proxy.filterPercent() == 0)
        QVERIFY(!proxy.continueFilter(0, false));
    QCOMPARE(proxy.rowCount(proxy.index(0, 0)), 0); // judged, not inserted
    RunEvent result;
    result.kind = RunEvent::ToolResult;
    result.toolUseId = callId;
    result.isError = true;
    model.addEvent(result);
    const auto after = plain();
    QCOMPARE(after.second, before.second + 1); // the change matters
    while (!proxy.continueFilter(0, true)) { }
    QCOMPARE(outline(&proxy), after.first);
    QCOMPARE(proxy.matchCount(), after.second);
}
