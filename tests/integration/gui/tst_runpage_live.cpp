// Live agent runs in the GUI, end to end: a REAL multi-user open-terminal (the pinned
// OPEN_TERMINAL_VERSION) runs the REAL claude CLI as sandbox accounts against the scripted
// model server, driven through RunPage's live API (the New Run dialog only builds the
// LiveRunRequest value these tests build directly):
//  * a run shows its Bash call ok and the summary bar says it succeeded; the session is
//    recorded in the session store;
//  * a follow-up resumes the same session as a second turn in the same page;
//  * Stop ends a running call: no result, the call is no longer running, the run interrupted;
//  * two users run in two tabs of the main window at once, and both finish;
//  * the agent's API key never appears in the page's text or in the recording, also when a
//    tool prints it;
//  * the Artifacts tab lists what a run wrote in its chat folder (not the older files), again
//    after a follow-up modified an old one; the Write node and the artifact open their file
//    by absolute path as the run's user;
//  * attachments are uploaded byte for byte under names that overwrite nothing (sha256sum on
//    the server) and named in the prompt the model receives; in read-only mode they are
//    refused and audited, the turn does not start, and Send retries with nothing lost;
//  * the New Run dialog (ui/newrundialog.ui) takes dropped files as attachments and refuses
//    missing ones.

#include "mainwindow.h"
#include "realserver.h"
#include "runs/artifactscanner.h"
#include "runs/artifactspanel.h"
#include "runs/attachmentlist.h"
#include "runs/newrundialog.h"
#include "runs/rundetailpane.h"
#include "runs/runpage.h"
#include "runs/runsession.h"
#include "runs/runsummarybar.h"
#include "runs/runtabs.h"
#include "security/profilestore.h"
#include "server/openterminalclient.h"
#include "sessions/sessionstore.h"
#include "testing.h"

#include <QApplication>
#include <QComboBox>
#include <QCryptographicHash>
#include <QDir>
#include <QDropEvent>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeView>
#include <QtTest>

#include <memory>

using namespace sandscope;
using namespace sandscope::test;

namespace {

constexpr int runTimeoutMs = 90000;

QList<QModelIndex> nodesOfKind(const RunModel *model, RunModel::NodeKind kind)
{
    QList<QModelIndex> found;
    const QList<QModelIndex> nodes = allIndexes(model);
    for (const QModelIndex &index : nodes) {
        if (RunModel::NodeKind(index.data(RunModel::KindRole).toInt()) == kind)
            found << index;
    }
    return found;
}

QList<QModelIndex> bashCalls(const RunModel *model)
{
    QList<QModelIndex> calls;
    const QList<QModelIndex> tools = nodesOfKind(model, RunModel::NodeKind::ToolCall);
    for (const QModelIndex &index : tools) {
        if (index.data(RunModel::ToolNameRole).toString() == QLatin1String("Bash"))
            calls << index;
    }
    return calls;
}

RunModel::Status statusOf(const QModelIndex &index)
{
    return RunModel::Status(index.data(RunModel::StatusRole).toInt());
}

// Everything the page shows as text: every node's title, text and raw line, the notice and
// the summary bar.
QString pageText(RunPage *page)
{
    page->flushEvents();
    QStringList parts {page->noticeText(), page->summaryBar()->text()};
    const QList<QModelIndex> nodes = allIndexes(page->model());
    for (const QModelIndex &index : nodes) {
        for (int column = 0; column < page->model()->columnCount(index.parent()); ++column)
            parts << index.sibling(index.row(), column).data(Qt::DisplayRole).toString();
        parts << index.data(RunModel::TextRole).toString()
              << index.data(Qt::ToolTipRole).toString();
    }
    return parts.join(QLatin1Char('\n'));
}

QString readWholeFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

} // namespace

class LiveRunTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void runShowsItsBashCallOkAndSucceeds();
    void followUpResumesTheSameSessionAsASecondTurn();
    void stopEndsTheRunningCall();
    void twoUsersRunInTwoTabsAtOnce();
    void agentSecretPrintedByAToolIsMasked();
    void newRunDialogBuildsTheRequestAndKeepsTheEnvironmentHidden();
    void newRunDialogTakesDroppedFilesAsAttachments();
    void artifactsListWhatTheRunWroteAndLinkToIt();
    void attachmentsAreUploadedExactlyAndNamedInThePrompt();
    void readOnlyRefusesAttachmentsAndSendRetriesWithNothingLost();

