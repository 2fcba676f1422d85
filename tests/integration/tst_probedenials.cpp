// The probe's upload, write-race, /proc and account-name checks on both pinned open-terminal
// releases (multi-user, real accounts, removed afterwards), each shown on its FAIL branch where
// the server is open and on its PASS branch with a refusal the machine really gives: a file
// the kernel makes immutable even for root (chattr +i), a server started with /proc mounted
// hidepid=1 in a mount namespace of its own, a process that has ended, and, for account.name, a
// server without an account prefix where an account name is its own first eight letters.

#include "isolation/probecollisionchecks.h"
#include "isolation/probeswapcheck.h"
#include "isolation/probesymlinkchecks.h"
#include "probefixture.h"
#include "probing/probecalls.h"
#include "probing/probejudgement.h"
#include "realserver.h"
#include "testing.h"
#include "util/shellquote.h"

#include <QFileInfo>
#include <QScopeGuard>
#include <QtTest/QTest>

#include <algorithm>
#include <memory>

using namespace sandscope;
using namespace sandscope::test;

namespace {

// Makes `path` immutable (not even root may write, chown or chmod it) until destroyed, also
// when a test fails in between: an immutable file would outlive the accounts' removal.
class ImmutableFile {
public:
    explicit ImmutableFile(QString path)
        : m_path(std::move(path))
    {
        m_made = runAsRoot(QStringLiteral("chattr +i -- ") + shell::quote(m_path), &m_output) == 0;
    }
    ~ImmutableFile() { release(); }
    ImmutableFile(const ImmutableFile &) = delete;
    ImmutableFile &operator=(const ImmutableFile &) = delete;
    bool made() const { return m_made; }
    QString output() const { return m_output; }
    void release()
    {
        if (m_made)
            runAsRoot(QStringLiteral("chattr -i -- ") + shell::quote(m_path));
        m_made = false;
    }

private:
    QString m_path;
    QString m_output;
    bool m_made = false;
};

// Removes accounts a server without a prefix created (the fixture does not), also on failure.
class AccountsRemoval {
public:
    explicit AccountsRemoval(QStringList accounts)
        : m_accounts(std::move(accounts))
    {
    }
    ~AccountsRemoval() { runAsRoot(ProbeCollisionChecks::removalScript(m_accounts)); }
    AccountsRemoval(const AccountsRemoval &) = delete;
    AccountsRemoval &operator=(const AccountsRemoval &) = delete;

private:
    QStringList m_accounts;
};

bool accountExists(const QString &name)
{
    return runAsRoot(QStringLiteral("getent passwd ") + shell::quote(name)
               + QStringLiteral(" >/dev/null"))
        == 0;
}

protocol::HttpResponse readAs(const RealServer &server, const QString &user, const QString &path)
{
    return sendAs(server, user,
        probe::getSpec(QStringLiteral("/files/read"), {{QStringLiteral("path"), path}}));
}

protocol::HttpResponse deleteAs(const RealServer &server, const QString &user, const QString &path)
{
    return sendAs(server, user,
        probe::sendSpec(
            "DELETE", QStringLiteral("/files/delete"), {}, {{QStringLiteral("path"), path}}));
}

QString explanationOf(const ProbeReport &report, CheckId check, const QString &subject)
{
    const CheckResult *result = report.find(check, subject);
    return result ? result->explanation : QString();
}

} // namespace

class TestProbeDenials : public QObject {
    Q_OBJECT

private:
    PinnedProbeServers m_pinned;

    RealServer &server(const QString &which) const { return m_pinned.server(which); }
    static QString versionOf(const QString &which) { return PinnedProbeServers::versionOf(which); }
    ProbeOptions options(std::initializer_list<CheckId> checks) const
    {
        ProbeOptions probeOptions;
        probeOptions.users = QStringList {m_pinned.alice, m_pinned.bob};
        probeOptions.onlyChecks = QVector<CheckId>(checks);
        probeOptions.onlyPairs = {qMakePair(m_pinned.alice, m_pinned.bob)};
        probeOptions.hasAdmin
            = AdminAccess::fromCommand(QStringLiteral("sudo -n"), &probeOptions.admin);
        return probeOptions;
    }
    QString aliceToBob() const { return pairSubject(m_pinned.alice, m_pinned.bob); }
    static void bothServers() { PinnedProbeServers::addServerRows(); }

private Q_SLOTS:
    void initTestCase()
    {
        QString why;
        SANDSCOPE_REQUIRE(RealServer::canRunMultiUser(&why), why);
        QVERIFY2(m_pinned.start(&why), qPrintable(why));
    }

