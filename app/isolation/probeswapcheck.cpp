#include "probeswapcheck.h"

#include "probing/probecontext.h"
#include "probing/probepair.h"
#include "server/shortcommand.h"
#include "util/shellquote.h"

#include <QTimer>

namespace sandscope {

using probe::getSpec;
using probe::Precondition;
using probe::sendSpec;

namespace {

const QString swapMadeMarker = QStringLiteral("sandscope-swap-made");
constexpr int loopRounds = 5000; // longer than the attempts take; ended right after them

} // namespace

ProbeSwapCheck::ProbeSwapCheck(ProbeContext &probe)
    : m_probe(probe)
{
}

QString ProbeSwapCheck::setupCommand(const QString &dir, const QString &ownText)
{
    return QStringLiteral("mkdir -- %1 && printf %s %2 > %1/swap && echo %3")
        .arg(shell::quote(dir), shell::quote(ownText), swapMadeMarker);
}

QString ProbeSwapCheck::loopCommand(
    const QString &dir, const QString &target, const QString &ownText, int rounds)
{
    // "running" says the loop has begun: the attempts wait for it.
    return QStringLiteral(
        "cd -- %1 || exit 1; : > running; i=0; while [ $i -lt %2 ]; do ln -sfn -- %3 l && "
        "mv -Tf l swap; printf %s %4 > f && mv -Tf f swap; i=$((i+1)); done")
        .arg(shell::quote(dir))
        .arg(rounds)
        .arg(shell::quote(target), shell::quote(ownText));
}

void ProbeSwapCheck::checkPair(const std::shared_ptr<ProbePair> &pair)
{
    if (!m_probe.wants(CheckId::FilesReadSwap)) {
        m_probe.steps.next();
        return;
    }
    startLoop(pair, CheckId::FilesReadSwap, pair->markerPath, {},
        [this, pair](
            const QString &dir, const QVector<Evidence> &setup, const QVector<ProbeCall> &end) {
            attempt(pair, dir + QStringLiteral("/swap"), setup, end);
        });
}

void ProbeSwapCheck::checkWritePair(const std::shared_ptr<ProbePair> &pair)
{
    if (!m_probe.wants(CheckId::FilesWriteSwap)) {
        m_probe.steps.next();
        return;
    }
    // A's own file, only A may write it (600): a chmod or chown through the link shows.
    const QString target = pair->probeDir + QStringLiteral("/write-swap-target.txt");
    const QString create = QStringLiteral("(umask 077; printf %s %1 > %2) && chmod 600 %2 && %3")
                               .arg(shell::quote(pair->markerContent), shell::quote(target),
                                   probe::fileStateCommand(target));
    m_probe.calls.command(pair->a, create, tr("setup: A writes a file only A may write"),
        [this, pair, target](const Result<CommandOutput> &result, const Evidence &evidence) {
            const probe::FileState before
                = probe::parseFileState(result.ok() ? result.value.lines : QStringList());
            const Precondition own = Precondition::expect(before.known
                    && before.mode == QLatin1String("600") && before.content == pair->markerContent,
                tr("A could not make its file (mode 600, its marker) or see it"));
            if (!own.met) {
                m_probe.addResult(CheckId::FilesWriteSwap, pair->actor, pair->target,
                    probe::judgeWriteSwapRace({}, before, before, own), {evidence});
                m_probe.steps.next();
                return;
            }
            startLoop(pair, CheckId::FilesWriteSwap, target, {evidence},
                [this, pair, target, before](const QString &dir, const QVector<Evidence> &setup,
                    const QVector<ProbeCall> &end) {
                    attemptWrites(pair,
                        WriteRace {dir + QStringLiteral("/swap"), target, before, setup, end});
                });
        });
}

void ProbeSwapCheck::startLoop(const std::shared_ptr<ProbePair> &pair, CheckId check,
    const QString &target, const QVector<Evidence> &earlier, LoopStarted started)
{
    const auto actor = m_probe.users.value(pair->actor);
    if (!actor) {
        m_probe.steps.next();
        return;
    }
    const QString dir = actor->home + QStringLiteral("/.sandscope-probe-") + pair->token
        + (check == CheckId::FilesReadSwap ? QStringLiteral("-swap") : QStringLiteral("-wswap"));
    const QString ownText = QStringLiteral("sandscope-swap-own-") + pair->token;
    m_probe.addCleanup(ProbeCall {pair->b,
        sendSpec("DELETE", QStringLiteral("/files/delete"), {}, {{QStringLiteral("path"), dir}}),
        tr("cleanup: B removes its swap folder")});
    m_probe.calls.command(pair->b, setupCommand(dir, ownText),
        tr("setup: B makes a file of its own to swap"),
        [=](const Result<CommandOutput> &setup, const Evidence &setupEvidence) {
            if (!setup.ok()
                || !setup.value.lines.join(QLatin1Char('\n')).contains(swapMadeMarker)) {
                m_probe.addResult(check, pair->actor, pair->target,
                    {Verdict::Error, tr("Precondition not met: B could not make its file.")},
                    earlier + QVector<Evidence> {setupEvidence});
                m_probe.steps.next();
                return;
            }
            const ProbeCall loop {pair->b,
                sendSpec("POST", QStringLiteral("/execute"),
                    {{QStringLiteral("command"), loopCommand(dir, target, ownText, loopRounds)}}),
                tr("B's shell swaps its file for a link to A's file and back, in a loop")};
            m_probe.calls.request(loop, [=](const ProbeReply &reply) {
                const QString id = protocol::parseProcess(reply.response.body).value.info.id;
                QVector<ProbeCall> end;
                if (!id.isEmpty()) {
                    end << ProbeCall {pair->b,
                        sendSpec("DELETE", QStringLiteral("/execute/") + id, {},
                            {{QStringLiteral("force"), QStringLiteral("true")}}),
                        tr("cleanup: B ends its swap loop")};
                    m_probe.addProcessCleanup(end.first());
                }
                const QVector<Evidence> evidence
                    = earlier + QVector<Evidence> {setupEvidence, reply.evidence};
                whenRunning(pair->b, dir + QStringLiteral("/running"), 50, [=](bool running) {
                    if (running) {
                        started(dir, evidence, end);
                        return;
                    }
                    m_probe.addResult(check, pair->actor, pair->target,
                        {Verdict::Error, tr("Precondition not met: B's swap loop did not start.")},
                        evidence);
                    m_probe.calls.requests(
                        end, [this](const QVector<ProbeReply> &) { m_probe.steps.next(); });
                });
            });
        });
}

void ProbeSwapCheck::whenRunning(const Identity &identity, const QString &runningFile,
    int triesLeft, std::function<void(bool)> then)
{
    const ProbeCall look {identity,
        getSpec(QStringLiteral("/files/read"), {{QStringLiteral("path"), runningFile}}),
        tr("B waits for its swap loop to begin")};
    m_probe.calls.request(look, [=](const ProbeReply &reply) {
        if (reply.response.status == 200 || triesLeft <= 1) {
            then(reply.response.status == 200);
            return;
        }
        QTimer::singleShot(100, m_probe.steps.context(),
            [=] { whenRunning(identity, runningFile, triesLeft - 1, then); });
    });
}

void ProbeSwapCheck::attempt(const std::shared_ptr<ProbePair> &pair, const QString &swapPath,
    const QVector<Evidence> &setup, const QVector<ProbeCall> &end, QVector<ProbeReply> earlier)
{
    QVector<ProbeCall> reads;
    for (int i = int(earlier.size()); i < int(earlier.size()) + roundSize; ++i)
        reads << ProbeCall {pair->b,
            getSpec(QStringLiteral("/files/read"), {{QStringLiteral("path"), swapPath}}),
            tr("B reads its file while it is being swapped (attempt %1 of at most %2)")
                .arg(i + 1)
                .arg(attemptCount)};
    m_probe.calls.requests(reads, [=](const QVector<ProbeReply> &round) mutable {
        earlier += round;
        int won = -1;
        int refusal = -1;
        for (int i = 0; i < earlier.size(); ++i) {
            if (won < 0 && earlier.at(i).response.body.contains(pair->markerContent.toUtf8()))
                won = i;
            if (refusal < 0 && earlier.at(i).response.status >= 400)
                refusal = i;
        }
        if (won < 0 && refusal < 0 && earlier.size() < attemptCount && !round.isEmpty()) {
            QTimer::singleShot(roundGapMs, m_probe.steps.context(),
                [=] { attempt(pair, swapPath, setup, end, earlier); });
            return;
        }
        QVector<protocol::HttpResponse> responses;
        for (const ProbeReply &reply : std::as_const(earlier))
            responses << reply.response;
        // The answer that decided it: the first with A's marker, else the first refusal,
        // else the last.
        const int shown = won >= 0 ? won : refusal >= 0 ? refusal : int(earlier.size()) - 1;
        const Precondition precondition = Precondition::expect(
            !setup.isEmpty() && setup.last().status == 200 && !earlier.isEmpty(),
            tr("B's swap loop did not start"));
        m_probe.addResult(CheckId::FilesReadSwap, pair->actor, pair->target,
            probe::judgeSwapRace(
                responses, pair->markerContent, pair->read.met ? precondition : pair->read),
            setup + QVector<Evidence> {pair->ownRead, earlier.value(shown).evidence});
        // The loop ends now rather than with the pair's cleanup (which repeats the request).
        m_probe.calls.requests(end, [this](const QVector<ProbeReply> &killed) {
            m_probe.calls.settleAfterKill(killed, [this] { m_probe.steps.next(); });
        });
    });
}

void ProbeSwapCheck::attemptWrites(
    const std::shared_ptr<ProbePair> &pair, const WriteRace &race, QVector<ProbeReply> earlier)
{
    const QString bText = QStringLiteral("sandscope-swap-written-by-b-") + pair->token;
    QVector<ProbeCall> writes;
    for (int i = int(earlier.size()); i < int(earlier.size()) + roundSize; ++i)
        writes << ProbeCall {pair->b,
            sendSpec("POST", QStringLiteral("/files/write"),
                {{QStringLiteral("path"), race.swapPath}, {QStringLiteral("content"), bText}}),
            tr("B writes its file while it is being swapped (attempt %1 of at most %2)")
                .arg(i + 1)
                .arg(attemptCount)};
    m_probe.calls.requests(writes, [=](const QVector<ProbeReply> &round) mutable {
        earlier += round;
        m_probe.calls.command(pair->a, probe::fileStateCommand(race.target),
            tr("A looks at its file after %n attempt(s)", nullptr, int(earlier.size())),
            [=](const Result<CommandOutput> &looked, const Evidence &lookEvidence) {
                const probe::FileState after
                    = probe::parseFileState(looked.ok() ? looked.value.lines : QStringList());
                int refusal = -1;
                for (int i = 0; i < earlier.size() && refusal < 0; ++i) {
                    if (probe::refused(earlier.at(i).response))
                        refusal = i;
                }
                if (after == race.before && refusal < 0 && earlier.size() < attemptCount
                    && !round.isEmpty()) {
                    QTimer::singleShot(roundGapMs, m_probe.steps.context(),
                        [=] { attemptWrites(pair, race, earlier); });
                    return;
                }
                QVector<protocol::HttpResponse> responses;
                for (const ProbeReply &reply : std::as_const(earlier))
                    responses << reply.response;
                const int shown = refusal >= 0 ? refusal : int(earlier.size()) - 1;
                // A's file is not put back: the probe folder holding it is removed at the end.
                m_probe.addResult(CheckId::FilesWriteSwap, pair->actor, pair->target,
                    probe::judgeWriteSwapRace(responses, race.before, after, Precondition::ok()),
                    race.setup + QVector<Evidence> {earlier.value(shown).evidence, lookEvidence});
                m_probe.calls.requests(race.end, [this](const QVector<ProbeReply> &killed) {
                    m_probe.calls.settleAfterKill(killed, [this] { m_probe.steps.next(); });
                });
            });
    });
}

} // namespace sandscope
