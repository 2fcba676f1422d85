// The isolation probe's verdicts from recorded server answers (bodies as 0.11.34 and 0.14.5
// sent them), including every way a check must end in ERROR rather than PASS.

#include "isolation/probecollisionchecks.h"
#include "probing/probejudgement.h"
#include "server/accountnames.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest/QTest>

using namespace sandscope;
using namespace sandscope::probe;
using protocol::HttpResponse;

Q_DECLARE_METATYPE(sandscope::Verdict)
Q_DECLARE_METATYPE(sandscope::probe::Disclosure)
Q_DECLARE_METATYPE(sandscope::probe::Effect)
Q_DECLARE_METATYPE(sandscope::probe::ShellAccess)
Q_DECLARE_METATYPE(sandscope::protocol::HttpResponse)

namespace {

const QString marker = QStringLiteral("sandscope-marker-k3j9x0q2");

HttpResponse answer(int status, const QByteArray &body,
    const QByteArray &contentType = QByteArrayLiteral("application/json"))
{
    HttpResponse response;
    response.status = status;
    response.body = body;
    response.contentType = contentType;
    return response;
}

HttpResponse dropped()
{
    HttpResponse response;
    response.networkError = QNetworkReply::RemoteHostClosedError;
    response.networkErrorString = QStringLiteral("Connection closed");
    return response;
}

const QByteArray accessDenied
    = "{\"detail\":\"Access denied: /home/sst_alice/m.txt belongs to another user\"}";

ShellOutcome shellOutcome(int exitCode, const QString &output)
{
    ShellOutcome outcome;
    outcome.ran = true;
    outcome.exitCode = exitCode;
    outcome.output = output;
    return outcome;
}

} // namespace

Q_DECLARE_METATYPE(sandscope::probe::FileState)

class TestProbeJudgement : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void disclosureVerdicts_data();
    void disclosureVerdicts();
    void disclosureNeverPassesWithoutPrecondition();
    void mutationVerdicts_data();
    void mutationVerdicts();
    void processListSeparatesListingFromCommandLine();
    void processListErrorsOnAnythingButAList();
    void sessionReuseFailsWhenTheCwdLeaks();
    void sessionReusePassesWhenScoped();
    void shellSectionsRoundTripThroughTheirScriptText();
    void shellSectionsIgnoreAnUnfinishedSection();
    void shellSectionWithoutAFinalNewlineEndsAtItsMarker();
    void shellVerdicts_data();
    void shellVerdicts();
    void processTableVerdicts();
    void combineTakesTheWorstVerdict();
    void accountTwinVerdicts();
    void twinIdSharesTheLegacyAccountButNotTheHashedOne_data();
    void twinIdSharesTheLegacyAccountButNotTheHashedOne();
    void twinIdIsEmptyForHashedShortIds();
    void reservedIdVerdicts_data();
    void reservedIdVerdicts();
    void networkIsInformational();
    void terminalVerdicts_data();
    void accountVariantVerdicts();
    void swapRaceNeverPassesUnlessRefused();
    void writeSwapRaceFailsOnAnyChangeOfTheFile_data();
    void writeSwapRaceFailsOnAnyChangeOfTheFile();
    void fileStateReadsWhatItsCommandPrints();
    void collisionIdsLookLikeTheIdAndOnlyNewProbedAccountsGo();
    void terminalVerdicts();
    void whoAmIParsesAccountUidAndHome();
};

