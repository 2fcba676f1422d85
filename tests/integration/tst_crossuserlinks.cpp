// Sandscope never carries a transcript across users (issue 26), on REAL multi-user
// open-terminal servers of both pinned versions (one each for the suite, accounts removed
// afterwards). Bob plants links in his ~/.claude/projects: a transcript linked into alice's
// home, one linked to a file alice left world-readable in /tmp, a project folder linked to
// alice's /tmp folder and a sub-agent file of his own session linked there too, and a run
// whose output file is linked there. The session listing, the search, the usage scan, the
// transcript follower, `sandscope replay|export --session`, the run listing and re-attaching a
// run never read them and name the link and its target; bob's own session still works.

#include "files/pathguard.h"
#include "filesfixture.h"
#include "putfile.h"
#include "realserver.h"
#include "runs/artifactscanner.h"
#include "runs/rundiscovery.h"
#include "runs/runlauncher.h"
#include "sandscopecli.h"
#include "server/shortcommand.h"
#include "sessions/sessiondiscovery.h"
#include "sessions/sessionsearch.h"
#include "sessions/transcriptfollower.h"
#include "testing.h"
#include "transcripthome.h"
#include "usage/usagefacts.h"

#include <QDir>
#include <QSignalSpy>
#include <QUuid>
#include <QtTest>

using namespace sandscope;
using namespace sandscope::test;

namespace {

constexpr int linkWaitMs = 60000;

// One transcript of the basic capture as session `sessionId`, its prompt saying `marker` too.
QByteArray transcriptWith(const QString &sessionId, const QString &marker)
{
    QByteArray bytes = testData(QStringLiteral("transcript-basic.jsonl"));
    bytes.replace(basicSessionId.toUtf8(), sessionId.toUtf8());
    bytes.replace("Run echo hi with Bash", "Run echo hi with Bash " + marker.toUtf8());
    return bytes;
}

bool anyContains(const QStringList &texts, const QStringList &parts)
{
    return std::any_of(texts.cbegin(), texts.cend(), [&parts](const QString &text) {
        return std::all_of(parts.cbegin(), parts.cend(),
            [&text](const QString &part) { return text.contains(part); });
    });
}

// Waits for one of the core's listings, whose callback takes (ok, listing, error).
template <typename Listing, typename Start> Result<Listing> awaitListing(Start start)
{
    return await<Listing>([&start](auto done) {
        start([done](bool ok, const Listing &listing, const QString &error) {
            Result<Listing> result;
            result.value = listing;
            if (!ok)
                result.error.message = error;
            done(result);
        });
        return CallHandle();
    });
}

struct Followed {
    bool finished = false;
    bool completed = false;
    QString message;
    QStringList notices;
    int events = 0;
};

} // namespace

class CrossUserLinksTest : public QObject, protected FilesFixture {
    Q_OBJECT

    // What bob planted for one test, with a fresh token.
    struct Planted {
        QString token;
        QString aliceTranscript; // in alice's home, mode 600
        QString tmpFolder; // alice's, 755, in /tmp
        QString tmpTranscript; // alice's, 644, in it
        QString projectLink; // bob's project folder linked to tmpFolder
        QString homeLink; // bob's transcript linked to aliceTranscript
        QString tmpLink; // bob's transcript linked to tmpTranscript
        QString agentLink; // a sub-agent file of bob's own session linked to tmpTranscript
        QString own; // bob's own transcript
        QString ownSession;
        QString tmpSession; // the session id of tmpLink
    };

