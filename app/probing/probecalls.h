#pragma once
// How the isolation probe talks to the server: requests and short commands as a given
// identity, each answered together with its Evidence (the request as the report shows it,
// the status and an excerpt of the answer, all passed through SecretRedactor).
//
// Callbacks belong to the ProbeSteps generation they were sent in: after ProbeSteps::restart
// none of them runs. While `refusesWork` says so (after a cancel, until the cleanup starts),
// nothing new is sent and `done` is never called.

#include "probereport/probereport.h"
#include "probing/probejudgement.h"
#include "security/secretredactor.h"
#include "server/adminaccess.h"
#include "server/openterminalclient.h"

#include <QCoreApplication>
#include <QRegularExpression>

#include <functional>

namespace sandscope {

struct CommandOutput;
class ProbeSteps;

// One request as one identity, and what it is for ("B reads A's marker").
struct ProbeCall {
    Identity identity;
    protocol::RequestSpec spec;
    QString note;
};

struct ProbeReply {
    protocol::HttpResponse response;
    Evidence evidence;
};

class ProbeCalls {
    Q_DECLARE_TR_FUNCTIONS(ProbeCalls)
public:
    // How long A waits for its own process to print what it should.
    static constexpr int outputWaitMs = 8000;

    ProbeCalls(
        OpenTerminalClient *client, const ProbeSteps *steps, std::function<bool()> refusesWork);

    // For a new run: the API key is masked in all evidence; commands get commandTimeoutMs.
    void reset(const QString &apiKey, int commandTimeoutMs);

    void request(const ProbeCall &call, std::function<void(const ProbeReply &)> done);
    // One after the other, in order; `done` gets the replies in the same order.
    void requests(
        const QVector<ProbeCall> &calls, std::function<void(const QVector<ProbeReply> &)> done);
    void command(const Identity &identity, const QString &commandLine, const QString &note,
        std::function<void(const Result<CommandOutput> &, const Evidence &)> done);
    // A script as root through the admin channel; its evidence names the channel.
    void adminCommand(const AdminAccess &admin, const QString &script, const QString &note,
        std::function<void(const Result<CommandOutput> &, const Evidence &)> done);
    // Polls the process (as `identity`, its owner) until its output matches `needle`, it is no
    // longer running, or timeoutMs pass.
    void awaitOutput(const Identity &identity, const QString &processId,
        const QRegularExpression &needle, int timeoutMs,
        std::function<void(bool found, const ProbeReply &last)> done);
    // A WebSocket attempt on a terminal (see ProbeTerminalSocket) with its evidence.
    void terminal(const Identity &identity, const QString &terminalId, const QString &typed,
        const QString &needle, const QString &note,
        std::function<void(const probe::TerminalAttempt &, const Evidence &)> done);
    // Calls `then` at once, or a moment later when one of `replies` killed a process.
    void settleAfterKill(const QVector<ProbeReply> &replies, std::function<void()> then);

private:
    Evidence evidenceOf(const ProbeCall &call, const protocol::HttpResponse &response) const;
    QString describe(const Identity &identity, const protocol::RequestSpec &spec) const;
    QString excerpt(const QString &text) const;
    // The evidence of a finished command.
    Evidence commandEvidence(Evidence evidence, const Result<CommandOutput> &result) const;

    OpenTerminalClient *m_client;
    const ProbeSteps *m_steps;
    std::function<bool()> m_refusesWork;
    SecretRedactor m_redactor;
    int m_commandTimeoutMs = 30000;
};

namespace probe {

protocol::RequestSpec getSpec(
    const QString &path, const QList<QPair<QString, QString>> &query = {});
// A request that changes something (never retried); `body` is sent as JSON unless empty.
protocol::RequestSpec sendSpec(const QByteArray &method, const QString &path,
    const QVariantMap &body, const QList<QPair<QString, QString>> &query = {});
// The output of a process as a /execute/{id}/status answer carries it, chunks joined.
QString joinedOutput(const protocol::HttpResponse &response);

} // namespace probe

} // namespace sandscope
