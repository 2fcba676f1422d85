// The isolation probe against both pinned open-terminal releases in multi-user mode, as the
// real users. 0.11.34 must show its known gaps (global processes, ids sharing their first
// eight alphanumerics share an account, "root" runs as root); 0.14.5 is asserted as
// measured, and the difference between the two reports is shown with compare(). Both versions
// follow symlinks as root in the file API and read /proc and paths outside /home as root: the
// symlink, swap, root-file and /proc checks FAIL on both, and symlinkChecksPassOnRealDenials
// drives the same judgements with denials the servers really give (tst_probedenials does so for
// the upload, write-race, cwd, cmdline and account-name checks). The `sandscope probe` verb
// runs once end to end.

#include "isolation/isolationprobe.h"
#include "isolation/probecollisionchecks.h"
#include "isolation/probesharedcheck.h"
#include "isolation/probeswapcheck.h"
#include "isolation/probesymlinkchecks.h"
#include "isolation/probeterminalchecks.h"
#include "probefixture.h"
#include "probereport/probereport.h"
#include "probing/probecalls.h"
#include "probing/probejudgement.h"
#include "probing/probeterminalsocket.h"
#include "realserver.h"
#include "server/openterminalclient.h"
#include "testing.h"
#include "util/shellquote.h"

#include <QDir>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest/QTest>

#include <memory>

using namespace sandscope;
using namespace sandscope::test;

namespace {

// A race that was not won in its bounded attempts is ERROR in the report (it proves nothing
// either way), but on a loaded machine it is not an error of the probe run: a swap check
// that says so is left out here and judged by its own tests.
bool raceNotWon(const CheckResult &result)
{
    return (result.check == CheckId::FilesReadSwap || result.check == CheckId::FilesWriteSwap)
        && result.explanation.startsWith(QLatin1String("Inconclusive"));
}

QString errorsOf(const ProbeReport &report)
{
    QStringList lines;
    for (const CheckResult &result : report.results) {
        if (result.verdict == Verdict::Error && !raceNotWon(result))
            lines << checkInfo(result.check).key + QLatin1Char(' ') + result.subject()
                    + QStringLiteral(": ") + result.explanation;
    }
    return lines.join(QLatin1Char('\n'));
}

// Every check the probe runs with two users and the admin channel.
int expectedResults()
{
    int pairChecks = 0;
    int serverChecks = 0;
    for (const CheckInfo &info : allChecks()) {
        if (!info.acrossMembers)
            (info.serverWide ? serverChecks : pairChecks) += 1;
    }
    return pairChecks * 2 + serverChecks;
}

} // namespace

class TestProbe : public QObject {
    Q_OBJECT

private:
    PinnedProbeServers m_pinned;
    ProbeReport m_legacyReport;
    ProbeReport m_currentReport;
    QStringList m_accountsBefore; // of the server probed next
    QTemporaryDir m_local;

    ProbeOptions options() const
    {
        ProbeOptions probeOptions;
        probeOptions.users = QStringList {m_pinned.alice, m_pinned.bob};
        // This machine is the sandbox host (the servers run here as root).
        probeOptions.hasAdmin
            = AdminAccess::fromCommand(QStringLiteral("sudo -n"), &probeOptions.admin);
        return probeOptions;
    }
    static QVector<CheckId> symlinkChecks()
    {
        return {CheckId::FilesReadSwap, CheckId::FilesWriteSwap, CheckId::FilesReadSymlink,
            CheckId::FilesViewSymlink, CheckId::FilesGrepSymlink, CheckId::FilesGlobSymlink,
            CheckId::FilesListSymlink, CheckId::FilesArchiveSymlink, CheckId::FilesWriteSymlink,
            CheckId::FilesUploadSymlink, CheckId::FilesCreateSymlink, CheckId::FilesMoveSymlink,
            CheckId::FilesDeleteSymlink};
    }
    // The /proc checks on both versions: the file API reads /proc as root (A's environment,
    // A's files through the cwd link, A's arguments); B's shell is refused the environment and
    // the cwd link by the kernel, but not the arguments (one process table, as documented).
    static void expectProcFiles(const ProbeReport &report, const QString &subject)
    {
        for (const CheckId check : {CheckId::ProcessEnvironApi, CheckId::ProcessCwdApi,
                 CheckId::ProcessCmdlineApi, CheckId::ProcessCmdlineShell})
            QCOMPARE(verdictOf(report, check, subject), QStringLiteral("FAIL"));
        for (const CheckId check : {CheckId::ProcessEnvironShell, CheckId::ProcessCwdShell})
            QCOMPARE(verdictOf(report, check, subject), QStringLiteral("PASS"));
    }
    RealServer &server(const QString &which) const { return m_pinned.server(which); }
    // The collision checks, as measured on both versions (the naming rule keeps the first eight
    // lower-case letters and digits of the id, see docs/server-behaviour.md): a look-alike whose
    // Cyrillic letter comes after those eight and an id with "../" in front land in the first
    // user's account (FAIL), while the look-alike with a Cyrillic first letter, the fullwidth
    // id, "../../root" and the second user's account name get accounts of their own (each one
    // a PASS in the same judgement). The accounts these ids created are removed again.
    void expectCollisions(const ProbeReport &report, const RealServer &real) const
    {
        QCOMPARE(
            verdictOf(report, CheckId::AccountLookalike, serverSubject()), QStringLiteral("FAIL"));
        QCOMPARE(verdictOf(report, CheckId::AccountPath, serverSubject()), QStringLiteral("FAIL"));
        QCOMPARE(verdictOf(report, CheckId::AccountName, serverSubject()), QStringLiteral("PASS"));
        const QString lookalike
            = report.find(CheckId::AccountLookalike, serverSubject())->explanation;
        qInfo("account.lookalike: %s", qPrintable(lookalike));
        qInfo("files.read.swap: %s",
            qPrintable(report.find(CheckId::FilesReadSwap, aliceToBob())->explanation));
        qInfo("account.path: %s",
            qPrintable(report.find(CheckId::AccountPath, serverSubject())->explanation));
        qInfo("account.name: %s",
            qPrintable(report.find(CheckId::AccountName, serverSubject())->explanation));
        const QStringList ids = ProbeCollisionChecks::lookalikeIds(m_pinned.alice);
        QCOMPARE(ids.size(), 3);
        // The first look-alike and the fullwidth id got ordinary accounts of their own.
        QVERIFY2(lookalike.contains(QStringLiteral("\"%1\" got an ordinary account").arg(ids.at(0)))
                && lookalike.contains(
                    QStringLiteral("\"%1\" got an ordinary account").arg(ids.at(2))),
            qPrintable(lookalike));
        QVERIFY2(lookalike.contains(QStringLiteral("\"%1\" runs as the account of").arg(ids.at(1))),
            qPrintable(lookalike));
        for (const CheckId check :
            {CheckId::AccountLookalike, CheckId::AccountPath, CheckId::AccountName})
            QVERIFY2(
                report.find(check, serverSubject())->explanation.contains(QLatin1String("removed")),
                qPrintable(report.find(check, serverSubject())->explanation));
        // Only the chosen users' accounts are new: those of the twin, case, reserved and
        // collision ids are gone again.
        QStringList expected = m_accountsBefore;
        for (const QString &user : {m_pinned.alice, m_pinned.bob}) {
            const QString account = shellAs(real, user, QStringLiteral("id -un")).trimmed();
            if (!expected.contains(account))
                expected << account;
        }
        expected.sort();
        QCOMPARE(accountsOf(real), expected);
    }

