#pragma once
// What the checks of an isolation probe run share: the options, the step queue, the calls to
// the server, what A created (removed at the end, also on cancel), what was observed of the
// accounts, and the report, which each result joins as soon as it is judged. IsolationProbe
// owns one and plans the steps; the check classes (ProbeAccountChecks, ProbeFileChecks,
// ProbeShellChecks, ProbeProcessChecks, ProbeNetworkCheck) each work on it.

#include "probereport/probereport.h"
#include "probing/probecalls.h"
#include "probing/probejudgement.h"
#include "probing/probeoptions.h"
#include "probing/probesteps.h"

#include <QHash>
#include <QVector>

#include <functional>
#include <initializer_list>
#include <memory>

namespace sandscope {

// What the probe observed of the account a user id runs as.
struct ProbeUser {
    QString id;
    probe::AccountObservation account;
    QString home;
    Evidence evidence; // the observation
    bool known() const { return !account.account.isEmpty() && !home.isEmpty(); }
};

struct ProbeContext {
    ProbeContext(OpenTerminalClient *client, QObject *owner);
    ProbeContext(const ProbeContext &) = delete;
    ProbeContext &operator=(const ProbeContext &) = delete;

    // Forgets the last run (also its steps and callbacks in flight) for one with `options`.
    void restart(const ProbeOptions &options, const QString &key);

    bool wants(CheckId check) const;
    bool wantsAny(std::initializer_list<CheckId> checks) const;
    bool wantsPair(const QString &target, const QString &actor) const;
    // After a cancel, until the cleanup starts: callbacks still on the stack start nothing.
    bool refusesWork() const { return cancelled && !finishing; }

    // Adds the result to the report and passes it to resultReady, unless the check or the pair
    // was not asked for or the run is cancelled.
    void addResult(CheckId check, const QString &actor, const QString &target,
        const probe::Judgement &judgement, const QVector<Evidence> &evidence);

    // Registers the removal of something A creates, before it exists (so that a cancel in
    // between removes it too). Processes are ended before files are removed.
    void addCleanup(const ProbeCall &call) { cleanups.append(call); }
    void addProcessCleanup(const ProbeCall &call) { cleanups.prepend(call); }
    QVector<ProbeCall> takeCleanups();

    ProbeOptions options;
    ProbeReport report;
    ProbeSteps steps;
    ProbeCalls calls;
    std::function<void(const CheckResult &)> resultReady;
    bool cancelled = false;
    bool finishing = false; // removing what was created; a cancel has nothing left to do
    QVector<ProbeCall> cleanups; // what A created, removed at the end (also on cancel)
    QHash<QString, std::shared_ptr<ProbeUser>> users;
    QString apiKey; // to recognise it in an answer; never part of evidence (ProbeCalls masks it)
    QString serverAccount;
    Evidence serverAccountEvidence; // what a request without X-User-Id ran as
    // The accounts that ids other than the chosen users ran as (twin, case, reserved and
    // collision ids): the only accounts the probe may remove (ProbeCollisionChecks).
    QStringList probedAccounts;
};

} // namespace sandscope
