#pragma once
// What the isolation probe's integration suites share (tst_probe, tst_probedenials): a probe run
// to its end, requests and commands as a user of a real server, and what a probe left behind.

#include "isolation/isolationprobe.h"
#include "probereport/probereport.h"
#include "server/openterminalprotocol.h"

#include <QString>
#include <QStringList>

#include <memory>

namespace sandscope::test {

class RealServer;

struct ProbeRun {
    ProbeReport report;
    int resultsEmitted = 0;
    bool finished = false;
};

// Runs the probe to its end (at most 120 s). `cancelAfterResults` > 0 cancels once that many
// results have arrived.
ProbeRun runProbe(
    const RealServer &server, const ProbeOptions &options, int cancelAfterResults = 0);
// "PASS", "FAIL", ... of one cell; "(missing)" when the report has none.
QString verdictOf(const ProbeReport &report, CheckId check, const QString &subject);
// Whatever the probe created and left behind: marker folders in the homes of this server's
// accounts, the shared places' markers, and processes carrying one of its markers.
QStringList leftovers(const RealServer &server);
// leftovers() empty within 5 s (a killed process may take a moment to leave /proc).
bool nothingLeft(const RealServer &server);
// The accounts of this server (its prefix) in /etc/passwd.
QStringList accountsOf(const RealServer &server);
// One request as `user`, answered synchronously.
protocol::HttpResponse sendAs(
    const RealServer &server, const QString &user, const protocol::RequestSpec &spec);
// A short command in `user`'s shell; its output.
QString shellAs(const RealServer &server, const QString &user, const QString &command);
// The user's home, as its own shell says.
QString homeOf(const RealServer &server, const QString &user);
// The two pinned releases in multi-user mode with the same two user ids on both (so their
// reports compare cell by cell), as the probe suites use them.
struct PinnedProbeServers {
    std::unique_ptr<RealServer> legacy; // OPEN_TERMINAL_LEGACY_VERSION
    std::unique_ptr<RealServer> current; // OPEN_TERMINAL_VERSION
    QString alice;
    QString bob;

    // Picks the ids and starts both servers; false with `why` when one did not start.
    bool start(QString *why);
    // "legacy" or "current", the column that addServerRows() fills.
    RealServer &server(const QString &which) const;
    static QString versionOf(const QString &which);
    // One data row per pinned server ("0.11.34", "0.14.5") in a column "which".
    static void addServerRows();
};

// A command as root on this machine (the servers' host); its exit code.
int runAsRoot(const QString &script, QString *output = nullptr);

} // namespace sandscope::test
