// The Sessions page against a REAL open-terminal server (the pinned version, single-user mode,
// whose home is local): the recorded transcripts of tests/data/transcripts, installed as the
// CLI keeps them for chats in that home, are listed with their titles, turns and tool calls;
// the filter narrows per keystroke; sizes sort as numbers; a refresh inserts a new session
// without a reset and keeps the selection; the server-side search finds a command with its
// tool and a double-click opens the session at that tool call (a sub-agent's hit opens its
// main session); Open, Resume…, Fork… and Open Folder emit what the window needs; the status
// line names the user, counts the running sessions and shows an error (the rows kept) when the
// server is gone.

#include "realserver.h"
#include "runs/sessionspage.h"
#include "server/openterminalclient.h"
#include "sessions/sessiondiscovery.h"
#include "sessions/sessionfilterproxy.h"
#include "sessions/sessionlistmodel.h"
#include "sessions/sessionsearchmodel.h"
#include "testing.h"
#include "transcripthome.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTreeView>
#include <QUuid>
#include <QtTest>

#include <memory>

using namespace sandscope;
using namespace sandscope::test;

namespace {

constexpr int answerTimeoutMs = 60000;
// The throwaway home the fixtures were recorded in (tests/data/transcripts/README.md).
struct Opened {
    SessionSource source;
    QString toolUseId;
    int count = 0;
};

} // namespace

class SessionsPageTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void listsEverySessionWithTitleTurnsAndToolCalls();
    void filterNarrowsPerKeystroke();
    void sizeColumnSortsNumerically();
    void refreshInsertsANewSessionWithoutResetAndKeepsTheSelection();
    void searchFindsACommandWithItsToolAndOpensItsSession();
    void subAgentHitOpensItsMainSession();
    void searchWithoutHitsSaysSo();
    void actionsEmitTheSelectedSession();
    void aWriteToAListedSessionShowsAtOnceWithoutAListing();
    void autoRefreshRunsOnlyWhileVisible();
    void aTranscriptLinkedOutOfTheHomeIsNotListedButNamed();
    void anotherUserClearsTheRowsAndNamesTheUser();
    void allUsersListsEveryHomeThroughTheAdminCommand();
    void stoppedServerShowsTheErrorAndKeepsTheRows();

private:
    bool ready() const { return m_page != nullptr; }
    // Installs tests/data/transcripts/<scenario>/transcript as chat <scenario> of the server's
    // home (cwd rewritten to <home>/chat-<scenario>), last written `age` seconds ago.
    QString installScenario(const QString &scenario, int ageSeconds);
    bool waitForListing(bool expectOk = true);
    bool waitForSearch();
    int rowOf(const QString &path) const; // in the view (proxy) order
    QModelIndex hitIndex(const std::function<bool(const SessionSearchHit &)> &accept) const;

    std::unique_ptr<RealServer> m_server;
    std::unique_ptr<OpenTerminalClient> m_client;
    std::unique_ptr<SessionsPage> m_page;
    QString m_home;
    QHash<QString, QString> m_paths; // scenario -> main transcript path
    Identity m_alice;
};

void SessionsPageTest::initTestCase()
{
    const QString version = RealServer::pinnedVersion("OPEN_TERMINAL_VERSION");
    SANDSCOPE_REQUIRE(QFile::exists(RealServer::executable(version)),
        QStringLiteral("open-terminal %1 is not installed").arg(version));
    m_server = std::make_unique<RealServer>(version, RealServer::Mode::SingleUser);
    QString error;
    QVERIFY2(m_server->start(&error), qPrintable(error));
    m_client = std::make_unique<OpenTerminalClient>(m_server->connection());
    m_home = QDir(m_server->homeDirectory()).canonicalPath();
    for (const QString &scenario : {QStringLiteral("bash"), QStringLiteral("parallel"),
             QStringLiteral("resume"), QStringLiteral("subagent")}) {
        m_paths.insert(scenario, installScenario(scenario, 3600));
        QVERIFY2(!m_paths.value(scenario).isEmpty(), qPrintable(scenario));
    }

    m_alice
        = Identity {QStringLiteral("alice"), QUuid::createUuid().toString(QUuid::WithoutBraces)};
    m_page = std::make_unique<SessionsPage>();
    m_page->resize(1100, 640);
    m_page->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_page.get()));
    QCOMPARE(m_page->statusText(), QStringLiteral("Not connected."));
    QSignalSpy finished(m_page.get(), &SessionsPage::listingFinished);
    m_page->setConnection(m_client.get(), m_alice);
    // Visible: it loads at once, in the background, and says whose sessions it loads.
    QVERIFY(m_page->isLoading());
    QCOMPARE(m_page->statusText(), QStringLiteral("Loading sessions of alice…"));
    QVERIFY(finished.wait(answerTimeoutMs));
    QCOMPARE(finished.first().first().toBool(), true);
}

