// SessionStore (chat → Claude session per profile/server and user, in a local JSON file):
// ordering, updates, scopes, the per-chat limit, permissions, corrupt files.

#include "sessions/sessionstore.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace sandscope;

namespace {

QStringList sessionIds(const QVector<SessionRecord> &sessions)
{
    QStringList ids;
    for (const SessionRecord &session : sessions)
        ids << session.chatId + QLatin1Char('/') + session.sessionId;
    return ids;
}

SessionRecord session(const QString &chat, const QString &id, qint64 secondsSinceEpoch)
{
    SessionRecord record;
    record.chatId = chat;
    record.sessionId = id;
    record.lastActivity = QDateTime::fromSecsSinceEpoch(secondsSinceEpoch, Qt::UTC);
    return record;
}

bool writeFile(const QString &path, const QByteArray &content)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(content) == content.size();
}

} // namespace

class SessionStoreTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void recordedSessionIsTheLatest();
    void recordingAgainUpdatesActivityAndKeepsKnownFields();
    void scopesAreKeptApart();
    void onlyTheNewestSessionsPerChatAreKept();
    void storeFileIsPrivate();
    void corruptStoreIsReportedAndNotOverwritten();
    void invalidRecordsAreRefused();
};

void SessionStoreTest::recordedSessionIsTheLatest()
{
    QTemporaryDir dir;
    SessionStore store(dir.filePath(QStringLiteral("sub/sessions.json")));
    const SessionScope scope {
        QString(), QStringLiteral("http://127.0.0.1:8000"), QStringLiteral("alice")};
    QVERIFY(store.latest(scope, QStringLiteral("demo")).sessionId.isEmpty());

    QString error;
    QVERIFY2(
        store.record(scope, session(QStringLiteral("demo"), QStringLiteral("s1"), 1000), &error),
        qPrintable(error));
    QVERIFY(store.record(scope, session(QStringLiteral("demo"), QStringLiteral("s2"), 2000)));
    QVERIFY(store.record(scope, session(QStringLiteral("other"), QStringLiteral("s3"), 1500)));
    QCOMPARE(store.latest(scope, QStringLiteral("demo")).sessionId, QStringLiteral("s2"));
    QCOMPARE(sessionIds(store.sessions(scope, QStringLiteral("demo"))),
        QStringList({QStringLiteral("demo/s2"), QStringLiteral("demo/s1")}));
    QCOMPARE(sessionIds(store.sessions(scope)),
        QStringList(
            {QStringLiteral("demo/s2"), QStringLiteral("other/s3"), QStringLiteral("demo/s1")}));

    // A second store object (another process) reads the same file.
    SessionStore again(store.path());
    QCOMPARE(again.latest(scope, QStringLiteral("demo")).lastActivity,
        QDateTime::fromSecsSinceEpoch(2000, Qt::UTC));
}

void SessionStoreTest::recordingAgainUpdatesActivityAndKeepsKnownFields()
{
    QTemporaryDir dir;
    SessionStore store(dir.filePath(QStringLiteral("sessions.json")));
    const SessionScope scope {QStringLiteral("work"), QString(), QStringLiteral("alice")};
    SessionRecord forked = session(QStringLiteral("demo"), QStringLiteral("fork"), 1000);
    forked.forkedFrom = QStringLiteral("origin");
    forked.runId = QStringLiteral("run-1");
    QVERIFY(store.record(scope, forked));
    QVERIFY(store.record(scope, session(QStringLiteral("demo"), QStringLiteral("origin"), 2000)));
    QCOMPARE(store.latest(scope, QStringLiteral("demo")).sessionId, QStringLiteral("origin"));

    QVERIFY(store.record(scope, session(QStringLiteral("demo"), QStringLiteral("fork"), 3000)));
    const QVector<SessionRecord> sessions = store.sessions(scope, QStringLiteral("demo"));
    QCOMPARE(int(sessions.size()), 2); // updated, not added twice
    QCOMPARE(sessions.at(0).sessionId, QStringLiteral("fork"));
    QCOMPARE(sessions.at(0).lastActivity, QDateTime::fromSecsSinceEpoch(3000, Qt::UTC));
    QCOMPARE(sessions.at(0).forkedFrom, QStringLiteral("origin"));
    QCOMPARE(sessions.at(0).runId, QStringLiteral("run-1"));
}