void TestProbeJudgement::disclosureVerdicts_data()
{
    QTest::addColumn<HttpResponse>("response");
    QTest::addColumn<Disclosure>("kind");
    QTest::addColumn<Verdict>("expected");

    QTest::newRow("403 access denied (0.11.34)")
        << answer(403, accessDenied) << Disclosure::FileText << Verdict::Pass;
    QTest::newRow("400 access denied (0.14.5)")
        << answer(400, accessDenied) << Disclosure::FileText << Verdict::Pass;
    QTest::newRow("400 X-User-Id required (0.14.5, no user id)")
        << answer(400, "{\"detail\":\"X-User-Id is required in multi-user mode\"}")
        << Disclosure::FileText << Verdict::Pass;
    QTest::newRow("404 process hidden (0.14.5)")
        << answer(404, "{\"detail\":\"Process not found\"}") << Disclosure::ProcessOutput
        << Verdict::Pass;
    QTest::newRow("200 file content with marker") << answer(200,
        "{\"path\":\"/home/sst_alice/m.txt\",\"total_lines\":1,\"content\":\"" + marker.toUtf8()
            + "\"}") << Disclosure::FileText << Verdict::Fail;
    QTest::newRow("200 grep match with marker") << answer(200,
        "{\"query\":\"q\",\"path\":\"/home/a\",\"matches\":[{\"file\":\"/home/a/m.txt\","
        "\"line\":1,\"content\":\""
            + marker.toUtf8() + "\"}],\"truncated\":false}")
                                                << Disclosure::GrepMatches << Verdict::Fail;
    // The server echoes the query: an empty result that repeats the marker is no leak.
    QTest::newRow("200 grep filtered, query echoed") << answer(200,
        "{\"query\":\"" + marker.toUtf8()
            + "\",\"path\":\"/home/a\",\"matches\":[],\"truncated\":false}")
                                                     << Disclosure::GrepMatches << Verdict::Pass;
    QTest::newRow("200 glob names A's file (both versions)") << answer(200,
        "{\"pattern\":\"x\",\"path\":\"/home/a\",\"matches\":[{\"path\":\"" + marker.toUtf8()
            + "\",\"type\":\"file\",\"size\":9,\"modified\":1795970134.28}],"
              "\"truncated\":false}") << Disclosure::GlobMatches
                                                             << Verdict::Fail;
    QTest::newRow("200 listing names A's folder") << answer(200,
        "{\"dir\":\"/home/a\",\"entries\":[{\"name\":\"" + marker.toUtf8()
            + "\",\"type\":\"directory\",\"size\":4096,\"modified\":1.0}]}")
                                                  << Disclosure::Listing << Verdict::Fail;
    // The command echoes the marker's parts; only the output counts.
    QTest::newRow("200 process output with marker") << answer(200,
        "{\"id\":\"p1\",\"command\":\"printf x\",\"status\":\"running\",\"exit_code\":null,"
        "\"output\":[{\"type\":\"output\",\"data\":\""
            + marker.toUtf8() + "\\r\\n\"}],\"truncated\":false,\"next_offset\":1}")
                                                    << Disclosure::ProcessOutput << Verdict::Fail;
    QTest::newRow("200 process command names the marker, output does not") << answer(200,
        "{\"id\":\"p1\",\"command\":\"echo " + marker.toUtf8()
            + "\",\"status\":\"running\",\"exit_code\":null,\"output\":[],"
              "\"truncated\":false,\"next_offset\":0}") << Disclosure::ProcessOutput
                                                                           << Verdict::Pass;
    QTest::newRow("200 zip naming the marker")
        << answer(200, "PK\x03\x04...." + marker.toUtf8() + "....", "application/zip")
        << Disclosure::Raw << Verdict::Fail;
    // A real local file header has NUL bytes before the name (Qt 5's fromLatin1(QByteArray)
    // stopped there, so an archive that handed out A's files was judged "filtered").
    QTest::newRow("200 zip with NUL bytes before the name") << answer(200,
        QByteArray("PK\x03\x04\x14\x00\x00\x00\x08\x00", 10) + "folder/" + marker.toUtf8()
            + QByteArray("\x00\x00PK", 4),
        "application/zip") << Disclosure::Raw << Verdict::Fail;
    QTest::newRow("200 zip without the name") << answer(
        200, QByteArray("PK\x03\x04\x14\x00\x00\x00\x08\x00other.txt", 19), "application/zip")
                                              << Disclosure::Raw << Verdict::Pass;
    QTest::newRow("200 HTML page from a proxy") << answer(200, "<html><body>Welcome</body></html>",
        "text/html") << Disclosure::Listing << Verdict::Error;
    QTest::newRow("500 server error") << answer(500, "Internal Server Error", "text/plain")
                                      << Disclosure::FileText << Verdict::Error;
    QTest::newRow("502 proxy page") << answer(502, "<html>Bad Gateway</html>", "text/html")
                                    << Disclosure::FileText << Verdict::Error;
    QTest::newRow("401 key refused") << answer(401, "{\"detail\":\"Invalid API key\"}")
                                     << Disclosure::FileText << Verdict::Error;
    QTest::newRow("400 without a denial") << answer(400, "{\"detail\":\"Invalid regex\"}")
                                          << Disclosure::GrepMatches << Verdict::Error;
    QTest::newRow("422 validation")
        << answer(422, "{\"detail\":[]}") << Disclosure::FileText << Verdict::Error;
    QTest::newRow("dropped connection") << dropped() << Disclosure::FileText << Verdict::Error;
}

void TestProbeJudgement::disclosureVerdicts()
{
    QFETCH(HttpResponse, response);
    QFETCH(Disclosure, kind);
    QFETCH(Verdict, expected);
    const Judgement judgement = judgeDisclosure(response, kind, marker, Precondition::ok());
    QCOMPARE(verdictName(judgement.verdict), verdictName(expected));
    QVERIFY(!judgement.explanation.isEmpty());
}

void TestProbeJudgement::disclosureNeverPassesWithoutPrecondition()
{
    const Precondition missing = Precondition::missing(QStringLiteral("A cannot read its marker"));
    for (const HttpResponse &response : {answer(403, accessDenied), answer(404, "{}")}) {
        const Judgement judgement
            = judgeDisclosure(response, Disclosure::FileText, marker, missing);
        QCOMPARE(judgement.verdict, Verdict::Error);
        QVERIFY(judgement.explanation.contains(QLatin1String("A cannot read its marker")));
    }
}