void SessionsPageTest::cleanupTestCase()
{
    m_page.reset();
    m_client.reset();
    m_server.reset();
}

QString SessionsPageTest::installScenario(const QString &scenario, int ageSeconds)
{
    return installRecordedScenario(m_home, scenario, ageSeconds);
}

bool SessionsPageTest::waitForListing(bool expectOk)
{
    QSignalSpy finished(m_page.get(), &SessionsPage::listingFinished);
    if (!m_page->isLoading())
        m_page->refresh();
    return finished.wait(answerTimeoutMs) && finished.first().first().toBool() == expectOk;
}

bool SessionsPageTest::waitForSearch()
{
    QSignalSpy finished(m_page.get(), &SessionsPage::searchFinished);
    return finished.wait(answerTimeoutMs) && finished.first().first().toBool();
}

int SessionsPageTest::rowOf(const QString &path) const
{
    const int sourceRow = m_page->model()->rowOfPath(path);
    if (sourceRow < 0)
        return -1;
    return m_page->proxy()->mapFromSource(m_page->model()->index(sourceRow, 0)).row();
}

QModelIndex SessionsPageTest::hitIndex(
    const std::function<bool(const SessionSearchHit &)> &accept) const
{
    const SessionSearchModel *hits = m_page->searchModel();
    for (int row = 0; row < hits->rowCount(); ++row) {
        if (accept(hits->hit(row)))
            return hits->index(row, SessionSearchModel::MatchColumn);
    }
    return {};
}

void SessionsPageTest::listsEverySessionWithTitleTurnsAndToolCalls()
{
    SANDSCOPE_REQUIRE(ready(), "needs the pinned open-terminal");
    const SessionListModel *model = m_page->model();
    QCOMPARE(model->rowCount(), 4);
    const auto cell = [&](const QString &scenario, int column) {
        return model->index(model->rowOfPath(m_paths.value(scenario)), column).data().toString();
    };
    QCOMPARE(cell(QStringLiteral("bash"), SessionListModel::TitleColumn),
        QStringLiteral("CMD: echo hi"));
    QCOMPARE(cell(QStringLiteral("bash"), SessionListModel::ChatColumn), QStringLiteral("bash"));
    QCOMPARE(cell(QStringLiteral("bash"), SessionListModel::TurnsColumn), QStringLiteral("1"));
    QCOMPARE(cell(QStringLiteral("bash"), SessionListModel::ToolCallsColumn), QStringLiteral("1"));
    QCOMPARE(cell(QStringLiteral("bash"), SessionListModel::ModelColumn),
        QStringLiteral("claude-opus-5-5"));
    QCOMPARE(cell(QStringLiteral("parallel"), SessionListModel::TitleColumn),
        QStringLiteral("PARALLEL"));
    QCOMPARE(
        cell(QStringLiteral("parallel"), SessionListModel::ToolCallsColumn), QStringLiteral("2"));
    QCOMPARE(cell(QStringLiteral("resume"), SessionListModel::TurnsColumn), QStringLiteral("2"));
    // The Agent call and the sub-agent's Bash call.
    QCOMPARE(
        cell(QStringLiteral("subagent"), SessionListModel::ToolCallsColumn), QStringLiteral("2"));
    QVERIFY(cell(QStringLiteral("resume"), SessionListModel::CostColumn).startsWith(u'$'));
    QCOMPARE(cell(QStringLiteral("resume"), SessionListModel::StateColumn), QString());
    QCOMPARE(m_page->statusText(), QStringLiteral("4 sessions of alice, 0 running"));
    QVERIFY(!m_page->statusIsError());

    // Newest activity first by default.
    QCOMPARE(m_page->view()->header()->sortIndicatorSection(),
        int(SessionListModel::LastActivityColumn));
    QCOMPARE(m_page->view()->header()->sortIndicatorOrder(), Qt::DescendingOrder);
    for (int row = 1; row < m_page->proxy()->rowCount(); ++row) {
        const auto activity = [&](int r) {
            return m_page->proxy()
                ->index(r, SessionListModel::LastActivityColumn)
                .data(SessionListModel::SortRole)
                .toDateTime();
        };
        QVERIFY(activity(row - 1) >= activity(row));
    }
}

