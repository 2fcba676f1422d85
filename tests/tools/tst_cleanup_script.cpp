// sandbox/cleanup.sh against fabricated home trees: backdated chat folders and Claude sessions,
// hostile names (newline, quotes, backslash, unicode, shell syntax, invalid UTF-8), symlinks
// pointing outside HOME_ROOT. Paths are handled as raw bytes (POSIX calls) so that names that are
// not valid UTF-8 can be created and compared exactly.

#include "cleanupscriptrun.h"
#include "testing.h"

#include <QDateTime>
#include <QSet>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimeZone>
#include <QtTest>

using namespace sandscope::test::cleanupscript;

namespace {

constexpr qint64 secondsPerDay = 86400;

const QByteArray sessionOld = "11111111-1111-4111-8111-111111111111";
const QByteArray sessionFresh = "22222222-2222-4222-8222-222222222222";
const QByteArray sessionYoungAgent = "33333333-3333-4333-8333-333333333333";
const QByteArray sessionSymlink = "44444444-4444-4444-8444-444444444444";
const QByteArray sessionOrphanDir = "55555555-5555-4555-8555-555555555555";
const QByteArray sessionHostileProject = "66666666-6666-4666-8666-666666666666";
const QByteArray sessionBehindLink = "77777777-7777-4777-8777-777777777777";

const QByteArray bobProject = "bob/.claude/projects/-home-bob-chat-x/";
const QByteArray hostileProject = "bob/.claude/projects/weird\nproj \"x\"/";
const QByteArray hostileChat = "alice/chat-we ird \"quoted\" \\back\nnew line \xc3\xbc \xe6\x97\xa5"
                               "\xe6\x9c\xac $(touch PWNED) `touch PWNED2`";
const QByteArray invalidUtf8Chat = "alice/chat-\xff\xfe"
                                   "bad";

QString invalidUtf8ChatAsJson()
{
    // Documented convention: bytes that are not valid UTF-8 are written as \u00XX.
    return QStringLiteral("alice/chat-") + QChar(0xff) + QChar(0xfe) + QStringLiteral("bad");
}

QString str(const char *utf8)
{
    return QString::fromUtf8(utf8);
}

enum class Change { Grew, Touched, FileAdded, AgentGrew, Deleted, ReplacedBySymlink };

} // namespace

Q_DECLARE_METATYPE(Change)

class CleanupScriptTest : public QObject {
    Q_OBJECT

    qint64 m_now = 0;
    std::unique_ptr<QTemporaryDir> m_dir;
    QByteArray m_top; // holds home/ and outside/
    QByteArray m_root; // HOME_ROOT
    QByteArray m_outside;

    qint64 epochDaysAgo(int days) const { return m_now - days * secondsPerDay - 3600; }
    QString jsonPath(const QByteArray &rel) const { return QString::fromUtf8(m_root + '/' + rel); }

    Settings baseSettings() const
    {
        return {{QStringLiteral("HOME_ROOT"), QString::fromUtf8(m_root)},
            {QStringLiteral("CLEANUP_FORMAT"), QStringLiteral("json")}};
    }
    Run run(Settings settings = {}) const
    {
        const Settings base = baseSettings();
        for (auto it = base.cbegin(); it != base.cend(); ++it) {
            if (!settings.contains(it.key()))
                settings.insert(it.key(), it.value());
        }
        return runCleanup(settings, QString::fromUtf8(m_top));
    }
    QString writePlan(const QList<QByteArray> &lines) const
    {
        const QByteArray path = m_top + "/plan.jsonl";
        writeFile(path, lines.join('\n') + '\n');
        return QString::fromUtf8(path);
    }

    // A fresh tree: see the rows of dryRunClassifiesEachEntry for what each entry is.
    void buildTree()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_dir->setAutoRemove(false);
        m_top = QFileInfo(m_dir->path()).canonicalFilePath().toUtf8();
        m_root = m_top + "/home";
        m_outside = m_top + "/outside";
        const QByteArray r = m_root + '/';

        // Outside HOME_ROOT: symlink targets that must survive everything.
        QVERIFY(writeFile(m_outside + "/secret.txt", "do not delete\n"));
        QVERIFY(writeFile(m_outside + "/old-chat/data.txt", "outside chat\n"));
        QVERIFY(writeFile(m_outside + "/fake-home/chat-old/x.txt", "fake home\n"));
        QVERIFY(
            writeFile(m_outside + "/claude/projects/p/" + sessionBehindLink + ".jsonl", "{}\n"));
        setTreeTime(m_outside, epochDaysAgo(400));

        QVERIFY(writeFile(r + "alice/chat-old/notes.txt", "hello\n"));
        QVERIFY(writeFile(r + "alice/chat-old/sub/deep.txt", QByteArray(5000, 'x')));
        QVERIFY(makeSymlink(m_outside + "/secret.txt", r + "alice/chat-old/link-out"));
        QVERIFY(makeSymlink(m_outside + "/old-chat", r + "alice/chat-old/sub/dir-link-out"));
        setTreeTime(r + "alice/chat-old", epochDaysAgo(100));

        QVERIFY(writeFile(r + "alice/chat-recent/old.txt", "old\n"));
        QVERIFY(writeFile(r + "alice/chat-recent/nested/new.txt", "new\n"));
        setTreeTime(r + "alice/chat-recent", epochDaysAgo(100));
        setTreeTime(r + "alice/chat-recent/nested/new.txt", epochDaysAgo(3));

        QVERIFY(writeFile(r + "alice/chat-idle-40/a.txt", "a\n"));
        setTreeTime(r + "alice/chat-idle-40", epochDaysAgo(40));

        QVERIFY(makeSymlink(m_outside + "/old-chat", r + "alice/chat-link"));
        setTreeTime(r + "alice/chat-link", epochDaysAgo(100));
        QVERIFY(writeFile(r + "alice/chat-file", "not a folder\n"));
        setTreeTime(r + "alice/chat-file", epochDaysAgo(100));
        QVERIFY(writeFile(r + "alice/notes/old.txt", "not a chat\n"));
        setTreeTime(r + "alice/notes", epochDaysAgo(100));

        QVERIFY(writeFile(r + hostileChat + "/x \"y\"\n.txt", "hostile\n"));
        setTreeTime(r + hostileChat, epochDaysAgo(100));
        QVERIFY(writeFile(r + invalidUtf8Chat + "/f\xff.txt", "bytes\n"));
        setTreeTime(r + invalidUtf8Chat, epochDaysAgo(100));

