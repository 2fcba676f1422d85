// sessionsearch: the search script run by the local sh against a fake home made from the
// captures and a written session (hits with turn, tool_use id and name for calls and their
// results, sub-agents, --tool, --since, the hit limit, queries with quotes, backslashes,
// $(...), non-ASCII and newlines that must neither break nor inject), and the parser on
// hostile output.

#include "sessions/sessionsearch.h"
#include "sessions/sessionsearchmodel.h"
#include "transcripthome.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

using namespace sandscope;
using namespace sandscope::test;

namespace {

const QString toolsSession = QStringLiteral("5e551011-0000-4000-8000-000000000001");

// A session with a Bash call and a Read call, each in its own turn; the second prompt holds
// what a shell would interpret.
QByteArray toolsTranscript()
{
    return QByteArray(
        "{\"type\":\"queue-operation\",\"operation\":\"enqueue\",\"content\":\"first\"}\n"
        "{\"parentUuid\":null,\"isSidechain\":false,\"type\":\"user\",\"message\":{\"role\":"
        "\"user\",\"content\":\"first needle prompt\"},\"uuid\":\"u-1\"}\n"
        "{\"message\":{\"role\":\"assistant\",\"model\":\"m\",\"content\":[{\"type\":\"tool_use\","
        "\"id\":\"toolu_b1\",\"name\":\"Bash\",\"input\":{\"command\":\"echo NEEDLE-out\"}}]},"
        "\"type\":\"assistant\",\"uuid\":\"a-1\"}\n"
        "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":"
        "\"toolu_b1\",\"type\":\"tool_result\",\"content\":\"NEEDLE-out\\n\"}]},\"uuid\":\"u-2\"}\n"
        "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"say \\\"hi\\\" \\\\ "
        "$(touch pwned) \xc3\xbcn\xc3\xaf"
        "c\xc3\xb6"
        "d\xc3\xa9 'q' line1\\nline2\"},\"uuid\":\"u-3\"}\n"
        "{\"message\":{\"role\":\"assistant\",\"model\":\"m\",\"content\":[{\"type\":\"tool_use\","
        "\"id\":\"toolu_r1\",\"name\":\"Read\",\"input\":{\"file_path\":\"/tmp/needle.txt\"}}]},"
        "\"type\":\"assistant\",\"uuid\":\"a-2\"}\n"
        "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":"
        "\"toolu_r1\",\"type\":\"tool_result\",\"content\":\"needle\tcontents\"}]},\"uuid\":"
        "\"u-4\"}\n");
}

struct Home {
    QTemporaryDir directory;
    QString path() const { return directory.path(); }
    QString toolsPath;

    Home()
    {
        installBasicTranscript(path(), QStringLiteral("-home-alice-chat-demo"));
        installSubagentTranscript(path(), QStringLiteral("-home-alice-chat-demo"));
        toolsPath = projectsDirectory(path()) + QStringLiteral("-w/") + toolsSession
            + QStringLiteral(".jsonl");
        writeFile(toolsPath, toolsTranscript());
    }
};

sessionsearch::Result searchIn(const QString &home, const QString &query, const QString &tool = {},
    const QDateTime &since = {})
{
    const ShellOutput output = runInHome(sessionsearch::script(query, tool, since), home);
    sessionsearch::Result result;
    if (output.exitCode != 0 || !sessionsearch::parse(output.out, &result))
        qWarning().noquote() << "search failed:" << output.exitCode << output.out << output.err;
    return result;
}

QStringList hitKeys(const sessionsearch::Result &result)
{
    QStringList keys;
    for (const SessionSearchHit &hit : result.hits)
        keys << QStringLiteral("%1:%2").arg(QFileInfo(hit.path).fileName()).arg(hit.line);
    return keys;
}

SessionSearchHit hitAt(const sessionsearch::Result &result, const QString &fileName, qint64 line)
{
    for (const SessionSearchHit &hit : result.hits) {
        if (QFileInfo(hit.path).fileName() == fileName && hit.line == line)
            return hit;
    }
    return {};
}

} // namespace

class SessionSearchTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void hitsNameTheirSessionTurnAndToolCall();
    void toolResultsAreNamedByTheirCall();
    void subAgentHitsNameTheirAgent();
    void toolOptionKeepsThatToolsLines_data();
    void toolOptionKeepsThatToolsLines();
    void queriesAreSearchedAsJsonAndNeverRun_data();
    void queriesAreSearchedAsJsonAndNeverRun();
    void sinceSkipsOlderFiles();
    void hitsStopAtTheLimit();
    void noTranscriptsNoHits();
    void parserSurvivesHostileOutput();
    void hitsShowHostileTextVisibly();
};

void SessionSearchTest::hitsNameTheirSessionTurnAndToolCall()
{
    Home home;
    const sessionsearch::Result result = searchIn(home.path(), QStringLiteral("ECHO HI"));
    const QString file = basicSessionId + QStringLiteral(".jsonl");
    // Exactly the lines grep finds, in file order, case ignored.
    QCOMPARE(hitKeys(result),
        QStringList({file + QStringLiteral(":1"), file + QStringLiteral(":3"),
            file + QStringLiteral(":15"), file + QStringLiteral(":20"),
            file + QStringLiteral(":21"), file + QStringLiteral(":27")}));
    QVERIFY(!result.truncated);
    QCOMPARE(result.home, QDir(home.path()).canonicalPath());

    const SessionSearchHit queued = hitAt(result, file, 1);
    QCOMPARE(queued.recordType, QStringLiteral("queue-operation"));
    QCOMPARE(queued.turn, 0); // before the first prompt
    QVERIFY(queued.uuid.isEmpty());

    const SessionSearchHit prompt = hitAt(result, file, 3);
    QCOMPARE(prompt.recordType, QStringLiteral("user"));
    QCOMPARE(prompt.uuid, QStringLiteral("f462a40d-305c-4480-b31c-a75b794093ab"));
    QCOMPARE(prompt.turn, 1);
    QVERIFY(prompt.toolUseId.isEmpty() && prompt.toolName.isEmpty());

    const SessionSearchHit call = hitAt(result, file, 20);
    QCOMPARE(call.sessionId, basicSessionId);
    QVERIFY(call.agentId.isEmpty());
    QCOMPARE(call.recordType, QStringLiteral("assistant"));
    QCOMPARE(call.uuid, QStringLiteral("46eceba6-cf40-439f-b820-c1913b679250"));
    QCOMPARE(call.turn, 1);
    QCOMPARE(call.toolUseId, QStringLiteral("toolu_fake_bb49b3d261c34b2c"));
    QCOMPARE(call.toolName, QStringLiteral("Bash"));
    QVERIFY2(
        call.excerpt.contains(QLatin1String("\"command\":\"echo hi\"")), qPrintable(call.excerpt));
    QVERIFY(call.excerpt.size() <= sessionsearch::excerptLimit);
    QCOMPARE(call.path,
        QDir(home.path()).canonicalPath()
            + QStringLiteral("/.claude/projects/-home-alice-chat-demo/") + file);
}

void SessionSearchTest::toolResultsAreNamedByTheirCall()
{
    Home home;
    const sessionsearch::Result result = searchIn(home.path(), QStringLiteral("needle-OUT"));
    const QString file = toolsSession + QStringLiteral(".jsonl");
    QCOMPARE(
        hitKeys(result), QStringList({file + QStringLiteral(":3"), file + QStringLiteral(":4")}));
    const SessionSearchHit call = hitAt(result, file, 3);
    const SessionSearchHit output = hitAt(result, file, 4);
    QCOMPARE(call.toolUseId, QStringLiteral("toolu_b1"));
    QCOMPARE(output.toolUseId, QStringLiteral("toolu_b1"));
    QCOMPARE(output.toolName, QStringLiteral("Bash")); // from the call, earlier in the file
    QCOMPARE(output.recordType, QStringLiteral("user"));
    QCOMPARE(output.uuid, QStringLiteral("u-2"));
    QCOMPARE(call.turn, 1);
    QCOMPARE(output.turn, 1);

    // The second turn's result: a raw tab (invalid JSON) in the excerpt stays one field.
    const sessionsearch::Result second = searchIn(home.path(), QStringLiteral("contents"));
    QCOMPARE(hitKeys(second), QStringList({file + QStringLiteral(":7")}));
    QCOMPARE(second.hits.constFirst().turn, 2);
    QCOMPARE(second.hits.constFirst().toolName, QStringLiteral("Read"));
    QVERIFY2(second.hits.constFirst().excerpt.contains(QLatin1String("needle\\tcontents")),
        qPrintable(second.hits.constFirst().excerpt));
}

