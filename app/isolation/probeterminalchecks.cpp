#include "probeterminalchecks.h"

#include "probing/probecontext.h"
#include "probing/probepair.h"
#include "util/shellquote.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace sandscope {

using probe::getSpec;
using probe::Precondition;
using probe::sendSpec;

namespace {

QString tokenLineOf(const ProbePair &pair)
{
    return QStringLiteral("sandscope-tty-") + pair.token;
}

// Prints tokenLineOf(pair)-<account>. The token is an argument, so the echo of the typed line
// never shows the token line itself.
QString printLine(const ProbePair &pair)
{
    return QStringLiteral("printf 'sandscope-tty-%s-%s\\n' %1 \"$(id -un)\"").arg(pair.token);
}

// Named like the probe's folders, so a leftover is found (tst_probe) and never A's own file.
QString typedFileName(const ProbePair &pair)
{
    return QStringLiteral("sandscope-probe-") + pair.token + QStringLiteral("-typed-by-b");
}

} // namespace

ProbeTerminalChecks::ProbeTerminalChecks(ProbeContext &probe)
    : m_probe(probe)
{
}

QString ProbeTerminalChecks::typedLine(const QString &printCommand, const QString &fileName)
{
    // A leading space keeps the line out of a history that ignores such lines.
    return QStringLiteral(" : > ~/%1; %2\n").arg(shell::quote(fileName), printCommand);
}

void ProbeTerminalChecks::openTerminal(const std::shared_ptr<ProbePair> &pair,
    const QString &sessionId, const QString &note,
    std::function<void(const QString &, const ProbeReply &)> done)
{
    Identity owner = pair->a;
    owner.sessionId = sessionId;
    const ProbeCall open {owner, sendSpec("POST", QStringLiteral("/api/terminals"), {}), note};
    m_probe.calls.request(open, [this, owner, done](const ProbeReply &opened) {
        const QString id = QJsonDocument::fromJson(opened.response.body)
                               .object()
                               .value(QLatin1String("id"))
                               .toString();
        if (!id.isEmpty())
            m_probe.addProcessCleanup(
                ProbeCall {owner, sendSpec("DELETE", QStringLiteral("/api/terminals/") + id, {}),
                    tr("cleanup: A closes its terminal")});
        done(id, opened);
    });
}

void ProbeTerminalChecks::checkPair(const std::shared_ptr<ProbePair> &pair)
{
    if (!m_probe.wantsAny(
            {CheckId::TerminalLookup, CheckId::TerminalRead, CheckId::TerminalWrite})) {
        m_probe.steps.next();
        return;
    }
    // Terminals get session ids of their own: 0.11.34 names a terminal after it.
    openTerminal(pair, pair->a.sessionId + QStringLiteral("-tty"), tr("setup: A opens a terminal"),
        [this, pair](const QString &id, const ProbeReply &opened) {
            const QString path = QStringLiteral("/api/terminals/") + id;
            Identity owner = pair->a;
            owner.sessionId = pair->a.sessionId + QStringLiteral("-tty");
            const QVector<ProbeCall> looks {
                ProbeCall {owner, getSpec(path), tr("precondition: A looks up its terminal")},
                ProbeCall {pair->b, getSpec(path), tr("B looks up A's terminal by its id")},
            };
            m_probe.calls.requests(looks, [=](const QVector<ProbeReply> &replies) {
                const Precondition own
                    = Precondition::expect(!id.isEmpty() && replies.at(0).response.status == 200
                            && replies.at(0).response.body.contains(id.toUtf8()),
                        tr("A could not open its terminal or look it up"));
                m_probe.addResult(CheckId::TerminalLookup, pair->actor, pair->target,
                    probe::judgeDisclosure(replies.at(1).response, probe::Disclosure::Raw, id, own),
                    {opened.evidence, replies.at(0).evidence, replies.at(1).evidence});
                if (!own.met
                    || !m_probe.wantsAny({CheckId::TerminalRead, CheckId::TerminalWrite})) {
                    const probe::Judgement error {Verdict::Error,
                        tr("Precondition not met, so nothing was judged: %1").arg(own.why)};
                    if (!own.met)
                        for (const CheckId check : {CheckId::TerminalRead, CheckId::TerminalWrite})
                            m_probe.addResult(check, pair->actor, pair->target, error,
                                {opened.evidence, replies.at(0).evidence});
                    m_probe.steps.next();
                    return;
                }
                attachOwn(pair, id, opened.evidence);
            });
        });
}

