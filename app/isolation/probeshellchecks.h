#pragma once
// The isolation probe's checks through B's shell: one command as B tries to read, list, write
// and delete in A's probe folder and chat folder (ShellRead, ShellList, ShellWrite,
// ShellDelete), to see A's process in `ps` (ProcessShellList) and to read its log file
// (ProcessLog). It runs after ProbeProcessChecks::startTargetProcess. The method is one step
// of ProbeSteps and calls next() when it is done.

#include <QCoreApplication>

#include <memory>

namespace sandscope {

struct ProbeContext;
struct ProbePair;

class ProbeShellChecks {
    Q_DECLARE_TR_FUNCTIONS(ProbeShellChecks)
public:
    explicit ProbeShellChecks(ProbeContext &probe);

    void check(const std::shared_ptr<ProbePair> &pair);

private:
    ProbeContext &m_probe;
};

} // namespace sandscope
