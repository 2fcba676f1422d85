#pragma once
// The isolation probe's network check (NetworkPort, informational): A listens on a free
// loopback port and B's shell connects to it. Users share the network namespace by design, so
// a connection is INFO, not FAIL. It runs before B kills A's process (see
// ProbeProcessChecks::checkApi). The method is one step of ProbeSteps and calls next() when
// it is done.

#include <QCoreApplication>

#include <memory>

namespace sandscope {

struct ProbeContext;
struct ProbePair;

class ProbeNetworkCheck {
    Q_DECLARE_TR_FUNCTIONS(ProbeNetworkCheck)
public:
    explicit ProbeNetworkCheck(ProbeContext &probe);

    void check(const std::shared_ptr<ProbePair> &pair);

private:
    ProbeContext &m_probe;
};

} // namespace sandscope