private:
    bool ready() const { return m_server && m_model; }
    LiveRunRequest request(const Identity &identity, const QString &chat, const QString &prompt);
    std::unique_ptr<RunPage> newPage();
    // Starts the page's run (or follow-up) and waits for the turn to end.
    bool waitForTurn(RunPage *page, QSignalSpy &finished, int count);
    void verifySecretNotShown(RunPage *page);
    // Output lines of a short command run as `who`.
    QStringList shell(const Identity &who, const QString &command);
    QString homeOf(const Identity &who);
    QString localFile(const QString &name, const QByteArray &bytes);

    std::unique_ptr<RealServer> m_server;
    std::unique_ptr<ScriptedModelServer> m_model;
    std::unique_ptr<OpenTerminalClient> m_client;
    QTemporaryDir m_local;
    QString m_secret;
    Identity m_alice;
};

void LiveRunTest::initTestCase()
{
    QVERIFY(m_local.isValid());
    isolateLocalState(m_local.path());
    QString error;
    QVERIFY2(
        startAgentSandbox(&m_server, &m_model, &error, {QStringLiteral("--log-prompt-blocks")}),
        qPrintable(error));
    if (!ready())
        return; // every test reports the requirement itself
    m_client = std::make_unique<OpenTerminalClient>(m_server->connection());
    m_secret = QLatin1String("sk-ant-liverun-") + randomToken(32);
    m_alice = {QStringLiteral("live") + randomToken(6, true), QString()};
}

void LiveRunTest::cleanupTestCase()
{
    m_client.reset();
    m_model.reset();
    m_server.reset();
}

LiveRunRequest LiveRunTest::request(
    const Identity &identity, const QString &chat, const QString &prompt)
{
    LiveRunRequest request;
    request.identity = identity;
    request.scope = {QString(), m_server->url().toString(), identity.userId};
    request.chatId = chat;
    request.prompt = prompt;
    request.options.allowedTools = QStringList {QStringLiteral("Bash")};
    request.environment = m_model->agentEnvironment(m_secret);
    return request;
}

std::unique_ptr<RunPage> LiveRunTest::newPage()
{
    auto page = std::make_unique<RunPage>();
    page->setRecordingDirectory(m_local.filePath(QStringLiteral("recordings")));
    page->setStopGraceMs(2000);
    return page;
}

bool LiveRunTest::waitForTurn(RunPage *page, QSignalSpy &finished, int count)
{
    const bool ended
        = QTest::qWaitFor([&finished, count] { return finished.count() >= count; }, runTimeoutMs);
    page->flushEvents();
    return ended;
}

void LiveRunTest::verifySecretNotShown(RunPage *page)
{
    QVERIFY(!page->recordingPath().isEmpty());
    const QString recording = readWholeFile(page->recordingPath());
    QVERIFY2(recording.contains(QLatin1String("\"line\"")), qPrintable(recording.left(2000)));
    QVERIFY(!recording.contains(m_secret));
    QVERIFY(!pageText(page).contains(m_secret));
}

void LiveRunTest::runShowsItsBashCallOkAndSucceeds()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    auto page = newPage();
    QSignalSpy finished(page.get(), &RunPage::liveTurnFinished);
    const QString token = randomToken(10, true);
    const QString chat = QStringLiteral("live-") + randomToken(6, true);
    QString why;
    QVERIFY2(page->startLiveRun(m_client.get(),
                 request(m_alice, chat, QStringLiteral("CMD: echo live-") + token), &why),
        qPrintable(why));
    QVERIFY(page->isRunActive());
    QVERIFY(page->runControls().at(0)->isEnabled()); // Stop
    QVERIFY(waitForTurn(page.get(), finished, 1));
    QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(pageText(page.get())));

    const QList<QModelIndex> calls = bashCalls(page->model());
    QCOMPARE(int(calls.size()), 1);
    QCOMPARE(statusOf(calls.at(0)), RunModel::Status::Ok);
    QVERIFY(
        calls.at(0).data(RunModel::TextRole).toString().contains(QStringLiteral("live-") + token));
    QTRY_COMPARE(page->summaryBar()->outcomeText(), QStringLiteral("Succeeded"));

    QVERIFY(!page->sessionId().isEmpty());
    const SessionScope scope {QString(), m_server->url().toString(), m_alice.userId};
    QCOMPARE(SessionStore().latest(scope, chat).sessionId, page->sessionId());
    QVERIFY(!page->runControls().at(0)->isEnabled()); // nothing to stop
    QVERIFY(page->runControls().at(2)->isEnabled()); // Send: the session can be resumed
    verifySecretNotShown(page.get());
}

