#pragma once
// Runs the isolation probe: for every ordered pair of the chosen user ids, A creates fresh
// random markers (files in its home and in a chat folder, a running process, a session)
// and B, acting through the real server as itself, tries to reach them; then server-wide
// checks of the account mapping. Each check verifies its precondition from A's side first,
// emits its result as soon as it is judged (see probejudgement.h), and everything A created
// is removed afterwards, also when the run is cancelled. Accounts the server provisions for
// ids other than the chosen users' are removed through the admin channel when there is one
// (ProbeCollisionChecks); the API cannot remove them.
//
// Safety: reserved ids (root, the server's account, user) only ever run `id`; files are
// only created in the homes of the chosen users, under names with a random token, and
// only what the probe created is deleted.

#include "probereport/probereport.h"
#include "probing/probeoptions.h"

#include <QObject>
#include <QPair>
#include <QStringList>
#include <QVector>

#include <functional>
#include <memory>

namespace sandscope {

class OpenTerminalClient;
class ProbeAccountChecks;
class ProbeCollisionChecks;
struct ProbeContext;
class ProbeFileChecks;
class ProbeNetworkCheck;
struct ProbePair;
class ProbeProcessChecks;
class ProbeSharedCheck;
class ProbeShellChecks;
class ProbeSwapCheck;
class ProbeSymlinkChecks;
class ProbeTerminalChecks;

class IsolationProbe : public QObject {
    Q_OBJECT
public:
    explicit IsolationProbe(OpenTerminalClient *client, QObject *parent = nullptr);
    ~IsolationProbe() override;

    // False (with `why`) when the options are unusable or a run is in progress.
    bool start(const ProbeOptions &options, QString *why = nullptr);
    // Stops at once, removes what was created so far, then emits finished (cancelled).
    void cancel();
    bool isRunning() const { return m_running; }
    const ProbeReport &report() const;

Q_SIGNALS:
    void resultReady(const sandscope::CheckResult &result);
    void progress(const QString &step);
    void finished(const sandscope::ProbeReport &report);

private:
    void discover();
    // The steps of one pair, run before those of the next pair.
    void planPair(const QString &target, const QString &actor);
    void emitPairErrors(const ProbePair &pair, const QString &why);
    // Removes what A created so far (markers, processes), then calls `then`.
    void runCleanups(std::function<void()> then);
    void finish();

    OpenTerminalClient *m_client;
    bool m_running = false;
    // Shared by the checks: options, steps, calls, cleanups, observations, the report.
    std::unique_ptr<ProbeContext> m_probe;
    std::unique_ptr<ProbeAccountChecks> m_accounts;
    std::unique_ptr<ProbeCollisionChecks> m_collisions;
    std::unique_ptr<ProbeFileChecks> m_files;
    std::unique_ptr<ProbeShellChecks> m_shell;
    std::unique_ptr<ProbeSharedCheck> m_shared;
    std::unique_ptr<ProbeProcessChecks> m_processes;
    std::unique_ptr<ProbeNetworkCheck> m_network;
    std::unique_ptr<ProbeSymlinkChecks> m_symlinks;
    std::unique_ptr<ProbeSwapCheck> m_swap;
    std::unique_ptr<ProbeTerminalChecks> m_terminals;
};

} // namespace sandscope
