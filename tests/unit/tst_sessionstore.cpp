// SessionStore (chat → Claude session per profile/server and user, in a local JSON file) and
// session discovery on the server: the CLI's project-directory escaping rule including the
// >200-character hash rule, the listing script run for real by dash and bash against a
// fabricated ~/.claude tree, and assigning transcripts to chats by directory and cwd.

#include "runs/sessionstore.h"
#include "testing.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace sandscope;
using namespace sandscope::sessiondiscovery;

namespace {

// /home/alice/chat-deep followed by twelve /segment_number_NN.dir: 285 characters.
QString deepPath()
{
    QString path = QStringLiteral("/home/alice/chat-deep");
    for (int i = 0; i < 12; ++i)
        path += QStringLiteral("/segment_number_%1.dir").arg(i, 2, 10, QLatin1Char('0'));
    return path;
}

DiscoveredSession transcript(
    const QString &directory, const QString &sessionId, const QString &cwd, qint64 mtime)
{
    DiscoveredSession found;
    found.projectDirectory = directory;
    found.sessionId = sessionId;
    found.cwd = cwd;
    found.path = QStringLiteral("/home/u/.claude/projects/%1/%2.jsonl").arg(directory, sessionId);
    found.lastActivity = QDateTime::fromSecsSinceEpoch(mtime, Qt::UTC);
    return found;
}

QStringList sessionIds(const QVector<DiscoveredSession> &sessions)
{
    QStringList ids;
    for (const DiscoveredSession &session : sessions)
        ids << session.chatId + QLatin1Char('/') + session.sessionId;
    return ids;
}

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
    void projectDirectoryNameFollowsTheCliRule_data();
    void projectDirectoryNameFollowsTheCliRule();
    void longNamesAreCutAt200AndGetAHashOfTheOriginalPath();

    void parseReadsTheListingThroughTerminalNoise();
    void parseWithoutHomeLineFails();
    void chatSessionsMatchTheEscapedDirectoryAndTheRecordedCwd();
    void chatSessionsWithoutChatAreNamedByTheirCwd();
    void chatSessionsFindALongWorkDirectoryByItsHashedName();
    void listingScriptFindsTranscriptsWithDashAndBash_data();
    void listingScriptFindsTranscriptsWithDashAndBash();

    void recordedSessionIsTheLatest();
    void recordingAgainUpdatesActivityAndKeepsKnownFields();
    void scopesAreKeptApart();
    void onlyTheNewestSessionsPerChatAreKept();
    void storeFileIsPrivate();
    void corruptStoreIsReportedAndNotOverwritten();
    void invalidRecordsAreRefused();
};

void SessionStoreTest::projectDirectoryNameFollowsTheCliRule_data()
{
    QTest::addColumn<QString>("cwd");
    QTest::addColumn<QString>("expected");
    QTest::newRow("chat directory")
        << QStringLiteral("/home/alice/chat-demo") << QStringLiteral("-home-alice-chat-demo");
    QTest::newRow("punctuation and non-ASCII letters")
        << QStringLiteral("/home/alice/chat-My Proj.v2_x/ü-ñ@host~1")
        << QStringLiteral("-home-alice-chat-My-Proj-v2-x-----host-1");
    // A character outside the BMP is two UTF-16 code units, so two dashes.
    QTest::newRow("surrogate pair") << QStringLiteral("/a/😀b") << QStringLiteral("-a---b");
    QTest::newRow("underscore and dash collide")
        << QStringLiteral("/home/u/chat-a_b") << QStringLiteral("-home-u-chat-a-b");
    QTest::newRow("exactly 200 characters stay as they are")
        << QString(QLatin1Char('/') + QString(199, QLatin1Char('x')))
        << QString(QLatin1Char('-') + QString(199, QLatin1Char('x')));
}

void SessionStoreTest::projectDirectoryNameFollowsTheCliRule()
{
    QFETCH(QString, cwd);
    QFETCH(QString, expected);
    QCOMPARE(projectDirectoryName(cwd), expected);
}

void SessionStoreTest::longNamesAreCutAt200AndGetAHashOfTheOriginalPath()
{
    const QString path = deepPath();
    QCOMPARE(int(path.size()), 285);
    const QString name = projectDirectoryName(path);
    // The documented directory of this path (docs/stream-json.md, "Transcripts on disk").
    QVERIFY(name.startsWith(QLatin1String("-home-alice-chat-deep-segment-number-00-dir-")));
    QVERIFY(name.endsWith(QLatin1String("-dir-se-ytcead")));
    QCOMPARE(int(name.size()), 200 + 7);

    // 201 characters: cut, hashed; two paths that escape alike still get different names.
    const QString a = QLatin1Char('/') + QString(199, QLatin1Char('x')) + QLatin1Char('_');
    const QString b = QLatin1Char('/') + QString(199, QLatin1Char('x')) + QLatin1Char('.');
    QCOMPARE(projectDirectoryName(a).left(201),
        QString(QLatin1Char('-') + QString(199, QLatin1Char('x')) + QLatin1Char('-')));
    QVERIFY(projectDirectoryName(a) != projectDirectoryName(b));
    QVERIFY(projectDirectoryName(a).mid(201).contains(
        QRegularExpression(QStringLiteral("^[0-9a-z]+$"))));
}