void LiveRunTest::followUpResumesTheSameSessionAsASecondTurn()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    auto page = newPage();
    QSignalSpy finished(page.get(), &RunPage::liveTurnFinished);
    const QString chat = QStringLiteral("follow-") + randomToken(6, true);
    QVERIFY(page->startLiveRun(
        m_client.get(), request(m_alice, chat, QStringLiteral("CMD: echo first"))));
    QVERIFY(!page->sendFollowUp(QStringLiteral("CMD: echo too-early"))); // still running
    QVERIFY(waitForTurn(page.get(), finished, 1));
    QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(pageText(page.get())));
    const QString firstSession = page->sessionId();
    QVERIFY(!firstSession.isEmpty());

    // Through the controls, as a user does it.
    auto *followUp = qobject_cast<QLineEdit *>(page->runControls().at(1));
    QVERIFY(followUp);
    followUp->setText(QStringLiteral("CMD: echo second"));
    qobject_cast<QPushButton *>(page->runControls().at(2))->click();
    QVERIFY(page->isRunActive());
    QVERIFY2(page->noticeText().contains(firstSession), qPrintable(page->noticeText()));
    QCOMPARE(page->liveRequest()->options.resumeSessionId, firstSession);
    QVERIFY(waitForTurn(page.get(), finished, 2));
    QVERIFY2(finished.at(1).at(0).toBool(), qPrintable(pageText(page.get())));

    QCOMPARE(page->sessionId(), firstSession);
    QCOMPARE(int(nodesOfKind(page->model(), RunModel::NodeKind::Turn).size()), 2);
    const QList<QModelIndex> calls = bashCalls(page->model());
    QCOMPARE(int(calls.size()), 2);
    QCOMPARE(statusOf(calls.at(1)), RunModel::Status::Ok);
    QVERIFY(calls.at(1).data(RunModel::TextRole).toString().contains(QLatin1String("second")));
    QTRY_COMPARE(page->summaryBar()->outcomeText(), QStringLiteral("Succeeded"));
    verifySecretNotShown(page.get());
}

void LiveRunTest::stopEndsTheRunningCall()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    auto page = newPage();
    QSignalSpy finished(page.get(), &RunPage::liveTurnFinished);
    QVERIFY(page->startLiveRun(m_client.get(),
        request(m_alice, QStringLiteral("stop-") + randomToken(6, true),
            QStringLiteral("CMD: sleep 20; echo x"))));
    QVERIFY2(QTest::qWaitFor(
                 [&] {
                     page->flushEvents();
                     return !finished.isEmpty() || !bashCalls(page->model()).isEmpty();
                 },
                 runTimeoutMs),
        qPrintable(pageText(page.get())));
    QVERIFY(finished.isEmpty());
    QCOMPARE(statusOf(bashCalls(page->model()).at(0)), RunModel::Status::Running);
    qobject_cast<QPushButton *>(page->runControls().at(0))->click();
    QVERIFY(waitForTurn(page.get(), finished, 1));
    QCOMPARE(finished.at(0).at(0).toBool(), false);

    const RunSummary summary = page->model()->summary();
    QVERIFY(!summary.hasResult);
    const RunModel::Status callStatus = statusOf(bashCalls(page->model()).at(0));
    // The call never answered normally: interrupted, or failed by the signal (exit 143/137).
    QVERIFY2(callStatus == RunModel::Status::Interrupted || callStatus == RunModel::Status::Error,
        qPrintable(pageText(page.get())));
    QCOMPARE(statusOf(page->model()->runIndex()), RunModel::Status::Interrupted);
    QTRY_COMPARE(page->summaryBar()->outcomeText(),
        QStringLiteral("Interrupted: the last turn did not finish"));
    QVERIFY(!page->runControls().at(0)->isEnabled());
    verifySecretNotShown(page.get());
}

