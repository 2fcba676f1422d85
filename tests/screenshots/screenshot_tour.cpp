// Takes the README's screenshots from the real window: a real open-terminal (single-user, the
// pinned version) whose home holds the recorded Claude Code sessions of tests/data/transcripts,
// the main window connected to it, the Sessions tab, and a session opened in a run tab with its
// sub-agent. Run by scripts/screenshots.sh; writes PNGs into the folder it is given.
//
//   screenshot_tour OUTPUT-DIRECTORY

#include "mainwindow.h"
#include "realserver.h"
#include "runs/runmodel.h"
#include "runs/runpage.h"
#include "runs/sessionfilterproxy.h"
#include "runs/sessionlistmodel.h"
#include "runs/sessionspage.h"
#include "testing.h"
#include "transcripthome.h"

#include <QApplication>
#include <QDir>
#include <QSignalSpy>
#include <QTabWidget>
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
        RealServer::pinnedVersion("OPEN_TERMINAL_VERSION"), RealServer::Mode::SingleUser);
    QString error;
    if (!server.start(&error)) {
        std::fprintf(stderr, "open-terminal did not start: %s\n", qPrintable(error));
        return 1;
    }
    const QString home = QDir(server.homeDirectory()).canonicalPath();
    int age = 60 * 60 * 26;
    for (const char *scenario : {"bash", "parallel", "tool-error", "resume", "subagent"}) {
        if (installRecordedScenario(home, QLatin1String(scenario), age).isEmpty()) {
            std::fprintf(stderr, "could not install %s\n", scenario);
            return 1;
        }
        age -= 60 * 60 * 5;
    }

    MainWindow window(local.filePath(QStringLiteral("profiles.ini")));
    window.resize(1280, 800);
    window.show();
    QSignalSpy checked(&window, &MainWindow::serverChecked);
    window.connectToServer(server.connection(), QString());
    if (!checked.wait(60000))
        return 1;

    SessionsPage *sessions = window.sessionsPage();
    QSignalSpy listed(sessions, &SessionsPage::listingFinished);
    window.pages()->setCurrentWidget(sessions);
    if (!listed.wait(30000))
        return 1;
    sessions->view()->setCurrentIndex(sessions->proxy()->index(0, 0));
    bool ok = save(&window, output + QStringLiteral("/sessions.png"));

    // The sub-agent session in a run tab, its Agent call selected.
    DiscoveredSession subagent;
    for (int row = 0; row < sessions->model()->rowCount(); ++row) {
        if (sessions->model()->session(row).chatId == QLatin1String("subagent"))
            subagent = sessions->model()->session(row);
    }
    RunPage *page = window.openSession(sessions->sourceFor(subagent));
    if (!page
        || !QTest::qWaitFor(
            [&] {
                return page->sessionFollower()->state() == TranscriptFollower::State::Following;
            },
            30000))
        return 1;
    page->flushEvents();
    page->expandAll();
    for (const QModelIndex &index : allIndexes(page->model())) {
        if (index.data(RunModel::ToolNameRole).toString() == QLatin1String("Agent"))
            page->treeView()->setCurrentIndex(page->proxy()->mapFromSource(index));
    }
    ok = save(&window, output + QStringLiteral("/run-view.png")) && ok;
    return ok ? 0 : 1;
}