void SessionStoreTest::parseReadsTheListingThroughTerminalNoise()
{
    const QString output = QStringLiteral(
        "sudo: unable to resolve host sandbox\r\n"
        "SANDSCOPE-HOME=/home/u\r\n"
        "SANDSCOPE-TRANSCRIPT\t1764410000 1234\t\"cwd\":\"/home/u/chat-one\"\t"
        "/home/u/.claude/projects/-home-u-chat-one/11111111-2222-3333-4444-555555555555.jsonl\r\n"
        "SANDSCOPE-TRANSCRIPT\t1764410500.250 99\t\t"
        "/home/u/.claude/projects/-home-u-chat-two/aaaaaaaa-2222-3333-4444-555555555555.jsonl\r\n"
        "SANDSCOPE-TRANSCRIPT\tgarbage\r\n");
    Listing listing;
    QVERIFY(parse(output, &listing));
    QCOMPARE(listing.home, QStringLiteral("/home/u"));
    QCOMPARE(int(listing.transcripts.size()), 2);
    const DiscoveredSession &first = listing.transcripts.at(0);
    QCOMPARE(first.sessionId, QStringLiteral("11111111-2222-3333-4444-555555555555"));
    QCOMPARE(first.cwd, QStringLiteral("/home/u/chat-one"));
    QCOMPARE(first.projectDirectory, QStringLiteral("-home-u-chat-one"));
    QCOMPARE(first.size, qint64(1234));
    QCOMPARE(first.lastActivity, QDateTime::fromSecsSinceEpoch(1764410000, Qt::UTC));
    QVERIFY(first.chatId.isEmpty());
    const DiscoveredSession &second = listing.transcripts.at(1);
    QVERIFY(second.cwd.isEmpty());
    // stat's %.3Y: milliseconds order a resume and a fork written within one second.
    QCOMPARE(second.lastActivity, QDateTime::fromMSecsSinceEpoch(1764410500250, Qt::UTC));
    QCOMPARE(second.projectDirectory, QStringLiteral("-home-u-chat-two"));
}

void SessionStoreTest::parseWithoutHomeLineFails()
{
    Listing listing;
    QVERIFY(!parse(QStringLiteral("bash: cd: permission denied\n"), &listing));
    QVERIFY(listing.home.isEmpty());
}

void SessionStoreTest::chatSessionsMatchTheEscapedDirectoryAndTheRecordedCwd()
{
    Listing listing;
    listing.home = QStringLiteral("/home/u");
    // "a_b" and "a-b" share one directory; the recorded cwd tells them apart.
    listing.transcripts = {
        transcript(QStringLiteral("-home-u-chat-a-b"), QStringLiteral("s-underscore"),
            QStringLiteral("/home/u/chat-a_b"), 100),
        transcript(QStringLiteral("-home-u-chat-a-b"), QStringLiteral("s-dash"),
            QStringLiteral("/home/u/chat-a-b"), 200),
        // no cwd recorded: the directory decides
        transcript(QStringLiteral("-home-u-chat-a-b"), QStringLiteral("s-unknown"), QString(), 50),
        transcript(QStringLiteral("-home-u-chat-other"), QStringLiteral("s-other"),
            QStringLiteral("/home/u/chat-other"), 300),
        transcript(QStringLiteral("-home-u-chat-a-b-c"), QStringLiteral("s-longer"),
            QStringLiteral("/home/u/chat-a-b-c"), 400),
    };
    QCOMPARE(sessionIds(chatSessions(listing, QStringLiteral("a_b"))),
        QStringList({QStringLiteral("a_b/s-underscore"), QStringLiteral("a_b/s-unknown")}));
    QCOMPARE(sessionIds(chatSessions(listing, QStringLiteral("a-b"))),
        QStringList({QStringLiteral("a-b/s-dash"), QStringLiteral("a-b/s-unknown")}));
    QVERIFY(chatSessions(listing, QStringLiteral("missing")).isEmpty());
}

void SessionStoreTest::chatSessionsWithoutChatAreNamedByTheirCwd()
{
    Listing listing;
    listing.home = QStringLiteral("/home/u");
    listing.transcripts = {
        transcript(QStringLiteral("-home-u-chat-one"), QStringLiteral("s1"),
            QStringLiteral("/home/u/chat-one"), 100),
        transcript(QStringLiteral("-home-u-chat-two"), QStringLiteral("s2"),
            QStringLiteral("/home/u/chat-two"), 300),
        transcript(QStringLiteral("-home-u-chat-one"), QStringLiteral("s3"),
            QStringLiteral("/home/u/chat-one"), 200),
        // not chat directories, or not where the CLI would keep them
        transcript(QStringLiteral("-home-u-project"), QStringLiteral("s4"),
            QStringLiteral("/home/u/project"), 400),
        transcript(QStringLiteral("-home-u-chat-one"), QStringLiteral("s5"),
            QStringLiteral("/home/u/chat-one/sub"), 500),
        transcript(QStringLiteral("-home-u-chat--x"), QStringLiteral("s6"),
            QStringLiteral("/home/u/chat--x"), 600),
        transcript(QStringLiteral("-home-u-chat-one"), QStringLiteral("s7"), QString(), 700),
    };
    QCOMPARE(sessionIds(chatSessions(listing)),
        QStringList(
            {QStringLiteral("two/s2"), QStringLiteral("one/s3"), QStringLiteral("one/s1")}));
}

