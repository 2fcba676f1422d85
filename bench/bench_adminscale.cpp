// The admin views at the scale of a real deployment: HOMES homes × CHATS chats, each chat with
// one session transcript (1,000 × 50 = 50,000 chats and 50,000 sessions by default), generated
// in a temporary folder. Both pages run their real scripts as root through the admin command
// (here `env`: the homes are local), shown offscreen:
//  * Users (AdminOverviewPage): the all-users scan; first rows, fully loaded;
//  * Cleanup (CleanupPage): the dry run of the repository's sandbox/cleanup.sh with every chat
//    and session aged past its TTL, so every one is a row; then the user filter typed one key
//    at a time.
// Reported: time to the first rows and to the end, the longest main-thread stall (the longest
// gap between ticks of a 1 ms heartbeat) and the time per filter keystroke. Targets: each scan
// ≤ 60 s, no stall over 50 ms, filter ≤ 100 ms per keystroke.
//
//   ./build/<dir>/bench/bench_adminscale [homes] [chats-per-home]

#include "adminoverviewpage.h"
#include "benchfiles.h"
#include "cleanuppage.h"
#include "files/adminoverviewmodel.h"
#include "server/adminaccess.h"
#include "server/openterminalclient.h"

#include <QAbstractItemModel>
#include <QAbstractItemView>
#include <QApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTimer>

#include <cstdio>
#include <functional>
#include <vector>

using namespace sandscope;

namespace {

struct Watch {
    QElapsedTimer clock;
    QElapsedTimer beat;
    QTimer heartbeat;
    qint64 longestStall = 0;
    qint64 firstRowsMs = -1;

    void start(const std::function<bool()> &hasRows)
    {
        heartbeat.setInterval(1);
        QObject::connect(&heartbeat, &QTimer::timeout, [this, hasRows] {
            longestStall = std::max(longestStall, beat.restart());
            if (firstRowsMs < 0 && hasRows())
                firstRowsMs = clock.elapsed();
        });
        clock.start();
        beat.start();
        heartbeat.start();
    }
};

const char *verdict(bool met)
{
    return met ? "met" : "NOT MET";
}

// Every home: chats aged 100 days, one session transcript per chat (what a shell's mkdir -p,
// printf and `find -exec touch -h -d '100 days ago'` made before, in this process).
bool generate(const QString &root, int homes, int chats)
{
    const qint64 old = QDateTime::currentSecsSinceEpoch() - 100 * 86400;
    const QByteArray base = QFile::encodeName(root);
    std::vector<QByteArray> folders; // aged last: what is made inside a folder changes its time
    auto folder = [&](const QByteArray &path) {
        folders.push_back(path);
        return benchfiles::makeDir(path);
    };
    for (int h = 0; h < homes; ++h) {
        const QByteArray name = "user" + QByteArray::number(h);
        const QByteArray home = base + '/' + name;
        const QByteArray project = home + "/.claude/projects/-home-" + name + "-chat";
        if (!folder(home) || !folder(home + "/.claude") || !folder(home + "/.claude/projects")
            || !folder(project))
            return false;
        for (int c = 0; c < chats; ++c) {
            const QByteArray chat = home + "/chat-" + QByteArray::number(c);
            if (!folder(chat) || !benchfiles::writeFile(chat + "/a.txt", "hello", old)
                || !benchfiles::writeFile(project + "/session-" + QByteArray::number(c) + ".jsonl",
                    "{\"type\":\"user\",\"sessionId\":\"s\"}\n", old))
                return false;
        }
    }
    for (const QByteArray &path : folders)
        benchfiles::setTime(path, old);
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    const int homes = argc > 1 ? QByteArray(argv[1]).toInt() : 1000;
    const int chats = argc > 2 ? QByteArray(argv[2]).toInt() : 50;
    QTemporaryDir dir;
    const QString root = dir.filePath(QStringLiteral("home"));
    QDir().mkpath(root);
    QElapsedTimer made;
    made.start();
    if (!generate(root, homes, chats)) {
        std::fprintf(stderr, "could not generate the homes\n");
        return 1;
    }
    std::printf("%d homes x %d chats (%d chats, %d sessions) generated in %.1f s\n", homes, chats,
        homes * chats, homes * chats, double(made.elapsed()) / 1000);

    AdminAccess admin;
    AdminAccess::fromCommand(QStringLiteral("env"), &admin);
    OpenTerminalClient client(ServerConnection {});

    // Users
    {
        AdminOverviewPage page;
        page.setHomesRoot(root);
        page.setClient(&client);
        page.setAdminAccess(admin);
        page.resize(1200, 800);
        Watch watch;
        bool done = false;
        QObject::connect(page.model(), &AdminOverviewModel::loaded, [&] { done = true; });
        QObject::connect(page.model(), &AdminOverviewModel::failed, [&] { done = true; });
        watch.start([&] { return page.model()->rowCount() > 0; });
        page.show(); // starts the scan
        while (!done)
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
        const qint64 total = watch.clock.elapsed();
        qint64 sessions = 0;
        for (const AccountChats &account : page.model()->accounts())
            sessions += account.sessions;
        std::printf("Users scan: %d accounts, %lld sessions; first rows after %lld ms, loaded "
                    "after %.1f s (target <= 60 s: %s); longest stall %lld ms (target <= 50 ms: "
                    "%s)\n",
            page.model()->rowCount(), static_cast<long long>(sessions),
            static_cast<long long>(watch.firstRowsMs), double(total) / 1000,
            verdict(total <= 60000), static_cast<long long>(watch.longestStall),
            verdict(watch.longestStall <= 50));
    }

    // Cleanup
    {
        CleanupPage page;
        page.setClient(&client);
        page.setAdminAccess(admin);
        page.setHomeRoot(root);
        page.findChild<QLineEdit *>(QStringLiteral("scriptPath"))
            ->setText(QStringLiteral(SANDSCOPE_SOURCE_DIR "/sandbox/cleanup.sh"));
        page.resize(1200, 800);
        page.show();
        auto *tree = page.findChild<QAbstractItemView *>(QStringLiteral("planTree"));
        Watch watch;
        bool done = false;
        QObject::connect(&page, &CleanupPage::runFinished, [&] { done = true; });
        watch.start([&] { return tree->model()->rowCount() > 0; });
        page.startDryRun();
        while (!done)
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
        const qint64 total = watch.clock.elapsed();
        watch.heartbeat.stop();
        std::printf("Cleanup dry run: %lld items; first rows after %lld ms, done after %.1f s "
                    "(target <= 60 s: %s); longest stall %lld ms (target <= 50 ms: %s)\n",
            static_cast<long long>(page.plan().items().size()),
            static_cast<long long>(watch.firstRowsMs), double(total) / 1000,
            verdict(total <= 60000), static_cast<long long>(watch.longestStall),
            verdict(watch.longestStall <= 50));

        auto *filter = page.findChild<QLineEdit *>(QStringLiteral("userFilter"));
        qint64 slowest = 0;
        QString typed;
        for (const QChar c : QStringLiteral("user12")) {
            typed += c;
            QElapsedTimer key;
            key.start();
            filter->setText(typed);
            QCoreApplication::processEvents(); // the view lays out what the filter left
            slowest = std::max(slowest, key.elapsed());
        }
        std::printf("Cleanup filter: slowest keystroke %lld ms over %lld items (target <= 100 "
                    "ms: %s); %d users shown for \"%s\"\n",
            static_cast<long long>(slowest), static_cast<long long>(page.plan().items().size()),
            verdict(slowest <= 100), tree->model()->rowCount(), qPrintable(typed));
    }
    return 0;
}