    void uploadThroughLinks_data() { bothServers(); }

    // files.upload.symlink: the probe's run FAILs (both uploads reach A's folder); the same
    // judgement PASSes when the kernel refuses root the file (immutable): the upload onto B's link
    // and the upload into B's link to A's folder (onto the same file there) answer 403 and A's
    // file keeps its content.
    void uploadThroughLinks()
    {
        QFETCH(QString, which);
        const RealServer &real = server(which);
        const ProbeRun run = runProbe(real, options({CheckId::FilesUploadSymlink}));
        QVERIFY(run.finished);
        const QString open = explanationOf(run.report, CheckId::FilesUploadSymlink, aliceToBob());
        qInfo("%s files.upload.symlink: %s", qPrintable(which), qPrintable(open));
        QCOMPARE(verdictOf(run.report, CheckId::FilesUploadSymlink, aliceToBob()),
            QStringLiteral("FAIL"));
        QVERIFY2(nothingLeft(real), qPrintable(leftovers(real).join(u',')));

        {
            // A's file in A's home, which B reaches through its link to the file and, by its name,
            // through its link to the home.
            const QString token = randomToken(8);
            const QString aliceHome = homeOf(real, m_pinned.alice);
            const QString name
                = QStringLiteral("sandscope-probe-") + token + QStringLiteral(".txt");
            const QString file = aliceHome + QLatin1Char('/') + name;
            const QString links = homeOf(real, m_pinned.bob) + QStringLiteral("/.sandscope-probe-")
                + token + QStringLiteral("-links");
            const auto cleanup = qScopeGuard([&] {
                deleteAs(real, m_pinned.bob, links);
                deleteAs(real, m_pinned.alice, file);
            });
            QCOMPARE(sendAs(real, m_pinned.alice,
                         probe::sendSpec("POST", QStringLiteral("/files/write"),
                             {{QStringLiteral("path"), file},
                                 {QStringLiteral("content"),
                                     QString(QStringLiteral("marker-") + token)}}))
                         .status,
                200);
            QVERIFY(shellAs(real, m_pinned.bob,
                QStringLiteral("mkdir -- %1 && %2 && %3 && echo linked")
                    .arg(shell::quote(links),
                        ProbeSymlinkChecks::linkCommand(file, links + QStringLiteral("/upload")),
                        ProbeSymlinkChecks::linkCommand(
                            aliceHome, links + QStringLiteral("/home"))))
                        .contains(QLatin1String("linked")));
            ImmutableFile immutable(file);
            QVERIFY2(immutable.made(), qPrintable(immutable.output()));
            const QByteArray bytes = QByteArray("by-b-") + token.toUtf8();
            const protocol::HttpResponse onto = sendAs(
                real, m_pinned.bob, protocol::uploadSpec(links, QStringLiteral("upload"), bytes));
            const protocol::HttpResponse into = sendAs(real, m_pinned.bob,
                protocol::uploadSpec(links + QStringLiteral("/home"), name, bytes));
            qInfo("%s: onto the link %d %s, into the home link %d %s", qPrintable(which),
                onto.status, onto.body.constData(), into.status, into.body.constData());
            QCOMPARE(onto.status, 403);
            QCOMPARE(into.status, 403);
            const probe::Effect effect = ProbeSymlinkChecks::uploadEffect(
                readAs(real, m_pinned.alice, file), QString::fromUtf8(bytes));
            QCOMPARE(effect, probe::Effect::NotObserved);
            const probe::Precondition met = probe::Precondition::ok();
            const probe::Judgement judgement = probe::combine(
                {probe::judgeMutation(onto, effect, met), probe::judgeMutation(into, effect, met)});
            QCOMPARE(verdictName(judgement.verdict), QStringLiteral("PASS"));

            // Into a link to a folder inside A's home the server's `mkdir -p` as B fails first
            // (B cannot look into A's home): a 500, which the judgement does not count as a
            // denial, and nothing is written (docs/server-behaviour.md).
            const QString folder = aliceHome + QStringLiteral("/sandscope-probe-") + token;
            const auto removeFolder = qScopeGuard([&] { deleteAs(real, m_pinned.alice, folder); });
            QCOMPARE(sendAs(real, m_pinned.alice,
                         probe::sendSpec("POST", QStringLiteral("/files/write"),
                             {{QStringLiteral("path"), QString(folder + QStringLiteral("/m.txt"))},
                                 {QStringLiteral("content"), QStringLiteral("m")}}))
                         .status,
                200);
            QVERIFY(shellAs(real, m_pinned.bob,
                ProbeSymlinkChecks::linkCommand(folder, links + QStringLiteral("/folder"))
                    + QStringLiteral(" && echo linked"))
                        .contains(QLatin1String("linked")));
            const protocol::HttpResponse sub = sendAs(real, m_pinned.bob,
                protocol::uploadSpec(
                    links + QStringLiteral("/folder"), QStringLiteral("new.txt"), bytes));
            QCOMPARE(sub.status, 500);
            const probe::Effect created = ProbeSymlinkChecks::uploadEffect(
                readAs(real, m_pinned.alice, folder + QStringLiteral("/new.txt")),
                QString::fromUtf8(bytes));
            QCOMPARE(created, probe::Effect::NotObserved);
            QCOMPARE(verdictName(probe::judgeMutation(sub, created, met).verdict),
                QStringLiteral("ERROR"));
        }
        QVERIFY2(nothingLeft(real), qPrintable(leftovers(real).join(u',')));
    }

