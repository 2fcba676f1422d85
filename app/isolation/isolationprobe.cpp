#include "isolationprobe.h"

#include "server/serverprobe.h"
#include "util/shellquote.h"

#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTimer>
#include <QUrlQuery>

#include <algorithm>
#include <utility>

namespace sandscope {

using probe::Effect;
using probe::Judgement;
using probe::Precondition;
using protocol::HttpResponse;
using protocol::RequestSpec;

namespace {

constexpr int excerptLength = 600;
constexpr int outputWaitMs = 8000;
// After DELETE /execute/{id}, 0.11.34 closes a descriptor of the killed process a second
// time, shortly afterwards; a process started in between can lose its terminal (it exits
// 120 without output). Nothing new starts until then.
constexpr int killSettleMs = 1000;

QString randomToken(int length)
{
    static const QLatin1String alphabet("abcdefghijklmnopqrstuvwxyz0123456789");
    QString token;
    for (int i = 0; i < length; ++i)
        token.append(alphabet.at(int(QRandomGenerator::global()->bounded(alphabet.size()))));
    return token;
}

RequestSpec getSpec(const QString &path, const QList<QPair<QString, QString>> &query = {})
{
    RequestSpec spec;
    spec.path = path;
    spec.query = query;
    return spec;
}

RequestSpec sendSpec(const QByteArray &method, const QString &path, const QVariantMap &body,
    const QList<QPair<QString, QString>> &query = {})
{
    RequestSpec spec = getSpec(path, query);
    spec.method = method;
    spec.idempotent = false;
    if (!body.isEmpty())
        spec.body = protocol::jsonBody(body);
    return spec;
}

QStringList listedNames(const HttpResponse &response)
{
    QStringList names;
    if (response.status < 200 || response.status >= 300)
        return names;
    const Result<DirectoryListing> listing = protocol::parseListing(response.body);
    for (const FileEntry &entry : listing.value.entries)
        names << entry.name;
    return names;
}

bool listingOk(const HttpResponse &response)
{
    return response.status >= 200 && response.status < 300
        && protocol::parseListing(response.body).ok();
}

QString joinedOutput(const HttpResponse &response)
{
    const Result<ProcessSnapshot> snapshot = protocol::parseProcess(response.body);
    QString text;
    for (const OutputChunk &chunk : snapshot.value.output)
        text += chunk.data;
    return text;
}

QRegularExpression literally(const QString &text)
{
    return QRegularExpression(QRegularExpression::escape(text));
}

Precondition expect(bool met, const QString &why)
{
    return met ? Precondition::ok() : Precondition::missing(why);
}

} // namespace

struct IsolationProbe::UserState {
    QString id;
    probe::AccountObservation account;
    QString home;
    Evidence evidence;
    bool known() const { return !account.account.isEmpty() && !home.isEmpty(); }
};

// Everything one (A, B) pair creates and learns. A is the target, B the actor.
struct IsolationProbe::PairRun {
    QString target;
    QString actor;
    Identity a;
    Identity b;
    QString home;
    QString token;
    QString probeDirName;
    QString probeDir;
    QString chatDirName;
    QString chatDir;
    QString markerName;
    QString markerContent;
    QString markerPath;
    QString chatMarkerPath;
    QString moveMe;
    QString movedTo;
    QString deleteMe;
    QString shellVictim;
    QString chatShellVictim;
    bool filesReady = false;
    Precondition read;
    Precondition list;
    Precondition grep;
    Precondition glob;
    Precondition victims;
    QVector<Evidence> setupEvidence; // everything A did to prepare, in order
    // A's own requests that prove the preconditions, shown next to B's attempts.
    Evidence ownHome;
    Evidence ownFolder;
    Evidence ownRead;
    Evidence ownGrep;
    Evidence ownGlob;
    Evidence sessionCwd;