void SessionsPageTest::filterNarrowsPerKeystroke()
{
    SANDSCOPE_REQUIRE(ready(), "needs the pinned open-terminal");
    QLineEdit *filter = m_page->filterEdit();
    filter->clear();
    QList<int> counts;
    for (const QChar c : QStringLiteral("paral")) {
        QTest::keyClick(filter, c.toLatin1());
        counts << m_page->proxy()->rowCount();
    }
    // "p" is in every model name ("opus"); "paral" only in the parallel chat and its prompt.
    QCOMPARE(counts.first(), 4);
    QCOMPARE(counts.last(), 1);
    for (int i = 1; i < counts.size(); ++i)
        QVERIFY(counts.at(i) <= counts.at(i - 1));
    QCOMPARE(m_page->proxy()->index(0, SessionListModel::TitleColumn).data().toString(),
        QStringLiteral("PARALLEL"));
    QVERIFY2(m_page->statusText().endsWith(QLatin1String("(1 shown)")),
        qPrintable(m_page->statusText()));
    filter->clear();
    QCOMPARE(m_page->proxy()->rowCount(), 4);
}

void SessionsPageTest::sizeColumnSortsNumerically()
{
    SANDSCOPE_REQUIRE(ready(), "needs the pinned open-terminal");
    QTreeView *view = m_page->view();
    view->sortByColumn(SessionListModel::SizeColumn, Qt::AscendingOrder);
    const QAbstractItemModel *proxy = m_page->proxy();
    for (int row = 1; row < proxy->rowCount(); ++row) {
        QVERIFY(proxy->index(row - 1, SessionListModel::SizeColumn)
                    .data(SessionListModel::SortRole)
                    .toLongLong()
            <= proxy->index(row, SessionListModel::SizeColumn)
                   .data(SessionListModel::SortRole)
                   .toLongLong());
    }
    view->sortByColumn(SessionListModel::LastActivityColumn, Qt::DescendingOrder);
}

