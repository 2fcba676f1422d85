// Reads of another user's files, sessions and exports reach the audit log, and credentials in a
// logged command line do not (issue 27), against a REAL multi-user open-terminal:
//  * `files ls`, `cat` and `get` and `chats` as a --user record what was read, by whom;
//  * `replay --session` and `export --session` record the session, and the export where the
//    copy went and whether it was redacted;
//  * the core's downloads and archives are recorded while acting as another user, not while
//    acting as oneself (the window's Files tab; its previews: tst_filespage);
//  * `exec` as a user with a bearer token, a mysql password, a NAME=value secret and a URL
//    password on its command line logs the command with none of them, nor the server's key.

#include "files/fileoperations.h"
#include "filesfixture.h"
#include "sandscopecli.h"
#include "testing.h"
#include "transcripthome.h"

#include <QJsonObject>
#include <QtTest/QTest>

using namespace sandscope;
using namespace sandscope::test;

class AuditReads : public QObject, protected FilesFixture {
    Q_OBJECT

    CliOutcome cli(QStringList arguments, const Identity &as)
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("SANDSCOPE_API_KEY"), m_server->apiKey());
        env.insert(QStringLiteral("SANDSCOPE_AUDIT_LOG"), m_auditPath);
        env.remove(QStringLiteral("DISPLAY"));
        // Right after the verb: exec takes everything after "--" as its command.
        const QStringList connection {QStringLiteral("--server"), m_server->url().toString(),
            QStringLiteral("--user"), as.userId};
        for (qsizetype i = 0; i < connection.size(); ++i)
            arguments.insert(1 + i, connection.at(i));
        return runSandscope(arguments, env);
    }

    // The entries written since `before` entries were there.
    QList<QJsonObject> newEntries(qsizetype before) const { return auditLines().mid(before); }

    // The one new entry with this action, user and target; a failure message otherwise.
    static QString findEntry(const QList<QJsonObject> &entries, const QString &action,
        const QString &user, const QString &target)
    {
        QStringList seen;
        for (const QJsonObject &entry : entries) {
            const QString text = QString::fromUtf8(QJsonDocument(entry).toJson());
            if (entry.value(QStringLiteral("action")).toString() == action
                && entry.value(QStringLiteral("user")).toString() == user
                && entry.value(QStringLiteral("target")).toString().contains(target))
                return {};
            seen << text;
        }
        return QStringLiteral("no %1 of %2 by %3 among: %4")
            .arg(action, target, user, seen.join(QLatin1Char(' ')));
    }

    // A session of alice's on the server, made from the basic capture.
    void installSession()
    {
        if (m_sessionInstalled)
            return;
        QVERIFY(await<WriteResult>([&](auto done) {
            return m_client->uploadFile(m_alice,
                m_aliceHome + QStringLiteral("/.claude/projects/-tmp-audit"),
                basicSessionId + QStringLiteral(".jsonl"),
                testData(QStringLiteral("transcript-basic.jsonl")), m_client.get(), done);
        }).ok());
        m_sessionInstalled = true;
    }

    bool m_sessionInstalled = false;

