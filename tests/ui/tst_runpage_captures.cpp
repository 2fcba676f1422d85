// The run view offscreen: every real capture opens (in the background) with the right
// outcome in the summary bar; sub-agent work is nested and expanded under its Agent call; the
// detail pane shows Bash command and output, Edit/MultiEdit diffs, highlighted Write content,
// TodoWrite checklists, Agent prompts and the pretty raw JSON (copyable); F8 / Shift+F8 walk
// the error nodes in file order; search keeps ancestors and clearing restores; follow mode
// turns off when scrolled up and on at the bottom; the run controls are disabled
// placeholders; File › Open Run Recording opens a tab; Read/Write/Edit/NotebookEdit nodes link
// to their file as an absolute path (detail pane button, Ctrl+Shift+O, context action).
// Expectations come from the capture JSON read with QJsonDocument. Edit/Write/TodoWrite calls are
// the real Bash tool_use and tool_result lines of stream-basic.jsonl with the tool block swapped.

#include "livelines.h"
#include "mainwindow.h"
#include "runs/artifactscanner.h"
#include "runs/artifactspanel.h"
#include "runs/rundelegate.h"
#include "runs/rundetailpane.h"
#include "runs/runpage.h"
#include "runs/runsummarybar.h"
#include "runs/runtabs.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QFocusEvent>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSet>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QToolButton>
#include <QTreeView>
#include <QtTest>

#include <algorithm>
#include <functional>
#include <memory>

using namespace sandscope;
using sandscope::test::LiveLines;
using Kind = RunModel::NodeKind;
using Status = RunModel::Status;

