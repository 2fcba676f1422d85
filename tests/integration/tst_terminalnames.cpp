// The command line against a REAL multi-user open-terminal with hostile names (issue 27): file
// names with an escape sequence, a line break and U+202E, and a session whose prompt (its
// title) holds the same. `files ls`, `sessions` and `search` print them visibly (nothing a
// terminal acts on reaches stdout or stderr, a line break in a name never makes a row of its
// own), `files ls --json` keeps the exact names, and reading the user's sessions is audited.

#include "capturelines.h"
#include "filesfixture.h"
#include "sandscopecli.h"
#include "testing.h"
#include "transcripthome.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest/QTest>

using namespace sandscope;
using namespace sandscope::test;

using Outcome = CliOutcome;

class TerminalNames : public QObject, protected FilesFixture {
    Q_OBJECT

    Outcome cli(QStringList arguments)
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("SANDSCOPE_API_KEY"), m_server->apiKey());
        env.insert(QStringLiteral("SANDSCOPE_AUDIT_LOG"), m_auditPath);
        env.remove(QStringLiteral("DISPLAY"));
        arguments << QStringLiteral("--server") << m_server->url().toString()
                  << QStringLiteral("--user") << m_alice.userId;
        return runSandscope(arguments, env);
    }

    static void verifyTerminalSafe(const Outcome &outcome)
    {
        QVERIFY2(terminalActiveIn(outcome.out).isEmpty(),
            qPrintable(terminalActiveIn(outcome.out) + QLatin1Char('\n')
                + QString::fromUtf8(outcome.out)));
        QVERIFY2(
            terminalActiveIn(outcome.err).isEmpty(), qPrintable(terminalActiveIn(outcome.err)));
        for (const QByteArray &line : outcome.out.split('\n'))
            QVERIFY2(
                !line.startsWith("FAKE ROW") && !line.startsWith("split"), outcome.out.constData());
    }

    bool auditedAs(const QString &action) const
    {
        for (const QJsonObject &entry : auditLines()) {
            if (entry.value(QStringLiteral("action")).toString() == action
                && entry.value(QStringLiteral("user")).toString() == m_alice.userId)
                return true;
        }
        return false;
    }

private Q_SLOTS:
    void initTestCase() { SANDSCOPE_START_FILES_SERVER(); }

    void cleanupTestCase() { stopFilesServer(); }

    void fileNamesAreShownVisibly()
    {
        const QString folder = freshFolder(QStringLiteral("names"),
            QStringLiteral("touch \"$(printf 'a\\033]0;pwned\\007\\033[31mred')\" "
                           "\"$(printf 'b\\nsplit')\" \"$(printf 'c\\342\\200\\256txt.exe')\""));
        const Outcome listed = cli({QStringLiteral("files"), QStringLiteral("ls"), folder});
        QCOMPARE(listed.exitCode, 0);
        verifyTerminalSafe(listed);
        QCOMPARE(listed.out.trimmed().split('\n').size(), 3);
        QVERIFY2(listed.out.contains("a\\e]0;pwned\\a\\e[31mred"), listed.out.constData());
        QVERIFY2(listed.out.contains("b\\nsplit"), listed.out.constData());
        QVERIFY2(listed.out.contains("c<U+202E>txt.exe"), listed.out.constData());

        const Outcome json = cli(
            {QStringLiteral("files"), QStringLiteral("ls"), folder, QStringLiteral("--json")});
        QCOMPARE(json.exitCode, 0);
        QStringList names;
        for (const QJsonValue &entry :
            QJsonDocument::fromJson(json.out).object().value(QStringLiteral("entries")).toArray())
            names.append(entry.toObject().value(QStringLiteral("name")).toString());
        QVERIFY2(names.contains(QStringLiteral("b\nsplit")), qPrintable(names.join(u'|')));
        QVERIFY(names.contains(QStringLiteral("c") + QChar(0x202e) + QStringLiteral("txt.exe")));
    }

    void sessionTitlesAreShownVisiblyAndReadsAudited()
    {
        // A transcript of one turn whose prompt (the session's title) is hostile; small, as it
        // travels on a command line.
        QString prompt = QStringLiteral("Run \x1b[31mRED\x07\nFAKE ROW ");
        prompt.append(QChar(0x202e)).append(QChar(0x9b)).append(QStringLiteral("2J"));
        const QByteArray transcript
            = capture::line({{QStringLiteral("type"), QStringLiteral("user")},
                  {QStringLiteral("message"),
                      QJsonObject {{QStringLiteral("role"), QStringLiteral("user")},
                          {QStringLiteral("content"), prompt}}},
                  {QStringLiteral("uuid"), QStringLiteral("u1")},
                  {QStringLiteral("timestamp"), QStringLiteral("2026-11-29T09:28:56.815Z")},
                  {QStringLiteral("cwd"), QStringLiteral("/tmp")},
                  {QStringLiteral("sessionId"), basicSessionId}})
            + capture::line({{QStringLiteral("type"), QStringLiteral("last-prompt")},
                {QStringLiteral("lastPrompt"), prompt},
                {QStringLiteral("sessionId"), basicSessionId}});
        const QString directory = m_aliceHome + QStringLiteral("/.claude/projects/-tmp");
        shell(m_alice,
            QStringLiteral("mkdir -p %1 && printf '%s' '%2' | base64 -d > %1/%3.jsonl")
                .arg(directory, QString::fromLatin1(transcript.toBase64()), basicSessionId));

        const Outcome sessions = cli({QStringLiteral("sessions")});
        QCOMPARE(sessions.exitCode, 0);
        verifyTerminalSafe(sessions);
        QVERIFY2(sessions.out.contains(basicSessionId.toUtf8()), sessions.out.constData());
        QVERIFY(auditedAs(QStringLiteral("read-sessions")));

        const Outcome search = cli({QStringLiteral("search"), QStringLiteral("RED")});
        QVERIFY2(search.exitCode == 0, search.err.constData());
        verifyTerminalSafe(search);
        QVERIFY(auditedAs(QStringLiteral("search-sessions")));
    }
};

QTEST_GUILESS_MAIN(TerminalNames)
#include "tst_terminalnames.moc"
