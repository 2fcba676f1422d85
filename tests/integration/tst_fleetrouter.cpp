// The shipped router (sandbox/k8s/router/router.conf) run VERBATIM by the REAL nginx in front of
// three REAL members (tests/support/fleetmembers.h: each with a private /home and its own
// account prefix, one API key), as a sharded sandbox runs in Kubernetes:
//  * users reached through the router land on different members, and each user always on the
//    same one (a member is told by the inode of its own /home);
//  * the file API and the terminal WebSocket work through the router, as the user;
//  * a fourth member added to the list (nginx reloaded) moves about a quarter of the users,
//    not all of them (consistent hashing); the figure is printed;
//  * the configuration nginx ran is byte for byte the shipped file.

#include "fleetmembers.h"
#include "fleetrouter.h"
#include "terminal/terminalsession.h"
#include "testing.h"

#include <QRegularExpression>
#include <QSignalSpy>
#include <QtTest>

using namespace sandscope;
using namespace sandscope::test;

class FleetRouterTest : public QObject {
    Q_OBJECT

private:
    TestMember m_members[4];
    FleetRouter m_router;
    std::unique_ptr<OpenTerminalClient> m_client; // through the router
    QHash<QString, QString> m_memberOfHome; // inode of a member's /home -> its name

    QList<quint16> ports(int count) const
    {
        QList<quint16> list;
        for (int i = 0; i < count; ++i)
            list << quint16(m_members[i].server->url().port());
        return list;
    }

    // The member that answers a request as `userId` through the router.
    QString memberOf(const QString &userId)
    {
        const QStringList lines
            = shellLines(m_client.get(), {userId, QString()}, QStringLiteral("stat -c %i /home"));
        return m_memberOfHome.value(lines.value(0).trimmed(), QStringLiteral("?"));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QString why;
        SANDSCOPE_REQUIRE(RealServer::canRunMultiUser(&why), why);
        SANDSCOPE_REQUIRE(!FleetRouter::nginx().isEmpty(), "needs nginx (scripts/install-deps.sh)");
        const QString key = QStringLiteral("router-key-") + randomToken(16);
        QString error;
        QVERIFY2(startMembers({&m_members[0], &m_members[1], &m_members[2], &m_members[3]},
                     {QStringLiteral("member-0"), QStringLiteral("member-1"),
                         QStringLiteral("member-2"), QStringLiteral("member-3")},
                     &error, key),
            qPrintable(error));
        for (int i = 0; i < 4; ++i) {
            m_memberOfHome.insert(m_members[i].asRoot(QStringLiteral("stat -c %i /home")).trimmed(),
                m_members[i].name);
        }
        QCOMPARE(m_memberOfHome.size(), 4);
        QVERIFY2(m_router.start(ports(3), &error), qPrintable(error));
        m_client
            = std::make_unique<OpenTerminalClient>(ServerConnection {m_router.url(), key, 30000});
    }

    void cleanupTestCase()
    {
        m_client.reset();
        m_router.stop();
        stopMembers({&m_members[0], &m_members[1], &m_members[2], &m_members[3]});
    }

    void theRouterRunsTheShippedFileVerbatim()
    {
        QFile shipped(FleetRouter::shippedConfig());
        QFile used(m_router.configInUse());
        QVERIFY(shipped.open(QIODevice::ReadOnly) && used.open(QIODevice::ReadOnly));
        QCOMPARE(used.readAll(), shipped.readAll());
    }

    void usersSpreadOverTheMembersAndEachAlwaysReachesItsOwn()
    {
        QHash<QString, QString> first;
        QSet<QString> used;
        for (int i = 0; i < 12; ++i) {
            const QString userId = QStringLiteral("spread%1").arg(i) + randomToken(4, true);
            const QString member = memberOf(userId);
            QVERIFY2(member.startsWith(QLatin1String("member-")), qPrintable(member));
            first.insert(userId, member);
            used.insert(member);
        }
        qInfo("12 users over %d of 3 members", int(used.size()));
        QVERIFY2(used.size() >= 2, "every user went to one member");
        QVERIFY(!used.contains(m_members[3].name)); // not in the list yet
        for (auto it = first.cbegin(); it != first.cend(); ++it)
            QCOMPARE(memberOf(it.key()), it.value());
        // The home each user got is on that member only.
        for (auto it = first.cbegin(); it != first.cend(); ++it) {
            const QString account
                = shellLines(m_client.get(), {it.key(), QString()}, QStringLiteral("id -un"))
                      .value(0)
                      .trimmed();
            for (const TestMember &member : m_members) {
                const bool there
                    = member.asRoot(QStringLiteral("test -d /home/%1 && echo yes").arg(account))
                          .trimmed()
                    == QLatin1String("yes");
                QCOMPARE(there, member.name == it.value());
            }
        }
    }

