// The file follower (app/terminal/follower.py) run for real by python3 on a pipe, read with
// the same FrameReader FollowChannel uses: every byte of a followed file arrives exactly once,
// in order, whatever the file holds and however it grows; rewrites, truncations and deletions
// are told apart; resuming at an offset in the same file gives exactly the rest; links, FIFOs
// and folders are refused without blocking; a watched process that ends is reported. In agents
// mode (the live wall's) a process named like the claude CLI is announced with its transcript,
// which is followed like any file, a linked transcript is refused, and its end is reported.
// The transport over a real server's terminal is tested by tests/integration/tst_followchannel.

#include "terminal/followprotocol.h"
#include "testing.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

using namespace sandscope;
using namespace sandscope::test;
using followprotocol::Frame;

namespace {

class LocalFollower {
public:
    explicit LocalFollower(const QString &dir, const QStringList &mode = {})
    {
        QFile program(dir + QStringLiteral("/follower.py"));
        if (program.open(QIODevice::WriteOnly))
            program.write(mode.contains(QLatin1String("agents")) ? followprotocol::agentsProgram()
                                                                 : followprotocol::program());
        program.close();
        m_process.setProgram(QStringLiteral("python3"));
        m_process.setArguments(QStringList {QStringLiteral("-u"), program.fileName()} + mode);
        QObject::connect(&m_process, &QProcess::readyReadStandardOutput, [this] {
            m_reader.feed(m_process.readAllStandardOutput());
            m_frames += m_reader.takeFrames();
        });
        m_process.start();
    }
    ~LocalFollower()
    {
        m_process.closeWriteChannel();
        if (!m_process.waitForFinished(5000))
            m_process.kill();
        m_process.waitForFinished(2000);
    }

    bool waitFor(const std::function<bool()> &condition, int ms = 20000)
    {
        QElapsedTimer timer;
        timer.start();
        while (!condition()) {
            if (timer.elapsed() > ms || m_reader.isDamaged())
                return false;
            QTest::qWait(5);
        }
        return true;
    }
    bool ready()
    {
        return waitFor([this] { return count(Frame::Kind::Ready) > 0; });
    }
    void send(const QByteArray &command) { m_process.write(command); }
    int count(Frame::Kind kind, const QByteArray &id = {}) const
    {
        return int(std::count_if(m_frames.cbegin(), m_frames.cend(), [&](const Frame &frame) {
            return frame.kind == kind && (id.isEmpty() || frame.id == id);
        }));
    }
    // The file as the frames rebuild it: data at its offsets, a rewrite starting it over.
    QByteArray rebuilt(const QByteArray &id, QString *problem) const
    {
        QByteArray content;
        for (const Frame &frame : m_frames) {
            if (frame.id != id)
                continue;
            if (frame.kind == Frame::Kind::Truncated
                || (frame.kind == Frame::Kind::Opened && frame.offset == 0))
                content.clear();
            if (frame.kind != Frame::Kind::Data)
                continue;
            if (frame.offset != content.size() && problem->isEmpty())
                *problem = QStringLiteral("data at %1, expected %2")
                               .arg(frame.offset)
                               .arg(content.size());
            content += frame.data;
        }
        return content;
    }
    bool synced(const QByteArray &token)
    {
        send(followprotocol::syncCommand(token));
        return waitFor([&] {
            return std::any_of(m_frames.cbegin(), m_frames.cend(), [&](const Frame &frame) {
                return frame.kind == Frame::Kind::Synced
                    && frame.text == QString::fromLatin1(token);
            });
        });
    }
    QList<Frame> frames() const { return m_frames; }
    // Where reading went on when `id` was first opened; -1: never opened.
    qint64 openedAt(const QByteArray &id) const
    {
        for (const Frame &frame : m_frames) {
            if (frame.kind == Frame::Kind::Opened && frame.id == id)
                return frame.offset;
        }
        return -1;
    }
    QString damage() const { return m_reader.damage(); }

private:
    QProcess m_process;
    followprotocol::FrameReader m_reader;
    QList<Frame> m_frames;
};

void append(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::Append));
    QCOMPARE(file.write(bytes), bytes.size());
}