    // One row per pinned server, for the tests that run on both.
    static void bothServers() { PinnedProbeServers::addServerRows(); }
    QString aliceToBob() const { return pairSubject(m_pinned.alice, m_pinned.bob); }
    QString bobToAlice() const { return pairSubject(m_pinned.bob, m_pinned.alice); }

private Q_SLOTS:
    void initTestCase()
    {
        QString why;
        SANDSCOPE_REQUIRE(RealServer::canRunMultiUser(&why), why);
        QVERIFY2(m_pinned.start(&why), qPrintable(why));
        QVERIFY(m_local.isValid());
    }

    void legacyServerShowsItsKnownGaps()
    {
        m_accountsBefore = accountsOf(*m_pinned.legacy);
        const ProbeRun run = runProbe(*m_pinned.legacy, options());
        QVERIFY(run.finished);
        const ProbeReport &report = run.report;
        m_legacyReport = report;
        QCOMPARE(report.serverVersion, m_pinned.legacy->version());
        // Every check ran and was judged; results arrived one by one.
        QVERIFY2(errorsOf(report).isEmpty(), qPrintable(errorsOf(report)));
        QCOMPARE(run.resultsEmitted, int(report.results.size()));
        QCOMPARE(report.results.size(), expectedResults());

        for (const QString &subject : {aliceToBob(), bobToAlice()}) {
            // Processes are global: listed with their command line, readable, typed into,
            // killed by anyone.
            for (const CheckId check : {CheckId::ProcessList, CheckId::ProcessCommandLine,
                     CheckId::ProcessOutput, CheckId::ProcessInput, CheckId::ProcessKill})
                QCOMPARE(verdictOf(report, check, subject), QStringLiteral("FAIL"));
            // Session cwds are keyed by the session id alone.
            QCOMPARE(verdictOf(report, CheckId::SessionReuse, subject), QStringLiteral("FAIL"));
            // A terminal's id is the creating request's X-Session-Id, with no owner check.
            QCOMPARE(verdictOf(report, CheckId::TerminalLookup, subject), QStringLiteral("FAIL"));
            // ...and B's socket to that id attaches to A's shell: B reads it and types into it.
            QCOMPARE(verdictOf(report, CheckId::TerminalRead, subject), QStringLiteral("FAIL"));
            QCOMPARE(verdictOf(report, CheckId::TerminalWrite, subject), QStringLiteral("FAIL"));
            // The API's and the kernel's file isolation hold.
            for (const CheckId check : {CheckId::FilesList, CheckId::FilesRead, CheckId::FilesWrite,
                     CheckId::FilesMove, CheckId::FilesDelete, CheckId::FilesGrep,
                     CheckId::FilesArchive, CheckId::ShellRead, CheckId::ShellList,
                     CheckId::ShellWrite, CheckId::ShellDelete})
                QCOMPARE(verdictOf(report, check, subject), QStringLiteral("PASS"));
            QCOMPARE(verdictOf(report, CheckId::NetworkPort, subject), QStringLiteral("INFO"));
            expectProcFiles(report, subject);
            // The kernel refuses B a hard link to A's file (B cannot even reach it).
            QCOMPARE(verdictOf(report, CheckId::FilesHardlink, subject), QStringLiteral("PASS"));
            // The accounts' default umask (022) leaves A's files in /tmp and /dev/shm readable.
            QCOMPARE(verdictOf(report, CheckId::SharedTmp, subject), QStringLiteral("FAIL"));
            // ...but the file API runs as root and follows a symlink B made in its own home.
            for (const CheckId check : symlinkChecks())
                QCOMPARE(verdictOf(report, check, subject), QStringLiteral("FAIL"));
        }
        for (const CheckId check :
            {CheckId::FilesReadRoot, CheckId::FilesReadRootSymlink, CheckId::ServerEnvironApi})
            QCOMPARE(verdictOf(report, check, serverSubject()), QStringLiteral("FAIL"));
        // Ids sharing their first eight alphanumerics land in one account.
        QCOMPARE(verdictOf(report, CheckId::AccountTwin, serverSubject()), QStringLiteral("FAIL"));
        // The rule lower-cases the id: the id in capitals is the same account.
        QCOMPARE(verdictOf(report, CheckId::AccountCase, serverSubject()), QStringLiteral("FAIL"));
        // Without X-User-Id the request runs as the server's account and reads A's files.
        QCOMPARE(
            verdictOf(report, CheckId::MissingUserId, serverSubject()), QStringLiteral("FAIL"));
        // With the tests' account prefix "root" becomes an ordinary account; see
        // legacyServerRunsRootAsRoot for the default (no prefix).
        QCOMPARE(verdictOf(report, CheckId::ReservedIds, serverSubject()), QStringLiteral("PASS"));
        expectCollisions(report, *m_pinned.legacy);
        QCOMPARE(report.exitCode(), 1);

        const QByteArray json = QJsonDocument(report.toJson()).toJson();
        QVERIFY(!json.contains(m_pinned.legacy->apiKey().toUtf8()));
        QVERIFY(!report.toMarkdown().contains(m_pinned.legacy->apiKey()));
        QVERIFY2(nothingLeft(*m_pinned.legacy), qPrintable(leftovers(*m_pinned.legacy).join(u',')));
    }