void LiveRunTest::twoUsersRunInTwoTabsAtOnce()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    MainWindow window(m_local.filePath(QStringLiteral("profiles.json")));
    QSignalSpy probed(&window, &MainWindow::serverChecked);
    window.connectToServer(m_server->connection(), m_alice.userId);
    QVERIFY(probed.wait(30000));
    const Identity bob {QStringLiteral("livebob") + randomToken(5, true), QString()};
    const int tabsBefore = window.pages()->count();

    RunPage *first = window.runTabs()->startLiveRun(
        request(m_alice, QStringLiteral("two-a"), QStringLiteral("CMD: sleep 2; echo from-a")));
    RunPage *second = window.runTabs()->startLiveRun(
        request(bob, QStringLiteral("two-b"), QStringLiteral("CMD: sleep 2; echo from-b")));
    QVERIFY(first && second);
    QCOMPARE(window.pages()->count(), tabsBefore + 2);
    // Each tab names its user and chat, and the time it started (tabs of one chat differ).
    const QRegularExpression title(QStringLiteral("^(\\S+) · (\\S+) · \\d\\d:\\d\\d$"));
    const QRegularExpressionMatch firstTitle
        = title.match(window.pages()->tabText(window.pages()->indexOf(first)));
    const QRegularExpressionMatch secondTitle
        = title.match(window.pages()->tabText(window.pages()->indexOf(second)));
    QVERIFY(firstTitle.hasMatch() && secondTitle.hasMatch());
    QCOMPARE(firstTitle.captured(1), m_alice.userId);
    QCOMPARE(firstTitle.captured(2), QStringLiteral("two-a"));
    QCOMPARE(secondTitle.captured(1), bob.userId);
    QCOMPARE(secondTitle.captured(2), QStringLiteral("two-b"));
    // Where a follow-up is typed, the page says as whom it will run.
    QVERIFY(qobject_cast<QLineEdit *>(second->runControls().at(1))
                ->placeholderText()
                .contains(bob.userId));
    // Both stream at the same time: each is running while the other has not finished.
    QVERIFY(first->isRunActive() && second->isRunActive());
    QSignalSpy firstDone(first, &RunPage::liveTurnFinished);
    QSignalSpy secondDone(second, &RunPage::liveTurnFinished);
    QVERIFY(QTest::qWaitFor(
        [&] { return !firstDone.isEmpty() && !secondDone.isEmpty(); }, runTimeoutMs));
    QVERIFY2(firstDone.at(0).at(0).toBool(), qPrintable(pageText(first)));
    QVERIFY2(secondDone.at(0).at(0).toBool(), qPrintable(pageText(second)));
    first->flushEvents();
    second->flushEvents();
    const QString firstOutput
        = bashCalls(first->model()).value(0).data(RunModel::TextRole).toString();
    const QString secondOutput
        = bashCalls(second->model()).value(0).data(RunModel::TextRole).toString();
    QVERIFY2(firstOutput.contains(QLatin1String("from-a")), qPrintable(firstOutput));
    QVERIFY2(secondOutput.contains(QLatin1String("from-b")), qPrintable(secondOutput));
    // Each ran in its own account's chat directory (the run node shows claude's cwd).
    const QString firstCwd = first->model()->runIndex().data(RunModel::TextRole).toString();
    const QString secondCwd = second->model()->runIndex().data(RunModel::TextRole).toString();
    QVERIFY2(firstCwd.endsWith(QLatin1String("chat-two-a")), qPrintable(firstCwd));
    QVERIFY2(secondCwd.endsWith(QLatin1String("chat-two-b")), qPrintable(secondCwd));
    QVERIFY(QFileInfo(firstCwd).path() != QFileInfo(secondCwd).path()); // two homes
    QVERIFY(!pageText(first).contains(m_secret));
    QVERIFY(!pageText(second).contains(m_secret));
}

void LiveRunTest::agentSecretPrintedByAToolIsMasked()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    auto page = newPage();
    QSignalSpy finished(page.get(), &RunPage::liveTurnFinished);
    QVERIFY(page->startLiveRun(m_client.get(),
        request(m_alice, QStringLiteral("mask-") + randomToken(6, true),
            QStringLiteral("CMD: echo key=$ANTHROPIC_API_KEY"))));
    QVERIFY(waitForTurn(page.get(), finished, 1));
    const QString output = bashCalls(page->model()).value(0).data(RunModel::TextRole).toString();
    // The tool really printed the key, and the page got it masked.
    QVERIFY2(output.contains(QLatin1String("key=") + QString::fromUtf16(SecretRedactor::mask)),
        qPrintable(output));
    verifySecretNotShown(page.get());
}

