// Session discovery on the server: the CLI's project-directory escaping rule including the
// >200-character hash rule; the listing script run for real by dash and bash against a fake
// home made from the captures (every field, sub-agents, a session still growing, odd working
// directories, corrupt lines, empty files, which prompts count); the parser on hostile output;
// and assigning transcripts to chats by directory and cwd.

#include "fleet/fleetfanout.h"
#include "runs/loadedrun.h"
#include "runtree/runmodel.h"
#include "sessions/sessiondiscovery.h"
#include "testing.h"
#include "transcripthome.h"

#include <QDir>
#include <QElapsedTimer>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace sandscope;
using namespace sandscope::sessiondiscovery;
using namespace sandscope::test;

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

// The listing of `home` by the local sh; fails the test (empty listing) when it cannot run.
Listing listHome(const QString &home, const QString &shell = QStringLiteral("sh"))
{
    const ShellOutput output = runInHome(script(), home, shell);
    Listing listing;
    if (output.exitCode != 0 || !parse(output.out, &listing))
        qWarning().noquote() << "listing failed:" << output.exitCode << output.out << output.err;
    return listing;
}

DiscoveredSession bySession(const Listing &listing, const QString &sessionId)
{
    for (const DiscoveredSession &found : listing.transcripts) {
        if (found.sessionId == sessionId)
            return found;
    }
    return {};
}

// A transcript line as the CLI writes a typed prompt (content a JSON string).
QByteArray promptLine(const QByteArray &contentLiteral, const QByteArray &extra = {})
{
    return "{\"parentUuid\":null,\"isSidechain\":false,\"type\":\"user\",\"message\":{\"role\":"
           "\"user\",\"content\":"
        + contentLiteral + "}," + extra
        + "\"uuid\":\"u1\",\"timestamp\":\"2026-11-30T10:00:00.000Z\",\"cwd\":\"/w\"}\n";
}

QByteArray assistantLine(const QByteArray &model)
{
    return "{\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\""
        + model
        + "\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]},\"type\":\"assistant\","
          "\"uuid\":\"a1\"}\n";
}

const QDateTime longAgo = QDateTime::fromSecsSinceEpoch(1700000000, Qt::UTC);

} // namespace

class SessionDiscoveryTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyHomeStreamsItsSessionsBeforeTheListingEnds();
    void projectDirectoryNameFollowsTheCliRule_data();
    void projectDirectoryNameFollowsTheCliRule();
    void longNamesAreCutAt200AndGetAHashOfTheOriginalPath();

    void parseReadsEveryFieldThroughTerminalNoise();
    void parseWithoutHomeLineFails();
    void parseSurvivesHostileRecords_data();
    void parseSurvivesHostileRecords();
    void chatSessionsMatchTheEscapedDirectoryAndTheRecordedCwd();
    void chatSessionsWithoutChatAreNamedByTheirCwd();
    void chatSessionsFindALongWorkDirectoryByItsHashedName();
    void allSessionsKeepEveryWorkingDirectory();

    void listingScriptFindsTranscriptsWithDashAndBash_data();
    void listingScriptFindsTranscriptsWithDashAndBash();
    void listingScriptReadsEveryFieldOfTheCaptures();
    void growingSessionIsRunning();
    void oddWorkingDirectoriesAndPathsSurvive();
    void corruptLinesAndEmptyFilesAreListed();
    void onlyTypedPromptsAreTurnsAndTitles_data();
    void onlyTypedPromptsAreTurnsAndTitles();
    void listingStatesTheTreesFigures_data();
    void listingStatesTheTreesFigures();
};

void SessionDiscoveryTest::projectDirectoryNameFollowsTheCliRule_data()
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

void SessionDiscoveryTest::projectDirectoryNameFollowsTheCliRule()
{
    QFETCH(QString, cwd);
    QFETCH(QString, expected);
    QCOMPARE(projectDirectoryName(cwd), expected);
}

void SessionDiscoveryTest::longNamesAreCutAt200AndGetAHashOfTheOriginalPath()
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

