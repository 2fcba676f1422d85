// The main window around runs, end to end with a REAL multi-user open-terminal (the pinned
// OPEN_TERMINAL_VERSION), the REAL claude CLI and the scripted model server:
//  * a run whose tab was closed goes on in the sandbox; File → Attach to Run lists it as
//    running, attaching shows it again from its first line, and Stop ends it (audited);
//  * a run node's file opens in the Files tab (as the run's user);
//  * a stream-json file in the user's home opens in a run tab (the Files preview's
//    "Open as run");
//  * a session claude wrote without Sandscope (as Open WebUI's pipe runs it) opens in a tab,
//    is followed while another turn is added to it, selects a tool call on request, and is
//    resumed from the window (New Run for its chat with --resume).

#include "files/filespage.h"
#include "mainwindow.h"
#include "realserver.h"
#include "runs/attachrundialog.h"
#include "runs/newrundialog.h"
#include "runs/rundiscovery.h"
#include "runs/runpage.h"
#include "runs/runsession.h"
#include "runs/runtabs.h"
#include "runs/sessionspage.h"
#include "server/openterminalclient.h"
#include "sessions/sessiondiscovery.h"
#include "sessions/sessionlistmodel.h"
#include "sessions/sessionsearch.h"
#include "testing.h"
#include "util/shellquote.h"

#include <QDir>
#include <QFile>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTreeView>
#include <QUuid>
#include <QtTest>

#include <csignal>
#include <memory>

using namespace sandscope;
using namespace sandscope::test;

namespace {

constexpr int runTimeoutMs = 90000;

// The Bash calls of the page's run.
QList<QModelIndex> bashCalls(RunPage *page)
{
    page->flushEvents();
    QList<QModelIndex> calls;
    const QList<QModelIndex> nodes = allIndexes(page->model());
    for (const QModelIndex &index : nodes) {
        if (index.data(RunModel::ToolNameRole).toString() == QLatin1String("Bash"))
            calls << index;
    }
    return calls;
}

RunModel::Status statusOf(const QModelIndex &index)
{
    return RunModel::Status(index.data(RunModel::StatusRole).toInt());
}

QByteArray readWholeFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class RunWindowTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void closedRunIsListedReattachedAndStopped();
    void runNodeFileOpensInTheFilesTab();
    void streamJsonFileOpensAsARun();
    void sessionStartedElsewhereIsFollowedAndResumed();
    // Last: it restarts the server.
    void aRunCutWithTheServerIsInterruptedAndResumeContinuesIt();

private:
    // Runs claude as Open WebUI's pipe does (a plain command in the chat folder, environment
    // from a file) and waits for it to end; `resume` continues that session.
    bool runClaudeDirectly(
        const QString &chat, const QString &session, const QString &prompt, bool resume);
    bool ready() const { return m_server && m_model; }
    // The Sessions page listed again; the State cell of the session's row (invalid if absent).
    QModelIndex listedState(const QString &sessionId);
    LiveRunRequest request(const QString &chat, const QString &prompt) const;

    std::unique_ptr<RealServer> m_server;
    std::unique_ptr<ScriptedModelServer> m_model;
    std::unique_ptr<MainWindow> m_window;
    QTemporaryDir m_local;
    QString m_alice;
};

void RunWindowTest::initTestCase()
{
    QVERIFY(m_local.isValid());
    isolateLocalState(m_local.path());
    QString error;
    QVERIFY2(startAgentSandbox(&m_server, &m_model, &error), qPrintable(error));
    if (!ready())
        return; // every test reports the requirement itself
    m_alice = QStringLiteral("rw") + randomToken(6, true);

    m_window = std::make_unique<MainWindow>(m_local.filePath(QStringLiteral("profiles.ini")));
    QSignalSpy probed(m_window.get(), &MainWindow::serverChecked);
    m_window->connectToServer(m_server->connection(), m_alice);
    QTRY_COMPARE_WITH_TIMEOUT(probed.count(), 1, 60000);
    QVERIFY(m_window->isConnected());
}

