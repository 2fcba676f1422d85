#pragma once
// The isolation probe's file checks through the API. setUp() has A create its markers (files
// in a probe folder and a chat folder of its home) and prove that it reaches them itself;
// checkApi() has B list, read, grep, glob and archive them (disclosure) and write, move and
// delete in A's folder (mutation, verified from A's side). Each method is one step of
// ProbeSteps and calls next() when it is done.

#include "probing/probecalls.h"
#include "probing/probejudgement.h"

#include <QCoreApplication>

#include <functional>
#include <memory>

namespace sandscope {

struct ProbeContext;
struct ProbePair;

class ProbeFileChecks {
    Q_DECLARE_TR_FUNCTIONS(ProbeFileChecks)
public:
    explicit ProbeFileChecks(ProbeContext &probe);

    void setUp(const std::shared_ptr<ProbePair> &pair);
    void checkApi(const std::shared_ptr<ProbePair> &pair);

private:
    void checkMutation(const std::shared_ptr<ProbePair> &pair, CheckId check,
        const ProbeCall &attempt,
        std::function<probe::Effect(const protocol::HttpResponse &after)> effectOf);

    ProbeContext &m_probe;
};

} // namespace sandscope