void TestProbeJudgement::mutationVerdicts_data()
{
    QTest::addColumn<HttpResponse>("response");
    QTest::addColumn<Effect>("effect");
    QTest::addColumn<bool>("preconditionMet");
    QTest::addColumn<Verdict>("expected");

    QTest::newRow("denied, unchanged")
        << answer(403, accessDenied) << Effect::NotObserved << true << Verdict::Pass;
    QTest::newRow("400 denied write (both versions), unchanged")
        << answer(400, accessDenied) << Effect::NotObserved << true << Verdict::Pass;
    // The kernel refused root the file (e.g. immutable): the write endpoint answers 400 with
    // the OSError's text (both pinned versions, tst_probedenials).
    QTest::newRow("400 naming the kernel's refusal, unchanged")
        << answer(400, "{\"detail\":\"[Errno 1] Operation not permitted: '/home/b/.links/swap'\"}")
        << Effect::NotObserved << true << Verdict::Pass;
    QTest::newRow("400 permission denied, unchanged")
        << answer(400, "{\"detail\":\"[Errno 13] Permission denied: '/home/b/x'\"}")
        << Effect::NotObserved << true << Verdict::Pass;
    QTest::newRow("400 of another kind, unchanged")
        << answer(400, "{\"detail\":\"[Errno 21] Is a directory: '/home/b/x'\"}")
        << Effect::NotObserved << true << Verdict::Error;
    QTest::newRow("404 kill of a hidden process, still running")
        << answer(404, "{\"detail\":\"Process not found\"}") << Effect::NotObserved << true
        << Verdict::Pass;
    QTest::newRow("200 kill (0.11.34)")
        << answer(200, "{\"status\":\"killed\"}") << Effect::Observed << true << Verdict::Fail;
    QTest::newRow("200 input, not seen by A")
        << answer(200, "{\"status\":\"ok\"}") << Effect::NotObserved << true << Verdict::Fail;
    QTest::newRow("denied but the file is gone")
        << answer(403, accessDenied) << Effect::Observed << true << Verdict::Fail;
    QTest::newRow("denied, A could not verify")
        << answer(403, accessDenied) << Effect::Unknown << true << Verdict::Error;
    QTest::newRow("denied, precondition not met")
        << answer(403, accessDenied) << Effect::NotObserved << false << Verdict::Error;
    QTest::newRow("5xx") << answer(503, "<html>down</html>", "text/html") << Effect::NotObserved
                         << true << Verdict::Error;
    QTest::newRow("dropped") << dropped() << Effect::NotObserved << true << Verdict::Error;
    // Both versions create a written file's folder with `sudo -u B mkdir -p` first.
    QTest::newRow("400 from the server's step as B, unchanged")
        << answer(400,
               "{\"detail\":\"Command '['sudo', '-u', 'sst_bob', 'mkdir', '-p', "
               "'/home/sst_bob/l/sub']' returned non-zero exit status 1.\"}")
        << Effect::NotObserved << true << Verdict::Pass;
    QTest::newRow("409 conflict") << answer(409, "{\"detail\":\"Destination exists\"}")
                                  << Effect::NotObserved << true << Verdict::Error;
}

void TestProbeJudgement::mutationVerdicts()
{
    QFETCH(HttpResponse, response);
    QFETCH(Effect, effect);
    QFETCH(bool, preconditionMet);
    QFETCH(Verdict, expected);
    const Precondition precondition = preconditionMet
        ? Precondition::ok()
        : Precondition::missing(QStringLiteral("A's files are missing"));
    QCOMPARE(
        verdictName(judgeMutation(response, effect, precondition).verdict), verdictName(expected));
}

void TestProbeJudgement::processListSeparatesListingFromCommandLine()
{
    const QByteArray list = "[{\"id\":\"p-a\",\"command\":\"sleep 120 # sandscope-command-77\","
                            "\"status\":\"running\",\"exit_code\":null,\"log_path\":\"/l\"},"
                            "{\"id\":\"p-b\",\"command\":\"id\",\"status\":\"done\","
                            "\"exit_code\":0,\"log_path\":\"/m\"}]";
    const ProcessListJudgement global = judgeProcessList(answer(200, list), QStringLiteral("p-a"),
        QStringLiteral("sandscope-command-77"), Precondition::ok());
    QCOMPARE(global.listed.verdict, Verdict::Fail);
    QCOMPARE(global.commandLine.verdict, Verdict::Fail);

    // Listed under a different command: the id leaks, the command line does not.
    const ProcessListJudgement idOnly = judgeProcessList(answer(200, list), QStringLiteral("p-a"),
        QStringLiteral("sandscope-command-other"), Precondition::ok());
    QCOMPARE(idOnly.listed.verdict, Verdict::Fail);
    QCOMPARE(idOnly.commandLine.verdict, Verdict::Pass);

    const ProcessListJudgement scoped = judgeProcessList(answer(200, "[]"), QStringLiteral("p-a"),
        QStringLiteral("sandscope-command-77"), Precondition::ok());
    QCOMPARE(scoped.listed.verdict, Verdict::Pass);
    QCOMPARE(scoped.commandLine.verdict, Verdict::Pass);
}

void TestProbeJudgement::processListErrorsOnAnythingButAList()
{
    for (const HttpResponse &response :
        {answer(200, "{\"not\":\"a list\"}"), answer(500, "oops", "text/plain"), dropped()}) {
        const ProcessListJudgement judgement = judgeProcessList(
            response, QStringLiteral("p"), QStringLiteral("m"), Precondition::ok());
        QCOMPARE(judgement.listed.verdict, Verdict::Error);
        QCOMPARE(judgement.commandLine.verdict, Verdict::Error);
    }
    const ProcessListJudgement noProcess = judgeProcessList(answer(200, "[]"), QStringLiteral("p"),
        QStringLiteral("m"), Precondition::missing(QStringLiteral("A's process did not start")));
    QCOMPARE(noProcess.listed.verdict, Verdict::Error);
}

void TestProbeJudgement::sessionReuseFailsWhenTheCwdLeaks()
{
    // 0.11.34: session cwds are keyed by the session id alone.
    const Judgement judgement
        = judgeSessionReuse(answer(200, "{\"cwd\":\"/home/sst_alice/chat-x\"}"), answer(200, "[]"),
            QStringLiteral("/home/sst_alice"), QStringLiteral("p"), Precondition::ok());
    QCOMPARE(judgement.verdict, Verdict::Fail);
    QVERIFY(judgement.explanation.contains(QLatin1String("/home/sst_alice/chat-x")));
}