void SessionSearchTest::subAgentHitsNameTheirAgent()
{
    Home home;
    const sessionsearch::Result result = searchIn(home.path(), QStringLiteral("echo sub"));
    const QString main = subagentSessionId + QStringLiteral(".jsonl");
    // The session's own lines first, then its sub-agent's.
    QCOMPARE(hitKeys(result),
        QStringList({main + QStringLiteral(":19"), main + QStringLiteral(":23"),
            subagentFileName + QStringLiteral(":1"), subagentFileName + QStringLiteral(":11"),
            subagentFileName + QStringLiteral(":14")}));
    const SessionSearchHit spawn = hitAt(result, main, 19);
    QCOMPARE(spawn.toolName, QStringLiteral("Agent"));
    QCOMPARE(spawn.toolUseId, QStringLiteral("toolu_agent_a3edd37073d24f0d"));
    QCOMPARE(spawn.turn, 1);
    const SessionSearchHit answer = hitAt(result, main, 23);
    QCOMPARE(answer.toolName, QStringLiteral("Agent"));
    QCOMPARE(answer.toolUseId, QStringLiteral("toolu_agent_a3edd37073d24f0d"));

    const SessionSearchHit inside = hitAt(result, subagentFileName, 14);
    QCOMPARE(inside.sessionId, subagentSessionId);
    QCOMPARE(inside.agentId, QStringLiteral("a38aee0b712458458"));
    QCOMPARE(inside.turn, 0);
    QCOMPARE(inside.toolName, QStringLiteral("Bash"));
    QCOMPARE(inside.toolUseId, QStringLiteral("toolu_sub_21e7915f082b4337"));
    QCOMPARE(inside.uuid, QStringLiteral("f0660090-56dc-4dfe-b6fc-5da0ee7297fa"));
    QCOMPARE(hitAt(result, subagentFileName, 1).recordType, QStringLiteral("user"));
    QCOMPARE(hitAt(result, subagentFileName, 11).recordType, QStringLiteral("api-request-blob"));
}

void SessionSearchTest::toolOptionKeepsThatToolsLines_data()
{
    QTest::addColumn<QString>("query");
    QTest::addColumn<QString>("tool");
    QTest::addColumn<QStringList>("lines");
    const QString tools = toolsSession + QStringLiteral(".jsonl:");
    QTest::newRow("every needle") << QStringLiteral("needle") << QString()
                                  << QStringList({tools + QLatin1Char('2'),
                                         tools + QLatin1Char('3'), tools + QLatin1Char('4'),
                                         tools + QLatin1Char('6'), tools + QLatin1Char('7')});
    QTest::newRow("Bash call and result")
        << QStringLiteral("needle") << QStringLiteral("Bash")
        << QStringList({tools + QLatin1Char('3'), tools + QLatin1Char('4')});
    QTest::newRow("Read call and result")
        << QStringLiteral("needle") << QStringLiteral("Read")
        << QStringList({tools + QLatin1Char('6'), tools + QLatin1Char('7')});
    QTest::newRow("tool names are exact")
        << QStringLiteral("needle") << QStringLiteral("bash") << QStringList();
    QTest::newRow("sub-agent calls") << QStringLiteral("echo sub") << QStringLiteral("Bash")
                                     << QStringList({subagentFileName + QStringLiteral(":14")});
    QTest::newRow("the Agent call and its result")
        << QStringLiteral("echo sub") << QStringLiteral("Agent")
        << QStringList({subagentSessionId + QStringLiteral(".jsonl:19"),
               subagentSessionId + QStringLiteral(".jsonl:23")});
}

void SessionSearchTest::toolOptionKeepsThatToolsLines()
{
    QFETCH(QString, query);
    QFETCH(QString, tool);
    QFETCH(QStringList, lines);
    Home home;
    QCOMPARE(hitKeys(searchIn(home.path(), query, tool)), lines);
}