void ProbeTerminalChecks::attachOwn(
    const std::shared_ptr<ProbePair> &pair, const QString &targetId, const Evidence &opened)
{
    const QString sessionId = pair->a.sessionId + QStringLiteral("-tty-own");
    openTerminal(pair, sessionId, tr("precondition: A opens a second terminal to attach to"),
        [this, pair, targetId, opened, sessionId](const QString &ownId, const ProbeReply &made) {
            Identity owner = pair->a;
            owner.sessionId = sessionId;
            const QString account = m_probe.users.value(pair->target)->account.account;
            const QString needle = tokenLineOf(*pair) + QLatin1Char('-') + account;
            // A's own line creates no file: only B's may.
            const QString line = QLatin1Char(' ') + printLine(*pair) + QLatin1Char('\n');
            m_probe.calls.terminal(owner, ownId, line, needle,
                tr("precondition: A attaches to its own terminal and types a line"),
                [=](const probe::TerminalAttempt &attempt, const Evidence &evidence) {
                    const Precondition own
                        = Precondition::expect(!ownId.isEmpty() && attempt.output.contains(needle),
                            tr("A's own terminal did not show the output of A's line"));
                    attachAsB(pair, targetId, own, {opened, made.evidence, evidence});
                });
        });
}

void ProbeTerminalChecks::attachAsB(const std::shared_ptr<ProbePair> &pair, const QString &targetId,
    const Precondition &own, const QVector<Evidence> &setup)
{
    const QString fileName = typedFileName(*pair);
    const QString account = m_probe.users.value(pair->target)->account.account;
    const QString actorHome = m_probe.users.value(pair->actor)->home;
    // Wherever B's line runs, the file it makes is removed.
    m_probe.addCleanup(ProbeCall {pair->a,
        sendSpec("DELETE", QStringLiteral("/files/delete"), {},
            {{QStringLiteral("path"), QString(pair->home + QLatin1Char('/') + fileName)}}),
        tr("cleanup: A removes the file B's keystrokes may have made")});
    m_probe.addCleanup(ProbeCall {pair->b,
        sendSpec("DELETE", QStringLiteral("/files/delete"), {},
            {{QStringLiteral("path"), QString(actorHome + QLatin1Char('/') + fileName)}}),
        tr("cleanup: B removes the file its keystrokes may have made")});
    const QString needle = tokenLineOf(*pair) + QLatin1Char('-') + account;
    m_probe.calls.terminal(pair->b, targetId, typedLine(printLine(*pair), fileName), needle,
        tr("B attaches to A's terminal by its id and types a line"),
        [=](const probe::TerminalAttempt &attempt, const Evidence &evidence) {
            const ProbeCall look {pair->a,
                getSpec(QStringLiteral("/files/list"), {{QStringLiteral("directory"), pair->home}}),
                tr("A checks whether B's line made a file in its home")};
            m_probe.calls.request(look, [=](const ProbeReply &after) {
                m_probe.addResult(CheckId::TerminalRead, pair->actor, pair->target,
                    probe::judgeTerminalRead(attempt, tokenLineOf(*pair), account, own),
                    setup + QVector<Evidence> {evidence});
                m_probe.addResult(CheckId::TerminalWrite, pair->actor, pair->target,
                    probe::judgeTerminalWrite(
                        attempt, probe::listingEffect(after.response, fileName, true), own),
                    setup + QVector<Evidence> {evidence, after.evidence});
                m_probe.steps.next();
            });
        });
}

} // namespace sandscope
