// Files followed by push through a REAL multi-user open-terminal's terminal (CTest runs this
// suite once per pinned server version, SANDSCOPE_OT_VERSION): a growing file arrives byte for
// byte (partial lines, a rewrite, a deletion, a 50 MB burst of every byte value); a connection
// dropped mid-line and a server restarted in place are reconnected by themselves and resume
// with nothing lost or repeated; when the server's terminal limit is reached the channel says
// it cannot push, so its owners poll.

#include "realserver.h"
#include "server/openterminalclient.h"
#include "server/openterminalprotocol.h"
#include "terminal/followchannel.h"
#include "terminal/followedfile.h"
#include "terminal/followstatus.h"
#include "terminal/terminalsession.h"
#include "testing.h"

#include <QFile>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QtTest>

#include <unistd.h>

using namespace sandscope;
using namespace sandscope::test;

namespace {

constexpr int waitMs = 60000;

// What a followed file delivered, rebuilt: a rewrite starts it over.
struct Received {
    explicit Received(FollowedFile *file)
    {
        QObject::connect(
            file, &FollowedFile::data, file, [this](qint64 offset, const QByteArray &b) {
                if (offset != bytes.size())
                    problems.append(
                        QStringLiteral("data at %1, expected %2").arg(offset).arg(bytes.size()));
                bytes += b;
            });
        QObject::connect(file, &FollowedFile::rewritten, file, [this](qint64) {
            ++rewrites;
            bytes.clear();
        });
        QObject::connect(file, &FollowedFile::gone, file, [this] { ++gone; });
        QObject::connect(file, &FollowedFile::synced, file, [this] { ++synced; });
        QObject::connect(file, &FollowedFile::failed, file,
            [this](const QString &message) { problems.append(message); });
        QObject::connect(
            file, &FollowedFile::interrupted, file, [this](const QString &) { ++interruptions; });
        QObject::connect(
            file, &FollowedFile::reconnected, file, [this](qint64 gap) { gaps.append(gap); });
        QObject::connect(file, &FollowedFile::unavailable, file,
            [this](const QString &why) { unavailable = why; });
    }
    QByteArray bytes;
    int rewrites = 0;
    int gone = 0;
    int synced = 0;
    int interruptions = 0;
    QList<qint64> gaps;
    QStringList problems;
    QString unavailable;
};

} // namespace

class FollowChannelIntegration : public QObject {
    Q_OBJECT
private:
    // Written as root on this machine, which is the server's, then given to the account.
    void write(const QString &name, const QByteArray &bytes, bool append = true)
    {
        const QString path = m_home + QLatin1Char('/') + name;
        QFile file(path);
        QVERIFY(file.open(append ? QIODevice::Append : QIODevice::WriteOnly));
        QCOMPARE(file.write(bytes), bytes.size());
        file.close();
        QCOMPARE(::chown(QFile::encodeName(path).constData(), m_uid, m_gid), 0);
    }
    QByteArray contentOf(const QString &name) const
    {
        QFile file(m_home + QLatin1Char('/') + name);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<missing>");
    }
    bool syncedWith(FollowedFile *file, Received &received)
    {
        const int before = received.synced;
        file->sync();
        return QTest::qWaitFor([&] { return received.synced > before; }, waitMs);
    }
    // Appends numbered lines, each in two writes; `interrupt` runs once, after a half line.
    void writeLinesAcross(const QString &name, int lines, const std::function<void()> &interrupt)
    {
        for (int i = 0; i < lines; ++i) {
            write(name, "{\"line\":" + QByteArray::number(i) + ",\"text\":\"");
            if (i == lines / 3)
                interrupt();
            QTest::qWait(10);
            write(name, QByteArray("h\xc3\xa9 \\u00e9\"}\n"));
        }
    }