void SessionStoreTest::chatSessionsFindALongWorkDirectoryByItsHashedName()
{
    Listing listing;
    listing.home = QStringLiteral("/home/") + QString(150, QLatin1Char('h'));
    const QString chat = QString(60, QLatin1Char('c'));
    const QString workDirectory = chatWorkDirectory(listing.home, chat);
    QVERIFY(workDirectory.size() > 200);
    const QString directory = projectDirectoryName(workDirectory);
    QVERIFY(directory.size() > 200);
    listing.transcripts = {transcript(directory, QStringLiteral("s-long"), workDirectory, 10),
        transcript(directory.left(200), QStringLiteral("s-cut"), workDirectory, 20)};
    QCOMPARE(
        sessionIds(chatSessions(listing, chat)), QStringList({chat + QStringLiteral("/s-long")}));
    QCOMPARE(sessionIds(chatSessions(listing)), QStringList({chat + QStringLiteral("/s-long")}));
}

void SessionStoreTest::listingScriptFindsTranscriptsWithDashAndBash_data()
{
    QTest::addColumn<QString>("shell");
    QTest::newRow("sh") << QStringLiteral("sh");
    QTest::newRow("bash") << QStringLiteral("bash");
}

void SessionStoreTest::listingScriptFindsTranscriptsWithDashAndBash()
{
    QFETCH(QString, shell);
    const QString shellPath = QStandardPaths::findExecutable(shell);
    if (shellPath.isEmpty()) {
        if (sandscope::test::runningInCi()) // Debian and Ubuntu always have dash and bash
            QFAIL("shell not installed");
        QSKIP("shell not installed");
    }
    QTemporaryDir home;
    QVERIFY(home.isValid());
    const QString realHome = QDir(home.path()).canonicalPath();
    const QString projects = realHome + QStringLiteral("/.claude/projects/");
    const QString chatDirectory = projectDirectoryName(realHome + QStringLiteral("/chat-demo"));
    const QString session = QStringLiteral("69d37cd2-7f92-4547-b7cd-d2b4de2e2f3e");
    // The prompt mentions a "cwd" inside a JSON string; only the real field may match.
    QVERIFY(writeFile(
        projects + chatDirectory + QLatin1Char('/') + session + QStringLiteral(".jsonl"),
        QByteArray("{\"type\":\"queue-operation\",\"content\":\"say \\\"cwd\\\":\\\"/etc\\\"\"}\n"
                   "{\"type\":\"user\",\"message\":{\"content\":\"x\"},\"cwd\":\"")
            + (realHome + QStringLiteral("/chat-demo")).toUtf8()
            + QByteArray("\",\"sessionId\":\"69d37cd2\"}\n")));
    QVERIFY(writeFile(projects + chatDirectory + QStringLiteral("/memory/notes.jsonl"), "{}\n"));
    QVERIFY(writeFile(projects + QStringLiteral("-tmp-empty/abc.jsonl"), QByteArray()));

    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("HOME"), home.path());
    process.setProcessEnvironment(environment);
    process.start(shellPath, {QStringLiteral("-c"), script()});
    QVERIFY(process.waitForFinished(20000));
    QCOMPARE(process.exitCode(), 0);
    const QString output = QString::fromUtf8(process.readAllStandardOutput());

    Listing listing;
    QVERIFY2(parse(output, &listing), qPrintable(output));
    QCOMPARE(listing.home, realHome);
    QCOMPARE(int(listing.transcripts.size()), 2); // memory/ is one level too deep
    const QVector<DiscoveredSession> sessions = chatSessions(listing, QStringLiteral("demo"));
    QCOMPARE(int(sessions.size()), 1);
    QCOMPARE(sessions.at(0).sessionId, session);
    QCOMPARE(sessions.at(0).cwd, realHome + QStringLiteral("/chat-demo"));
    QVERIFY(sessions.at(0).size > 0);
    QVERIFY(qAbs(sessions.at(0).lastActivity.secsTo(QDateTime::currentDateTimeUtc())) < 600);
    QCOMPARE(sessionIds(chatSessions(listing)), QStringList({QStringLiteral("demo/") + session}));

    // No ~/.claude at all: the home line alone.
    QTemporaryDir empty;
    environment.insert(QStringLiteral("HOME"), empty.path());
    process.setProcessEnvironment(environment);
    process.start(shellPath, {QStringLiteral("-c"), script()});
    QVERIFY(process.waitForFinished(20000));
    QCOMPARE(process.exitCode(), 0);
    QVERIFY(parse(QString::fromUtf8(process.readAllStandardOutput()), &listing));
    QVERIFY(listing.transcripts.isEmpty());
}

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
