#pragma once
// Runs the isolation probe: for every ordered pair of the chosen user ids, A creates fresh
// random markers (files in its home and in a chat folder, a running process, a session)
// and B, acting through the real server as itself, tries to reach them; then server-wide
// checks of the account mapping. Each check verifies its precondition from A's side first,
// emits its result as soon as it is judged (see probejudgement.h), and everything A created
// is removed afterwards, also when the run is cancelled. Accounts the server provisions for
// the probed ids stay (the API cannot remove them).
//
// Safety: reserved ids (root, the server's account, user) only ever run `id`; files are
// only created in the homes of the chosen users, under names with a random token, and
// only what the probe created is deleted.

#include "isolation/probejudgement.h"
#include "isolation/probereport.h"
#include "security/secretredactor.h"
#include "server/openterminalclient.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QRegularExpression>

#include <functional>
#include <memory>

namespace sandscope {

struct CommandOutput;

struct ProbeOptions {
    // At least two distinct, valid user ids (none needed when only ReservedIds runs).
    QStringList users;
    // Ids that must not map onto privileged accounts; the server's own account name is
    // added when the server reveals it.
    QStringList reservedIds {QStringLiteral("root"), QStringLiteral("user")};
    // To rerun a single cell: only these checks (empty: all) and, of the pair checks, only
    // these (target, actor) pairs (empty: all pairs).
    QVector<CheckId> onlyChecks;
    QVector<QPair<QString, QString>> onlyPairs;
    int commandTimeoutMs = 30000;
};

class IsolationProbe : public QObject {
    Q_OBJECT
public:
    explicit IsolationProbe(OpenTerminalClient *client, QObject *parent = nullptr);

    // False (with `why`) when the options are unusable or a run is in progress.
    bool start(const ProbeOptions &options, QString *why = nullptr);
    // Stops at once, removes what was created so far, then emits finished (cancelled).
    void cancel();
    bool isRunning() const { return m_running; }
    const ProbeReport &report() const { return m_report; }

Q_SIGNALS:
    void resultReady(const sandscope::CheckResult &result);
    void progress(const QString &step);
    void finished(const sandscope::ProbeReport &report);

private:
    struct Call {
        Identity identity;
        protocol::RequestSpec spec;
        QString note;
    };
    struct Reply {
        protocol::HttpResponse response;
        Evidence evidence;
    };
    struct UserState;
    struct PairRun;
    using Step = std::function<void()>;

    // Step machinery: every step calls next() exactly once when it is done.
    void addStep(Step step);
    void runFirst(const QVector<Step> &steps); // before the remaining steps, then next()
    void next();
    bool wants(CheckId check) const;
    bool wantsAny(std::initializer_list<CheckId> checks) const;
    bool wantsPair(const QString &target, const QString &actor) const;
    // After cancel(), until the cleanup starts: callbacks still on the stack start nothing.
    bool refusesWork() const;

    void request(const Call &call, std::function<void(const Reply &)> done);
    void requests(const QVector<Call> &calls, std::function<void(const QVector<Reply> &)> done);
    void command(const Identity &identity, const QString &commandLine, const QString &note,
        std::function<void(const Result<CommandOutput> &, const Evidence &)> done);
    // Polls A's process until its output matches `needle` or timeoutMs pass.
    void awaitOutput(const Identity &identity, const QString &processId,
        const QRegularExpression &needle, int timeoutMs,
        std::function<void(bool found, const Reply &last)> done);

    void discover();
    void observeServerAccount();
    void observeUser(const QString &userId);
    void planPair(const QString &target, const QString &actor);
    void setUpFiles(const std::shared_ptr<PairRun> &pair);
    void checkFilesApi(const std::shared_ptr<PairRun> &pair);
    void checkFileMutation(const std::shared_ptr<PairRun> &pair, CheckId check, const Call &attempt,
        std::function<probe::Effect(const QStringList &namesAfter)> effectOf);
    void startTargetProcess(const std::shared_ptr<PairRun> &pair);
    void checkShell(const std::shared_ptr<PairRun> &pair);
    void checkProcessesApi(const std::shared_ptr<PairRun> &pair);
    void checkNetwork(const std::shared_ptr<PairRun> &pair);
    void checkMissingUserId(const std::shared_ptr<PairRun> &pair);
    // Removes what A created so far (markers, processes), then calls `then`.
    void runCleanups(std::function<void()> then);
    // Calls `then` at once, or a moment later when one of `replies` killed a process.
    void settleAfterKill(const QVector<Reply> &replies, std::function<void()> then);
    void checkAccountTwin();
    void checkReservedIds();
    void finish();

    void emitResult(CheckId check, const QString &actor, const QString &target,
        const probe::Judgement &judgement, const QVector<Evidence> &evidence);
    void emitPairErrors(const PairRun &pair, const QString &why);
    Evidence evidenceOf(const Call &call, const protocol::HttpResponse &response) const;
    QString describe(const Identity &identity, const protocol::RequestSpec &spec) const;
    QString excerpt(const QString &text) const;

    OpenTerminalClient *m_client;
    ProbeOptions m_options;
    ProbeReport m_report;
    SecretRedactor m_redactor;
    bool m_running = false;
    bool m_cancelled = false;
    bool m_finishing = false; // removing what was created; cancel() has nothing left to do
    // Callbacks of an abandoned run check this and return; bumped on start and cancel.
    int m_generation = 0;
    QPointer<QObject> m_context; // parent of everything in flight; replaced on cancel
    QVector<Step> m_steps;
    QVector<Call> m_cleanups; // what A created, removed at the end (also on cancel)
    QHash<QString, std::shared_ptr<UserState>> m_users;
    QString m_serverAccount;
    Evidence m_serverAccountEvidence; // what a request without X-User-Id ran as
};

} // namespace sandscope
