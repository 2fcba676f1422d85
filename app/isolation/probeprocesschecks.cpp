#include "probeprocesschecks.h"

#include "isolation/probecontext.h"
#include "isolation/probepair.h"

#include <QRegularExpression>

namespace sandscope {

using probe::Effect;
using probe::getSpec;
using probe::Judgement;
using probe::Precondition;
using probe::sendSpec;
using protocol::HttpResponse;

namespace {

QRegularExpression literally(const QString &text)
{
    return QRegularExpression(QRegularExpression::escape(text));
}

} // namespace

ProbeProcessChecks::ProbeProcessChecks(ProbeContext &probe)
    : m_probe(probe)
{
}

void ProbeProcessChecks::startTargetProcess(const std::shared_ptr<ProbePair> &pair)
{
    if (!m_probe.wantsAny({CheckId::ProcessList, CheckId::ProcessCommandLine,
            CheckId::ProcessShellList, CheckId::ProcessOutput, CheckId::ProcessLog,
            CheckId::ProcessInput, CheckId::ProcessKill, CheckId::SessionReuse})) {
        m_probe.steps.next();
        return;
    }
    const QString outputToken = probe::randomToken(12);
    pair->outputMarker = QStringLiteral("sandscope-output-") + outputToken;
    pair->commandMarker = QStringLiteral("sandscope-command-") + probe::randomToken(12);
    pair->inputMarker = QStringLiteral("sandscope-input-") + probe::randomToken(12);
    // Prints the output marker (assembled by printf, so the command line does not contain
    // it), echoes one line of input, then waits to be killed. The command marker rides
    // along as a comment, visible wherever the command line is.
    const QString commandLine = QStringLiteral("printf 'sandscope-output-%s\\n' %1; read -r line; "
                                               "printf 'got=%s\\n' \"$line\"; sleep 120 # %2")
                                    .arg(outputToken, pair->commandMarker);
    const ProbeCall start {pair->a,
        sendSpec("POST", QStringLiteral("/execute"), {{QStringLiteral("command"), commandLine}}),
        tr("setup: A starts a process")};
    m_probe.calls.request(start, [this, pair](const ProbeReply &reply) {
        pair->processEvidence << reply.evidence;
        const Result<ProcessSnapshot> started = reply.response.status == 200
            ? protocol::parseProcess(reply.response.body)
            : Result<ProcessSnapshot>::failure(ApiError {});
        if (!started.ok() || started.value.info.id.isEmpty()) {
            pair->process = Precondition::missing(tr("A could not start its process"));
            m_probe.steps.next();
            return;
        }
        pair->processId = started.value.info.id;
        pair->logPath = started.value.info.logPath;
        m_probe.addProcessCleanup(ProbeCall {pair->a,
            sendSpec("DELETE", QStringLiteral("/execute/") + pair->processId, {},
                {{QStringLiteral("force"), QStringLiteral("true")}}),
            tr("cleanup: A kills its process")});
        m_probe.calls.awaitOutput(pair->a, pair->processId, literally(pair->outputMarker),
            ProbeCalls::outputWaitMs, [this, pair](bool found, const ProbeReply &last) {
                pair->processEvidence << last.evidence;
                pair->process
                    = Precondition::expect(found, tr("A's own process did not show its output"));
                m_probe.steps.next();
            });
    });
}

void ProbeProcessChecks::checkApi(const std::shared_ptr<ProbePair> &pair)
{
    if (pair->processId.isEmpty()) {
        const Judgement error {Verdict::Error,
            tr("Precondition not met, so nothing was judged: %1").arg(pair->process.why)};
        for (const CheckId check :
            {CheckId::ProcessList, CheckId::ProcessCommandLine, CheckId::ProcessOutput,
                CheckId::ProcessInput, CheckId::ProcessKill, CheckId::SessionReuse})
            m_probe.addResult(check, pair->actor, pair->target, error, pair->processEvidence);
        m_probe.steps.next();
        return;
    }
    const QString processPath = QStringLiteral("/execute/") + pair->processId;
    Identity bInASession = pair->b;
    bInASession.sessionId = pair->a.sessionId;
    const QVector<ProbeCall> calls {
        ProbeCall {pair->b, getSpec(QStringLiteral("/execute")), tr("B lists processes")},
        ProbeCall {pair->b,
            getSpec(processPath + QStringLiteral("/status"),
                {{QStringLiteral("offset"), QStringLiteral("0")}}),
            tr("B reads A's process output")},
        ProbeCall {bInASession, getSpec(QStringLiteral("/files/cwd")),
            tr("B asks for the cwd of A's session")},
        ProbeCall {bInASession, getSpec(QStringLiteral("/execute")),
            tr("B lists processes in A's session")},
        ProbeCall {pair->b,
            sendSpec("POST", processPath + QStringLiteral("/input"),
                {{QStringLiteral("input"), QString(pair->inputMarker + QLatin1Char('\n'))}}),
            tr("B types into A's process")},
    };
    m_probe.calls.requests(calls, [this, pair, processPath](const QVector<ProbeReply> &replies) {
        const QVector<Evidence> setup = pair->processEvidence;
        const probe::ProcessListJudgement list = probe::judgeProcessList(
            replies.at(0).response, pair->processId, pair->commandMarker, pair->process);
        m_probe.addResult(CheckId::ProcessList, pair->actor, pair->target, list.listed,
            setup + QVector<Evidence> {replies.at(0).evidence});
        m_probe.addResult(CheckId::ProcessCommandLine, pair->actor, pair->target, list.commandLine,
            setup + QVector<Evidence> {replies.at(0).evidence});
        m_probe.addResult(CheckId::ProcessOutput, pair->actor, pair->target,
            probe::judgeDisclosure(replies.at(1).response, probe::Disclosure::ProcessOutput,
                pair->outputMarker, pair->process),
            setup + QVector<Evidence> {replies.at(1).evidence});
        m_probe.addResult(CheckId::SessionReuse, pair->actor, pair->target,
            probe::judgeSessionReuse(replies.at(2).response, replies.at(3).response, pair->home,
                pair->processId, pair->process),
            setup
                + QVector<Evidence> {
                    pair->sessionCwd, replies.at(2).evidence, replies.at(3).evidence});

        // Input: A's own output shows whether B's line arrived.
        const ProbeReply input = replies.at(4);
        m_probe.calls.awaitOutput(pair->a, pair->processId,
            literally(QStringLiteral("got=") + pair->inputMarker), 1500,
            [this, pair, input, setup, processPath](bool arrived, const ProbeReply &seen) {
                const Effect effect = arrived     ? Effect::Observed
                    : seen.response.status == 200 ? Effect::NotObserved
                                                  : Effect::Unknown;
                m_probe.addResult(CheckId::ProcessInput, pair->actor, pair->target,
                    probe::judgeMutation(input.response, effect, pair->process),
                    setup + QVector<Evidence> {input.evidence, seen.evidence});

                // Kill last: A's process must still run afterwards.
                const QVector<ProbeCall> killCalls {
                    ProbeCall {
                        pair->b, sendSpec("DELETE", processPath, {}), tr("B kills A's process")},
                    ProbeCall {pair->a,
                        getSpec(processPath + QStringLiteral("/status"),
                            {{QStringLiteral("offset"), QStringLiteral("0")}}),
                        tr("A checks whether its process still runs")},
                };
                m_probe.calls.requests(
                    killCalls, [this, pair, setup](const QVector<ProbeReply> &kill) {
                        const HttpResponse &after = kill.at(1).response;
                        const Result<ProcessSnapshot> state = protocol::parseProcess(after.body);
                        const Effect killed = after.status == 404 ? Effect::Observed
                            : after.status != 200 || !state.ok()  ? Effect::Unknown
                            : state.value.info.status == ProcessStatus::Running
                            ? Effect::NotObserved
                            : Effect::Observed;
                        m_probe.addResult(CheckId::ProcessKill, pair->actor, pair->target,
                            probe::judgeMutation(kill.at(0).response, killed, pair->process),
                            setup + QVector<Evidence> {kill.at(0).evidence, kill.at(1).evidence});
                        m_probe.calls.settleAfterKill(kill, [this] { m_probe.steps.next(); });
                    });
            });
    });
}

} // namespace sandscope