private Q_SLOTS:
    void initTestCase() { SANDSCOPE_START_FILES_SERVER(); }

    void cleanupTestCase() { stopFilesServer(); }

    void fileReadsAsAUserAreAudited()
    {
        const QString folder = freshFolder(
            QStringLiteral("audited"), QStringLiteral("printf 'private\\n' > diary.txt"));
        const QString file = folder + QStringLiteral("/diary.txt");
        const qsizetype before = auditLines().size();

        const CliOutcome listed
            = cli({QStringLiteral("files"), QStringLiteral("ls"), folder}, m_alice);
        QVERIFY2(listed.exitCode == 0, listed.err.constData());
        const CliOutcome cat = cli({QStringLiteral("files"), QStringLiteral("cat"), file}, m_alice);
        QCOMPARE(cat.out, QByteArray("private\n"));
        const QString local = m_local.filePath(QStringLiteral("diary-copy.txt"));
        const CliOutcome got
            = cli({QStringLiteral("files"), QStringLiteral("get"), folder, local}, m_alice);
        QVERIFY2(got.exitCode == 0, got.err.constData());
        const CliOutcome chats = cli({QStringLiteral("chats")}, m_alice);
        QVERIFY2(chats.exitCode == 0, chats.err.constData());

        const QList<QJsonObject> entries = newEntries(before);
        for (const auto &[action, target] : {std::pair {QStringLiteral("list-files"), folder},
                 std::pair {QStringLiteral("read-file"), file},
                 std::pair {QStringLiteral("read-file"), folder},
                 std::pair {QStringLiteral("read-chats"), QStringLiteral("~/chat-*")}}) {
            const QString missing = findEntry(entries, action, m_alice.userId, target);
            QVERIFY2(missing.isEmpty(), qPrintable(missing));
        }
        QCOMPARE(entries.size(), 4);
    }

    void sessionReadsAndExportsAreAudited()
    {
        installSession();
        const qsizetype before = auditLines().size();
        const CliOutcome replay = cli({QStringLiteral("replay"), QStringLiteral("--session"),
                                          basicSessionId, QStringLiteral("--summary")},
            m_alice);
        QVERIFY2(replay.exitCode == 0, replay.err.constData());
        const QString exported = m_local.filePath(QStringLiteral("alice-session.md"));
        const CliOutcome redacted = cli({QStringLiteral("export"), QStringLiteral("--session"),
                                            basicSessionId, QStringLiteral("-o"), exported},
            m_alice);
        QVERIFY2(redacted.exitCode == 0, redacted.err.constData());
        const CliOutcome plain = cli(
            {QStringLiteral("export"), QStringLiteral("--session"), basicSessionId,
                QStringLiteral("--format"), QStringLiteral("json"), QStringLiteral("--no-redact")},
            m_alice);
        QVERIFY2(plain.exitCode == 0, plain.err.constData());

        const QList<QJsonObject> entries = newEntries(before);
        QCOMPARE(int(std::count_if(entries.cbegin(), entries.cend(),
                     [](const QJsonObject &e) {
                         return e.value(QStringLiteral("action")).toString()
                             == QLatin1String("read-session");
                     })),
            3);
        const QStringList targets {
            basicSessionId + QStringLiteral(" -> ") + exported + QStringLiteral(" (md, redacted)"),
            basicSessionId + QStringLiteral(" -> standard output (json, not redacted)")};
        for (const QString &target : targets) {
            const QString missing
                = findEntry(entries, QStringLiteral("export-session"), m_alice.userId, target);
            QVERIFY2(missing.isEmpty(), qPrintable(missing));
        }
    }

    void downloadsAsAnotherUserAreAuditedAndAsOneselfNot()
    {
        const QString folder
            = freshFolder(QStringLiteral("downloads"), QStringLiteral("printf 'x\\n' > a.txt"));
        const auto download = [&](FileOperations::Acting acting, bool folderToo) {
            FileOperations operations(m_client.get());
            operations.setIdentity(m_alice, acting);
            QObject owner;
            bool done = false;
            operations.downloadFile(
                folder + QStringLiteral("/a.txt"), &owner, [&](const FileOperationResult &result) {
                    QVERIFY2(result.ok(), qPrintable(result.message()));
                    done = true;
                });
            QVERIFY(QTest::qWaitFor([&] { return done; }, 30000));
            if (!folderToo)
                return;
            done = false;
            operations.downloadFolderAsZip(folder, &owner, [&](const FileOperationResult &result) {
                QVERIFY2(result.ok(), qPrintable(result.message()));
                done = true;
            });
            QVERIFY(QTest::qWaitFor([&] { return done; }, 30000));
        };

        qsizetype before = auditLines().size();
        download(FileOperations::Acting::AsSelf, true);
        QCOMPARE(newEntries(before).size(), 0);

        before = auditLines().size();
        download(FileOperations::Acting::AsOtherUser, true);
        const QList<QJsonObject> entries = newEntries(before);
        QCOMPARE(entries.size(), 2);
        QVERIFY2(findEntry(entries, QStringLiteral("download"), m_alice.userId,
                     folder + QStringLiteral("/a.txt"))
                     .isEmpty(),
            "no download entry");
        QVERIFY2(findEntry(entries, QStringLiteral("archive"), m_alice.userId, folder).isEmpty(),
            "no archive entry");
        QCOMPARE(entries.at(0).value(QStringLiteral("result")).toString(), QStringLiteral("ok"));
    }

    void secretsInLoggedCommandLinesAreMasked()
    {
        const QString bearer = QStringLiteral("tok") + randomToken(24);
        const QString mysql = QStringLiteral("pw") + randomToken(12);
        const QString named = QStringLiteral("nv") + randomToken(20);
        const QString inUrl = QStringLiteral("up") + randomToken(12);
        const QString command
            = QStringLiteral("echo curl -H 'Authorization: Bearer %1' https://x.invalid; "
                             "echo mysql -u root -p%2; echo DEPLOY_TOKEN=%3; "
                             "echo https://bot:%4@git.invalid/r.git; echo %5")
                  .arg(bearer, mysql, named, inUrl, m_server->apiKey());
        const qsizetype before = auditLines().size();
        const CliOutcome ran
            = cli({QStringLiteral("exec"), QStringLiteral("--"), command}, m_alice);
        QVERIFY2(ran.exitCode == 0, ran.err.constData());

        const QList<QJsonObject> entries = newEntries(before);
        QCOMPARE(entries.size(), 1);
        const QString logged = QString::fromUtf8(QJsonDocument(entries.at(0)).toJson());
        QVERIFY2(logged.contains(QLatin1String("mysql -u root")), qPrintable(logged));
        for (const QString &secret : {bearer, mysql, named, inUrl, m_server->apiKey()})
            QVERIFY2(!logged.contains(secret), qPrintable(logged));
    }
};

QTEST_GUILESS_MAIN(AuditReads)
#include "tst_auditreads.moc"