namespace {

QString capturePath(const QString &name)
{
    return QStringLiteral(SANDSCOPE_TEST_DATA_DIR) + QLatin1Char('/') + name;
}

QList<QByteArray> captureLines(const QString &name)
{
    QFile file(capturePath(name));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QList<QByteArray> lines = file.readAll().split('\n');
    while (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    return lines;
}

QJsonObject objectOf(const QByteArray &line)
{
    return QJsonDocument::fromJson(line).object();
}

QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

// The real tool_use line of stream-basic.jsonl with another tool block in it.
QByteArray toolUseLine(const QString &id, const QString &name, const QJsonObject &input)
{
    QJsonObject line = objectOf(captureLines(QStringLiteral("stream-basic.jsonl")).at(2));
    QJsonObject message = line.value(QLatin1String("message")).toObject();
    message.insert(QStringLiteral("id"), QString(QStringLiteral("msg_") + id));
    message.insert(QStringLiteral("content"),
        QJsonArray {QJsonObject {{QStringLiteral("type"), QStringLiteral("tool_use")},
            {QStringLiteral("id"), id}, {QStringLiteral("name"), name},
            {QStringLiteral("input"), input}}});
    line.insert(QStringLiteral("message"), message);
    line.insert(QStringLiteral("uuid"), QString(QStringLiteral("uuid-use-") + id));
    return compact(line);
}

QByteArray toolResultLine(const QString &id, const QString &content, bool isError = false)
{
    QJsonObject line = objectOf(captureLines(QStringLiteral("stream-basic.jsonl")).at(3));
    QJsonObject message = line.value(QLatin1String("message")).toObject();
    message.insert(QStringLiteral("content"),
        QJsonArray {QJsonObject {{QStringLiteral("type"), QStringLiteral("tool_result")},
            {QStringLiteral("tool_use_id"), id}, {QStringLiteral("content"), content},
            {QStringLiteral("is_error"), isError}}});
    line.insert(QStringLiteral("message"), message);
    line.insert(QStringLiteral("tool_use_result"), content);
    line.insert(QStringLiteral("uuid"), QString(QStringLiteral("uuid-result-") + id));
    return compact(line);
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

int countIndexes(const QAbstractItemModel *model)
{
    int count = 0;
    forEachIndex(model, QModelIndex(), [&count](const QModelIndex &) { ++count; });
    return count;
}

QModelIndex findIndex(
    const QAbstractItemModel *model, const std::function<bool(const QModelIndex &)> &match)
{
    QModelIndex found;
    forEachIndex(model, QModelIndex(), [&](const QModelIndex &index) {
        if (!found.isValid() && match(index))
            found = index;
    });
    return found;
}

QModelIndex findTool(const QAbstractItemModel *model, const QString &toolUseId)
{
    return findIndex(model, [&](const QModelIndex &index) {
        return index.data(RunModel::ToolUseIdRole).toString() == toolUseId;
    });
}

bool loadCapture(RunPage &page, const QString &name)
{
    QSignalSpy finished(&page, &RunPage::loadFinished);
    if (!page.openFile(capturePath(name)))
        return false;
    if (!finished.wait(10000))
        return false;
    return finished.first().first().toBool();
}

// stream-subagent.jsonl in two pages: one keeps its lines, the other (as for a big file) reads
// them again from the file.
bool loadKeptAndRead(RunPage &kept, RunPage &read)
{
    read.setKeepLinesBelowBytes(0);
    for (RunPage *page : {&kept, &read}) {
        page->show();
        if (!loadCapture(*page, QStringLiteral("stream-subagent.jsonl")))
            return false;
    }
    return true;
}

void select(RunPage &page, const QModelIndex &proxyIndex)
{
    page.treeView()->setCurrentIndex(proxyIndex);
}

// Line numbers (1-based) where the file reports something going wrong, in file order; a
// failed tool result counts at the line of its tool_use (where the call's node starts).
QList<qint64> errorLinesOf(const QList<QByteArray> &lines)
{
    QHash<QString, qint64> toolUseLine;
    QList<qint64> errorLines;
    for (int i = 0; i < lines.size(); ++i) {
        const QJsonObject json = objectOf(lines[i]);
        const QString type = json.value(QLatin1String("type")).toString();
        const QString subtype = json.value(QLatin1String("subtype")).toString();
        const QJsonArray content = json.value(QLatin1String("message"))
                                       .toObject()
                                       .value(QLatin1String("content"))
                                       .toArray();
        if (type == QLatin1String("system") && subtype == QLatin1String("api_retry"))
            errorLines.append(i + 1);
        if (type == QLatin1String("assistant")
            && json.value(QLatin1String("is_api_error_message")).toBool())
            errorLines.append(i + 1);
        if (type == QLatin1String("result") && json.value(QLatin1String("is_error")).toBool())
            errorLines.append(i + 1);
        for (const QJsonValue &block : content) {
            const QJsonObject object = block.toObject();
            if (object.value(QLatin1String("type")) == QLatin1String("tool_use"))
                toolUseLine.insert(object.value(QLatin1String("id")).toString(), i + 1);
            if (object.value(QLatin1String("type")) == QLatin1String("tool_result")
                && object.value(QLatin1String("is_error")).toBool())
                errorLines.append(
                    toolUseLine.value(object.value(QLatin1String("tool_use_id")).toString()));
        }
    }
    std::sort(errorLines.begin(), errorLines.end());
    return errorLines;
}

} // namespace

class TestRunPage : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void everyCaptureOpensWithItsOutcome_data();
    void everyCaptureOpensWithItsOutcome();
    void subAgentWorkIsNestedUnderItsAgentCall();
    void bashDetailShowsCommandOutputAndRawJson();
    void agentDetailShowsPromptAndReport();
    void editAndMultiEditShowAsDiffs();
    void writeContentIsShownAsCode();
    void todoWriteIsAChecklist();
    void f8WalksTheErrorNodes_data();
    void f8WalksTheErrorNodes();
    void searchKeepsAncestorsAndClearingRestores();
    void errorsOnlyKeepsErrorsAndTheirAncestors();
    void searchShowsItsMatchCount();
    void searchTextsAreBuiltWhileTheSearchFieldHasTheFocus();
    void aBigFilesLinesAreReadAgainWhenShown();
    void aSearchThatReadsTheFileFindsWhatAKeptRunFinds_data();
    void aSearchThatReadsTheFileFindsWhatAKeptRunFinds();
    void unfilteringFoldsBackToTheTurnsWithTheCurrentNodeShown();
    void followModeTurnsOffWhenScrolledUpAndOnAtTheBottom();
    void earlierTurnsFoldOnlyWhileFollowing();
    void callsOpenedInATurnFoldWithItOnlyWhileFollowing_data();
    void callsOpenedInATurnFoldWithItOnlyWhileFollowing();
    void liveLinesAreRecordedBeforeTheyAreShown();
    void runControlsAreDisabledPlaceholders();
    void fileNodesLinkToTheirAbsolutePath();
    void recordingPagesListNoArtifacts();
    void mainWindowOpensARecordingInAClosableTab();
    void screenshots_data();
    void screenshots();

private:
    QTemporaryDir m_dir;
};

void TestRunPage::initTestCase()
{
    QVERIFY(m_dir.isValid());
    qputenv("SANDSCOPE_AUDIT_LOG", m_dir.filePath(QStringLiteral("audit.jsonl")).toUtf8());
}

void TestRunPage::everyCaptureOpensWithItsOutcome_data()
{
    QTest::addColumn<QString>("capture");
    const QStringList captures = QDir(QStringLiteral(SANDSCOPE_TEST_DATA_DIR))
                                     .entryList({QStringLiteral("stream-*.jsonl")}, QDir::Files);
    QVERIFY(captures.size() >= 9);
    for (const QString &capture : captures)
        QTest::newRow(qPrintable(capture)) << capture;
}

void TestRunPage::everyCaptureOpensWithItsOutcome()
{
    QFETCH(QString, capture);
    RunPage page;
    QAbstractItemModelTester tester(
        page.proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    page.resize(1000, 700);
    page.show();
    QVERIFY(loadCapture(page, capture));
    QVERIFY(!page.isLoading());
    QVERIFY(page.noticeText().isEmpty());
    // One run per page: a second file is refused rather than mixed in.
    QString why;
    QVERIFY(!page.openFile(capturePath(capture), &why));
    QVERIFY(why.contains(QStringLiteral("already shows a run")));

    // The outcome in the summary bar, from the last result line of the file.
    const QList<QByteArray> lines = captureLines(capture);
    QJsonObject lastResult;
    for (const QByteArray &line : lines) {
        const QJsonObject json = objectOf(line);
        if (json.value(QLatin1String("type")) == QLatin1String("result"))
            lastResult = json;
    }
    const QString outcome = page.summaryBar()->outcomeText();
    if (lastResult.isEmpty())
        QVERIFY2(outcome.startsWith(QLatin1String("Interrupted")), qPrintable(outcome));
    else if (lastResult.value(QLatin1String("is_error")).toBool())
        QVERIFY2(outcome.startsWith(QLatin1String("Failed")), qPrintable(outcome));
    else
        QCOMPARE(outcome, QStringLiteral("Succeeded"));
    if (!lastResult.isEmpty()) {
        QVERIFY2(page.summaryBar()->text().contains(QStringLiteral("$%1").arg(
                     lastResult.value(QLatin1String("total_cost_usd")).toDouble(), 0, 'f', 6)),
            qPrintable(page.summaryBar()->text()));
    }

    // Round trips: the results' num_turns summed; without a result line "not recorded",
    // never 0 shown as a count (issue 25).
    int numTurns = 0;
    for (const QByteArray &line : lines) {
        const QJsonObject json = objectOf(line);
        if (json.value(QLatin1String("type")) == QLatin1String("result"))
            numTurns += std::max(0, json.value(QLatin1String("num_turns")).toInt());
    }
    const QString roundTrips = QStringLiteral("Round trips: ")
        + (lastResult.isEmpty() ? QStringLiteral("not recorded") : QString::number(numTurns));
    QVERIFY2(page.summaryBar()->text().contains(roundTrips), qPrintable(page.summaryBar()->text()));

    // Errors: failed calls (a tool_result with is_error for a tool_use of the file) and API
    // error messages, counted here from the lines.
    QSet<QString> uses;
    QSet<QString> failed;
    int apiErrors = 0;
    for (const QByteArray &line : lines) {
        const QJsonObject json = objectOf(line);
        const QJsonObject message = json.value(QLatin1String("message")).toObject();
        if (json.value(QLatin1String("type")) == QLatin1String("assistant")
            && (json.value(QLatin1String("is_api_error_message")).toBool()
                || message.value(QLatin1String("model")) == QLatin1String("<synthetic>")))
            ++apiErrors;
        for (const QJsonValue &value : message.value(QLatin1String("content")).toArray()) {
            const QJsonObject block = value.toObject();
            if (block.value(QLatin1String("type")) == QLatin1String("tool_use"))
                uses.insert(block.value(QLatin1String("id")).toString());
            if (block.value(QLatin1String("is_error")).toBool())
                failed.insert(block.value(QLatin1String("tool_use_id")).toString());
        }
    }
    QVERIFY2(page.summaryBar()->text().contains(
                 QStringLiteral("Errors: %1").arg((uses & failed).size() + apiErrors)),
        qPrintable(page.summaryBar()->text()));

    // One run at the top, expanded, with a turn per system/init line.
    QCOMPARE(page.proxy()->rowCount(), 1);
    const QModelIndex run = page.proxy()->index(0, 0);
    QTRY_VERIFY(page.treeView()->isExpanded(run));
    int inits = 0;
    for (const QByteArray &line : lines) {
        const QJsonObject json = objectOf(line);
        inits += json.value(QLatin1String("subtype")) == QLatin1String("init") ? 1 : 0;
    }
    int turns = 0;
    for (int row = 0; row < page.proxy()->rowCount(run); ++row)
        turns
            += Kind(page.proxy()->index(row, 0, run).data(RunModel::KindRole).toInt()) == Kind::Turn
            ? 1
            : 0;
    QCOMPARE(turns, std::max(inits, 1));
}

void TestRunPage::subAgentWorkIsNestedUnderItsAgentCall()
{
    RunPage page;
    page.resize(1000, 700);
    page.show();
    QVERIFY(loadCapture(page, QStringLiteral("stream-subagent.jsonl")));

    QString agentId;
    QStringList subToolIds;
    for (const QByteArray &line : captureLines(QStringLiteral("stream-subagent.jsonl"))) {
        const QJsonObject json = objectOf(line);
        const QString parent = json.value(QLatin1String("parent_tool_use_id")).toString();
        for (const QJsonValue &block : json.value(QLatin1String("message"))
                                           .toObject()
                                           .value(QLatin1String("content"))
                                           .toArray()) {
            const QJsonObject object = block.toObject();
            if (object.value(QLatin1String("type")) != QLatin1String("tool_use"))
                continue;
            if (object.value(QLatin1String("name")) == QLatin1String("Agent"))
                agentId = object.value(QLatin1String("id")).toString();
            else if (!parent.isEmpty())
                subToolIds.append(object.value(QLatin1String("id")).toString());
        }
    }
    QVERIFY(!agentId.isEmpty());
    QCOMPARE(subToolIds.size(), 1);

    const QModelIndex agent = findTool(page.proxy(), agentId);
    const QModelIndex subTool = findTool(page.proxy(), subToolIds.first());
    QVERIFY(agent.isValid());
    QVERIFY(subTool.isValid());
    QCOMPARE(subTool.parent(), agent);
    QTRY_VERIFY(page.treeView()->isExpanded(agent));
    // The call's row in the view shows the sub-agent's tokens, counted under the Agent call.
    QVERIFY(!agent.siblingAtColumn(RunModel::TokensColumn).data().toString().isEmpty());
}

void TestRunPage::bashDetailShowsCommandOutputAndRawJson()
{
    RunPage page;
    page.show();
    QVERIFY(loadCapture(page, QStringLiteral("stream-basic.jsonl")));
    const QList<QByteArray> lines = captureLines(QStringLiteral("stream-basic.jsonl"));
    const QJsonObject useBlock = objectOf(lines[2])
                                     .value(QLatin1String("message"))
                                     .toObject()
                                     .value(QLatin1String("content"))
                                     .toArray()
                                     .first()
                                     .toObject();
    const QString id = useBlock.value(QLatin1String("id")).toString();
    const QString command = useBlock.value(QLatin1String("input"))
                                .toObject()
                                .value(QLatin1String("command"))
                                .toString();

    const QModelIndex bash = findTool(page.proxy(), id);
    QVERIFY(bash.isValid());
    select(page, bash);
    RunDetailPane *pane = page.detailPane();
    QCOMPARE(pane->view(), RunDetailPane::View::Text);
    QVERIFY2(pane->factsText().contains(QStringLiteral("Command: ") + command),
        qPrintable(pane->factsText()));
    const QJsonObject resultBlock = objectOf(lines[3])
                                        .value(QLatin1String("message"))
                                        .toObject()
                                        .value(QLatin1String("content"))
                                        .toArray()
                                        .first()
                                        .toObject();
    QCOMPARE(pane->bodyText(), resultBlock.value(QLatin1String("content")).toString());

    // Raw JSON: pretty (several lines) and the same object as the line in the file.
    QVERIFY(pane->rawJsonText().count(QLatin1Char('\n')) > 5);
    QCOMPARE(objectOf(pane->rawJsonText().toUtf8()), objectOf(lines[2]));
    QCOMPARE(objectOf(pane->resultJsonText().toUtf8()), objectOf(lines[3]));
    QVERIFY(pane->tabs()->isTabEnabled(2));
    pane->copyRawJson();
    QCOMPARE(QApplication::clipboard()->text(), QString::fromUtf8(lines[2]));
}

void TestRunPage::agentDetailShowsPromptAndReport()
{
    RunPage page;
    page.show();
    QVERIFY(loadCapture(page, QStringLiteral("stream-subagent.jsonl")));
    const QModelIndex agent = findIndex(page.proxy(), [](const QModelIndex &index) {
        return index.data(RunModel::ToolNameRole).toString() == QLatin1String("Agent");
    });
    QVERIFY(agent.isValid());
    select(page, agent);
    RunDetailPane *pane = page.detailPane();
    QCOMPARE(pane->view(), RunDetailPane::View::Text);
    QCOMPARE(pane->bodyText(), QStringLiteral("SUBTASK: run echo sub"));
    QVERIFY(pane->factsText().contains(QStringLiteral("Agent type: general-purpose")));
    QVERIFY(pane->isResultVisible());
    QVERIFY(pane->resultText().contains(QStringLiteral("Subagent")));
}

void TestRunPage::editAndMultiEditShowAsDiffs()
{
    RunPage page;
    LiveLines live(&page);
    page.show();
    const QString path = QStringLiteral("/home/alice/chat-demo/app.py");
    live.append(toolUseLine(QStringLiteral("toolu_edit_1"), QStringLiteral("Edit"),
                    {{QStringLiteral("file_path"), path},
                        {QStringLiteral("old_string"), QStringLiteral("a = 1\nb = 2\nc = 3")},
                        {QStringLiteral("new_string"), QStringLiteral("a = 1\nb = 20\nc = 3")}}),
        1000);
    live.append(toolResultLine(QStringLiteral("toolu_edit_1"),
                    QStringLiteral("The file %1 has been updated.").arg(path)),
        1100);
    page.flushEvents();
    const QModelIndex edit = findTool(page.proxy(), QStringLiteral("toolu_edit_1"));
    QVERIFY(edit.isValid());
    select(page, edit);
    RunDetailPane *pane = page.detailPane();
    QCOMPARE(pane->view(), RunDetailPane::View::Diff);
    QCOMPARE(pane->bodyText(), QStringLiteral("  a = 1\n- b = 2\n+ b = 20\n  c = 3"));
    QVERIFY(pane->factsText().contains(QStringLiteral("File: ") + path));
    QVERIFY(pane->resultText().contains(QStringLiteral("has been updated")));
    // Removed lines are tinted red, added lines green, context lines not at all.
    const QTextDocument *document = pane->diffView()->document();
    const QColor removed = document->findBlockByNumber(1).blockFormat().background().color();
    const QColor added = document->findBlockByNumber(2).blockFormat().background().color();
    QVERIFY(removed.red() > removed.green());
    QVERIFY(added.green() > added.red());
    QCOMPARE(document->findBlockByNumber(0).blockFormat().background().style(), Qt::NoBrush);

    const QJsonArray edits {
        QJsonObject {{QStringLiteral("old_string"), QStringLiteral("x")},
            {QStringLiteral("new_string"), QStringLiteral("y")}},
        QJsonObject {{QStringLiteral("old_string"), QStringLiteral("p\nq")},
            {QStringLiteral("new_string"), QStringLiteral("p")},
            {QStringLiteral("replace_all"), true}},
    };
    live.append(toolUseLine(QStringLiteral("toolu_multi_1"), QStringLiteral("MultiEdit"),
                    {{QStringLiteral("file_path"), path}, {QStringLiteral("edits"), edits}}),
        1200);
    page.flushEvents();
    const QModelIndex multi = findTool(page.proxy(), QStringLiteral("toolu_multi_1"));
    QVERIFY(multi.isValid());
    select(page, multi);
    QCOMPARE(pane->view(), RunDetailPane::View::Diff);
    QCOMPARE(pane->bodyText(),
        QStringLiteral(
            "@@ edit 1 of 2 @@\n- x\n+ y\n@@ edit 2 of 2, every occurrence @@\n  p\n- q"));
}

void TestRunPage::writeContentIsShownAsCode()
{
    RunPage page;
    LiveLines live(&page);
    page.show();
    const QString content = QStringLiteral("def main():\n    print(\"hi\")\n");
    live.append(
        toolUseLine(QStringLiteral("toolu_write_1"), QStringLiteral("Write"),
            {{QStringLiteral("file_path"), QStringLiteral("/home/alice/chat-demo/hello.py")},
                {QStringLiteral("content"), content}}),
        1000);
    page.flushEvents();
    const QModelIndex write = findTool(page.proxy(), QStringLiteral("toolu_write_1"));
    QVERIFY(write.isValid());
    select(page, write);
    RunDetailPane *pane = page.detailPane();
    QCOMPARE(pane->view(), RunDetailPane::View::Code);
    QCOMPARE(pane->bodyText(), content);
#ifdef SANDSCOPE_HAVE_KSYNTAXHIGHLIGHTING
    QVERIFY(pane->isCodeHighlighted());
#else
    QVERIFY(!pane->isCodeHighlighted());
#endif
    // Still running: no result section yet; it appears when the result arrives.
    QVERIFY(!pane->isResultVisible());
    live.append(toolResultLine(
                    QStringLiteral("toolu_write_1"), QStringLiteral("File created successfully")),
        1100);
    QTRY_VERIFY(pane->isResultVisible());
    QCOMPARE(pane->resultText(), QStringLiteral("File created successfully"));
}

void TestRunPage::todoWriteIsAChecklist()
{
    RunPage page;
    LiveLines live(&page);
    page.show();
    auto todo = [](const char *content, const char *status, const char *active) {
        return QJsonObject {{QStringLiteral("content"), QLatin1String(content)},
            {QStringLiteral("status"), QLatin1String(status)},
            {QStringLiteral("activeForm"), QLatin1String(active)}};
    };
    const QJsonArray todos {todo("Write tests", "completed", "Writing tests"),
        todo("Fix the bug", "in_progress", "Fixing the bug"),
        todo("Ship it", "pending", "Shipping")};
    live.append(toolUseLine(QStringLiteral("toolu_todo_1"), QStringLiteral("TodoWrite"),
                    {{QStringLiteral("todos"), todos}}),
        1000);
    page.flushEvents();
    const QModelIndex node = findTool(page.proxy(), QStringLiteral("toolu_todo_1"));
    QVERIFY(node.isValid());
    select(page, node);
    RunDetailPane *pane = page.detailPane();
    QCOMPARE(pane->view(), RunDetailPane::View::Checklist);
    QListWidget *list = pane->checklist();
    QCOMPARE(list->count(), 3);
    QCOMPARE(list->item(0)->checkState(), Qt::Checked);
    QCOMPARE(list->item(1)->checkState(), Qt::PartiallyChecked);
    QCOMPARE(list->item(2)->checkState(), Qt::Unchecked);
    QVERIFY(list->item(0)->text().endsWith(QLatin1String("Write tests")));
    QVERIFY(list->item(1)->text().endsWith(QLatin1String("Fixing the bug")));
    QVERIFY(!(list->item(0)->flags() & Qt::ItemIsUserCheckable));
}

void TestRunPage::f8WalksTheErrorNodes_data()
{
    QTest::addColumn<QString>("capture");
    QTest::newRow("err-401") << QStringLiteral("stream-err-401.jsonl");
    QTest::newRow("err-529") << QStringLiteral("stream-err-529.jsonl");
    QTest::newRow("sigterm") << QStringLiteral("stream-sigterm.jsonl");
}

void TestRunPage::f8WalksTheErrorNodes()
{
    QFETCH(QString, capture);
    const QList<qint64> expected = errorLinesOf(captureLines(capture));
    QVERIFY(!expected.isEmpty());

    RunPage page;
    page.resize(900, 600);
    page.show();
    QApplication::setActiveWindow(&page);
    QVERIFY(QTest::qWaitForWindowActive(&page));
    QVERIFY(loadCapture(page, capture));
    QTreeView *tree = page.treeView();
    tree->setFocus();

    QList<qint64> visited;
    for (int i = 0; i < expected.size(); ++i) {
        QTest::keyClick(tree, Qt::Key_F8);
        visited.append(tree->currentIndex().data(RunModel::LineNumberRole).toLongLong());
    }
    QCOMPARE(visited, expected);
    // The current error is visible: its ancestors are expanded.
    for (QModelIndex parent = tree->currentIndex().parent(); parent.isValid();
         parent = parent.parent())
        QVERIFY(tree->isExpanded(parent));
    // Wraps around to the first, and Shift+F8 goes back to the last.
    QTest::keyClick(tree, Qt::Key_F8);
    QCOMPARE(tree->currentIndex().data(RunModel::LineNumberRole).toLongLong(), expected.first());
    QTest::keyClick(tree, Qt::Key_F8, Qt::ShiftModifier);
    QCOMPARE(tree->currentIndex().data(RunModel::LineNumberRole).toLongLong(), expected.last());
    // The detail pane follows the keyboard.
    QCOMPARE(page.detailPane()->shownIndex(), page.proxy()->mapToSource(tree->currentIndex()));
}

void TestRunPage::searchKeepsAncestorsAndClearingRestores()
{
    RunPage page;
    page.show();
    QVERIFY(loadCapture(page, QStringLiteral("stream-subagent.jsonl")));
    const int allNodes = countIndexes(page.model());
    QCOMPARE(countIndexes(page.proxy()), allNodes);

    QTest::keyClicks(page.searchEdit(), QStringLiteral("ECHO sub"));
    QTRY_COMPARE(page.proxy()->searchText(), QStringLiteral("ECHO sub"));
    const QModelIndex bash = findIndex(page.proxy(), [](const QModelIndex &index) {
        return index.data(RunModel::ToolNameRole).toString() == QLatin1String("Bash");
    });
    QVERIFY(bash.isValid());
    QCOMPARE(bash.data(RunModel::SummaryRole).toString(), QStringLiteral("echo sub"));
    QVERIFY(page.treeView()->isExpanded(bash.parent()));
    // Its ancestors stay: the Agent call, the turn and the run.
    QCOMPARE(Kind(bash.parent().data(RunModel::KindRole).toInt()), Kind::ToolCall);
    QCOMPARE(Kind(bash.parent().parent().data(RunModel::KindRole).toInt()), Kind::Turn);
    QCOMPARE(Kind(bash.parent().parent().parent().data(RunModel::KindRole).toInt()), Kind::Run);
    // Nodes that do not mention it are gone.
    QVERIFY(!findIndex(page.proxy(), [](const QModelIndex &index) {
        return Kind(index.data(RunModel::KindRole).toInt()) == Kind::Result;
    }).isValid());
    QVERIFY(countIndexes(page.proxy()) < allNodes);

    page.searchEdit()->clear();
    QTRY_COMPARE(countIndexes(page.proxy()), allNodes);
}

void TestRunPage::errorsOnlyKeepsErrorsAndTheirAncestors()
{
    RunPage page;
    page.show();
    QVERIFY(loadCapture(page, QStringLiteral("stream-sigterm.jsonl")));
    page.errorsOnlyButton()->click();
    QVERIFY(page.proxy()->errorsOnly());
    QStringList shown;
    forEachIndex(page.proxy(), QModelIndex(), [&](const QModelIndex &index) {
        shown.append(QString::number(index.data(RunModel::KindRole).toInt()) + QLatin1Char('/')
            + index.data(RunModel::ToolNameRole).toString());
    });
    QCOMPARE(shown,
        QStringList({QString::number(int(Kind::Run)) + QLatin1Char('/'),
            QString::number(int(Kind::Turn)) + QLatin1Char('/'),
            QString::number(int(Kind::ToolCall)) + QStringLiteral("/Bash")}));
    page.errorsOnlyButton()->click();
    QCOMPARE(countIndexes(page.proxy()), countIndexes(page.model()));
}

void TestRunPage::searchShowsItsMatchCount()
{
    RunPage page;
    page.show();
    QVERIFY(loadCapture(page, QStringLiteral("stream-subagent.jsonl")));
    auto *label = page.findChild<QLabel *>(QStringLiteral("searchCountLabel"));
    QVERIFY(label);
    QVERIFY(!label->isVisible());
    QTest::keyClicks(page.searchEdit(), QStringLiteral("echo sub"));
    QTRY_COMPARE(page.proxy()->searchText(), QStringLiteral("echo sub"));
    QVERIFY(label->isVisible());
    const int count = page.proxy()->matchCount();
    QVERIFY(count > 0);
    QCOMPARE(label->text(),
        count == 1 ? QStringLiteral("1 match") : QStringLiteral("%1 matches").arg(count));
    page.searchEdit()->setText(QStringLiteral("no such text anywhere"));
    QTRY_COMPARE(label->text(), QStringLiteral("no matches"));
    page.searchEdit()->clear();
    QTRY_VERIFY(!label->isVisible());
    page.errorsOnlyButton()->click();
    QVERIFY(label->isVisible());
    QCOMPARE(label->text().isEmpty(), false);
    page.errorsOnlyButton()->click();
    QVERIFY(!label->isVisible());
}

// A file from the size set on (16 MiB by default) is opened without keeping its lines: every
// node's JSON, and its result's, is read again from the file and shows as when kept, also in
// the detail pane.
void TestRunPage::aBigFilesLinesAreReadAgainWhenShown()
{
    RunPage kept;
    RunPage read;
    QVERIFY(loadKeptAndRead(kept, read));
    QVERIFY(!kept.model()->lineSource());
    QVERIFY(read.model()->lineSource());
    int shown = 0;
    std::function<void(const QModelIndex &, const QModelIndex &)> compare
        = [&](const QModelIndex &a, const QModelIndex &b) {
              QCOMPARE(b.data(RunModel::RawJsonRole), a.data(RunModel::RawJsonRole));
              QCOMPARE(b.data(RunModel::ResultRawJsonRole), a.data(RunModel::ResultRawJsonRole));
              shown += a.data(RunModel::RawLineRole).toByteArray().isEmpty() ? 0 : 1;
              for (int row = 0; row < a.model()->rowCount(a); ++row)
                  compare(a.model()->index(row, 0, a), b.model()->index(row, 0, b));
          };
    compare(kept.model()->runIndex(), read.model()->runIndex());
    QVERIFY(shown > 5);
    const auto bash = [](RunPage &page) {
        return findIndex(page.proxy(), [](const QModelIndex &index) {
            return index.data(RunModel::ToolNameRole).toString() == QLatin1String("Bash");
        });
    };
    select(read, bash(read));
    const auto *raw = read.findChild<QPlainTextEdit *>(QStringLiteral("detailRawJson"));
    QVERIFY(raw);
    QTRY_VERIFY(raw->toPlainText().contains(QLatin1String("tool_use")));
    QCOMPARE(raw->toPlainText(), bash(kept).data(RunModel::RawJsonRole).toString());
}

// A big file's texts are read again from it for a search, which then finds what a run that
// kept them finds. A run small enough to take the result in one turn has its nodes judged
// first, the progress in the match count's place, and the result applied at once; a bigger
// one's search is applied at once and walks the run a slice at a time (SlicedSearch), its
// matches and progress shown as they come. Cleared meanwhile, nothing is searched.
void TestRunPage::aSearchThatReadsTheFileFindsWhatAKeptRunFinds_data()
{
    QTest::addColumn<bool>("sliced");
    QTest::newRow("judged first, then applied at once") << false;
    QTest::newRow("applied a slice at a time") << true;
}

void TestRunPage::aSearchThatReadsTheFileFindsWhatAKeptRunFinds()
{
    QFETCH(bool, sliced);
    RunPage kept;
    RunPage read;
    if (sliced)
        read.setSlicedSearchAboveNodes(0);
    QVERIFY(loadKeptAndRead(kept, read));
    const auto search = [](RunPage &page, const QString &text) {
        page.searchEdit()->setText(text);
        Q_EMIT page.searchEdit()->returnPressed();
    };
    search(kept, QStringLiteral("echo sub"));
    QVERIFY(kept.proxy()->isFiltering());
    QVERIFY(kept.proxy()->filterComplete());
    QVERIFY(kept.proxy()->matchCount() > 0);

    auto *label = read.findChild<QLabel *>(QStringLiteral("searchCountLabel"));
    QVERIFY(label);
    search(read, QStringLiteral("echo"));
    search(read, QString()); // cleared while it is judged or walked
    QVERIFY(!read.proxy()->isFiltering());
    QVERIFY(read.proxy()->filterComplete());
    QVERIFY(!label->isVisible());
    search(read, QStringLiteral("echo sub"));
    QVERIFY(label->isVisible());
    if (sliced) {
        QVERIFY(read.proxy()->isFiltering());
        QVERIFY(!read.proxy()->filterComplete());
        QVERIFY2(label->text().contains(QLatin1String("searching")), qPrintable(label->text()));
    } else {
        QVERIFY(!read.proxy()->isFiltering());
        QVERIFY2(label->text().startsWith(QLatin1String("Reading the run's texts")),
            qPrintable(label->text()));
    }
    QTRY_VERIFY(read.proxy()->isFiltering() && read.proxy()->filterComplete());
    QCOMPARE(read.proxy()->searchText(), QStringLiteral("echo sub"));
    QCOMPARE(read.proxy()->matchCount(), kept.proxy()->matchCount());
    QCOMPARE(label->text(), kept.findChild<QLabel *>(QStringLiteral("searchCountLabel"))->text());
    // Every match in view, as in the kept run: whatever the filter shows under a row, the row
    // is open (a small run is within the budget of rows a search opens).
    int open = 0;
    std::function<void(const QModelIndex &)> expectOpen = [&](const QModelIndex &parent) {
        for (int row = 0; row < read.proxy()->rowCount(parent); ++row) {
            const QModelIndex index = read.proxy()->index(row, 0, parent);
            if (read.proxy()->rowCount(index) == 0)
                continue;
            QVERIFY2(read.treeView()->isExpanded(index), qPrintable(index.data().toString()));
            ++open;
            expectOpen(index);
        }
    };
    expectOpen({});
    QVERIFY(open >= 2); // the run and a turn at least
}

// The first keystroke does not build every node's search text: they are built while the
// field has the focus, and freed when it leaves the field empty.
void TestRunPage::searchTextsAreBuiltWhileTheSearchFieldHasTheFocus()
{
    RunPage page;
    page.show();
    QVERIFY(loadCapture(page, QStringLiteral("stream-subagent.jsonl")));
    QVERIFY(!page.proxy()->searchTextsPrepared());
    QFocusEvent focusIn(QEvent::FocusIn, Qt::MouseFocusReason);
    QCoreApplication::sendEvent(page.searchEdit(), &focusIn);
    QTRY_VERIFY(page.proxy()->searchTextsPrepared());
    QFocusEvent focusOut(QEvent::FocusOut, Qt::MouseFocusReason);
    QCoreApplication::sendEvent(page.searchEdit(), &focusOut);
    QVERIFY(!page.proxy()->searchTextsPrepared());
    // With a search in the field, leaving it keeps them (the search still uses them).
    QCoreApplication::sendEvent(page.searchEdit(), &focusIn);
    QTRY_VERIFY(page.proxy()->searchTextsPrepared());
    QTest::keyClicks(page.searchEdit(), QStringLiteral("echo"));
    QTRY_COMPARE(page.proxy()->searchText(), QStringLiteral("echo"));
    QCoreApplication::sendEvent(page.searchEdit(), &focusOut);
    QVERIFY(page.proxy()->searchTextsPrepared());
}

// Filters expand everything they keep; turning them off folds the tree back to the turns
// (the run stays open), and the node the user was on is opened to again.
void TestRunPage::unfilteringFoldsBackToTheTurnsWithTheCurrentNodeShown()
{
    RunPage page;
    page.show();
    QVERIFY(loadCapture(page, QStringLiteral("stream-subagent.jsonl")));
    QTreeView *tree = page.treeView();
    page.expandAll();
    const QModelIndex bash = findIndex(page.proxy(), [](const QModelIndex &index) {
        return index.data(RunModel::ToolNameRole).toString() == QLatin1String("Bash");
    });
    QVERIFY(bash.isValid());
    QVERIFY(bash.parent().parent().isValid()); // under the Agent call
    const QPersistentModelIndex source = page.proxy()->mapToSource(bash);
    tree->setCurrentIndex(bash);
    page.errorsOnlyButton()->click();
    page.errorsOnlyButton()->click();
    QCOMPARE(countIndexes(page.proxy()), countIndexes(page.model()));
    const QModelIndex shown = page.proxy()->mapFromSource(source);
    QVERIFY(shown.isValid());
    QVERIFY(tree->isExpanded(shown.parent()));
    QVERIFY(tree->isExpanded(page.proxy()->index(0, 0)));
}

void TestRunPage::followModeTurnsOffWhenScrolledUpAndOnAtTheBottom()
{
    RunPage page;
    LiveLines live(&page);
    page.resize(900, 500);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QVERIFY(page.isFollowing());
    QVERIFY(page.followButton()->isChecked());
    QScrollBar *bar = page.treeView()->verticalScrollBar();

    qint64 clock = 1000;
    auto addCalls = [&](int from, int count) {
        for (int i = from; i < from + count; ++i) {
            const QString id = QStringLiteral("toolu_follow_%1").arg(i);
            live.append(toolUseLine(id, QStringLiteral("Bash"),
                            {{QStringLiteral("command"), QStringLiteral("echo %1").arg(i)}}),
                ++clock);
            live.append(toolResultLine(id, QString::number(i)), ++clock);
        }
    };
    addCalls(0, 120);
    QTRY_VERIFY(bar->maximum() > 0);
    QTRY_COMPARE(bar->value(), bar->maximum());

    // The user scrolls up: following stops, new events no longer move the view.
    QSignalSpy followChanges(&page, &RunPage::followingChanged);
    bar->setValue(0);
    QVERIFY(!page.isFollowing());
    QVERIFY(!page.followButton()->isChecked());
    QCOMPARE(followChanges.count(), 1);
    const int maximumBefore = bar->maximum();
    addCalls(120, 40);
    QTRY_VERIFY(bar->maximum() > maximumBefore);
    QTest::qWait(100);
    QCOMPARE(bar->value(), 0);

    // Back at the bottom: following again.
    bar->setValue(bar->maximum());
    QVERIFY(page.isFollowing());
    QVERIFY(page.followButton()->isChecked());
    addCalls(160, 40);
    QTRY_COMPARE(bar->value(), bar->maximum());

    // Esc in the tree stops following; the visible toggle resumes and jumps to the end.
    page.treeView()->setFocus();
    QTest::keyClick(page.treeView(), Qt::Key_Escape);
    QVERIFY(!page.isFollowing());
    bar->setValue(0);
    page.followButton()->click();
    QVERIFY(page.isFollowing());
    QTRY_COMPARE(bar->value(), bar->maximum());
}

void TestRunPage::earlierTurnsFoldOnlyWhileFollowing()
{
    // Three turns: the basic capture (one system/init each) fed three times.
    const QList<QByteArray> lines = captureLines(QStringLiteral("stream-basic.jsonl"));
    RunPage page;
    LiveLines live(&page);
    page.resize(900, 500);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QTreeView *tree = page.treeView();
    const QModelIndex run = page.proxy()->index(0, 0);
    auto feedTurn = [&] {
        for (const QByteArray &line : lines)
            live.append(line, 1000);
        page.flushEvents();
    };
    feedTurn();
    feedTurn();
    QCOMPARE(page.proxy()->rowCount(run), 2);
    // Following: the earlier turn folded away, the new one is open.
    QVERIFY(!tree->isExpanded(page.proxy()->index(0, 0, run)));
    QVERIFY(tree->isExpanded(page.proxy()->index(1, 0, run)));

    page.setFollowing(false);
    feedTurn();
    QCOMPARE(page.proxy()->rowCount(run), 3);
    // Not following: nothing the user may be reading is folded.
    QVERIFY(tree->isExpanded(page.proxy()->index(1, 0, run)));
    QVERIFY(tree->isExpanded(page.proxy()->index(2, 0, run)));
}

void TestRunPage::callsOpenedInATurnFoldWithItOnlyWhileFollowing_data()
{
    QTest::addColumn<bool>("following");
    QTest::newRow("following") << true;
    QTest::newRow("not following") << false;
}

// A call the page opened (its first child arrived) folds with its turn while following, so
// the tree keeps no open row per call of a long run; not following, it stays open.
void TestRunPage::callsOpenedInATurnFoldWithItOnlyWhileFollowing()
{
    QFETCH(bool, following);
    RunPage page;
    LiveLines live(&page);
    page.resize(900, 500);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QTreeView *tree = page.treeView();
    QString agentId;
    for (const QByteArray &line : captureLines(QStringLiteral("stream-subagent.jsonl"))) {
        live.append(line, 1000);
        const QString parent = objectOf(line).value(QLatin1String("parent_tool_use_id")).toString();
        if (!parent.isEmpty())
            agentId = parent;
    }
    page.flushEvents();
    QVERIFY(!agentId.isEmpty());
    const QPersistentModelIndex agent = findTool(page.proxy(), agentId);
    QVERIFY(agent.isValid());
    QTRY_VERIFY(tree->isExpanded(agent));

    page.setFollowing(following);
    for (const QByteArray &line : captureLines(QStringLiteral("stream-basic.jsonl")))
        live.append(line, 2000);
    page.flushEvents();
    const QModelIndex run = page.proxy()->index(0, 0);
    QCOMPARE(page.proxy()->rowCount(run), 2);
    QTRY_VERIFY(tree->isExpanded(page.proxy()->index(1, 0, run)));
    QCOMPARE(tree->isExpanded(agent.parent()), !following);
    QCOMPARE(tree->isExpanded(agent), !following);
}

void TestRunPage::liveLinesAreRecordedBeforeTheyAreShown()
{
    const QString path = m_dir.filePath(QStringLiteral("live.jsonl"));
    RunRecorder recorder;
    QVERIFY2(recorder.open(path), qPrintable(recorder.errorString()));
    RunPage page;
    LiveLines live(&page, &recorder);
    const QList<QByteArray> lines = captureLines(QStringLiteral("stream-basic.jsonl"));
    // Whenever the model grows, every line given so far (the one being shown included) is
    // already in the recording.
    int checks = 0;
    qint64 linesGiven = 0;
    connect(page.model(), &QAbstractItemModel::rowsInserted, this, [&] {
        RecordingReader reader;
        QVERIFY(reader.open(path));
        qint64 recorded = 0;
        RecordedLine line;
        while (reader.readLine(&line))
            ++recorded;
        QCOMPARE(recorded, linesGiven);
        ++checks;
    });
    qint64 clock = 5000;
    for (const QByteArray &line : lines) {
        ++linesGiven;
        live.append(line, clock += 10);
        page.flushEvents(); // show each line at once, as a quiet live run does
    }
    QVERIFY(checks > 0);
    RecordingReader reader;
    QVERIFY(reader.open(path));
    QList<QByteArray> recorded;
    RecordedLine line;
    while (reader.readLine(&line))
        recorded.append(line.line);
    QCOMPARE(recorded, lines);
}

void TestRunPage::runControlsAreDisabledPlaceholders()
{
    RunPage page;
    const QList<QWidget *> controls = page.runControls();
    QCOMPARE(controls.size(), 4);
    for (QWidget *control : controls) {
        QVERIFY2(!control->isEnabled(), qPrintable(control->objectName()));
        QCOMPARE(control->toolTip(), QStringLiteral("Available for live runs"));
    }
}

void TestRunPage::fileNodesLinkToTheirAbsolutePath()
{
    RunPage page;
    LiveLines live(&page);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    // The init line names claude's cwd (/home/alice/chat-demo): relative paths resolve there.
    live.append(captureLines(QStringLiteral("stream-basic.jsonl")).at(0), 900);
    const auto fileCall
        = [&live](const char *id, const char *tool, const char *key, const char *path, qint64 at) {
              live.append(toolUseLine(QLatin1String(id), QLatin1String(tool),
                              {{QLatin1String(key), QLatin1String(path)},
                                  {QStringLiteral("content"), QStringLiteral("x")}}),
                  at);
          };
    fileCall("toolu_w", "Write", "file_path", "/home/alice/chat-demo/out/../hello.py", 1000);
    fileCall("toolu_r", "Read", "file_path", "notes/today.md", 1100);
    fileCall("toolu_n", "NotebookEdit", "notebook_path", "lab/analysis.ipynb", 1200);
    fileCall("toolu_m", "MultiEdit", "file_path", "/etc/../tmp/a.txt", 1300);
    fileCall("toolu_home", "Edit", "file_path", "~/x.txt", 1400); // the home is not known
    live.append(toolUseLine(QStringLiteral("toolu_b"), QStringLiteral("Bash"),
                    {{QStringLiteral("command"), QStringLiteral("cat notes/today.md")}}),
        1500);
    page.flushEvents();

    QSignalSpy opened(&page, &RunPage::openFileRequested);
    const struct {
        const char *id;
        const char *expected;
    } cases[] = {{"toolu_w", "/home/alice/chat-demo/hello.py"},
        {"toolu_r", "/home/alice/chat-demo/notes/today.md"},
        {"toolu_n", "/home/alice/chat-demo/lab/analysis.ipynb"}, {"toolu_m", "/tmp/a.txt"}};
    for (const auto &expected : cases) {
        const QModelIndex node = findTool(page.proxy(), QLatin1String(expected.id));
        QVERIFY2(node.isValid(), expected.id);
        QCOMPARE(
            page.linkedFilePath(page.proxy()->mapToSource(node)), QLatin1String(expected.expected));
        select(page, node);
        QVERIFY(page.detailPane()->offersOpenFile());
        QVERIFY(page.openFileAction()->isEnabled());
        auto *button
            = page.detailPane()->findChild<QToolButton *>(QStringLiteral("openFileButton"));
        QVERIFY(button && button->isVisible());
        button->click();
        QCOMPARE(opened.count(), 1);
        QCOMPARE(opened.takeFirst(),
            QVariantList({QString(), QString(QLatin1String(expected.expected))}));
    }

    // The keyboard: Ctrl+Shift+O on the tree opens the current node's file.
    select(page, findTool(page.proxy(), QStringLiteral("toolu_r")));
    page.activateWindow();
    page.treeView()->setFocus();
    QVERIFY(QTest::qWaitForWindowActive(&page));
    QTest::keyClick(page.treeView(), Qt::Key_O, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(opened.count(), 1);
    QCOMPARE(opened.takeFirst().at(1).toString(),
        QStringLiteral("/home/alice/chat-demo/notes/today.md"));

    // Nodes without a resolvable file offer nothing and emit nothing.
    for (const char *id : {"toolu_b", "toolu_home"}) {
        const QModelIndex node = findTool(page.proxy(), QLatin1String(id));
        QVERIFY2(node.isValid(), id);
        select(page, node);
        QVERIFY2(!page.detailPane()->offersOpenFile(), id);
        QVERIFY(!page.openFileAction()->isEnabled());
        page.openFileOfCurrentNode();
        QCOMPARE(opened.count(), 0);
    }
    QVERIFY(page.noticeText().contains(QLatin1String("names no file")));
}

void TestRunPage::recordingPagesListNoArtifacts()
{
    RunPage page;
    QVERIFY(loadCapture(page, QStringLiteral("stream-basic.jsonl")));
    QVERIFY(page.artifactsPanel()->statusText().contains(QLatin1String("live runs")));
    QCOMPARE(page.artifactsPanel()->model()->rowCount(), 0);
    page.refreshArtifacts(); // nothing to scan: no client, no run start
    QCOMPARE(page.artifactsPanel()->model()->rowCount(), 0);
    QVERIFY(page.userId().isEmpty());
}

void TestRunPage::mainWindowOpensARecordingInAClosableTab()
{
    MainWindow window(m_dir.filePath(QStringLiteral("profiles.ini")));
    QAction *openAction = nullptr;
    for (QAction *action : window.menuBar()->actions().first()->menu()->actions()) {
        if (action->text() == QStringLiteral("Open &Run Recording…"))
            openAction = action;
    }
    QVERIFY(openAction);
    const int tabsBefore = window.pages()->count();
    RunPage *page
        = window.runTabs()->openRunFile(capturePath(QStringLiteral("stream-basic.jsonl")));
    QVERIFY(page);
    QCOMPARE(window.pages()->count(), tabsBefore + 1);
    QCOMPARE(window.pages()->currentWidget(), page);
    QCOMPARE(window.pages()->tabText(window.pages()->currentIndex()),
        QStringLiteral("stream-basic.jsonl"));
    QTRY_VERIFY(!page->isLoading());
    QCOMPARE(page->summaryBar()->outcomeText(), QStringLiteral("Succeeded"));

    QVERIFY(!window.runTabs()->openRunFile(m_dir.filePath(QStringLiteral("missing.jsonl"))));
    QCOMPARE(window.pages()->count(), tabsBefore + 1);

    auto *close = qobject_cast<QToolButton *>(
        window.pages()->tabBar()->tabButton(window.pages()->indexOf(page), QTabBar::RightSide));
    QVERIFY(close);
    QPointer<RunPage> watched(page);
    close->click();
    QTRY_VERIFY(watched.isNull());
    QCOMPARE(window.pages()->count(), tabsBefore);
}

void TestRunPage::screenshots_data()
{
    QTest::addColumn<QString>("capture");
    QTest::addColumn<QString>("file");
    QTest::newRow("sub-agent") << QStringLiteral("stream-subagent.jsonl")
                               << QStringLiteral("runpage.png");
    QTest::newRow("api errors") << QStringLiteral("stream-err-401.jsonl")
                                << QStringLiteral("runpage-err-401.png");
}

// Screenshots for review (QDir::tempPath()): the sub-agent run with its Agent call selected,
// the 401 run with its first error selected.
void TestRunPage::screenshots()
{
    QFETCH(QString, capture);
    QFETCH(QString, file);
    RunPage page;
    page.resize(1100, 720);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QVERIFY(loadCapture(page, capture));
    const QModelIndex agent = findIndex(page.proxy(), [](const QModelIndex &index) {
        return index.data(RunModel::ToolNameRole).toString() == QLatin1String("Agent");
    });
    if (agent.isValid())
        select(page, agent);
    else
        page.nextError();
    QVERIFY(page.treeView()->currentIndex().isValid());
    QTest::qWait(150);
    const QImage image = page.grab().toImage();
    QVERIFY(!image.isNull());
    const QString path = QDir::temp().filePath(file);
    QVERIFY(image.save(path));
    qInfo("run page screenshot: %s", qPrintable(path));
}

QTEST_MAIN(TestRunPage)
#include "tst_runpage_captures.moc"
