// ServerSession without a server: what it refuses, what it audits, and how a check that
// cannot reach the server ends. (Checks against real servers: tests/integration/gui/
// tst_mainwindow.cpp, through the window that shows the session.)

#include "connection/serversession.h"
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
};

QTEST_GUILESS_MAIN(TestServerSession)
#include "tst_serversession.moc"