// Needs no server: the chat list simply stays at "New chat".
void LiveRunTest::newRunDialogBuildsTheRequestAndKeepsTheEnvironmentHidden()
{
    ServerConnection unreachable;
    unreachable.baseUrl = QUrl(QStringLiteral("http://127.0.0.1:9"));
    unreachable.timeoutMs = 2000;
    OpenTerminalClient client(unreachable);
    KeyStore keys(m_local.filePath(QStringLiteral("keys")));
    keys.setKeyringEnabled(false);
    const SessionScope scope {QStringLiteral("work"), QString(), QStringLiteral("alice")};
    const QString secret = QLatin1String("sk-ant-dialog-") + randomToken(24);

    NewRunDialog dialog(&client, {QStringLiteral("alice"), QString()}, scope, &keys);
    dialog.findChild<QPlainTextEdit *>(QStringLiteral("promptEdit"))
        ->setPlainText(QStringLiteral("CMD: echo hi"));
    auto *environment = dialog.findChild<QPlainTextEdit *>(QStringLiteral("environmentEdit"));
    environment->setPlainText(QStringLiteral("export ANTHROPIC_API_KEY='%1'\n# comment\n"
                                             "ANTHROPIC_BASE_URL=http://127.0.0.1:1\n")
                                  .arg(secret));
    QSignalSpy accepted(&dialog, &QDialog::accepted);
    dialog.accept();
    QCOMPARE(accepted.count(), 1);

    const LiveRunRequest request = dialog.request();
    QCOMPARE(request.identity.userId, QStringLiteral("alice"));
    QCOMPARE(request.prompt, QStringLiteral("CMD: echo hi"));
    QVERIFY2(claudecommand::isValidChatId(request.chatId), qPrintable(request.chatId));
    QCOMPARE(request.environment.value(QStringLiteral("ANTHROPIC_API_KEY")), secret);
    QCOMPARE(request.environment.size(), 2);
    QVERIFY(environment->toPlainText().isEmpty()); // not kept on screen

    // Stored under the profile's name; a new dialog names the variables, never the values.
    const QString storedFile = keys.fallbackFile(NewRunDialog::environmentKeyName(scope));
    QTRY_VERIFY(readWholeFile(storedFile).contains(secret));
    NewRunDialog again(&client, {QStringLiteral("alice"), QString()}, scope, &keys);
    const auto namesStoredVariable = [&again] {
        const QList<QLabel *> labels = again.findChildren<QLabel *>();
        return std::any_of(labels.cbegin(), labels.cend(), [](const QLabel *label) {
            return label->text().contains(QLatin1String("ANTHROPIC_API_KEY"));
        });
    };
    QTRY_VERIFY(namesStoredVariable());
    const QList<QWidget *> widgets = again.findChildren<QWidget *>();
    for (const QWidget *widget : widgets) {
        QString shown;
        if (const auto *label = qobject_cast<const QLabel *>(widget))
            shown = label->text();
        else if (const auto *edit = qobject_cast<const QPlainTextEdit *>(widget))
            shown = edit->toPlainText();
        else if (const auto *line = qobject_cast<const QLineEdit *>(widget))
            shown = line->text();
        QVERIFY(!shown.contains(secret));
    }
    // Left empty, the stored environment is used.
    again.findChild<QPlainTextEdit *>(QStringLiteral("promptEdit"))
        ->setPlainText(QStringLiteral("again"));
    again.accept();
    QCOMPARE(again.request().environment.value(QStringLiteral("ANTHROPIC_API_KEY")), secret);

    // A malformed line is refused without echoing anything of it.
    NewRunDialog refused(&client, {QStringLiteral("alice"), QString()}, scope, &keys);
    refused.findChild<QPlainTextEdit *>(QStringLiteral("promptEdit"))
        ->setPlainText(QStringLiteral("x"));
    refused.findChild<QPlainTextEdit *>(QStringLiteral("environmentEdit"))
        ->setPlainText(QStringLiteral("not an assignment ") + secret);
    QSignalSpy refusedAccepted(&refused, &QDialog::accepted);
    refused.accept();
    QCOMPARE(refusedAccepted.count(), 0);
}

QStringList LiveRunTest::shell(const Identity &who, const QString &command)
{
    return shellLines(m_client.get(), who, command);
}

QString LiveRunTest::homeOf(const Identity &who)
{
    const auto cwd = await<CwdInfo>([&](auto done) {
        return m_client->cwd(Identity {who.userId, {}}, m_client.get(), done);
    });
    return !cwd.ok() ? QString() : cwd.value.home.isEmpty() ? cwd.value.cwd : cwd.value.home;
}