void SessionSearchTest::queriesAreSearchedAsJsonAndNeverRun_data()
{
    QTest::addColumn<QString>("query");
    QTest::addColumn<int>("hits");
    QTest::addColumn<int>("line"); // of the first hit
    QTest::newRow("quotes") << QStringLiteral("say \"hi\"") << 1 << 5;
    QTest::newRow("backslash") << QStringLiteral("\"hi\" \\ $(") << 1 << 5;
    QTest::newRow("command substitution") << QStringLiteral("$(touch pwned)") << 1 << 5;
    QTest::newRow("backticks and variables") << QStringLiteral("`touch pwned` $HOME") << 0 << 0;
    QTest::newRow("single quote") << QStringLiteral("'q'") << 1 << 5;
    QTest::newRow("non-ASCII") << QStringLiteral("ünïcödé") << 1 << 5;
    QTest::newRow("newline") << QStringLiteral("line1\nline2") << 1 << 5;
    QTest::newRow("looks like an option") << QStringLiteral("-out\n") << 1 << 4;
    QTest::newRow("regex characters are plain") << QStringLiteral("n.edle") << 0 << 0;
    QTest::newRow("the JSON form is no literal query") << QStringLiteral("\\\"hi\\\"") << 0 << 0;
}

void SessionSearchTest::queriesAreSearchedAsJsonAndNeverRun()
{
    QFETCH(QString, query);
    QFETCH(int, hits);
    QFETCH(int, line);
    Home home;
    const QString toolsDirectory = QFileInfo(home.toolsPath).path();
    const sessionsearch::Result result = searchIn(home.path(), query);
    QCOMPARE(int(result.hits.size()), hits);
    if (hits > 0) {
        QCOMPARE(QFileInfo(result.hits.constFirst().path).fileName(),
            toolsSession + QStringLiteral(".jsonl"));
        QCOMPARE(result.hits.constFirst().line, qint64(line));
        QCOMPARE(result.hits.constFirst().turn, line == 5 ? 2 : 1);
    }
    // Nothing ran: not in the home, the projects or the test's directory.
    for (const QString &directory : {home.path(), toolsDirectory, QDir::currentPath()})
        QVERIFY(!QFile::exists(directory + QStringLiteral("/pwned")));
}

void SessionSearchTest::sinceSkipsOlderFiles()
{
    Home home;
    const QString agentFile = projectsDirectory(home.path())
        + QStringLiteral("-home-alice-chat-demo/") + subagentSessionId
        + QStringLiteral("/subagents/") + subagentFileName;
    QVERIFY(setModified(agentFile, QDateTime::fromSecsSinceEpoch(1700000000, Qt::UTC)));
    const QDateTime now = QDateTime::currentDateTimeUtc();
    QCOMPARE(
        int(searchIn(home.path(), QStringLiteral("echo sub"), {}, now.addDays(-1)).hits.size()), 2);
    QCOMPARE(
        int(searchIn(home.path(), QStringLiteral("echo sub"), {}, now.addDays(1)).hits.size()), 0);
    QCOMPARE(int(searchIn(home.path(), QStringLiteral("echo sub"), {},
                 QDateTime::fromSecsSinceEpoch(1600000000, Qt::UTC))
                     .hits.size()),
        5);
}

void SessionSearchTest::hitsStopAtTheLimit()
{
    Home home;
    QByteArray many;
    for (int i = 0; i < sessionsearch::maxHits + 100; ++i)
        many += "{\"type\":\"progress\",\"text\":\"repeated marker\"}\n";
    QVERIFY(writeFile(projectsDirectory(home.path()) + QStringLiteral("-w/many.jsonl"), many));
    const sessionsearch::Result result = searchIn(home.path(), QStringLiteral("repeated marker"));
    QCOMPARE(int(result.hits.size()), sessionsearch::maxHits);
    QVERIFY(result.truncated);
    QCOMPARE(result.hits.constLast().line, qint64(sessionsearch::maxHits));
    QVERIFY(!searchIn(home.path(), QStringLiteral("needle")).truncated);
}

void SessionSearchTest::noTranscriptsNoHits()
{
    QTemporaryDir home;
    const ShellOutput output = runInHome(sessionsearch::script(QStringLiteral("x")), home.path());
    QCOMPARE(output.exitCode, 0);
    sessionsearch::Result result;
    QVERIFY2(sessionsearch::parse(output.out, &result), qPrintable(output.out + output.err));
    QVERIFY(result.hits.isEmpty());
    QVERIFY(!result.truncated);
}