void SessionsPageTest::refreshInsertsANewSessionWithoutResetAndKeepsTheSelection()
{
    SANDSCOPE_REQUIRE(ready(), "needs the pinned open-terminal");
    QTreeView *view = m_page->view();
    const int bashRow = rowOf(m_paths.value(QStringLiteral("bash")));
    QVERIFY(bashRow >= 0);
    view->setCurrentIndex(m_page->proxy()->index(bashRow, 0));
    QSignalSpy resets(m_page->model(), &QAbstractItemModel::modelReset);
    QSignalSpy inserted(m_page->model(), &QAbstractItemModel::rowsInserted);
    QSignalSpy removed(m_page->model(), &QAbstractItemModel::rowsRemoved);

    // Written just now: it counts as running. Its transcript's appearance is pushed: the page
    // lists again by itself within a few seconds (its timer would wait a minute).
    QTRY_VERIFY_WITH_TIMEOUT(!m_page->isLoading(), answerTimeoutMs);
    QSignalSpy listed(m_page.get(), &SessionsPage::listingFinished);
    const QString added = installScenario(QStringLiteral("tool-error"), 0);
    QVERIFY(!added.isEmpty());
    QVERIFY(listed.wait(5000));
    QVERIFY(listed.first().first().toBool());

    QCOMPARE(resets.count(), 0);
    QCOMPARE(removed.count(), 0);
    QCOMPARE(inserted.count(), 1);
    QCOMPARE(m_page->model()->rowCount(), 5);
    m_paths.insert(QStringLiteral("tool-error"), added);
    const QModelIndexList selected = view->selectionModel()->selectedRows();
    QCOMPARE(selected.size(), 1);
    QCOMPARE(selected.first().data(SessionListModel::SessionRole).value<DiscoveredSession>().path,
        m_paths.value(QStringLiteral("bash")));
    // The running session sorts first (newest activity) and is marked.
    QCOMPARE(rowOf(added), 0);
    const QModelIndex newRow = m_page->proxy()->index(0, SessionListModel::StateColumn);
    QCOMPARE(newRow.data().toString(), QStringLiteral("running now"));
    QVERIFY(newRow.data(SessionListModel::RunningRole).toBool());
    QCOMPARE(m_page->statusText(), QStringLiteral("5 sessions of alice, 1 running"));
}

void SessionsPageTest::searchFindsACommandWithItsToolAndOpensItsSession()
{
    SANDSCOPE_REQUIRE(ready(), "needs the pinned open-terminal");
    QTreeView *results = m_page->searchView();
    QVERIFY(!results->isVisible()); // until the first search
    QTest::keyClicks(m_page->searchEdit(), QStringLiteral("echo hi"));
    m_page->toolCombo()->setCurrentText(QStringLiteral("Bash"));
    QTest::keyClick(m_page->searchEdit(), Qt::Key_Return);
    QVERIFY(m_page->isSearching());
    QVERIFY(m_page->searchStatusText().startsWith(QLatin1String("Searching")));
    QVERIFY(waitForSearch());
    QVERIFY(results->isVisible());
    QVERIFY(m_page->searchModel()->rowCount() > 0);
    const int hits = m_page->searchModel()->rowCount();
    QCOMPARE(m_page->searchStatusText(),
        hits == 1 ? QStringLiteral("1 hit") : QStringLiteral("%1 hits").arg(hits));
    for (const SessionSearchHit &hit : m_page->searchModel()->hits())
        QCOMPARE(hit.toolName, QStringLiteral("Bash"));

    const QString bashPath = m_paths.value(QStringLiteral("bash"));
    const QModelIndex index
        = hitIndex([&](const SessionSearchHit &hit) { return hit.path == bashPath; });
    QVERIFY(index.isValid());
    const SessionSearchHit hit = m_page->searchModel()->hit(index.row());
    QVERIFY(!hit.toolUseId.isEmpty());
    QCOMPARE(index.siblingAtColumn(SessionSearchModel::SessionColumn).data().toString(),
        QStringLiteral("CMD: echo hi"));
    QCOMPARE(index.siblingAtColumn(SessionSearchModel::ToolColumn).data().toString(),
        QStringLiteral("Bash"));

    Opened opened;
    connect(m_page.get(), &SessionsPage::openSessionRequested, this,
        [&](const SessionSource &source, const QString &toolUseId) {
            opened = {source, toolUseId, opened.count + 1};
        });
    results->scrollTo(index);
    const QPoint centre = results->visualRect(index).center();
    QTest::mouseClick(results->viewport(), Qt::LeftButton, {}, centre);
    QTest::mouseDClick(results->viewport(), Qt::LeftButton, {}, centre);
    QCOMPARE(opened.count, 1);
    QCOMPARE(opened.toolUseId, hit.toolUseId);
    QCOMPARE(opened.source.transcriptPath, bashPath);
    QCOMPARE(opened.source.chatId, QStringLiteral("bash"));
    QCOMPARE(opened.source.identity, m_alice);
    QCOMPARE(opened.source.cwd, m_home + QStringLiteral("/chat-bash"));
    disconnect(m_page.get(), &SessionsPage::openSessionRequested, this, nullptr);
}