QModelIndex RunWindowTest::listedState(const QString &sessionId)
{
    SessionsPage *sessions = m_window->sessionsPage();
    QSignalSpy listed(sessions, &SessionsPage::listingFinished);
    sessions->refresh();
    if (!listed.wait(60000) || !listed.constFirst().constFirst().toBool())
        return {};
    const SessionListModel *list = sessions->model();
    for (int row = 0; row < list->rowCount(); ++row) {
        if (list->session(row).sessionId == sessionId)
            return list->index(row, SessionListModel::StateColumn);
    }
    return {};
}

void RunWindowTest::aRunCutWithTheServerIsInterruptedAndResumeContinuesIt()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    const QString chat = QStringLiteral("cut-") + randomToken(4, true);
    QPointer<RunPage> page = m_window->runTabs()->startLiveRun(
        request(chat, QStringLiteral("CMD: echo cut-first; sleep 60")));
    QVERIFY(page);
    QVERIFY2(QTest::qWaitFor(
                 [&] {
                     const QList<QModelIndex> calls = bashCalls(page);
                     return !calls.isEmpty()
                         && statusOf(calls.first()) == RunModel::Status::Running;
                 },
                 runTimeoutMs),
        qPrintable(page->noticeText()));
    // What a container restart does: the agent's process group goes down with the server.
    const QStringList home
        = shellLines(m_window->client(), m_window->identity(), QStringLiteral("echo $HOME"));
    QCOMPARE(home.size(), 1);
    const QFileInfoList pidFiles
        = QDir(home.first().trimmed() + QStringLiteral("/.sandscope/runs/") + chat)
              .entryInfoList({QStringLiteral("*.pid")}, QDir::Files);
    QCOMPARE(pidFiles.size(), 1);
    const pid_t pid = pid_t(readWholeFile(pidFiles.first().filePath()).trimmed().toLongLong());
    QVERIFY(pid > 1);
    QSignalSpy turnFinished(page, &RunPage::liveTurnFinished);
    m_server->stop();
    QCOMPARE(::kill(-pid, SIGKILL), 0);
    QString error;
    QVERIFY2(m_server->start(&error), qPrintable(error));
    QVERIFY2(turnFinished.wait(runTimeoutMs), qPrintable(page->noticeText()));
    QCOMPARE(turnFinished.at(0).at(0).toBool(), false);
    QVERIFY2(
        page->noticeText().contains(QLatin1String("interrupted")), qPrintable(page->noticeText()));
    QVERIFY(statusOf(bashCalls(page).first()) != RunModel::Status::Running);
    auto *send = qobject_cast<QPushButton *>(page->runControls().at(2));
    QVERIFY(send);
    QCOMPARE(send->text(), QStringLiteral("Resume"));
    QVERIFY(send->isEnabled());
    QVERIFY2(send->toolTip().contains(page->sessionId()), qPrintable(send->toolTip()));
    if (!qEnvironmentVariableIsEmpty("SANDSCOPE_SCREENSHOT_DIR"))
        m_window->grab().save(
            qEnvironmentVariable("SANDSCOPE_SCREENSHOT_DIR") + QStringLiteral("/interrupted.png"));

    // Resume with an empty prompt: the same session goes on as a new turn of the tab.
    const QString session = page->sessionId();
    send->click();
    QVERIFY2(turnFinished.wait(runTimeoutMs), qPrintable(page->noticeText()));
    QCOMPARE(turnFinished.at(1).at(0).toBool(), true);
    QCOMPARE(page->sessionId(), session);
    QCOMPARE(send->text(), QStringLiteral("Send"));
}

void RunWindowTest::cleanupTestCase()
{
    m_window.reset();
    m_model.reset();
    m_server.reset();
}

