#include "probecontext.h"

namespace sandscope {

ProbeContext::ProbeContext(OpenTerminalClient *client, QObject *owner)
    : steps(owner)
    , calls(client, &steps, [this] { return refusesWork(); })
{
}

void ProbeContext::restart(const ProbeOptions &runOptions, const QString &key)
{
    options = runOptions;
    report = ProbeReport();
    calls.reset(key, runOptions.commandTimeoutMs);
    apiKey = key;
    users.clear();
    cleanups.clear();
    serverAccount.clear();
    serverAccountEvidence = Evidence();
    probedAccounts.clear();
    cancelled = false;
    steps.restart();
}

bool ProbeContext::wants(CheckId check) const
{
    return options.onlyChecks.isEmpty() || options.onlyChecks.contains(check);
}

bool ProbeContext::wantsPair(const QString &target, const QString &actor) const
{
    return options.onlyPairs.isEmpty() || options.onlyPairs.contains(qMakePair(target, actor));
}

bool ProbeContext::wantsAny(std::initializer_list<CheckId> checks) const
{
    for (const CheckId check : checks) {
        if (wants(check))
            return true;
    }
    return false;
}

void ProbeContext::addResult(CheckId check, const QString &actor, const QString &target,
    const probe::Judgement &judgement, const QVector<Evidence> &evidence)
{
    if (!wants(check) || cancelled || (!checkInfo(check).serverWide && !wantsPair(target, actor)))
        return;
    CheckResult result;
    result.check = check;
    result.actor = actor;
    result.target = target;
    result.verdict = judgement.verdict;
    result.explanation = judgement.explanation;
    result.evidence = evidence;
    report.results.append(result);
    if (resultReady)
        resultReady(result);
}

QVector<ProbeCall> ProbeContext::takeCleanups()
{
    const QVector<ProbeCall> taken = cleanups;
    cleanups.clear();
    return taken;
}

} // namespace sandscope
