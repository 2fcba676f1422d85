#include "probenetworkcheck.h"

#include "probing/probecontext.h"
#include "probing/probepair.h"
#include "server/shortcommand.h"

#include <QRegularExpression>

namespace sandscope {

using probe::Precondition;
using probe::sendSpec;

ProbeNetworkCheck::ProbeNetworkCheck(ProbeContext &probe)
    : m_probe(probe)
{
}

void ProbeNetworkCheck::check(const std::shared_ptr<ProbePair> &pair)
{
    const QString marker = QStringLiteral("sandscope-net-") + probe::randomToken(12);
    // A listens on a free loopback port for a few seconds and greets whoever connects.
    const QString listener = QStringLiteral(
        "python3 -c 'import socket,sys\n"
        "s=socket.socket(); s.bind((\"127.0.0.1\",0)); s.listen(1); s.settimeout(15)\n"
        "print(\"sandscope-port=%d\" % s.getsockname()[1], flush=True)\n"
        "c,_=s.accept(); c.sendall(sys.argv[1].encode()+b\"\\n\"); c.close()' %1")
                                 .arg(marker);
    const ProbeCall start {pair->a,
        sendSpec("POST", QStringLiteral("/execute"), {{QStringLiteral("command"), listener}}),
        tr("setup: A listens on a loopback port")};
    m_probe.calls.request(start, [this, pair, marker](const ProbeReply &reply) {
        const Result<ProcessSnapshot> started = reply.response.status == 200
            ? protocol::parseProcess(reply.response.body)
            : Result<ProcessSnapshot>::failure(ApiError {});
        if (!started.ok() || started.value.info.id.isEmpty()) {
            m_probe.addResult(CheckId::NetworkPort, pair->actor, pair->target,
                {Verdict::Error, tr("Precondition not met: A could not start a listener.")},
                {reply.evidence});
            m_probe.steps.next();
            return;
        }
        const QString processId = started.value.info.id;
        m_probe.addProcessCleanup(ProbeCall {pair->a,
            sendSpec("DELETE", QStringLiteral("/execute/") + processId, {},
                {{QStringLiteral("force"), QStringLiteral("true")}}),
            tr("cleanup: A stops its listener")});
        // The whole line: the PTY may deliver the number in a later chunk.
        static const QRegularExpression portLine(QStringLiteral("sandscope-port=(\\d+)\\r?\\n"));
        m_probe.calls.awaitOutput(pair->a, processId, portLine, ProbeCalls::outputWaitMs,
            [this, pair, marker, reply](bool, const ProbeReply &seen) {
                const int port
                    = portLine.match(probe::joinedOutput(seen.response)).captured(1).toInt();
                if (port <= 0) {
                    m_probe.addResult(CheckId::NetworkPort, pair->actor, pair->target,
                        {Verdict::Error,
                            tr("Precondition not met: A's listener did not report its port "
                               "(is python3 installed?).")},
                        {reply.evidence, seen.evidence});
                    m_probe.steps.next();
                    return;
                }
                const QString connect = probe::shellSection(QStringLiteral("connect"),
                    QStringLiteral("timeout 5 bash -c 'exec 3<>/dev/tcp/127.0.0.1/%1; cat <&3'")
                        .arg(port));
                m_probe.calls.command(pair->b, connect, tr("B connects to A's port"),
                    [this, pair, marker, reply, seen](
                        const Result<CommandOutput> &result, const Evidence &evidence) {
                        const probe::ShellOutcome outcome = result.ok()
                            ? probe::parseShellSections(result.value.lines)
                                  .value(QStringLiteral("connect"))
                            : probe::ShellOutcome();
                        m_probe.addResult(CheckId::NetworkPort, pair->actor, pair->target,
                            probe::judgeNetwork(outcome, marker, Precondition::ok()),
                            {reply.evidence, seen.evidence, evidence});
                        m_probe.steps.next();
                    });
            });
    });
}

} // namespace sandscope
