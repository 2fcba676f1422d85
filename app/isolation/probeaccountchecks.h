#pragma once
// The isolation probe's account checks: which account a request without X-User-Id and each
// chosen user id run as (observed first, every pair needs them), ids that share their first
// eight letters and digits (AccountTwin), reserved ids such as root (ReservedIds), and what a
// request without X-User-Id reaches of A's files (MissingUserId). Each method is one step of
// ProbeSteps and calls next() when it is done.

#include <QCoreApplication>

#include <memory>

namespace sandscope {

struct ProbeContext;
struct ProbePair;

class ProbeAccountChecks {
    Q_DECLARE_TR_FUNCTIONS(ProbeAccountChecks)
public:
    explicit ProbeAccountChecks(ProbeContext &probe);

    void observeServerAccount();
    void observeUser(const QString &userId);
    void checkAccountTwin();
    void checkReservedIds();
    // Needs A's marker: runs as a step of the first pair.
    void checkMissingUserId(const std::shared_ptr<ProbePair> &pair);

private:
    ProbeContext &m_probe;
};

} // namespace sandscope