void SessionsPageTest::subAgentHitOpensItsMainSession()
{
    SANDSCOPE_REQUIRE(ready(), "needs the pinned open-terminal");
    m_page->search(QStringLiteral("echo sub"), QStringLiteral("Bash"));
    QVERIFY(waitForSearch());
    const QModelIndex index
        = hitIndex([](const SessionSearchHit &hit) { return !hit.agentId.isEmpty(); });
    QVERIFY(index.isValid());
    QVERIFY(index.siblingAtColumn(SessionSearchModel::RecordColumn)
                .data()
                .toString()
                .endsWith(QLatin1String("(sub-agent)")));
    const SessionSearchHit hit = m_page->searchModel()->hit(index.row());
    QVERIFY(hit.path.contains(QLatin1String("/subagents/")));

    Opened opened;
    connect(m_page.get(), &SessionsPage::openSessionRequested, this,
        [&](const SessionSource &source, const QString &toolUseId) {
            opened = {source, toolUseId, opened.count + 1};
        });
    m_page->searchView()->setCurrentIndex(index);
    QTest::keyClick(m_page->searchView(), Qt::Key_Return);
    disconnect(m_page.get(), &SessionsPage::openSessionRequested, this, nullptr);
    QCOMPARE(opened.count, 1);
    QCOMPARE(opened.toolUseId, hit.toolUseId);
    QCOMPARE(opened.source.transcriptPath, m_paths.value(QStringLiteral("subagent")));
    QCOMPARE(opened.source.chatId, QStringLiteral("subagent"));

    // Not listed (yet): the path alone names the main transcript.
    QCOMPARE(SessionsPage::mainTranscriptPath(hit.path), m_paths.value(QStringLiteral("subagent")));
}

void SessionsPageTest::searchWithoutHitsSaysSo()
{
    SANDSCOPE_REQUIRE(ready(), "needs the pinned open-terminal");
    m_page->search(QStringLiteral("no such text anywhere"));
    QCOMPARE(m_page->searchModel()->rowCount(), 0); // the old hits went at once
    QVERIFY(waitForSearch());
    QCOMPARE(m_page->searchModel()->rowCount(), 0);
    QCOMPARE(m_page->searchStatusText(),
        QStringLiteral("No hits for \u201cno such text anywhere\u201d"));
    QCOMPARE(m_page->toolCombo()->currentIndex(), 0); // "Any tool"
}