LiveRunRequest RunWindowTest::request(const QString &chat, const QString &prompt) const
{
    LiveRunRequest request;
    request.identity = m_window->identity();
    request.scope = {QString(), m_server->url().toString(), m_alice};
    request.chatId = chat;
    request.prompt = prompt;
    request.options.allowedTools = QStringList {QStringLiteral("Bash")};
    request.environment = m_model->agentEnvironment(QStringLiteral("sk-ant-rw"));
    return request;
}

void RunWindowTest::closedRunIsListedReattachedAndStopped()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    const QString chat = QStringLiteral("rw-") + randomToken(4, true);
    const QString marker = randomToken(10, true);
    QPointer<RunPage> first = m_window->runTabs()->startLiveRun(
        request(chat, QStringLiteral("CMD: tail -f /dev/null; echo ") + marker));
    QVERIFY(first);
    QVERIFY2(QTest::qWaitFor(
                 [&] {
                     const QList<QModelIndex> calls = bashCalls(first);
                     return !calls.isEmpty()
                         && statusOf(calls.first()) == RunModel::Status::Running;
                 },
                 runTimeoutMs),
        qPrintable(first->noticeText()));
    // The status bar says how the run's lines arrive.
    const QLabel *live = m_window->findChild<QLabel *>(QStringLiteral("liveLabel"));
    QVERIFY(live);
    QTRY_COMPARE(live->text(), QStringLiteral("live: pushed"));
    QVERIFY2(live->toolTip().contains(m_window->identity().userId), qPrintable(live->toolTip()));

    // Closing the tab (what its close button does) leaves the run going in the sandbox.
    const int tabs = m_window->pages()->count();
    first->deleteLater();
    QTRY_VERIFY(first.isNull());
    QCOMPARE(m_window->pages()->count(), tabs - 1);

    AttachRunDialog dialog(m_window->client(), m_window->identity());
    QSignalSpy listed(&dialog, &AttachRunDialog::listingFinished);
    QVERIFY(listed.wait(60000));
    QCOMPARE(listed.at(0).at(0).toBool(), true);
    const DiscoveredRunModel *runs = dialog.model();
    int row = -1;
    for (int i = 0; i < runs->rowCount(); ++i) {
        if (runs->run(i).chatId == chat)
            row = i;
    }
    QVERIFY(row >= 0);
    QCOMPARE(runs->run(row).state, DiscoveredRun::State::Running);
    QVERIFY(runs->run(row).promptStart.contains(marker));
    QCOMPARE(dialog.selectedHandle().chatId, chat); // the newest run is preselected

    RunPage *attached = m_window->runTabs()->attachLiveRun(dialog.selectedHandle());
    QVERIFY(attached);
    QCOMPARE(m_window->pages()->currentWidget(), attached);
    QVERIFY2(QTest::qWaitFor([&] { return !bashCalls(attached).isEmpty(); }, runTimeoutMs),
        qPrintable(attached->noticeText()));
    QVERIFY(attached->isRunActive());
    const QModelIndex call = bashCalls(attached).first();
    QVERIFY(call.data(RunModel::SummaryRole).toString().contains(marker));
    QCOMPARE(statusOf(call), RunModel::Status::Running);

    QSignalSpy turnFinished(attached, &RunPage::liveTurnFinished);
    attached->stopRun();
    QVERIFY(turnFinished.wait(runTimeoutMs));
    QCOMPARE(turnFinished.at(0).at(0).toBool(), false);
    QVERIFY(statusOf(bashCalls(attached).first()) != RunModel::Status::Running);
    QVERIFY(!attached->isRunActive());
    const QByteArray audit = readWholeFile(m_local.filePath(QStringLiteral("audit.jsonl")));
    QVERIFY2(audit.contains("\"stop-run\"") && audit.contains(chat.toUtf8()), audit.constData());
}