    void legacyServerRunsRootAsRoot()
    {
        // The servers' default: no account prefix. Only reserved ids run (and only `id`), so
        // the server creates no account that would outlive the test.
        RealServer server(
            RealServer::pinnedVersion("OPEN_TERMINAL_LEGACY_VERSION"), RealServer::Mode::MultiUser);
        server.setAccountPrefix(QString());
        QString why;
        QVERIFY2(server.start(&why), qPrintable(why));
        ProbeOptions probeOptions;
        probeOptions.onlyChecks = {CheckId::ReservedIds};
        probeOptions.reservedIds = QStringList {QStringLiteral("root")};
        const ProbeRun run = runProbe(server, probeOptions);
        QVERIFY(run.finished);
        QCOMPARE(run.report.results.size(), 1);
        const CheckResult &reserved = run.report.results.at(0);
        QCOMPARE(reserved.check, CheckId::ReservedIds);
        QCOMPARE(verdictName(reserved.verdict), QStringLiteral("FAIL"));
        QVERIFY2(reserved.explanation.contains(QLatin1String("\"root\" runs as root (uid 0)")),
            qPrintable(reserved.explanation));
        QVERIFY(reserved.evidence.size() >= 2); // the server account, then "root"
    }

    void currentServerAsMeasured()
    {
        m_accountsBefore = accountsOf(*m_pinned.current);
        const ProbeRun run = runProbe(*m_pinned.current, options());
        QVERIFY(run.finished);
        const ProbeReport &report = run.report;
        m_currentReport = report;
        QCOMPARE(report.serverVersion, m_pinned.current->version());
        QVERIFY2(errorsOf(report).isEmpty(), qPrintable(errorsOf(report)));
        QCOMPARE(run.resultsEmitted, int(report.results.size()));

        for (const QString &subject : {aliceToBob(), bobToAlice()}) {
            // Processes and session cwds are scoped by (X-User-Id, X-Session-Id).
            for (const CheckId check :
                {CheckId::ProcessList, CheckId::ProcessCommandLine, CheckId::ProcessOutput,
                    CheckId::ProcessInput, CheckId::ProcessKill, CheckId::SessionReuse,
                    CheckId::TerminalLookup, CheckId::TerminalRead, CheckId::TerminalWrite,
                    CheckId::FilesList, CheckId::FilesRead, CheckId::FilesWrite, CheckId::FilesMove,
                    CheckId::FilesDelete, CheckId::FilesGrep, CheckId::FilesArchive,
                    CheckId::ShellRead, CheckId::ShellList, CheckId::ShellWrite,
                    CheckId::ShellDelete, CheckId::ProcessLog})
                QCOMPARE(verdictOf(report, check, subject), QStringLiteral("PASS"));
            // Still open (measured): glob names files in another user's home, and the
            // shared process table shows command lines through ps.
            QCOMPARE(verdictOf(report, CheckId::FilesGlob, subject), QStringLiteral("FAIL"));
            QCOMPARE(verdictOf(report, CheckId::ProcessShellList, subject), QStringLiteral("FAIL"));
            QCOMPARE(verdictOf(report, CheckId::NetworkPort, subject), QStringLiteral("INFO"));
            expectProcFiles(report, subject);
            // The kernel refuses B a hard link to A's file (B cannot even reach it).
            QCOMPARE(verdictOf(report, CheckId::FilesHardlink, subject), QStringLiteral("PASS"));
            QCOMPARE(verdictOf(report, CheckId::SharedTmp, subject), QStringLiteral("FAIL"));
            // Symlinks are still followed as root.
            for (const CheckId check : symlinkChecks())
                QCOMPARE(verdictOf(report, check, subject), QStringLiteral("FAIL"));
        }
        for (const CheckId check :
            {CheckId::FilesReadRoot, CheckId::FilesReadRootSymlink, CheckId::ServerEnvironApi})
            QCOMPARE(verdictOf(report, check, serverSubject()), QStringLiteral("FAIL"));
        // 0.14.5 still uses the first-eight-alphanumerics rule (see docs/server-behaviour.md).
        QCOMPARE(verdictOf(report, CheckId::AccountTwin, serverSubject()), QStringLiteral("FAIL"));
        // The rule lower-cases the id: the id in capitals is the same account.
        QCOMPARE(verdictOf(report, CheckId::AccountCase, serverSubject()), QStringLiteral("FAIL"));
        // Requests without X-User-Id are refused with 400.
        QCOMPARE(
            verdictOf(report, CheckId::MissingUserId, serverSubject()), QStringLiteral("PASS"));
        QCOMPARE(verdictOf(report, CheckId::ReservedIds, serverSubject()), QStringLiteral("PASS"));
        expectCollisions(report, *m_pinned.current);
        // The terminal checks pass on a refusal the server really gave B's socket.
        for (const QString &subject : {aliceToBob(), bobToAlice()})
            for (const CheckId check : {CheckId::TerminalRead, CheckId::TerminalWrite}) {
                const QString why = report.find(check, subject)->explanation;
                qInfo("%s %s: %s", qPrintable(checkInfo(check).key), qPrintable(subject),
                    qPrintable(why));
                QVERIFY2(why.startsWith(QLatin1String("Denied: the server closed the socket")),
                    qPrintable(why));
            }
        QVERIFY(
            !QJsonDocument(report.toJson()).toJson().contains(m_pinned.current->apiKey().toUtf8()));
        QVERIFY2(
            nothingLeft(*m_pinned.current), qPrintable(leftovers(*m_pinned.current).join(u',')));
    }

