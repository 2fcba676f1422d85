#pragma once
// The isolation probe's account checks: which account a request without X-User-Id and each
// chosen user id run as (observed first, every pair needs them), ids that share their first
// eight letters and digits (AccountTwin), an id and its upper-case variant (AccountCase),
// reserved ids such as root (ReservedIds), and what a
// request without X-User-Id reaches of A's files (MissingUserId). Each method is one step of
// ProbeSteps and calls next() when it is done.

#include "probereport/probereport.h"

#include <QCoreApplication>

#include <memory>

namespace sandscope {

struct ProbeContext;
struct ProbePair;
struct ProbeUser;

class ProbeAccountChecks {
    Q_DECLARE_TR_FUNCTIONS(ProbeAccountChecks)
public:
    explicit ProbeAccountChecks(ProbeContext &probe);

    void observeServerAccount();
    void observeUser(const QString &userId);
    void checkAccountTwin();
    // The first id in upper case (AccountCase): the same account is a FAIL.
    void checkAccountCase();
    void checkReservedIds();
    // Needs A's marker: runs as a step of the first pair.
    void checkMissingUserId(const std::shared_ptr<ProbePair> &pair);

private:
    // Observes `variant` and judges it against `state`'s account (judgeAccountTwin).
    void checkVariant(CheckId check, const std::shared_ptr<ProbeUser> &state,
        const QString &variant, const QString &note);

    ProbeContext &m_probe;
};

} // namespace sandscope
