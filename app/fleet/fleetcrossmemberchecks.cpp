#include "fleetcrossmemberchecks.h"

#include "probing/probepair.h"
#include "server/openterminalclient.h"
#include "server/shortcommand.h"
#include "util/shellquote.h"

#include <QHostAddress>
#include <QRandomGenerator>
#include <QUuid>

#include <memory>

namespace sandscope {

namespace {

const QString addressKey = QStringLiteral("sandscope-address=");
const QString listeningLine = QStringLiteral("sandscope-listening");
const QString busyLine = QStringLiteral("sandscope-busy");
const QString acceptedKey = QStringLiteral("sandscope-accepted=");
const QString reachedKey = QStringLiteral("sandscope-reached=");
const QString apiKey = QStringLiteral("sandscope-api ");

// How long A listens, and for about how long B keeps trying (twice a second; B starts at the
// same time as A). The loop is POSIX sh: the server's shell may not be bash.
constexpr int listenSeconds = 20;
constexpr int connectSeconds = 15;

// A's own IPv4 addresses other than loopback: what `hostname -I` lists, and the source
// address of its default route (found without sending anything).
const QString addressCommand = QStringLiteral(
    "python3 -c 'import socket,subprocess\n"
    "a=set()\n"
    "try: a.update(subprocess.run([\"hostname\",\"-I\"],capture_output=True,text=True,"
    "timeout=5).stdout.split())\n"
    "except Exception: pass\n"
    "try:\n"
    " u=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); u.connect((\"10.255.255.255\",1)); "
    "a.add(u.getsockname()[0])\n"
    "except Exception: pass\n"
    "for x in sorted(a):\n"
    " if \".\" in x and not x.startswith(\"127.\"): print(\"sandscope-address=\"+x)'");

QString lineWith(const QStringList &lines, const QString &key)
{
    for (const QString &line : lines) {
        if (line.startsWith(key))
            return line.mid(key.size()).trimmed();
    }
    return {};
}

Evidence commandEvidence(const QString &command, const Identity &who, const QString &member,
    const Result<CommandOutput> &result, const QString &note)
{
    Evidence evidence;
    evidence.request
        = QStringLiteral("%1  (X-User-Id: %2, member %3)").arg(command, who.userId, member);
    evidence.response
        = result.ok() ? result.value.lines.join(QLatin1Char('\n')) : result.error.toString();
    evidence.note = note;
    return evidence;
}

Identity freshIdentity(const QString &userId)
{
    return Identity {userId, QUuid::createUuid().toString(QUuid::WithoutBraces)};
}

QString withoutTrailingSlash(const QUrl &url)
{
    QString text = url.adjusted(QUrl::RemoveUserInfo | QUrl::StripTrailingSlash).toString();
    while (text.endsWith(QLatin1Char('/')))
        text.chop(1);
    return text;
}

} // namespace

FleetCrossMemberChecks::FleetCrossMemberChecks(
    OpenTerminalClient *router, const QVector<FanOutTarget> &targets, QObject *parent)
    : QObject(parent)
    , m_router(router)
    , m_targets(targets)
{
}

QVector<CrossMemberPair> FleetCrossMemberChecks::pairsFor(const QStringList &users,
    const QMap<QString, QString> &userMembers, const QStringList &memberOrder)
{
    QMap<QString, QString> firstUser; // member -> its first user
    for (const QString &user : users) {
        const QString member = userMembers.value(user);
        if (!member.isEmpty() && !firstUser.contains(member))
            firstUser.insert(member, user);
    }
    QVector<CrossMemberPair> pairs;
    for (const QString &targetMember : memberOrder) {
        for (const QString &actorMember : memberOrder) {
            if (targetMember == actorMember || !firstUser.contains(targetMember)
                || !firstUser.contains(actorMember))
                continue;
            pairs << CrossMemberPair {firstUser.value(targetMember), targetMember,
                firstUser.value(actorMember), actorMember};
        }
    }
    return pairs;
}

QStringList FleetCrossMemberChecks::parseAddresses(const QStringList &lines)
{
    QStringList addresses;
    for (const QString &line : lines) {
        if (!line.startsWith(addressKey))
            continue;
        // Only a well-formed IPv4 address goes into B's command.
        const QString text = line.mid(addressKey.size()).trimmed();
        QHostAddress address;
        if (address.setAddress(text) && address.protocol() == QAbstractSocket::IPv4Protocol
            && !address.isLoopback() && !addresses.contains(address.toString()))
            addresses << address.toString();
    }
    return addresses;
}

QVector<MemberApiAttempt> FleetCrossMemberChecks::parseApiAttempts(const QStringList &lines)
{
    QVector<MemberApiAttempt> attempts;
    for (const QString &line : lines) {
        if (!line.startsWith(apiKey))
            continue;
        // "sandscope-api <url> health=<status>[+] nokey=<status>"
        const QStringList fields = line.mid(apiKey.size()).split(QLatin1Char(' '));
        MemberApiAttempt attempt;
        for (const QString &field : fields) {
            if (field.startsWith(QLatin1String("health="))) {
                attempt.health = field.mid(7);
                attempt.openTerminal = attempt.health.endsWith(QLatin1Char('+'));
                if (attempt.openTerminal)
                    attempt.health.chop(1);
            } else if (field.startsWith(QLatin1String("nokey="))) {
                attempt.withoutKey = field.mid(6);
            } else if (attempt.url.isEmpty()) {
                attempt.url = field;
            }
        }
        if (!attempt.url.isEmpty())
            attempts << attempt;
    }
    return attempts;
}

probe::Judgement FleetCrossMemberChecks::judgeNetwork(const QStringList &addresses,
    const QStringList &listenerLines, const QStringList &connectLines, bool ran)
{
    if (addresses.isEmpty())
        return {Verdict::Error,
            tr("Precondition not met: A's member reported no address other than loopback.")};
    if (!ran)
        return {Verdict::Error, tr("Inconclusive: A's listener or B's attempt did not run.")};
    if (listenerLines.contains(busyLine) || !listenerLines.contains(listeningLine))
        return {Verdict::Error,
            tr("Precondition not met: A could not listen on the port (in use, or no python3).")};
    const QString reached = lineWith(connectLines, reachedKey);
    if (addresses.contains(reached))
        return {Verdict::Info,
            tr("B reached the port A listens on at %1 and read A's marker: the members reach "
               "each other over the network.")
                .arg(reached)};
    if (!lineWith(listenerLines, acceptedKey).isEmpty())
        return {Verdict::Error,
            tr("Inconclusive: A's listener accepted a connection, but B did not read the "
               "marker.")};
    return {Verdict::Pass,
        tr("B could not connect to the port A listens on at %1 (tried for %2 s).")
            .arg(addresses.join(QStringLiteral(", ")))
            .arg(connectSeconds)};
}

probe::Judgement FleetCrossMemberChecks::judgeApi(
    const QVector<MemberApiAttempt> &attempts, Verdict keyVerdict, bool ran)
{
    if (!ran || attempts.isEmpty())
        return {Verdict::Error, tr("Inconclusive: B's attempt did not run.")};
    QStringList reached;
    QStringList tried;
    for (const MemberApiAttempt &attempt : attempts) {
        tried << attempt.url;
        if (attempt.withoutKey.startsWith(QLatin1Char('2')))
            return {Verdict::Fail,
                tr("A's member answered B's shell at %1 as A without the key (HTTP %2).")
                    .arg(attempt.url, attempt.withoutKey)};
        if (attempt.openTerminal)
            reached << attempt.url;
    }
    if (reached.isEmpty())
        return {Verdict::Pass,
            tr("B's shell reached A's member's API at none of the addresses it tried: %1.")
                .arg(tried.join(QStringLiteral(", ")))};
    const QString where = reached.join(QStringLiteral(", "));
    switch (keyVerdict) {
    case Verdict::Fail:
        return {Verdict::Fail,
            tr("B's shell reaches A's member's API at %1, and users on B's member can read the "
               "server's API key (process.server-environ), which A's member accepts for every "
               "user: B can act as A there.")
                .arg(where)};
    case Verdict::Pass:
        return {Verdict::Pass,
            tr("B's shell reaches A's member's API at %1, which refuses it without the key, and "
               "users on B's member could not read the key (process.server-environ).")
                .arg(where)};
    case Verdict::Info:
    case Verdict::Error:
        break;
    }
    return {Verdict::Error,
        tr("Not judged: B's shell reaches A's member's API at %1, but whether users on B's "
           "member can read the key is not known (process.server-environ was not judged there).")
            .arg(where)};
}

void FleetCrossMemberChecks::start(const QVector<CrossMemberPair> &pairs,
    const ProbeReport &sameMember, const ProbeOptions &options)
{
    m_pairs = pairs;
    m_sameMember = sameMember;
    m_options = options;
    delete m_work;
    m_work = new QObject(this);
    nextPair();
}

void FleetCrossMemberChecks::cancel()
{
    if (!m_work)
        return;
    delete m_work;
    m_pairs.clear();
    Q_EMIT finished();
}

const FanOutTarget *FleetCrossMemberChecks::target(const QString &member) const
{
    for (const FanOutTarget &candidate : m_targets) {
        if (candidate.member == member)
            return &candidate;
    }
    return nullptr;
}

void FleetCrossMemberChecks::addResult(CheckId check, const CrossMemberPair &pair,
    const probe::Judgement &judgement, const QVector<Evidence> &evidence)
{
    if (!m_options.onlyChecks.isEmpty() && !m_options.onlyChecks.contains(check))
        return;
    CheckResult result;
    result.check = check;
    result.actor = pair.actor;
    result.target = pair.target;
    result.verdict = judgement.verdict;
    result.explanation = judgement.explanation;
    result.evidence = evidence;
    result.member = pair.actorMember; // where B acts
    Q_EMIT resultReady(result);
}

void FleetCrossMemberChecks::nextPair()
{
    if (!m_work)
        return;
    if (m_pairs.isEmpty()) {
        delete m_work;
        Q_EMIT finished();
        return;
    }
    const CrossMemberPair pair = m_pairs.takeFirst();
    const FanOutTarget *x = target(pair.targetMember);
    if (!x || !target(pair.actorMember)) {
        nextPair();
        return;
    }
    Q_EMIT progress(tr("Across members: what %1 on %2 reaches of %3 on %4")
                        .arg(pair.actor, pair.actorMember, pair.target, pair.targetMember));
    const Identity a = freshIdentity(pair.target);
    runShortCommand(
        x->client, a, addressCommand, m_work,
        [this, pair, a](const Result<CommandOutput> &result) {
            const QStringList addresses
                = parseAddresses(result.ok() ? result.value.lines : QStringList());
            const Evidence evidence = commandEvidence(addressCommand, a, pair.targetMember, result,
                tr("precondition: A lists its member's addresses"));
            checkNetwork(pair, addresses, evidence);
        },
        m_options.commandTimeoutMs);
}

void FleetCrossMemberChecks::checkNetwork(
    const CrossMemberPair &pair, const QStringList &addresses, const Evidence &addressEvidence)
{
    const bool wanted
        = m_options.onlyChecks.isEmpty() || m_options.onlyChecks.contains(CheckId::MemberNetwork);
    if (!wanted || addresses.isEmpty()) {
        if (wanted)
            addResult(CheckId::MemberNetwork, pair, judgeNetwork(addresses, {}, {}, true),
                {addressEvidence});
        checkApi(pair, addresses);
        return;
    }
    const int port = 20000 + int(QRandomGenerator::global()->bounded(40000));
    const QString marker = QStringLiteral("sandscope-member-net-") + probe::randomToken(12);
    const QString listener = QStringLiteral(
        "timeout %1 python3 -c 'import socket,sys\n"
        "s=socket.socket(); s.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1)\n"
        "try: s.bind((\"0.0.0.0\",int(sys.argv[1])))\n"
        "except OSError: print(\"sandscope-busy\",flush=True); sys.exit(0)\n"
        "s.listen(4); s.settimeout(%2); print(\"sandscope-listening\",flush=True)\n"
        "try:\n"
        " c,p=s.accept(); c.sendall(sys.argv[2].encode()+b\"\\n\"); c.close(); "
        "print(\"sandscope-accepted=\"+p[0],flush=True)\n"
        "except socket.timeout: print(\"sandscope-timeout\",flush=True)' %3 %4")
                                 .arg(listenSeconds + 5)
                                 .arg(listenSeconds)
                                 .arg(port)
                                 .arg(marker);
    const QString connect
        = QStringLiteral("i=0; while [ $i -lt %1 ]; do "
                         "for h in %2; do out=$(timeout 2 bash -c \"exec 3<>/dev/tcp/$h/%3; "
                         "cat <&3\" 2>/dev/null); case $out in *%4*) echo \"%5$h\"; exit 0;; "
                         "esac; done; i=$((i+1)); sleep 0.5; done; echo sandscope-unreached")
              .arg(connectSeconds * 2)
              .arg(addresses.join(QLatin1Char(' ')))
              .arg(port)
              .arg(marker, reachedKey);
    // Both commands run at once: A listens while B keeps trying.
    struct Seen {
        int waiting = 2;
        bool ran = true;
        QStringList lines[2]; // A's listener, B's attempts
        QVector<Evidence> evidence;
    };
    auto seen = std::make_shared<Seen>();
    seen->evidence << addressEvidence << Evidence() << Evidence();
    const auto run = [this, pair, addresses, seen](int which, const QString &member,
                         const QString &userId, const QString &command, const QString &note) {
        const Identity who = freshIdentity(userId);
        runShortCommand(
            target(member)->client, who, command, m_work,
            [=](const Result<CommandOutput> &result) {
                seen->ran = seen->ran && result.ok();
                seen->lines[which] = result.ok() ? result.value.lines : QStringList();
                seen->evidence[which + 1] = commandEvidence(command, who, member, result, note);
                if (--seen->waiting > 0)
                    return;
                addResult(CheckId::MemberNetwork, pair,
                    judgeNetwork(addresses, seen->lines[0], seen->lines[1], seen->ran),
                    seen->evidence);
                checkApi(pair, addresses);
            },
            (listenSeconds + 15) * 1000);
    };
    run(0, pair.targetMember, pair.target, listener,
        tr("setup: A listens on all interfaces of its member"));
    run(1, pair.actorMember, pair.actor, connect,
        tr("B connects from its member to A's port at A's member's addresses"));
}

void FleetCrossMemberChecks::checkApi(const CrossMemberPair &pair, const QStringList &addresses)
{
    if (!m_options.onlyChecks.isEmpty() && !m_options.onlyChecks.contains(CheckId::MemberApi)) {
        nextPair();
        return;
    }
    const QUrl memberUrl = target(pair.targetMember)->client->connection().baseUrl;
    QStringList urls {withoutTrailingSlash(memberUrl)};
    if (m_router) {
        const QString router = withoutTrailingSlash(m_router->connection().baseUrl);
        if (!urls.contains(router))
            urls << router;
    }
    for (const QString &address : addresses) {
        QUrl direct = memberUrl.adjusted(QUrl::RemoveUserInfo);
        direct.setHost(address);
        const QString text = withoutTrailingSlash(direct);
        if (!urls.contains(text))
            urls << text;
    }
    QStringList quoted;
    for (const QString &url : urls)
        quoted << shell::quote(url);
    // /health needs no key; a listing as A without the key must be refused (401). Certificates
    // are not checked, as an attacker would not: a self-signed one must not read as no reach.
    const QString command = QStringLiteral(
        "python3 -c 'import ssl,sys,urllib.request,urllib.error\n"
        "t=ssl._create_unverified_context()\n"
        "def get(u,h):\n"
        " try:\n"
        "  r=urllib.request.urlopen(urllib.request.Request(u,headers=h),timeout=5,context=t)\n"
        "  return str(r.status)+(\"+\" if b\"\\\"status\\\"\" in r.read(200) else \"\")\n"
        " except urllib.error.HTTPError as e: return str(e.code)\n"
        " except Exception as e: return \"unreachable:\"+type(e).__name__\n"
        "for b in sys.argv[2:]:\n"
        " print(\"sandscope-api \"+b+\" health=\"+get(b+\"/health\",{})+\" nokey=\"+"
        "get(b+\"/files/list?path=/tmp\",{\"X-User-Id\":sys.argv[1]}),flush=True)' %1 %2")
                                .arg(shell::quote(pair.target), quoted.join(QLatin1Char(' ')));
    const Identity b = freshIdentity(pair.actor);
    runShortCommand(
        target(pair.actorMember)->client, b, command, m_work,
        [this, pair, b, command](const Result<CommandOutput> &result) {
            QVector<Evidence> evidence {commandEvidence(command, b, pair.actorMember, result,
                tr("B's shell asks A's member's API for its health, and for a listing as A "
                   "without the key"))};
            Verdict keyVerdict = Verdict::Error;
            for (const CheckResult &own : std::as_const(m_sameMember.results)) {
                if (own.check == CheckId::ServerEnvironApi && own.member == pair.actorMember) {
                    keyVerdict = own.verdict;
                    for (Evidence step : own.evidence) {
                        step.note = tr("on B's member (process.server-environ): %1").arg(step.note);
                        evidence << step;
                    }
                }
            }
            addResult(CheckId::MemberApi, pair,
                judgeApi(parseApiAttempts(result.ok() ? result.value.lines : QStringList()),
                    keyVerdict, result.ok()),
                evidence);
            nextPair();
        },
        m_options.commandTimeoutMs);
}

} // namespace sandscope