    Planted plant()
    {
        Planted p;
        p.token = randomToken(8, true);
        const QString aliceSession = QUuid::createUuid().toString(QUuid::WithoutBraces);
        p.tmpSession = QUuid::createUuid().toString(QUuid::WithoutBraces);
        p.ownSession = QUuid::createUuid().toString(QUuid::WithoutBraces);
        p.aliceTranscript = projectsDirectory(m_aliceHome) + QStringLiteral("-a-") + p.token
            + QLatin1Char('/') + aliceSession + QStringLiteral(".jsonl");
        if (!putFile(m_client.get(), m_alice, p.aliceTranscript,
                transcriptWith(aliceSession, QStringLiteral("alice-secret-") + p.token)))
            return {};
        shell(m_alice, QStringLiteral("chmod 600 %1").arg(p.aliceTranscript));
        // What alice leaves in /tmp under umask 022 every user can read (docs/server-behaviour.md).
        const QStringList made = shell(m_alice,
            QStringLiteral("umask 022; d=$(mktemp -d /tmp/sandscope-links-XXXXXX) && chmod 755 "
                           "\"$d\" && sed s/alice-secret-/tmp-secret-/ %1 > \"$d\"/%2.jsonl && "
                           "echo \"$d\"")
                .arg(p.aliceTranscript, p.tmpSession));
        p.tmpFolder = made.isEmpty() ? QString() : made.constLast().trimmed();
        if (!p.tmpFolder.startsWith(QLatin1String("/tmp/sandscope-links-")))
            return {};
        m_tmpFolders << p.tmpFolder;
        p.tmpTranscript = p.tmpFolder + QLatin1Char('/') + p.tmpSession + QStringLiteral(".jsonl");

        const QString projects = projectsDirectory(m_bobHome);
        const QString ownFolder = projects + QStringLiteral("-own-") + p.token;
        p.own = ownFolder + QLatin1Char('/') + p.ownSession + QStringLiteral(".jsonl");
        if (!putFile(m_client.get(), m_bob, p.own,
                transcriptWith(p.ownSession, QStringLiteral("bob-own-") + p.token)))
            return {};
        p.projectLink = projects + QStringLiteral("-evil-") + p.token;
        p.homeLink = ownFolder + QLatin1Char('/') + aliceSession + QStringLiteral(".jsonl");
        p.tmpLink = ownFolder + QLatin1Char('/') + p.tmpSession + QStringLiteral(".jsonl");
        p.agentLink = ownFolder + QLatin1Char('/') + p.ownSession
            + QStringLiteral("/subagents/agent-evil") + p.token + QStringLiteral(".jsonl");
        shell(m_bob,
            QStringLiteral("ln -s %1 %2 && ln -s %3 %4 && ln -s %5 %6 && mkdir -p %7 && "
                           "ln -s %5 %8")
                .arg(p.tmpFolder, p.projectLink, p.aliceTranscript, p.homeLink, p.tmpTranscript,
                    p.tmpLink, QFileInfo(p.agentLink).path(), p.agentLink));
        return p;
    }

    Followed follow(const QString &path)
    {
        Followed followed;
        TranscriptFollower follower(m_client.get(), m_bob, path);
        connect(&follower, &TranscriptFollower::eventsReady, this,
            [&followed](const RunEventBatch &events) { followed.events += int(events.size()); });
        connect(&follower, &TranscriptFollower::notice, this,
            [&followed](const QString &notice) { followed.notices << notice; });
        connect(&follower, &TranscriptFollower::finished, this,
            [&followed](bool completed, const QString &message) {
                followed.finished = true;
                followed.completed = completed;
                followed.message = message;
            });
        follower.start(false);
        if (!QTest::qWaitFor([&followed] { return followed.finished; }, linkWaitMs))
            qWarning() << "following" << path << "did not finish";
        return followed;
    }

    CliOutcome sandscopeAsBob(const QStringList &arguments)
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("SANDSCOPE_API_KEY"), m_server->apiKey());
        return runSandscope(arguments
                + QStringList {QStringLiteral("--server"), m_server->url().toString(),
                    QStringLiteral("--user"), m_bob.userId},
            environment);
    }

    QStringList m_tmpFolders;