    void comparisonShowsWhatTheUpgradeChanged()
    {
        SANDSCOPE_REQUIRE(!m_legacyReport.results.isEmpty() && !m_currentReport.results.isEmpty(),
            "needs the reports of both servers");
        const QVector<ReportDifference> differences
            = ProbeReport::compare(m_legacyReport, m_currentReport);
        QStringList described;
        for (const ReportDifference &difference : differences) {
            // Whether a bounded race was won differs from run to run, not from version to
            // version (both are open: docs/server-behaviour.md).
            if (difference.check != CheckId::FilesReadSwap
                && difference.check != CheckId::FilesWriteSwap)
                described << difference.describe();
        }
        qInfo("0.11.34 -> 0.14.5:\n%s", qPrintable(described.join(u'\n')));

        QStringList expected;
        for (const CheckId check :
            {CheckId::ProcessList, CheckId::ProcessCommandLine, CheckId::ProcessOutput,
                CheckId::ProcessInput, CheckId::ProcessKill, CheckId::SessionReuse,
                CheckId::TerminalLookup, CheckId::TerminalRead, CheckId::TerminalWrite}) {
            for (const QString &subject : {aliceToBob(), bobToAlice()})
                expected << checkInfo(check).key + QLatin1Char(' ') + subject
                        + QStringLiteral(": FAIL → PASS");
        }
        expected << checkInfo(CheckId::MissingUserId).key + QLatin1Char(' ') + serverSubject()
                + QStringLiteral(": FAIL → PASS");
        described.sort();
        expected.sort();
        QCOMPARE(described, expected);

        // The same comparison from the command line, of the two reports saved as JSON.
        QStringList paths;
        for (const ProbeReport *report : {&m_legacyReport, &m_currentReport}) {
            paths << m_local.filePath(report->serverVersion + QStringLiteral(".json"));
            QFile file(paths.last());
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(QJsonDocument(report->toJson()).toJson());
        }
        QProcess process;
        process.start(QStringLiteral(SANDSCOPE_BINARY),
            {QStringLiteral("probe"), QStringLiteral("--compare"), paths.at(0), paths.at(1),
                QStringLiteral("--json")});
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitCode(), 1); // something changed
        const QJsonArray cells = QJsonDocument::fromJson(process.readAllStandardOutput())
                                     .object()
                                     .value(u"differences")
                                     .toArray();
        QStringList fromCli;
        for (const QJsonValue &cell : cells) {
            const QJsonObject object = cell.toObject();
            const QString check = object.value(u"check").toString();
            if (check == checkInfo(CheckId::FilesReadSwap).key
                || check == checkInfo(CheckId::FilesWriteSwap).key)
                continue; // as above
            fromCli << object.value(u"check").toString() + QLatin1Char(' ')
                    + object.value(u"subject").toString() + QStringLiteral(": ")
                    + object.value(u"before").toString() + QStringLiteral(" → ")
                    + object.value(u"after").toString();
        }
        fromCli.sort();
        QCOMPARE(fromCli, expected);

