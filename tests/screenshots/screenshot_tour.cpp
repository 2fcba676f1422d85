// Takes the README's screenshots from the real window: a real multi-user open-terminal (the
// pinned version) with two test users; alice's home holds the recorded Claude Code sessions of
// tests/data/transcripts and a chat with a source file. Shown: the Sessions tab, a session in a
// run tab with its sub-agent (as a tree, then on the timeline, then in playback), the Files tab
// with a preview, the Cleanup viewer (a dry run over a generated folder of homes, through the
// admin command `env`), the Usage tab (three users over a week, also through `env`) and the
// Isolation matrix of a real probe of the two users. Run by scripts/screenshots.sh (needs root,
// as multi-user open-terminal does); writes PNGs into the folder it is given.
//
//   screenshot_tour OUTPUT-DIRECTORY

#include "cleanuppage.h"
#include "files/filespage.h"
#include "files/remotefilemodel.h"
#include "isolation/probepage.h"
#include "mainwindow.h"
#include "playback/runplayback.h"
#include "realserver.h"
#include "runs/runpage.h"
#include "runs/runtabs.h"
#include "runs/sessionspage.h"
#include "runs/timelineview.h"
#include "runtree/runmodel.h"
#include "server/adminaccess.h"
#include "sessions/sessionfilterproxy.h"
#include "sessions/sessionlistmodel.h"
#include "terminal/terminalpage.h"
#include "testing.h"
#include "transcripthome.h"
#include "usage/usagepage.h"

#include <QApplication>
#include <QDir>
#include <QLineEdit>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeView>

#include <cstdio>

using namespace sandscope;
using namespace sandscope::test;

namespace {

bool save(QWidget *window, const QString &path)
{
    QCoreApplication::processEvents();
    const bool ok = window->grab().save(path);
    std::printf("%s %s\n", ok ? "wrote" : "could not write", qPrintable(path));
    return ok;
}

// Installs a recorded scenario into `home` as a session of its own (ids tagged with `tag`,
// so copies are not the same records) with its records moved `days` into the past, so the
// Usage chart has several days.
bool installDaysAgo(const QString &home, const QString &scenario, int days, const QString &tag)
{
    QTemporaryDir staging;
    const QString main = installRecordedScenario(staging.path(), scenario, 60);
    if (main.isEmpty())
        return false;
    static const QRegularExpression stamp(
        QStringLiteral("\"timestamp\":\"(\\d{4}-\\d\\d-\\d\\d)T"));
    static const QRegularExpression ids(QStringLiteral("((?:msg|toolu)_[A-Za-z0-9_]+)"));
    const QString project = QFileInfo(main).path();
    const QString session = QFileInfo(main).completeBaseName();
    const QString target
        = projectsDirectory(home) + QFileInfo(project).fileName() + QLatin1Char('-') + tag;
    QDirIterator files(
        project, {QStringLiteral("*.jsonl")}, QDir::Files, QDirIterator::Subdirectories);
    while (files.hasNext()) {
        const QString path = files.next();
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return false;
        const QString text = QString::fromUtf8(file.readAll());
        QString moved;
        qsizetype last = 0;
        auto matches = stamp.globalMatch(text);
        while (matches.hasNext()) {
            const QRegularExpressionMatch match = matches.next();
            const QDate date = QDate::fromString(match.captured(1), Qt::ISODate).addDays(-days);
            moved += text.mid(last, match.capturedStart(1) - last) + date.toString(Qt::ISODate);
            last = match.capturedEnd(1);
        }
        moved += text.mid(last);
        moved.replace(ids, QString(QStringLiteral("\\1") + tag));
        moved.replace(QStringLiteral("\"uuid\":\""), QString(QStringLiteral("\"uuid\":\"") + tag));
        QString relative = path.mid(project.size());
        relative.replace(session, QString(session + QLatin1Char('-') + tag));
        if (!writeFile(target + relative, moved.toUtf8()))
            return false;
    }
    return true;
}

int fail(const char *what)
{
    std::fprintf(stderr, "screenshot tour: %s\n", what);
    return 1;
}

const char *sourceFile = R"(from dataclasses import dataclass


@dataclass
class Order:
    """One order of the demo shop the agent refactored."""

    id: int
    items: list[str]
    total_cents: int