void TestProbeJudgement::sessionReusePassesWhenScoped()
{
    // 0.14.5: B keeps its own cwd and sees none of A's processes.
    const Judgement judgement = judgeSessionReuse(
        answer(200, "{\"cwd\":\"/home/sst_bob\",\"home\":\"/home/sst_bob\"}"), answer(200, "[]"),
        QStringLiteral("/home/sst_alice"), QStringLiteral("p"), Precondition::ok());
    QCOMPARE(judgement.verdict, Verdict::Pass);
    // "/home/sst_alice2" is not inside "/home/sst_alice".
    QCOMPARE(judgeSessionReuse(answer(200, "{\"cwd\":\"/home/sst_alice2\"}"), answer(200, "[]"),
                 QStringLiteral("/home/sst_alice"), QStringLiteral("p"), Precondition::ok())
                 .verdict,
        Verdict::Pass);
    QCOMPARE(judgeSessionReuse(answer(200, "{\"cwd\":\"/home/sst_bob\"}"), dropped(),
                 QStringLiteral("/home/sst_alice"), QStringLiteral("p"), Precondition::ok())
                 .verdict,
        Verdict::Error);
}

void TestProbeJudgement::shellSectionsRoundTripThroughTheirScriptText()
{
    const QString script = shellSection(QStringLiteral("read-home"), QStringLiteral("cat f"));
    // The script's own text must not look like a section (it shows up in ps and logs).
    QVERIFY(!script.contains(QLatin1String("@@sandscope-begin")));
    QVERIFY(script.contains(QLatin1String("cat f")));

    // What bash printed for two sections, through the PTY (CRLF).
    const QStringList lines {QStringLiteral("@@sandscope-begin read-home\r"),
        QStringLiteral("cat: /home/a/m.txt: Permission denied\r"),
        QStringLiteral("@@sandscope-end read-home 1\r"), QStringLiteral("@@sandscope-begin ps\r"),
        QStringLiteral("USER ARGS\r"), QStringLiteral("alice sleep 120\r"),
        QStringLiteral("@@sandscope-end ps 0\r")};
    const QHash<QString, ShellOutcome> sections = parseShellSections(lines);
    QCOMPARE(sections.size(), 2);
    QVERIFY(sections.value(QStringLiteral("read-home")).ran);
    QCOMPARE(sections.value(QStringLiteral("read-home")).exitCode, 1);
    QCOMPARE(sections.value(QStringLiteral("read-home")).output,
        QStringLiteral("cat: /home/a/m.txt: Permission denied"));
    QCOMPARE(
        sections.value(QStringLiteral("ps")).output, QStringLiteral("USER ARGS\nalice sleep 120"));
}

void TestProbeJudgement::shellSectionsIgnoreAnUnfinishedSection()
{
    const QStringList lines {QStringLiteral("@@sandscope-begin read-home"),
        QStringLiteral("partial output"), QStringLiteral("@@sandscope-end other 0")};
    const QHash<QString, ShellOutcome> sections = parseShellSections(lines);
    QVERIFY(!sections.value(QStringLiteral("read-home")).ran);
    QCOMPARE(judgeShell(sections.value(QStringLiteral("read-home")), ShellAccess::Read, marker,
                 Precondition::ok())
                 .verdict,
        Verdict::Error);
}

// /proc/<pid>/cmdline and environ end in NUL, not a newline: the end marker then follows the
// output on its line (seen on both pinned servers as "Inconclusive" until this was read).
void TestProbeJudgement::shellSectionWithoutAFinalNewlineEndsAtItsMarker()
{
    const QStringList lines {QStringLiteral("@@sandscope-begin cmdline\r"),
        QStringLiteral("bash -c sleep 120 # marker @@sandscope-end cmdline 0\r")};
    const QHash<QString, ShellOutcome> sections = parseShellSections(lines);
    const ShellOutcome outcome = sections.value(QStringLiteral("cmdline"));
    QVERIFY(outcome.ran);
    QCOMPARE(outcome.exitCode, 0);
    QCOMPARE(outcome.output, QStringLiteral("bash -c sleep 120 # marker "));
    QCOMPARE(judgeShell(outcome, ShellAccess::Read, QStringLiteral("marker"), Precondition::ok())
                 .verdict,
        Verdict::Fail);
}

void TestProbeJudgement::shellVerdicts_data()
{
    QTest::addColumn<ShellAccess>("access");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("output");
    QTest::addColumn<Verdict>("expected");

    QTest::newRow("cat denied") << ShellAccess::Read << 1
                                << QStringLiteral("cat: /home/a/m: Permission denied")
                                << Verdict::Pass;
    QTest::newRow("cat printed the marker") << ShellAccess::Read << 0 << marker << Verdict::Fail;
    QTest::newRow("cat: no such file (precondition broken)")
        << ShellAccess::Read << 1 << QStringLiteral("cat: /home/a/m: No such file or directory")
        << Verdict::Error;
    QTest::newRow("cat: exit 0 without the marker")
        << ShellAccess::Read << 0 << QStringLiteral("something else") << Verdict::Error;
    QTest::newRow("touch denied") << ShellAccess::Modify << 1
                                  << QStringLiteral("touch: cannot touch 'x': Permission denied")
                                  << Verdict::Pass;
    QTest::newRow("touch succeeded") << ShellAccess::Modify << 0 << QString() << Verdict::Fail;
    QTest::newRow("rm not permitted") << ShellAccess::Modify << 1
                                      << QStringLiteral("rm: cannot remove 'x': Operation not "
                                                        "permitted")
                                      << Verdict::Pass;
    QTest::newRow("rm failed otherwise")
        << ShellAccess::Modify << 1 << QStringLiteral("rm: cannot remove 'x': No such file")
        << Verdict::Error;
}

