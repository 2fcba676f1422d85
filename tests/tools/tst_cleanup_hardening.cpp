// sandbox/cleanup.sh under hostile conditions (issue 27), run for real as root on a temporary
// HOME_ROOT: a report that cannot be written, mount points in or at an item, changes between the
// check and the deletion (through the test-only pause hook CLEANUP_TEST_PAUSE_FIFO), untrusted
// plan files, values the plan reader must accept, hostile environments and concurrent runs.

#include "cleanupscriptrun.h"
#include "testing.h"

#include <QDateTime>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <atomic>
#include <sys/mount.h>

using namespace sandscope::test::cleanupscript;

namespace {

constexpr qint64 secondsPerDay = 86400;
const QByteArray sessionId = "11111111-1111-4111-8111-111111111111";
const QStringList users = {QStringLiteral("alice"), QStringLiteral("bob"), QStringLiteral("carol"),
    QStringLiteral("dave"), QStringLiteral("erin")};

// The paths the final message on stderr names as deleted (one per line after "deleted:").
QSet<QString> namedAsDeleted(const QByteArray &err)
{
    QSet<QString> named;
    bool inList = false;
    for (const QByteArray &line : err.split('\n')) {
        if (line.contains("were deleted") || line.contains("was deleted"))
            inList = true;
        else if (inList && line.startsWith("  "))
            named.insert(QString::fromUtf8(line.trimmed()));
        else
            inList = false;
    }
    return named;
}

} // namespace

class CleanupHardeningTest : public QObject {
    Q_OBJECT

    qint64 m_now = 0;
    std::unique_ptr<QTemporaryDir> m_dir;
    QByteArray m_top;
    QByteArray m_root;
    QByteArray m_outside;
    QList<QByteArray> m_mounts; // unmounted again in cleanup()

    qint64 daysAgo(int days) const { return m_now - days * secondsPerDay - 3600; }
    QByteArray chat(const QString &user, const QByteArray &name = "chat-old") const
    {
        return m_root + '/' + user.toUtf8() + '/' + name;
    }
    QByteArray projectOf(const QString &user) const
    {
        return m_root + '/' + user.toUtf8() + "/.claude/projects/-p/";
    }

    Settings settings(Settings extra = {}) const
    {
        extra.insert(QStringLiteral("HOME_ROOT"), QString::fromUtf8(m_root));
        if (!extra.contains(QStringLiteral("CLEANUP_FORMAT")))
            extra.insert(QStringLiteral("CLEANUP_FORMAT"), QStringLiteral("json"));
        return extra;
    }
    Run run(const Settings &extra = {}) const
    {
        return runCleanup(settings(extra), QString::fromUtf8(m_top));
    }
    static Settings executing(Settings extra = {})
    {
        extra.insert(QStringLiteral("CLEANUP_DRY_RUN"), QStringLiteral("false"));
        return extra;
    }
    QString writePlan(const QByteArray &content) const
    {
        const QByteArray path = m_top + "/plan.jsonl";
        ::unlink(path.constData());
        writeFile(path, content);
        return QString::fromUtf8(path);
    }
    // An expired chat with a file and a sub-folder in the home of each of `users`.
    void makeAgedChats()
    {
        for (const QString &user : users) {
            QVERIFY(writeFile(chat(user) + "/notes.txt", "hello\n"));
            QVERIFY(writeFile(chat(user) + "/sub/deep.txt", "deep\n"));
            setTreeTime(chat(user), daysAgo(100));
        }
    }
    void makeAgedSession(const QString &user)
    {
        const QByteArray p = projectOf(user);
        QVERIFY(writeFile(p + sessionId + ".jsonl", "{\"type\":\"user\"}\n"));
        QVERIFY(writeFile(p + sessionId + "/subagents/agent-a.jsonl", "{}\n"));
        setTreeTime(m_root + '/' + user.toUtf8() + "/.claude", daysAgo(200));
    }
    void requireRoot()
    {
        if (isRoot())
            return;
        if (sandscope::test::runningInCi())
            QFAIL("these tests delete, mount and change owners, which needs root; CI runs as root");
        QSKIP("needs root");
    }
    bool mountBind(const QByteArray &source, const QByteArray &target)
    {
        if (::mount(source.constData(), target.constData(), nullptr, MS_BIND, nullptr) != 0)
            return false;
        m_mounts.prepend(target);
        return true;
    }
    bool mountTmpfs(const QByteArray &target, const QByteArray &options)
    {
        if (::mount("tmpfs", target.constData(), "tmpfs", 0, options.constData()) != 0)
            return false;
        m_mounts.prepend(target);
        return true;
    }