void SessionsPageTest::actionsEmitTheSelectedSession()
{
    SANDSCOPE_REQUIRE(ready(), "needs the pinned open-terminal");
    QTreeView *view = m_page->view();
    auto *openButton = m_page->findChild<QPushButton *>(QStringLiteral("openButton"));
    auto *resumeButton = m_page->findChild<QPushButton *>(QStringLiteral("resumeButton"));
    auto *forkButton = m_page->findChild<QPushButton *>(QStringLiteral("forkButton"));
    auto *folderButton = m_page->findChild<QPushButton *>(QStringLiteral("openFolderButton"));
    QVERIFY(openButton && resumeButton && forkButton && folderButton);

    view->clearSelection();
    for (QPushButton *button : {openButton, resumeButton, forkButton, folderButton})
        QVERIFY2(!button->isEnabled(), qPrintable(button->text()));

    const QString resumePath = m_paths.value(QStringLiteral("resume"));
    view->setCurrentIndex(m_page->proxy()->index(rowOf(resumePath), 0));
    for (QPushButton *button : {openButton, resumeButton, forkButton, folderButton})
        QVERIFY2(button->isEnabled(), qPrintable(button->text()));

    QList<QPair<SessionSource, bool>> resumed;
    connect(m_page.get(), &SessionsPage::resumeRequested, this,
        [&](const SessionSource &source, bool fork) {
            resumed.append({source, fork});
        });
    QTest::mouseClick(resumeButton, Qt::LeftButton);
    QTest::mouseClick(forkButton, Qt::LeftButton);
    QCOMPARE(resumed.size(), 2);
    QCOMPARE(resumed.at(0).second, false);
    QCOMPARE(resumed.at(1).second, true);
    QCOMPARE(resumed.at(0).first.transcriptPath, resumePath);
    QCOMPARE(resumed.at(0).first.chatId, QStringLiteral("resume"));
    QCOMPARE(resumed.at(0).first.sessionId, QFileInfo(resumePath).completeBaseName());
    QVERIFY(resumed.at(0).first.started.isValid());

    Opened opened;
    connect(m_page.get(), &SessionsPage::openSessionRequested, this,
        [&](const SessionSource &source, const QString &toolUseId) {
            opened = {source, toolUseId, opened.count + 1};
        });
    QTest::mouseClick(openButton, Qt::LeftButton);
    view->setFocus();
    QTest::keyClick(view, Qt::Key_Return);
    QCOMPARE(opened.count, 2);
    QCOMPARE(opened.source.transcriptPath, resumePath);
    QVERIFY(opened.toolUseId.isEmpty());

    QStringList folders;
    connect(m_page.get(), &SessionsPage::openFolderRequested, this,
        [&](const QString &userId, const QString &path) { folders << userId << path; });
    QTest::mouseClick(folderButton, Qt::LeftButton);
    QCOMPARE(
        folders, QStringList({QStringLiteral("alice"), m_home + QStringLiteral("/chat-resume")}));
    disconnect(m_page.get(), nullptr, this, nullptr);
}

// A transcript that is a link to a file outside the home (another user's, say) is not listed;
// the status line counts it and its tooltip names the link and its target.
void SessionsPageTest::aTranscriptLinkedOutOfTheHomeIsNotListedButNamed()
{
    SANDSCOPE_REQUIRE(ready(), "needs the pinned open-terminal");
    QTemporaryDir outside;
    QVERIFY(outside.isValid());
    const QString target = QDir(outside.path()).canonicalPath() + QStringLiteral("/theirs.jsonl");
    QVERIFY(QFile::copy(m_paths.value(QStringLiteral("bash")), target));
    const QString link = m_home + QStringLiteral("/.claude/projects/-linked/linked.jsonl");
    QVERIFY(QDir().mkpath(QFileInfo(link).path()));
    QVERIFY(QFile::link(target, link));
    const int rows = m_page->model()->rowCount();
    QVERIFY(waitForListing());
    QCOMPARE(m_page->model()->rowCount(), rows);
    QVERIFY2(m_page->statusText().contains(QLatin1String("1 not listed")),
        qPrintable(m_page->statusText()));
    const QString tip = m_page->findChild<QLabel *>(QStringLiteral("statusLabel"))->toolTip();
    QVERIFY2(tip.contains(link) && tip.contains(target), qPrintable(tip));

    QVERIFY(QFile::remove(link) && QDir().rmdir(QFileInfo(link).path()));
    QVERIFY(waitForListing());
    QVERIFY2(!m_page->statusText().contains(QLatin1String("not listed")),
        qPrintable(m_page->statusText()));
}