QString LiveRunTest::localFile(const QString &name, const QByteArray &bytes)
{
    QDir().mkpath(m_local.filePath(QStringLiteral("attach")));
    const QString path = m_local.filePath(QStringLiteral("attach/") + name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
        return {};
    return path;
}

void LiveRunTest::newRunDialogTakesDroppedFilesAsAttachments()
{
    ServerConnection unreachable;
    unreachable.baseUrl = QUrl(QStringLiteral("http://127.0.0.1:9"));
    unreachable.timeoutMs = 2000;
    OpenTerminalClient client(unreachable);
    const SessionScope scope {QStringLiteral("work"), QString(), QStringLiteral("alice")};
    NewRunDialog dialog(&client, {QStringLiteral("alice"), QString()}, scope, nullptr);
    // The form comes from ui/newrundialog.ui: labels lead to their fields.
    auto *chatLabel = dialog.findChild<QLabel *>(QStringLiteral("chatLabel"));
    QVERIFY(chatLabel);
    QCOMPARE(chatLabel->buddy(), dialog.findChild<QComboBox *>(QStringLiteral("chatCombo")));
    auto *prompt = dialog.findChild<QPlainTextEdit *>(QStringLiteral("promptEdit"));
    prompt->setPlainText(QStringLiteral("Look at the files"));

    const QString first = localFile(QStringLiteral("dropped.bin"), QByteArray("\x00\x01", 2));
    const QString second = localFile(QStringLiteral("second.txt"), "two");
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(first), QUrl::fromLocalFile(second),
        QUrl::fromLocalFile(m_local.path())}); // a folder is not attached
    // As a drag does it: the drop goes to the widget that accepted the drag.
    QDragEnterEvent enter(QPoint(5, 5), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(prompt->viewport(), &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(5, 5), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(prompt->viewport(), &drop);
    QVERIFY(drop.isAccepted());
    QCOMPARE(dialog.attachments(), QStringList({first, second}));
    QCOMPARE(prompt->toPlainText(), QStringLiteral("Look at the files")); // no URL text added
    dialog.addAttachments({first}); // already listed
    QCOMPARE(dialog.attachments().size(), 2);

    // Delete removes the selected one.
    auto *list = dialog.findChild<AttachmentList *>(QStringLiteral("attachmentList"));
    list->setCurrentRow(0);
    QTest::keyClick(list, Qt::Key_Delete);
    QCOMPARE(dialog.attachments(), QStringList({second}));

    // A file gone before Start is refused by name; the dialog stays open.
    QVERIFY(QFile::remove(second));
    QSignalSpy accepted(&dialog, &QDialog::accepted);
    dialog.accept();
    QCOMPARE(accepted.count(), 0);
    auto *error = dialog.findChild<QLabel *>(QStringLiteral("errorLabel"));
    QVERIFY2(error->text().contains(second), qPrintable(error->text()));
    list->setCurrentRow(0);
    dialog.findChild<QPushButton *>(QStringLiteral("removeAttachmentButton"))->click();
    QVERIFY(dialog.attachments().isEmpty());
    dialog.accept();
    QCOMPARE(accepted.count(), 1);
    QCOMPARE(dialog.request().prompt, QStringLiteral("Look at the files"));
}

void LiveRunTest::artifactsListWhatTheRunWroteAndLinkToIt()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    const QString chat = QStringLiteral("art-") + randomToken(6, true);
    const QString home = homeOf(m_alice);
    QVERIFY(home.startsWith(QLatin1Char('/')));
    const QString folder = home + QStringLiteral("/chat-") + chat;
    // Made before the run: never an artifact of it, until the run changes it.
    QVERIFY(shell(m_alice,
        QStringLiteral("mkdir -p %1/old && printf old > %1/old/untouched.txt && printf old > "
                       "%1/later.txt && echo made")
            .arg(folder))
                .contains(QStringLiteral("made")));

    auto page = newPage();
    QSignalSpy finished(page.get(), &RunPage::liveTurnFinished);
    QSignalSpy listed(page.get(), &RunPage::artifactsListed);
    LiveRunRequest first = request(
        m_alice, chat, QStringLiteral("WRITE: %1/made/result.txt hello artifacts").arg(folder));
    first.options.allowedTools << QStringLiteral("Write");
    QVERIFY(page->startLiveRun(m_client.get(), first));
    QVERIFY(waitForTurn(page.get(), finished, 1));
    QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(pageText(page.get())));

    ArtifactListModel *artifacts = page->artifactsPanel()->model();
    const QString written = folder + QStringLiteral("/made/result.txt");
    QVERIFY2(QTest::qWaitFor([&] { return artifacts->rowOfPath(written) >= 0; }, 30000),
        qPrintable(page->artifactsPanel()->statusText()));
    QVERIFY(!listed.isEmpty());
    const int row = artifacts->rowOfPath(written);
    QCOMPARE(artifacts->files().at(row).relativePath, QStringLiteral("made/result.txt"));
    QCOMPARE(artifacts->files().at(row).size, qint64(qstrlen("hello artifacts")));
    QCOMPARE(artifacts->rowOfPath(folder + QStringLiteral("/old/untouched.txt")), -1);
    QCOMPARE(artifacts->rowOfPath(folder + QStringLiteral("/later.txt")), -1);

    // The Write node links to the same absolute file, as alice.
    QSignalSpy opened(page.get(), &RunPage::openFileRequested);
    const QList<QModelIndex> tools = nodesOfKind(page->model(), RunModel::NodeKind::ToolCall);
    const auto write = std::find_if(tools.cbegin(), tools.cend(), [](const QModelIndex &index) {
        return index.data(RunModel::ToolNameRole).toString() == QLatin1String("Write");
    });
    QVERIFY(write != tools.cend());
    QCOMPARE(statusOf(*write), RunModel::Status::Ok);
    page->treeView()->setCurrentIndex(page->proxy()->mapFromSource(*write));
    page->detailPane()->findChild<QToolButton *>(QStringLiteral("openFileButton"))->click();
    QCOMPARE(opened.count(), 1);
    QCOMPARE(opened.takeFirst(), QVariantList({m_alice.userId, written}));
    // … and so does the artifact.
    QTreeView *view = page->artifactsPanel()->view();
    const QModelIndexList hits = view->model()->match(view->model()->index(0, 0),
        ArtifactListModel::AbsolutePathRole, written, 1, Qt::MatchExactly);
    QCOMPARE(hits.size(), 1);
    view->setCurrentIndex(hits.first());
    page->artifactsPanel()
        ->findChild<QToolButton *>(QStringLiteral("artifactsOpenButton"))
        ->click();
    QCOMPARE(opened.count(), 1);
    QCOMPARE(opened.takeFirst(), QVariantList({m_alice.userId, written}));

    // A follow-up that changes an old file: listed after that turn, the untouched one still not.
    const int listingsBefore = int(listed.count());
    QVERIFY(page->sendFollowUp(QStringLiteral("CMD: printf more >> later.txt && echo appended")));
    QVERIFY(waitForTurn(page.get(), finished, 2));
    QVERIFY2(finished.at(1).at(0).toBool(), qPrintable(pageText(page.get())));
    QVERIFY(QTest::qWaitFor(
        [&] { return artifacts->rowOfPath(folder + QStringLiteral("/later.txt")) >= 0; }, 30000));
    QVERIFY(listed.count() > listingsBefore);
    QVERIFY(artifacts->rowOfPath(written) >= 0);
    QCOMPARE(artifacts->rowOfPath(folder + QStringLiteral("/old/untouched.txt")), -1);
    verifySecretNotShown(page.get());
}

