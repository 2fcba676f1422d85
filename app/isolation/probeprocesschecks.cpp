#include "probeprocesschecks.h"

#include "probing/probecontext.h"
#include "probing/probepair.h"
#include "server/shortcommand.h"
#include "util/shellquote.h"

#include <QJsonDocument>
#include <QJsonObject>
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
            CheckId::ProcessInput, CheckId::ProcessKill, CheckId::SessionReuse,
            CheckId::ProcessEnvironApi, CheckId::ProcessEnvironShell, CheckId::ProcessCwdApi,
            CheckId::ProcessCwdShell, CheckId::ProcessCmdlineApi, CheckId::ProcessCmdlineShell})) {
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
    // The environment marker is exported for `sleep` (and is in sudo's SUDO_COMMAND of the
    // shell), so it is in the environment of A's processes. The shell works in A's probe
    // folder, so its /proc/<pid>/cwd leads to A's marker (process.cwd.*).
    pair->environMarker = QStringLiteral("sandscope-environ-") + probe::randomToken(12);
    const QString commandLine
        = QStringLiteral("cd -- %4 2>/dev/null; export SANDSCOPE_PROBE_ENV=%3; "
                         "printf 'sandscope-output-%s\\n' %1; read -r line; "
                         "printf 'got=%s\\n' \"$line\"; sleep 120 # %2")
              .arg(outputToken, pair->commandMarker, pair->environMarker,
                  shell::quote(pair->probeDir));
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

void ProbeProcessChecks::checkProcFiles(const std::shared_ptr<ProbePair> &pair)
{
    if (!m_probe.wantsAny({CheckId::ProcessEnvironApi, CheckId::ProcessEnvironShell,
            CheckId::ProcessCwdApi, CheckId::ProcessCwdShell, CheckId::ProcessCmdlineApi,
            CheckId::ProcessCmdlineShell})) {
        m_probe.steps.next();
        return;
    }
    // A finds its own processes (the shell running the command carries the command marker;
    // this search's own shell does too, and is skipped), proves it reads the marker in their
    // environment itself, and names their working folder.
    const QString find
        = QStringLiteral("for p in $(pgrep -u \"$(id -u)\" -f %1); do [ \"$p\" = $$ ] && continue; "
                         "if tr '\\0' '\\n' < /proc/$p/environ 2>/dev/null | grep -q %2; then "
                         "echo \"sandscope-pid=$p $(readlink /proc/$p/cwd)\"; fi; done")
              .arg(shell::quote(pair->commandMarker), shell::quote(pair->environMarker));
    m_probe.calls.command(pair->a, find,
        tr("precondition: A finds its process, its environment and its working folder"),
        [this, pair](const Result<CommandOutput> &found, const Evidence &foundEvidence) {
            const ProcFilesTarget target
                = ownProcess(found.ok() ? found.value.lines : QStringList(), *pair);
            const QString proc = QStringLiteral("/proc/") + target.pid;
            const QString environ = proc + QStringLiteral("/environ");
            const QString cwdMarker = proc + QStringLiteral("/cwd/") + pair->markerName;
            const QString cmdline = proc + QStringLiteral("/cmdline");
            const auto read = [&](const QString &path, const QString &note) {
                return ProbeCall {pair->b,
                    getSpec(QStringLiteral("/files/read"), {{QStringLiteral("path"), path}}), note};
            };
            const QVector<ProbeCall> calls {
                read(environ, tr("B reads A's process environment through the file API")),
                read(cwdMarker,
                    tr("B reads A's marker through A's process working folder (file API)")),
                read(cmdline, tr("B reads A's process arguments through the file API")),
            };
            m_probe.calls.requests(calls, [=](const QVector<ProbeReply> &replies) {
                const auto api = [&](CheckId check, int reply, const QString &marker,
                                     const Precondition &own) {
                    m_probe.addResult(check, pair->actor, pair->target,
                        probe::judgeDisclosure(
                            replies.at(reply).response, probe::Disclosure::FileText, marker, own),
                        {foundEvidence, replies.at(reply).evidence});
                };
                api(CheckId::ProcessEnvironApi, 0, pair->environMarker, target.environ);
                api(CheckId::ProcessCwdApi, 1, pair->markerContent, target.cwd);
                api(CheckId::ProcessCmdlineApi, 2, pair->commandMarker, target.cmdline);
                const QString script = probe::shellSection(QStringLiteral("environ"),
                                           QStringLiteral("cat -- ") + shell::quote(environ))
                    + probe::shellSection(
                        QStringLiteral("cwd"), QStringLiteral("cat -- ") + shell::quote(cwdMarker))
                    + probe::shellSection(QStringLiteral("cmdline"),
                        QStringLiteral("tr '\\0' ' ' < ") + shell::quote(cmdline));
                m_probe.calls.command(pair->b, script,
                    tr("B's shell reads A's process environment, working folder and arguments"),
                    [=](const Result<CommandOutput> &result, const Evidence &evidence) {
                        const QHash<QString, probe::ShellOutcome> sections = result.ok()
                            ? probe::parseShellSections(result.value.lines)
                            : QHash<QString, probe::ShellOutcome>();
                        const auto shellCheck
                            = [&](CheckId check, const QString &tag, const QString &marker,
                                  const Precondition &own) {
                                  m_probe.addResult(check, pair->actor, pair->target,
                                      probe::judgeShell(sections.value(tag),
                                          probe::ShellAccess::Read, marker, own),
                                      {foundEvidence, evidence});
                              };
                        shellCheck(CheckId::ProcessEnvironShell, QStringLiteral("environ"),
                            pair->environMarker, target.environ);
                        shellCheck(CheckId::ProcessCwdShell, QStringLiteral("cwd"),
                            pair->markerContent, target.cwd);
                        shellCheck(CheckId::ProcessCmdlineShell, QStringLiteral("cmdline"),
                            pair->commandMarker, target.cmdline);
                        m_probe.steps.next();
                    });
            });
        });
}

ProbeProcessChecks::ProcFilesTarget ProbeProcessChecks::ownProcess(
    const QStringList &lines, const ProbePair &pair)
{
    ProcFilesTarget target;
    QString cwd;
    for (const QString &line : lines) {
        if (!line.startsWith(QLatin1String("sandscope-pid=")))
            continue;
        const QString rest = line.mid(14).trimmed();
        const QString pid = rest.section(QLatin1Char(' '), 0, 0);
        const QString folder = rest.section(QLatin1Char(' '), 1);
        // The shell that moved into the probe folder, when several of A's processes match.
        if (target.pid.isEmpty() || folder == pair.probeDir) {
            target.pid = pid;
            cwd = folder;
        }
    }
    const Precondition found = pair.process.met ? Precondition::expect(!target.pid.isEmpty(),
                                   tr("A did not find its marker in its own process's environment"))
                                                : pair.process;
    target.environ = found;
    // pgrep found the process by the command marker in its arguments.
    target.cmdline = found;
    target.cwd = !found.met    ? found
        : cwd != pair.probeDir ? Precondition::missing(
              tr("A's process does not work in A's probe folder (its cwd: \"%1\")").arg(cwd))
                               : pair.read;
    return target;
}

void ProbeProcessChecks::checkServerEnvironment()
{
    const QString userId = m_probe.options.users.value(0);
    if (m_probe.apiKey.isEmpty()) {
        m_probe.addResult(CheckId::ServerEnvironApi, userId, QString(),
            {Verdict::Error, tr("Not judged: the connection has no API key to look for.")}, {});
        m_probe.steps.next();
        return;
    }
    Identity identity;
    identity.userId = userId;
    // The process table is shared (process.ps): any user sees the server's pid. At most 32
    // candidates are read (a machine may run several servers).
    const QString find = QStringLiteral("pgrep -f 'open-terminal|open_terminal' | head -n 32");
    m_probe.calls.command(identity, find, tr("the user looks for the server's process"),
        [this, identity, userId](
            const Result<CommandOutput> &found, const Evidence &foundEvidence) {
            QVector<ProbeCall> reads;
            for (const QString &line : found.ok() ? found.value.lines : QStringList()) {
                bool number = false;
                line.trimmed().toInt(&number);
                if (number)
                    reads << ProbeCall {identity,
                        getSpec(QStringLiteral("/files/read"),
                            {{QStringLiteral("path"),
                                QString(QStringLiteral("/proc/") + line.trimmed()
                                    + QStringLiteral("/environ"))}}),
                        tr("the user reads a server process's environment through the file API")};
            }
            if (reads.isEmpty()) {
                m_probe.addResult(CheckId::ServerEnvironApi, userId, QString(),
                    {Verdict::Error, tr("Precondition not met: no server process was found.")},
                    {foundEvidence});
                m_probe.steps.next();
                return;
            }
            m_probe.calls.requests(reads, [=](const QVector<ProbeReply> &replies) {
                QVector<Evidence> evidence {foundEvidence};
                QVector<probe::Judgement> judgements;
                for (const ProbeReply &reply : replies) {
                    evidence << reply.evidence;
                    // A candidate that ended before it was read (404: pgrep's own shell, a
                    // short command) was not the server, which is running: not judged.
                    if (reply.response.status == 404)
                        continue;
                    // The key itself is the marker; the evidence has it masked.
                    judgements << probe::judgeDisclosure(reply.response,
                        probe::Disclosure::FileText, m_probe.apiKey, Precondition::ok());
                }
                probe::Judgement judgement = judgements.isEmpty()
                    ? probe::Judgement {Verdict::Error,
                        tr("Inconclusive: every process found had ended before it was read.")}
                    : probe::combine(judgements);
                if (judgement.verdict == Verdict::Fail)
                    judgement.explanation = tr("Reachable: a server process's environment, read "
                                               "as this user, holds the server's API key.");
                m_probe.addResult(
                    CheckId::ServerEnvironApi, userId, QString(), judgement, evidence);
                m_probe.steps.next();
            });
        });
}

} // namespace sandscope
