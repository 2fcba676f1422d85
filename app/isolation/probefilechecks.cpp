#include "probefilechecks.h"

#include "probing/probecontext.h"
#include "probing/probepair.h"

namespace sandscope {

using probe::Effect;
using probe::getSpec;
using probe::listedNames;
using probe::Precondition;
using probe::sendSpec;
using protocol::HttpResponse;

namespace {

// See probe::listingEffect.
std::function<Effect(const HttpResponse &)> changedWhen(const QString &name, bool listed)
{
    return [name, listed](const HttpResponse &after) {
        return probe::listingEffect(after, name, listed);
    };
}

} // namespace

ProbeFileChecks::ProbeFileChecks(ProbeContext &probe)
    : m_probe(probe)
{
}

void ProbeFileChecks::setUp(const std::shared_ptr<ProbePair> &pair)
{
    const auto write = [pair](const QString &path, const QString &content) {
        return ProbeCall {pair->a,
            sendSpec("POST", QStringLiteral("/files/write"),
                {{QStringLiteral("path"), path}, {QStringLiteral("content"), content}}),
            tr("setup: A writes a marker")};
    };
    // The cleanup is registered before anything exists, so a cancel in between removes it.
    m_probe.addCleanup(ProbeCall {pair->a,
        sendSpec("DELETE", QStringLiteral("/files/delete"), {},
            {{QStringLiteral("path"), pair->probeDir}}),
        tr("cleanup: A removes the probe folder")});
    m_probe.addCleanup(ProbeCall {pair->a,
        sendSpec("DELETE", QStringLiteral("/files/delete"), {},
            {{QStringLiteral("path"), pair->chatDir}}),
        tr("cleanup: A removes the probe chat folder")});
    const QVector<ProbeCall> calls {
        write(pair->markerPath, pair->markerContent),
        write(pair->moveMe, pair->markerContent),
        write(pair->deleteMe, pair->markerContent),
        write(pair->shellVictim, pair->markerContent),
        write(pair->chatMarkerPath, pair->markerContent),
        write(pair->chatShellVictim, pair->markerContent),
        ProbeCall {pair->a,
            getSpec(QStringLiteral("/files/list"), {{QStringLiteral("directory"), pair->home}}),
            tr("precondition: A lists its home")},
        ProbeCall {pair->a,
            getSpec(QStringLiteral("/files/list"), {{QStringLiteral("directory"), pair->probeDir}}),
            tr("precondition: A lists the probe folder")},
        ProbeCall {pair->a,
            getSpec(QStringLiteral("/files/read"), {{QStringLiteral("path"), pair->markerPath}}),
            tr("precondition: A reads its marker")},
        ProbeCall {pair->a,
            getSpec(QStringLiteral("/files/grep"),
                {{QStringLiteral("query"), pair->markerContent},
                    {QStringLiteral("path"), pair->probeDir}}),
            tr("precondition: A greps its marker")},
        ProbeCall {pair->a,
            getSpec(QStringLiteral("/files/glob"),
                {{QStringLiteral("pattern"), pair->markerName},
                    {QStringLiteral("path"), pair->probeDir}}),
            tr("precondition: A globs its marker")},
        // The chat folder is the session's working directory (session check).
        ProbeCall {pair->a,
            sendSpec(
                "POST", QStringLiteral("/files/cwd"), {{QStringLiteral("path"), pair->chatDir}}),
            tr("setup: A's session works in its chat folder")},
    };
    m_probe.calls.requests(calls, [this, pair](const QVector<ProbeReply> &replies) {
        QStringList failedWrites;
        for (int i = 0; i < 6; ++i) {
            pair->setupEvidence << replies.at(i).evidence;
            if (replies.at(i).response.status != 200)
                failedWrites << replies.at(i).evidence.request;
        }
        const auto contains = [](const ProbeReply &reply, const QString &text) {
            return reply.response.status == 200 && reply.response.body.contains(text.toUtf8());
        };
        const QString why = failedWrites.isEmpty()
            ? QString()
            : tr("A could not create its markers (%1)")
                  .arg(failedWrites.join(QStringLiteral("; ")));
        pair->filesReady = failedWrites.isEmpty();
        const QStringList names = listedNames(replies.at(7).response);
        pair->list = Precondition::expect(
            pair->filesReady && listedNames(replies.at(6).response).contains(pair->probeDirName),
            why.isEmpty() ? tr("A's own listing of its home does not show the probe folder") : why);
        pair->victims
            = Precondition::expect(pair->filesReady && names.contains(QStringLiteral("move-me.txt"))
                    && names.contains(QStringLiteral("delete-me.txt")),
                why.isEmpty() ? tr("A's own listing does not show the files B is to change") : why);
        pair->read
            = Precondition::expect(pair->filesReady && contains(replies.at(8), pair->markerContent),
                why.isEmpty() ? tr("A cannot read its own marker") : why);
        pair->grep
            = Precondition::expect(pair->filesReady && contains(replies.at(9), pair->markerContent),
                why.isEmpty() ? tr("A's own grep does not find its marker") : why);
        pair->glob
            = Precondition::expect(pair->filesReady && contains(replies.at(10), pair->markerName),
                why.isEmpty() ? tr("A's own glob does not find its marker") : why);
        for (int i = 6; i < replies.size(); ++i)
            pair->setupEvidence << replies.at(i).evidence;
        pair->ownHome = replies.at(6).evidence;
        pair->ownFolder = replies.at(7).evidence;
        pair->ownRead = replies.at(8).evidence;
        pair->ownGrep = replies.at(9).evidence;
        pair->ownGlob = replies.at(10).evidence;
        pair->sessionCwd = replies.at(11).evidence;
        m_probe.steps.next();
    });
}

void ProbeFileChecks::checkApi(const std::shared_ptr<ProbePair> &pair)
{
    QVector<ProbeSteps::Step> steps;
    const auto disclosure
        = [this, pair, &steps](CheckId check, const ProbeCall &call, const QString &marker,
              const Precondition &precondition, const Evidence &proof, probe::Disclosure kind) {
              if (!m_probe.wants(check))
                  return;
              steps << [this, pair, check, call, marker, precondition, proof, kind] {
                  m_probe.calls.request(call, [=](const ProbeReply &reply) {
                      m_probe.addResult(check, pair->actor, pair->target,
                          probe::judgeDisclosure(reply.response, kind, marker, precondition),
                          {proof, reply.evidence});
                      m_probe.steps.next();
                  });
              };
          };
    disclosure(CheckId::FilesList,
        ProbeCall {pair->b,
            getSpec(QStringLiteral("/files/list"), {{QStringLiteral("directory"), pair->home}}),
            tr("B lists A's home")},
        pair->probeDirName, pair->list, pair->ownHome, probe::Disclosure::Listing);
    disclosure(CheckId::FilesRead,
        ProbeCall {pair->b,
            getSpec(QStringLiteral("/files/read"), {{QStringLiteral("path"), pair->markerPath}}),
            tr("B reads A's marker")},
        pair->markerContent, pair->read, pair->ownRead, probe::Disclosure::FileText);
    disclosure(CheckId::FilesGrep,
        ProbeCall {pair->b,
            getSpec(QStringLiteral("/files/grep"),
                {{QStringLiteral("query"), pair->markerContent},
                    {QStringLiteral("path"), pair->probeDir}}),
            tr("B greps A's folder for the marker")},
        pair->markerContent, pair->grep, pair->ownGrep, probe::Disclosure::GrepMatches);
    disclosure(CheckId::FilesGlob,
        ProbeCall {pair->b,
            getSpec(QStringLiteral("/files/glob"),
                {{QStringLiteral("pattern"), pair->markerName},
                    {QStringLiteral("path"), pair->probeDir}}),
            tr("B globs A's folder for the marker's name")},
        pair->markerName, pair->glob, pair->ownGlob, probe::Disclosure::GlobMatches);
    // A ZIP stores file names uncompressed: the marker's name shows in the bytes.
    disclosure(CheckId::FilesArchive,
        ProbeCall {pair->b,
            sendSpec("POST", QStringLiteral("/files/archive"),
                {{QStringLiteral("paths"), QStringList {pair->probeDir}}}),
            tr("B archives A's probe folder")},
        pair->markerName, pair->victims, pair->ownFolder, probe::Disclosure::Raw);

    const QString writtenName
        = QStringLiteral("written-by-b-") + probe::randomToken(6) + QStringLiteral(".txt");
    const auto mutation = [this, pair, &steps](CheckId check, const ProbeCall &attempt,
                              std::function<Effect(const HttpResponse &)> effectOf) {
        if (m_probe.wants(check))
            steps << [this, pair, check, attempt, effectOf] {
                checkMutation(pair, check, attempt, effectOf);
            };
    };
    mutation(CheckId::FilesWrite,
        ProbeCall {pair->b,
            sendSpec("POST", QStringLiteral("/files/write"),
                {{QStringLiteral("path"), QString(pair->probeDir + QLatin1Char('/') + writtenName)},
                    {QStringLiteral("content"), QStringLiteral("written by B")}}),
            tr("B writes into A's folder")},
        changedWhen(writtenName, true));
    mutation(CheckId::FilesMove,
        ProbeCall {pair->b,
            sendSpec("POST", QStringLiteral("/files/move"),
                {{QStringLiteral("source"), pair->moveMe},
                    {QStringLiteral("destination"), pair->movedTo}}),
            tr("B moves A's file")},
        changedWhen(QStringLiteral("move-me.txt"), false));
    mutation(CheckId::FilesDelete,
        ProbeCall {pair->b,
            sendSpec("DELETE", QStringLiteral("/files/delete"), {},
                {{QStringLiteral("path"), pair->deleteMe}}),
            tr("B deletes A's file")},
        changedWhen(QStringLiteral("delete-me.txt"), false));
    m_probe.steps.runFirst(steps);
}

void ProbeFileChecks::checkMutation(const std::shared_ptr<ProbePair> &pair, CheckId check,
    const ProbeCall &attempt, std::function<Effect(const HttpResponse &)> effectOf)
{
    const ProbeCall verify {pair->a,
        getSpec(QStringLiteral("/files/list"), {{QStringLiteral("directory"), pair->probeDir}}),
        tr("A checks whether its folder changed")};
    m_probe.calls.requests({attempt, verify}, [=](const QVector<ProbeReply> &replies) {
        const ProbeReply &after = replies.at(1);
        const Effect effect = effectOf(after.response);
        m_probe.addResult(check, pair->actor, pair->target,
            probe::judgeMutation(replies.at(0).response, effect, pair->victims),
            {pair->ownFolder, replies.at(0).evidence, after.evidence});
        m_probe.steps.next();
    });
}

} // namespace sandscope
