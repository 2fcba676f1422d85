#pragma once
// The isolation probe's process checks through the API. startTargetProcess() has A start a
// process that prints a marker, echoes one line of input and waits; checkApi() has B list
// processes (ProcessList, ProcessCommandLine), read A's output (ProcessOutput), send A's
// X-Session-Id (SessionReuse: it needs A's process still running), type into A's process
// (ProcessInput) and, last, kill it (ProcessKill), each verified from A's side.
// checkEnvironment() has B read the environment of A's process through the file API and its
// shell; checkServerEnvironment() has a user read the server process's environment through the
// file API (FAIL when it holds the API key). Each method is one step of ProbeSteps and calls
// next() when it is done.

#include <QCoreApplication>

#include <memory>

namespace sandscope {

struct ProbeContext;
struct ProbePair;

class ProbeProcessChecks {
    Q_DECLARE_TR_FUNCTIONS(ProbeProcessChecks)
public:
    explicit ProbeProcessChecks(ProbeContext &probe);

    void startTargetProcess(const std::shared_ptr<ProbePair> &pair);
    void checkApi(const std::shared_ptr<ProbePair> &pair);
    void checkEnvironment(const std::shared_ptr<ProbePair> &pair);
    void checkServerEnvironment();

private:
    ProbeContext &m_probe;
};

} // namespace sandscope