    // Starts an execution that stops at the pause hook in `user`'s home only; returns once it
    // has paused there (after that home's checks, before anything there is moved or deleted).
    struct Paused {
        QProcess process;
        QByteArray fifo;
    };
    void startPaused(
        Paused &paused, const Settings &extra, const QString &user, const QStringList &command = {})
    {
        paused.fifo = m_top + "/pause";
        ::unlink(paused.fifo.constData());
        QVERIFY(::mkfifo(paused.fifo.constData(), 0600) == 0);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        const Settings all = settings(executing(extra));
        for (auto it = all.cbegin(); it != all.cend(); ++it)
            env.insert(it.key(), it.value());
        env.insert(QStringLiteral("CLEANUP_TEST_PAUSE_FIFO"), QString::fromUtf8(paused.fifo));
        env.insert(QStringLiteral("CLEANUP_TEST_PAUSE_USER"), user);
        paused.process.setProcessEnvironment(env);
        if (command.isEmpty())
            paused.process.start(QStringLiteral("bash"), {scriptPath()});
        else
            paused.process.start(command.first(), command.mid(1));
        QVERIFY(paused.process.waitForStarted());
        QFile pause(QString::fromUtf8(paused.fifo));
        QVERIFY(pause.open(QIODevice::ReadOnly));
        const QByteArray line = pause.readLine();
        QVERIFY2(line.trimmed() == "paused " + user.toUtf8(), line.constData());
    }
    static void resume(Paused &paused)
    {
        QFile pause(QString::fromUtf8(paused.fifo));
        QVERIFY(pause.open(QIODevice::WriteOnly));
        pause.write("go\n");
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(scriptPath()), qPrintable(scriptPath()));
        m_now = QDateTime::currentSecsSinceEpoch();
    }

    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_dir->setAutoRemove(false);
        m_top = QFileInfo(m_dir->path()).canonicalFilePath().toUtf8();
        m_root = m_top + "/home";
        m_outside = m_top + "/outside";
        QVERIFY(makeDirs(m_root));
        QVERIFY(writeFile(m_outside + "/keep/precious.txt", "outside HOME_ROOT\n"));
        setTreeTime(m_outside, daysAgo(400));
    }

    void cleanup()
    {
        for (const QByteArray &target : std::as_const(m_mounts))
            ::umount2(target.constData(), MNT_DETACH);
        m_mounts.clear();
        if (!m_top.isEmpty())
            removeTree(m_top);
        m_top.clear();
    }

    // ---- the report comes first --------------------------------------------------------------

    void unwritableReportStopsBeforeTheNextDeletion_data()
    {
        QTest::addColumn<QString>("target");
        QTest::newRow("stdout is /dev/full") << QStringLiteral("full");
        QTest::newRow("stdout is a pipe closed after the first line") << QStringLiteral("pipe");
        QTest::newRow("stdout is a file on a full tmpfs") << QStringLiteral("tmpfs");
    }
    void unwritableReportStopsBeforeTheNextDeletion()
    {
        QFETCH(QString, target);
        requireRoot();
        makeAgedChats();
        QString redirect = QStringLiteral(" >/dev/full");
        if (target == QLatin1String("pipe")) {
            redirect = QStringLiteral(" | head -1 >/dev/null");
        } else if (target == QLatin1String("tmpfs")) {
            const QByteArray full = m_top + "/full";
            QVERIFY(makeDirs(full));
            QVERIFY2(mountTmpfs(full, "size=32k"), strerror(errno));
            // Fill it but for two pages: the records of more than one home fit, not all.
            QVERIFY(writeFile(full + "/filler", QByteArray(32 * 1024 - 8192, 'x')));
            redirect = QStringLiteral(" >") + QString::fromUtf8(full) + QStringLiteral("/report");
            // Kept chats with long names make each home's records about 2.5 KB.
            for (const QString &user : users) {
                for (int i = 0; i < 4; ++i)
                    QVERIFY(makeDirs(
                        chat(user, "chat-kept-" + QByteArray(100, 'k') + QByteArray::number(i))));
            }
        }
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        const Settings all = settings(executing());
        for (auto it = all.cbegin(); it != all.cend(); ++it)
            env.insert(it.key(), it.value());
        process.setProcessEnvironment(env);
        process.start(QStringLiteral("bash"),
            {QStringLiteral("-c"),
                QStringLiteral("bash \"$0\"") + redirect
                    + QStringLiteral("; exit ${PIPESTATUS[0]}"),
                scriptPath()});
        QVERIFY(process.waitForFinished(120000));
        const QByteArray err = process.readAllStandardError();
        QVERIFY2(process.exitCode() == 5, err.constData());

        QSet<QString> gone;
        for (const QString &user : users) {
            if (!exists(chat(user)))
                gone.insert(QString::fromUtf8(chat(user)));
        }
        // It stopped: something is left, and what the message names is exactly what is gone.
        QVERIFY2(gone.size() < users.size(), err.constData());
        QCOMPARE(namedAsDeleted(err), gone);
        if (target == QLatin1String("full"))
            QVERIFY2(gone.isEmpty(), err.constData());
        if (target == QLatin1String("tmpfs"))
            QVERIFY2(gone.size() >= 2, err.constData()); // the list covers every home before
        QVERIFY2(err.contains("report"), err.constData());
        // Nothing is left half-moved: every chat not deleted is still in its place, intact.
        for (const QString &user : users) {
            if (!gone.contains(QString::fromUtf8(chat(user))))
                QVERIFY2(exists(chat(user) + "/sub/deep.txt"), chat(user).constData());
        }
        if (target == QLatin1String("tmpfs")) {
            QFile report(QString::fromUtf8(m_top + "/full/report"));
            QVERIFY(report.open(QIODevice::ReadOnly));
            const QByteArray written = report.readAll();
            for (const QString &path : std::as_const(gone))
                QVERIFY2(written.contains(path.toUtf8()), written.constData());
        }
    }

    // ---- mount points ------------------------------------------------------------------------

    void mountPointAtOrInsideAnItemIsNeverDeleted_data()
    {
        QTest::addColumn<QString>("how");
        QTest::newRow("bind mount at the chat") << QStringLiteral("bind-at");
        QTest::newRow("bind mount inside the chat (same filesystem)")
            << QStringLiteral("bind-inside");
        QTest::newRow("tmpfs inside the chat") << QStringLiteral("tmpfs-inside");
        QTest::newRow("bind mount inside a session folder") << QStringLiteral("bind-session");
    }
    void mountPointAtOrInsideAnItemIsNeverDeleted()
    {
        QFETCH(QString, how);
        requireRoot();
        makeAgedChats();
        makeAgedSession(QStringLiteral("alice"));
        const QByteArray sessionDir = projectOf(QStringLiteral("alice")) + sessionId;
        // A plan made before the mount: executing it must refuse the item now.
        const Run dry = run();
        QCOMPARE(dry.exitCode, 0);

        QByteArray mountPoint = chat(QStringLiteral("alice"));
        if (how == QLatin1String("bind-inside") || how == QLatin1String("tmpfs-inside"))
            mountPoint += "/sub";
        if (how == QLatin1String("bind-session"))
            mountPoint = sessionDir + "/subagents";
        const qint64 before
            = QFileInfo(QString::fromUtf8(mountPoint)).lastModified().toSecsSinceEpoch();
        if (how == QLatin1String("tmpfs-inside")) {
            QVERIFY2(mountTmpfs(mountPoint, "size=1m"), strerror(errno));
            QVERIFY(writeFile(mountPoint + "/on-tmpfs.txt", "tmpfs\n"));
        } else {
            QVERIFY2(mountBind(m_outside + "/keep", mountPoint), strerror(errno));
        }
        // Same times as before the mount, so that only the mount tells it apart.
        setTreeTime(mountPoint, before);
        setTreeTime(m_outside + "/keep", before);

        const Run planned = run(executing({{QStringLiteral("CLEANUP_PLAN"), writePlan(dry.out)}}));
        QVERIFY2(planned.exitCode == 4, diagnostics(planned).constData());
        const QString item = how == QLatin1String("bind-session")
            ? QString::fromUtf8(projectOf(QStringLiteral("alice")) + sessionId + ".jsonl")
            : QString::fromUtf8(chat(QStringLiteral("alice")));
        const QJsonObject outcome = planned.itemFor(item);
        QCOMPARE(outcome.value(QLatin1String("outcome")).toString(), QStringLiteral("refused"));
        QVERIFY2(outcome.value(QLatin1String("message"))
                     .toString()
                     .contains(QLatin1String("mount point")),
            diagnostics(planned).constData());
        QVERIFY(exists(m_outside + "/keep/precious.txt"));
        QVERIFY(exists(mountPoint));
        // The other homes' chats were deleted as planned.
        QVERIFY(!exists(chat(QStringLiteral("bob"))));

        // Without a plan the scan reports it and never offers it for deletion.
        const Run again = run(executing());
        const QJsonObject reported = again.itemFor(item);
        QCOMPARE(reported.value(QLatin1String("action")).toString(), QStringLiteral("report"));
        QVERIFY(reported.value(QLatin1String("reason"))
                    .toString()
                    .contains(QLatin1String("mount point")));
        QVERIFY(exists(m_outside + "/keep/precious.txt"));
    }

    // ---- changes after the check -------------------------------------------------------------

    void changeAfterTheCheckIsNotDeleted_data()
    {
        QTest::addColumn<QString>("change");
        QTest::addColumn<QString>("outcome");
        QTest::newRow("file written into the chat")
            << QStringLiteral("file") << QStringLiteral("skipped-changed");
        QTest::newRow("folder swapped in") << QStringLiteral("swap") << QStringLiteral("refused");
        QTest::newRow("transcript removed, folder left")
            << QStringLiteral("transcript") << QStringLiteral("skipped-changed");
    }
    void changeAfterTheCheckIsNotDeleted()
    {
        QFETCH(QString, change);
        QFETCH(QString, outcome);
        requireRoot();
        makeAgedChats();
        makeAgedSession(QStringLiteral("alice"));
        const QByteArray c = chat(QStringLiteral("alice"));
        const QByteArray t = projectOf(QStringLiteral("alice")) + sessionId + ".jsonl";
        Paused paused;
        startPaused(paused, {}, QStringLiteral("alice"));
        if (change == QLatin1String("file")) {
            QVERIFY(writeFile(c + "/sub/written-after-the-check.txt", "new\n"));
            setTreeTime(c + "/sub/written-after-the-check.txt", daysAgo(100));
        } else if (change == QLatin1String("swap")) {
            QVERIFY(
                ::rename(c.constData(), QByteArray(m_outside + "/swapped-out").constData()) == 0);
            QVERIFY(writeFile(c + "/other.txt", "another folder\n"));
            setTreeTime(c, daysAgo(100));
        } else {
            QVERIFY(::unlink(t.constData()) == 0);
        }
        resume(paused);
        QVERIFY(paused.process.waitForFinished(60000));
        const QByteArray out = paused.process.readAllStandardOutput();
        QVERIFY2(paused.process.exitCode() == 4,
            QByteArray(out + paused.process.readAllStandardError()).constData());
        const QString item = QString::fromUtf8(change == QLatin1String("transcript") ? t : c);
        bool seen = false;
        for (const QByteArray &line : out.split('\n')) {
            const QJsonObject object = QJsonDocument::fromJson(line).object();
            if (object.value(QLatin1String("path")).toString() != item)
                continue;
            seen = true;
            QCOMPARE(object.value(QLatin1String("outcome")).toString(), outcome);
        }
        QVERIFY2(seen, out.constData());
        if (change == QLatin1String("file"))
            QVERIFY(exists(c + "/sub/written-after-the-check.txt") && exists(c + "/notes.txt"));
        else if (change == QLatin1String("swap"))
            QVERIFY(exists(c + "/other.txt") && exists(m_outside + "/swapped-out/notes.txt"));
        else
            QVERIFY(exists(
                projectOf(QStringLiteral("alice")) + sessionId + "/subagents/agent-a.jsonl"));
        // No quarantine folder is left behind.
        for (const QByteArray &child : childrenOf(m_root + "/alice"))
            QVERIFY2(!child.contains(".cleanup-"), child.constData());
        QVERIFY(!exists(chat(QStringLiteral("bob"))));
    }

    // ---- plan files --------------------------------------------------------------------------

    void untrustedPlanFileIsRejected_data()
    {
        QTest::addColumn<QString>("how");
        QTest::newRow("world-writable") << QStringLiteral("o+w");
        QTest::newRow("group-writable") << QStringLiteral("g+w");
        QTest::newRow("owned by another user") << QStringLiteral("owner");
        QTest::newRow("reached through a symlink") << QStringLiteral("symlink");
    }
    void untrustedPlanFileIsRejected()
    {
        QFETCH(QString, how);
        requireRoot();
        makeAgedChats();
        const Run dry = run();
        QString plan = writePlan(dry.out);
        const QByteArray path = plan.toUtf8();
        if (how == QLatin1String("o+w"))
            QVERIFY(::chmod(path.constData(), 0646) == 0);
        else if (how == QLatin1String("g+w"))
            QVERIFY(::chmod(path.constData(), 0664) == 0);
        else if (how == QLatin1String("owner"))
            QVERIFY(::chown(path.constData(), 65534, 65534) == 0);
        else {
            QVERIFY(makeSymlink(path, m_top + "/plan-link.jsonl"));
            plan = QString::fromUtf8(m_top + "/plan-link.jsonl");
        }
        const Snapshot before = snapshot(m_root);
        const Run executed = run(executing({{QStringLiteral("CLEANUP_PLAN"), plan}}));
        QVERIFY2(executed.exitCode == 2, diagnostics(executed).constData());
        QVERIFY2(executed.err.contains("CLEANUP_PLAN"), executed.err.constData());
        QVERIFY(executed.out.isEmpty());
        const Snapshot after = snapshot(m_root);
        QVERIFY2(before == after, describeDifference(before, after).constData());
    }

    void implausibleValuesAreSuspiciousNotFatal_data()
    {
        QTest::addColumn<QString>("how");
        QTest::newRow("chat dated 1960") << QStringLiteral("1960");
        QTest::newRow("sparse files summing to 16 digits") << QStringLiteral("sparse");
    }
    void implausibleValuesAreSuspiciousNotFatal()
    {
        QFETCH(QString, how);
        makeAgedChats();
        const QByteArray odd = chat(QStringLiteral("alice"), "chat-odd");
        QVERIFY(makeDirs(odd));
        if (how == QLatin1String("1960")) {
            QVERIFY(writeFile(odd + "/old.txt", "old\n"));
            setTreeTime(odd, -315619200); // 1960-01-01
        } else {
            for (int i = 0; i < 70; ++i) {
                const QByteArray file = odd + "/sparse-" + QByteArray::number(i);
                const int fd = ::open(file.constData(), O_WRONLY | O_CREAT, 0644);
                QVERIFY(fd >= 0);
                const bool grown = ::ftruncate(fd, (Q_INT64_C(1) << 44) - 4096) == 0;
                ::close(fd);
                if (!grown && sandscope::test::runningInCi())
                    QFAIL("CI's filesystem must allow 16 TiB sparse files for this row");
                if (!grown)
                    QSKIP("this filesystem does not allow 16 TiB sparse files");
            }
            setTreeTime(odd, daysAgo(100));
        }
        const Run dry = run();
        QVERIFY2(dry.exitCode == 0 && dry.badLines.isEmpty(), diagnostics(dry).constData());
        const QJsonObject item = dry.itemFor(QString::fromUtf8(odd));
        QCOMPARE(item.value(QLatin1String("action")).toString(), QStringLiteral("report"));
        QVERIFY2(
            item.value(QLatin1String("reason")).toString().contains(QLatin1String("suspicious")),
            diagnostics(dry).constData());
        // Its own plan reader accepts what the dry run wrote.
        const Run checked = run({{QStringLiteral("CLEANUP_PLAN"), writePlan(dry.out)}});
        QVERIFY2(checked.exitCode == 0, diagnostics(checked).constData());
        QCOMPARE(
            checked.pathsWith(QStringLiteral("outcome"), QStringLiteral("would-delete")).size(),
            users.size());
    }

    void planKeptLineFlippedToDeleteIsRefusedAtALowerTtl()
    {
        requireRoot();
        const QByteArray recent = chat(QStringLiteral("alice"), "chat-recent");
        QVERIFY(writeFile(recent + "/a.txt", "a\n"));
        setTreeTime(recent, daysAgo(20));
        const Run dry = run();
        QByteArray plan = dry.out;
        QVERIFY(plan.contains("\"action\":\"keep\""));
        plan.replace("\"action\":\"keep\"", "\"action\":\"delete\"");
        const Run executed = run(executing({{QStringLiteral("CLEANUP_PLAN"), writePlan(plan)},
            {QStringLiteral("CHAT_TTL_DAYS"), QStringLiteral("10")}}));
        QVERIFY2(executed.exitCode == 4, diagnostics(executed).constData());
        QCOMPARE(
            executed.itemFor(QString::fromUtf8(recent)).value(QLatin1String("outcome")).toString(),
            QStringLiteral("refused"));
        QVERIFY(exists(recent + "/a.txt"));
    }

    void badJsonNameInAPlanIsNotEchoedRaw()
    {
        const QByteArray plan = "{\"action\":\"keep\",\"\\u001b]0;owned\\u0007\\u001b[2J\":1,"
                                "\"\\u001b]0;owned\\u0007\\u001b[2J\":2}\n";
        const Run checked = run({{QStringLiteral("CLEANUP_PLAN"), writePlan(plan)}});
        QCOMPARE(checked.exitCode, 2);
        QVERIFY2(!checked.err.contains('\x1b') && !checked.err.contains('\x07'),
            checked.err.toPercentEncoding(" :;\"'").constData());
        QVERIFY2(checked.err.contains("appears twice"), checked.err.constData());
    }

    // ---- settings and environment ------------------------------------------------------------

    void homeRootOfOnlySlashesIsRefused_data()
    {
        QTest::addColumn<QString>("homeRoot");
        QTest::newRow("/") << QStringLiteral("/");
        QTest::newRow("//") << QStringLiteral("//");
        QTest::newRow("///") << QStringLiteral("///");
        QTest::newRow("//.") << QStringLiteral("//.");
    }
    void homeRootOfOnlySlashesIsRefused()
    {
        QFETCH(QString, homeRoot);
        const Run refused
            = runCleanup({{QStringLiteral("HOME_ROOT"), homeRoot}}, QString::fromUtf8(m_top));
        QVERIFY2(refused.exitCode == 2, diagnostics(refused).constData());
        QVERIFY(refused.out.isEmpty());
        QVERIFY2(refused.err.contains("HOME_ROOT must not be /"), refused.err.constData());
    }

    void callersEnvironmentDoesNotReachTheDeletion()
    {
        requireRoot();
        makeAgedChats();
        const QByteArray marker = m_top + "/hijacked";
        const QByteArray evilBin = m_top + "/evil-bin";
        for (const char *tool : {"rm", "mv", "find", "mkdir", "xargs", "env", "bash", "awk"}) {
            QVERIFY(writeFile(evilBin + '/' + tool, "#!/bin/sh\ntouch '" + marker + "'\n"));
            QVERIFY(::chmod(QByteArray(evilBin + '/' + tool).constData(), 0755) == 0);
        }
        // BASH_ENV is read by the bash that runs the script before any line of it; what must not
        // happen is that it reaches the shells the script starts.
        QVERIFY(writeFile(m_top + "/bash-env",
            "case \"$0\" in */cleanup.sh) ;; *) touch '" + marker + "' ;; esac\n"));
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        const Settings all = settings(executing());
        for (auto it = all.cbegin(); it != all.cend(); ++it)
            env.insert(it.key(), it.value());
        env.insert(QStringLiteral("BASH_ENV"), QString::fromUtf8(m_top + "/bash-env"));
        env.insert(QStringLiteral("PATH"),
            QString::fromUtf8(evilBin) + QStringLiteral(":") + env.value(QStringLiteral("PATH")));
        for (const char *function : {"rm", "mv", "find", "xargs", "mkdir"}) {
            env.insert(QStringLiteral("BASH_FUNC_%1%%").arg(QLatin1String(function)),
                QStringLiteral("() { touch '%1'; }").arg(QString::fromUtf8(marker)));
        }
        process.setProcessEnvironment(env);
        process.start(QStringLiteral("/bin/bash"), {scriptPath()});
        QVERIFY(process.waitForFinished(120000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        QVERIFY2(!exists(marker), "the caller's BASH_ENV, PATH or functions were used");
        for (const QString &user : users)
            QVERIFY(!exists(chat(user)));
    }

    void twoExecutionsNeverRunAtOnce()
    {
        requireRoot();
        makeAgedChats();
        Paused first;
        startPaused(first, {}, QStringLiteral("alice"));
        const Run second = run(executing());
        QVERIFY2(second.exitCode == 2, diagnostics(second).constData());
        QVERIFY2(second.err.contains("another"), second.err.constData());
        // The dry run needs no lock.
        QCOMPARE(run().exitCode, 0);
        resume(first);
        QVERIFY(first.process.waitForFinished(60000));
        QCOMPARE(first.process.exitCode(), 0);
        QVERIFY(!exists(chat(QStringLiteral("erin"))));
    }

    // ---- scale -------------------------------------------------------------------------------

    void homeWithTwentySevenThousandChatsIsScanned()
    {
        const QByteArray home = m_root + "/alice/";
        const QByteArray longTail(60, 'x');
        QVERIFY(makeDirs(home));
        for (int i = 0; i < 27000; ++i) {
            const QByteArray name = home + "chat-" + longTail + QByteArray::number(i);
            QVERIFY(::mkdir(name.constData(), 0755) == 0);
        }
        const Run dry = run();
        QVERIFY2(dry.exitCode == 0, diagnostics(dry).left(2000).constData());
        QCOMPARE(dry.summary.value(QLatin1String("chat_keep")).toInt()
                + dry.summary.value(QLatin1String("chat_delete")).toInt(),
            27000);
        QVERIFY(!dry.err.contains("Argument list too long"));
    }

    void claudeFolderFlippingToASymlinkIsNeverAChat()
    {
        makeAgedSession(QStringLiteral("alice"));
        const QByteArray claude = m_root + "/alice/.claude";
        const QByteArray parked = m_root + "/alice/.claude-real";
        QVERIFY(makeSymlink(m_outside, m_root + "/alice/.claude-link"));
        std::atomic<bool> stop {false};
        std::unique_ptr<QThread> flipper(QThread::create([&] {
            while (!stop) {
                ::rename(claude.constData(), parked.constData());
                ::symlink(m_outside.constData(), claude.constData());
                QThread::usleep(200);
                ::unlink(claude.constData());
                ::rename(parked.constData(), claude.constData());
                QThread::usleep(200);
            }
        }));
        flipper->start();
        QStringList listedAsChats;
        for (int i = 0; i < 40 && listedAsChats.isEmpty(); ++i) {
            const Run dry = run();
            for (const QJsonObject &item : dry.items) {
                if (item.value(QLatin1String("kind")).toString() == QLatin1String("chat"))
                    listedAsChats << item.value(QLatin1String("path")).toString();
            }
        }
        stop = true;
        flipper->wait();
        QVERIFY2(listedAsChats.isEmpty(), qPrintable(listedAsChats.join(QLatin1Char(' '))));
    }

    // Text output shows every character that displays as nothing or reorders its neighbours,
    // not only the bidi overrides: marks, joiners, the BOM, tags that hide ASCII (issue 27).
    void invisibleCharactersInNamesAreEscapedInText()
    {
        // U+200F, U+2060, U+FEFF, U+E0041, U+061C, U+00AD, U+180E, U+FFF9 in UTF-8.
        const QList<QByteArray> invisible {"\xe2\x80\x8f", "\xe2\x81\xa0", "\xef\xbb\xbf",
            "\xf3\xa0\x81\x81", "\xd8\x9c", "\xc2\xad", "\xe1\xa0\x8e", "\xef\xbf\xb9"};
        QByteArray name = "chat-";
        for (const QByteArray &character : invisible)
            name += character + "x";
        QVERIFY(writeFile(m_root + "/alice/" + name + "/f", "x\n"));
        const Run text = run({{QStringLiteral("CLEANUP_FORMAT"), QStringLiteral("text")}});
        QVERIFY2(text.exitCode == 0, text.err.constData());
        for (const QByteArray &character : invisible)
            QVERIFY2(!text.out.contains(character), text.out.toHex().constData());
        QVERIFY2(text.out.contains("chat-\\u200fx\\u2060x\\ufeffx\\U000e0041x\\u061cx\\u00adx"
                                   "\\u180ex\\ufff9x"),
            text.out.constData());
        // Machine output keeps the name: JSON needs no escape for them.
        const Run json = run();
        QVERIFY2(json.out.contains(name), json.out.constData());
    }
};

QTEST_GUILESS_MAIN(CleanupHardeningTest)
#include "tst_cleanup_hardening.moc"