    void writeSwapRace_data() { bothServers(); }

    // files.write.swap: the probe's run FAILs (A's file changed); the same race judged with a
    // refusal the kernel really gives (A's file immutable) PASSes, and A's file keeps its owner,
    // mode and content through every attempt.
    void writeSwapRace()
    {
        QFETCH(QString, which);
        const RealServer &real = server(which);
        const ProbeRun run = runProbe(real, options({CheckId::FilesWriteSwap}));
        QVERIFY(run.finished);
        const QString open = explanationOf(run.report, CheckId::FilesWriteSwap, aliceToBob());
        qInfo("%s files.write.swap: %s", qPrintable(which), qPrintable(open));
        QCOMPARE(
            verdictOf(run.report, CheckId::FilesWriteSwap, aliceToBob()), QStringLiteral("FAIL"));
        QVERIFY2(nothingLeft(real), qPrintable(leftovers(real).join(u',')));

        const QString token = randomToken(8);
        const QString folder
            = homeOf(real, m_pinned.alice) + QStringLiteral("/sandscope-probe-") + token;
        const QString file = folder + QStringLiteral("/w.txt");
        const QString marker = QStringLiteral("marker-") + token;
        const probe::FileState before = probe::parseFileState(shellAs(real, m_pinned.alice,
            QStringLiteral("mkdir -- %1 && (umask 077; printf %s %2 > %3) && %4")
                .arg(shell::quote(folder), marker, shell::quote(file),
                    probe::fileStateCommand(file)))
                                                                  .split(u'\n'));
        QVERIFY2(
            before.known && before.mode == QLatin1String("600"), qPrintable(before.describe()));
        const QString dir
            = homeOf(real, m_pinned.bob) + QStringLiteral("/.sandscope-probe-") + token;
        const QString own = QStringLiteral("own-") + token;
        // Also when a check below fails (a second delete answers 404).
        const auto cleanup = qScopeGuard([&] {
            deleteAs(real, m_pinned.bob, dir);
            deleteAs(real, m_pinned.alice, folder);
        });
        QVERIFY(shellAs(real, m_pinned.bob, ProbeSwapCheck::setupCommand(dir, own))
                    .contains(QLatin1String("sandscope-swap-made")));
        probe::Judgement judgement;
        probe::FileState after;
        {
            ImmutableFile immutable(file);
            QVERIFY2(immutable.made(), qPrintable(immutable.output()));
            const protocol::HttpResponse started = sendAs(real, m_pinned.bob,
                probe::sendSpec("POST", QStringLiteral("/execute"),
                    {{QStringLiteral("command"),
                        ProbeSwapCheck::loopCommand(dir, file, own, 5000)}}));
            QCOMPARE(started.status, 200);
            QVERIFY(QTest::qWaitFor(
                [&] {
                    return readAs(real, m_pinned.bob, dir + QStringLiteral("/running")).status
                        == 200;
                },
                10000));
            // Every attempt is made: A's file must survive all of them, not only the first.
            QVector<protocol::HttpResponse> responses;
            for (int i = 0; i < ProbeSwapCheck::attemptCount; ++i)
                responses << sendAs(real, m_pinned.bob,
                    probe::sendSpec("POST", QStringLiteral("/files/write"),
                        {{QStringLiteral("path"), QString(dir + QStringLiteral("/swap"))},
                            {QStringLiteral("content"),
                                QString(QStringLiteral("by-b-") + token)}}));
            sendAs(real, m_pinned.bob,
                probe::sendSpec("DELETE",
                    QStringLiteral("/execute/")
                        + protocol::parseProcess(started.body).value.info.id,
                    {}, {{QStringLiteral("force"), QStringLiteral("true")}}));
            QTest::qWait(1000); // 0.11.34 closes a stale descriptor after a kill
            after = probe::parseFileState(
                shellAs(real, m_pinned.alice, probe::fileStateCommand(file)).split(u'\n'));
            judgement
                = probe::judgeWriteSwapRace(responses, before, after, probe::Precondition::ok());
        }
        deleteAs(real, m_pinned.bob, dir);
        deleteAs(real, m_pinned.alice, folder);
        qInfo("%s: %s", qPrintable(which), qPrintable(judgement.explanation));
        QVERIFY2(after == before, qPrintable(after.describe()));
        QCOMPARE(verdictName(judgement.verdict), QStringLiteral("PASS"));
        QVERIFY(judgement.explanation.contains(
            QStringLiteral("%1 attempts").arg(ProbeSwapCheck::attemptCount)));
        QVERIFY2(nothingLeft(real), qPrintable(leftovers(real).join(u',')));
    }

