#include "isolationprobe.h"

#include "isolation/probeaccountchecks.h"
#include "isolation/probecollisionchecks.h"
#include "isolation/probefilechecks.h"
#include "isolation/probenetworkcheck.h"
#include "isolation/probeprocesschecks.h"
#include "isolation/probesharedcheck.h"
#include "isolation/probeshellchecks.h"
#include "isolation/probeswapcheck.h"
#include "isolation/probesymlinkchecks.h"
#include "isolation/probeterminalchecks.h"
#include "probing/probecontext.h"
#include "probing/probepair.h"
#include "server/openterminalclient.h"

#include <QTimer>

#include <algorithm>
#include <utility>

namespace sandscope {

using probe::Judgement;

IsolationProbe::IsolationProbe(OpenTerminalClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_probe(std::make_unique<ProbeContext>(client, this))
    , m_accounts(std::make_unique<ProbeAccountChecks>(*m_probe))
    , m_collisions(std::make_unique<ProbeCollisionChecks>(*m_probe))
    , m_files(std::make_unique<ProbeFileChecks>(*m_probe))
    , m_shell(std::make_unique<ProbeShellChecks>(*m_probe))
    , m_shared(std::make_unique<ProbeSharedCheck>(*m_probe))
    , m_processes(std::make_unique<ProbeProcessChecks>(*m_probe))
    , m_network(std::make_unique<ProbeNetworkCheck>(*m_probe))
    , m_symlinks(std::make_unique<ProbeSymlinkChecks>(*m_probe))
    , m_swap(std::make_unique<ProbeSwapCheck>(*m_probe))
    , m_terminals(std::make_unique<ProbeTerminalChecks>(*m_probe))
{
    m_probe->resultReady = [this](const CheckResult &result) {
        Q_EMIT resultReady(result);
    };
}

IsolationProbe::~IsolationProbe() = default;

const ProbeReport &IsolationProbe::report() const
{
    return m_probe->report;
}

bool IsolationProbe::start(const ProbeOptions &options, QString *why)
{
    const auto refuse = [why](const QString &reason) {
        if (why)
            *why = reason;
        return false;
    };
    if (m_running)
        return refuse(tr("A probe is already running."));
    QString invalid;
    if (!probe::checkUserIds(options.users, &invalid))
        return refuse(invalid);
    const QStringList users = options.users;
    // Only the reserved-id check can run without users (it acts as the reserved ids only).
    const bool needsUsers = options.onlyChecks.isEmpty()
        || std::any_of(options.onlyChecks.cbegin(), options.onlyChecks.cend(),
            [](CheckId check) { return check != CheckId::ReservedIds; });
    if (needsUsers && users.size() < 2)
        return refuse(tr("The probe needs at least two user ids."));

    ProbeOptions runOptions = options;
    runOptions.users = users;
    // A rerun may start from a handler of the last run's finished().
    m_probe->restart(runOptions, m_client->connection().apiKey);
    ProbeReport &report = m_probe->report;
    report.server = m_client->connection().baseUrl.adjusted(QUrl::RemoveUserInfo).toString();
    report.users = users;
    report.startedAt = QDateTime::currentDateTimeUtc();
    m_running = true;

    ProbeSteps &steps = m_probe->steps;
    steps.add([this] { discover(); });
    steps.add([this] {
        Q_EMIT progress(tr("Finding the account of requests without X-User-Id"));
        m_accounts->observeServerAccount();
    });
    if (needsUsers) {
        for (const QString &user : users) {
            steps.add([this, user] {
                Q_EMIT progress(tr("Finding the account of \"%1\"").arg(user));
                m_accounts->observeUser(user);
            });
        }
        const bool anyPairCheck
            = std::any_of(allChecks().cbegin(), allChecks().cend(), [this](const CheckInfo &info) {
                  return !info.serverWide && !info.acrossMembers && m_probe->wants(info.id);
              });
        for (const auto &pair : userPairs(users)) {
            // The first pair also carries the request without X-User-Id (it needs A's marker).
            const bool first = pair == qMakePair(users.at(0), users.at(1));
            if ((anyPairCheck && m_probe->wantsPair(pair.first, pair.second))
                || (first && m_probe->wants(CheckId::MissingUserId)))
                steps.add([this, pair] { planPair(pair.first, pair.second); });
        }
    }
    if (needsUsers && m_probe->wantsAny({CheckId::FilesReadRoot, CheckId::FilesReadRootSymlink}))
        steps.add([this] {
            Q_EMIT progress(tr("Reading a root-only file by its path and through a symlink"));
            m_symlinks->checkRootFile();
        });
    if (needsUsers && m_probe->wants(CheckId::ServerEnvironApi))
        steps.add([this] {
            Q_EMIT progress(tr("Reading the server's environment as a user"));
            m_processes->checkServerEnvironment();
        });
    const bool collisions = needsUsers
        && m_probe->wantsAny(
            {CheckId::AccountLookalike, CheckId::AccountPath, CheckId::AccountName});
    if (collisions)
        steps.add([this] { m_collisions->snapshot(); });
    if (m_probe->wants(CheckId::AccountTwin))
        steps.add([this] { m_accounts->checkAccountTwin(); });
    if (needsUsers && m_probe->wants(CheckId::AccountCase))
        steps.add([this] { m_accounts->checkAccountCase(); });
    if (m_probe->wants(CheckId::ReservedIds))
        steps.add([this] { m_accounts->checkReservedIds(); });
    if (collisions)
        steps.add([this] {
            Q_EMIT progress(tr("Trying ids that collide with the users' accounts"));
            m_collisions->check();
        });
    steps.add([this] { finish(); });
    steps.next();
    return true;
}

void IsolationProbe::cancel()
{
    if (!m_running || m_probe->cancelled || m_probe->finishing)
        return;
    m_probe->cancelled = true;
    // May be inside one of the callbacks of the abandoned steps right now.
    m_probe->steps.restart();
    Q_EMIT progress(tr("Cancelled: removing the probe's markers and processes"));
    // Deferred: cancel() may be called from a result handler, and the rest of that handler
    // must find the probe refusing new work (see ProbeContext::refusesWork) rather than
    // cleaning up.
    QTimer::singleShot(0, m_probe->steps.context(), [this] { finish(); });
}

void IsolationProbe::discover()
{
    Q_EMIT progress(tr("Reading the server version"));
    const int generation = m_probe->steps.generation();
    m_client->serverInfo(
        m_probe->steps.context(), [this, generation](const Result<ServerInfo> &result) {
            if (!m_probe->steps.isCurrent(generation))
                return;
            m_probe->report.serverVersion = result.value.version;
            m_probe->steps.next();
        });
}

void IsolationProbe::planPair(const QString &target, const QString &actor)
{
    auto pair = std::make_shared<ProbePair>(target, actor);
    const auto targetState = m_probe->users.value(target);
    const auto actorState = m_probe->users.value(actor);
    for (const auto &state : {targetState, actorState}) {
        if (state)
            pair->setupEvidence << state->evidence;
    }
    if (!targetState || !actorState || !targetState->known() || !actorState->known()) {
        emitPairErrors(*pair,
            tr("Precondition not met: the accounts of \"%1\" and \"%2\" could not both be "
               "observed.")
                .arg(target, actor));
        m_probe->steps.next();
        return;
    }
    if (targetState->account.account == actorState->account.account) {
        emitPairErrors(*pair,
            tr("Precondition not met: \"%1\" and \"%2\" run as the same account \"%3\", so "
               "nothing separates them to probe (see the account checks).")
                .arg(target, actor, targetState->account.account));
        m_probe->steps.next();
        return;
    }
    pair->placeMarkers(targetState->home);

    Q_EMIT progress(tr("Probing what \"%1\" can reach of \"%2\"").arg(actor, target));
    // The pair's own steps go first, before the next pair.
    QVector<ProbeSteps::Step> steps;
    steps << [this, pair] {
        m_files->setUp(pair);
    };
    steps << [this, pair] {
        m_files->checkApi(pair);
    };
    steps << [this, pair] {
        m_symlinks->checkPair(pair);
    };
    steps << [this, pair] {
        m_swap->checkPair(pair);
    };
    steps << [this, pair] {
        m_swap->checkWritePair(pair);
    };
    steps << [this, pair] {
        m_processes->startTargetProcess(pair);
    };
    steps << [this, pair] {
        m_shell->check(pair);
    };
    steps << [this, pair] {
        m_shared->checkPair(pair);
    };
    steps << [this, pair] {
        m_processes->checkProcFiles(pair);
    };
    steps << [this, pair] {
        m_terminals->checkPair(pair);
    };
    // Before B's kill: after DELETE /execute/{id}, 0.11.34 closes a stale descriptor that may
    // by then be the terminal of the next process (it exits 120 without output).
    if (m_probe->wants(CheckId::NetworkPort))
        steps << [this, pair] {
            m_network->check(pair);
        };
    steps << [this, pair] {
        m_processes->checkApi(pair);
    };
    const QStringList &users = m_probe->options.users;
    if (m_probe->wants(CheckId::MissingUserId) && target == users.at(0) && actor == users.at(1))
        steps << [this, pair] {
            m_accounts->checkMissingUserId(pair);
        };
    steps << [this] {
        runCleanups([this] { m_probe->steps.next(); });
    };
    m_probe->steps.runFirst(steps);
}

void IsolationProbe::emitPairErrors(const ProbePair &pair, const QString &why)
{
    const Judgement error {Verdict::Error, why};
    const QStringList &users = m_probe->options.users;
    if (pair.target == users.at(0) && pair.actor == users.at(1))
        m_probe->addResult(
            CheckId::MissingUserId, QString(), pair.target, error, pair.setupEvidence);
    for (const CheckInfo &info : allChecks()) {
        if (!info.serverWide && !info.acrossMembers
            && !m_probe->report.find(info.id, pairSubject(pair.target, pair.actor)))
            m_probe->addResult(info.id, pair.actor, pair.target, error, pair.setupEvidence);
    }
}

void IsolationProbe::runCleanups(std::function<void()> then)
{
    m_probe->calls.requests(
        m_probe->takeCleanups(), [this, then](const QVector<ProbeReply> &replies) {
            m_probe->calls.settleAfterKill(replies, then);
        });
}

void IsolationProbe::finish()
{
    m_probe->finishing = true;
    runCleanups([this] {
        m_running = false;
        m_probe->finishing = false;
        m_probe->report.cancelled = m_probe->cancelled;
        m_probe->report.finishedAt = QDateTime::currentDateTimeUtc();
        Q_EMIT finished(m_probe->report);
    });
}

} // namespace sandscope
