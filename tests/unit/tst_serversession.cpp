// ServerSession without a server: what it refuses, what it audits, and how a check that
// cannot reach the server ends; a fleet profile (its file loaded on open, a bad one a notice
// and no connection, the router's URL the connection's, a fan-out per member) and which
// members hold an account's home (MemberLookup). (Checks against real servers:
// tests/integration/gui/ tst_mainwindow.cpp, through the window that shows the session.)

#include "connection/memberlookup.h"
#include "connection/serversession.h"
#include "fleet/fleetfanout.h"
#include "server/openterminalclient.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QtTest>

using namespace sandscope;

namespace {

// A port nobody listens on: taken, then given back.
QUrl refusingServer()
{
    QTcpServer server;
    if (!server.listen(QHostAddress::LocalHost))
        return {};
    const quint16 port = server.serverPort();
    server.close();
    return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port));
}

QList<QJsonObject> auditEntries(const QString &path)
{
    QList<QJsonObject> entries;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return entries;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine().trimmed();
        if (!line.isEmpty())
            entries << QJsonDocument::fromJson(line).object();
    }
    return entries;
}

QString writeFleetFile(const QString &path, const QByteArray &json)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(json);
    return path;
}

} // namespace

class TestServerSession : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_auditPath;
    QString m_settingsPath;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        qRegisterMetaType<ServerSession::Notice>();
        m_auditPath = m_dir.filePath(QStringLiteral("audit.jsonl"));
        m_settingsPath = m_dir.filePath(QStringLiteral("profiles.ini"));
        qputenv("SANDSCOPE_AUDIT_LOG", m_auditPath.toLocal8Bit());
    }

    void init() { QFile::remove(m_auditPath); }

    void badServerUrlIsRefusedBeforeAnythingChanges_data()
    {
        QTest::addColumn<QString>("url");
        QTest::newRow("empty") << QString();
        QTest::newRow("ftp") << QStringLiteral("ftp://example.com");
        QTest::newRow("credentials") << QStringLiteral("http://user:secret@example.com");
        QTest::newRow("query") << QStringLiteral("http://example.com/?key=abc");
        QTest::newRow("no host") << QStringLiteral("http://");
    }
    void badServerUrlIsRefusedBeforeAnythingChanges()
    {
        QFETCH(QString, url);
        ServerSession session(m_settingsPath);
        QSignalSpy reset(&session, &ServerSession::connectionReset);
        QSignalSpy notices(&session, &ServerSession::notice);
        Profile profile;
        profile.serverUrl = QUrl(url);
        session.openProfile(profile, QStringLiteral("key"));
        QCOMPARE(reset.count(), 0);
        QCOMPARE(notices.count(), 1);
        QCOMPARE(notices.at(0).at(1).value<ServerSession::Notice>(), ServerSession::Notice::Error);
        QVERIFY(notices.at(0).at(0).toString().startsWith(QStringLiteral("Cannot connect: ")));
        QVERIFY(session.serverUrl().isEmpty());
        QVERIFY(session.client()->connection().baseUrl.isEmpty());
        // The refused URL's credentials are not repeated in the message.
        QVERIFY(!notices.at(0).at(0).toString().contains(QStringLiteral("secret")));
    }

    void everyIdentityHasItsOwnSessionIdAndIsAudited()
    {
        ServerSession session(m_settingsPath);
        QSignalSpy changed(&session, &ServerSession::identityChanged);
        const QUrl url = refusingServer();
        QVERIFY(url.isValid());
        session.connectToServer(ServerConnection {url, QStringLiteral("sk-test-SECRET-4711"), 2000},
            QStringLiteral("alice"), QString());
        QCOMPARE(changed.count(), 1);
        const Identity alice = session.identity();
        QCOMPARE(alice.userId, QStringLiteral("alice"));
        QVERIFY(session.actingAsSelf());
        session.switchUser(QStringLiteral("bob"));
        QCOMPARE(changed.count(), 2);
        QCOMPARE(session.identity().userId, QStringLiteral("bob"));
        QVERIFY(session.identity().sessionId != alice.sessionId);
        QVERIFY(!session.actingAsSelf());
        session.switchUser(QStringLiteral("bob")); // the same identity: nothing happens
        QCOMPARE(changed.count(), 2);
        session.switchUser(QString()); // the server account
        QCOMPARE(changed.count(), 3);
        QVERIFY(session.identity().isServerAccount());

        const QList<QJsonObject> entries = auditEntries(m_auditPath);
        QStringList targets;
        for (const QJsonObject &entry : entries) {
            if (entry.value(QStringLiteral("action")).toString() == u"switch-user")
                targets << entry.value(QStringLiteral("target")).toString();
        }
        QCOMPARE(targets,
            (QStringList {QStringLiteral("alice"), QStringLiteral("bob"),
                QStringLiteral("(server account)")}));
        QFile log(m_auditPath);
        QVERIFY(log.open(QIODevice::ReadOnly));
        QVERIFY(!log.readAll().contains("SECRET-4711"));
    }

    void invalidUserIdIsRefusedAndTheIdentityKept()
    {
        ServerSession session(m_settingsPath);
        session.connectToServer(
            ServerConnection {refusingServer(), QStringLiteral("sk-test-SECRET-4711"), 2000},
            QStringLiteral("alice"));
        QSignalSpy changed(&session, &ServerSession::identityChanged);
        QSignalSpy notices(&session, &ServerSession::notice);
        session.switchUser(QStringLiteral("root"));
        session.switchUser(QStringLiteral("a b"));
        QCOMPARE(changed.count(), 0);
        QCOMPARE(session.identity().userId, QStringLiteral("alice"));
        QCOMPARE(notices.count(), 2);
        for (const QList<QVariant> &notice : notices)
            QCOMPARE(notice.at(1).value<ServerSession::Notice>(), ServerSession::Notice::Error);
    }

    void unreachableServerEndsTheCheckWithItsReason()
    {
        ServerSession session(m_settingsPath);
        QSignalSpy checked(&session, &ServerSession::checked);
        QSignalSpy busy(&session, &ServerSession::busyChanged);
        QSignalSpy notices(&session, &ServerSession::notice);
        const QUrl url = refusingServer();
        session.connectToServer(ServerConnection {url, QStringLiteral("sk-test-SECRET-4711"), 2000},
            QStringLiteral("alice"));
        QVERIFY(session.isChecking());
        QVERIFY(checked.wait(10000));
        QCOMPARE(checked.at(0).at(0).toBool(), false);
        QVERIFY(!session.isConnected());
        QVERIFY(!session.isChecking());
        QVERIFY(!busy.isEmpty());
        QCOMPARE(busy.constLast().at(0).toBool(), false);
        QCOMPARE(notices.count(), 1);
        QVERIFY(notices.at(0).at(0).toString().startsWith(
            QStringLiteral("Could not connect to %1: ").arg(session.serverUrl())));
        QVERIFY(session.knownMode().isEmpty());
    }

    void profileAdminCommandIsTheAdminAccess()
    {
        ProfileStore store(m_settingsPath);
        Profile profile;
        profile.name = QStringLiteral("with-admin");
        profile.serverUrl = refusingServer();
        profile.adminCommand = QStringLiteral("sudo -n");
        store.save(profile);
        Profile plain = profile;
        plain.name = QStringLiteral("plain");
        plain.adminCommand.clear();
        store.save(plain);

        ServerSession session(m_settingsPath);
        QSignalSpy admin(&session, &ServerSession::adminAccessChanged);
        session.openProfile(store.profile(QStringLiteral("with-admin")), QStringLiteral("key"));
        QCOMPARE(admin.count(), 1);
        QVERIFY(session.adminAccess().isLocalCommand());
        QCOMPARE(session.profileName(), QStringLiteral("with-admin"));
        QCOMPARE(store.lastUsed(), QStringLiteral("with-admin"));
        session.openProfile(store.profile(QStringLiteral("plain")), QStringLiteral("key"));
        QVERIFY(!session.adminAccess().isLocalCommand());
        QCOMPARE(session.adminAccess(), AdminAccess::serverAccount());
    }

    void aFleetProfileConnectsToItsRouterAndFansOutToItsMembers()
    {
        const QUrl router = refusingServer();
        const QString path = writeFleetFile(m_dir.filePath(QStringLiteral("fleet.json")),
            QStringLiteral("{\"router\": \"%1\", \"members\": ["
                           "{\"name\": \"open-terminal-0\", \"url\": \"http://127.0.0.1:9\", "
                           "\"admin_exec\": \"sudo -n\"},"
                           "{\"name\": \"open-terminal-1\", \"url\": \"http://127.0.0.2:9\"}]}")
                .arg(router.toString())
                .toUtf8());
        QVERIFY(!path.isEmpty());
        Profile profile;
        profile.name = QStringLiteral("fleet");
        profile.serverUrl = QUrl(QStringLiteral("http://stale.example:1"));
        profile.fleetFile = path;
        profile.defaultUserId = QStringLiteral("alice");
        profile.timeoutMs = 2000;
        ProfileStore(m_settingsPath).save(profile);
        QCOMPARE(ProfileStore(m_settingsPath).profile(QStringLiteral("fleet")).fleetFile, path);

        ServerSession session(m_settingsPath);
        QSignalSpy members(&session, &ServerSession::actingMemberChanged);
        QSignalSpy checked(&session, &ServerSession::checked);
        session.openProfile(profile, QStringLiteral("sk-fleet"));
        QVERIFY(session.isFleet());
        QCOMPARE(session.fleetFile(), path);
        QCOMPARE(session.fleet().memberNames(),
            QStringList({QStringLiteral("open-terminal-0"), QStringLiteral("open-terminal-1")}));
        // Per-user actions: the one client, at the router.
        QCOMPARE(session.client()->connection().baseUrl, router);
        QCOMPARE(session.actingMemberState(), ServerSession::MemberState::Finding);
        QVERIFY(!members.isEmpty());

        QObject owner;
        FleetFanOut *fanOut = session.createFanOut(&owner);
        QCOMPARE(fanOut->parent(), &owner);
        QVERIFY(fanOut->isFleet());
        QCOMPARE(fanOut->targets().size(), 2);
        QCOMPARE(fanOut->targets().at(1).member, QStringLiteral("open-terminal-1"));
        QCOMPARE(fanOut->targets().at(1).client->connection().baseUrl,
            QUrl(QStringLiteral("http://127.0.0.2:9")));
        QCOMPARE(fanOut->targets().at(1).client->connection().apiKey, QStringLiteral("sk-fleet"));
        QCOMPARE(fanOut->targets().at(1).client->connection().timeoutMs, 2000);
        QVERIFY(fanOut->targets().at(0).admin.isLocalCommand());

        // The router is down: the check fails and the member is not known, with the reason.
        QVERIFY(checked.wait(10000));
        QCOMPARE(session.actingMemberState(), ServerSession::MemberState::NotKnown);
        QVERIFY(!session.actingMemberNote().isEmpty());

        // A plain server afterwards: a fan-out of one unnamed member with the session's client.
        session.connectToServer(ServerConnection {router, QStringLiteral("k"), 2000}, {});
        QVERIFY(!session.isFleet());
        QCOMPARE(session.actingMemberState(), ServerSession::MemberState::NoFleet);
        FleetFanOut *single = session.createFanOut(&owner);
        QVERIFY(!single->isFleet());
        QCOMPARE(single->targets().size(), 1);
        QCOMPARE(single->targets().at(0).client, session.client());
        QVERIFY(single->targets().at(0).member.isEmpty());
    }

    void aBadFleetFileIsANoticeAndNoConnection_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("said");
        QTest::newRow("missing") << QByteArray() << QStringLiteral("Cannot connect to the fleet");
        QTest::newRow("not json") << QByteArray("{router") << QStringLiteral("not JSON");
        QTest::newRow("no members")
            << QByteArray("{\"router\": \"http://127.0.0.1:1\", \"members\": []}")
            << QStringLiteral("\"members\"");
    }
    void aBadFleetFileIsANoticeAndNoConnection()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, said);
        const QString path = m_dir.filePath(QStringLiteral("bad-fleet.json"));
        QFile::remove(path);
        if (!json.isEmpty())
            QVERIFY(!writeFleetFile(path, json).isEmpty());
        ServerSession session(m_settingsPath);
        QSignalSpy reset(&session, &ServerSession::connectionReset);
        QSignalSpy notices(&session, &ServerSession::notice);
        Profile profile;
        profile.serverUrl = refusingServer();
        profile.fleetFile = path;
        session.openProfile(profile, QStringLiteral("key"));
        QCOMPARE(reset.count(), 0);
        QVERIFY(!session.isFleet());
        QVERIFY(session.serverUrl().isEmpty());
        QCOMPARE(notices.count(), 1);
        QCOMPARE(notices.at(0).at(1).value<ServerSession::Notice>(), ServerSession::Notice::Error);
        const QString text = notices.at(0).at(0).toString();
        QVERIFY2(text.contains(path) && text.contains(said), qPrintable(text));
    }

    void theMemberIsTheOneWhoseListingHoldsTheAccount()
    {
        const auto member = [](const QString &name, const QStringList &accounts) {
            FleetMemberStatus status;
            status.name = name;
            for (const QString &account : accounts) {
                FleetAccount held;
                held.account = account;
                held.userId = account.mid(3);
                status.accounts.append(held);
            }
            return status;
        };
        const QVector<FleetMemberStatus> members {
            member(QStringLiteral("m0"), {QStringLiteral("ot-alice"), QStringLiteral("ot-bob")}),
            member(QStringLiteral("m1"), {QStringLiteral("xy-carol"), QStringLiteral("xy-bob")})};
        QCOMPARE(MemberLookup::membersHolding(members, QStringLiteral("ot-alice"), {}),
            QStringList {QStringLiteral("m0")});
        // Members with prefixes of their own: the user id tells it.
        QCOMPARE(MemberLookup::membersHolding(members, {}, QStringLiteral("carol")),
            QStringList {QStringLiteral("m1")});
        QCOMPARE(
            MemberLookup::membersHolding(members, QStringLiteral("ot-bob"), QStringLiteral("bob")),
            QStringList({QStringLiteral("m0"), QStringLiteral("m1")}));
        QVERIFY(MemberLookup::membersHolding(members, QStringLiteral("ot-dave"), {}).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestServerSession)
#include "tst_serversession.moc"