    void procFilesWhereProcessesAreHidden_data() { bothServers(); }

    // process.cwd.* and process.cmdline.*: on the ordinary server B's shell reads A's arguments
    // (FAIL) but not A's files through the cwd link (PASS, the kernel); on a server whose /proc
    // is mounted hidepid=1 (a mount namespace of its own, as a hardened deployment would) the
    // kernel refuses B's shell both, and process.ps too, while the file API, which reads /proc
    // as root, still FAILs.
    void procFilesWhereProcessesAreHidden()
    {
        QFETCH(QString, which);
        const std::initializer_list<CheckId> checks {CheckId::ProcessEnvironApi,
            CheckId::ProcessEnvironShell, CheckId::ProcessCwdApi, CheckId::ProcessCwdShell,
            CheckId::ProcessCmdlineApi, CheckId::ProcessCmdlineShell, CheckId::ProcessShellList};
        const ProbeRun open = runProbe(server(which), options(checks));
        QVERIFY(open.finished);
        QCOMPARE(verdictOf(open.report, CheckId::ProcessCmdlineShell, aliceToBob()),
            QStringLiteral("FAIL"));
        QCOMPARE(verdictOf(open.report, CheckId::ProcessShellList, aliceToBob()),
            QStringLiteral("FAIL"));
        QCOMPARE(
            verdictOf(open.report, CheckId::ProcessCwdShell, aliceToBob()), QStringLiteral("PASS"));

        RealServer hidden(versionOf(which), RealServer::Mode::MultiUser);
        hidden.setLaunchWrapper(
            {QStringLiteral("unshare"), QStringLiteral("-m"), QStringLiteral("--propagation"),
                QStringLiteral("private"), QStringLiteral("sh"), QStringLiteral("-c"),
                QStringLiteral("mount -t proc -o hidepid=1 proc /proc && exec \"$0\" \"$@\"")});
        QString why;
        QVERIFY2(hidden.start(&why), qPrintable(why));
        const ProbeRun run = runProbe(hidden, options(checks));
        QVERIFY(run.finished);
        for (const CheckId check : checks) {
            const CheckResult *result = run.report.find(check, aliceToBob());
            QVERIFY2(result, qPrintable(checkInfo(check).key));
            qInfo("%s hidepid=1 %s: %s %s", qPrintable(which), qPrintable(checkInfo(check).key),
                qPrintable(verdictName(result->verdict)), qPrintable(result->explanation));
        }
        for (const CheckId check : {CheckId::ProcessEnvironShell, CheckId::ProcessCwdShell,
                 CheckId::ProcessCmdlineShell, CheckId::ProcessShellList})
            QCOMPARE(verdictOf(run.report, check, aliceToBob()), QStringLiteral("PASS"));
        // The kernel's refusal, as B's shell printed it.
        const CheckResult *cmdline = run.report.find(CheckId::ProcessCmdlineShell, aliceToBob());
        QVERIFY(std::any_of(
            cmdline->evidence.cbegin(), cmdline->evidence.cend(), [](const Evidence &evidence) {
                return evidence.response.contains(QLatin1String("Operation not permitted"));
            }));
        for (const CheckId check :
            {CheckId::ProcessEnvironApi, CheckId::ProcessCwdApi, CheckId::ProcessCmdlineApi})
            QCOMPARE(verdictOf(run.report, check, aliceToBob()), QStringLiteral("FAIL"));
        QVERIFY2(nothingLeft(hidden), qPrintable(leftovers(hidden).join(u',')));
    }