void SessionSearchTest::parserSurvivesHostileOutput()
{
    const QString path = QStringLiteral("/home/u/.claude/projects/-d/s\tx.jsonl");
    const QString output
        = QStringLiteral("sudo: noise\r\n"
                         "SANDSCOPE-HOME=/home/u\r\n"
                         "SANDSCOPE-HIT\t7\ts\t\"u-1\"\t3\t\"toolu_1\"\t\"Bash\"\t\"assistant\"\t")
        + QChar(QChar::ReplacementCharacter) + QStringLiteral("x\"cmd\"\t") + path
        + QStringLiteral("\r\n"
                         "SANDSCOPE-HIT\t0\ts\t\t0\t\t\t\t\t/home/u/.claude/projects/-d/s.jsonl\n"
                         "SANDSCOPE-HIT\tx\ts\t\t0\t\t\t\t\t/home/u/.claude/projects/-d/s.jsonl\n"
                         "SANDSCOPE-HIT\t9\ts\t\"cut\\u00\t-4\tplain\t\t\t\t/x/s.txt\n"
                         "SANDSCOPE-HIT\t9\ts\t\"cut\\u00\t-4\tplain\t\t\t\t/x/s.jsonl\n"
                         "SANDSCOPE-HIT\ttoo\tfew\n"
                         "SANDSCOPE-TRUNCATED\r\n");
    sessionsearch::Result result;
    QVERIFY(sessionsearch::parse(output, &result));
    QCOMPARE(result.home, QStringLiteral("/home/u"));
    QVERIFY(result.truncated);
    QCOMPARE(int(result.hits.size()), 2);
    const SessionSearchHit &first = result.hits.at(0);
    QCOMPARE(first.path, path);
    QCOMPARE(first.line, qint64(7));
    QCOMPARE(first.uuid, QStringLiteral("u-1"));
    QCOMPARE(first.turn, 3);
    QCOMPARE(first.toolUseId, QStringLiteral("toolu_1"));
    QCOMPARE(first.toolName, QStringLiteral("Bash"));
    QCOMPARE(first.recordType, QStringLiteral("assistant"));
    QCOMPARE(first.excerpt, QStringLiteral("x\"cmd\"")); // a cut UTF-8 sequence dropped
    const SessionSearchHit &second = result.hits.at(1);
    QCOMPARE(second.uuid, QStringLiteral("cut"));
    QCOMPARE(second.turn, 0);
    QCOMPARE(second.toolUseId, QStringLiteral("plain"));

    QVERIFY(!sessionsearch::parse(QStringLiteral("SANDSCOPE-HIT\t1\n"), &result));
    QVERIFY(result.hits.isEmpty());
}

// The Sessions tab's table shows a title, a tool name and an excerpt that would reorder or
// hide text (U+202E, a tag character) or break the row visibly (issue 27).
void SessionSearchTest::hitsShowHostileTextVisibly()
{
    SessionSearchHit hit;
    hit.sessionId = QStringLiteral("5e55e55e-0000-4000-8000-000000000002");
    hit.toolName = QStringLiteral("mcp__x\x1b[2J");
    hit.recordType = QStringLiteral("assistant");
    hit.excerpt = QStringLiteral("\"file_path\":\"invoice");
    hit.excerpt.append(QChar(0x202e)).append(QStringLiteral("fdp.exe\""));
    hit.excerpt.append(QString::fromUcs4(U"\U000E0041"));
    SessionSearchModel model;
    model.setResult({hit}, false);
    QString title = QStringLiteral("line one\nFAKE ROW");
    title.append(QChar(0x2067));
    model.setTitles({{hit.sessionId, title}});
    const auto shown = [&](int column) {
        return model.index(0, column).data(Qt::DisplayRole).toString();
    };
    QCOMPARE(shown(SessionSearchModel::SessionColumn),
        QStringLiteral("line one<U+000A>FAKE ROW<U+2067>"));
    QCOMPARE(shown(SessionSearchModel::ToolColumn), QStringLiteral("mcp__x<U+001B>[2J"));
    QCOMPARE(shown(SessionSearchModel::MatchColumn),
        QStringLiteral("\"file_path\":\"invoice<U+202E>fdp.exe\"<U+E0041>"));
}

QTEST_GUILESS_MAIN(SessionSearchTest)
#include "tst_sessionsearch.moc"