// A process named like the claude CLI (python3 run as "claude") in `cwd` with HOME=`home`,
// sleeping; its command line names the session unless `sessionId` is empty.
void startFakeAgent(
    QProcess *process, const QString &home, const QString &cwd, const QString &sessionId)
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("HOME"), home);
    environment.remove(QStringLiteral("CLAUDE_CONFIG_DIR"));
    process->setProcessEnvironment(environment);
    process->setWorkingDirectory(cwd);
    process->start(QStringLiteral("python3"),
        {QStringLiteral("-c"),
            sessionId.isEmpty()
                ? QStringLiteral("import os, sys; os.execv(sys.executable, ['claude', '-c', "
                                 "'import time; time.sleep(120)'])")
                : QStringLiteral("import os, sys; os.execv(sys.executable, ['claude', '-c', "
                                 "'import time; time.sleep(120)', '--session-id', sys.argv[1]])"),
            sessionId});
}

// Makes `cwd` and the folder where the CLI keeps the transcript of `session` run there (short
// paths: no hash); the transcript's path, empty when a folder could not be made.
QString makeAgentFolders(const QString &home, const QString &cwd, const QString &session)
{
    QString slug = cwd;
    for (QChar &c : slug) {
        if (!(c.unicode() < 128 && c.isLetterOrNumber()))
            c = QLatin1Char('-');
    }
    const QString folder = home + QStringLiteral("/.claude/projects/") + slug;
    if (!QDir().mkpath(cwd) || !QDir().mkpath(folder))
        return {};
    return folder + QLatin1Char('/') + session + QStringLiteral(".jsonl");
}

// The agents announced for `pid` (the machine may run other agents); `id` gets its id.
QList<QJsonObject> announcements(const QList<Frame> &frames, qint64 pid, QByteArray *id = nullptr)
{
    QList<QJsonObject> found;
    for (const Frame &frame : frames) {
        if (frame.kind != Frame::Kind::Agent)
            continue;
        const QJsonObject object = QJsonDocument::fromJson(frame.data).object();
        if (qint64(object.value(QLatin1String("pid")).toDouble()) == pid) {
            found.append(object);
            if (id)
                *id = frame.id;
        }
    }
    return found;
}

// The follower's id of the agent `pid` once it is announced; empty when it is not.
QByteArray waitForAgent(LocalFollower &follower, qint64 pid)
{
    QByteArray id;
    follower.waitFor([&] { return !announcements(follower.frames(), pid, &id).isEmpty(); });
    return id;
}

qint64 inodeOf(const QString &path)
{
    struct stat st { };
    return ::stat(QFile::encodeName(path).constData(), &st) == 0 ? qint64(st.st_ino) : -1;
}

} // namespace