void SessionStoreTest::scopesAreKeptApart()
{
    QTemporaryDir dir;
    SessionStore store(dir.filePath(QStringLiteral("sessions.json")));
    const QString server = QStringLiteral("http://127.0.0.1:8000");
    const SessionScope alice {QString(), server, QStringLiteral("alice")};
    const SessionScope bob {QString(), server, QStringLiteral("bob")};
    const SessionScope otherServer {
        QString(), QStringLiteral("http://10.0.0.1:8000"), QStringLiteral("alice")};
    const SessionScope profile {QStringLiteral("work"), server, QStringLiteral("alice")};
    QVERIFY(store.record(alice, session(QStringLiteral("demo"), QStringLiteral("a"), 1)));
    QVERIFY(store.record(bob, session(QStringLiteral("demo"), QStringLiteral("b"), 2)));
    QVERIFY(store.record(otherServer, session(QStringLiteral("demo"), QStringLiteral("c"), 3)));
    QVERIFY(store.record(profile, session(QStringLiteral("demo"), QStringLiteral("d"), 4)));
    QCOMPARE(store.latest(alice, QStringLiteral("demo")).sessionId, QStringLiteral("a"));
    QCOMPARE(store.latest(bob, QStringLiteral("demo")).sessionId, QStringLiteral("b"));
    QCOMPARE(store.latest(otherServer, QStringLiteral("demo")).sessionId, QStringLiteral("c"));
    QCOMPARE(store.latest(profile, QStringLiteral("demo")).sessionId, QStringLiteral("d"));
    // A profile is the scope whatever URL it points at now.
    const SessionScope movedProfile {
        QStringLiteral("work"), QStringLiteral("http://new:1"), QStringLiteral("alice")};
    QCOMPARE(store.latest(movedProfile, QStringLiteral("demo")).sessionId, QStringLiteral("d"));
}

void SessionStoreTest::onlyTheNewestSessionsPerChatAreKept()
{
    QTemporaryDir dir;
    SessionStore store(dir.filePath(QStringLiteral("sessions.json")));
    const SessionScope scope {QString(), QStringLiteral("http://s"), QStringLiteral("u")};
    const int total = SessionStore::maxSessionsPerChat + 5;
    for (int i = 0; i < total; ++i)
        QVERIFY(store.record(scope, session(QStringLiteral("demo"), QString::number(i), 1000 + i)));
    const QVector<SessionRecord> sessions = store.sessions(scope, QStringLiteral("demo"));
    QCOMPARE(int(sessions.size()), SessionStore::maxSessionsPerChat);
    QCOMPARE(sessions.constFirst().sessionId, QString::number(total - 1));
    QCOMPARE(sessions.constLast().sessionId, QString::number(5));
}

void SessionStoreTest::storeFileIsPrivate()
{
    QTemporaryDir dir;
    SessionStore store(dir.filePath(QStringLiteral("sessions.json")));
    QVERIFY(store.record({QString(), QStringLiteral("http://s"), QStringLiteral("u")},
        session(QStringLiteral("demo"), QStringLiteral("s"), 1)));
    const QFileDevice::Permissions permissions = QFile::permissions(store.path());
    QVERIFY(permissions & QFileDevice::ReadOwner);
    QVERIFY(!(permissions & (QFileDevice::ReadGroup | QFileDevice::ReadOther)));
}

void SessionStoreTest::corruptStoreIsReportedAndNotOverwritten()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("sessions.json"));
    QVERIFY(writeFile(path, "{ not json"));
    SessionStore store(path);
    QString error;
    QVERIFY(!store.record({QString(), QStringLiteral("http://s"), QStringLiteral("u")},
        session(QStringLiteral("demo"), QStringLiteral("s"), 1), &error));
    QVERIFY2(error.contains(path), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), QByteArray("{ not json"));
    QVERIFY(store.sessions({QString(), QStringLiteral("http://s"), QStringLiteral("u")}).isEmpty());
}

void SessionStoreTest::invalidRecordsAreRefused()
{
    QTemporaryDir dir;
    SessionStore store(dir.filePath(QStringLiteral("sessions.json")));
    const SessionScope scope {QString(), QStringLiteral("http://s"), QStringLiteral("u")};
    QString error;
    QVERIFY(!store.record(scope, session(QStringLiteral("../x"), QStringLiteral("s"), 1), &error));
    QVERIFY(!error.isEmpty());
    QVERIFY(!store.record(scope, session(QStringLiteral("demo"), QString(), 1), &error));
    QVERIFY(!QFile::exists(store.path()));
}

QTEST_GUILESS_MAIN(SessionStoreTest)
#include "tst_sessionstore.moc"