void TestProbeJudgement::shellVerdicts()
{
    QFETCH(ShellAccess, access);
    QFETCH(int, exitCode);
    QFETCH(QString, output);
    QFETCH(Verdict, expected);
    QCOMPARE(
        verdictName(
            judgeShell(shellOutcome(exitCode, output), access, marker, Precondition::ok()).verdict),
        verdictName(expected));
    QCOMPARE(judgeShell(shellOutcome(exitCode, output), access, marker,
                 Precondition::missing(QStringLiteral("no marker")))
                 .verdict,
        Verdict::Error);
}

void TestProbeJudgement::processTableVerdicts()
{
    const QString command = QStringLiteral("sandscope-command-abc");
    QCOMPARE(
        judgeProcessTable(
            shellOutcome(0, QStringLiteral("root sudo -u a -- bash -c sleep 120 # ") + command),
            command, Precondition::ok())
            .verdict,
        Verdict::Fail);
    QCOMPARE(judgeProcessTable(
                 shellOutcome(0, QStringLiteral("bob ps -eww")), command, Precondition::ok())
                 .verdict,
        Verdict::Pass);
    QCOMPARE(judgeProcessTable(shellOutcome(127, QStringLiteral("ps: command not found")), command,
                 Precondition::ok())
                 .verdict,
        Verdict::Error);
    QCOMPARE(
        judgeProcessTable(ShellOutcome(), command, Precondition::ok()).verdict, Verdict::Error);
}

void TestProbeJudgement::combineTakesTheWorstVerdict()
{
    const Judgement pass {Verdict::Pass, QStringLiteral("p")};
    const Judgement fail {Verdict::Fail, QStringLiteral("f")};
    const Judgement error {Verdict::Error, QStringLiteral("e")};
    QCOMPARE(combine({pass, pass}).verdict, Verdict::Pass);
    QCOMPARE(combine({pass, error}).verdict, Verdict::Error);
    QCOMPARE(combine({error, fail, pass}).verdict, Verdict::Fail);
    QCOMPARE(combine({pass, error}).explanation, QStringLiteral("p e"));
    QCOMPARE(combine({}).verdict, Verdict::Error);
}

void TestProbeJudgement::accountTwinVerdicts()
{
    AccountObservation first;
    first.userId = QStringLiteral("probealice");
    first.account = QStringLiteral("sst_probeali");
    AccountObservation twin;
    twin.userId = QStringLiteral("PROBEALI-x1");
    twin.account = QStringLiteral("sst_probeali");
    QCOMPARE(judgeAccountTwin(first, twin).verdict, Verdict::Fail);
    twin.account = QStringLiteral("sst_probeali_1234abcd");
    QCOMPARE(judgeAccountTwin(first, twin).verdict, Verdict::Pass);
    twin.account.clear();
    twin.error = QStringLiteral("HTTP 500");
    QCOMPARE(judgeAccountTwin(first, twin).verdict, Verdict::Error);
    first.account.clear();
    QCOMPARE(judgeAccountTwin(first, twin).verdict, Verdict::Error);
}

void TestProbeJudgement::twinIdSharesTheLegacyAccountButNotTheHashedOne_data()
{
    QTest::addColumn<QString>("userId");
    QTest::newRow("long id") << QStringLiteral("probealice");
    QTest::newRow("uuid") << QStringLiteral("3f2a9c1e-7b6d-4e5f-8a9b-0c1d2e3f4a5b");
    QTest::newRow("mail") << QStringLiteral("alice@example.com");
    QTest::newRow("short id") << QStringLiteral("bob1");
}

void TestProbeJudgement::twinIdSharesTheLegacyAccountButNotTheHashedOne()
{
    QFETCH(QString, userId);
    const QString twin = twinUserId(userId, QStringLiteral("zz9"));
    QVERIFY(!twin.isEmpty());
    QVERIFY(twin != userId);
    QVERIFY(validateUserId(twin));
    const QString prefix = QStringLiteral("sst_");
    QCOMPARE(predictAccountName(twin, AccountRule::FirstEightAlnum, prefix),
        predictAccountName(userId, AccountRule::FirstEightAlnum, prefix));
    QVERIFY(predictAccountName(twin, AccountRule::SlugWithHash, prefix)
        != predictAccountName(userId, AccountRule::SlugWithHash, prefix));
}

void TestProbeJudgement::twinIdIsEmptyForHashedShortIds()
{
    QVERIFY(twinUserId(QStringLiteral("ab"), QStringLiteral("x")).isEmpty());
}