    QString processId;
    QString logPath;
    QString outputMarker;
    QString commandMarker;
    QString inputMarker;
    Precondition process;
    QVector<Evidence> processEvidence;
};

IsolationProbe::IsolationProbe(OpenTerminalClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
{
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
    QStringList users;
    for (const QString &user : options.users) {
        QString invalid;
        if (!validateUserId(user, &invalid))
            return refuse(tr("Invalid user id \"%1\": %2").arg(user, invalid));
        if (users.contains(user))
            return refuse(tr("User id \"%1\" is given twice.").arg(user));
        users << user;
    }
    // Only the reserved-id check can run without users (it acts as the reserved ids only).
    const bool needsUsers = options.onlyChecks.isEmpty()
        || std::any_of(options.onlyChecks.cbegin(), options.onlyChecks.cend(),
            [](CheckId check) { return check != CheckId::ReservedIds; });
    if (needsUsers && users.size() < 2)
        return refuse(tr("The probe needs at least two user ids."));

    m_options = options;
    m_options.users = users;
    m_report = ProbeReport();
    m_report.server = m_client->connection().baseUrl.adjusted(QUrl::RemoveUserInfo).toString();
    m_report.users = users;
    m_report.startedAt = QDateTime::currentDateTimeUtc();
    m_redactor.clear();
    m_redactor.addSecret(m_client->connection().apiKey);
    m_users.clear();
    m_cleanups.clear();
    m_steps.clear();
    m_serverAccount.clear();
    m_serverAccountEvidence = Evidence();
    m_cancelled = false;
    m_running = true;
    ++m_generation;
    if (m_context) // a rerun may start from a handler of the last run's finished()
        m_context->deleteLater();
    m_context = new QObject(this);

    addStep([this] { discover(); });
    addStep([this] { observeServerAccount(); });
    if (needsUsers) {
        for (const QString &user : users)
            addStep([this, user] { observeUser(user); });
        const bool anyPairCheck = std::any_of(allChecks().cbegin(), allChecks().cend(),
            [this](const CheckInfo &info) { return !info.serverWide && wants(info.id); });
        for (const auto &pair : userPairs(users)) {
            // The first pair also carries the request without X-User-Id (it needs A's marker).
            const bool first = pair == qMakePair(users.at(0), users.at(1));
            if ((anyPairCheck && wantsPair(pair.first, pair.second))
                || (first && wants(CheckId::MissingUserId)))
                addStep([this, pair] { planPair(pair.first, pair.second); });
        }
    }
    if (wants(CheckId::AccountTwin))
        addStep([this] { checkAccountTwin(); });
    if (wants(CheckId::ReservedIds))
        addStep([this] { checkReservedIds(); });
    addStep([this] { finish(); });
    next();
    return true;
}

void IsolationProbe::cancel()
{
    if (!m_running || m_cancelled || m_finishing)
        return;
    m_cancelled = true;
    ++m_generation;
    if (m_context)
        m_context->deleteLater(); // may be inside one of its callbacks right now
    m_context = new QObject(this);
    m_steps.clear();
    Q_EMIT progress(tr("Cancelled: removing the probe's markers and processes"));
    // Deferred: cancel() may be called from a result handler, and the rest of that handler
    // must find the probe refusing new work (see request()) rather than cleaning up.
    QTimer::singleShot(0, m_context, [this] { finish(); });
}

bool IsolationProbe::refusesWork() const
{
    return m_cancelled && !m_finishing;
}

// ---------------------------------------------------------------------------------------
// Machinery

void IsolationProbe::addStep(Step step)
{
    m_steps.append(std::move(step));
}

void IsolationProbe::runFirst(const QVector<Step> &steps)
{
    m_steps = steps + m_steps;
    next();
}

void IsolationProbe::next()
{
    if (m_steps.isEmpty())
        return;
    Step step = m_steps.takeFirst();
    const int generation = m_generation;
    // Queued, so a long run never nests callbacks.
    QTimer::singleShot(0, m_context, [this, step, generation] {
        if (generation == m_generation)
            step();
    });
}

bool IsolationProbe::wants(CheckId check) const
{
    return m_options.onlyChecks.isEmpty() || m_options.onlyChecks.contains(check);
}

bool IsolationProbe::wantsPair(const QString &target, const QString &actor) const
{
    return m_options.onlyPairs.isEmpty() || m_options.onlyPairs.contains(qMakePair(target, actor));
}

bool IsolationProbe::wantsAny(std::initializer_list<CheckId> checks) const
{
    for (const CheckId check : checks) {
        if (wants(check))
            return true;
    }
    return false;
}

QString IsolationProbe::describe(const Identity &identity, const RequestSpec &spec) const
{
    QString line = QString::fromLatin1(spec.method) + QLatin1Char(' ') + spec.path;
    if (!spec.query.isEmpty()) {
        QStringList parts;
        for (const auto &item : spec.query)
            parts << item.first + QLatin1Char('=') + item.second;
        line += QLatin1Char('?') + parts.join(QLatin1Char('&'));
    }
    if (!spec.body.isEmpty())
        line += QLatin1Char(' ') + QString::fromUtf8(spec.body);
    QStringList headers;
    headers << (identity.userId.isEmpty() ? QStringLiteral("no X-User-Id")
                                          : QStringLiteral("X-User-Id: ") + identity.userId);
    if (!identity.sessionId.isEmpty())
        headers << QStringLiteral("X-Session-Id: ") + identity.sessionId;
    return m_redactor.redact(
        line + QStringLiteral("  (") + headers.join(QStringLiteral(", ")) + QLatin1Char(')'));
}

QString IsolationProbe::excerpt(const QString &text) const
{
    const QString redacted = m_redactor.redact(text);
    if (redacted.size() <= excerptLength)
        return redacted;
    return redacted.left(excerptLength) + QStringLiteral("… (%1 characters)").arg(redacted.size());
}

Evidence IsolationProbe::evidenceOf(const Call &call, const HttpResponse &response) const
{
    Evidence evidence;
    evidence.request = describe(call.identity, call.spec);
    evidence.status = response.status;
    evidence.note = call.note;
    const bool text = response.contentType.isEmpty() || response.contentType.contains("json")
        || response.contentType.startsWith("text/");
    if (response.status == 0)
        evidence.response
            = excerpt(response.networkErrorString.isEmpty() ? QStringLiteral("no answer")
                                                            : response.networkErrorString);
    else if (text)
        evidence.response = excerpt(QString::fromUtf8(response.body));
    else
        evidence.response = QStringLiteral("<%1 bytes of %2>")
                                .arg(response.body.size())
                                .arg(QString::fromLatin1(response.contentType));
    return evidence;
}

void IsolationProbe::request(const Call &call, std::function<void(const Reply &)> done)
{
    if (refusesWork())
        return;
    const int generation = m_generation;
    m_client->send(call.identity, call.spec, m_context,
        [this, call, done, generation](const HttpResponse &response) {
            if (generation != m_generation)
                return;
            done(Reply {response, evidenceOf(call, response)});
        });
}

void IsolationProbe::requests(
    const QVector<Call> &calls, std::function<void(const QVector<Reply> &)> done)
{
    auto replies = std::make_shared<QVector<Reply>>();
    auto sendNext = std::make_shared<std::function<void()>>();
    // The chain holds itself through the callback only while a request is in flight.
    *sendNext
        = [this, calls, replies, done, weak = std::weak_ptr<std::function<void()>>(sendNext)] {
              if (replies->size() == calls.size()) {
                  done(*replies);
                  return;
              }
              const auto self = weak.lock();
              request(calls.at(replies->size()), [replies, self](const Reply &reply) {
                  replies->append(reply);
                  (*self)();
              });
          };
    (*sendNext)();
}

void IsolationProbe::command(const Identity &identity, const QString &commandLine,
    const QString &note, std::function<void(const Result<CommandOutput> &, const Evidence &)> done)
{
    if (refusesWork())
        return;
    const int generation = m_generation;
    Evidence evidence;
    evidence.request = describe(identity,
        sendSpec("POST", QStringLiteral("/execute"), {{QStringLiteral("command"), commandLine}}));
    evidence.note = note;
    runShortCommand(
        m_client, identity, commandLine, m_context,
        [this, evidence, done, generation](const Result<CommandOutput> &result) {
            if (generation != m_generation)
                return;
            Evidence filled = evidence;
            if (result.ok()) {
                filled.response = excerpt(result.value.lines.join(QLatin1Char('\n')))
                    + QStringLiteral("\n[exit status %1]").arg(result.value.exitCode);
            } else {
                filled.status = result.error.httpStatus;
                filled.response = excerpt(
                    result.error.detail.isEmpty() ? result.error.toString() : result.error.detail);
            }
            done(result, filled);
        },
        m_options.commandTimeoutMs);
}

void IsolationProbe::awaitOutput(const Identity &identity, const QString &processId,
    const QRegularExpression &needle, int timeoutMs, std::function<void(bool, const Reply &)> done)
{
    auto clock = std::make_shared<QElapsedTimer>();
    clock->start();
    auto poll = std::make_shared<std::function<void()>>();
    const Call call {identity,
        getSpec(QStringLiteral("/execute/") + processId + QStringLiteral("/status"),
            {{QStringLiteral("offset"), QStringLiteral("0")}}),
        tr("A reads its own process output")};
    *poll = [this, call, needle, timeoutMs, done, clock,
                weak = std::weak_ptr<std::function<void()>>(poll)] {
        const auto self = weak.lock();
        request(call, [this, needle, timeoutMs, done, clock, self](const Reply &reply) {
            const bool found = needle.match(joinedOutput(reply.response)).hasMatch();
            const bool running = reply.response.status == 200
                && protocol::parseProcess(reply.response.body).value.info.status
                    == ProcessStatus::Running;
            if (found || !running || clock->elapsed() > timeoutMs) {
                done(found, reply);
                return;
            }
            QTimer::singleShot(150, m_context, [self] { (*self)(); });
        });
    };
    (*poll)();
}

void IsolationProbe::emitResult(CheckId check, const QString &actor, const QString &target,
    const Judgement &judgement, const QVector<Evidence> &evidence)
{
    if (!wants(check) || m_cancelled || (!checkInfo(check).serverWide && !wantsPair(target, actor)))
        return;
    CheckResult result;
    result.check = check;
    result.actor = actor;
    result.target = target;
    result.verdict = judgement.verdict;
    result.explanation = judgement.explanation;
    result.evidence = evidence;
    m_report.results.append(result);
    Q_EMIT resultReady(result);
}

void IsolationProbe::emitPairErrors(const PairRun &pair, const QString &why)
{
    const Judgement error {Verdict::Error, why};
    if (pair.target == m_options.users.at(0) && pair.actor == m_options.users.at(1))
        emitResult(CheckId::MissingUserId, QString(), pair.target, error, pair.setupEvidence);
    for (const CheckInfo &info : allChecks()) {
        if (!info.serverWide && !m_report.find(info.id, pairSubject(pair.target, pair.actor)))
            emitResult(info.id, pair.actor, pair.target, error, pair.setupEvidence);
    }
}

// ---------------------------------------------------------------------------------------
// Discovery

void IsolationProbe::discover()
{
    Q_EMIT progress(tr("Reading the server version"));
    const int generation = m_generation;
    m_client->serverInfo(m_context, [this, generation](const Result<ServerInfo> &result) {
        if (generation != m_generation)
            return;
        m_report.serverVersion = result.value.version;
        next();
    });
}

void IsolationProbe::observeServerAccount()
{
    Q_EMIT progress(tr("Finding the account of requests without X-User-Id"));
    command(Identity(), probe::whoAmICommand(), tr("the server's own account (no X-User-Id)"),
        [this](const Result<CommandOutput> &result, const Evidence &evidence) {
            m_serverAccountEvidence = evidence;
            if (result.ok())
                m_serverAccount = probe::parseWhoAmI({}, result.value.lines).account;
            next();
        });
}

void IsolationProbe::observeUser(const QString &userId)
{
    Q_EMIT progress(tr("Finding the account of \"%1\"").arg(userId));
    Identity identity;
    identity.userId = userId;
    command(identity, probe::whoAmICommand(), tr("the account of \"%1\"").arg(userId),
        [this, userId](const Result<CommandOutput> &result, const Evidence &evidence) {
            auto user = std::make_shared<UserState>();
            user->id = userId;
            user->evidence = evidence;
            if (result.ok()) {
                user->account = probe::parseWhoAmI(userId, result.value.lines);
                user->home = probe::homeFromWhoAmI(result.value.lines);
            } else {
                user->account.userId = userId;
                user->account.status = result.error.httpStatus;
                user->account.error = result.error.toString();
            }
            m_users.insert(userId, user);
            next();
        });
}

// ---------------------------------------------------------------------------------------
// One pair: A = target, B = actor

void IsolationProbe::planPair(const QString &target, const QString &actor)
{
    auto pair = std::make_shared<PairRun>();
    pair->target = target;
    pair->actor = actor;
    pair->token = randomToken(10);
    pair->a.userId = target;
    pair->a.sessionId = QStringLiteral("sandscope-probe-a-") + pair->token;
    pair->b.userId = actor;
    pair->b.sessionId = QStringLiteral("sandscope-probe-b-") + pair->token;

    const auto targetState = m_users.value(target);
    const auto actorState = m_users.value(actor);
    for (const auto &state : {targetState, actorState}) {
        if (state)
            pair->setupEvidence << state->evidence;
    }
    if (!targetState || !actorState || !targetState->known() || !actorState->known()) {
        emitPairErrors(*pair,
            tr("Precondition not met: the accounts of \"%1\" and \"%2\" could not both be "
               "observed.")
                .arg(target, actor));
        next();
        return;
    }
    if (targetState->account.account == actorState->account.account) {
        emitPairErrors(*pair,
            tr("Precondition not met: \"%1\" and \"%2\" run as the same account \"%3\", so "
               "nothing separates them to probe (see the account checks).")
                .arg(target, actor, targetState->account.account));
        next();
        return;
    }
    pair->home = targetState->home;
    pair->probeDirName = QStringLiteral("sandscope-probe-") + pair->token;
    pair->probeDir = pair->home + QLatin1Char('/') + pair->probeDirName;
    pair->chatDirName = QStringLiteral("chat-sandscope-probe-") + pair->token;
    pair->chatDir = pair->home + QLatin1Char('/') + pair->chatDirName;
    pair->markerName = QStringLiteral("marker-") + randomToken(10) + QStringLiteral(".txt");
    pair->markerContent = QStringLiteral("sandscope-marker-") + randomToken(16);
    pair->markerPath = pair->probeDir + QLatin1Char('/') + pair->markerName;
    pair->chatMarkerPath = pair->chatDir + QLatin1Char('/') + pair->markerName;
    pair->moveMe = pair->probeDir + QStringLiteral("/move-me.txt");
    pair->movedTo = pair->probeDir + QStringLiteral("/moved-by-b.txt");
    pair->deleteMe = pair->probeDir + QStringLiteral("/delete-me.txt");
    pair->shellVictim = pair->probeDir + QStringLiteral("/rm-me.txt");
    pair->chatShellVictim = pair->chatDir + QStringLiteral("/rm-me.txt");

    Q_EMIT progress(tr("Probing what \"%1\" can reach of \"%2\"").arg(actor, target));
    // The pair's own steps go first, before the next pair.
    QVector<Step> steps;
    steps << [this, pair] {
        setUpFiles(pair);
    };
    steps << [this, pair] {
        checkFilesApi(pair);
    };
    steps << [this, pair] {
        startTargetProcess(pair);
    };
    steps << [this, pair] {
        checkShell(pair);
    };
    // Before B's kill: after DELETE /execute/{id}, 0.11.34 closes a stale descriptor that may
    // by then be the terminal of the next process (it exits 120 without output).
    if (wants(CheckId::NetworkPort))
        steps << [this, pair] {
            checkNetwork(pair);
        };
    steps << [this, pair] {
        checkProcessesApi(pair);
    };
    if (wants(CheckId::MissingUserId) && target == m_options.users.at(0)
        && actor == m_options.users.at(1))
        steps << [this, pair] {
            checkMissingUserId(pair);
        };
    steps << [this] {
        runCleanups([this] { next(); });
    };
    runFirst(steps);
}

void IsolationProbe::setUpFiles(const std::shared_ptr<PairRun> &pair)
{
    const auto write = [pair](const QString &path, const QString &content) {
        return Call {pair->a,
            sendSpec("POST", QStringLiteral("/files/write"),
                {{QStringLiteral("path"), path}, {QStringLiteral("content"), content}}),
            tr("setup: A writes a marker")};
    };
    // The cleanup is registered before anything exists, so a cancel in between removes it.
    m_cleanups << Call {pair->a,
        sendSpec("DELETE", QStringLiteral("/files/delete"), {},
            {{QStringLiteral("path"), pair->probeDir}}),
        tr("cleanup: A removes the probe folder")};
    m_cleanups << Call {pair->a,
        sendSpec("DELETE", QStringLiteral("/files/delete"), {},
            {{QStringLiteral("path"), pair->chatDir}}),
        tr("cleanup: A removes the probe chat folder")};
    const QVector<Call> calls {
        write(pair->markerPath, pair->markerContent),
        write(pair->moveMe, pair->markerContent),
        write(pair->deleteMe, pair->markerContent),
        write(pair->shellVictim, pair->markerContent),
        write(pair->chatMarkerPath, pair->markerContent),
        write(pair->chatShellVictim, pair->markerContent),
        Call {pair->a,
            getSpec(QStringLiteral("/files/list"), {{QStringLiteral("directory"), pair->home}}),
            tr("precondition: A lists its home")},
        Call {pair->a,
            getSpec(QStringLiteral("/files/list"), {{QStringLiteral("directory"), pair->probeDir}}),
            tr("precondition: A lists the probe folder")},
        Call {pair->a,
            getSpec(QStringLiteral("/files/read"), {{QStringLiteral("path"), pair->markerPath}}),
            tr("precondition: A reads its marker")},
        Call {pair->a,
            getSpec(QStringLiteral("/files/grep"),
                {{QStringLiteral("query"), pair->markerContent},
                    {QStringLiteral("path"), pair->probeDir}}),
            tr("precondition: A greps its marker")},
        Call {pair->a,
            getSpec(QStringLiteral("/files/glob"),
                {{QStringLiteral("pattern"), pair->markerName},
                    {QStringLiteral("path"), pair->probeDir}}),
            tr("precondition: A globs its marker")},
        // The chat folder is the session's working directory (session check).
        Call {pair->a,
            sendSpec(
                "POST", QStringLiteral("/files/cwd"), {{QStringLiteral("path"), pair->chatDir}}),
            tr("setup: A's session works in its chat folder")},
    };
    requests(calls, [this, pair](const QVector<Reply> &replies) {
        QStringList failedWrites;
        for (int i = 0; i < 6; ++i) {
            pair->setupEvidence << replies.at(i).evidence;
            if (replies.at(i).response.status != 200)
                failedWrites << replies.at(i).evidence.request;
        }
        const auto contains = [](const Reply &reply, const QString &text) {
            return reply.response.status == 200 && reply.response.body.contains(text.toUtf8());
        };
        const QString why = failedWrites.isEmpty()
            ? QString()
            : tr("A could not create its markers (%1)")
                  .arg(failedWrites.join(QStringLiteral("; ")));
        pair->filesReady = failedWrites.isEmpty();
        const QStringList names = listedNames(replies.at(7).response);
        pair->list = expect(
            pair->filesReady && listedNames(replies.at(6).response).contains(pair->probeDirName),
            why.isEmpty() ? tr("A's own listing of its home does not show the probe folder") : why);
        pair->victims = expect(pair->filesReady && names.contains(QStringLiteral("move-me.txt"))
                && names.contains(QStringLiteral("delete-me.txt")),
            why.isEmpty() ? tr("A's own listing does not show the files B is to change") : why);
        pair->read = expect(pair->filesReady && contains(replies.at(8), pair->markerContent),
            why.isEmpty() ? tr("A cannot read its own marker") : why);
        pair->grep = expect(pair->filesReady && contains(replies.at(9), pair->markerContent),
            why.isEmpty() ? tr("A's own grep does not find its marker") : why);
        pair->glob = expect(pair->filesReady && contains(replies.at(10), pair->markerName),
            why.isEmpty() ? tr("A's own glob does not find its marker") : why);
        for (int i = 6; i < replies.size(); ++i)
            pair->setupEvidence << replies.at(i).evidence;
        pair->ownHome = replies.at(6).evidence;
        pair->ownFolder = replies.at(7).evidence;
        pair->ownRead = replies.at(8).evidence;
        pair->ownGrep = replies.at(9).evidence;
        pair->ownGlob = replies.at(10).evidence;
        pair->sessionCwd = replies.at(11).evidence;
        next();
    });
}

void IsolationProbe::checkFilesApi(const std::shared_ptr<PairRun> &pair)
{
    QVector<Step> steps;
    const auto disclosure
        = [this, pair, &steps](CheckId check, const Call &call, const QString &marker,
              const Precondition &precondition, const Evidence &proof, probe::Disclosure kind) {
              if (!wants(check))
                  return;
              steps << [this, pair, check, call, marker, precondition, proof, kind] {
                  request(call, [=](const Reply &reply) {
                      emitResult(check, pair->actor, pair->target,
                          probe::judgeDisclosure(reply.response, kind, marker, precondition),
                          {proof, reply.evidence});
                      next();
                  });
              };
          };
    disclosure(CheckId::FilesList,
        Call {pair->b,
            getSpec(QStringLiteral("/files/list"), {{QStringLiteral("directory"), pair->home}}),
            tr("B lists A's home")},
        pair->probeDirName, pair->list, pair->ownHome, probe::Disclosure::Listing);
    disclosure(CheckId::FilesRead,
        Call {pair->b,
            getSpec(QStringLiteral("/files/read"), {{QStringLiteral("path"), pair->markerPath}}),
            tr("B reads A's marker")},
        pair->markerContent, pair->read, pair->ownRead, probe::Disclosure::FileText);
    disclosure(CheckId::FilesGrep,
        Call {pair->b,
            getSpec(QStringLiteral("/files/grep"),
                {{QStringLiteral("query"), pair->markerContent},
                    {QStringLiteral("path"), pair->probeDir}}),
            tr("B greps A's folder for the marker")},
        pair->markerContent, pair->grep, pair->ownGrep, probe::Disclosure::GrepMatches);
    disclosure(CheckId::FilesGlob,
        Call {pair->b,
            getSpec(QStringLiteral("/files/glob"),
                {{QStringLiteral("pattern"), pair->markerName},
                    {QStringLiteral("path"), pair->probeDir}}),
            tr("B globs A's folder for the marker's name")},
        pair->markerName, pair->glob, pair->ownGlob, probe::Disclosure::GlobMatches);
    // A ZIP stores file names uncompressed: the marker's name shows in the bytes.
    disclosure(CheckId::FilesArchive,
        Call {pair->b,
            sendSpec("POST", QStringLiteral("/files/archive"),
                {{QStringLiteral("paths"), QStringList {pair->probeDir}}}),
            tr("B archives A's probe folder")},
        pair->markerName, pair->victims, pair->ownFolder, probe::Disclosure::Raw);

    const QString writtenName
        = QStringLiteral("written-by-b-") + randomToken(6) + QStringLiteral(".txt");
    const auto mutation = [this, pair, &steps](CheckId check, const Call &attempt,
                              std::function<Effect(const QStringList &)> effectOf) {
        if (wants(check))
            steps << [this, pair, check, attempt, effectOf] {
                checkFileMutation(pair, check, attempt, effectOf);
            };
    };
    mutation(CheckId::FilesWrite,
        Call {pair->b,
            sendSpec("POST", QStringLiteral("/files/write"),
                {{QStringLiteral("path"), QString(pair->probeDir + QLatin1Char('/') + writtenName)},
                    {QStringLiteral("content"), QStringLiteral("written by B")}}),
            tr("B writes into A's folder")},
        [writtenName](const QStringList &names) {
            return names.contains(writtenName) ? Effect::Observed : Effect::NotObserved;
        });
    mutation(CheckId::FilesMove,
        Call {pair->b,
            sendSpec("POST", QStringLiteral("/files/move"),
                {{QStringLiteral("source"), pair->moveMe},
                    {QStringLiteral("destination"), pair->movedTo}}),
            tr("B moves A's file")},
        [](const QStringList &names) {
            return names.contains(QStringLiteral("move-me.txt")) ? Effect::NotObserved
                                                                 : Effect::Observed;
        });
    mutation(CheckId::FilesDelete,
        Call {pair->b,
            sendSpec("DELETE", QStringLiteral("/files/delete"), {},
                {{QStringLiteral("path"), pair->deleteMe}}),
            tr("B deletes A's file")},
        [](const QStringList &names) {
            return names.contains(QStringLiteral("delete-me.txt")) ? Effect::NotObserved
                                                                   : Effect::Observed;
        });
    runFirst(steps);
}

void IsolationProbe::checkFileMutation(const std::shared_ptr<PairRun> &pair, CheckId check,
    const Call &attempt, std::function<Effect(const QStringList &)> effectOf)
{
    const Call verify {pair->a,
        getSpec(QStringLiteral("/files/list"), {{QStringLiteral("directory"), pair->probeDir}}),
        tr("A checks whether its folder changed")};
    requests({attempt, verify}, [=](const QVector<Reply> &replies) {
        const Reply &after = replies.at(1);
        const Effect effect
            = listingOk(after.response) ? effectOf(listedNames(after.response)) : Effect::Unknown;
        emitResult(check, pair->actor, pair->target,
            probe::judgeMutation(replies.at(0).response, effect, pair->victims),
            {pair->ownFolder, replies.at(0).evidence, after.evidence});
        next();
    });
}

void IsolationProbe::startTargetProcess(const std::shared_ptr<PairRun> &pair)
{
    if (!wantsAny({CheckId::ProcessList, CheckId::ProcessCommandLine, CheckId::ProcessShellList,
            CheckId::ProcessOutput, CheckId::ProcessLog, CheckId::ProcessInput,
            CheckId::ProcessKill, CheckId::SessionReuse})) {
        next();
        return;
    }
    const QString outputToken = randomToken(12);
    pair->outputMarker = QStringLiteral("sandscope-output-") + outputToken;
    pair->commandMarker = QStringLiteral("sandscope-command-") + randomToken(12);
    pair->inputMarker = QStringLiteral("sandscope-input-") + randomToken(12);
    // Prints the output marker (assembled by printf, so the command line does not contain
    // it), echoes one line of input, then waits to be killed. The command marker rides
    // along as a comment, visible wherever the command line is.
    const QString commandLine = QStringLiteral("printf 'sandscope-output-%s\\n' %1; read -r line; "
                                               "printf 'got=%s\\n' \"$line\"; sleep 120 # %2")
                                    .arg(outputToken, pair->commandMarker);
    const Call start {pair->a,
        sendSpec("POST", QStringLiteral("/execute"), {{QStringLiteral("command"), commandLine}}),
        tr("setup: A starts a process")};
    request(start, [this, pair](const Reply &reply) {
        pair->processEvidence << reply.evidence;
        const Result<ProcessSnapshot> started = reply.response.status == 200
            ? protocol::parseProcess(reply.response.body)
            : Result<ProcessSnapshot>::failure(ApiError {});
        if (!started.ok() || started.value.info.id.isEmpty()) {
            pair->process = Precondition::missing(tr("A could not start its process"));
            next();
            return;
        }
        pair->processId = started.value.info.id;
        pair->logPath = started.value.info.logPath;
        m_cleanups.prepend(Call {pair->a,
            sendSpec("DELETE", QStringLiteral("/execute/") + pair->processId, {},
                {{QStringLiteral("force"), QStringLiteral("true")}}),
            tr("cleanup: A kills its process")});
        awaitOutput(pair->a, pair->processId, literally(pair->outputMarker), outputWaitMs,
            [this, pair](bool found, const Reply &last) {
                pair->processEvidence << last.evidence;
                pair->process = expect(found, tr("A's own process did not show its output"));
                next();
            });
    });
}

void IsolationProbe::checkShell(const std::shared_ptr<PairRun> &pair)
{
    if (!wantsAny({CheckId::ShellRead, CheckId::ShellList, CheckId::ShellWrite,
            CheckId::ShellDelete, CheckId::ProcessShellList, CheckId::ProcessLog})) {
        next();
        return;
    }
    const QString touchName = QStringLiteral("touched-by-b-") + randomToken(6);
    const auto q = [](const QString &path) {
        return shell::quote(path);
    };
    QString script;
    script += probe::shellSection(
        QStringLiteral("read-home"), QStringLiteral("cat -- ") + q(pair->markerPath));
    script += probe::shellSection(
        QStringLiteral("read-chat"), QStringLiteral("cat -- ") + q(pair->chatMarkerPath));
    script += probe::shellSection(
        QStringLiteral("list-home"), QStringLiteral("ls -a -- ") + q(pair->home));
    script += probe::shellSection(
        QStringLiteral("list-chat"), QStringLiteral("ls -a -- ") + q(pair->chatDir));
    script += probe::shellSection(QStringLiteral("write-home"),
        QStringLiteral("touch -- ") + q(pair->probeDir + QLatin1Char('/') + touchName));
    script += probe::shellSection(QStringLiteral("write-chat"),
        QStringLiteral("touch -- ") + q(pair->chatDir + QLatin1Char('/') + touchName));
    script += probe::shellSection(
        QStringLiteral("delete-home"), QStringLiteral("rm -- ") + q(pair->shellVictim));
    script += probe::shellSection(
        QStringLiteral("delete-chat"), QStringLiteral("rm -- ") + q(pair->chatShellVictim));
    script += probe::shellSection(QStringLiteral("ps"), QStringLiteral("ps -eww -o user:32,args"));
    if (!pair->logPath.isEmpty())
        script += probe::shellSection(
            QStringLiteral("log"), QStringLiteral("cat -- ") + q(pair->logPath));

    command(pair->b, script, tr("B's shell tries A's files and processes"),
        [this, pair](const Result<CommandOutput> &result, const Evidence &evidence) {
            const QHash<QString, probe::ShellOutcome> sections = result.ok()
                ? probe::parseShellSections(result.value.lines)
                : QHash<QString, probe::ShellOutcome>();
            const Precondition files = pair->read.met ? pair->victims : pair->read;
            const auto shell
                = [&](CheckId check, const char *home, const char *chat, probe::ShellAccess access,
                      const QString &homeMarker, const QString &chatMarker) {
                      emitResult(check, pair->actor, pair->target,
                          probe::combine({probe::judgeShell(sections.value(QLatin1String(home)),
                                              access, homeMarker, files),
                              probe::judgeShell(
                                  sections.value(QLatin1String(chat)), access, chatMarker, files)}),
                          {pair->ownFolder, evidence});
                  };
            shell(CheckId::ShellRead, "read-home", "read-chat", probe::ShellAccess::Read,
                pair->markerContent, pair->markerContent);
            shell(CheckId::ShellList, "list-home", "list-chat", probe::ShellAccess::Read,
                pair->probeDirName, pair->markerName);
            shell(CheckId::ShellWrite, "write-home", "write-chat", probe::ShellAccess::Modify, {},
                {});
            shell(CheckId::ShellDelete, "delete-home", "delete-chat", probe::ShellAccess::Modify,
                {}, {});
            const QVector<Evidence> processEvidence
                = pair->processEvidence + QVector<Evidence> {evidence};
            emitResult(CheckId::ProcessShellList, pair->actor, pair->target,
                probe::judgeProcessTable(
                    sections.value(QStringLiteral("ps")), pair->commandMarker, pair->process),
                processEvidence);
            const Precondition log = pair->logPath.isEmpty()
                ? Precondition::missing(tr("the server did not name a log file for A's process"))
                : pair->process;
            emitResult(CheckId::ProcessLog, pair->actor, pair->target,
                probe::judgeShell(sections.value(QStringLiteral("log")), probe::ShellAccess::Read,
                    pair->outputMarker, log),
                processEvidence);
            next();
        });
}

void IsolationProbe::checkProcessesApi(const std::shared_ptr<PairRun> &pair)
{
    if (pair->processId.isEmpty()) {
        const Judgement error {Verdict::Error,
            tr("Precondition not met, so nothing was judged: %1").arg(pair->process.why)};
        for (const CheckId check :
            {CheckId::ProcessList, CheckId::ProcessCommandLine, CheckId::ProcessOutput,
                CheckId::ProcessInput, CheckId::ProcessKill, CheckId::SessionReuse})
            emitResult(check, pair->actor, pair->target, error, pair->processEvidence);
        next();
        return;
    }
    const QString processPath = QStringLiteral("/execute/") + pair->processId;
    Identity bInASession = pair->b;
    bInASession.sessionId = pair->a.sessionId;
    const QVector<Call> calls {
        Call {pair->b, getSpec(QStringLiteral("/execute")), tr("B lists processes")},
        Call {pair->b,
            getSpec(processPath + QStringLiteral("/status"),
                {{QStringLiteral("offset"), QStringLiteral("0")}}),
            tr("B reads A's process output")},
        Call {bInASession, getSpec(QStringLiteral("/files/cwd")),
            tr("B asks for the cwd of A's session")},
        Call {bInASession, getSpec(QStringLiteral("/execute")),
            tr("B lists processes in A's session")},
        Call {pair->b,
            sendSpec("POST", processPath + QStringLiteral("/input"),
                {{QStringLiteral("input"), QString(pair->inputMarker + QLatin1Char('\n'))}}),
            tr("B types into A's process")},
    };
    requests(calls, [this, pair, processPath](const QVector<Reply> &replies) {
        const QVector<Evidence> setup = pair->processEvidence;
        const probe::ProcessListJudgement list = probe::judgeProcessList(
            replies.at(0).response, pair->processId, pair->commandMarker, pair->process);
        emitResult(CheckId::ProcessList, pair->actor, pair->target, list.listed,
            setup + QVector<Evidence> {replies.at(0).evidence});
        emitResult(CheckId::ProcessCommandLine, pair->actor, pair->target, list.commandLine,
            setup + QVector<Evidence> {replies.at(0).evidence});
        emitResult(CheckId::ProcessOutput, pair->actor, pair->target,
            probe::judgeDisclosure(replies.at(1).response, probe::Disclosure::ProcessOutput,
                pair->outputMarker, pair->process),
            setup + QVector<Evidence> {replies.at(1).evidence});
        emitResult(CheckId::SessionReuse, pair->actor, pair->target,
            probe::judgeSessionReuse(replies.at(2).response, replies.at(3).response, pair->home,
                pair->processId, pair->process),
            setup
                + QVector<Evidence> {
                    pair->sessionCwd, replies.at(2).evidence, replies.at(3).evidence});

        // Input: A's own output shows whether B's line arrived.
        const Reply input = replies.at(4);
        awaitOutput(pair->a, pair->processId, literally(QStringLiteral("got=") + pair->inputMarker),
            1500, [this, pair, input, setup, processPath](bool arrived, const Reply &seen) {
                const Effect effect = arrived     ? Effect::Observed
                    : seen.response.status == 200 ? Effect::NotObserved
                                                  : Effect::Unknown;
                emitResult(CheckId::ProcessInput, pair->actor, pair->target,
                    probe::judgeMutation(input.response, effect, pair->process),
                    setup + QVector<Evidence> {input.evidence, seen.evidence});

                // Kill last: A's process must still run afterwards.
                const QVector<Call> killCalls {
                    Call {pair->b, sendSpec("DELETE", processPath, {}), tr("B kills A's process")},
                    Call {pair->a,
                        getSpec(processPath + QStringLiteral("/status"),
                            {{QStringLiteral("offset"), QStringLiteral("0")}}),
                        tr("A checks whether its process still runs")},
                };
                requests(killCalls, [this, pair, setup](const QVector<Reply> &kill) {
                    const HttpResponse &after = kill.at(1).response;
                    const Result<ProcessSnapshot> state = protocol::parseProcess(after.body);
                    const Effect killed = after.status == 404               ? Effect::Observed
                        : after.status != 200 || !state.ok()                ? Effect::Unknown
                        : state.value.info.status == ProcessStatus::Running ? Effect::NotObserved
                                                                            : Effect::Observed;
                    emitResult(CheckId::ProcessKill, pair->actor, pair->target,
                        probe::judgeMutation(kill.at(0).response, killed, pair->process),
                        setup + QVector<Evidence> {kill.at(0).evidence, kill.at(1).evidence});
                    settleAfterKill(kill, [this] { next(); });
                });
            });
    });
}

void IsolationProbe::checkNetwork(const std::shared_ptr<PairRun> &pair)
{
    const QString marker = QStringLiteral("sandscope-net-") + randomToken(12);
    // A listens on a free loopback port for a few seconds and greets whoever connects.
    const QString listener = QStringLiteral(
        "python3 -c 'import socket,sys\n"
        "s=socket.socket(); s.bind((\"127.0.0.1\",0)); s.listen(1); s.settimeout(15)\n"
        "print(\"sandscope-port=%d\" % s.getsockname()[1], flush=True)\n"
        "c,_=s.accept(); c.sendall(sys.argv[1].encode()+b\"\\n\"); c.close()' %1")
                                 .arg(marker);
    const Call start {pair->a,
        sendSpec("POST", QStringLiteral("/execute"), {{QStringLiteral("command"), listener}}),
        tr("setup: A listens on a loopback port")};
    request(start, [this, pair, marker](const Reply &reply) {
        const Result<ProcessSnapshot> started = reply.response.status == 200
            ? protocol::parseProcess(reply.response.body)
            : Result<ProcessSnapshot>::failure(ApiError {});
        if (!started.ok() || started.value.info.id.isEmpty()) {
            emitResult(CheckId::NetworkPort, pair->actor, pair->target,
                {Verdict::Error, tr("Precondition not met: A could not start a listener.")},
                {reply.evidence});
            next();
            return;
        }
        const QString processId = started.value.info.id;
        m_cleanups.prepend(Call {pair->a,
            sendSpec("DELETE", QStringLiteral("/execute/") + processId, {},
                {{QStringLiteral("force"), QStringLiteral("true")}}),
            tr("cleanup: A stops its listener")});
        // The whole line: the PTY may deliver the number in a later chunk.
        static const QRegularExpression portLine(QStringLiteral("sandscope-port=(\\d+)\\r?\\n"));
        awaitOutput(pair->a, processId, portLine, outputWaitMs,
            [this, pair, marker, reply](bool, const Reply &seen) {
                const int port = portLine.match(joinedOutput(seen.response)).captured(1).toInt();
                if (port <= 0) {
                    emitResult(CheckId::NetworkPort, pair->actor, pair->target,
                        {Verdict::Error,
                            tr("Precondition not met: A's listener did not report its port "
                               "(is python3 installed?).")},
                        {reply.evidence, seen.evidence});
                    next();
                    return;
                }
                const QString connect = probe::shellSection(QStringLiteral("connect"),
                    QStringLiteral("timeout 5 bash -c 'exec 3<>/dev/tcp/127.0.0.1/%1; cat <&3'")
                        .arg(port));
                command(pair->b, connect, tr("B connects to A's port"),
                    [this, pair, marker, reply, seen](
                        const Result<CommandOutput> &result, const Evidence &evidence) {
                        const probe::ShellOutcome outcome = result.ok()
                            ? probe::parseShellSections(result.value.lines)
                                  .value(QStringLiteral("connect"))
                            : probe::ShellOutcome();
                        emitResult(CheckId::NetworkPort, pair->actor, pair->target,
                            probe::judgeNetwork(outcome, marker, Precondition::ok()),
                            {reply.evidence, seen.evidence, evidence});
                        next();
                    });
            });
    });
}

void IsolationProbe::checkMissingUserId(const std::shared_ptr<PairRun> &pair)
{
    const Call read {Identity(),
        getSpec(QStringLiteral("/files/read"), {{QStringLiteral("path"), pair->markerPath}}),
        tr("a request without X-User-Id reads A's marker")};
    request(read, [this, pair](const Reply &reply) {
        emitResult(CheckId::MissingUserId, QString(), pair->target,
            probe::judgeDisclosure(
                reply.response, probe::Disclosure::FileText, pair->markerContent, pair->read),
            {m_serverAccountEvidence, pair->ownRead, reply.evidence});
        next();
    });
}

// ---------------------------------------------------------------------------------------
// Server-wide

void IsolationProbe::checkAccountTwin()
{
    const QString first = m_options.users.at(0);
    const auto state = m_users.value(first);
    const QString twin = probe::twinUserId(first, randomToken(4));
    if (!state || twin.isEmpty()) {
        emitResult(CheckId::AccountTwin, QString(), first,
            {Verdict::Error,
                twin.isEmpty() ? tr("\"%1\" has fewer than four letters or digits: the server "
                                    "hashes such ids, no twin can be constructed.")
                                     .arg(first)
                               : tr("The account of \"%1\" is unknown.").arg(first)},
            {});
        next();
        return;
    }
    Identity identity;
    identity.userId = twin;
    command(identity, probe::whoAmICommand(),
        tr("the twin id \"%1\" (same first eight letters and digits as \"%2\")").arg(twin, first),
        [this, state, twin](const Result<CommandOutput> &result, const Evidence &evidence) {
            probe::AccountObservation observation;
            if (result.ok()) {
                observation = probe::parseWhoAmI(twin, result.value.lines);
            } else {
                observation.userId = twin;
                observation.error = result.error.toString();
            }
            emitResult(CheckId::AccountTwin, twin, state->id,
                probe::judgeAccountTwin(state->account, observation), {state->evidence, evidence});
            next();
        });
}

void IsolationProbe::checkReservedIds()
{
    QStringList ids = m_options.reservedIds;
    if (!m_serverAccount.isEmpty() && !ids.contains(m_serverAccount))
        ids << m_serverAccount;
    bool ordinaryIdsWork = false;
    for (const auto &user : std::as_const(m_users))
        ordinaryIdsWork = ordinaryIdsWork || user->known();
    auto judgements = std::make_shared<QVector<Judgement>>();
    auto evidence = std::make_shared<QVector<Evidence>>();
    if (!m_serverAccountEvidence.request.isEmpty())
        *evidence << m_serverAccountEvidence;
    QVector<Step> steps;
    for (const QString &id : ids) {
        steps << [this, id, judgements, evidence, ordinaryIdsWork] {
            Identity identity;
            identity.userId = id;
            // Only `id` ever runs as a reserved id.
            command(identity, probe::whoAmICommand(), tr("reserved id \"%1\"").arg(id),
                [=](const Result<CommandOutput> &result, const Evidence &seen) {
                    probe::AccountObservation observation;
                    if (result.ok()) {
                        observation = probe::parseWhoAmI(id, result.value.lines);
                    } else {
                        observation.userId = id;
                        observation.status = result.error.httpStatus;
                        observation.error = result.error.detail.isEmpty() ? result.error.toString()
                                                                          : result.error.detail;
                    }
                    *judgements << probe::judgeReservedId(
                        observation, m_serverAccount, ordinaryIdsWork);
                    *evidence << seen;
                    next();
                });
        };
    }
    steps << [this, judgements, evidence, ids] {
        emitResult(CheckId::ReservedIds, ids.join(QStringLiteral(", ")), QString(),
            probe::combine(*judgements), *evidence);
        next();
    };
    runFirst(steps);
}

void IsolationProbe::runCleanups(std::function<void()> then)
{
    const QVector<Call> cleanups = m_cleanups;
    m_cleanups.clear();
    requests(
        cleanups, [this, then](const QVector<Reply> &replies) { settleAfterKill(replies, then); });
}

void IsolationProbe::settleAfterKill(const QVector<Reply> &replies, std::function<void()> then)
{
    const bool killed = std::any_of(replies.cbegin(), replies.cend(), [](const Reply &reply) {
        return reply.evidence.request.startsWith(QLatin1String("DELETE /execute/"))
            && reply.response.status == 200;
    });
    if (killed)
        QTimer::singleShot(killSettleMs, m_context, then);
    else
        then();
}

void IsolationProbe::finish()
{
    m_finishing = true;
    runCleanups([this] {
        m_running = false;
        m_finishing = false;
        m_report.cancelled = m_cancelled;
        m_report.finishedAt = QDateTime::currentDateTimeUtc();
        Q_EMIT finished(m_report);
    });
}

} // namespace sandscope