void RunWindowTest::runNodeFileOpensInTheFilesTab()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    FilesPage *files = m_window->filesPage();
    QVERIFY(files);
    const QString home = QStringLiteral("/home/") + m_server->prefix() + m_alice;
    // A file the agent could have written, made through the API as the user.
    OpenTerminalClient *client = m_window->client();
    const QString path
        = home + QStringLiteral("/notes-") + randomToken(6, true) + QStringLiteral(".txt");
    const auto written = await<WriteResult>([&](auto done) {
        return client->writeFile(
            m_window->identity(), path, QStringLiteral("hello\n"), client, done);
    });
    QVERIFY2(written.ok(), qPrintable(written.error.toString()));

    // A run tab's link (its detail pane, context menu or Ctrl+Shift+O) asks for the file.
    RunPage *page = m_window->runTabs()->openRunFile(
        QStringLiteral(SANDSCOPE_TEST_DATA_DIR "/stream-basic.jsonl"));
    QVERIFY(page);
    Q_EMIT page->openFileRequested(m_alice, path);
    QCOMPARE(m_window->pages()->currentWidget(), files);
    QTRY_COMPARE_WITH_TIMEOUT(files->currentPath(), path, 30000);
    QCOMPARE(m_window->identity().userId, m_alice);
    delete page;
}

void RunWindowTest::streamJsonFileOpensAsARun()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    const QByteArray capture
        = readWholeFile(QStringLiteral(SANDSCOPE_TEST_DATA_DIR "/stream-basic.jsonl"));
    QVERIFY(!capture.isEmpty());
    auto *client = m_window->client();
    const QString home = QStringLiteral("/home/") + m_server->prefix() + m_alice;
    const auto uploaded = await<WriteResult>([&](auto done) {
        return client->uploadFile(
            m_window->identity(), home, QStringLiteral("saved-run.jsonl"), capture, client, done);
    });
    QVERIFY2(uploaded.ok(), qPrintable(uploaded.error.toString()));

    const int tabs = m_window->pages()->count();
    Q_EMIT m_window->filesPage()->openRunRequested(home + QStringLiteral("/saved-run.jsonl"));
    QTRY_COMPARE_WITH_TIMEOUT(m_window->pages()->count(), tabs + 1, 30000);
    auto *page = qobject_cast<RunPage *>(m_window->pages()->currentWidget());
    QVERIFY(page);
    QTRY_VERIFY_WITH_TIMEOUT(!page->isLoading(), 30000);
    page->flushEvents();
    QVERIFY(!bashCalls(page).isEmpty());
    QCOMPARE(readWholeFile(page->filePath()), capture); // the local copy is exact
    QVERIFY(m_window->pages()->tabToolTip(m_window->pages()->currentIndex()).contains(m_alice));
    delete page;
}

bool RunWindowTest::runClaudeDirectly(
    const QString &chat, const QString &session, const QString &prompt, bool resume)
{
    QByteArray envFile;
    const QHash<QString, QString> environment
        = m_model->agentEnvironment(QStringLiteral("sk-ant-rw"));
    for (auto it = environment.cbegin(); it != environment.cend(); ++it)
        envFile += it.key().toUtf8() + '=' + shell::quote(it.value()).toUtf8() + '\n';
    auto *client = m_window->client();
    const QString home = QStringLiteral("/home/") + m_server->prefix() + m_alice;
    const auto uploaded = await<WriteResult>([&](auto done) {
        return client->uploadFile(
            m_window->identity(), home, QStringLiteral(".webui-env"), envFile, client, done);
    });
    if (!uploaded.ok())
        return false;
    int exitCode = -1;
    shellLines(client, m_window->identity(),
        QStringLiteral("chmod 600 ~/.webui-env && set -a && . ~/.webui-env && set +a && "
                       "mkdir -p ~/chat-%1 && cd ~/chat-%1 && claude -p %2 %3 %4 "
                       "--output-format stream-json --verbose --allowedTools Bash "
                       "> /dev/null 2>&1 < /dev/null")
            .arg(chat, shell::quote(prompt),
                resume ? QStringLiteral("--resume") : QStringLiteral("--session-id"), session),
        runTimeoutMs, &exitCode);
    return exitCode == 0;
}