void TestProbeJudgement::reservedIdVerdicts_data()
{
    QTest::addColumn<QString>("account");
    QTest::addColumn<int>("uid");
    QTest::addColumn<int>("status");
    QTest::addColumn<bool>("ordinaryIdsWork");
    QTest::addColumn<Verdict>("expected");

    QTest::newRow("root runs as root (0.11.34, no prefix)")
        << QStringLiteral("root") << 0 << 0 << true << Verdict::Fail;
    QTest::newRow("runs as the server's account")
        << QStringLiteral("otserver") << 1500 << 0 << true << Verdict::Fail;
    QTest::newRow("system account") << QStringLiteral("daemon") << 1 << 0 << true << Verdict::Fail;
    QTest::newRow("own ordinary account (prefix)")
        << QStringLiteral("sst_root") << 1023 << 0 << true << Verdict::Pass;
    QTest::newRow("refused with 500 (0.14.5, no prefix)")
        << QString() << -1 << 500 << true << Verdict::Pass;
    QTest::newRow("500 while no id works at all")
        << QString() << -1 << 500 << false << Verdict::Error;
    QTest::newRow("refused with 400") << QString() << -1 << 400 << true << Verdict::Pass;
    QTest::newRow("502 from a proxy") << QString() << -1 << 502 << true << Verdict::Error;
    QTest::newRow("401") << QString() << -1 << 401 << true << Verdict::Error;
    QTest::newRow("no answer") << QString() << -1 << 0 << true << Verdict::Error;
    QTest::newRow("account without uid")
        << QStringLiteral("x") << -1 << 0 << true << Verdict::Error;
}

void TestProbeJudgement::reservedIdVerdicts()
{
    QFETCH(QString, account);
    QFETCH(int, uid);
    QFETCH(int, status);
    QFETCH(bool, ordinaryIdsWork);
    QFETCH(Verdict, expected);
    AccountObservation observation;
    observation.userId = QStringLiteral("root");
    observation.account = account;
    observation.uid = uid;
    observation.status = status;
    if (account.isEmpty())
        observation.error = QStringLiteral("Internal Server Error");
    QCOMPARE(verdictName(
                 judgeReservedId(observation, QStringLiteral("otserver"), ordinaryIdsWork).verdict),
        verdictName(expected));
}

void TestProbeJudgement::networkIsInformational()
{
    const QString greeting = QStringLiteral("sandscope-net-1");
    QCOMPARE(judgeNetwork(shellOutcome(0, greeting), greeting, Precondition::ok()).verdict,
        Verdict::Info);
    QCOMPARE(judgeNetwork(shellOutcome(1, QStringLiteral("Connection refused")), greeting,
                 Precondition::ok())
                 .verdict,
        Verdict::Info);
    QCOMPARE(judgeNetwork(ShellOutcome(), greeting, Precondition::ok()).verdict, Verdict::Error);
    QCOMPARE(judgeNetwork(shellOutcome(0, greeting), greeting,
                 Precondition::missing(QStringLiteral("no listener")))
                 .verdict,
        Verdict::Error);
}

void TestProbeJudgement::swapRaceNeverPassesUnlessRefused()
{
    const auto read = [](int status, const QByteArray &content) {
        protocol::HttpResponse response;
        response.status = status;
        response.contentType = "application/json";
        response.body = status == 200
            ? QJsonDocument(QJsonObject {{QStringLiteral("path"), QStringLiteral("/home/b/x")},
                                {QStringLiteral("content"), QString::fromUtf8(content)}})
                  .toJson()
            : QByteArray(R"({"detail":"File not found"})");
        return response;
    };
    const auto met = probe::Precondition::ok();
    const auto own = read(200, "own");
    const auto won = read(200, "marker-1");
    const auto hidden = read(404, {});
    QCOMPARE(probe::judgeSwapRace({own, own, won, hidden}, QStringLiteral("marker-1"), met).verdict,
        Verdict::Fail);
    QVERIFY(probe::judgeSwapRace({own, own, won}, QStringLiteral("marker-1"), met)
                .explanation.contains(QLatin1String("attempt 3 of 3")));
    // Only B's own file: the race was not won, which proves nothing.
    const probe::Judgement notWon
        = probe::judgeSwapRace({own, own, own}, QStringLiteral("marker-1"), met);
    QCOMPARE(notWon.verdict, Verdict::Error);
    QVERIFY(notWon.explanation.contains(QLatin1String("3 attempts")));
    QCOMPARE(probe::judgeSwapRace({own, hidden, own}, QStringLiteral("marker-1"), met).verdict,
        Verdict::Pass);
    QCOMPARE(probe::judgeSwapRace({}, QStringLiteral("marker-1"), met).verdict, Verdict::Error);
    QCOMPARE(probe::judgeSwapRace({own, won}, QStringLiteral("marker-1"),
                 probe::Precondition::missing(QStringLiteral("no loop")))
                 .verdict,
        Verdict::Error);
}

namespace {

protocol::HttpResponse writeAnswer(int status)
{
    protocol::HttpResponse response;
    response.status = status;
    response.body = status == 200 ? QByteArray(R"({"path":"/home/b/x","size":4})")
                                  : QByteArray(R"({"detail":"[Errno 1] Operation not permitted"})");
    return response;
}

FileState stateOf(const QString &owner, const QString &mode, const QString &content)
{
    return FileState {true, owner, mode, content};
}

} // namespace