        // A report compared with itself: nothing changed, exit 0.
        process.start(QStringLiteral(SANDSCOPE_BINARY),
            {QStringLiteral("probe"), QStringLiteral("--compare"), paths.at(1), paths.at(1)});
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitCode(), 0);
        QVERIFY(process.readAllStandardOutput().contains("no cell changed"));
    }

    void symlinkChecksPassOnRealDenials_data() { bothServers(); }

    // The judgements of the symlink checks, driven with what the servers really answer when
    // they refuse: links to what does not exist (404) and a write the server's own step as B
    // fails (B's `mkdir -p` in A's folder). So the PASS branch is reachable, not only FAIL.
    void symlinkChecksPassOnRealDenials()
    {
        QFETCH(QString, which);
        const RealServer &real = server(which);
        const QString token = sandscope::test::randomToken(8);
        const QString aliceHome = homeOf(real, m_pinned.alice);
        const QString bobHome = homeOf(real, m_pinned.bob);
        QVERIFY2(aliceHome.startsWith(QLatin1String("/home/")), qPrintable(aliceHome));
        const QString folder = aliceHome + QStringLiteral("/sandscope-probe-") + token;
        const QString marker = QStringLiteral("marker-") + token;
        QCOMPARE(sendAs(real, m_pinned.alice,
                     probe::sendSpec("POST", QStringLiteral("/files/write"),
                         {{QStringLiteral("path"), QString(folder + QStringLiteral("/m.txt"))},
                             {QStringLiteral("content"), marker}}))
                     .status,
            200);
        const QString links
            = bobHome + QStringLiteral("/.sandscope-probe-") + token + QStringLiteral("-links");
        const QString made = shellAs(real, m_pinned.bob,
            QStringLiteral("mkdir -- %1 && %2 && %3 && %4 && echo made")
                .arg(shell::quote(links),
                    ProbeSymlinkChecks::linkCommand(
                        folder + QStringLiteral("/absent.txt"), links + QStringLiteral("/read")),
                    ProbeSymlinkChecks::linkCommand(
                        folder + QStringLiteral("/absent"), links + QStringLiteral("/folder")),
                    ProbeSymlinkChecks::linkCommand(folder, links + QStringLiteral("/write"))));
        QVERIFY2(made.contains(QLatin1String("made")), qPrintable(made));

        const probe::Precondition met = probe::Precondition::ok();
        const auto pass = [](const probe::Judgement &judgement) {
            return judgement.verdict == Verdict::Pass ? QString() : judgement.explanation;
        };
        const protocol::HttpResponse read = sendAs(real, m_pinned.bob,
            probe::getSpec(QStringLiteral("/files/read"),
                {{QStringLiteral("path"), QString(links + QStringLiteral("/read"))}}));
        QCOMPARE(read.status, 404);
        QCOMPARE(pass(probe::judgeDisclosure(read, probe::Disclosure::FileText, marker, met)),
            QString());
        const protocol::HttpResponse list = sendAs(real, m_pinned.bob,
            probe::getSpec(QStringLiteral("/files/list"),
                {{QStringLiteral("directory"), QString(links + QStringLiteral("/folder"))}}));
        QCOMPARE(list.status, 404);
        QCOMPARE(
            pass(probe::judgeDisclosure(list, probe::Disclosure::Listing, marker, met)), QString());
        const protocol::HttpResponse archive = sendAs(real, m_pinned.bob,
            probe::sendSpec("POST", QStringLiteral("/files/archive"),
                {{QStringLiteral("paths"), QStringList {links + QStringLiteral("/folder")}}}));
        QCOMPARE(archive.status, 404);
        QCOMPARE(
            pass(probe::judgeDisclosure(archive, probe::Disclosure::Raw, marker, met)), QString());
        // The download, grep and glob through links to what does not exist.
        const protocol::HttpResponse view = sendAs(real, m_pinned.bob,
            probe::getSpec(QStringLiteral("/files/view"),
                {{QStringLiteral("path"), QString(links + QStringLiteral("/read"))}}));
        const protocol::HttpResponse grep = sendAs(real, m_pinned.bob,
            probe::getSpec(QStringLiteral("/files/grep"),
                {{QStringLiteral("query"), marker},
                    {QStringLiteral("path"), QString(links + QStringLiteral("/folder"))}}));
        const protocol::HttpResponse glob = sendAs(real, m_pinned.bob,
            probe::getSpec(QStringLiteral("/files/glob"),
                {{QStringLiteral("pattern"), QStringLiteral("m.txt")},
                    {QStringLiteral("path"), QString(links + QStringLiteral("/folder"))}}));
        for (const protocol::HttpResponse &answer : {view, grep, glob})
            QCOMPARE(answer.status, 404);
        QCOMPARE(
            pass(probe::judgeDisclosure(view, probe::Disclosure::Raw, marker, met)), QString());
        QCOMPARE(pass(probe::judgeDisclosure(grep, probe::Disclosure::GrepMatches, marker, met)),
            QString());
        QCOMPARE(pass(probe::judgeDisclosure(
                     glob, probe::Disclosure::GlobMatches, QStringLiteral("m.txt"), met)),
            QString());
        // A file in a folder B would have to create inside A's: the server's `sudo -u B mkdir -p`
        // is refused by the kernel; A's file stays as it was.
        const QString bText = QStringLiteral("by-b-") + token;
        const protocol::HttpResponse write = sendAs(real, m_pinned.bob,
            probe::sendSpec("POST", QStringLiteral("/files/write"),
                {{QStringLiteral("path"), QString(links + QStringLiteral("/write/sub/m.txt"))},
                    {QStringLiteral("content"), bText}}));
        QCOMPARE(write.status, 400);
        QVERIFY(!QFileInfo::exists(folder + QStringLiteral("/sub")));
        const protocol::HttpResponse own = sendAs(real, m_pinned.alice,
            probe::getSpec(QStringLiteral("/files/read"),
                {{QStringLiteral("path"), QString(folder + QStringLiteral("/m.txt"))}}));
        QCOMPARE(ProbeSymlinkChecks::writeEffect(own, bText), probe::Effect::NotObserved);
        QCOMPARE(
            pass(probe::judgeMutation(write, ProbeSymlinkChecks::writeEffect(own, bText), met)),
            QString());

        // Moving and deleting through a link to a folder that is not there: 404.
        const QString absent = links + QStringLiteral("/folder/m.txt");
        const protocol::HttpResponse move = sendAs(real, m_pinned.bob,
            probe::sendSpec("POST", QStringLiteral("/files/move"),
                {{QStringLiteral("source"), absent},
                    {QStringLiteral("destination"), QString(links + QStringLiteral("/taken"))}}));
        const protocol::HttpResponse remove = sendAs(real, m_pinned.bob,
            probe::sendSpec(
                "DELETE", QStringLiteral("/files/delete"), {}, {{QStringLiteral("path"), absent}}));
        const protocol::HttpResponse after = sendAs(real, m_pinned.alice,
            probe::getSpec(QStringLiteral("/files/list"), {{QStringLiteral("directory"), folder}}));
        QCOMPARE(move.status, 404);
        QCOMPARE(remove.status, 404);
        for (const protocol::HttpResponse &attempt : {move, remove})
            QCOMPARE(pass(probe::judgeMutation(attempt,
                         probe::listingEffect(after, QStringLiteral("m.txt"), false), met)),
                QString());

        sendAs(real, m_pinned.bob,
            probe::sendSpec(
                "DELETE", QStringLiteral("/files/delete"), {}, {{QStringLiteral("path"), links}}));
        sendAs(real, m_pinned.alice,
            probe::sendSpec(
                "DELETE", QStringLiteral("/files/delete"), {}, {{QStringLiteral("path"), folder}}));
        QVERIFY2(nothingLeft(real), qPrintable(leftovers(real).join(u',')));
    }

    void terminalChecksPassOnRealDenials_data() { bothServers(); }

    // The terminal judgements driven with the refusal each server really gives: B's socket to
    // a terminal id that does not exist. 0.14.5 gives the same refusal for A's terminal in the
    // probe run (currentServerAsMeasured), 0.11.34 attaches B to it
    // (legacyServerShowsItsKnownGaps).
    void terminalChecksPassOnRealDenials()
    {
        QFETCH(QString, which);
        const RealServer &real = server(which);
        const QString token = sandscope::test::randomToken(8);
        const QString fileName = QStringLiteral("sandscope-probe-") + token;
        const QString tokenLine = QStringLiteral("sandscope-tty-") + token;
        QEventLoop loop;
        probe::TerminalAttempt attempt;
        ProbeTerminalSocket::attempt(real.connection(), Identity {m_pinned.bob, QString()},
            QStringLiteral("sandscope") + token,
            ProbeTerminalChecks::typedLine(
                QStringLiteral("printf 'sandscope-tty-%s-%s\\n' %1 x").arg(token), fileName)
                .toUtf8(),
            tokenLine, 8000, &loop, [&](const probe::TerminalAttempt &result) {
                attempt = result;
                loop.quit();
            });
        loop.exec();
        qInfo("%s: connected %d, closed by the server %d, code %d (%s), error \"%s\", %d ms",
            qPrintable(which), attempt.connected, attempt.closedByServer, attempt.closeCode,
            qPrintable(attempt.closeReason), qPrintable(attempt.error), attempt.waitedMs);
        QVERIFY(probe::terminalRefused(attempt));
        QVERIFY(!attempt.output.contains(tokenLine));
        const probe::Precondition met = probe::Precondition::ok();
        const probe::Judgement read
            = probe::judgeTerminalRead(attempt, tokenLine, m_pinned.alice, met);
        QCOMPARE(verdictName(read.verdict), QStringLiteral("PASS"));
        // Nobody's home got the file: A's listing really is unchanged.
        const QString aliceHome = homeOf(real, m_pinned.alice);
        const protocol::HttpResponse after = sendAs(real, m_pinned.alice,
            probe::getSpec(
                QStringLiteral("/files/list"), {{QStringLiteral("directory"), aliceHome}}));
        const probe::Effect effect = probe::listingEffect(after, fileName, true);
        QCOMPARE(effect, probe::Effect::NotObserved);
        QCOMPARE(verdictName(probe::judgeTerminalWrite(attempt, effect, met).verdict),
            QStringLiteral("PASS"));
        // An attempt that is neither refused nor answered is never a PASS.
        probe::TerminalAttempt silent;
        silent.connected = true;
        silent.waitedMs = 8000;
        QCOMPARE(
            verdictName(probe::judgeTerminalRead(silent, tokenLine, m_pinned.alice, met).verdict),
            QStringLiteral("ERROR"));
        QCOMPARE(verdictName(probe::judgeTerminalWrite(silent, effect, met).verdict),
            QStringLiteral("ERROR"));
    }

    void sharedTmpPassesWhenTheKernelRefuses_data() { bothServers(); }

    // The shared-place judgement driven with a refusal the kernel really gives: A's file in
    // /tmp and /dev/shm made under umask 077 (the probe's own files use the default umask).
    void sharedTmpPassesWhenTheKernelRefuses()
    {
        QFETCH(QString, which);
        const RealServer &real = server(which);
        const QString token = sandscope::test::randomToken(8);
        const QString marker = QStringLiteral("shared-") + token;
        QString made;
        QString read;
        for (const QString &place : ProbeSharedCheck::places()) {
            const QString file = shell::quote(ProbeSharedCheck::markerFile(place, token));
            made += QStringLiteral("(umask 077; printf %1 > %2) && cat %2 && echo; ")
                        .arg(marker, file);
            read += probe::shellSection(place.section(u'/', -1), QStringLiteral("cat -- ") + file);
        }
        QCOMPARE(shellAs(real, m_pinned.alice, made).count(marker), 2);
        const QHash<QString, probe::ShellOutcome> sections
            = probe::parseShellSections(shellAs(real, m_pinned.bob, read).split(u'\n'));
        for (const QString &place : ProbeSharedCheck::places()) {
            const probe::ShellOutcome outcome = sections.value(place.section(u'/', -1));
            QVERIFY2(outcome.output.contains(QLatin1String("Permission denied")),
                qPrintable(outcome.output));
            QCOMPARE(verdictName(probe::judgeShell(
                         outcome, probe::ShellAccess::Read, marker, probe::Precondition::ok())
                                     .verdict),
                QStringLiteral("PASS"));
            QFile::remove(ProbeSharedCheck::markerFile(place, token));
        }
        QVERIFY2(nothingLeft(real), qPrintable(leftovers(real).join(u',')));
    }

    void swapRacePassesOnARealRefusal_data() { bothServers(); }

    // The swap race judged with a refusal the servers really give: B's file swapped for a link
    // to a file of A's that does not exist answers 404 while the link is in place (B's own
    // file exists throughout). Every attempt is made and counted; none may show A's data.
    void swapRacePassesOnARealRefusal()
    {
        QFETCH(QString, which);
        const RealServer &real = server(which);
        const QString token = sandscope::test::randomToken(8);
        const QString aliceHome = homeOf(real, m_pinned.alice);
        const QString bobHome = homeOf(real, m_pinned.bob);
        const QString dir = bobHome + QStringLiteral("/.sandscope-probe-") + token;
        const QString own = QStringLiteral("own-") + token;
        QVERIFY(shellAs(real, m_pinned.bob, ProbeSwapCheck::setupCommand(dir, own))
                    .contains(QLatin1String("sandscope-swap-made")));
        const protocol::HttpResponse started = sendAs(real, m_pinned.bob,
            probe::sendSpec("POST", QStringLiteral("/execute"),
                {{QStringLiteral("command"),
                    ProbeSwapCheck::loopCommand(dir,
                        aliceHome + QStringLiteral("/sandscope-probe-absent-") + token, own,
                        5000)}}));
        QCOMPARE(started.status, 200);
        // The attempts start once the loop runs (as the probe's do).
        QVERIFY(QTest::qWaitFor(
            [&] {
                return sendAs(real, m_pinned.bob,
                           probe::getSpec(QStringLiteral("/files/read"),
                               {{QStringLiteral("path"),
                                   QString(dir + QStringLiteral("/running"))}}))
                           .status
                    == 200;
            },
            10000));
        QVector<protocol::HttpResponse> responses;
        for (int i = 0; i < ProbeSwapCheck::attemptCount; ++i)
            responses << sendAs(real, m_pinned.bob,
                probe::getSpec(QStringLiteral("/files/read"),
                    {{QStringLiteral("path"), QString(dir + QStringLiteral("/swap"))}}));
        sendAs(real, m_pinned.bob,
            probe::sendSpec("DELETE",
                QStringLiteral("/execute/") + protocol::parseProcess(started.body).value.info.id,
                {}, {{QStringLiteral("force"), QStringLiteral("true")}}));
        QTest::qWait(1000); // 0.11.34 closes a stale descriptor after a kill
        const probe::Judgement judgement = probe::judgeSwapRace(
            responses, QStringLiteral("marker-") + token, probe::Precondition::ok());
        sendAs(real, m_pinned.bob,
            probe::sendSpec(
                "DELETE", QStringLiteral("/files/delete"), {}, {{QStringLiteral("path"), dir}}));
        qInfo("%s: %s", qPrintable(which), qPrintable(judgement.explanation));
        QCOMPARE(verdictName(judgement.verdict), QStringLiteral("PASS"));
        QVERIFY(judgement.explanation.contains(
            QStringLiteral("%1 attempts").arg(ProbeSwapCheck::attemptCount)));
        QVERIFY2(nothingLeft(real), qPrintable(leftovers(real).join(u',')));
    }

    void cancelRemovesWhatWasCreated()
    {
        // Cancelled in the middle of the first pair: its marker files and process exist.
        // Cancelled from inside a batch of shell results, once A's process runs: nothing is
        // reported after the cancel, and A's markers and process are removed.
        const ProbeRun run = runProbe(*m_pinned.current, options(), 18);
        QVERIFY(run.finished);
        QVERIFY(run.report.cancelled);
        QCOMPARE(run.report.results.size(), 18);
        QCOMPARE(run.resultsEmitted, 18);
        QVERIFY2(
            nothingLeft(*m_pinned.current), qPrintable(leftovers(*m_pinned.current).join(u',')));
    }

    void rerunOfASingleCell()
    {
        ProbeOptions probeOptions = options();
        probeOptions.onlyChecks = {CheckId::FilesGlob};
        probeOptions.onlyPairs = {qMakePair(m_pinned.alice, m_pinned.bob)};
        const ProbeRun run = runProbe(*m_pinned.current, probeOptions);
        QVERIFY(run.finished);
        QCOMPARE(run.report.results.size(), 1);
        QCOMPARE(run.report.results.at(0).subject(), aliceToBob());
        QCOMPARE(verdictOf(run.report, CheckId::FilesGlob, aliceToBob()), QStringLiteral("FAIL"));
        QVERIFY2(
            nothingLeft(*m_pinned.current), qPrintable(leftovers(*m_pinned.current).join(u',')));
    }

    void cliProbeExitCodeAndJson()
    {
        const QString reportPath = m_local.filePath(QStringLiteral("probe.md"));
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("SANDSCOPE_API_KEY"), m_pinned.current->apiKey());
        env.insert(
            QStringLiteral("SANDSCOPE_AUDIT_LOG"), m_local.filePath(QStringLiteral("audit")));
        env.remove(QStringLiteral("DISPLAY"));
        process.setProcessEnvironment(env);
        // The checks themselves are currentServerAsMeasured's (the same core): here a FAIL, a
        // PASS and a check of the accounts, chosen with --checks (a whole probe took 23 s).
        const QStringList checks {QStringLiteral("files.glob"), QStringLiteral("files.read"),
            QStringLiteral("account.twin")};
        process.start(QStringLiteral(SANDSCOPE_BINARY),
            {QStringLiteral("probe"), QStringLiteral("--server"),
                m_pinned.current->url().toString(), QStringLiteral("--users"),
                m_pinned.alice + QLatin1Char(',') + m_pinned.bob, QStringLiteral("--checks"),
                checks.join(QLatin1Char(',')), QStringLiteral("--json"), QStringLiteral("--report"),
                reportPath});
        QVERIFY(process.waitForFinished(120000));
        const QByteArray out = process.readAllStandardOutput();
        const QByteArray err = process.readAllStandardError();
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        // 0.14.5 has FAILs (glob, ps, twin ids): exit code 1.
        QCOMPARE(process.exitCode(), 1);
        QJsonParseError parseError {};
        const QJsonDocument json = QJsonDocument::fromJson(out, &parseError);
        QVERIFY2(parseError.error == QJsonParseError::NoError, out.constData());
        ProbeReport report;
        QString why;
        QVERIFY2(ProbeReport::fromJson(json.object(), &report, &why), qPrintable(why));
        QCOMPARE(report.serverVersion, m_pinned.current->version());
        QCOMPARE(report.users, (QStringList {m_pinned.alice, m_pinned.bob}));
        QVERIFY(report.count(Verdict::Fail) > 0);
        QVERIFY2(errorsOf(report).isEmpty(), qPrintable(errorsOf(report)));
        QCOMPARE(report.exitCode(), process.exitCode());
        QSet<QString> ran;
        for (const CheckResult &result : report.results)
            ran.insert(checkInfo(result.check).key);
        QCOMPARE(ran, QSet<QString>(checks.cbegin(), checks.cend()));
        QCOMPARE(verdictOf(report, CheckId::FilesGlob, aliceToBob()), QStringLiteral("FAIL"));
        QCOMPARE(verdictOf(report, CheckId::FilesRead, bobToAlice()), QStringLiteral("PASS"));
        QVERIFY(!out.contains(m_pinned.current->apiKey().toUtf8()));
        QVERIFY(!err.contains(m_pinned.current->apiKey().toUtf8()));

        QFile markdown(reportPath);
        QVERIFY(markdown.open(QIODevice::ReadOnly));
        const QByteArray text = markdown.readAll();
        QVERIFY(text.startsWith("# Isolation probe: "));
        QVERIFY(!text.contains(m_pinned.current->apiKey().toUtf8()));
        QVERIFY2(
            nothingLeft(*m_pinned.current), qPrintable(leftovers(*m_pinned.current).join(u',')));
    }

    void cliRefusesASingleUser()
    {
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("SANDSCOPE_API_KEY"), m_pinned.current->apiKey());
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(SANDSCOPE_BINARY),
            {QStringLiteral("probe"), QStringLiteral("--server"),
                m_pinned.current->url().toString(), QStringLiteral("--users"), m_pinned.alice});
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitCode(), 2);
        QVERIFY(process.readAllStandardError().contains("at least two user ids"));
    }
};

QTEST_GUILESS_MAIN(TestProbe)
#include "tst_probe.moc"