void LiveRunTest::attachmentsAreUploadedExactlyAndNamedInThePrompt()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    const QString chat = QStringLiteral("att-") + randomToken(6, true);
    const QString home = homeOf(m_alice);
    const QString folder = home + QStringLiteral("/chat-") + chat + QStringLiteral("/attachments");
    // Someone's photo.png is already there: it must survive.
    QVERIFY(shell(m_alice,
        QStringLiteral("mkdir -p %1 && printf theirs > %1/photo.png && echo ok").arg(folder))
                .contains(QStringLiteral("ok")));
    QByteArray binary;
    for (int i = 0; i < 70000; ++i)
        binary.append(char((i * 7 + i / 256) & 0xff)); // every byte value, NULs and CRs too
    QByteArray image("\x89PNG\r\n\x1a\n", 8);
    image += QByteArray(3000, '\0') + "IEND";
    const QString binaryPath = localFile(QStringLiteral("data.bin"), binary);
    const QString imagePath = localFile(QStringLiteral("photo.png"), image);

    auto page = newPage();
    page->setFileAccess(
        FileOperations::Acting::AsSelf, QStringLiteral("live-test"), m_server->url().toString());
    QSignalSpy finished(page.get(), &RunPage::liveTurnFinished);
    QSignalSpy started(page.get(), &RunPage::liveTurnStarted);
    page->addAttachments({binaryPath, imagePath});
    const QString token = randomToken(8, true);
    QVERIFY(page->startLiveRun(m_client.get(),
        request(m_alice, chat, QStringLiteral("Please describe the attachments ") + token)));
    QVERIFY(page->isUploading() || !started.isEmpty());
    QVERIFY(waitForTurn(page.get(), finished, 1));
    QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(pageText(page.get())));
    QVERIFY(page->attachments().isEmpty()); // used up by the turn

    const auto hashOf = [](const QByteArray &bytes) {
        return QString::fromLatin1(
            QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
    };
    const QStringList sums = shell(m_alice,
        QStringLiteral("cd %1 && sha256sum data.bin photo-2.png && cat photo.png; echo")
            .arg(folder));
    QVERIFY2(
        sums.contains(hashOf(binary) + QStringLiteral("  data.bin")), qPrintable(sums.join(u'\n')));
    QVERIFY2(sums.contains(hashOf(image) + QStringLiteral("  photo-2.png")),
        qPrintable(sums.join(u'\n')));
    QVERIFY2(sums.contains(QStringLiteral("theirs")), qPrintable(sums.join(u'\n')));

    // The model got the prompt with both references, exactly.
    const QString expectedPrompt = QStringLiteral("Please describe the attachments ") + token
        + QStringLiteral("\n\nAttached file: attachments/data.bin\nAttached file: "
                         "attachments/photo-2.png");
    bool seen = false;
    const QStringList requests = m_model->requestLog().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    for (const QString &line : requests) {
        const QJsonArray blocks = QJsonDocument::fromJson(line.toUtf8())
                                      .object()
                                      .value(QLatin1String("prompt_blocks"))
                                      .toArray();
        for (const QJsonValue &block : blocks)
            seen = seen || block.toString() == expectedPrompt;
    }
    QVERIFY2(seen, qPrintable(m_model->requestLog().right(3000)));
    QCOMPARE(page->liveRequest()->prompt, expectedPrompt);

    // Both uploads are in the audit log.
    const QString audit = readWholeFile(m_local.filePath(QStringLiteral("audit.jsonl")));
    QVERIFY(audit.contains(folder + QStringLiteral("/data.bin")));
    QVERIFY(audit.contains(folder + QStringLiteral("/photo-2.png")));

    // A follow-up with another data.bin, dropped on the prompt: data-2.bin, the first one kept.
    const QByteArray second = binary.left(1000) + "second";
    QVERIFY(QFile::remove(binaryPath));
    QCOMPARE(localFile(QStringLiteral("data.bin"), second), binaryPath);
    auto *followUp = qobject_cast<QLineEdit *>(page->runControls().at(1));
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(binaryPath)});
    QDragEnterEvent enter(QPoint(3, 3), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(followUp, &enter);
    QDropEvent drop(QPointF(3, 3), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(followUp, &drop);
    QCOMPARE(page->attachments(), QStringList({binaryPath}));
    followUp->setText(QStringLiteral("And this one"));
    qobject_cast<QPushButton *>(page->runControls().at(2))->click();
    QVERIFY(waitForTurn(page.get(), finished, 2));
    QVERIFY2(finished.at(1).at(0).toBool(), qPrintable(pageText(page.get())));
    QCOMPARE(page->liveRequest()->prompt,
        QStringLiteral("And this one\n\nAttached file: attachments/data-2.bin"));
    QVERIFY(followUp->text().isEmpty());
    const QStringList again
        = shell(m_alice, QStringLiteral("cd %1 && sha256sum data.bin data-2.bin").arg(folder));
    QVERIFY2(again.contains(hashOf(binary) + QStringLiteral("  data.bin")),
        qPrintable(again.join(u'\n')));
    QVERIFY2(again.contains(hashOf(second) + QStringLiteral("  data-2.bin")),
        qPrintable(again.join(u'\n')));
    verifySecretNotShown(page.get());
}

void LiveRunTest::readOnlyRefusesAttachmentsAndSendRetriesWithNothingLost()
{
    SANDSCOPE_REQUIRE(ready(), "needs root, sudo, useradd (multi-user open-terminal) and claude");
    const QString chat = QStringLiteral("ro-") + randomToken(6, true);
    const QString file
        = localFile(QStringLiteral("notes-") + chat + QStringLiteral(".txt"), "read-only test\n");
    auto page = newPage(); // no setFileAccess: acting as if for another user, read-only
    QSignalSpy finished(page.get(), &RunPage::liveTurnFinished);
    QSignalSpy started(page.get(), &RunPage::liveTurnStarted);
    QSignalSpy refused(page.get(), &RunPage::attachmentUploadFailed);
    page->addAttachments({file});
    const QString prompt = QStringLiteral("Summarise the notes\nplease, keep \"quotes\"");
    QVERIFY(page->startLiveRun(m_client.get(), request(m_alice, chat, prompt)));
    QVERIFY(refused.wait(30000));
    QVERIFY2(refused.at(0).at(0).toString().contains(QLatin1String("read-only")),
        qPrintable(refused.at(0).at(0).toString()));
    QVERIFY(page->noticeText().contains(QLatin1String("did not start")));
    QCOMPARE(started.count(), 0);
    QCOMPARE(page->attachments(), QStringList({file}));
    QVERIFY(!page->isLive());
    const QString home = homeOf(m_alice);
    const QStringList listing = shell(m_alice,
        QStringLiteral("ls -A %1/chat-%2/attachments 2>/dev/null; echo listed").arg(home, chat));
    QCOMPARE(listing.filter(QStringLiteral("notes-")).size(), 0); // nothing was uploaded
    QVERIFY(readWholeFile(m_local.filePath(QStringLiteral("audit.jsonl")))
                .contains(QLatin1String("refused: read-only mode")));

    // Lifting read-only mode, Send retries the first turn with the kept prompt.
    QVERIFY(page->fileOperations());
    page->fileOperations()->setReadOnly(false);
    auto *send = qobject_cast<QPushButton *>(page->runControls().at(2));
    QVERIFY(send->isEnabled());
    send->click();
    QVERIFY(waitForTurn(page.get(), finished, 1));
    QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(pageText(page.get())));
    QCOMPARE(page->liveRequest()->prompt,
        prompt + QStringLiteral("\n\nAttached file: attachments/notes-") + chat
            + QStringLiteral(".txt"));
    QVERIFY(page->attachments().isEmpty());
}

QTEST_MAIN(LiveRunTest)
#include "tst_runpage_live.moc"
