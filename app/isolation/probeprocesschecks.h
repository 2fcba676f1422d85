#pragma once
// The isolation probe's process checks through the API. startTargetProcess() has A start a
// process that prints a marker, echoes one line of input and waits; checkApi() has B list
// processes (ProcessList, ProcessCommandLine), read A's output (ProcessOutput), send A's
// X-Session-Id (SessionReuse: it needs A's process still running), type into A's process
// (ProcessInput) and, last, kill it (ProcessKill), each verified from A's side.
// checkProcFiles() has B read /proc/<pid>/environ, A's marker through /proc/<pid>/cwd (A's
// process works in A's probe folder) and /proc/<pid>/cmdline of A's process, each through the
// file API and through B's shell, after A found the process and its working folder itself;
// checkServerEnvironment() has a user read the server process's environment through the file API
// (FAIL when it holds the API key). Each method is one step of ProbeSteps and calls next() when it
// is done.

#include "probing/probejudgement.h"

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
    void checkProcFiles(const std::shared_ptr<ProbePair> &pair);
    void checkServerEnvironment();

private:
    // A's process as A found it: its pid and what A verified of it per check.
    struct ProcFilesTarget {
        QString pid;
        probe::Precondition environ;
        probe::Precondition cwd;
        probe::Precondition cmdline;
    };
    static ProcFilesTarget ownProcess(const QStringList &lines, const ProbePair &pair);

    ProbeContext &m_probe;
};

} // namespace sandscope