        const QByteArray p = r + bobProject;
        QVERIFY(writeFile(p + sessionOld + ".jsonl", "{\"type\":\"user\"}\n"));
        QVERIFY(writeFile(p + sessionOld + "/subagents/agent-a.jsonl", "{\"a\":1}\n"));
        QVERIFY(writeFile(p + sessionOld + "/subagents/agent-a.meta.json", "{}\n"));
        setTreeTime(p + sessionOld + ".jsonl", epochDaysAgo(200));
        setTreeTime(p + sessionOld, epochDaysAgo(200));
        QVERIFY(writeFile(p + sessionFresh + ".jsonl", "{}\n"));
        setTreeTime(p + sessionFresh + ".jsonl", epochDaysAgo(10));
        QVERIFY(writeFile(p + sessionYoungAgent + ".jsonl", "{}\n"));
        QVERIFY(writeFile(p + sessionYoungAgent + "/subagents/agent-b.jsonl", "{}\n"));
        setTreeTime(p + sessionYoungAgent + ".jsonl", epochDaysAgo(200));
        setTreeTime(p + sessionYoungAgent, epochDaysAgo(200));
        setTreeTime(p + sessionYoungAgent + "/subagents/agent-b.jsonl", epochDaysAgo(5));
        QVERIFY(makeSymlink(m_outside + "/secret.txt", p + sessionSymlink + ".jsonl"));
        setTreeTime(p + sessionSymlink + ".jsonl", epochDaysAgo(200));
        QVERIFY(writeFile(p + sessionOrphanDir + "/subagents/agent-c.jsonl", "{}\n"));
        setTreeTime(p + sessionOrphanDir, epochDaysAgo(200));
        QVERIFY(writeFile(p + "notes.jsonl", "{}\n"));
        setTreeTime(p + "notes.jsonl", epochDaysAgo(200));
        QVERIFY(writeFile(r + "bob/.claude/projects/-home-bob-chat-x/memory/MEMORY.md", "m\n"));
        setTreeTime(r + "bob/.claude/projects/-home-bob-chat-x/memory", epochDaysAgo(200));
        QVERIFY(writeFile(r + hostileProject + sessionHostileProject + ".jsonl", "{}\n"));
        setTreeTime(r + hostileProject + sessionHostileProject + ".jsonl", epochDaysAgo(200));