void SessionsPageTest::aWriteToAListedSessionShowsAtOnceWithoutAListing()
{
    SANDSCOPE_REQUIRE(ready(), "needs the pinned open-terminal");
    QTRY_VERIFY_WITH_TIMEOUT(!m_page->isLoading(), answerTimeoutMs);
    const QString path = m_paths.value(QStringLiteral("resume"));
    const SessionListModel *model = m_page->model();
    const int row = model->rowOfPath(path);
    QVERIFY(row >= 0);
    QVERIFY(!model->isRunning(model->session(row))); // written an hour ago
    const qint64 sizeBefore = model->session(row).size;
    QSignalSpy finished(m_page.get(), &SessionsPage::listingFinished);
    // Its writes are pushed: the page learns of one at once, with no listing and no request.
    QTest::qWait(1000);
    const qint64 requests = m_client->requestCount();
    const QByteArray record = "{\"type\":\"sandscope-test\"}\n";
    QFile transcript(path);
    QVERIFY(transcript.open(QIODevice::Append));
    QCOMPARE(transcript.write(record), qint64(record.size()));
    transcript.close();
    QTRY_VERIFY_WITH_TIMEOUT(model->isRunning(model->session(row)), 5000);
    QCOMPARE(model->session(row).size, sizeBefore + record.size());
    QCOMPARE(finished.count(), 0);
    QCOMPARE(m_client->requestCount(), requests);
    QVERIFY(m_page->model()
                ->data(model->index(row, SessionListModel::StateColumn))
                .toString()
                .contains(QLatin1String("running"), Qt::CaseInsensitive));
}

void SessionsPageTest::autoRefreshRunsOnlyWhileVisible()
{
    SANDSCOPE_REQUIRE(ready(), "needs the pinned open-terminal");
    QSignalSpy finished(m_page.get(), &SessionsPage::listingFinished);
    m_page->setAutoRefreshInterval(300);
    m_page->refresh();
    QVERIFY(finished.wait(answerTimeoutMs));
    QVERIFY(finished.wait(answerTimeoutMs)); // again, by itself
    QTRY_VERIFY_WITH_TIMEOUT(!m_page->isLoading(), answerTimeoutMs);
    m_page->hide();
    finished.clear();
    // Longer than the pause between listings, which is longer while writes are pushed.
    QTest::qWait(300 * SessionsPage::pushedRefreshFactor + 400);
    QCOMPARE(finished.count(), 0);
    m_page->show();
    // Shown again after its listing grew older than the interval: it refreshes at once.
    QVERIFY(m_page->isLoading());
    QVERIFY(finished.wait(answerTimeoutMs));
    m_page->setAutoRefreshInterval(SessionsPage::defaultAutoRefreshMs);
    QVERIFY(QTest::qWaitForWindowExposed(m_page.get()));
}

void SessionsPageTest::anotherUserClearsTheRowsAndNamesTheUser()
{
    SANDSCOPE_REQUIRE(ready(), "needs the pinned open-terminal");
    QTRY_VERIFY_WITH_TIMEOUT(!m_page->isLoading(), answerTimeoutMs);
    QVERIFY(m_page->searchModel()->rowCount() > 0 || m_page->searchView()->isVisible());
    const Identity bob {QStringLiteral("bob"), QUuid::createUuid().toString(QUuid::WithoutBraces)};
    QSignalSpy finished(m_page.get(), &SessionsPage::listingFinished);
    m_page->setConnection(m_client.get(), bob);
    QCOMPARE(m_page->model()->rowCount(), 0);
    QCOMPARE(m_page->searchModel()->rowCount(), 0);
    QVERIFY(!m_page->searchView()->isVisible());
    QCOMPARE(m_page->statusText(), QStringLiteral("Loading sessions of bob…"));
    QVERIFY(finished.wait(answerTimeoutMs));
    // Single-user mode: bob's home is the same one.
    QVERIFY2(m_page->statusText().startsWith(QLatin1String("5 sessions of bob")),
        qPrintable(m_page->statusText()));
}

void SessionsPageTest::stoppedServerShowsTheErrorAndKeepsTheRows()
{
    SANDSCOPE_REQUIRE(ready(), "needs the pinned open-terminal");
    QTRY_VERIFY_WITH_TIMEOUT(!m_page->isLoading(), answerTimeoutMs);
    const int rows = m_page->model()->rowCount();
    QVERIFY(rows > 0);
    m_server->stop();
    QVERIFY(waitForListing(false));
    QVERIFY(m_page->statusIsError());
    QVERIFY2(
        m_page->statusText().startsWith(QLatin1String("The sessions of bob could not be listed: ")),
        qPrintable(m_page->statusText()));
    QCOMPARE(m_page->model()->rowCount(), rows);
    QCOMPARE(m_page->view()->model()->rowCount(), rows);
}