void SessionDiscoveryTest::parseReadsEveryFieldThroughTerminalNoise()
{
    const QString output = QStringLiteral(
        "sudo: unable to resolve host sandbox\r\n"
        "SANDSCOPE-HOME=/home/u\r\n"
        "SANDSCOPE-TRANSCRIPT\t1764410000 1234\t\"/home/u/chat-one\"\t"
        "\"2026-11-29T09:28:56.746Z\"\t3\t7\t1\t\"claude-opus-5-5\"\t0.000376\t"
        "\"  say \\\"hi\\\" \\u00fc\\nsecond line\"\t"
        "/home/u/.claude/projects/-home-u-chat-one/11111111-2222-3333-4444-555555555555.jsonl\r\n"
        "SANDSCOPE-TRANSCRIPT\t1764410500.250 99\t\t\t0\t0\t0\t\t\t\t"
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
    QCOMPARE(first.started, QDateTime::fromMSecsSinceEpoch(1795944536746, Qt::UTC));
    QCOMPARE(first.turns, 3);
    QCOMPARE(first.toolCalls, 7);
    QVERIFY(first.running);
    QCOMPARE(first.model, QStringLiteral("claude-opus-5-5"));
    QVERIFY(first.hasCost);
    QCOMPARE(first.costUsd, 0.000376);
    QCOMPARE(first.title, QStringLiteral("say \"hi\" ü")); // the first line only
    QVERIFY(first.chatId.isEmpty());
    const DiscoveredSession &second = listing.transcripts.at(1);
    QVERIFY(second.cwd.isEmpty());
    // stat's %.3Y: milliseconds order a resume and a fork written within one second.
    QCOMPARE(second.lastActivity, QDateTime::fromMSecsSinceEpoch(1764410500250, Qt::UTC));
    QCOMPARE(second.projectDirectory, QStringLiteral("-home-u-chat-two"));
    QVERIFY(!second.started.isValid());
    QVERIFY(!second.hasCost);
    QVERIFY(!second.running);
    QVERIFY(second.title.isEmpty() && second.model.isEmpty());
}

void SessionDiscoveryTest::parseWithoutHomeLineFails()
{
    Listing listing;
    QVERIFY(!parse(QStringLiteral("bash: cd: permission denied\n"), &listing));
    QVERIFY(listing.home.isEmpty());
}

void SessionDiscoveryTest::parseSurvivesHostileRecords_data()
{
    QTest::addColumn<QString>("record");
    QTest::addColumn<int>("sessions");
    QTest::addColumn<QString>("title");
    QTest::addColumn<int>("turns");
    const QString path = QStringLiteral("\t/home/u/.claude/projects/-d/s.jsonl");
    QTest::newRow("numbers that are not")
        << QStringLiteral("x y\t\"/w\"\t\"not a time\"\t-5\tmany\t2\t\"m\"\tNaN?\t\"t\"") + path
        << 1 << QStringLiteral("t") << 0;
    QTest::newRow("title cut inside an escape")
        << QStringLiteral("1 1\t\t\t1\t0\t0\t\t\t\"abc\\u00") + path << 1 << QStringLiteral("abc")
        << 1;
    QTest::newRow("title cut after a backslash") << QStringLiteral("1 1\t\t\t1\t0\t0\t\t\t\"abc\\")
            + path << 1 << QStringLiteral("abc") << 1;
    QTest::newRow("title not a literal")
        << QStringLiteral("1 1\t\t\t1\t0\t0\t\t\tplain") + path << 1 << QString() << 1;
    QTest::newRow("title of 300 characters") << QStringLiteral("1 1\t\t\t1\t0\t0\t\t\t\"")
            + QString(300, QLatin1Char('x')) + QLatin1Char('"') + path
                                             << 1 << QString(titleLimit, QLatin1Char('x')) << 1;
    QTest::newRow("a tab in the path")
        << QStringLiteral("1 1\t\t\t1\t0\t0\t\t\t\"t\"\t/home/u/.claude/projects/-d\tx/s.jsonl")
        << 1 << QStringLiteral("t") << 1;
    QTest::newRow("not a transcript")
        << QStringLiteral("1 1\t\t\t1\t0\t0\t\t\t\"t\"\t/home/u/.claude/projects/-d/s.txt") << 0
        << QString() << 0;
    QTest::newRow("too few fields")
        << QStringLiteral("1 1\t\"/w\"\t/x.jsonl") << 0 << QString() << 0;
    QTest::newRow("control characters")
        << QStringLiteral("1 1\t\t\t1\t0\t0\t\t\t\"\x1b[31mred\\u0007\"") + path << 1
        << QStringLiteral("[31mred") << 1; // never an escape sequence for the terminal
}

void SessionDiscoveryTest::parseSurvivesHostileRecords()
{
    QFETCH(QString, record);
    QFETCH(int, sessions);
    QFETCH(QString, title);
    QFETCH(int, turns);
    Listing listing;
    QVERIFY(
        parse(QStringLiteral("SANDSCOPE-HOME=/home/u\nSANDSCOPE-TRANSCRIPT\t") + record, &listing));
    QCOMPARE(int(listing.transcripts.size()), sessions);
    if (sessions == 0)
        return;
    const DiscoveredSession &found = listing.transcripts.constFirst();
    QCOMPARE(found.title, title);
    QCOMPARE(found.turns, turns);
    QVERIFY(found.toolCalls >= 0);
    QVERIFY(found.path.endsWith(QLatin1String("/s.jsonl")));
    QCOMPARE(found.sessionId, QStringLiteral("s"));
}

void SessionDiscoveryTest::chatSessionsMatchTheEscapedDirectoryAndTheRecordedCwd()
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

void SessionDiscoveryTest::chatSessionsWithoutChatAreNamedByTheirCwd()
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

void SessionDiscoveryTest::chatSessionsFindALongWorkDirectoryByItsHashedName()
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

void SessionDiscoveryTest::allSessionsKeepEveryWorkingDirectory()
{
    Listing listing;
    listing.home = QStringLiteral("/home/u");
    listing.transcripts = {
        transcript(QStringLiteral("-home-u-chat-one"), QStringLiteral("s1"),
            QStringLiteral("/home/u/chat-one"), 100),
        transcript(QStringLiteral("-home-u-project"), QStringLiteral("s2"),
            QStringLiteral("/home/u/project"), 300),
        transcript(QStringLiteral("-tmp"), QStringLiteral("s3"), QString(), 200),
        transcript(QStringLiteral("-home-u-chat-one"), QStringLiteral("s4"),
            QStringLiteral("/home/u/chat-one/sub"), 50),
    };
    // Only a chat's own directory names the chat; every transcript is kept.
    QCOMPARE(sessionIds(allSessions(listing)),
        QStringList({QStringLiteral("/s2"), QStringLiteral("/s3"), QStringLiteral("one/s1"),
            QStringLiteral("/s4")}));
}

void SessionDiscoveryTest::listingScriptFindsTranscriptsWithDashAndBash_data()
{
    QTest::addColumn<QString>("shell");
    QTest::newRow("sh") << QStringLiteral("sh");
    QTest::newRow("bash") << QStringLiteral("bash");
}

void SessionDiscoveryTest::listingScriptFindsTranscriptsWithDashAndBash()
{
    QFETCH(QString, shell);
    const QString shellPath = QStandardPaths::findExecutable(shell);
    // Debian and Ubuntu always have dash and bash: in CI a missing one fails.
    SANDSCOPE_REQUIRE(!shellPath.isEmpty(), QStringLiteral("%1 is not installed").arg(shell));
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

void SessionDiscoveryTest::listingScriptReadsEveryFieldOfTheCaptures()
{
    QTemporaryDir home;
    QVERIFY(home.isValid());
    const QString directory = QStringLiteral("-home-alice-chat-demo");
    const QString basic = installBasicTranscript(home.path(), directory);
    const QString withAgent = installSubagentTranscript(home.path(), directory);
    QVERIFY(!basic.isEmpty() && !withAgent.isEmpty());
    const QString agentFile
        = withAgent.chopped(6) + QStringLiteral("/subagents/") + subagentFileName;
    const QDateTime written = QDateTime::fromSecsSinceEpoch(1790000000, Qt::UTC);
    QVERIFY(setModified(basic, longAgo));
    QVERIFY(setModified(withAgent, longAgo));
    QVERIFY(setModified(agentFile, written)); // the sub-agent wrote last

    const Listing listing = listHome(home.path());
    QCOMPARE(listing.home, QDir(home.path()).canonicalPath());
    QCOMPARE(int(listing.transcripts.size()), 2); // sub-agent files are no sessions of their own

    const DiscoveredSession one = bySession(listing, basicSessionId);
    QCOMPARE(one.path, QDir(home.path()).canonicalPath() + basic.mid(home.path().size()));
    QCOMPARE(one.projectDirectory, directory);
    QCOMPARE(one.cwd, QStringLiteral("/home/alice/chat-demo"));
    QCOMPARE(one.title, QStringLiteral("Run echo hi with Bash"));
    QCOMPARE(one.started,
        QDateTime::fromString(QStringLiteral("2026-11-29T09:28:56.746Z"), Qt::ISODateWithMs));
    QCOMPARE(one.lastActivity, longAgo);
    QCOMPARE(one.turns, 1); // the tool_result record is no prompt
    QCOMPARE(one.toolCalls, 1);
    QCOMPARE(one.size, QFileInfo(basic).size());
    QCOMPARE(one.model, QStringLiteral("claude-opus-5-5"));
    QVERIFY(one.hasCost);
    QCOMPARE(one.costUsd, 0.000376);
    QVERIFY(!one.running);

    const DiscoveredSession two = bySession(listing, subagentSessionId);
    QCOMPARE(two.title, QStringLiteral("USE_AGENT please"));
    QCOMPARE(two.turns, 1);
    QCOMPARE(two.toolCalls, 2); // the Agent call and the sub-agent's Bash call
    QCOMPARE(two.size, QFileInfo(withAgent).size() + QFileInfo(agentFile).size());
    QCOMPARE(two.lastActivity, written);
    QVERIFY(!two.running);
    // Newest first, whichever file of a session was written last.
    QCOMPARE(allSessions(listing).constFirst().sessionId, subagentSessionId);
}

void SessionDiscoveryTest::growingSessionIsRunning()
{
    QTemporaryDir home;
    const QString main = installSubagentTranscript(home.path(), QStringLiteral("-w"));
    const QString agentFile = main.chopped(6) + QStringLiteral("/subagents/") + subagentFileName;
    QVERIFY(setModified(main, longAgo));
    QVERIFY(setModified(agentFile, longAgo));
    QVERIFY(!bySession(listHome(home.path()), subagentSessionId).running);

    // Its sub-agent is still writing: the session runs, though its own file is quiet.
    QVERIFY(appendToFile(agentFile, assistantLine("claude-opus-5-5")));
    DiscoveredSession found = bySession(listHome(home.path()), subagentSessionId);
    QVERIFY(found.running);
    QVERIFY(qAbs(found.lastActivity.secsTo(QDateTime::currentDateTimeUtc())) < 30);

    // A line more in the main file: running, and the new prompt counts.
    QVERIFY(setModified(agentFile, longAgo));
    QVERIFY(appendToFile(main, promptLine("\"and now?\"")));
    found = bySession(listHome(home.path()), subagentSessionId);
    QVERIFY(found.running);
    QCOMPARE(found.turns, 2);
    QCOMPARE(found.title, QStringLiteral("USE_AGENT please"));
}

void SessionDiscoveryTest::oddWorkingDirectoriesAndPathsSurvive()
{
    QTemporaryDir home;
    const QString realHome = QDir(home.path()).canonicalPath();
    // The CLI escapes the cwd in JSON; the directory name is ours, with a space and a tab.
    const QString cwd = realHome + QStringLiteral("/my dir\twith tab/Grüße");
    const QString directory = QStringLiteral("odd dir\tname");
    const QString path = projectsDirectory(realHome) + directory + QStringLiteral("/s1.jsonl");
    QVERIFY(writeFile(path,
        promptLine("\"tab\\there\"", "\"cwd\":\"" + cwd.toUtf8().replace("\t", "\\t") + "\",")
            .replace(",\"cwd\":\"/w\"}", "}")));

    const Listing listing = listHome(home.path());
    QCOMPARE(int(listing.transcripts.size()), 1);
    const DiscoveredSession found = listing.transcripts.constFirst();
    QCOMPARE(found.path, path);
    QCOMPARE(found.projectDirectory, directory);
    QCOMPARE(found.cwd, cwd);
    QCOMPARE(found.title, QStringLiteral("tab here"));
    QCOMPARE(found.sessionId, QStringLiteral("s1"));
    QCOMPARE(allSessions(listing).constFirst().chatId, QString());
}

void SessionDiscoveryTest::corruptLinesAndEmptyFilesAreListed()
{
    QTemporaryDir home;
    const QString directory = QStringLiteral("-w");
    QVERIFY(writeFile(
        projectsDirectory(home.path()) + directory + QStringLiteral("/empty.jsonl"), QByteArray()));
    // A line cut off mid-write, invalid UTF-8, a raw tab and NUL bytes, then the real prompt.
    QVERIFY(writeFile(projectsDirectory(home.path()) + directory + QStringLiteral("/corrupt.jsonl"),
        QByteArray("{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"cut off\n"
                   "\xff\xfe garbage \t")
            + QByteArray(2, '\0') + QByteArray(" {\"type\":\"assistant\"\n")
            + promptLine("\"real\\tprompt\"") + assistantLine("<synthetic>")
            + assistantLine("claude-sonnet-9")
            + "{\"type\":\"cost-state\",\"totalCostUSD\":0.5}\n"
              "{\"type\":\"cost-state\",\"totalCostUSD\":1.25,\"x\":1}\n"
              "{\"type\":\"cost-state\",\"totalCostUSD\":"));

    const Listing listing = listHome(home.path());
    QCOMPARE(int(listing.transcripts.size()), 2);
    const DiscoveredSession empty = bySession(listing, QStringLiteral("empty"));
    QCOMPARE(empty.size, qint64(0));
    QCOMPARE(empty.turns, 0);
    QVERIFY(empty.title.isEmpty() && empty.cwd.isEmpty() && !empty.started.isValid());
    QVERIFY(!empty.hasCost);

    const DiscoveredSession corrupt = bySession(listing, QStringLiteral("corrupt"));
    // The cut-off line has no closing quote: its start is the title, as far as it goes.
    QCOMPARE(corrupt.title, QStringLiteral("cut off"));
    QCOMPARE(corrupt.turns, 2);
    QCOMPARE(corrupt.model, QStringLiteral("claude-sonnet-9")); // not "<synthetic>"
    QVERIFY(corrupt.hasCost); // the last complete cost-state record
    QCOMPARE(corrupt.costUsd, 1.25);
}

void SessionDiscoveryTest::onlyTypedPromptsAreTurnsAndTitles_data()
{
    QTest::addColumn<QByteArray>("lines");
    QTest::addColumn<QString>("title");
    QTest::addColumn<int>("turns");
    QTest::newRow("meta, compact summary and sidechain records are not typed")
        << promptLine("\"<command-name>/clear</command-name>\"", "\"isMeta\":true,")
            + promptLine("\"This session is being continued\"", "\"isCompactSummary\":true,")
            + promptLine("\"SUBTASK\"", "\"isSidechain\":true,")
                  .replace("\"isSidechain\":false,", "")
            + promptLine("\"the real one\"")
        << QStringLiteral("the real one") << 1;
    QTest::newRow("tool results are no prompts")
        << QByteArray("{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_"
                      "id\":\"t\",\"type\":\"tool_result\",\"content\":\"out\"}]}}\n")
            + promptLine("\"second\"") + promptLine("\"third\"")
        << QStringLiteral("second") << 2;
    QTest::newRow("first line of an escaped prompt")
        << promptLine("\"\\n  say \\\"hi\\\" \\\\ \\u00fcber \\ud83d\\ude00\\nmore lines\"")
        << QStringLiteral("say \"hi\" \\ über 😀") << 1;
    QTest::newRow("a long prompt is cut at 200 characters")
        << promptLine('"' + QByteArray(400, 'y') + '"') << QString(titleLimit, QLatin1Char('y'))
        << 1;
    QTest::newRow("200 escaped characters still make the title")
        << promptLine('"' + QByteArray("\\u00e9").repeated(210) + '"')
        << QString(titleLimit, QChar(0xe9)) << 1;
    QTest::newRow("a prompt in a string field elsewhere does not count") << QByteArray(
        "{\"type\":\"queue-operation\",\"content\":\"{\\\"type\\\":\\\"user\\\"}\"}\n")
                                                                         << QString() << 0;
}

void SessionDiscoveryTest::onlyTypedPromptsAreTurnsAndTitles()
{
    QFETCH(QByteArray, lines);
    QFETCH(QString, title);
    QFETCH(int, turns);
    QTemporaryDir home;
    QVERIFY(writeFile(projectsDirectory(home.path()) + QStringLiteral("-w/s.jsonl"), lines));
    const DiscoveredSession found = bySession(listHome(home.path()), QStringLiteral("s"));
    QCOMPARE(found.title, title);
    QCOMPARE(found.turns, turns);
}

void SessionDiscoveryTest::listingStatesTheTreesFigures_data()
{
    QTest::addColumn<QString>("scenario");
    const QDir transcripts(QStringLiteral(SANDSCOPE_TEST_DATA_DIR "/transcripts"));
    for (const QString &scenario : transcripts.entryList(QDir::Dirs | QDir::NoDotAndDotDot))
        QTest::newRow(qPrintable(scenario)) << scenario;
}

// The Sessions list counts with awk on the server; a session opened from it is the tree. Both
// state the same turns, tool calls (sub-agents included) and cost (issue 25).
void SessionDiscoveryTest::listingStatesTheTreesFigures()
{
    QFETCH(QString, scenario);
    QTemporaryDir home;
    QVERIFY(home.isValid());
    const QString path = installRecordedScenario(home.path(), scenario, 3600);
    QVERIFY(!path.isEmpty());
    const Listing listing = listHome(home.path());
    const DiscoveredSession listed = bySession(listing, QFileInfo(path).completeBaseName());
    QVERIFY(!listed.sessionId.isEmpty());
    LoadedRun run;
    QVERIFY(LoadedRun::fromFile(path, &run));
    RunModel model;
    run.buildModel(&model);
    const RunSummary summary = model.summary();
    QCOMPARE(listed.turns, summary.turns);
    QCOMPARE(listed.toolCalls, summary.toolCalls);
    QCOMPARE(listed.hasCost, summary.costUsd > 0);
    QCOMPARE(listed.costUsd, summary.costUsd);
}

// The fan-out listing hands a member's sessions over while its script is still running: here
// the admin command (local, the homes being local) keeps running 3 s after the listing. Every
// session comes in a batch before the member ends, once, with the member.
void SessionDiscoveryTest::everyHomeStreamsItsSessionsBeforeTheListingEnds()
{
    QTemporaryDir root;
    QVERIFY(root.isValid());
    QStringList expected;
    for (int i = 0; i < 3; ++i) {
        const QString home = root.filePath(QStringLiteral("user%1").arg(i));
        const QString path
            = installBasicTranscript(home, QStringLiteral("-home-user%1-chat-1").arg(i),
                QStringLiteral("00000000-0000-4000-8000-00000000000%1").arg(i));
        QVERIFY(!path.isEmpty());
        expected << path;
    }
    AdminAccess slow;
    QVERIFY(AdminAccess::fromCommand(QStringLiteral("sh -c 'sh -s; sleep 3' --"), &slow));
    FleetFanOut fanOut(nullptr, slow);
    QElapsedTimer clock;
    clock.start();
    QStringList streamed;
    qint64 firstBatchMs = -1;
    qint64 endedMs = -1;
    bool ok = false;
    sessiondiscovery::discoverAllUsers(
        &fanOut, root.path(),
        [&](const QString &member, const QVector<DiscoveredSession> &batch) {
            QVERIFY(member.isEmpty()); // one server: no member
            if (firstBatchMs < 0)
                firstBatchMs = clock.elapsed();
            for (const DiscoveredSession &session : batch)
                streamed << session.path;
        },
        [&](const FanOutMemberResult &result, const QVector<DiscoveredSession> &sessions,
            const QStringList &) {
            ok = result.ok;
            QVERIFY(sessions.isEmpty()); // all of them came in the batches
            endedMs = clock.elapsed();
        });
    QTRY_VERIFY_WITH_TIMEOUT(endedMs >= 0, 20000);
    QVERIFY(ok);
    streamed.sort();
    QCOMPARE(streamed, expected);
    QVERIFY2(firstBatchMs >= 0 && endedMs - firstBatchMs >= 2000,
        qPrintable(QStringLiteral("first batch after %1 ms, end after %2 ms")
                       .arg(firstBatchMs)
                       .arg(endedMs)));
}

QTEST_GUILESS_MAIN(SessionDiscoveryTest)
#include "tst_sessiondiscovery.moc"
