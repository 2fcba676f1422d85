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

const QString made = QStringLiteral("sandscope-swap-made");
constexpr int loopRounds = 5000; // longer than the attempts take; ended right after them

} // namespace

ProbeSwapCheck::ProbeSwapCheck(ProbeContext &probe)
    : m_probe(probe)
{
}

QString ProbeSwapCheck::setupCommand(const QString &dir, const QString &ownText)
{
    return QStringLiteral("mkdir -- %1 && printf %s %2 > %1/swap && echo %3")
        .arg(shell::quote(dir), shell::quote(ownText), made);
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
    const auto actor = m_probe.users.value(pair->actor);
    if (!m_probe.wants(CheckId::FilesReadSwap) || !actor) {
        m_probe.steps.next();
        return;
    }
    const QString dir = actor->home + QStringLiteral("/.sandscope-probe-") + pair->token
        + QStringLiteral("-swap");
    const QString ownText = QStringLiteral("sandscope-swap-own-") + pair->token;
    m_probe.addCleanup(ProbeCall {pair->b,
        sendSpec("DELETE", QStringLiteral("/files/delete"), {}, {{QStringLiteral("path"), dir}}),
        tr("cleanup: B removes its swap folder")});
    m_probe.calls.command(pair->b, setupCommand(dir, ownText),
        tr("setup: B makes a file of its own to swap"),
        [this, pair, dir, ownText](
            const Result<CommandOutput> &setup, const Evidence &setupEvidence) {
            if (!setup.ok() || !setup.value.lines.join(QLatin1Char('\n')).contains(made)) {
                m_probe.addResult(CheckId::FilesReadSwap, pair->actor, pair->target,
                    {Verdict::Error, tr("Precondition not met: B could not make its file.")},
                    {setupEvidence});
                m_probe.steps.next();
                return;
            }
            const ProbeCall loop {pair->b,
                sendSpec("POST", QStringLiteral("/execute"),
                    {{QStringLiteral("command"),
                        loopCommand(dir, pair->markerPath, ownText, loopRounds)}}),
                tr("B's shell swaps its file for a link to A's marker and back, in a loop")};
            m_probe.calls.request(
                loop, [this, pair, dir, setupEvidence](const ProbeReply &started) {
                    const QString id = protocol::parseProcess(started.response.body).value.info.id;
                    QVector<ProbeCall> end;
                    if (!id.isEmpty()) {
                        end << ProbeCall {pair->b,
                            sendSpec("DELETE", QStringLiteral("/execute/") + id, {},
                                {{QStringLiteral("force"), QStringLiteral("true")}}),
                            tr("cleanup: B ends its swap loop")};
                        m_probe.addProcessCleanup(end.first());
                    }
                    whenRunning(pair->b, dir + QStringLiteral("/running"), 50, [=](bool running) {
                        if (!running) {
                            m_probe.addResult(CheckId::FilesReadSwap, pair->actor, pair->target,
                                {Verdict::Error,
                                    tr("Precondition not met: B's swap loop did not start.")},
                                {setupEvidence, started.evidence});
                            m_probe.calls.requests(
                                end, [this](const QVector<ProbeReply> &) { m_probe.steps.next(); });
                            return;
                        }
                        attempt(pair, dir + QStringLiteral("/swap"),
                            {setupEvidence, started.evidence}, end);
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

} // namespace sandscope