class TestFollower : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QFAIL("python3 is required (scripts/install-deps.sh installs it)");
    }

    // Property over random inputs: any frame line the follower format allows parses back to
    // its fields, fed in any chunking, with noise lines between; one flipped byte is caught.
    void framesSurviveAnyChunkingAndADamagedByteIsCaught()
    {
        QRandomGenerator random(7);
        for (int round = 0; round < 200; ++round) {
            const QByteArray data = seededBytes(int(random.bounded(300)), random.generate());
            const qint64 offset = random.bounded(1 << 30);
            const QByteArray line = followprotocol::frameLine("D 7 " + QByteArray::number(offset)
                + ' ' + (data.isEmpty() ? QByteArray("-") : data.toBase64()));
            const QByteArray stream = "user@box:~$ \x1b[?2004l\r\n" + line + "noise\r\n" + line;
            followprotocol::FrameReader reader;
            for (int at = 0; at < stream.size();) {
                const int step = 1 + int(random.bounded(40));
                reader.feed(stream.mid(at, step));
                at += step;
            }
            const QList<Frame> frames = reader.takeFrames();
            QVERIFY(!reader.isDamaged());
            QCOMPARE(frames.size(), 2);
            for (const Frame &frame : frames) {
                QCOMPARE(frame.kind, Frame::Kind::Data);
                QCOMPARE(frame.id, QByteArray("7"));
                QCOMPARE(frame.offset, offset);
                QCOMPARE(frame.data, data);
            }
            QByteArray damaged = line;
            const int at = 5 + int(random.bounded(damaged.size() - 15));
            damaged[at] = damaged.at(at) == 'A' ? 'B' : 'A';
            followprotocol::FrameReader second;
            second.feed(damaged);
            QVERIFY2(second.isDamaged(), damaged.constData());
        }
    }

    void linesWithoutTheMarkerArePassedOverAndAnEndlessLineIsDamage()
    {
        followprotocol::FrameReader reader;
        reader.feed("login message\r\n$ echo @SSF\"+\"-LOAD\r\n@SSF-LOAD\r\n");
        QList<Frame> frames = reader.takeFrames();
        QCOMPARE(frames.size(), 1);
        QCOMPARE(frames.first().kind, Frame::Kind::Loading);
        reader.feed(QByteArray(followprotocol::FrameReader::maxLineBytes + 10, 'x'));
        QVERIFY(reader.isDamaged());
    }

    void everyByteOfAGrowingFileArrivesOnceInOrder()
    {
        QTemporaryDir dir;
        LocalFollower follower(dir.path());
        QVERIFY(follower.ready());
        const QString path = dir.filePath(QStringLiteral("run.jsonl"));
        append(path, "{\"type\":\"system\"}\n{\"type\":\"assi");
        follower.send(followprotocol::addCommand("1", path, 0, 0));
        QByteArray expected = "{\"type\":\"system\"}\n{\"type\":\"assi";
        QString problem;
        QVERIFY(follower.waitFor([&] { return follower.rebuilt("1", &problem) == expected; }));
        // A partial line is completed, then bytes of every value follow in odd pieces.
        const QByteArray binary = seededBytes(300000, 11);
        for (int at = 0; at < binary.size(); at += 77777) {
            append(path, binary.mid(at, 77777));
            expected += binary.mid(at, 77777);
        }
        QVERIFY(follower.synced("a"));
        QCOMPARE(follower.rebuilt("1", &problem), expected);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QCOMPARE(follower.count(Frame::Kind::Opened, "1"), 1);
    }

    void aRewriteATruncationAndADeletionAreToldApart()
    {
        QTemporaryDir dir;
        LocalFollower follower(dir.path());
        QVERIFY(follower.ready());
        const QString path = dir.filePath(QStringLiteral("t.jsonl"));
        append(path, "first\nsecond\n");
        follower.send(followprotocol::addCommand("f", path, 0, 0));
        QString problem;
        QVERIFY(
            follower.waitFor([&] { return follower.rebuilt("f", &problem) == "first\nsecond\n"; }));
        // Truncated in place: T, and the file's new bytes from offset 0.
        QVERIFY(QFile::resize(path, 0));
        append(path, "x\n");
        QVERIFY(follower.waitFor([&] { return follower.count(Frame::Kind::Truncated, "f") == 1; }));
        QVERIFY(follower.waitFor([&] { return follower.rebuilt("f", &problem) == "x\n"; }));
        // Replaced by another file (a new inode): N at offset 0 with the new content.
        const QString other = dir.filePath(QStringLiteral("new"));
        append(other, "replacement\n");
        QVERIFY(::rename(QFile::encodeName(other).constData(), QFile::encodeName(path).constData())
            == 0);
        QVERIFY(
            follower.waitFor([&] { return follower.rebuilt("f", &problem) == "replacement\n"; }));
        QCOMPARE(follower.count(Frame::Kind::Opened, "f"), 2);
        // Deleted: G once; created again: followed again from its start.
        QVERIFY(QFile::remove(path));
        QVERIFY(follower.waitFor([&] { return follower.count(Frame::Kind::Gone, "f") == 1; }));
        append(path, "back\n");
        QVERIFY(follower.waitFor([&] { return follower.rebuilt("f", &problem) == "back\n"; }));
        QVERIFY(follower.synced("z"));
        QCOMPARE(follower.count(Frame::Kind::Gone, "f"), 1);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    // ext4 gives a deleted file's inode number to the next file made at once, so a file
    // created again can have the number of the one it replaces, and be longer than the offset
    // reached in it: still another file, read from its start.
    void aFileCreatedAgainWithTheDeletedOnesInodeNumberIsReadFromItsStart()
    {
        QTemporaryDir dir;
        LocalFollower follower(dir.path());
        QVERIFY(follower.ready());
        const QString path = dir.filePath(QStringLiteral("again.jsonl"));
        QByteArray content = "first\n";
        append(path, content);
        follower.send(followprotocol::addCommand("g", path, 0, 0));
        QString problem;
        int reused = 0;
        for (int round = 1; round <= 5; ++round) {
            QVERIFY(follower.waitFor([&] { return follower.rebuilt("g", &problem) == content; }));
            const qint64 inodeBefore = inodeOf(path);
            QVERIFY(QFile::remove(path));
            QVERIFY(
                follower.waitFor([&] { return follower.count(Frame::Kind::Gone, "g") == round; }));
            content = QByteArray("round ") + QByteArray::number(round) + ", longer than before "
                + QByteArray(round * 10, 'x') + '\n';
            append(path, content);
            reused += inodeOf(path) == inodeBefore ? 1 : 0;
        }
        QVERIFY(follower.synced("s"));
        QCOMPARE(follower.rebuilt("g", &problem), content);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        qInfo("%d of 5 files created again had the deleted one's inode number", reused);
        struct statfs fs { };
        QCOMPARE(::statfs(QFile::encodeName(dir.path()).constData(), &fs), 0);
        constexpr unsigned long ext4Magic = 0xEF53;
        if (static_cast<unsigned long>(fs.f_type) == ext4Magic)
            QVERIFY2(reused > 0, "ext4 did not reuse an inode number: the case was not tried");
    }

    void resumingInTheSameFileGivesExactlyTheRest()
    {
        QTemporaryDir dir;
        LocalFollower follower(dir.path());
        QVERIFY(follower.ready());
        const QString path = dir.filePath(QStringLiteral("r"));
        const QByteArray content = seededBytes(100000, 3);
        append(path, content);
        follower.send(followprotocol::addCommand("a", path, 4321, inodeOf(path)));
        QVERIFY(follower.synced("1"));
        QByteArray rest;
        for (const Frame &frame : follower.frames()) {
            if (frame.kind == Frame::Kind::Data && frame.id == "a") {
                QCOMPARE(frame.offset, 4321 + rest.size());
                rest += frame.data;
            }
        }
        QCOMPARE(rest, content.mid(4321));
        // The same offset in another file (the inode differs): read from its start.
        follower.send(followprotocol::addCommand("b", path, 4321, inodeOf(path) + 1));
        QVERIFY(follower.synced("2"));
        QString problem;
        QCOMPARE(follower.rebuilt("b", &problem), content);
        // The same inode number with other bytes before the offset (deleted and created again
        // while nobody looked): read from its start. The bytes received decide, even when
        // fewer than a whole tail were.
        QByteArray other = content.left(4321);
        other[4300] = char(other.at(4300) ^ 1);
        follower.send(followprotocol::addCommand("c", path, 4321, inodeOf(path), other));
        follower.send(
            followprotocol::addCommand("d", path, 4321, inodeOf(path), content.left(4321)));
        follower.send(
            followprotocol::addCommand("e", path, 4321, inodeOf(path), content.mid(4316, 5)));
        QVERIFY(follower.synced("3"));
        QCOMPARE(follower.openedAt("c"), 0);
        QCOMPARE(follower.rebuilt("c", &problem), content);
        QCOMPARE(follower.openedAt("d"), 4321);
        QCOMPARE(follower.openedAt("e"), 4321);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

    void linksFifosAndFoldersAreRefusedWithoutBlocking()
    {
        QTemporaryDir dir;
        LocalFollower follower(dir.path());
        QVERIFY(follower.ready());
        const QString target = dir.filePath(QStringLiteral("secret"));
        append(target, "not yours\n");
        const QString link = dir.filePath(QStringLiteral("link"));
        QVERIFY(QFile::link(target, link));
        const QString fifo = dir.filePath(QStringLiteral("fifo"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        follower.send(followprotocol::addCommand("l", link, 0, 0));
        follower.send(followprotocol::addCommand("p", fifo, 0, 0));
        follower.send(followprotocol::addCommand("d", dir.path(), 0, 0));
        QVERIFY(follower.synced("s"));
        QCOMPARE(follower.count(Frame::Kind::Error, "l"), 1);
        QCOMPARE(follower.count(Frame::Kind::Error, "p"), 1);
        QCOMPARE(follower.count(Frame::Kind::Error, "d"), 1);
        QCOMPARE(follower.count(Frame::Kind::Data), 0);
        for (const Frame &frame : follower.frames()) {
            if (frame.kind == Frame::Kind::Error && frame.id == "l")
                QVERIFY2(
                    frame.text.contains(QLatin1String("symbolic link")), qPrintable(frame.text));
        }
    }

    // A tree says each *.jsonl that appears one folder below its root, once; what was there
    // at the start, other names and deeper files are not news.
    void aTreeSaysEachNewTranscriptOnce()
    {
        QTemporaryDir dir;
        LocalFollower follower(dir.path());
        QVERIFY(follower.ready());
        const QString root = dir.filePath(QStringLiteral("projects"));
        QVERIFY(QDir().mkpath(root + QStringLiteral("/-home-a-chat-1")));
        append(root + QStringLiteral("/-home-a-chat-1/old.jsonl"), "{}\n");
        // Written before the watch started, and not since: not news.
        QFile old(root + QStringLiteral("/-home-a-chat-1/old.jsonl"));
        QVERIFY(old.open(QIODevice::ReadWrite));
        QVERIFY(old.setFileTime(
            QDateTime::currentDateTime().addSecs(-60), QFileDevice::FileModificationTime));
        old.close();
        // Written since, before the watch started: news (a listing may have missed it).
        append(root + QStringLiteral("/-home-a-chat-1/recent.jsonl"), "{}\n");
        follower.send(followprotocol::treeCommand(
            "t", root, QDateTime::currentDateTime().addSecs(-10).toSecsSinceEpoch()));
        QVERIFY(follower.synced("1"));
        QVERIFY(QDir().mkpath(root + QStringLiteral("/-home-a-chat-2/deeper")));
        append(root + QStringLiteral("/-home-a-chat-2/new.jsonl"), "{}\n");
        append(root + QStringLiteral("/-home-a-chat-2/notes.txt"), "x");
        append(root + QStringLiteral("/-home-a-chat-2/deeper/agent.jsonl"), "{}\n");
        QVERIFY(follower.waitFor([&] { return follower.count(Frame::Kind::Created, "t") == 2; }));
        QTest::qWait(1300); // another look: nothing more, nothing twice
        QCOMPARE(follower.count(Frame::Kind::Created, "t"), 2);
        QStringList created;
        for (const Frame &frame : follower.frames()) {
            if (frame.kind == Frame::Kind::Created)
                created << frame.text;
        }
        created.sort();
        QCOMPARE(created,
            QStringList({root + QStringLiteral("/-home-a-chat-1/recent.jsonl"),
                root + QStringLiteral("/-home-a-chat-2/new.jsonl")}));
    }

    void aWatchedProcessThatEndsIsReportedAndAReusedPidIsNot()
    {
        QTemporaryDir dir;
        LocalFollower follower(dir.path());
        QVERIFY(follower.ready());
        QProcess sleeper;
        sleeper.start(
            QStringLiteral("sh"), {QStringLiteral("-c"), QStringLiteral("sleep 60 # run-4242")});
        QVERIFY(sleeper.waitForStarted());
        const QString pidFile = dir.filePath(QStringLiteral("pid"));
        append(pidFile, QByteArray::number(sleeper.processId()) + '\n');
        follower.send(followprotocol::processCommand("x", pidFile, "run-4242"));
        follower.send(followprotocol::processCommand("y", pidFile, "another-run"));
        QVERIFY(follower.synced("1"));
        QTest::qWait(1300); // one periodic look
        QCOMPARE(follower.count(Frame::Kind::ProcessGone, "x"), 0);
        QCOMPARE(follower.count(Frame::Kind::ProcessGone, "y"), 1);
        sleeper.kill();
        sleeper.waitForFinished();
        QVERIFY(
            follower.waitFor([&] { return follower.count(Frame::Kind::ProcessGone, "x") == 1; }));
    }

    void anAgentFrameCarriesItsJsonAndAMalformedOneIsDamage()
    {
        const QByteArray json = R"({"pid":42,"cwd":"/home/a/chat-x"})";
        followprotocol::FrameReader reader;
        reader.feed(followprotocol::frameLine("A a42-7 " + json.toBase64()));
        const QList<Frame> frames = reader.takeFrames();
        QVERIFY(!reader.isDamaged());
        QCOMPARE(frames.size(), 1);
        QCOMPARE(frames.first().kind, Frame::Kind::Agent);
        QCOMPARE(frames.first().id, QByteArray("a42-7"));
        QCOMPARE(frames.first().data, json);
        for (const QByteArray &bad :
            {QByteArray("A a42-7"), QByteArray("A a/42 e30="), QByteArray("A a42-7 *notbase64*")}) {
            followprotocol::FrameReader damaged;
            damaged.feed(followprotocol::frameLine(bad));
            QVERIFY2(damaged.isDamaged(), bad.constData());
        }
    }

    void agentsModeAnnouncesAFakeClaudeFollowsItsTranscriptAndReportsItsEnd()
    {
        QTemporaryDir dir;
        const QString home = dir.filePath(QStringLiteral("home"));
        const QString cwd = home + QStringLiteral("/chat-wall");
        const QString session = QStringLiteral("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
        const QString transcript = makeAgentFolders(home, cwd, session);
        QVERIFY(!transcript.isEmpty());
        append(transcript, "{\"type\":\"user\"}\n");
        QProcess agent;
        startFakeAgent(&agent, home, cwd, session);
        QVERIFY(agent.waitForStarted());
        LocalFollower follower(dir.path(), {QStringLiteral("agents")});
        QVERIFY(follower.ready());
        const QByteArray id = waitForAgent(follower, agent.processId());
        QVERIFY(!id.isEmpty());
        const QJsonObject announced = announcements(follower.frames(), agent.processId()).last();
        QCOMPARE(announced.value(QLatin1String("cwd")).toString(), cwd);
        QCOMPARE(announced.value(QLatin1String("home")).toString(), home);
        QCOMPARE(announced.value(QLatin1String("transcript")).toString(), transcript);
        QCOMPARE(announced.value(QLatin1String("session")).toString(), session);
        QCOMPARE(qint64(announced.value(QLatin1String("uid")).toDouble()), qint64(::getuid()));
        QString problem;
        QVERIFY(follower.waitFor(
            [&] { return follower.rebuilt(id, &problem) == "{\"type\":\"user\"}\n"; }));
        append(transcript, "{\"type\":\"assistant\"}\n");
        QVERIFY(follower.waitFor([&] {
            return follower.rebuilt(id, &problem)
                == "{\"type\":\"user\"}\n{\"type\":\"assistant\"}\n";
        }));
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        agent.kill();
        agent.waitForFinished();
        QVERIFY(
            follower.waitFor([&] { return follower.count(Frame::Kind::ProcessGone, id) == 1; }));
        QCOMPARE(follower.count(Frame::Kind::Agent, id), 1);
    }

    // Without --session-id the transcript is the newest of its folder written since the
    // process started: an older one is passed over, and a later session (e.g. /clear) is
    // followed from its start once it is written.
    void agentsModeFindsTheTranscriptAnAgentWritesWithoutASessionArgument()
    {
        QTemporaryDir dir;
        const QString home = dir.filePath(QStringLiteral("home"));
        const QString cwd = home + QStringLiteral("/chat-nosid");
        const QString older = makeAgentFolders(home, cwd, QStringLiteral("older"));
        QVERIFY(!older.isEmpty());
        append(older, "{\"type\":\"old\"}\n");
        QFile olderFile(older);
        QVERIFY(olderFile.open(QIODevice::ReadWrite)
            && olderFile.setFileTime(
                QDateTime::currentDateTimeUtc().addSecs(-3600), QFileDevice::FileModificationTime));
        olderFile.close();
        QProcess agent;
        startFakeAgent(&agent, home, cwd, {});
        QVERIFY(agent.waitForStarted());
        LocalFollower follower(dir.path(), {QStringLiteral("agents")});
        QVERIFY(follower.ready());
        const QByteArray id = waitForAgent(follower, agent.processId());
        QVERIFY(!id.isEmpty());
        QCOMPARE(announcements(follower.frames(), agent.processId())
                     .last()
                     .value(QLatin1String("transcript"))
                     .toString(),
            QString());
        const QString first = QFileInfo(older).path() + QStringLiteral("/first.jsonl");
        append(first, "{\"n\":1}\n");
        QString problem;
        QVERIFY(follower.waitFor([&] { return follower.rebuilt(id, &problem) == "{\"n\":1}\n"; }));
        QTest::qWait(1100); // a second later by the file system's clock
        const QString second = QFileInfo(older).path() + QStringLiteral("/second.jsonl");
        append(second, "{\"n\":2}\n");
        QVERIFY(follower.waitFor([&] { return follower.rebuilt(id, &problem) == "{\"n\":2}\n"; }));
        const QList<QJsonObject> said = announcements(follower.frames(), agent.processId());
        QCOMPARE(said.last().value(QLatin1String("transcript")).toString(), second);
        QCOMPARE(said.last().value(QLatin1String("session")).toString(), QStringLiteral("second"));
        for (const QJsonObject &announced : said)
            QVERIFY(announced.value(QLatin1String("transcript")).toString() != older);
        agent.kill();
        agent.waitForFinished();
    }

    void agentsModeRefusesALinkedTranscript()
    {
        QTemporaryDir dir;
        const QString home = dir.filePath(QStringLiteral("h"));
        const QString cwd = home + QStringLiteral("/chat-l");
        const QString session = QStringLiteral("aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee");
        const QString transcript = makeAgentFolders(home, cwd, session);
        QVERIFY(!transcript.isEmpty());
        const QString secret = dir.filePath(QStringLiteral("secret"));
        append(secret, "not yours\n");
        QVERIFY(QFile::link(secret, transcript));
        QProcess agent;
        startFakeAgent(&agent, home, cwd, session);
        QVERIFY(agent.waitForStarted());
        LocalFollower follower(dir.path(), {QStringLiteral("agents")});
        QVERIFY(follower.ready());
        const QByteArray id = waitForAgent(follower, agent.processId());
        QVERIFY(!id.isEmpty());
        QVERIFY(follower.waitFor([&] { return follower.count(Frame::Kind::Error, id) == 1; }));
        QCOMPARE(follower.count(Frame::Kind::Data, id), 0);
        agent.kill();
        agent.waitForFinished();
    }
};

QTEST_GUILESS_MAIN(TestFollower)
#include "tst_follower.moc"