void RunWindowTest::sessionStartedElsewhereIsFollowedAndResumed()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    const QString chat = QStringLiteral("webui-") + randomToken(4, true);
    const QString session = QUuid::createUuid().toString(QUuid::WithoutBraces);
    QVERIFY(runClaudeDirectly(chat, session, QStringLiteral("CMD: echo first"), false));

    // Found the way the Sessions tab finds it.
    bool listed = false;
    sessiondiscovery::Listing listing;
    sessiondiscovery::discover(m_window->client(), m_window->identity(), m_window.get(),
        [&](bool ok, const sessiondiscovery::Listing &found, const QString &) {
            listed = ok;
            listing = found;
        });
    QTRY_VERIFY_WITH_TIMEOUT(listed, 60000);
    SessionSource source;
    for (const DiscoveredSession &found : sessiondiscovery::allSessions(listing)) {
        if (found.sessionId == session) {
            source = {m_window->identity(), found.path, found.sessionId, found.chatId, found.cwd,
                found.started};
        }
    }
    QCOMPARE(source.chatId, chat);

    QPointer<RunPage> page = m_window->runTabs()->openSession(source);
    QVERIFY(page);
    QTRY_VERIFY_WITH_TIMEOUT(
        page->sessionFollower()->state() == TranscriptFollower::State::Following, 30000);
    QCOMPARE(bashCalls(page).size(), 1);
    QVERIFY(page->noticeText().contains(QStringLiteral("Following session")));
    QCOMPARE(page->userId(), m_alice);

    // The tab saw the turn end (the CLI's cost record): the Sessions row is not "running now",
    // although the listing's guess (written in the last 30 s) says it is.
    SessionListModel *list = m_window->sessionsPage()->model();
    QTRY_COMPARE_WITH_TIMEOUT(
        list->knowledge(session), SessionListModel::Knowledge::EndSeen, 30000);
    QModelIndex state = listedState(session);
    QVERIFY(state.isValid());
    QVERIFY2(state.data(SessionListModel::SessionRole).value<DiscoveredSession>().running,
        "listed more than 30 s after the last write: the guess would agree anyway");
    QVERIFY(!state.data(SessionListModel::RunningRole).toBool());
    QVERIFY2(state.data(Qt::ToolTipRole).toString().contains(QLatin1String("tab following")),
        qPrintable(state.data(Qt::ToolTipRole).toString()));

    // Another turn, written by claude while the tab is open, appears in it.
    QVERIFY(runClaudeDirectly(chat, session, QStringLiteral("CMD: echo second"), true));
    QTRY_COMPARE_WITH_TIMEOUT(bashCalls(page).size(), 2, 60000);
    const QString second = bashCalls(page).last().data(RunModel::ToolUseIdRole).toString();

    // A search hit opens the session at its call: in the tab it has, never a second one.
    const auto currentNode = [](RunPage *shown) {
        return shown->proxy()->mapToSource(shown->treeView()->currentIndex());
    };
    const int before = m_window->pages()->count();
    m_window->pages()->setCurrentIndex(0);
    QPointer<RunPage> atCall = m_window->runTabs()->openSession(source, second);
    QCOMPARE(atCall.data(), page.data());
    QCOMPARE(m_window->pages()->count(), before);
    QCOMPARE(m_window->pages()->currentWidget(), page.data());
    QTRY_COMPARE_WITH_TIMEOUT(
        currentNode(page).data(RunModel::ToolUseIdRole).toString(), second, 30000);
    // A hit without a call (the second prompt) selects the node of its transcript line.
    bool searched = false;
    sessionsearch::Result found;
    sessionsearch::search(m_window->client(), m_window->identity(),
        QStringLiteral("CMD: echo second"), {}, m_window.get(),
        [&](bool ok, const sessionsearch::Result &result, const QString &) {
            searched = ok;
            found = result;
        });
    QTRY_VERIFY_WITH_TIMEOUT(searched, 60000);
    qint64 promptLine = 0;
    for (const SessionSearchHit &hit : std::as_const(found.hits)) {
        if (hit.sessionId == session && hit.recordType == QLatin1String("user")
            && hit.toolUseId.isEmpty() && promptLine == 0)
            promptLine = hit.line;
    }
    QVERIFY2(promptLine > 0, "the second prompt was not found by the search");
    m_window->runTabs()->openSession(source, {}, promptLine);
    QCOMPARE(m_window->pages()->count(), before);
    QCOMPARE(currentNode(page).data(RunModel::LineNumberRole).toLongLong(), promptLine);
    QCOMPARE(RunModel::NodeKind(currentNode(page).data(RunModel::KindRole).toInt()),
        RunModel::NodeKind::UserText);
    QVERIFY(currentNode(page)
                .data(Qt::DisplayRole)
                .toString()
                .contains(QLatin1String("CMD: echo second")));

    // Resume from the window: New Run for the chat, with --resume of that session. Each
    // change of the row's state is noted.
    QStringList rowStates;
    const QPersistentModelIndex stateCell = state;
    connect(list, &QAbstractItemModel::dataChanged, this, [&rowStates, stateCell] {
        const QString text = stateCell.data().toString();
        if (rowStates.isEmpty() || rowStates.constLast() != text)
            rowStates << text;
    });
    const int tabs = m_window->pages()->count();
    m_window->runTabs()->showContinueSessionDialog(source, false);
    NewRunDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = m_window->findChild<NewRunDialog *>()) != nullptr);
    dialog
        ->findChild<QPlainTextEdit *>(QStringLiteral("promptEdit"))
        // Long enough that the row is seen running while it runs, also on a loaded machine.
        ->setPlainText(QStringLiteral("CMD: sleep 3; echo third"));
    QString environment;
    const QHash<QString, QString> agent = m_model->agentEnvironment(QStringLiteral("sk-ant-rw"));
    for (auto it = agent.cbegin(); it != agent.cend(); ++it)
        environment += it.key() + QLatin1Char('=') + it.value() + QLatin1Char('\n');
    dialog->findChild<QPlainTextEdit *>(QStringLiteral("environmentEdit"))
        ->setPlainText(environment);
    dialog->accept();
    QTRY_COMPARE_WITH_TIMEOUT(m_window->pages()->count(), tabs + 1, 30000);
    auto *resumed = qobject_cast<RunPage *>(m_window->pages()->currentWidget());
    QVERIFY(resumed);
    QCOMPARE(resumed->liveRequest()->options.resumeSessionId, session);
    QTRY_VERIFY_WITH_TIMEOUT(
        !resumed->isRunActive() && !bashCalls(resumed).isEmpty(), runTimeoutMs);
    // While it ran here the row was running, whatever the guess; it is not once it ended.
    QVERIFY2(rowStates.contains(QStringLiteral("running now")),
        qPrintable(rowStates.join(QLatin1Char(','))));
    QCOMPARE(rowStates.constLast(), QString());
    QCOMPARE(list->knowledge(session), SessionListModel::Knowledge::EndedHere);
    const int row = state.row();
    QVERIFY(!list->index(row, SessionListModel::StateColumn)
                 .data(SessionListModel::RunningRole)
                 .toBool()); // at once, without listing again
    state = listedState(session);
    QVERIFY2(state.data(SessionListModel::SessionRole).value<DiscoveredSession>().running,
        "listed more than 30 s after the last write: the guess would agree anyway");
    QVERIFY(!state.data(SessionListModel::RunningRole).toBool());
    QVERIFY2(state.data(Qt::ToolTipRole).toString().contains(QLatin1String("Sandscope ran")),
        qPrintable(state.data(Qt::ToolTipRole).toString()));
    QCOMPARE(resumed->sessionId(), session);
    // ... and the followed tab shows that turn too.
    QTRY_COMPARE_WITH_TIMEOUT(bashCalls(page).size(), 3, 60000);
    disconnect(list, &QAbstractItemModel::dataChanged, this, nullptr);
    delete resumed;
    delete page;
}

QTEST_MAIN(RunWindowTest)
#include "tst_mainwindow_runs.moc"