        QVERIFY(makeSymlink(m_outside + "/fake-home", r + "carol"));
        setTreeTime(r + "carol", epochDaysAgo(100));
        QVERIFY(makeSymlink(m_outside + "/claude", r + "dave \xc3\xbc/.claude"));
        setTreeTime(r + "dave \xc3\xbc/.claude", epochDaysAgo(100));
    }

    // Runs a dry run and returns its JSON lines, to be used as a plan.
    QList<QByteArray> dryRunLines()
    {
        const Run dry = run();
        if (dry.exitCode != 0)
            qWarning("%s", diagnostics(dry).constData());
        return dry.out.split('\n');
    }

    void requireDeletePrivileges()
    {
        if (isRoot())
            return;
        if (sandscope::test::runningInCi())
            QFAIL("deleting other users' files needs root; CI runs as root");
        QSKIP("deleting needs root (the script re-executes through sudo otherwise)");
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(QFileInfo::exists(scriptPath()), qPrintable(scriptPath()));
        m_now = QDateTime::currentSecsSinceEpoch();
    }

    void init() { buildTree(); }

    void cleanup()
    {
        if (!m_top.isEmpty())
            removeTree(m_top);
        m_top.clear();
    }

    void dryRunClassifiesEachEntry_data()
    {
        QTest::addColumn<QByteArray>("relativePath");
        QTest::addColumn<QString>("jsonRelativePath");
        QTest::addColumn<QString>("action");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("user");
        QTest::addColumn<int>("ageDays");
        QTest::addColumn<QByteArray>("sessionDir"); // relative, "" = null, "-" = not a session

        const auto row = [](const char *name, const QByteArray &rel, const char *action,
                             const char *kind, const QString &user, int age,
                             const QByteArray &sessionDir = "-") {
            QTest::newRow(name) << rel << QString::fromUtf8(rel) << QString::fromLatin1(action)
                                << QString::fromLatin1(kind) << user << age << sessionDir;
        };
        const QString alice = QStringLiteral("alice");
        const QString bob = QStringLiteral("bob");
        row("expired chat", "alice/chat-old", "delete", "chat", alice, 100);
        row("chat kept by its newest file", "alice/chat-recent", "keep", "chat", alice, 3);
        row("chat just past the default TTL", "alice/chat-idle-40", "delete", "chat", alice, 40);
        row("symlinked chat is only reported", "alice/chat-link", "report", "other", alice, 100);
        row("chat-* file is only reported", "alice/chat-file", "report", "other", alice, 100);
        row("hostile chat name", hostileChat, "delete", "chat", alice, 100);
        QTest::newRow("invalid UTF-8 chat name")
            << invalidUtf8Chat << invalidUtf8ChatAsJson() << QStringLiteral("delete")
            << QStringLiteral("chat") << alice << 100 << QByteArray("-");
        row("expired session with sub-agents", bobProject + sessionOld + ".jsonl", "delete",
            "session", bob, 200, bobProject + sessionOld);
        row("fresh session", bobProject + sessionFresh + ".jsonl", "keep", "session", bob, 10, "");
        row("session kept by a young sub-agent", bobProject + sessionYoungAgent + ".jsonl", "keep",
            "session", bob, 5, bobProject + sessionYoungAgent);
        row("symlinked transcript is only reported", bobProject + sessionSymlink + ".jsonl",
            "report", "other", bob, 200);
        row("session folder without transcript", bobProject + sessionOrphanDir, "report", "other",
            bob, 200);
        row("transcript without a session id", bobProject + "notes.jsonl", "report", "other", bob,
            200);
        row("session in a hostile project name", hostileProject + sessionHostileProject + ".jsonl",
            "delete", "session", bob, 200, "");
        row("symlinked home", "carol", "report", "other", QStringLiteral("carol"), 100);
        row("symlinked .claude", "dave \xc3\xbc/.claude", "report", "other",
            QStringLiteral("dave ") + QChar(0xfc), 100);
    }

    void dryRunClassifiesEachEntry()
    {
        QFETCH(QByteArray, relativePath);
        QFETCH(QString, jsonRelativePath);
        QFETCH(QString, action);
        QFETCH(QString, kind);
        QFETCH(QString, user);
        QFETCH(int, ageDays);
        QFETCH(QByteArray, sessionDir);

        const Run dry = run();
        QVERIFY2(dry.exitCode == 0, diagnostics(dry).constData());
        QVERIFY2(dry.badLines.isEmpty(), dry.badLines.join('\n').constData());
        const QJsonObject item
            = dry.itemFor(QString::fromUtf8(m_root) + QLatin1Char('/') + jsonRelativePath);
        QVERIFY2(!item.isEmpty(), dry.out.constData());

        QCOMPARE(item.value(QLatin1String("action")).toString(), action);
        QCOMPARE(item.value(QLatin1String("kind")).toString(), kind);
        QCOMPARE(item.value(QLatin1String("user")).toString(), user);
        QCOMPARE(item.value(QLatin1String("age_days")).toInt(), ageDays);
        const qint64 expectedEpoch = epochDaysAgo(ageDays);
        QCOMPARE(
            qint64(item.value(QLatin1String("last_activity_epoch")).toDouble()), expectedEpoch);
        const QString lastActivity = item.value(QLatin1String("last_activity")).toString();
        QVERIFY2(lastActivity.endsWith(QLatin1Char('Z')), qPrintable(lastActivity));
        QCOMPARE(
            QDateTime::fromString(lastActivity, Qt::ISODate).toSecsSinceEpoch(), expectedEpoch);
        QVERIFY(!item.value(QLatin1String("reason")).toString().isEmpty());

        const QByteArray absolute = m_root + '/' + relativePath;
        qint64 expectedBytes = treeBytes(absolute);
        if (kind == QLatin1String("session") && !sessionDir.isEmpty())
            expectedBytes += treeBytes(m_root + '/' + sessionDir);
        QCOMPARE(qint64(item.value(QLatin1String("bytes")).toDouble()), expectedBytes);

        if (sessionDir == "-") {
            QVERIFY(!item.contains(QLatin1String("session_dir")));
        } else if (sessionDir.isEmpty()) {
            QVERIFY(item.value(QLatin1String("session_dir")).isNull());
        } else {
            QCOMPARE(item.value(QLatin1String("session_dir")).toString(), jsonPath(sessionDir));
            const QByteArray fileName = relativePath.mid(relativePath.lastIndexOf('/') + 1);
            QCOMPARE(item.value(QLatin1String("session_id")).toString(),
                QString::fromLatin1(fileName.left(fileName.size() - 6)));
            QCOMPARE(item.value(QLatin1String("project")).toString(),
                QStringLiteral("-home-bob-chat-x"));
        }
    }

    void dryRunListsNothingElseAndSummarises()
    {
        const Run dry = run();
        QVERIFY2(dry.exitCode == 0, diagnostics(dry).constData());
        QVERIFY2(dry.badLines.isEmpty(), dry.badLines.join('\n').constData());
        // Exactly the rows of dryRunClassifiesEachEntry: nothing under notes/, memory/, or
        // behind the symlinks is listed.
        QCOMPARE(dry.items.size(), 16);
        for (const QJsonObject &item : dry.items) {
            const QString path = item.value(QLatin1String("path")).toString();
            QVERIFY2(
                path.startsWith(QString::fromUtf8(m_root) + QLatin1Char('/')), qPrintable(path));
            QVERIFY2(
                !path.contains(QLatin1String("/notes/")) && !path.contains(QLatin1String("memory")),
                qPrintable(path));
        }

        const QJsonObject &summary = dry.summary;
        QCOMPARE(summary.value(QLatin1String("mode")).toString(), QStringLiteral("dry-run"));
        QCOMPARE(summary.value(QLatin1String("home_root")).toString(), QString::fromUtf8(m_root));
        QCOMPARE(summary.value(QLatin1String("chat_ttl_days")).toInt(), 30);
        QCOMPARE(summary.value(QLatin1String("session_ttl_days")).toInt(), 90);
        QMap<QString, qint64> counts, bytes;
        for (const QJsonObject &item : dry.items) {
            const QString key = item.value(QLatin1String("kind")).toString() + QLatin1Char('_')
                + item.value(QLatin1String("action")).toString();
            counts[key] += 1;
            bytes[key] += qint64(item.value(QLatin1String("bytes")).toDouble());
        }
        QCOMPARE(counts.value(QStringLiteral("chat_delete")), 4);
        QCOMPARE(counts.value(QStringLiteral("chat_keep")), 1);
        QCOMPARE(counts.value(QStringLiteral("session_delete")), 2);
        QCOMPARE(counts.value(QStringLiteral("session_keep")), 2);
        QCOMPARE(counts.value(QStringLiteral("other_report")), 7);
        for (const QString &key : counts.keys()) {
            QCOMPARE(qint64(summary.value(key).toDouble()), counts.value(key));
            QCOMPARE(
                qint64(summary.value(key + QStringLiteral("_bytes")).toDouble()), bytes.value(key));
        }
        QCOMPARE(summary.value(QLatin1String("deleted")).toInt(), 0);
    }

    void dryRunLeavesEveryByteUntouched_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("dryRunValue"); // "<unset>" leaves the variable out
        for (const char *format : {"json", "text"}) {
            for (const char *value :
                {"<unset>", "true", "", "False", "FALSE", "0", "no", " false", "false ", "yes"}) {
                QTest::addRow("%s, CLEANUP_DRY_RUN='%s'", format, value)
                    << QString::fromLatin1(format) << QString::fromLatin1(value);
            }
        }
    }

    void dryRunLeavesEveryByteUntouched()
    {
        QFETCH(QString, format);
        QFETCH(QString, dryRunValue);
        const Snapshot before = snapshot(m_top);
        Settings settings {{QStringLiteral("CLEANUP_FORMAT"), format}};
        if (dryRunValue != QLatin1String("<unset>"))
            settings.insert(QStringLiteral("CLEANUP_DRY_RUN"), dryRunValue);
        const Run dry = run(settings);
        QVERIFY2(dry.exitCode == 0, diagnostics(dry).constData());
        if (format == QLatin1String("json")) {
            QCOMPARE(
                dry.summary.value(QLatin1String("mode")).toString(), QStringLiteral("dry-run"));
            QVERIFY(!dry.pathsWith(QStringLiteral("action"), QStringLiteral("delete")).isEmpty());
        } else {
            QVERIFY2(dry.out.contains("Dry run: nothing was changed"), dry.out.constData());
        }
        const Snapshot after = snapshot(m_top);
        QVERIFY2(before == after, describeDifference(before, after).constData());
    }

    void textFormatPrintsOneLinePerItem()
    {
        const Run json = run();
        const Run text = run({{QStringLiteral("CLEANUP_FORMAT"), QStringLiteral("text")}});
        QVERIFY2(text.exitCode == 0, diagnostics(text).constData());
        const QList<QByteArray> lines = text.out.split('\n');
        qsizetype itemLines = 0;
        for (const QByteArray &line : lines) {
            if (line.startsWith("DELETE ") || line.startsWith("KEEP ")
                || line.startsWith("REPORT "))
                ++itemLines;
        }
        QCOMPARE(itemLines, json.items.size());
        // The newline in the hostile name is shown escaped instead of breaking the line.
        QVERIFY2(text.out.contains("chat-we ird \\\"quoted\\\" \\\\back\\nnew line"),
            text.out.constData());
        QVERIFY(text.out.contains("Summary (dry-run"));
        QVERIFY(text.out.contains("chat:    4 to delete"));
    }

    void ttlSettingsDecideWhatExpires_data()
    {
        QTest::addColumn<QString>("chatTtl"); // "" = unset (default 30)
        QTest::addColumn<QString>("sessionTtl"); // "" = unset (default 90)
        QTest::addColumn<QByteArray>("relativePath");
        QTest::addColumn<QString>("action");

        const QByteArray old = bobProject + sessionOld + ".jsonl";
        const QByteArray fresh = bobProject + sessionFresh + ".jsonl";
        QTest::newRow("100-day chat, default TTL")
            << str("") << str("") << QByteArray("alice/chat-old") << str("delete");
        QTest::newRow("100-day chat, TTL 99")
            << str("99") << str("") << QByteArray("alice/chat-old") << str("delete");
        QTest::newRow("100-day chat, TTL 101")
            << str("101") << str("") << QByteArray("alice/chat-old") << str("keep");
        QTest::newRow("40-day chat, TTL 45")
            << str("45") << str("") << QByteArray("alice/chat-idle-40") << str("keep");
        QTest::newRow("3-day chat, TTL 0")
            << str("0") << str("") << QByteArray("alice/chat-recent") << str("delete");
        QTest::newRow("3-day chat, TTL 007")
            << str("007") << str("") << QByteArray("alice/chat-recent") << str("keep");
        QTest::newRow("chat TTL leaves sessions alone")
            << str("0") << str("") << fresh << str("keep");
        QTest::newRow("200-day session, default TTL") << str("") << str("") << old << str("delete");
        QTest::newRow("200-day session, TTL 250") << str("") << str("250") << old << str("keep");
        QTest::newRow("10-day session, TTL 9") << str("") << str("9") << fresh << str("delete");
        QTest::newRow("session TTL leaves chats alone")
            << str("") << str("0") << QByteArray("alice/chat-recent") << str("keep");
    }

    void ttlSettingsDecideWhatExpires()
    {
        QFETCH(QString, chatTtl);
        QFETCH(QString, sessionTtl);
        QFETCH(QByteArray, relativePath);
        QFETCH(QString, action);
        Settings settings;
        if (!chatTtl.isEmpty())
            settings.insert(QStringLiteral("CHAT_TTL_DAYS"), chatTtl);
        if (!sessionTtl.isEmpty())
            settings.insert(QStringLiteral("SESSION_TTL_DAYS"), sessionTtl);
        const Run dry = run(settings);
        QVERIFY2(dry.exitCode == 0, diagnostics(dry).constData());
        const QJsonObject item = dry.itemFor(jsonPath(relativePath));
        QVERIFY2(!item.isEmpty(), dry.out.constData());
        QCOMPARE(item.value(QLatin1String("action")).toString(), action);
    }

    void invalidSettingsAreRejectedBeforeAnything_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("value");
        QTest::newRow("TTL not a number") << str("CHAT_TTL_DAYS") << str("abc");
        QTest::newRow("negative TTL") << str("CHAT_TTL_DAYS") << str("-1");
        QTest::newRow("fractional TTL") << str("SESSION_TTL_DAYS") << str("1.5");
        QTest::newRow("TTL with shell syntax")
            << str("SESSION_TTL_DAYS") << str("a[$(touch PWNED)]");
        QTest::newRow("unknown format") << str("CLEANUP_FORMAT") << str("xml");
        QTest::newRow("relative home root") << str("HOME_ROOT") << str("home");
        QTest::newRow("missing home root")
            << str("HOME_ROOT") << str("/nonexistent-sandscope-home");
        QTest::newRow("empty home root") << str("HOME_ROOT") << str("");
        QTest::newRow("empty plan path") << str("CLEANUP_PLAN") << str("");
        QTest::newRow("missing plan")
            << str("CLEANUP_PLAN") << str("/nonexistent-sandscope-plan.jsonl");
    }

    void invalidSettingsAreRejectedBeforeAnything()
    {
        QFETCH(QString, name);
        QFETCH(QString, value);
        const Snapshot before = snapshot(m_top);
        const Run rejected
            = run({{QStringLiteral("CLEANUP_DRY_RUN"), QStringLiteral("false")}, {name, value}});
        QCOMPARE(rejected.exitCode, 2);
        QVERIFY2(rejected.err.contains(name.toUtf8()), rejected.err.constData());
        QVERIFY(rejected.out.isEmpty());
        const Snapshot after = snapshot(m_top);
        QVERIFY2(before == after, describeDifference(before, after).constData());
    }

    void executingAPlanDeletesExactlyThePlannedItems()
    {
        requireDeletePrivileges();
        // The reviewer drops one delete line: that chat must survive although it is expired.
        QList<QByteArray> plan;
        QSet<QString> planned;
        QStringList plannedSessionDirs;
        for (const QByteArray &line : dryRunLines()) {
            const QJsonObject item = QJsonDocument::fromJson(line).object();
            const QString path = item.value(QLatin1String("path")).toString();
            if (path == jsonPath("alice/chat-idle-40"))
                continue;
            plan.append(line);
            if (item.value(QLatin1String("action")).toString() == QLatin1String("delete")) {
                planned.insert(path);
                if (item.value(QLatin1String("session_dir")).isString())
                    plannedSessionDirs.append(item.value(QLatin1String("session_dir")).toString());
            }
        }
        QCOMPARE(planned.size(), 5);

        const QString planPath = writePlan(plan);
        const Snapshot before = snapshot(m_top, false);
        const Run executed = run({{QStringLiteral("CLEANUP_PLAN"), planPath},
            {QStringLiteral("CLEANUP_DRY_RUN"), QStringLiteral("false")}});
        QVERIFY2(executed.exitCode == 0, diagnostics(executed).constData());
        QVERIFY2(executed.badLines.isEmpty(), executed.badLines.join('\n').constData());
        QCOMPARE(
            executed.summary.value(QLatin1String("mode")).toString(), QStringLiteral("execute"));
        QCOMPARE(executed.summary.value(QLatin1String("deleted")).toInt(), planned.size());

        QSet<QString> reported;
        for (const QJsonObject &item : executed.items) {
            reported.insert(item.value(QLatin1String("path")).toString());
            QCOMPARE(item.value(QLatin1String("outcome")).toString(), QStringLiteral("deleted"));
        }
        QCOMPARE(reported, planned);

        // Every entry except the planned items (and, for sessions, their folders) is unchanged,
        // including the symlink targets outside HOME_ROOT.
        QStringList removed = planned.values() + plannedSessionDirs;
        Snapshot expected = before;
        for (auto it = expected.begin(); it != expected.end();) {
            const QString path = QFile::decodeName(it.key());
            bool gone = false;
            for (const QString &r : removed)
                gone = gone || path == r || path.startsWith(r + QLatin1Char('/'));
            // The one invalid UTF-8 name does not survive decodeName; match it by its bytes.
            gone = gone || it.key().startsWith(QByteArray(m_root + '/' + invalidUtf8Chat));
            it = gone ? expected.erase(it) : std::next(it);
        }
        QCOMPARE(expected.size(), before.size() - 16);
        const Snapshot after = snapshot(m_top, false);
        QVERIFY2(expected == after, describeDifference(expected, after).constData());
        QVERIFY(exists(m_root + "/alice/chat-idle-40"));
        QVERIFY(exists(m_outside + "/secret.txt"));
        QVERIFY(exists(m_outside + "/old-chat/data.txt"));
    }

    void changedItemIsSkipped_data()
    {
        QTest::addColumn<Change>("change");
        QTest::addColumn<QByteArray>("relativePath");
        QTest::addColumn<QString>("outcome");
        QTest::addColumn<bool>("stillThere");
        QTest::newRow("a file grew, same mtime")
            << Change::Grew << QByteArray("alice/chat-old") << str("skipped-changed") << true;
        QTest::newRow("a file was touched, same size")
            << Change::Touched << QByteArray("alice/chat-old") << str("skipped-changed") << true;
        QTest::newRow("a file was added")
            << Change::FileAdded << QByteArray("alice/chat-old") << str("skipped-changed") << true;
        QTest::newRow("a sub-agent file grew")
            << Change::AgentGrew << bobProject + sessionOld + ".jsonl" << str("skipped-changed")
            << true;
        QTest::newRow("deleted meanwhile")
            << Change::Deleted << QByteArray("alice/chat-old") << str("skipped-changed") << false;
        QTest::newRow("replaced by a symlink to outside")
            << Change::ReplacedBySymlink << QByteArray("alice/chat-old") << str("refused") << true;
    }

    void changedItemIsSkipped()
    {
        QFETCH(Change, change);
        QFETCH(QByteArray, relativePath);
        QFETCH(QString, outcome);
        QFETCH(bool, stillThere);
        requireDeletePrivileges();
        const QString planPath = writePlan(dryRunLines());

        const QByteArray chat = m_root + "/alice/chat-old";
        const qint64 oldEpoch = epochDaysAgo(100);
        switch (change) {
        case Change::Grew:
            QVERIFY(writeFile(chat + "/notes.txt", "more\n", true));
            setTreeTime(chat, oldEpoch);
            break;
        case Change::Touched:
            setTreeTime(chat + "/sub/deep.txt", oldEpoch + 60);
            break;
        case Change::FileAdded:
            QVERIFY(writeFile(chat + "/new.txt", "new\n"));
            setTreeTime(chat, oldEpoch);
            break;
        case Change::AgentGrew: {
            const QByteArray agent
                = m_root + '/' + bobProject + sessionOld + "/subagents/agent-a.jsonl";
            QVERIFY(writeFile(agent, "{}\n", true));
            setTreeTime(agent, epochDaysAgo(200));
            break;
        }
        case Change::Deleted:
            QVERIFY(QProcess::execute(
                        QStringLiteral("rm"), {QStringLiteral("-rf"), QString::fromUtf8(chat)})
                == 0);
            break;
        case Change::ReplacedBySymlink:
            QVERIFY(
                ::rename(chat.constData(), QByteArray(m_outside + "/moved-chat").constData()) == 0);
            QVERIFY(makeSymlink(m_outside + "/moved-chat", chat));
            break;
        }
        const Snapshot outsideBefore = snapshot(m_outside);

        const Run executed = run({{QStringLiteral("CLEANUP_PLAN"), planPath},
            {QStringLiteral("CLEANUP_DRY_RUN"), QStringLiteral("false")}});
        QCOMPARE(executed.exitCode, 4); // finished, but not everything planned was deleted
        const QJsonObject item = executed.itemFor(jsonPath(relativePath));
        QCOMPARE(item.value(QLatin1String("outcome")).toString(), outcome);
        QVERIFY(!item.value(QLatin1String("message")).toString().isEmpty());
        QCOMPARE(exists(m_root + '/' + relativePath), stillThere);
        QCOMPARE(executed.summary.value(QLatin1String("deleted")).toInt(), 5);
        for (const QJsonObject &other : executed.items) {
            if (other != item)
                QCOMPARE(
                    other.value(QLatin1String("outcome")).toString(), QStringLiteral("deleted"));
        }
        const Snapshot outsideAfter = snapshot(m_outside);
        QVERIFY2(outsideBefore == outsideAfter,
            describeDifference(outsideBefore, outsideAfter).constData());
    }

    void checkingAPlanChangesNothing()
    {
        const QString planPath = writePlan(dryRunLines());
        QVERIFY(writeFile(m_root + "/alice/chat-old/notes.txt", "more\n", true));
        const Snapshot before = snapshot(m_top);
        const Run checked = run({{QStringLiteral("CLEANUP_PLAN"), planPath}});
        QCOMPARE(checked.exitCode, 4);
        QCOMPARE(
            checked.summary.value(QLatin1String("mode")).toString(), QStringLiteral("check-plan"));
        QCOMPARE(checked.summary.value(QLatin1String("would_delete")).toInt(), 5);
        QCOMPARE(checked.summary.value(QLatin1String("skipped_changed")).toInt(), 1);
        const QJsonObject changed = checked.itemFor(jsonPath("alice/chat-old"));
        QCOMPARE(qint64(changed.value(QLatin1String("current_bytes")).toDouble()),
            qint64(changed.value(QLatin1String("bytes")).toDouble()) + 5);
        const Snapshot after = snapshot(m_top);
        QVERIFY2(before == after, describeDifference(before, after).constData());
    }

    void tamperedPlanItemsAreRefused_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("user");
        QTest::addColumn<QByteArray>("path"); // relative to the temporary folder above HOME_ROOT

        QTest::newRow("outside HOME_ROOT")
            << str("chat") << str("alice") << QByteArray("outside/old-chat");
        QTest::newRow("dot-dot escape") << str(
            "chat") << str("alice") << QByteArray("home/alice/chat-old/../../../outside/old-chat");
        QTest::newRow("another user's path")
            << str("chat") << str("bob") << QByteArray("home/alice/chat-old");
        QTest::newRow("user is dot-dot")
            << str("chat") << str("..") << QByteArray("home/../outside/old-chat");
        QTest::newRow("a home itself") << str("chat") << str("alice") << QByteArray("home/alice");
        QTest::newRow("not a chat-* folder")
            << str("chat") << str("alice") << QByteArray("home/alice/notes");
        QTest::newRow("kind other")
            << str("other") << str("alice") << QByteArray("home/alice/chat-file");
        QTest::newRow("symlinked chat")
            << str("chat") << str("alice") << QByteArray("home/alice/chat-link");
        QTest::newRow("symlinked transcript")
            << str("session") << str("bob") << "home/" + bobProject + sessionSymlink + ".jsonl";
        QTest::newRow("transcript without a session id")
            << str("session") << str("bob") << "home/" + bobProject + "notes.jsonl";
        QTest::newRow("session behind a symlinked home")
            << str("session") << str("carol")
            << "home/carol/.claude/projects/p/" + sessionBehindLink + ".jsonl";
        QTest::newRow("session behind a symlinked .claude")
            << str("session") << str("dave \xc3\xbc")
            << "home/dave \xc3\xbc/.claude/projects/p/" + sessionBehindLink + ".jsonl";
    }

    void tamperedPlanItemsAreRefused()
    {
        QFETCH(QString, kind);
        QFETCH(QString, user);
        QFETCH(QByteArray, path);
        requireDeletePrivileges();
        const QByteArray absolute = m_top + '/' + path;
        // The item carries the real size and time, so only the pattern checks can refuse it.
        struct stat st { };
        ::lstat(absolute.constData(), &st);
        QJsonObject item {{QStringLiteral("action"), QStringLiteral("delete")},
            {QStringLiteral("kind"), kind}, {QStringLiteral("user"), user},
            {QStringLiteral("path"), QString::fromUtf8(absolute)},
            {QStringLiteral("identity"), identityOf(absolute)},
            {QStringLiteral("bytes"), double(treeBytes(absolute))},
            {QStringLiteral("last_activity_epoch"), double(st.st_mtim.tv_sec)},
            {QStringLiteral("reason"), QStringLiteral("tampered")}};
        const QString planPath = writePlan({QJsonDocument(item).toJson(QJsonDocument::Compact)});

        const Snapshot before = snapshot(m_top);
        const Run executed = run({{QStringLiteral("CLEANUP_PLAN"), planPath},
            {QStringLiteral("CLEANUP_DRY_RUN"), QStringLiteral("false")}});
        QCOMPARE(executed.exitCode, 4);
        QCOMPARE(executed.items.size(), 1);
        QCOMPARE(executed.items.first().value(QLatin1String("outcome")).toString(),
            QStringLiteral("refused"));
        const Snapshot after = snapshot(m_top);
        QVERIFY2(before == after, describeDifference(before, after).constData());
    }

    void malformedPlanIsRejectedBeforeAnyDeletion_data()
    {
        QTest::addColumn<QByteArray>("badLine");
        QTest::newRow("not JSON") << QByteArray("delete everything");
        QTest::newRow("nested value") << QByteArray("{\"action\":\"delete\",\"x\":{\"a\":1}}");
        QTest::newRow("bytes as a string") << QByteArray(
            "{\"action\":\"delete\",\"kind\":\"chat\",\"user\":\"alice\","
            "\"path\":\"/x\",\"bytes\":\"1\",\"last_activity_epoch\":1,\"reason\":\"\"}");
        QTest::newRow("missing path")
            << QByteArray("{\"action\":\"delete\",\"kind\":\"chat\",\"user\":\"alice\","
                          "\"bytes\":1,\"last_activity_epoch\":1,\"reason\":\"\"}");
        QTest::newRow("arithmetic in a number")
            << QByteArray("{\"action\":\"delete\",\"kind\":\"chat\",\"user\":\"alice\",\"path\":"
                          "\"/x\",\"bytes\":1e3,\"last_activity_epoch\":1,\"reason\":\"\"}");
        QTest::newRow("bad escape") << QByteArray("{\"action\":\"delete\",\"path\":\"\\x41\"}");
        QTest::newRow("unterminated") << QByteArray("{\"action\":\"delete\",\"path\":\"/x");
        // What a strict JSON parser rejects is rejected, even where bash would have read it.
        const QByteArray item = "{\"action\":\"delete\",\"kind\":\"chat\",\"user\":\"alice\","
                                "\"path\":\"PATH\",\"bytes\":1,\"last_activity_epoch\":1,"
                                "\"reason\":\"\",\"identity\":\"1:2:2f78\"}";
        QTest::newRow("raw TAB in a string") << QByteArray(item).replace("PATH", "/x\ty");
        QTest::newRow("NUL byte in a string")
            << QByteArray(item).replace("PATH", QByteArray("/home/alice/chat-\0old", 20));
        QTest::newRow("raw byte that is not UTF-8") << QByteArray(item).replace("PATH", "/x\xff");
        QTest::newRow("name twice")
            << QByteArray(item).replace("\"bytes\":1", "\"bytes\":1,\"bytes\":2");
        QTest::newRow("18-digit number")
            << QByteArray(item).replace("\"bytes\":1", "\"bytes\":999999999999999999");
        QTest::newRow("leading zero") << QByteArray(item).replace("\"bytes\":1", "\"bytes\":01");
        QTest::newRow("unpaired surrogate") << QByteArray(item).replace("PATH", "/x\\ud800");
        QTest::newRow("delete item without identity")
            << QByteArray(item).replace(",\"identity\":\"1:2:2f78\"", "");
    }

    void malformedPlanIsRejectedBeforeAnyDeletion()
    {
        QFETCH(QByteArray, badLine);
        requireDeletePrivileges();
        QList<QByteArray> plan = dryRunLines();
        plan.append(badLine); // after valid delete lines: those must not run either
        const QString planPath = writePlan(plan);
        const Snapshot before = snapshot(m_top);
        const Run executed = run({{QStringLiteral("CLEANUP_PLAN"), planPath},
            {QStringLiteral("CLEANUP_DRY_RUN"), QStringLiteral("false")}});
        QCOMPARE(executed.exitCode, 2);
        QVERIFY2(executed.err.contains("not a valid plan"), executed.err.constData());
        QVERIFY(executed.out.isEmpty());
        const Snapshot after = snapshot(m_top);
        QVERIFY2(before == after, describeDifference(before, after).constData());
    }

    void executingWithoutAPlanDeletesWhatADryRunLists()
    {
        requireDeletePrivileges();
        const Run dry = run();
        const QStringList toDelete
            = dry.pathsWith(QStringLiteral("action"), QStringLiteral("delete"));
        QCOMPARE(toDelete.size(), 6);
        const Snapshot outsideBefore = snapshot(m_outside);

        const Run executed = run({{QStringLiteral("CLEANUP_DRY_RUN"), QStringLiteral("false")}});
        QVERIFY2(executed.exitCode == 0, diagnostics(executed).constData());
        QCOMPARE(
            executed.pathsWith(QStringLiteral("outcome"), QStringLiteral("deleted")), toDelete);
        QCOMPARE(executed.items.size(), dry.items.size());
        for (const QJsonObject &item : executed.items) {
            const QString path = item.value(QLatin1String("path")).toString();
            const bool deleted = toDelete.contains(path);
            if (path == QString::fromUtf8(m_root) + QLatin1Char('/') + invalidUtf8ChatAsJson())
                QVERIFY(!exists(m_root + '/' + invalidUtf8Chat));
            else
                QCOMPARE(QFileInfo::exists(path) || QFileInfo(path).isSymLink(), !deleted);
        }
        QVERIFY(!exists(m_root + '/' + bobProject + sessionOld));
        QVERIFY(exists(m_root + '/' + bobProject + sessionYoungAgent + "/subagents/agent-b.jsonl"));
        QVERIFY(!exists(m_top + "/PWNED") && !exists(m_top + "/PWNED2"));
        const Snapshot outsideAfter = snapshot(m_outside);
        QVERIFY2(outsideBefore == outsideAfter,
            describeDifference(outsideBefore, outsideAfter).constData());
    }

    void unprivilegedUserIsToldToUseRootOrSudo_data()
    {
        QTest::addColumn<bool>("withPlan");
        QTest::newRow("scan and delete") << false;
        QTest::newRow("execute a plan") << true;
    }

    void unprivilegedUserIsToldToUseRootOrSudo()
    {
        QFETCH(bool, withPlan);
        if (!isRoot()) {
            if (sandscope::test::runningInCi())
                QFAIL("this test switches to the user nobody, which needs root; CI runs as root");
            QSKIP("switching to the user nobody needs root");
        }
        if (QStandardPaths::findExecutable(QStringLiteral("setpriv")).isEmpty()) {
            if (sandscope::test::runningInCi())
                QFAIL("setpriv (util-linux) is missing");
            QSKIP("setpriv (util-linux) is missing");
        }
        // nobody must reach the script and the tree: use a copy inside the opened-up folder.
        QVERIFY(::chmod(m_top.constData(), 0755) == 0);
        const QString script = QString::fromUtf8(m_top) + QStringLiteral("/cleanup.sh");
        QVERIFY(QFile::copy(scriptPath(), script));
        const QString planPath = writePlan(dryRunLines());
        ::chmod(planPath.toUtf8().constData(), 0644);

        Settings settings = baseSettings();
        settings.insert(QStringLiteral("CLEANUP_DRY_RUN"), QStringLiteral("false"));
        if (withPlan)
            settings.insert(QStringLiteral("CLEANUP_PLAN"), planPath);
        const Snapshot before = snapshot(m_top);
        const Run refused = runCleanup(settings, QStringLiteral("/"),
            {QStringLiteral("setpriv"), QStringLiteral("--reuid=65534"),
                QStringLiteral("--regid=65534"), QStringLiteral("--clear-groups")},
            script);
        QCOMPARE(refused.exitCode, 3);
        QVERIFY2(refused.err.contains("needs root or passwordless sudo"), refused.err.constData());
        QVERIFY2(refused.err.contains("CLEANUP_DRY_RUN"), refused.err.constData());
        QVERIFY(refused.out.isEmpty());
        const Snapshot after = snapshot(m_top);
        QVERIFY2(before == after, describeDifference(before, after).constData());
    }

    // ---- the adversarial review (each item of the issue) -------------------------------------

    void reserialisedPlanDeletesTheReviewedTwinOnly_data()
    {
        QTest::addColumn<bool>("reviewInvalidUtf8");
        QTest::newRow("the folder with the byte 0xff") << true;
        QTest::newRow("its twin with a valid U+00FF") << false;
    }

    void reserialisedPlanDeletesTheReviewedTwinOnly()
    {
        QFETCH(bool, reviewInvalidUtf8);
        requireDeletePrivileges();
        // "chat-\xff\xfebad" and "chat-ÿþbad" read the same once a plan went through a standard
        // JSON parser (\u00ff and a raw ÿ are both U+00FF).
        const QByteArray twin = "alice/chat-\xc3\xbf\xc3\xbe"
                                "bad";
        QVERIFY(writeFile(m_root + '/' + twin + "/f\xff.txt", "bytes\n"));
        setTreeTime(m_root + '/' + twin, epochDaysAgo(100));
        const QByteArray reviewed = reviewInvalidUtf8 ? invalidUtf8Chat : twin;
        const QByteArray other = reviewInvalidUtf8 ? twin : invalidUtf8Chat;
        const QByteArray identityPath = QByteArray(m_root + '/' + reviewed).toHex();

        QList<QByteArray> plan;
        for (const QByteArray &line : dryRunLines()) {
            if (!line.contains(identityPath))
                continue;
            // Re-serialised as jq -c or json.dumps would: U+00FF written raw.
            plan.append(QJsonDocument::fromJson(line).toJson(QJsonDocument::Compact));
        }
        QCOMPARE(plan.size(), 1);
        QVERIFY(plan.first().contains("chat-\xc3\xbf\xc3\xbe"));
        const Run executed = run({{QStringLiteral("CLEANUP_PLAN"), writePlan(plan)},
            {QStringLiteral("CLEANUP_DRY_RUN"), QStringLiteral("false")}});
        QVERIFY2(executed.exitCode == 0, diagnostics(executed).constData());
        QCOMPARE(executed.summary.value(QLatin1String("deleted")).toInt(), 1);
        QVERIFY(!exists(m_root + '/' + reviewed));
        QVERIFY(exists(m_root + '/' + other + "/f\xff.txt"));
    }

    void itemWhoseIdentityNoLongerMatchesIsRefused()
    {
        requireDeletePrivileges();
        QList<QByteArray> plan;
        for (const QByteArray &line : dryRunLines()) {
            if (line.contains(QByteArray("\"path\":\"" + m_root + "/alice/chat-old\"")))
                plan.append(line);
        }
        QCOMPARE(plan.size(), 1);
        // Same name, size and times, but another folder (recreated after the review).
        const QByteArray chat = m_root + "/alice/chat-old";
        QVERIFY(::rename(chat.constData(), QByteArray(m_outside + "/reviewed").constData()) == 0);
        QVERIFY(QProcess::execute(QStringLiteral("cp"),
                    {QStringLiteral("-a"), QString::fromUtf8(m_outside + "/reviewed"),
                        QString::fromUtf8(chat)})
            == 0);
        const Run executed = run({{QStringLiteral("CLEANUP_PLAN"), writePlan(plan)},
            {QStringLiteral("CLEANUP_DRY_RUN"), QStringLiteral("false")}});
        QCOMPARE(executed.exitCode, 4);
        const QJsonObject item = executed.itemFor(jsonPath("alice/chat-old"));
        QCOMPARE(item.value(QLatin1String("outcome")).toString(), QStringLiteral("refused"));
        QVERIFY2(
            item.value(QLatin1String("message")).toString().contains(QLatin1String("identity")),
            qPrintable(item.value(QLatin1String("message")).toString()));
        QVERIFY(exists(chat + "/notes.txt"));
    }

    void textOutputEscapesControlCharactersEverywhere()
    {
        // A symlink target and a name that would colour the terminal, move the cursor (CSI as the
        // raw byte 0x9b and as U+009B) or reverse the text.
        QVERIFY(makeSymlink("/tmp/\x1b]0;title\x07\x1b[31mred\x9b"
                            "2J",
            m_root + "/alice/chat-esc"));
        QVERIFY(writeFile(m_root + "/alice/chat-\x1b[2J\xc2\x9b\xe2\x80\xae/f", "x\n"));
        const Run text = run({{QStringLiteral("CLEANUP_FORMAT"), QStringLiteral("text")}});
        QVERIFY2(text.exitCode == 0, diagnostics(text).constData());
        QVERIFY2(text.out.contains("chat-esc"), text.out.constData());
        for (const char *forbidden : {"\x1b", "\x07", "\x9b", "\xc2\x9b", "\xe2\x80\xae"})
            QVERIFY2(!text.out.contains(forbidden), text.out.toHex().constData());
        QVERIFY2(
            text.out.contains("\\u001b]0;title\\u0007\\u001b[31mred\\x9b2J"), text.out.constData());
        QVERIFY2(text.out.contains("chat-\\u001b[2J\\u009b\\u202e"), text.out.constData());
    }

    void homeRootEndingInALineEndIsRefused()
    {
        // The folder "home\n" exists next to "home": the old script scanned "home".
        QVERIFY(makeDirs(m_root + "\n/alice/chat-x"));
        const Snapshot before = snapshot(m_top);
        const Run refused = run({{QStringLiteral("HOME_ROOT"), QString::fromUtf8(m_root + "\n")},
            {QStringLiteral("CLEANUP_DRY_RUN"), QStringLiteral("false")}});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains("HOME_ROOT") && refused.err.contains("control character"),
            refused.err.constData());
        QVERIFY(refused.out.isEmpty());
        const Snapshot after = snapshot(m_top);
        QVERIFY2(before == after, describeDifference(before, after).constData());
    }

    void executionRechecksTtlAndScanRules_data()
    {
        QTest::addColumn<QByteArray>("relativePath");
        QTest::addColumn<QString>("why");
        QTest::newRow("a keep line edited to delete")
            << QByteArray("alice/chat-recent") << str("TTL");
        QTest::newRow("a chat in a hidden folder the scan never lists")
            << QByteArray(".hidden/chat-old") << str("hidden");
        QTest::newRow("a folder inside a chat")
            << QByteArray("alice/chat-old/sub") << str("chat-*");
    }

    void executionRechecksTtlAndScanRules()
    {
        QFETCH(QByteArray, relativePath);
        QFETCH(QString, why);
        requireDeletePrivileges();
        QVERIFY(writeFile(m_root + "/.hidden/chat-old/a.txt", "hidden\n"));
        setTreeTime(m_root + "/.hidden", epochDaysAgo(100));
        const QByteArray absolute = m_root + '/' + relativePath;
        struct stat st { };
        ::lstat(absolute.constData(), &st);
        qint64 epoch = 0;
        for (const QByteArray &line : dryRunLines()) {
            const QJsonObject object = QJsonDocument::fromJson(line).object();
            if (object.value(QLatin1String("path")).toString() == QString::fromUtf8(absolute))
                epoch = qint64(object.value(QLatin1String("last_activity_epoch")).toDouble());
        }
        if (epoch == 0) {
            struct stat inner { };
            ::lstat(absolute.constData(), &inner);
            epoch = inner.st_mtim.tv_sec;
            for (const QByteArray &child : childrenOf(absolute)) {
                ::lstat(child.constData(), &inner);
                epoch = qMax<qint64>(epoch, inner.st_mtim.tv_sec);
            }
        }
        const QJsonObject item {{QStringLiteral("action"), QStringLiteral("delete")},
            {QStringLiteral("kind"), QStringLiteral("chat")},
            {QStringLiteral("user"),
                QString::fromUtf8(relativePath.left(relativePath.indexOf('/')))},
            {QStringLiteral("path"), QString::fromUtf8(absolute)},
            {QStringLiteral("identity"), identityOf(absolute)},
            {QStringLiteral("bytes"), double(treeBytes(absolute))},
            {QStringLiteral("last_activity_epoch"), double(epoch)},
            {QStringLiteral("reason"), QStringLiteral("edited")}};
        const QString planPath = writePlan({QJsonDocument(item).toJson(QJsonDocument::Compact)});
        const Snapshot before = snapshot(m_top);
        const Run executed = run({{QStringLiteral("CLEANUP_PLAN"), planPath},
            {QStringLiteral("CLEANUP_DRY_RUN"), QStringLiteral("false")}});
        QCOMPARE(executed.exitCode, 4);
        QCOMPARE(executed.items.size(), 1);
        const QJsonObject result = executed.items.first();
        QCOMPARE(result.value(QLatin1String("outcome")).toString(), QStringLiteral("refused"));
        QVERIFY2(result.value(QLatin1String("message")).toString().contains(why),
            qPrintable(result.value(QLatin1String("message")).toString()));
        const Snapshot after = snapshot(m_top);
        QVERIFY2(before == after, describeDifference(before, after).constData());
    }

    void symlinkSwappedInAfterTheCheckIsReportedNotDeleted()
    {
        requireDeletePrivileges();
        QList<QByteArray> plan;
        for (const QByteArray &line : dryRunLines()) {
            if (line.contains(QByteArray("\"path\":\"" + m_root + "/alice/chat-old\"")))
                plan.append(line);
        }
        QCOMPARE(plan.size(), 1);
        const QByteArray fifo = m_top + "/pause";
        QVERIFY(::mkfifo(fifo.constData(), 0600) == 0);

        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("HOME_ROOT"), QString::fromUtf8(m_root));
        env.insert(QStringLiteral("CLEANUP_FORMAT"), QStringLiteral("json"));
        env.insert(QStringLiteral("CLEANUP_PLAN"), writePlan(plan));
        env.insert(QStringLiteral("CLEANUP_DRY_RUN"), QStringLiteral("false"));
        env.insert(QStringLiteral("CLEANUP_TEST_PAUSE_FIFO"), QString::fromUtf8(fifo));
        QProcess process;
        process.setProcessEnvironment(env);
        process.start(QStringLiteral("bash"), {scriptPath()});
        QVERIFY(process.waitForStarted());
        // The script has checked the item and waits: swap the folder for a symlink now.
        QFile pause(QString::fromUtf8(fifo));
        QVERIFY(pause.open(QIODevice::ReadOnly));
        QVERIFY(pause.readLine().startsWith("paused alice"));
        pause.close();
        const QByteArray chat = m_root + "/alice/chat-old";
        QVERIFY(::rename(chat.constData(), QByteArray(m_outside + "/moved-chat").constData()) == 0);
        QVERIFY(makeSymlink(m_outside + "/moved-chat", chat));
        QVERIFY(pause.open(QIODevice::WriteOnly));
        pause.write("go\n");
        pause.close();
        QVERIFY(process.waitForFinished(60000));
        const QByteArray out = process.readAllStandardOutput();
        QCOMPARE(process.exitCode(), 4);
        QVERIFY2(!out.contains("\"outcome\":\"deleted\""), out.constData());
        QVERIFY2(out.contains("\"outcome\":\"refused\"") && out.contains("symbolic link"),
            out.constData());
        QVERIFY(exists(m_outside + "/moved-chat/notes.txt"));
        QVERIFY(exists(chat)); // the link itself is left alone too
    }

    void failuresEndWithTheirExitCodeAndAMessage()
    {
        // Piped to bash: a dry run still completes with its summary.
        QProcess piped;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("HOME_ROOT"), QString::fromUtf8(m_root));
        env.insert(QStringLiteral("CLEANUP_FORMAT"), QStringLiteral("json"));
        piped.setProcessEnvironment(env);
        piped.setStandardInputFile(scriptPath());
        piped.start(QStringLiteral("bash"), QStringList());
        QVERIFY(piped.waitForFinished(60000));
        QCOMPARE(piped.exitCode(), 0);
        QVERIFY(piped.readAllStandardOutput().contains("\"summary\":true"));

        // A missing TMPDIR falls back to /tmp instead of ending with status 1.
        const Run noTmp
            = run({{QStringLiteral("TMPDIR"), QStringLiteral("/nonexistent-sandscope")}});
        QVERIFY2(noTmp.exitCode == 0, diagnostics(noTmp).constData());
        QVERIFY(!noTmp.summary.isEmpty());

        // Piped to bash as non-root, deleting cannot re-run through sudo: 3 and why.
        if (!isRoot() || QStandardPaths::findExecutable(QStringLiteral("setpriv")).isEmpty())
            return;
        QVERIFY(::chmod(m_top.constData(), 0755) == 0);
        QVERIFY(::chmod(m_root.constData(), 0700) == 0);
        const QString script = QString::fromUtf8(m_top) + QStringLiteral("/cleanup.sh");
        QVERIFY(QFile::copy(scriptPath(), script));
        const Run unlistable = runCleanup(baseSettings(), QStringLiteral("/"),
            {QStringLiteral("setpriv"), QStringLiteral("--reuid=65534"),
                QStringLiteral("--regid=65534"), QStringLiteral("--clear-groups")},
            script);
        QCOMPARE(unlistable.exitCode, 2);
        QVERIFY2(unlistable.err.contains("HOME_ROOT"), unlistable.err.constData());
        QVERIFY(unlistable.out.isEmpty());
    }

    void unreadableHomeIsReportedInsteadOfGuessed()
    {
        if (!isRoot()) {
            if (sandscope::test::runningInCi())
                QFAIL("this test switches to the user nobody, which needs root; CI runs as root");
            QSKIP("switching to the user nobody needs root");
        }
        QVERIFY(::chmod(m_top.constData(), 0755) == 0);
        QVERIFY(::chmod(QByteArray(m_root + "/bob").constData(), 0700) == 0);
        const QString script = QString::fromUtf8(m_top) + QStringLiteral("/cleanup.sh");
        QVERIFY(QFile::copy(scriptPath(), script));

        const Run dry = runCleanup(baseSettings(), QStringLiteral("/"),
            {QStringLiteral("setpriv"), QStringLiteral("--reuid=65534"),
                QStringLiteral("--regid=65534"), QStringLiteral("--clear-groups")},
            script);
        QVERIFY2(dry.exitCode == 0, diagnostics(dry).constData());
        const QJsonObject bob = dry.itemFor(jsonPath("bob"));
        QCOMPARE(bob.value(QLatin1String("action")).toString(), QStringLiteral("report"));
        QVERIFY2(
            bob.value(QLatin1String("reason")).toString().contains(QLatin1String("run as root")),
            qPrintable(bob.value(QLatin1String("reason")).toString()));
        QCOMPARE(dry.pathsWith(QStringLiteral("user"), QStringLiteral("bob")).size(), 1);
        QCOMPARE(dry.itemFor(jsonPath("alice/chat-old")).value(QLatin1String("action")).toString(),
            QStringLiteral("delete"));
    }
};

QTEST_GUILESS_MAIN(CleanupScriptTest)
#include "tst_cleanup_script.moc"