private Q_SLOTS:
    void initTestCase() { SANDSCOPE_START_FILES_SERVER(); }

    void cleanupTestCase()
    {
        for (const QString &folder : std::as_const(m_tmpFolders))
            QDir(folder).removeRecursively();
        stopFilesServer();
    }

    // The listing, the search and the usage scan: one command each, bob's own session found,
    // nothing of alice's read, and each link out of the home named with its target.
    void scansNeverReadALinkOutOfTheHome_data() { addVersionRows(); }
    void scansNeverReadALinkOutOfTheHome()
    {
        SANDSCOPE_USE_FETCHED_VERSION();
        const Planted p = plant();
        QVERIFY(!p.own.isEmpty());
        QVERIFY(transcriptWith(p.ownSession, p.token).contains(p.token.toUtf8()));

        const auto listed = awaitListing<sessiondiscovery::Listing>(
            [&](auto done) { sessiondiscovery::discover(m_client.get(), m_bob, this, done); });
        QVERIFY2(listed.error.message.isEmpty(), qPrintable(listed.error.message));
        QStringList paths;
        for (const DiscoveredSession &session : listed.value.transcripts)
            paths << session.path;
        QVERIFY2(paths.contains(p.own), qPrintable(paths.join(u'\n')));
        for (const QString &path : std::as_const(paths)) {
            QVERIFY2(!path.contains(p.token) || path == p.own, qPrintable(path));
            QVERIFY2(!path.startsWith(QLatin1String("/tmp/")), qPrintable(path));
        }
        const QStringList refused = listed.value.refused;
        QVERIFY2(
            anyContains(refused, {p.tmpLink, p.tmpTranscript}), qPrintable(refused.join(u'\n')));
        QVERIFY2(
            anyContains(refused, {p.projectLink, p.tmpFolder}), qPrintable(refused.join(u'\n')));
        QVERIFY2(
            anyContains(refused, {p.agentLink, p.tmpTranscript}), qPrintable(refused.join(u'\n')));
        QVERIFY(anyContains(refused, {QStringLiteral("outside the home")}));

        // The token is in every planted transcript: only bob's own lines are hits.
        const auto searched = awaitListing<sessionsearch::Result>([&](auto done) {
            sessionsearch::search(m_client.get(), m_bob, p.token, {}, this, done);
        });
        QVERIFY2(searched.error.message.isEmpty(), qPrintable(searched.error.message));
        QVERIFY(!searched.value.hits.isEmpty());
        for (const SessionSearchHit &hit : searched.value.hits)
            QCOMPARE(hit.path, p.own);
        QVERIFY(anyContains(searched.value.refused, {p.tmpLink, p.tmpTranscript}));

        // The usage scan reads bob's own file and no other.
        const QStringList usage = shellLines(m_client.get(), m_bob, usagefacts::script());
        QStringList read;
        for (const QString &line : usage) {
            if (line.startsWith(QLatin1String("SU\tF\t")))
                read << line.mid(5).trimmed();
        }
        QVERIFY2(read.contains(p.own), qPrintable(usage.join(u'\n')));
        for (const QString &path : std::as_const(read))
            QVERIFY2(!path.contains(p.token) || path == p.own, qPrintable(path));
        QVERIFY(anyContains(pathguard::outsideRefusals(usage.join(u'\n')), {p.tmpLink}));
    }

    // Reading one session: a transcript linked out of the home is refused before anything is
    // read, naming the link and its target (also when the kernel would have refused it, which
    // said only "permission denied"); bob's own session reads, without the linked sub-agent.
    void readingRefusesATranscriptLinkedOutOfTheHome_data() { addVersionRows(); }
    void readingRefusesATranscriptLinkedOutOfTheHome()
    {
        SANDSCOPE_USE_FETCHED_VERSION();
        const Planted p = plant();
        QVERIFY(!p.own.isEmpty());

        for (const auto &[link, target] :
            {std::pair {p.tmpLink, p.tmpTranscript}, std::pair {p.homeLink, p.aliceTranscript}}) {
            const Followed refused = follow(link);
            QVERIFY(refused.finished && !refused.completed);
            QCOMPARE(refused.events, 0);
            QVERIFY2(refused.message.contains(link) && refused.message.contains(target)
                    && refused.message.contains(QLatin1String("outside the home")),
                qPrintable(refused.message));
        }
        const Followed own = follow(p.own);
        QVERIFY2(own.completed, qPrintable(own.message));
        QVERIFY(own.events > 0);
        QVERIFY2(anyContains(own.notices, {p.agentLink, p.tmpTranscript}),
            qPrintable(own.notices.join(u'\n')));

        // The command line: replay and export of the linked session are refused with the same
        // words, and nothing of the file reaches the output; bob's own session replays.
        for (const QStringList &verb :
            {QStringList {QStringLiteral("replay"), QStringLiteral("--json")},
                QStringList {
                    QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("md")}}) {
            const CliOutcome linked
                = sandscopeAsBob(verb + QStringList {QStringLiteral("--session"), p.tmpSession});
            QVERIFY2(linked.exitCode != 0 && linked.exitCode != -1, linked.err.constData());
            const QString err = QString::fromUtf8(linked.err);
            // The session is reached through two links (the file, and the project folder that
            // is a link): either refusal names a link of bob's and where it leads.
            QVERIFY2(err.contains(m_bobHome) && err.contains(QLatin1String(" is a link to "))
                    && err.contains(p.tmpFolder) && err.contains(QLatin1String("outside the home")),
                qPrintable(err));
            QVERIFY(!linked.out.contains(p.token.toUtf8()));
        }
        const CliOutcome replayed = sandscopeAsBob({QStringLiteral("replay"),
            QStringLiteral("--summary"), QStringLiteral("--session"), p.ownSession});
        QVERIFY2(replayed.exitCode == 0, replayed.err.constData());
    }

    // The artifacts of a chat whose folder bob linked to alice's /tmp folder: not listed, the
    // refusal names the link and its target; bob's own chat lists.
    void artifactListingRefusesAChatLinkedOutOfTheHome_data() { addVersionRows(); }
    void artifactListingRefusesAChatLinkedOutOfTheHome()
    {
        SANDSCOPE_USE_FETCHED_VERSION();
        const Planted p = plant();
        QVERIFY(!p.own.isEmpty());
        const QString linked = m_bobHome + QStringLiteral("/chat-linked") + p.token;
        const QString own = m_bobHome + QStringLiteral("/chat-own") + p.token;
        shell(m_bob,
            QStringLiteral("ln -s %1 %2 && mkdir -p %3 && printf x > %3/made.txt")
                .arg(p.tmpFolder, linked, own));
        ArtifactScanner scanner(m_client.get());
        QVector<ArtifactFile> files;
        QString failure;
        bool ended = false;
        connect(&scanner, &ArtifactScanner::finished, this,
            [&](const QVector<ArtifactFile> &found, bool) {
                files = found;
                ended = true;
            });
        connect(&scanner, &ArtifactScanner::failed, this, [&](const QString &message) {
            failure = message;
            ended = true;
        });
        scanner.scan(m_bob, linked, QStringLiteral("@0"));
        QTRY_VERIFY_WITH_TIMEOUT(ended, linkWaitMs);
        QVERIFY(files.isEmpty());
        QVERIFY2(failure.contains(linked) && failure.contains(p.tmpFolder)
                && failure.contains(QLatin1String("outside the home")),
            qPrintable(failure));

        ended = false;
        failure.clear();
        scanner.scan(m_bob, own, QStringLiteral("@0"));
        QTRY_VERIFY_WITH_TIMEOUT(ended, linkWaitMs);
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
        QCOMPARE(files.size(), 1);
        QCOMPARE(files.constFirst().relativePath, QStringLiteral("made.txt"));
    }

    // A run's files are read through the file API (root): a run whose output file bob linked
    // to alice's file is refused before anything is read, naming the link and its target.
    void attachingARunRefusesItsFilesLinkedOutOfTheHome_data() { addVersionRows(); }
    void attachingARunRefusesItsFilesLinkedOutOfTheHome()
    {
        SANDSCOPE_USE_FETCHED_VERSION();
        const Planted p = plant();
        QVERIFY(!p.own.isEmpty());
        RunHandle handle;
        handle.identity = m_bob;
        handle.chatId = QStringLiteral("links") + p.token;
        handle.runId = QStringLiteral("run") + p.token;
        handle.home = m_bobHome;
        const QString tee = handle.paths().teeFile;
        shell(m_bob,
            QStringLiteral("mkdir -p %1 && ln -s %2 %3")
                .arg(handle.paths().runDirectory, p.tmpTranscript, tee));

        // Not listed among bob's runs, and named.
        const auto runs = awaitListing<rundiscovery::Listing>(
            [&](auto done) { rundiscovery::list(m_client.get(), m_bob, this, done); });
        QVERIFY2(runs.error.message.isEmpty(), qPrintable(runs.error.message));
        for (const DiscoveredRun &run : runs.value.runs)
            QVERIFY2(run.teePath != tee, qPrintable(run.teePath));
        QVERIFY2(anyContains(runs.value.refused, {tee, p.tmpTranscript}),
            qPrintable(runs.value.refused.join(u'\n')));

        RunLauncher launcher(m_client.get(), m_bob);
        QStringList lines;
        QString failure;
        connect(&launcher, &RunLauncher::lineReceived, this,
            [&lines](qint64, const QString &line) { lines << line; });
        connect(&launcher, &RunLauncher::failed, this,
            [&failure](const QString &message) { failure = message; });
        launcher.reattach(handle, 0);
        QTRY_COMPARE_WITH_TIMEOUT(launcher.state(), RunLauncher::State::Failed, linkWaitMs);
        QVERIFY2(lines.isEmpty(), qPrintable(lines.join(u'\n').left(300)));
        QVERIFY2(failure.contains(tee) && failure.contains(p.tmpTranscript)
                && failure.contains(QLatin1String("outside the home")),
            qPrintable(failure));
    }
};

QTEST_MAIN(CrossUserLinksTest)
#include "tst_crossuserlinks.moc"