    void procFilesOfAnEndedProcess_data() { bothServers(); }

    // The file API's side of process.cwd.api and process.cmdline.api judged with the answer the
    // server gives once A's process has ended: 404, nothing of A's.
    void procFilesOfAnEndedProcess()
    {
        QFETCH(QString, which);
        const RealServer &real = server(which);
        const QString pid
            = shellAs(real, m_pinned.alice, QStringLiteral("sh -c 'echo $$'")).trimmed();
        QVERIFY2(!pid.isEmpty() && pid.toInt() > 0, qPrintable(pid));
        QVERIFY(QTest::qWaitFor(
            [&] { return !QFileInfo::exists(QStringLiteral("/proc/") + pid); }, 5000));
        const probe::Precondition met = probe::Precondition::ok();
        for (const QString &path : {QStringLiteral("/proc/%1/cmdline").arg(pid),
                 QStringLiteral("/proc/%1/cwd/m.txt").arg(pid)}) {
            const protocol::HttpResponse response = readAs(real, m_pinned.bob, path);
            QCOMPARE(response.status, 404);
            QCOMPARE(verdictName(probe::judgeDisclosure(
                         response, probe::Disclosure::FileText, QStringLiteral("x"), met)
                                     .verdict),
                QStringLiteral("PASS"));
        }
    }

    void accountNameWithoutAPrefix_data() { bothServers(); }

    // account.name FAILs for real on a server without an account prefix (the servers' default):
    // there an account name is its own first eight letters, so B's account name used as an id
    // runs as B. The ids start with "sst" and four random letters, the tests' prefix for
    // accounts, checked to be unused first; both accounts are removed afterwards.
    void accountNameWithoutAPrefix()
    {
        QFETCH(QString, which);
        const QString tag = QStringLiteral("sst") + randomToken(4, true);
        const QString aliceAccount = tag + QLatin1Char('a');
        const QString bobAccount = tag + QLatin1Char('b');
        QVERIFY(!accountExists(aliceAccount) && !accountExists(bobAccount));
        AccountsRemoval removal({aliceAccount, bobAccount});
        {
            RealServer plain(versionOf(which), RealServer::Mode::MultiUser);
            plain.setAccountPrefix(QString());
            QString why;
            QVERIFY2(plain.start(&why), qPrintable(why));
            ProbeOptions probeOptions;
            probeOptions.users = QStringList {
                aliceAccount + QStringLiteral("-alice"), bobAccount + QStringLiteral("-bob")};
            probeOptions.onlyChecks = {CheckId::AccountName};
            probeOptions.hasAdmin
                = AdminAccess::fromCommand(QStringLiteral("sudo -n"), &probeOptions.admin);
            const ProbeRun run = runProbe(plain, probeOptions);
            QVERIFY(run.finished);
            QCOMPARE(run.report.results.size(), 1);
            const CheckResult &result = run.report.results.at(0);
            qInfo("%s account.name: %s", qPrintable(which), qPrintable(result.explanation));
            QCOMPARE(verdictName(result.verdict), QStringLiteral("FAIL"));
            QVERIFY2(result.explanation.contains(
                         QStringLiteral("\"%1\" runs as the account of").arg(bobAccount)),
                qPrintable(result.explanation));
        }
        QVERIFY(accountExists(bobAccount)); // until the removal below
        runAsRoot(ProbeCollisionChecks::removalScript({aliceAccount, bobAccount}));
        QVERIFY(!accountExists(aliceAccount) && !accountExists(bobAccount));
        QVERIFY(!QFileInfo::exists(QStringLiteral("/home/") + aliceAccount));
        QVERIFY(!QFileInfo::exists(QStringLiteral("/home/") + bobAccount));
    }
};

QTEST_GUILESS_MAIN(TestProbeDenials)
#include "tst_probedenials.moc"