    std::unique_ptr<RealServer> m_server;
    std::unique_ptr<OpenTerminalClient> m_client;
    QString m_user;
    QString m_home;
    uint m_uid = 0;
    uint m_gid = 0;

private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<ApiError>();
        QString why;
        SANDSCOPE_REQUIRE(RealServer::canRunMultiUser(&why), why);
        const QString version
            = envOr("SANDSCOPE_OT_VERSION", RealServer::pinnedVersion("OPEN_TERMINAL_VERSION"));
        m_server = std::make_unique<RealServer>(version, RealServer::Mode::MultiUser);
        QString error;
        QVERIFY2(m_server->start(&error), qPrintable(error));
        m_client = std::make_unique<OpenTerminalClient>(m_server->connection());
        m_user = QStringLiteral("follow") + test::randomToken(4, true);
        const QStringList facts = shellLines(
            m_client.get(), {m_user, {}}, QStringLiteral("echo \"$HOME\"; id -u; id -g"));
        QCOMPARE(facts.size(), 3);
        m_home = facts.at(0).trimmed();
        m_uid = facts.at(1).trimmed().toUInt();
        m_gid = facts.at(2).trimmed().toUInt();
        QVERIFY(m_home.startsWith(QLatin1String("/home/")));
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_server.reset();
    }

    void aGrowingFileArrivesByteForByteAndARewriteAndADeletionAreSaid()
    {
        QObject owner;
        FollowChannel *channel = FollowChannel::shared(m_client.get(), m_user);
        QVERIFY(channel);
        write(QStringLiteral("grow.jsonl"), "{\"type\":\"sys", false);
        FollowedFile *file = channel->follow(m_home + QLatin1String("/grow.jsonl"), 0, &owner);
        Received received(file);
        QVERIFY2(QTest::qWaitFor([&] { return received.bytes == "{\"type\":\"sys"; }, waitMs),
            qPrintable(channel->reason()));
        QCOMPARE(channel->state(), FollowChannel::State::Open);
        QCOMPARE(channel->mode(), QStringLiteral("inotify"));
        QCOMPARE(FollowStatus::of(m_client.get())->text(), QStringLiteral("live: pushed"));
        write(QStringLiteral("grow.jsonl"), "tem\"}\n");
        QVERIFY(
            QTest::qWaitFor([&] { return received.bytes == "{\"type\":\"system\"}\n"; }, waitMs));

        // Replaced by another file: said once, and the new file's bytes from its start.
        write(QStringLiteral("grow.new"), "replacement\n", false);
        QCOMPARE(::rename(QFile::encodeName(m_home + QLatin1String("/grow.new")).constData(),
                     QFile::encodeName(m_home + QLatin1String("/grow.jsonl")).constData()),
            0);
        QVERIFY(QTest::qWaitFor([&] { return received.bytes == "replacement\n"; }, waitMs));
        QCOMPARE(received.rewrites, 1);

        QVERIFY(QFile::remove(m_home + QLatin1String("/grow.jsonl")));
        QVERIFY(QTest::qWaitFor([&] { return received.gone == 1; }, waitMs));

        // Back, with a 50 MB burst of every byte value (CR, LF, NUL, invalid UTF-8, escapes):
        // another file, said as a rewrite, even when ext4 gives it the deleted one's inode
        // number (it often does: the burst then arrived after the old file's 12 bytes).
        const QByteArray burst = seededBytes(50 << 20, 29);
        QElapsedTimer timer;
        timer.start();
        for (int at = 0; at < burst.size(); at += 1 << 20)
            write(QStringLiteral("grow.jsonl"), burst.mid(at, 1 << 20));
        QVERIFY(syncedWith(file, received));
        const qint64 ms = qMax<qint64>(1, timer.elapsed());
        QCOMPARE(received.bytes.size(), burst.size());
        QVERIFY(received.bytes == burst);
        QCOMPARE(received.rewrites, 2);
        QVERIFY2(
            received.problems.isEmpty(), qPrintable(received.problems.join(QLatin1String("; "))));
        qInfo("50 MB pushed in %lld ms (%.1f MB/s)", ms, 50.0 * 1000.0 / double(ms));
    }

    void aConnectionDroppedMidLineResumesWithNothingLostOrRepeated()
    {
        QObject owner;
        FollowChannel *channel = FollowChannel::shared(m_client.get(), m_user);
        write(QStringLiteral("drop.jsonl"), {}, false);
        FollowedFile *file = channel->follow(m_home + QLatin1String("/drop.jsonl"), 0, &owner);
        Received received(file);
        QVERIFY(QTest::qWaitFor(
            [&] { return channel->state() == FollowChannel::State::Open; }, waitMs));
        writeLinesAcross(QStringLiteral("drop.jsonl"), 60, [&] {
            QVERIFY(channel->terminal());
            channel->terminal()->dropConnection();
        });
        QVERIFY2(QTest::qWaitFor([&] { return !received.gaps.isEmpty(); }, waitMs),
            qPrintable(channel->reason()));
        QVERIFY(syncedWith(file, received));
        QCOMPARE(received.interruptions, 1);
        QCOMPARE(received.bytes, contentOf(QStringLiteral("drop.jsonl")));
        QVERIFY2(
            received.problems.isEmpty(), qPrintable(received.problems.join(QLatin1String("; "))));
        QCOMPARE(received.rewrites, 0);
    }

    void aServerRestartedInPlaceIsReconnectedAndTheFileResumed()
    {
        QObject owner;
        FollowChannel *channel = FollowChannel::shared(m_client.get(), m_user);
        write(QStringLiteral("restart.jsonl"), {}, false);
        FollowedFile *file = channel->follow(m_home + QLatin1String("/restart.jsonl"), 0, &owner);
        Received received(file);
        QVERIFY(QTest::qWaitFor(
            [&] { return channel->state() == FollowChannel::State::Open; }, waitMs));
        writeLinesAcross(QStringLiteral("restart.jsonl"), 30, [&] {
            QString error;
            QVERIFY2(m_server->restart(&error), qPrintable(error));
        });
        QVERIFY2(QTest::qWaitFor([&] { return !received.gaps.isEmpty(); }, waitMs),
            qPrintable(channel->reason()));
        QVERIFY(syncedWith(file, received));
        QCOMPARE(received.bytes, contentOf(QStringLiteral("restart.jsonl")));
        QVERIFY2(
            received.problems.isEmpty(), qPrintable(received.problems.join(QLatin1String("; "))));
        QVERIFY(received.gaps.constFirst() > 0);
    }

    void theTerminalLimitMakesTheChannelUnavailableSoItsOwnersPoll()
    {
        // Another user takes every terminal the server has left.
        QCOMPARE(takeEveryTerminal(m_client.get(), m_user + QStringLiteral("x")), 429);
        QObject owner;
        FollowChannel channel(m_client.get(), m_user + QStringLiteral("y"));
        FollowStatus::of(m_client.get())->add(&channel);
        FollowedFile *file = channel.follow(m_home + QLatin1String("/any"), 0, &owner);
        Received received(file);
        QVERIFY(QTest::qWaitFor([&] { return !received.unavailable.isEmpty(); }, waitMs));
        QCOMPARE(channel.state(), FollowChannel::State::Unavailable);
        // The status bar's line says the views are polled, and why.
        const QString said = FollowStatus::of(m_client.get())->text();
        QVERIFY2(said.startsWith(QLatin1String("live: polled (")), qPrintable(said));
        QVERIFY(said.contains(channel.reason()));
        QVERIFY2(received.unavailable.contains(QLatin1String("429"))
                || received.unavailable.contains(QLatin1String("limit"), Qt::CaseInsensitive)
                || received.unavailable.contains(QLatin1String("too many"), Qt::CaseInsensitive),
            qPrintable(received.unavailable));
        // The last test: the server, and with it the takers' terminals, ends after it.
    }
};

QTEST_GUILESS_MAIN(FollowChannelIntegration)
#include "tst_followchannel.moc"