void TestProbeJudgement::writeSwapRaceFailsOnAnyChangeOfTheFile_data()
{
    QTest::addColumn<FileState>("after");
    QTest::addColumn<bool>("refused");
    QTest::addColumn<int>("verdict");
    QTest::addColumn<QString>("named");
    const FileState before = stateOf(QStringLiteral("alice"), QStringLiteral("600"), marker);
    QTest::newRow("owner") << stateOf(QStringLiteral("bob"), QStringLiteral("600"), marker) << true
                           << int(Verdict::Fail) << QStringLiteral("owner alice → bob");
    QTest::newRow("mode") << stateOf(QStringLiteral("alice"), QStringLiteral("620"), marker)
                          << false << int(Verdict::Fail) << QStringLiteral("mode 600 → 620");
    QTest::newRow("content") << stateOf(
        QStringLiteral("alice"), QStringLiteral("600"), QStringLiteral("by-b"))
                             << false << int(Verdict::Fail) << QStringLiteral("content");
    QTest::newRow("unchanged, refused")
        << before << true << int(Verdict::Pass) << QStringLiteral("Operation not permitted");
    QTest::newRow("unchanged, never refused")
        << before << false << int(Verdict::Error) << QStringLiteral("race was not won");
    QTest::newRow("not seen afterwards")
        << FileState() << true << int(Verdict::Error) << QStringLiteral("could not see");
}

void TestProbeJudgement::writeSwapRaceFailsOnAnyChangeOfTheFile()
{
    QFETCH(FileState, after);
    QFETCH(bool, refused);
    QFETCH(int, verdict);
    QFETCH(QString, named);
    const FileState before = stateOf(QStringLiteral("alice"), QStringLiteral("600"), marker);
    QVector<protocol::HttpResponse> responses {writeAnswer(200), writeAnswer(200)};
    if (refused)
        responses << writeAnswer(403);
    const Judgement judgement = judgeWriteSwapRace(responses, before, after, Precondition::ok());
    QCOMPARE(int(judgement.verdict), verdict);
    QVERIFY2(judgement.explanation.contains(named), qPrintable(judgement.explanation));
    QVERIFY2(judgement.explanation.contains(QStringLiteral("%1 attempts").arg(responses.size()))
            || verdict == int(Verdict::Error),
        qPrintable(judgement.explanation));
    // Nothing is judged without A's own look first.
    QCOMPARE(judgeWriteSwapRace(responses, FileState(), after, Precondition::ok()).verdict,
        Verdict::Error);
    QCOMPARE(judgeWriteSwapRace(
                 responses, before, after, Precondition::missing(QStringLiteral("no loop")))
                 .verdict,
        Verdict::Error);
}

void TestProbeJudgement::fileStateReadsWhatItsCommandPrints()
{
    const QString command = fileStateCommand(QStringLiteral("/home/a/it's.txt"));
    QVERIFY(command.contains(QLatin1String("'/home/a/it'\\''s.txt'")));
    const FileState state = parseFileState({QStringLiteral("sandscope-state=sstab_alice 600\r"),
        QStringLiteral("sandscope-content=") + marker + QLatin1Char('\r')});
    QVERIFY(state.known);
    QCOMPARE(state.owner, QStringLiteral("sstab_alice"));
    QCOMPARE(state.mode, QStringLiteral("600"));
    QCOMPARE(state.content, marker);
    // Half of it is not a state.
    QVERIFY(!parseFileState({QStringLiteral("sandscope-state=alice 600")}).known);
    QVERIFY(!parseFileState({QStringLiteral("stat: cannot statx: Permission denied")}).known);
}

void TestProbeJudgement::accountVariantVerdicts()
{
    probe::AccountObservation owner;
    owner.userId = QStringLiteral("alice-1");
    owner.account = QStringLiteral("sst_alice1");
    owner.uid = 1001;
    const auto variant = [](const QString &account, int uid) {
        probe::AccountObservation observation;
        observation.userId = QStringLiteral("../alice-1");
        observation.account = account;
        observation.uid = uid;
        return observation;
    };
    const auto judge = [&](const probe::AccountObservation &seen) {
        return verdictName(
            probe::judgeAccountVariant(owner, seen, QStringLiteral("server"), true).verdict);
    };
    QCOMPARE(judge(variant(QStringLiteral("sst_alice1"), 1001)), QStringLiteral("FAIL"));
    QCOMPARE(judge(variant(QStringLiteral("root"), 0)), QStringLiteral("FAIL"));
    QCOMPARE(judge(variant(QStringLiteral("server"), 1000)), QStringLiteral("FAIL"));
    QCOMPARE(judge(variant(QStringLiteral("daemon"), 1)), QStringLiteral("FAIL"));
    QCOMPARE(judge(variant(QStringLiteral("sst_other"), 1002)), QStringLiteral("PASS"));
    QCOMPARE(judge(variant(QString(), -1)), QStringLiteral("ERROR"));
    // The server still maps the id to an account a probe removed: "sudo: unknown user".
    const probe::AccountObservation gone = probe::parseWhoAmI(
        QStringLiteral("root"), {QStringLiteral("sudo: unknown user sst_root")});
    QVERIFY(gone.accountGone);
    QCOMPARE(gone.account, QStringLiteral("sst_root"));
    QCOMPARE(judge(gone), QStringLiteral("PASS"));
    probe::AccountObservation goneRoot = gone;
    goneRoot.account = QStringLiteral("root");
    QCOMPARE(judge(goneRoot), QStringLiteral("ERROR"));
}

