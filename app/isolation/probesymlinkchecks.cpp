#include "probesymlinkchecks.h"

#include "probing/probecontext.h"
#include "probing/probepair.h"
#include "server/shortcommand.h"
#include "util/shellquote.h"

namespace sandscope {

using probe::Effect;
using probe::getSpec;
using probe::Precondition;
using probe::sendSpec;
using protocol::HttpResponse;

namespace {

const QString linksMade = QStringLiteral("sandscope-links-made");
// A's files B tries to move out and delete through its link to A's folder.
const QString moveVictim = QStringLiteral("link-move-me.txt");
const QString deleteVictim = QStringLiteral("link-delete-me.txt");

// The links must exist before anything through them is judged.
Precondition after(const Precondition &first, const Precondition &then)
{
    return first.met ? then : first;
}

bool ranCleanly(const Result<CommandOutput> &result, const QString &needle)
{
    return result.ok() && result.value.exitCode == 0
        && result.value.lines.join(QLatin1Char('\n')).contains(needle);
}

// Named like the probe's folders, so a leftover is found (tst_probe) and never A's own file.
QString createdPath(const ProbePair &pair)
{
    return pair.home + QStringLiteral("/sandscope-probe-") + pair.token
        + QStringLiteral("-created-by-b.txt");
}

// The same for the file B uploads into its link to A's home.
QString uploadedPath(const ProbePair &pair)
{
    return pair.home + QStringLiteral("/sandscope-probe-") + pair.token
        + QStringLiteral("-uploaded-by-b.txt");
}

ProbeCall removeLinks(const Identity &identity, const QString &linksDir)
{
    // The API removes the folder of links, not what they point at (measured on both pinned
    // versions; see docs/server-behaviour.md).
    return ProbeCall {identity,
        sendSpec(
            "DELETE", QStringLiteral("/files/delete"), {}, {{QStringLiteral("path"), linksDir}}),
        ProbeSymlinkChecks::tr("cleanup: B removes its probe links")};
}

} // namespace

ProbeSymlinkChecks::ProbeSymlinkChecks(ProbeContext &probe)
    : m_probe(probe)
{
}

QString ProbeSymlinkChecks::linkCommand(const QString &target, const QString &link)
{
    return QStringLiteral("ln -s -- %1 %2").arg(shell::quote(target), shell::quote(link));
}

Effect ProbeSymlinkChecks::writeEffect(const HttpResponse &ownRead, const QString &bText)
{
    if (ownRead.status != 200)
        return Effect::Unknown;
    const Result<FileContent> content = protocol::parseFileRead(ownRead);
    if (!content.ok())
        return Effect::Unknown;
    return content.value.text.contains(bText) ? Effect::Observed : Effect::NotObserved;
}

Effect ProbeSymlinkChecks::uploadEffect(const HttpResponse &ownRead, const QString &bText)
{
    return ownRead.status == 404 ? Effect::NotObserved : writeEffect(ownRead, bText);
}

void ProbeSymlinkChecks::checkPair(const std::shared_ptr<ProbePair> &pair)
{
    const auto actor = m_probe.users.value(pair->actor);
    if (!actor
        || !m_probe.wantsAny({CheckId::FilesReadSymlink, CheckId::FilesListSymlink,
            CheckId::FilesArchiveSymlink, CheckId::FilesViewSymlink, CheckId::FilesGrepSymlink,
            CheckId::FilesGlobSymlink, CheckId::FilesWriteSymlink, CheckId::FilesUploadSymlink,
            CheckId::FilesCreateSymlink, CheckId::FilesMoveSymlink, CheckId::FilesDeleteSymlink,
            CheckId::FilesHardlink})) {
        m_probe.steps.next();
        return;
    }
    pair->linksDir = actor->home + QStringLiteral("/.sandscope-probe-") + pair->token
        + QStringLiteral("-links");
    m_probe.addCleanup(removeLinks(pair->b, pair->linksDir));
    m_probe.addCleanup(ProbeCall {pair->a,
        sendSpec("DELETE", QStringLiteral("/files/delete"), {},
            {{QStringLiteral("path"), createdPath(*pair)}}),
        tr("cleanup: A removes what B may have created in its home")});
    m_probe.addCleanup(ProbeCall {pair->a,
        sendSpec("DELETE", QStringLiteral("/files/delete"), {},
            {{QStringLiteral("path"), uploadedPath(*pair)}}),
        tr("cleanup: A removes what B may have uploaded into its home")});
    const auto write = [pair](const QString &path) {
        return ProbeCall {pair->a,
            sendSpec("POST", QStringLiteral("/files/write"),
                {{QStringLiteral("path"), path}, {QStringLiteral("content"), pair->markerContent}}),
            tr("setup: A writes a file B will try to change through its links")};
    };
    const QVector<ProbeCall> setup {
        write(pair->writeTarget),
        write(pair->probeDir + QLatin1Char('/') + moveVictim),
        write(pair->probeDir + QLatin1Char('/') + deleteVictim),
        ProbeCall {pair->a,
            getSpec(QStringLiteral("/files/read"), {{QStringLiteral("path"), pair->writeTarget}}),
            tr("precondition: A reads its file")},
        ProbeCall {pair->a,
            getSpec(QStringLiteral("/files/list"), {{QStringLiteral("directory"), pair->probeDir}}),
            tr("precondition: A lists its folder")},
        write(pair->uploadTarget),
        ProbeCall {pair->a,
            getSpec(QStringLiteral("/files/read"), {{QStringLiteral("path"), pair->uploadTarget}}),
            tr("precondition: A reads the file B will try to upload onto")},
    };
    m_probe.calls.requests(setup, [this, pair](const QVector<ProbeReply> &replies) {
        const QString dir = pair->linksDir;
        const QString script
            = QStringLiteral("mkdir -- %1 && %2 && %3 && %4 && %5 && %6 && echo %7; ")
                  .arg(shell::quote(dir),
                      linkCommand(pair->markerPath, dir + QStringLiteral("/read")),
                      linkCommand(pair->probeDir, dir + QStringLiteral("/folder")),
                      linkCommand(pair->writeTarget, dir + QStringLiteral("/write")),
                      linkCommand(pair->home, dir + QStringLiteral("/home")),
                      linkCommand(pair->uploadTarget, dir + QStringLiteral("/upload")), linksMade)
            // A hard link needs no path at use time: the kernel decides when it is made.
            + probe::shellSection(QStringLiteral("hardlink"),
                QStringLiteral("ln -- %1 %2")
                    .arg(shell::quote(pair->markerPath),
                        shell::quote(dir + QStringLiteral("/hard"))));
        const QStringList names = probe::listedNames(replies.at(4).response);
        const bool targetReady = replies.at(3).response.status == 200
            && replies.at(3).response.body.contains(pair->markerContent.toUtf8())
            && names.contains(moveVictim) && names.contains(deleteVictim)
            && replies.at(6).response.status == 200
            && replies.at(6).response.body.contains(pair->markerContent.toUtf8());
        QVector<Evidence> targetEvidence;
        for (const ProbeReply &reply : replies)
            targetEvidence << reply.evidence;
        m_probe.calls.command(pair->b, script, tr("setup: B links to A's files in its own home"),
            [this, pair, targetReady, targetEvidence](
                const Result<CommandOutput> &result, const Evidence &evidence) {
                const Precondition links = Precondition::expect(
                    ranCleanly(result, linksMade), tr("B could not make its symlinks"));
                const Precondition target = after(links,
                    Precondition::expect(
                        targetReady, tr("A cannot read back its own files or list them")));
                pair->setupEvidence << targetEvidence << evidence;
                m_probe.addResult(CheckId::FilesHardlink, pair->actor, pair->target,
                    probe::judgeShell(result.ok() ? probe::parseShellSections(result.value.lines)
                                                        .value(QStringLiteral("hardlink"))
                                                  : probe::ShellOutcome(),
                        probe::ShellAccess::Modify, {}, after(links, pair->read)),
                    {pair->ownRead, evidence});
                attempt(pair, links, target, evidence);
            });
    });
}

void ProbeSymlinkChecks::attempt(const std::shared_ptr<ProbePair> &pair, const Precondition &links,
    const Precondition &target, const Evidence &linkEvidence)
{
    const QString bText = QStringLiteral("written-through-a-link-by-b-") + probe::randomToken(12);
    const QString readLink = pair->linksDir + QStringLiteral("/read");
    const QString folderLink = pair->linksDir + QStringLiteral("/folder");
    const QString createdName = createdPath(*pair).mid(pair->home.size() + 1);
    const QString uploadedName = uploadedPath(*pair).mid(pair->home.size() + 1);
    const QVector<ProbeCall> calls {
        ProbeCall {pair->b,
            getSpec(QStringLiteral("/files/read"), {{QStringLiteral("path"), readLink}}),
            tr("B reads its link to A's marker")},
        ProbeCall {pair->b,
            getSpec(QStringLiteral("/files/list"), {{QStringLiteral("directory"), folderLink}}),
            tr("B lists its link to A's probe folder")},
        ProbeCall {pair->b,
            sendSpec("POST", QStringLiteral("/files/archive"),
                {{QStringLiteral("paths"), QStringList {folderLink}}}),
            tr("B archives its link to A's probe folder")},
        ProbeCall {pair->b,
            sendSpec("POST", QStringLiteral("/files/write"),
                {{QStringLiteral("path"), QString(pair->linksDir + QStringLiteral("/write"))},
                    {QStringLiteral("content"), bText}}),
            tr("B writes through its link to A's file")},
        ProbeCall {pair->a,
            getSpec(QStringLiteral("/files/read"), {{QStringLiteral("path"), pair->writeTarget}}),
            tr("A checks whether its file changed")},
        ProbeCall {pair->b,
            sendSpec("POST", QStringLiteral("/files/write"),
                {{QStringLiteral("path"),
                     QString(pair->linksDir + QStringLiteral("/home/") + createdName)},
                    {QStringLiteral("content"), bText}}),
            tr("B creates a file through its link to A's home")},
        ProbeCall {pair->b,
            sendSpec("POST", QStringLiteral("/files/move"),
                {{QStringLiteral("source"), QString(folderLink + QLatin1Char('/') + moveVictim)},
                    {QStringLiteral("destination"),
                        QString(pair->linksDir + QStringLiteral("/taken.txt"))}}),
            tr("B moves A's file out through its link to A's folder")},
        ProbeCall {pair->b,
            sendSpec("DELETE", QStringLiteral("/files/delete"), {},
                {{QStringLiteral("path"), QString(folderLink + QLatin1Char('/') + deleteVictim)}}),
            tr("B deletes A's file through its link to A's folder")},
        ProbeCall {pair->a,
            getSpec(QStringLiteral("/files/list"), {{QStringLiteral("directory"), pair->probeDir}}),
            tr("A checks whether its folder changed")},
        ProbeCall {pair->a,
            getSpec(QStringLiteral("/files/list"), {{QStringLiteral("directory"), pair->home}}),
            tr("A checks whether its home changed")},
        ProbeCall {pair->b,
            getSpec(QStringLiteral("/files/view"), {{QStringLiteral("path"), readLink}}),
            tr("B downloads its link to A's marker")},
        ProbeCall {pair->b,
            getSpec(QStringLiteral("/files/grep"),
                {{QStringLiteral("query"), pair->markerContent},
                    {QStringLiteral("path"), folderLink}}),
            tr("B greps its link to A's probe folder")},
        ProbeCall {pair->b,
            getSpec(QStringLiteral("/files/glob"),
                {{QStringLiteral("pattern"), pair->markerName},
                    {QStringLiteral("path"), folderLink}}),
            tr("B globs its link to A's probe folder")},
        ProbeCall {pair->b,
            protocol::uploadSpec(pair->linksDir, QStringLiteral("upload"), bText.toUtf8()),
            tr("B uploads onto its link to A's file")},
        // Into the link to A's home: the server first runs `mkdir -p` of the folder as B, which
        // the kernel refuses for a folder inside A's home (B cannot look into it) but not for
        // the home itself (docs/server-behaviour.md).
        ProbeCall {pair->b,
            protocol::uploadSpec(
                pair->linksDir + QStringLiteral("/home"), uploadedName, bText.toUtf8()),
            tr("B uploads a file into its link to A's home")},
        ProbeCall {pair->a,
            getSpec(QStringLiteral("/files/read"), {{QStringLiteral("path"), pair->uploadTarget}}),
            tr("A checks whether the file B uploaded onto changed")},
        ProbeCall {pair->a,
            getSpec(QStringLiteral("/files/read"), {{QStringLiteral("path"), uploadedPath(*pair)}}),
            tr("A checks whether B's upload appeared in its home")},
    };
    m_probe.calls.requests(calls, [=](const QVector<ProbeReply> &replies) {
        const auto disclosure
            = [&](CheckId check, int reply, probe::Disclosure kind, const QString &marker,
                  const Precondition &precondition, const Evidence &proof) {
                  m_probe.addResult(check, pair->actor, pair->target,
                      probe::judgeDisclosure(
                          replies.at(reply).response, kind, marker, after(links, precondition)),
                      {proof, linkEvidence, replies.at(reply).evidence});
              };
        disclosure(CheckId::FilesReadSymlink, 0, probe::Disclosure::FileText, pair->markerContent,
            pair->read, pair->ownRead);
        disclosure(CheckId::FilesListSymlink, 1, probe::Disclosure::Listing, pair->markerName,
            pair->victims, pair->ownFolder);
        disclosure(CheckId::FilesArchiveSymlink, 2, probe::Disclosure::Raw, pair->markerName,
            pair->victims, pair->ownFolder);
        disclosure(CheckId::FilesViewSymlink, 10, probe::Disclosure::Raw, pair->markerContent,
            pair->read, pair->ownRead);
        disclosure(CheckId::FilesGrepSymlink, 11, probe::Disclosure::GrepMatches,
            pair->markerContent, pair->grep, pair->ownGrep);
        disclosure(CheckId::FilesGlobSymlink, 12, probe::Disclosure::GlobMatches, pair->markerName,
            pair->glob, pair->ownGlob);
        m_probe.addResult(CheckId::FilesWriteSymlink, pair->actor, pair->target,
            probe::judgeMutation(
                replies.at(3).response, writeEffect(replies.at(4).response, bText), target),
            {linkEvidence, replies.at(3).evidence, replies.at(4).evidence});
        m_probe.addResult(CheckId::FilesUploadSymlink, pair->actor, pair->target,
            probe::combine({probe::judgeMutation(replies.at(13).response,
                                uploadEffect(replies.at(15).response, bText), target),
                probe::judgeMutation(replies.at(14).response,
                    uploadEffect(replies.at(16).response, bText), target)}),
            {linkEvidence, replies.at(13).evidence, replies.at(15).evidence,
                replies.at(14).evidence, replies.at(16).evidence});
        const auto mutation
            = [&](CheckId check, int reply, int verify, const QString &name, bool listed) {
                  m_probe.addResult(check, pair->actor, pair->target,
                      probe::judgeMutation(replies.at(reply).response,
                          probe::listingEffect(replies.at(verify).response, name, listed), target),
                      {linkEvidence, replies.at(reply).evidence, replies.at(verify).evidence});
              };
        mutation(CheckId::FilesCreateSymlink, 5, 9, createdName, true);
        mutation(CheckId::FilesMoveSymlink, 6, 8, moveVictim, false);
        mutation(CheckId::FilesDeleteSymlink, 7, 8, deleteVictim, false);
        m_probe.steps.next();
    });
}

void ProbeSymlinkChecks::checkRootFile()
{
    const QString userId = m_probe.options.users.value(0);
    const auto user = m_probe.users.value(userId);
    // Without root there is no root-only file to try: said as an observation, not a verdict.
    const probe::Judgement notRun = !m_probe.options.hasAdmin
        ? probe::Judgement {Verdict::Info,
            tr("Not run: creating a root-only file needs the admin channel (--admin-exec or "
               "the profile's admin command).")}
        : probe::Judgement {Verdict::Error,
            tr("Precondition not met: the account of \"%1\" could not be observed.").arg(userId)};
    if (!m_probe.options.hasAdmin || !user || !user->known()) {
        for (const CheckId check : {CheckId::FilesReadRoot, CheckId::FilesReadRootSymlink})
            m_probe.addResult(check, userId, QString(), notRun, {});
        m_probe.steps.next();
        return;
    }
    const QString token = probe::randomToken(10);
    const QString dir = QStringLiteral("/tmp/sandscope-probe-root-") + token;
    const QString file = dir + QStringLiteral("/root-only.txt");
    const QString content = QStringLiteral("sandscope-root-marker-") + probe::randomToken(16);
    const QString linksDir
        = user->home + QStringLiteral("/.sandscope-probe-") + token + QStringLiteral("-links");
    const QString link = linksDir + QStringLiteral("/root");
    Identity identity;
    identity.userId = userId;
    identity.sessionId = QStringLiteral("sandscope-probe-root-") + token;
    m_probe.addCleanup(removeLinks(identity, linksDir));
    // A folder only root enters, and in it a file only root reads.
    const QString create = QStringLiteral(
        "set -e; umask 077; mkdir -- %1; printf '%s\\n' %2 > %3; chown 0:0 %1 %3; chmod 700 %1; "
        "chmod 600 %3; stat -c 'sandscope-root-file=%u:%a' %3")
                               .arg(shell::quote(dir), shell::quote(content), shell::quote(file));
    // The file is looked for before it goes: a read refused (404) because something else had
    // removed it meanwhile proves nothing, so the verdicts wait for this.
    const QString remove = QStringLiteral("if [ -f %1 ]; then echo sandscope-root-file-kept; fi; "
                                          "rm -rf -- %2")
                               .arg(shell::quote(file), shell::quote(dir));
    const AdminAccess admin = m_probe.options.admin;
    m_probe.calls.adminCommand(admin, create, tr("setup: root creates a file only root reads"),
        [=](const Result<CommandOutput> &created, const Evidence &createdEvidence) {
            const QString script
                = QStringLiteral("mkdir -- %1 && %2 && echo %3; ")
                      .arg(shell::quote(linksDir), linkCommand(file, link), linksMade)
                + probe::shellSection(
                    QStringLiteral("cat"), QStringLiteral("cat -- ") + shell::quote(link));
            m_probe.calls.command(identity, script,
                tr("setup: the user links to it and its own shell cannot read it"),
                [=](const Result<CommandOutput> &linked, const Evidence &linkedEvidence) {
                    const probe::ShellOutcome own = linked.ok()
                        ? probe::parseShellSections(linked.value.lines).value(QStringLiteral("cat"))
                        : probe::ShellOutcome();
                    Precondition ready = Precondition::expect(
                        ranCleanly(created, QStringLiteral("sandscope-root-file=0:600")),
                        tr("root could not create its file through %1").arg(admin.describe()));
                    ready = after(ready,
                        Precondition::expect(ranCleanly(linked, linksMade),
                            tr("the user could not make its symlink")));
                    ready = after(ready,
                        Precondition::expect(probe::judgeShell(own, probe::ShellAccess::Read,
                                                 content, Precondition::ok())
                                                 .verdict
                                == Verdict::Pass,
                            tr("the user's own shell was not denied the file, so it is not "
                               "root-only")));
                    const QVector<ProbeCall> reads {
                        ProbeCall {identity,
                            getSpec(
                                QStringLiteral("/files/read"), {{QStringLiteral("path"), file}}),
                            tr("the user reads the root-only file by its path")},
                        ProbeCall {identity,
                            getSpec(
                                QStringLiteral("/files/read"), {{QStringLiteral("path"), link}}),
                            tr("the user reads its link to the root-only file")},
                    };
                    m_probe.calls.requests(reads, [=](const QVector<ProbeReply> &replies) {
                        m_probe.calls.adminCommand(admin, remove,
                            tr("cleanup: root checks that its file is still there and removes "
                               "it"),
                            [=](const Result<CommandOutput> &removed,
                                const Evidence &removedEvidence) {
                                const bool kept = ranCleanly(
                                    removed, QStringLiteral("sandscope-root-file-kept"));
                                const CheckId checks[] {
                                    CheckId::FilesReadRoot, CheckId::FilesReadRootSymlink};
                                for (int i = 0; i < 2; ++i) {
                                    probe::Judgement judgement
                                        = probe::judgeDisclosure(replies.at(i).response,
                                            probe::Disclosure::FileText, content, ready);
                                    // A refusal counts only for a file that was there; what
                                    // was read stays read.
                                    if (judgement.verdict == Verdict::Pass && !kept)
                                        judgement = {Verdict::Error,
                                            tr("Inconclusive: root's file was no longer there "
                                               "after the reads (removed by something else?), so "
                                               "the refusal proves nothing. %1")
                                                .arg(judgement.explanation)};
                                    m_probe.addResult(checks[i], userId, QString(), judgement,
                                        {createdEvidence, linkedEvidence, replies.at(i).evidence,
                                            removedEvidence});
                                }
                                m_probe.steps.next();
                            });
                    });
                });
        });
}

} // namespace sandscope