    void filesAndTerminalsWorkThroughTheRouter()
    {
        const Identity who {QStringLiteral("ws") + randomToken(6, true), QStringLiteral("ws-1")};
        const QString member = memberOf(who.userId);
        QVERIFY(shellLines(m_client.get(), who, QStringLiteral("echo routed > ~/note && echo ok"))
                    .contains(QStringLiteral("ok")));
        const Result<FileContent> read = sandscope::await<FileContent>([&](auto done) {
            return m_client->readFile(who, QStringLiteral("note"), 0, 0, m_client.get(), done);
        });
        QVERIFY2(read.ok(), qPrintable(read.error.toString()));
        QCOMPARE(read.value.text.trimmed(), QStringLiteral("routed"));

        TerminalSession terminal(m_client.get(), who);
        QByteArray screen;
        QObject::connect(&terminal, &TerminalSession::output, &terminal,
            [&screen](const QByteArray &bytes) { screen += bytes; });
        QSignalSpy opened(&terminal, &TerminalSession::opened);
        terminal.start();
        QVERIFY2(opened.wait(30000), screen.constData());
        terminal.write("stat -c 'inode-%i' /home; echo done-$((6*7))\n");
        QVERIFY2(
            QTest::qWaitFor([&] { return screen.contains("done-42"); }, 30000), screen.constData());
        // The output, not the echoed command line (which says inode-%i).
        const QRegularExpressionMatch inode
            = QRegularExpression(QStringLiteral("inode-(\\d+)")).match(QString::fromLatin1(screen));
        QVERIFY2(inode.hasMatch(), screen.constData());
        QCOMPARE(m_memberOfHome.value(inode.captured(1)), member);
        terminal.close();
    }

    // Last: the router learns a fourth member. Consistent hashing moves users only to the new
    // member (a modulo hash would move about three quarters of them, to every member). How
    // many of 24 move is chance: the new member's share of nginx's ring (160 points per
    // member, on ports picked at run time) is about a quarter, and 24 users are a sample of
    // it. The bounds are those chance keeps: 13 or more of 24 move in 3 % of runs at a share
    // of a third (this test failed once so), 17 or more in 0.02 %; and when none of the
    // 24 moved (0.1 % at a quarter), up to 24 more users are asked for one that reaches it.
    void aFourthMemberMovesAboutAQuarterOfTheUsers()
    {
        QHash<QString, QString> before;
        for (int i = 0; i < 24; ++i) {
            const QString userId = QStringLiteral("grow%1").arg(i) + randomToken(4, true);
            before.insert(userId, memberOf(userId));
        }
        QVERIFY(m_router.setMembers(ports(4)));
        QVERIFY2(m_router.reload(), qPrintable(m_router.log()));
        int moved = 0;
        for (auto it = before.cbegin(); it != before.cend(); ++it) {
            const QString now = memberOf(it.key());
            if (now != it.value()) {
                ++moved;
                QCOMPARE(now, m_members[3].name); // only to the new member
            }
        }
        qInfo("a fourth member: %d of %d users now reach another member (1/4 would be %d)", moved,
            int(before.size()), int(before.size()) / 4);
        QVERIFY2(moved <= int(before.size()) * 2 / 3, qPrintable(QString::number(moved)));
        bool newMemberReached = moved > 0;
        for (int i = 0; i < 24 && !newMemberReached; ++i) {
            const QString userId = QStringLiteral("late%1").arg(i) + randomToken(4, true);
            newMemberReached = memberOf(userId) == m_members[3].name;
        }
        QVERIFY2(newMemberReached, "no user reaches the fourth member");
    }
};

QTEST_GUILESS_MAIN(FleetRouterTest)
#include "tst_fleetrouter.moc"