void TestProbeJudgement::collisionIdsLookLikeTheIdAndOnlyNewProbedAccountsGo()
{
    const QStringList ids = ProbeCollisionChecks::lookalikeIds(QStringLiteral("probe-alice"));
    QCOMPARE(ids.size(), 3);
    for (const QString &id : ids) {
        QCOMPARE(id.size(), QStringLiteral("probe-alice").size());
        QVERIFY(id != QStringLiteral("probe-alice"));
    }
    QCOMPARE(ids.at(0).mid(1), QStringLiteral("robe-alice")); // Cyrillic er first
    QCOMPARE(ids.at(1).left(10), QStringLiteral("probe-alic")); // Cyrillic ie last
    QCOMPARE(ids.at(2).at(0), QChar(0xFF50)); // fullwidth p
    QVERIFY(ProbeCollisionChecks::pathIds(QStringLiteral("a")).contains(QStringLiteral("../a")));
    // Only accounts that are new AND that a probed id ran as are removed.
    QCOMPARE(ProbeCollisionChecks::createdAccounts({QStringLiteral("alice")},
                 {QStringLiteral("alice"), QStringLiteral("new"), QStringLiteral("someone")},
                 {QStringLiteral("alice"), QStringLiteral("new")}),
        QStringList {QStringLiteral("new")});
    QVERIFY(ProbeCollisionChecks::removalScript({QStringLiteral("a b")})
                .contains(QStringLiteral("userdel -r -f 'a b'")));
}

void TestProbeJudgement::terminalVerdicts_data()
{
    QTest::addColumn<bool>("connected");
    QTest::addColumn<bool>("closedByServer");
    QTest::addColumn<int>("closeCode");
    QTest::addColumn<QString>("output");
    QTest::addColumn<int>("effect");
    QTest::addColumn<QString>("read");
    QTest::addColumn<QString>("write");
    const QString echo = QStringLiteral("$ printf 'sandscope-tty-%s-%s\\n' t1 \"$(id -un)\"\r\n");
    const int unchanged = int(probe::Effect::NotObserved);
    QTest::newRow("A's shell answers B")
        << true << false << 0 << echo + QStringLiteral("sandscope-tty-t1-sstalice\r\n")
        << int(probe::Effect::Observed) << "FAIL"
        << "FAIL";
    QTest::newRow("closed with 4004") << true << true << 4004 << QString() << unchanged << "PASS"
                                      << "PASS";
    QTest::newRow("handshake refused") << false << false << 0 << QString() << unchanged << "PASS"
                                       << "PASS";
    // Only the echo of B's own keystrokes: the shell never answered.
    QTest::newRow("open but silent") << true << false << 0 << echo << unchanged << "ERROR"
                                     << "ERROR";
    QTest::newRow("normal close") << true << true << 1000 << QString() << unchanged << "ERROR"
                                  << "ERROR";
    QTest::newRow("B's own shell")
        << true << false << 0 << QStringLiteral("sandscope-tty-t1-sstbob\r\n") << unchanged
        << "PASS"
        << "ERROR";
    QTest::newRow("refused but A cannot check")
        << true << true << 4004 << QString() << int(probe::Effect::Unknown) << "PASS"
        << "ERROR";
}

void TestProbeJudgement::terminalVerdicts()
{
    QFETCH(bool, connected);
    QFETCH(bool, closedByServer);
    QFETCH(int, closeCode);
    QFETCH(QString, output);
    QFETCH(int, effect);
    QFETCH(QString, read);
    QFETCH(QString, write);
    probe::TerminalAttempt attempt;
    attempt.connected = connected;
    attempt.closedByServer = closedByServer;
    attempt.closeCode = closeCode;
    attempt.error = connected ? QString() : QStringLiteral("Unhandled http status code: 403");
    attempt.output = output;
    const auto met = probe::Precondition::ok();
    QCOMPARE(verdictName(probe::judgeTerminalRead(
                 attempt, QStringLiteral("sandscope-tty-t1"), QStringLiteral("sstalice"), met)
                             .verdict),
        read);
    QCOMPARE(
        verdictName(probe::judgeTerminalWrite(attempt, probe::Effect(effect), met).verdict), write);
    // Without A's own terminal working, nothing is judged.
    const auto missing
        = probe::Precondition::missing(QStringLiteral("A's terminal did not answer"));
    QCOMPARE(probe::judgeTerminalRead(
                 attempt, QStringLiteral("sandscope-tty-t1"), QStringLiteral("sstalice"), missing)
                 .verdict,
        Verdict::Error);
    QCOMPARE(
        probe::judgeTerminalWrite(attempt, probe::Effect(effect), missing).verdict, Verdict::Error);
}

void TestProbeJudgement::whoAmIParsesAccountUidAndHome()
{
    const QStringList lines {QStringLiteral("sudo: a warning\r"),
        QStringLiteral("sandscope-account=sst_alice\r"), QStringLiteral("sandscope-uid=1021\r"),
        QStringLiteral("sandscope-home=/home/sst_alice\r")};
    const AccountObservation observation = parseWhoAmI(QStringLiteral("alice"), lines);
    QCOMPARE(observation.account, QStringLiteral("sst_alice"));
    QCOMPARE(observation.uid, 1021);
    QVERIFY(observation.error.isEmpty());
    QCOMPARE(homeFromWhoAmI(lines), QStringLiteral("/home/sst_alice"));
    QVERIFY(whoAmICommand().contains(QLatin1String("id -u")));
    QVERIFY(!parseWhoAmI(QStringLiteral("x"), {QStringLiteral("nothing")}).error.isEmpty());
}

QTEST_GUILESS_MAIN(TestProbeJudgement)
#include "tst_probejudgement.moc"