// "All users" lists and searches every home as root through the admin channel (here `env`:
// two homes made of this test's sessions in a folder of their own).
void SessionsPageTest::allUsersListsEveryHomeThroughTheAdminCommand()
{
    SANDSCOPE_REQUIRE(ready(), "needs the pinned open-terminal");
    QTemporaryDir root;
    QVERIFY(root.isValid());
    for (const char *account : {"ann", "ben"}) {
        // The home first: cp must not race its creation.
        QVERIFY(QDir().mkpath(root.filePath(QLatin1String(account))));
        QProcess copy;
        copy.start(QStringLiteral("cp"),
            {QStringLiteral("-a"), m_home + QStringLiteral("/.claude"),
                root.filePath(QLatin1String(account)) + QStringLiteral("/.claude")});
        copy.waitForFinished();
        QVERIFY2(copy.exitCode() == 0, copy.readAllStandardError().constData());
    }
    const int perHome = int(QDir(m_home + QStringLiteral("/.claude/projects"))
                                .entryList(QDir::Dirs | QDir::NoDotAndDotDot)
                                .size());
    QVERIFY(perHome >= 4);
    AdminAccess admin;
    QVERIFY(AdminAccess::fromCommand(QStringLiteral("env"), &admin));
    m_page->setHomesRoot(root.path());
    m_page->setAdminAccess(admin, QString());
    QSignalSpy listed(m_page.get(), &SessionsPage::listingFinished);
    m_page->setAllUsers(true);
    QVERIFY(listed.wait(answerTimeoutMs));
    QVERIFY2(listed.first().first().toBool(), qPrintable(m_page->statusText()));

    QSet<QString> accounts;
    for (int row = 0; row < m_page->model()->rowCount(); ++row) {
        const QString where
            = m_page->model()->index(row, SessionListModel::ChatColumn).data().toString();
        accounts.insert(where.section(QStringLiteral(" · "), 0, 0));
    }
    QCOMPARE(accounts, (QSet<QString> {QStringLiteral("ann"), QStringLiteral("ben")}));
    QVERIFY(m_page->model()->rowCount() >= 2 * perHome);
    QVERIFY2(m_page->statusText().contains(QStringLiteral("every user"))
            && m_page->statusText().contains(QStringLiteral("\"env sh -s\"")),
        qPrintable(m_page->statusText()));
    // A session of the list opens as its own user; it is not continued from here.
    m_page->view()->setCurrentIndex(m_page->proxy()->index(0, 0));
    const DiscoveredSession first = m_page->model()->session(
        m_page->proxy()->mapToSource(m_page->proxy()->index(0, 0)).row());
    QVERIFY(QStringList({QStringLiteral("ann"), QStringLiteral("ben")})
                .contains(m_page->sourceFor(first).identity.userId));
    QVERIFY(!m_page->resumeAction()->isEnabled());
    QVERIFY(m_page->openAction()->isEnabled());

    m_page->search(QStringLiteral("echo hi"), QStringLiteral("Bash"));
    QVERIFY(waitForSearch());
    QSet<QString> hitHomes;
    for (int row = 0; row < m_page->searchModel()->rowCount(); ++row) {
        const auto hit = m_page->searchModel()
                             ->index(row, 0)
                             .data(SessionSearchModel::HitRole)
                             .value<SessionSearchHit>();
        hitHomes.insert(
            hit.path.section(QStringLiteral("/.claude/"), 0, 0).section(QLatin1Char('/'), -1));
    }
    QCOMPARE(hitHomes, (QSet<QString> {QStringLiteral("ann"), QStringLiteral("ben")}));

    m_page->setAllUsers(false);
    QVERIFY(waitForListing());
    QVERIFY2(m_page->statusText().contains(m_page->identity().userId)
            && !m_page->statusText().contains(QStringLiteral("every user")),
        qPrintable(m_page->statusText()));
}

QTEST_MAIN(SessionsPageTest)
#include "tst_sessionspage.moc"
