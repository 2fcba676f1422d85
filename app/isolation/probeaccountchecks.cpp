#include "probeaccountchecks.h"

#include "probing/probecontext.h"
#include "probing/probepair.h"
#include "server/shortcommand.h"

namespace sandscope {

using probe::Judgement;

ProbeAccountChecks::ProbeAccountChecks(ProbeContext &probe)
    : m_probe(probe)
{
}

void ProbeAccountChecks::observeServerAccount()
{
    m_probe.calls.command(Identity(), probe::whoAmICommand(),
        tr("the server's own account (no X-User-Id)"),
        [this](const Result<CommandOutput> &result, const Evidence &evidence) {
            m_probe.serverAccountEvidence = evidence;
            if (result.ok())
                m_probe.serverAccount = probe::parseWhoAmI({}, result.value.lines).account;
            m_probe.steps.next();
        });
}

void ProbeAccountChecks::observeUser(const QString &userId)
{
    Identity identity;
    identity.userId = userId;
    m_probe.calls.command(identity, probe::whoAmICommand(), tr("the account of \"%1\"").arg(userId),
        [this, userId](const Result<CommandOutput> &result, const Evidence &evidence) {
            auto user = std::make_shared<ProbeUser>();
            user->id = userId;
            user->evidence = evidence;
            if (result.ok()) {
                user->account = probe::parseWhoAmI(userId, result.value.lines);
                user->home = probe::homeFromWhoAmI(result.value.lines);
            } else {
                user->account.userId = userId;
                user->account.status = result.error.httpStatus;
                user->account.error = result.error.toString();
            }
            m_probe.users.insert(userId, user);
            m_probe.steps.next();
        });
}

void ProbeAccountChecks::checkAccountTwin()
{
    const QString first = m_probe.options.users.at(0);
    const auto state = m_probe.users.value(first);
    const QString twin = probe::twinUserId(first, probe::randomToken(4));
    if (!state || twin.isEmpty()) {
        m_probe.addResult(CheckId::AccountTwin, QString(), first,
            {Verdict::Error,
                twin.isEmpty() ? tr("\"%1\" has fewer than four letters or digits: the server "
                                    "hashes such ids, no twin can be constructed.")
                                     .arg(first)
                               : tr("The account of \"%1\" is unknown.").arg(first)},
            {});
        m_probe.steps.next();
        return;
    }
    checkVariant(CheckId::AccountTwin, state, twin,
        tr("the twin id \"%1\" (same first eight letters and digits as \"%2\")").arg(twin, first));
}

void ProbeAccountChecks::checkAccountCase()
{
    const QString first = m_probe.options.users.at(0);
    const auto state = m_probe.users.value(first);
    const QString upper = first.toUpper();
    if (!state || upper == first) {
        m_probe.addResult(CheckId::AccountCase, QString(), first,
            {Verdict::Error,
                upper == first ? tr("\"%1\" has no lower-case letter to vary.").arg(first)
                               : tr("The account of \"%1\" is unknown.").arg(first)},
            {});
        m_probe.steps.next();
        return;
    }
    checkVariant(CheckId::AccountCase, state, upper,
        tr("the id \"%1\", \"%2\" in capitals").arg(upper, first));
}

void ProbeAccountChecks::checkVariant(CheckId check, const std::shared_ptr<ProbeUser> &state,
    const QString &variant, const QString &note)
{
    Identity identity;
    identity.userId = variant;
    m_probe.calls.command(identity, probe::whoAmICommand(), note,
        [this, check, state, variant](
            const Result<CommandOutput> &result, const Evidence &evidence) {
            probe::AccountObservation observation;
            if (result.ok()) {
                observation = probe::parseWhoAmI(variant, result.value.lines);
            } else {
                observation.userId = variant;
                observation.error = result.error.toString();
            }
            m_probe.addResult(check, variant, state->id,
                probe::judgeAccountTwin(state->account, observation), {state->evidence, evidence});
            m_probe.probedAccounts << observation.account;
            m_probe.steps.next();
        });
}

void ProbeAccountChecks::checkReservedIds()
{
    QStringList ids = m_probe.options.reservedIds;
    if (!m_probe.serverAccount.isEmpty() && !ids.contains(m_probe.serverAccount))
        ids << m_probe.serverAccount;
    bool ordinaryIdsWork = false;
    for (const auto &user : std::as_const(m_probe.users))
        ordinaryIdsWork = ordinaryIdsWork || user->known();
    auto judgements = std::make_shared<QVector<Judgement>>();
    auto evidence = std::make_shared<QVector<Evidence>>();
    if (!m_probe.serverAccountEvidence.request.isEmpty())
        *evidence << m_probe.serverAccountEvidence;
    QVector<ProbeSteps::Step> steps;
    for (const QString &id : ids) {
        steps << [this, id, judgements, evidence, ordinaryIdsWork] {
            Identity identity;
            identity.userId = id;
            // Only `id` ever runs as a reserved id.
            m_probe.calls.command(identity, probe::whoAmICommand(),
                tr("reserved id \"%1\"").arg(id),
                [=](const Result<CommandOutput> &result, const Evidence &seen) {
                    probe::AccountObservation observation;
                    if (result.ok()) {
                        observation = probe::parseWhoAmI(id, result.value.lines);
                    } else {
                        observation.userId = id;
                        observation.status = result.error.httpStatus;
                        observation.error = result.error.detail.isEmpty() ? result.error.toString()
                                                                          : result.error.detail;
                    }
                    m_probe.probedAccounts << observation.account;
                    *judgements << probe::judgeReservedId(
                        observation, m_probe.serverAccount, ordinaryIdsWork);
                    *evidence << seen;
                    m_probe.steps.next();
                });
        };
    }
    steps << [this, judgements, evidence, ids] {
        m_probe.addResult(CheckId::ReservedIds, ids.join(QStringLiteral(", ")), QString(),
            probe::combine(*judgements), *evidence);
        m_probe.steps.next();
    };
    m_probe.steps.runFirst(steps);
}

void ProbeAccountChecks::checkMissingUserId(const std::shared_ptr<ProbePair> &pair)
{
    const ProbeCall read {Identity(),
        probe::getSpec(QStringLiteral("/files/read"), {{QStringLiteral("path"), pair->markerPath}}),
        tr("a request without X-User-Id reads A's marker")};
    m_probe.calls.request(read, [this, pair](const ProbeReply &reply) {
        m_probe.addResult(CheckId::MissingUserId, QString(), pair->target,
            probe::judgeDisclosure(
                reply.response, probe::Disclosure::FileText, pair->markerContent, pair->read),
            {m_probe.serverAccountEvidence, pair->ownRead, reply.evidence});
        m_probe.steps.next();
    });
}

} // namespace sandscope