    def total(self) -> str:
        return f"{self.total_cents / 100:.2f} EUR"


def largest(orders: list[Order]) -> Order | None:
    return max(orders, key=lambda order: order.total_cents, default=None)
)";

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: screenshot_tour OUTPUT-DIRECTORY\n");
        return 2;
    }
    const QString output = QString::fromLocal8Bit(argv[1]);
    QDir().mkpath(output);
    QTemporaryDir local;
    isolateLocalState(local.path());

    RealServer server(
        RealServer::pinnedVersion("OPEN_TERMINAL_VERSION"), RealServer::Mode::MultiUser);
    QString error;
    if (!server.start(&error)) {
        std::fprintf(stderr, "open-terminal did not start: %s\n", qPrintable(error));
        return 1;
    }
    OpenTerminalClient client(server.connection());
    const Identity alice {QStringLiteral("alice"), QString()};
    const QString home = shellLines(&client, alice, QStringLiteral("pwd -P")).value(0).trimmed();
    if (home.isEmpty())
        return fail("alice has no home");

    // The recorded sessions, written into alice's home here (the server runs on this machine)
    // and handed to her.
    int age = 60 * 60 * 26;
    for (const char *scenario : {"bash", "parallel", "tool-error", "resume", "subagent"}) {
        if (installRecordedScenario(home, QLatin1String(scenario), age).isEmpty())
            return fail("could not install a scenario");
        age -= 60 * 60 * 5;
    }
    QProcess chown;
    chown.start(QStringLiteral("chown"),
        {QStringLiteral("-R"), QStringLiteral("--reference=") + home,
            home + QStringLiteral("/.claude")});
    if (!chown.waitForFinished(60000) || chown.exitCode() != 0)
        return fail("could not hand the sessions to alice");
    shellLines(&client, alice,
        QStringLiteral("mkdir -p ~/chat-subagent && cat > ~/chat-subagent/orders.py <<'EOF'\n%1EOF")
            .arg(QString::fromUtf8(sourceFile)));

    MainWindow window(local.filePath(QStringLiteral("profiles.ini")));
    window.resize(1280, 800);
    window.show();
    QSignalSpy checked(&window, &MainWindow::serverChecked);
    window.connectToServer(server.connection(), alice.userId);
    if (!checked.wait(60000))
        return fail("the server check did not finish");

    // Sessions
    SessionsPage *sessions = window.sessionsPage();
    QSignalSpy listed(sessions, &SessionsPage::listingFinished);
    window.pages()->setCurrentWidget(sessions);
    if (!listed.wait(30000))
        return fail("no session listing");
    sessions->view()->setCurrentIndex(sessions->proxy()->index(0, 0));
    bool ok = save(&window, output + QStringLiteral("/sessions.png"));

    // A session in a run tab, its Agent call selected.
    DiscoveredSession subagent;
    for (int row = 0; row < sessions->model()->rowCount(); ++row) {
        if (sessions->model()->session(row).chatId == QLatin1String("subagent"))
            subagent = sessions->model()->session(row);
    }
    RunPage *page = window.runTabs()->openSession(sessions->sourceFor(subagent));
    if (!page
        || !QTest::qWaitFor(
            [&] {
                return page->sessionFollower()->state() == TranscriptFollower::State::Following;
            },
            30000))
        return fail("the session did not open");
    page->flushEvents();
    page->expandAll();
    for (const QModelIndex &index : allIndexes(page->model())) {
        if (index.data(RunModel::ToolNameRole).toString() == QLatin1String("Agent"))
            page->treeView()->setCurrentIndex(page->proxy()->mapFromSource(index));
    }
    ok = save(&window, output + QStringLiteral("/run-view.png")) && ok;

    // The same session on the timeline: the Agent call still selected, its sub-agent nested.
    page->setTimelineShown(true);
    page->timelineView()->fitRun();
    ok = save(&window, output + QStringLiteral("/timeline.png")) && ok;
    page->setTimelineShown(false);

    // The same session in playback, at its second tool call
    if (page->enterPlayback() && QTest::qWaitFor([page] { return page->isInPlayback(); }, 30000)) {
        page->playback()->jumpToPosition(0);
        page->playback()->step(RunPlayback::Step::ToolCall, true);
        page->playback()->step(RunPlayback::Step::ToolCall, true);
        QTest::qWait(500); // the page's view and summary timers, as a user would see them
        ok = save(&window, output + QStringLiteral("/playback.png")) && ok;
        page->leavePlayback();
    } else {
        ok = fail("playback did not start") == 0;
    }

    // Usage of every user (a folder of homes whose sessions span a week), through `env`.
    QTemporaryDir usageHomes;
    const QStringList scenarios {QStringLiteral("bash"), QStringLiteral("parallel"),
        QStringLiteral("tool-error"), QStringLiteral("resume"), QStringLiteral("subagent"),
        QStringLiteral("compact")};
    const QStringList users {
        QStringLiteral("alice"), QStringLiteral("bob"), QStringLiteral("carol")};
    for (int day = 0; day < 8; ++day) {
        for (int u = 0; u < users.size(); ++u) {
            if ((day + u) % 3 == 2)
                continue; // not everyone works every day
            for (int s = 0; s <= (day * 7 + u * 3) % 4; ++s) {
                if (!installDaysAgo(usageHomes.filePath(users.at(u)),
                        scenarios.at((day + u + s) % scenarios.size()), day,
                        QStringLiteral("d%1s%2").arg(day).arg(s)))
                    return fail("could not install the usage sessions");
            }
        }
    }
    UsagePage *usage = window.usagePage();
    AdminAccess usageAdmin;
    AdminAccess::fromCommand(QStringLiteral("env"), &usageAdmin);
    usage->setAdminAccess(usageAdmin, QString());
    usage->setHomesRoot(usageHomes.path());
    window.pages()->setCurrentWidget(usage);
    QSignalSpy counted(usage, &UsagePage::collectionFinished);
    usage->setAllUsers(true);
    if (!counted.wait(60000))
        return fail("the usage was not collected");
    ok = save(&window, output + QStringLiteral("/usage.png")) && ok;

    // Files with a preview
    FilesPage *files = window.filesPage();
    window.pages()->setCurrentWidget(files);
    files->goToPath(home + QStringLiteral("/chat-subagent/orders.py"));
    QTest::qWait(3000); // the listing and the preview arrive
    ok = save(&window, output + QStringLiteral("/files.png")) && ok;

    // Cleanup: a dry run over generated homes (aged chats and sessions), as root through the
    // admin command `env` (the folder is local).
    QTemporaryDir homes;
    QProcess generate;
    generate.start(QStringLiteral("sh"),
        {QStringLiteral("-c"),
            QStringLiteral(
                "cd \"$1\" && for u in alice bob carol dave; do for c in 1 2 3; do "
                "mkdir -p $u/chat-c$c && head -c $((c * 300000)) /dev/zero > $u/chat-c$c/out.bin; "
                "done; p=$u/.claude/projects/-home-$u-chat-c1; mkdir -p $p && printf '{}\\n' > "
                "$p/5e55$c$u.jsonl; done && find . -mindepth 1 -exec touch -h -d '45 days ago' {} "
                "+ "
                "&& touch alice/chat-c3 alice/chat-c3/out.bin"),
            QStringLiteral("sh"), homes.path()});
    generate.waitForFinished(60000);
    CleanupPage *cleanup = window.cleanupPage();
    AdminAccess admin;
    AdminAccess::fromCommand(QStringLiteral("env"), &admin);
    window.setAdminAccess(admin);
    cleanup->setHomeRoot(homes.path());
    cleanup->findChild<QLineEdit *>(QStringLiteral("scriptPath"))
        ->setText(QStringLiteral(SANDSCOPE_VERSIONS_FILE)
                      .replace(QStringLiteral("versions.env"), QStringLiteral("cleanup.sh")));
    window.pages()->setCurrentWidget(cleanup);
    QSignalSpy cleaned(cleanup, &CleanupPage::runFinished);
    cleanup->startDryRun();
    if (!cleaned.wait(60000))
        return fail("the cleanup dry run did not finish");
    ok = save(&window, output + QStringLiteral("/cleanup.png")) && ok;

    // Isolation: a real probe of alice and bob.
    ProbePage *isolation = window.isolationPage();
    window.pages()->setCurrentWidget(isolation);
    isolation->setUsers({QStringLiteral("alice"), QStringLiteral("bob")});
    QSignalSpy probed(isolation, &ProbePage::probeFinished);
    isolation->run();
    if (!probed.wait(240000))
        return fail("the probe did not finish");
    isolation->matrixView()->setCurrentIndex(isolation->matrixView()->model()->index(0, 0));
    ok = save(&window, output + QStringLiteral("/isolation.png")) && ok;

    // A terminal as alice (when this build has the emulator).
    if (TerminalPage::emulatorAvailable()) {
        TerminalPage *terminal = window.terminalPage();
        window.pages()->setCurrentWidget(terminal);
        terminal->openTerminal();
        QTest::qWait(4000); // the shell starts and prints its prompt
        ok = save(&window, output + QStringLiteral("/terminal.png")) && ok;
    }
    return ok ? 0 : 1;
}
