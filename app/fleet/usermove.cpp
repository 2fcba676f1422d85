#include "usermove.h"

#include "fleet/fleetroot.h"
#include "server/accountnames.h"
#include "server/adminscript.h"
#include "server/openterminalclient.h"
#include "util/shellquote.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUuid>

namespace sandscope {

namespace {

QString path64(const QString &path)
{
    return QString::fromLatin1(path.toUtf8().toBase64());
}

// The first line starting with `word`, split into words (empty when there is none).
QStringList lineOf(const CommandOutput &output, const QString &word)
{
    for (const QString &line : output.lines) {
        const QStringList words = line.split(QLatin1Char(' '));
        if (words.value(0) == word)
            return words;
    }
    return {};
}

// A manifest's entries in lines [from, to). False when it is not whole (a line that does not
// read, or fewer entries than its closing count): the move relies on every entry being known.
bool entriesOf(const QStringList &lines, int from, int to, QVector<HomeEntry> *entries)
{
    entries->clear();
    int counted = -1;
    for (int i = from; i < (to < 0 ? int(lines.size()) : to); ++i) {
        const QString &line = lines.at(i);
        HomeEntry entry;
        if (line.startsWith(QLatin1String("M "))) {
            if (!usermove::parseEntry(line, &entry))
                return false;
            entries->append(entry);
        } else if (line.startsWith(QLatin1String("MANIFEST "))) {
            counted = line.mid(9).toInt();
        }
    }
    return counted == entries->size();
}

QString failureText(const Result<CommandOutput> &result)
{
    if (!result.ok())
        return result.error.toString();
    QStringList tail = result.value.lines.mid(std::max(0, int(result.value.lines.size()) - 3));
    return QStringLiteral("exit status %1%2")
        .arg(result.value.exitCode)
        .arg(tail.isEmpty() ? QString() : QStringLiteral(": ") + tail.join(QStringLiteral(" / ")));
}

bool succeeded(const Result<CommandOutput> &result, const QString &word)
{
    return result.ok() && result.value.exitCode == 0 && !lineOf(result.value, word).isEmpty();
}

// fleetroot.py inspect's answer.
UserMoveAccount accountOf(const CommandOutput &output, const QString &name)
{
    UserMoveAccount account;
    account.name = name;
    const QStringList words = lineOf(output, QStringLiteral("ACCOUNT"));
    if (words.size() != 4)
        return account;
    account.exists = true;
    account.uid = words.at(1).toInt();
    account.gid = words.at(2).toInt();
    account.home = QString::fromUtf8(QByteArray::fromBase64(words.at(3).toLatin1()));
    account.homeExists = !lineOf(output, QStringLiteral("HOME")).isEmpty();
    account.processes = lineOf(output, QStringLiteral("PROCESSES")).value(1).toInt();
    const QStringList foreign = lineOf(output, QStringLiteral("FOREIGNHOME"));
    if (!foreign.isEmpty())
        account.homeProblem = UserMove::tr("its home belongs to uid %1").arg(foreign.value(1));
    return account;
}

} // namespace

namespace usermove {

bool parseEntry(const QString &line, HomeEntry *entry)
{
    const QStringList w = line.split(QLatin1Char(' '));
    if (w.size() != 6 || w.at(0) != QLatin1String("M") || w.at(1).size() != 1)
        return false;
    bool ok = false;
    entry->type = w.at(1).at(0);
    entry->mode = w.at(2);
    entry->size = w.at(3).toLongLong(&ok);
    entry->content = w.at(4);
    entry->path
        = w.at(5) == QLatin1String("-") ? QByteArray() : QByteArray::fromBase64(w.at(5).toLatin1());
    return ok && !entry->path.isEmpty();
}

QVector<HomeEntry> missingAfterMove(const QVector<HomeEntry> &moved, const QVector<HomeEntry> &home,
    const QVector<HomeEntry> &aside)
{
    QHash<QByteArray, HomeEntry> homeByPath;
    for (const HomeEntry &entry : home)
        homeByPath.insert(entry.path, entry);
    QHash<QByteArray, HomeEntry> asideByPath;
    for (const HomeEntry &entry : aside)
        asideByPath.insert(entry.path, entry);
    QVector<HomeEntry> missing;
    for (const HomeEntry &entry : moved) {
        const HomeEntry there = homeByPath.value(entry.path);
        // A folder merged into one the new home had keeps that one's mode.
        const bool folderThere = entry.type == QLatin1Char('d') && there.type == entry.type;
        if (folderThere || there == entry || asideByPath.value(entry.path) == entry)
            continue;
        // (Below a folder set aside whole, an entry is in the aside folder by the same path.)
        missing.append(entry);
    }
    return missing;
}

} // namespace usermove

QString UserMove::stepName(Step step)
{
    switch (step) {
    case Step::Plan:
        return QStringLiteral("plan");
    case Step::Account:
        return QStringLiteral("account");
    case Step::Archive:
        return QStringLiteral("archive");
    case Step::Transfer:
        return QStringLiteral("transfer");
    case Step::Unpack:
        return QStringLiteral("unpack");
    case Step::Merge:
        return QStringLiteral("merge");
    case Step::Verify:
        return QStringLiteral("verify");
    case Step::Remove:
        return QStringLiteral("remove");
    }
    return {};
}

UserMove::UserMove(UserMoveSide from, UserMoveSide to, QString userId, QString fromAccount,
    QStringList toAccountCandidates, QObject *parent)
    : QObject(parent)
    , m_fromAccountName(std::move(fromAccount))
    , m_toCandidates(std::move(toAccountCandidates))
{
    qRegisterMetaType<UserMovePlan>("sandscope::UserMovePlan");
    m_plan.userId = std::move(userId);
    m_plan.from = std::move(from);
    m_plan.to = std::move(to);
}

UserMove::~UserMove() = default;

void UserMove::runShell(const UserMoveSide &side, const QString &script, Done done)
{
    runAdminCommand(side.client, side.admin, script, this, std::move(done));
}

void UserMove::runPython(
    const UserMoveSide &side, const QStringList &arguments, int asUid, int asGid, Done done)
{
    runShell(side, fleetroot::script(arguments, asUid, asGid), std::move(done));
}

// ---- the plan -------------------------------------------------------------------------

void UserMove::plan()
{
    m_executing = false;
    m_step = Step::Plan;
    lookUpAccounts([this] { readManifests([this] { finishPlan(); }); });
}

void UserMove::lookUpAccounts(std::function<void()> then)
{
    m_plan.fromAccount = {};
    m_plan.toAccount = {};
    m_toEntries.clear(); // a plan made again reads the new home again
    m_plan.blockers.clear();
    m_plan.warnings.clear();
    if (m_fromAccountName.isEmpty())
        findAccounts([this, then] {
            if (m_plan.blockers.isEmpty())
                inspectFrom(then);
            else
                then();
        });
    else
        inspectFrom(then);
}

// The accounts of both members the user id explains: on the old member the one whose home it
// holds, on the new one every candidate.
void UserMove::findAccounts(std::function<void()> then)
{
    const auto explained = [this](const CommandOutput &output, bool homeHere) {
        QStringList names;
        for (const QString &line : output.lines) {
            const QStringList w = line.split(QLatin1Char(' '));
            AccountRule rule {};
            if (w.size() == 6 && w.at(0) == QLatin1String("U")
                && (!homeHere || w.at(3) == QLatin1String("1"))
                && explainAccountName(m_plan.userId, w.at(1), QString(), &rule))
                names << w.at(1);
        }
        return names;
    };
    runPython(m_plan.from, {QStringLiteral("accounts")}, 0, 0,
        [this, then, explained](const Result<CommandOutput> &result) {
            if (!result.ok() || result.value.exitCode != 0) {
                m_plan.blockers << tr("%1 could not list its accounts (%2)")
                                       .arg(m_plan.from.member, failureText(result));
                then();
                return;
            }
            const QStringList names = explained(result.value, true);
            if (names.size() != 1) {
                m_plan.blockers << (names.isEmpty()
                        ? tr("%1 holds no home of %2").arg(m_plan.from.member, m_plan.userId)
                        : tr("%1 holds homes of several accounts of %2: %3")
                              .arg(m_plan.from.member, m_plan.userId,
                                  names.join(QStringLiteral(", "))));
                then();
                return;
            }
            m_fromAccountName = names.constFirst();
            if (!m_toCandidates.isEmpty()) {
                then();
                return;
            }
            runPython(m_plan.to, {QStringLiteral("accounts")}, 0, 0,
                [this, then, explained](const Result<CommandOutput> &listed) {
                    if (!listed.ok() || listed.value.exitCode != 0)
                        m_plan.blockers << tr("%1 could not list its accounts (%2)")
                                               .arg(m_plan.to.member, failureText(listed));
                    else
                        m_toCandidates = explained(listed.value, false);
                    then();
                });
        });
}

void UserMove::inspectFrom(std::function<void()> then)
{
    runPython(m_plan.from, {QStringLiteral("inspect"), m_fromAccountName}, 0, 0,
        [this, then](const Result<CommandOutput> &result) {
            if (!result.ok() || result.value.exitCode != 0) {
                m_plan.blockers << tr("%1 could not be asked about the account (%2)")
                                       .arg(m_plan.from.member, failureText(result));
                then();
                return;
            }
            m_plan.fromAccount = accountOf(result.value, m_fromAccountName);
            lookUpTo(0, then);
        });
}

void UserMove::lookUpTo(int index, std::function<void()> then)
{
    if (index >= m_toCandidates.size()) {
        then(); // none exists yet: step 1 creates it
        return;
    }
    runPython(m_plan.to, {QStringLiteral("inspect"), m_toCandidates.at(index)}, 0, 0,
        [this, index, then](const Result<CommandOutput> &result) {
            if (!result.ok() || result.value.exitCode != 0) {
                m_plan.blockers << tr("%1 could not be asked about the account (%2)")
                                       .arg(m_plan.to.member, failureText(result));
                then();
                return;
            }
            const UserMoveAccount account = accountOf(result.value, m_toCandidates.at(index));
            // An account without a home here is not the user's on this member (on one machine
            // the members of a test fleet share their accounts, not their homes).
            if (!account.exists || !account.homeExists) {
                lookUpTo(index + 1, then);
                return;
            }
            m_plan.toAccount = account;
            then();
        });
}

void UserMove::readManifests(std::function<void()> then)
{
    const UserMoveAccount &from = m_plan.fromAccount;
    if (!from.exists || !from.homeExists || !from.homeProblem.isEmpty() || from.uid <= 0) {
        then();
        return;
    }
    runPython(m_plan.from, {QStringLiteral("manifest"), path64(from.home)}, from.uid, from.gid,
        [this, then](const Result<CommandOutput> &result) {
            if (!result.ok() || result.value.exitCode != 0) {
                m_plan.blockers << tr("the home on %1 could not be read as the user (%2)")
                                       .arg(m_plan.from.member, failureText(result));
                then();
                return;
            }
            if (!entriesOf(result.value.lines, 0, -1, &m_plan.entries)) {
                m_plan.blockers
                    << tr("the listing of the home on %1 came incomplete").arg(m_plan.from.member);
                then();
                return;
            }
            const UserMoveAccount &to = m_plan.toAccount;
            if (!to.exists || !to.homeExists || !to.homeProblem.isEmpty() || to.uid <= 0) {
                then();
                return;
            }
            runPython(m_plan.to, {QStringLiteral("manifest"), path64(to.home)}, to.uid, to.gid,
                [this, then](const Result<CommandOutput> &home) {
                    if (!home.ok() || home.value.exitCode != 0)
                        m_plan.blockers << tr("the home on %1 could not be read as the user (%2)")
                                               .arg(m_plan.to.member, failureText(home));
                    else if (!entriesOf(home.value.lines, 0, -1, &m_toEntries))
                        m_plan.blockers << tr("the listing of the home on %1 came incomplete")
                                               .arg(m_plan.to.member);
                    then();
                });
        });
}

void UserMove::finishPlan()
{
    UserMovePlan &plan = m_plan;
    const UserMoveAccount &from = plan.fromAccount;
    if (!from.exists)
        plan.blockers << tr("%1 has no account %2").arg(plan.from.member, from.name);
    else if (!from.homeExists)
        plan.blockers
            << tr("%1 has no home for %2 (%3)").arg(plan.from.member, from.name, from.home);
    if (!from.homeProblem.isEmpty())
        plan.blockers
            << tr("the home on %1 is not moved: %2").arg(plan.from.member, from.homeProblem);
    if (!plan.toAccount.homeProblem.isEmpty())
        plan.blockers << tr("the home on %1 is not merged into: %2")
                             .arg(plan.to.member, plan.toAccount.homeProblem);
    if (from.processes > 0)
        plan.blockers << tr("%n process(es) of the user still run on %1: the home would change "
                            "while it moves",
            nullptr, from.processes)
                             .arg(plan.from.member);
    if (plan.toAccount.processes > 0)
        plan.warnings << tr(
            "%n process(es) of the user run on %1 now", nullptr, plan.toAccount.processes)
                             .arg(plan.to.member);
    if (!plan.toAccount.exists)
        plan.warnings << tr("%1 has no account for the user yet: the server creates it on the "
                            "first request as the user")
                             .arg(plan.to.member);
    plan.bytes = 0;
    plan.files = 0;
    for (const HomeEntry &entry : std::as_const(plan.entries)) {
        if (entry.type == QLatin1Char('f')) {
            plan.bytes += entry.size;
            ++plan.files;
        }
    }
    QHash<QByteArray, HomeEntry> there;
    for (const HomeEntry &entry : std::as_const(m_toEntries))
        there.insert(entry.path, entry);
    plan.conflicts = 0;
    for (const HomeEntry &entry : std::as_const(plan.entries)) {
        const auto found = there.constFind(entry.path);
        if (found != there.constEnd() && entry.type != QLatin1Char('d') && !(*found == entry))
            ++plan.conflicts;
    }
    if (plan.conflicts > 0)
        plan.warnings << tr("%n entry(ies) differ from what the new home has: they go to "
                            "~/.sandscope-moved-from-%1-<time>/",
            nullptr, plan.conflicts)
                             .arg(plan.from.member);
    if (!m_executing) {
        Q_EMIT planned(plan);
        return;
    }
    Q_EMIT planned(plan);
    if (!plan.ok()) {
        fail(Step::Plan, plan.blockers.join(QStringLiteral("; ")));
        return;
    }
    stepAccount();
}

// ---- the steps ------------------------------------------------------------------------

void UserMove::execute(const QString &reportPath)
{
    m_report.setFileName(reportPath);
    if (!m_report.open(QIODevice::Append | QIODevice::WriteOnly)) {
        Q_EMIT finished(false,
            tr("the report %1 cannot be written: %2").arg(reportPath, m_report.errorString()));
        return;
    }
    m_executing = true;
    m_token = QUuid::createUuid().toString(QUuid::Id128).left(12);
    m_aside.clear();
    m_stage.clear();
    report({{QStringLiteral("event"), QStringLiteral("move")},
        {QStringLiteral("user"), m_plan.userId}, {QStringLiteral("from"), m_plan.from.member},
        {QStringLiteral("to"), m_plan.to.member}, {QStringLiteral("token"), m_token}});
    begin(Step::Plan, tr("the plan is made again"));
    if (injected(Step::Plan))
        return;
    lookUpAccounts([this] { readManifests([this] { finishPlan(); }); });
}

void UserMove::report(const QJsonObject &entry)
{
    QJsonObject line = entry;
    line.insert(
        QStringLiteral("time"), QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs));
    m_report.write(QJsonDocument(line).toJson(QJsonDocument::Compact) + '\n');
    m_report.flush(); // before the action it reports
}

void UserMove::begin(Step step, const QString &what)
{
    m_step = step;
    report({{QStringLiteral("event"), QStringLiteral("step")},
        {QStringLiteral("step"), stepName(step)},
        {QStringLiteral("state"), QStringLiteral("starting")}, {QStringLiteral("what"), what}});
    Q_EMIT stepStarted(step, what);
}

bool UserMove::injected(Step step)
{
    if (!m_inject || m_inject(step))
        return false;
    fail(step, tr("failure injected before the step ran"));
    return true;
}

void UserMove::fail(Step step, const QString &why)
{
    const bool oldIntact = step != Step::Remove;
    QString where = oldIntact
        ? tr("the old home on %1 is untouched").arg(m_plan.from.member)
        : tr("the home is complete on %1 (verified); the old copy on %2 may be partly removed")
              .arg(m_plan.to.member, m_plan.from.member);
    if (step == Step::Merge || step == Step::Verify)
        where += tr("; entries moved so far are in the new home on %1, and a second move merges "
                    "the rest")
                     .arg(m_plan.to.member);
    const QString text = tr("%1 failed: %2; %3").arg(stepName(step), why, where);
    report({{QStringLiteral("event"), QStringLiteral("step")},
        {QStringLiteral("step"), stepName(step)},
        {QStringLiteral("state"), QStringLiteral("failed")}, {QStringLiteral("why"), why},
        {QStringLiteral("where"), where}});
    Q_EMIT stepEnded(step, false, text);
    unstage([this, text] {
        report({{QStringLiteral("event"), QStringLiteral("end")}, {QStringLiteral("ok"), false},
            {QStringLiteral("why"), text}});
        m_report.close();
        Q_EMIT finished(false, text);
    });
}

void UserMove::unstage(std::function<void()> then)
{
    if (m_stage.isEmpty()) {
        then();
        return;
    }
    const QString stage = std::exchange(m_stage, QString());
    runPython(m_plan.to, {QStringLiteral("unstage"), path64(stage)}, 0, 0,
        [then](const Result<CommandOutput> &) { then(); });
}

void UserMove::stepAccount()
{
    begin(Step::Account,
        m_plan.toAccount.exists
            ? tr("the account %1 on %2 is used").arg(m_plan.toAccount.name, m_plan.to.member)
            : tr("%1 creates the user's account on a request as the user").arg(m_plan.to.member));
    if (injected(Step::Account))
        return;
    Identity identity;
    identity.userId = m_plan.userId;
    identity.sessionId = QStringLiteral("sandscope-move-") + m_token;
    runShortCommand(m_plan.to.client, identity, QStringLiteral("id -un"), this,
        [this](const Result<CommandOutput> &result) {
            if (!result.ok() || result.value.exitCode != 0) {
                fail(Step::Account, failureText(result));
                return;
            }
            // What the server made of the id: the account that now exists.
            QString account;
            for (const QString &line : result.value.lines) {
                if (!line.trimmed().isEmpty()) {
                    account = line.trimmed();
                    break;
                }
            }
            m_toCandidates = QStringList {account};
            lookUpTo(0, [this] {
                const UserMoveAccount &to = m_plan.toAccount;
                if (!to.exists || to.uid <= 0 || !to.homeProblem.isEmpty()) {
                    fail(Step::Account,
                        to.homeProblem.isEmpty()
                            ? tr("no account appeared on %1").arg(m_plan.to.member)
                            : to.homeProblem);
                    return;
                }
                report({{QStringLiteral("event"), QStringLiteral("step")},
                    {QStringLiteral("step"), stepName(Step::Account)},
                    {QStringLiteral("state"), QStringLiteral("done")},
                    {QStringLiteral("account"), to.name}, {QStringLiteral("uid"), to.uid},
                    {QStringLiteral("home"), to.home}});
                Q_EMIT stepEnded(Step::Account, true, to.name);
                stepArchive();
            });
        });
}

void UserMove::stepArchive()
{
    const UserMoveAccount &from = m_plan.fromAccount;
    begin(Step::Archive,
        tr("the home %1 on %2 is packed, as the user").arg(from.home, m_plan.from.member));
    if (injected(Step::Archive))
        return;
    runPython(m_plan.from, {QStringLiteral("archive"), path64(from.home)}, from.uid, from.gid,
        [this](const Result<CommandOutput> &result) {
            const QStringList header = lineOf(result.value, QStringLiteral("ARCHIVE"));
            if (!succeeded(result, QStringLiteral("END")) || header.size() != 3) {
                fail(Step::Archive, failureText(result));
                return;
            }
            m_archiveBytes = header.at(1).toLongLong();
            m_archiveSha = header.at(2);
            m_archive.clear();
            for (const QString &line : result.value.lines) {
                if (line.startsWith(QLatin1String("B ")))
                    m_archive += line.mid(2).toLatin1() + '\n';
            }
            report({{QStringLiteral("event"), QStringLiteral("step")},
                {QStringLiteral("step"), stepName(Step::Archive)},
                {QStringLiteral("state"), QStringLiteral("done")},
                {QStringLiteral("bytes"), double(m_archiveBytes)},
                {QStringLiteral("sha256"), m_archiveSha}});
            Q_EMIT stepEnded(Step::Archive, true, m_archiveSha);
            begin(Step::Transfer,
                tr("%1 bytes go to a staging folder on %2")
                    .arg(m_archiveBytes)
                    .arg(m_plan.to.member));
            if (injected(Step::Transfer))
                return;
            runPython(m_plan.to, {QStringLiteral("stage"), path64(m_plan.toAccount.home), m_token},
                0, 0, [this](const Result<CommandOutput> &staged) {
                    const QStringList stage = lineOf(staged.value, QStringLiteral("STAGE"));
                    if (!succeeded(staged, QStringLiteral("STAGE")) || stage.size() != 2) {
                        fail(Step::Transfer, failureText(staged));
                        return;
                    }
                    m_stage = QString::fromUtf8(QByteArray::fromBase64(stage.at(1).toLatin1()));
                    stepTransfer(0);
                });
        });
}

void UserMove::stepTransfer(int from)
{
    if (from >= m_archive.size()) {
        report({{QStringLiteral("event"), QStringLiteral("step")},
            {QStringLiteral("step"), stepName(Step::Transfer)},
            {QStringLiteral("state"), QStringLiteral("done")}, {QStringLiteral("stage"), m_stage}});
        Q_EMIT stepEnded(Step::Transfer, true, m_stage);
        stepUnpack();
        return;
    }
    int end = std::min<int>(int(m_archive.size()), from + m_pieceBytes);
    if (end < m_archive.size()) {
        const int newline = m_archive.lastIndexOf('\n', end - 1);
        end = newline > from ? newline + 1 : m_archive.indexOf('\n', end) + 1;
    }
    const QString script
        = QStringLiteral("base64 -d >> %1 <<'SANDSCOPE_B64'\n%2SANDSCOPE_B64\necho PIECE\n")
              .arg(shell::quote(m_stage + QStringLiteral("/archive.tgz")),
                  QString::fromLatin1(m_archive.mid(from, end - from)));
    runShell(m_plan.to, script, [this, end](const Result<CommandOutput> &result) {
        if (!succeeded(result, QStringLiteral("PIECE"))) {
            fail(Step::Transfer, failureText(result));
            return;
        }
        stepTransfer(end);
    });
}

void UserMove::stepUnpack()
{
    const UserMoveAccount &to = m_plan.toAccount;
    begin(Step::Unpack,
        tr("the archive is checked (sha256 %1) and unpacked for %2").arg(m_archiveSha, to.name));
    if (injected(Step::Unpack))
        return;
    runPython(m_plan.to,
        {QStringLiteral("extract"), path64(m_stage), m_archiveSha, QString::number(to.uid),
            QString::number(to.gid)},
        0, 0, [this](const Result<CommandOutput> &result) {
            if (!succeeded(result, QStringLiteral("EXTRACTED"))) {
                fail(Step::Unpack, failureText(result));
                return;
            }
            m_archive.clear();
            report({{QStringLiteral("event"), QStringLiteral("step")},
                {QStringLiteral("step"), stepName(Step::Unpack)},
                {QStringLiteral("state"), QStringLiteral("done")}});
            Q_EMIT stepEnded(Step::Unpack, true, QString());
            stepMerge();
        });
}

void UserMove::stepMerge()
{
    const UserMoveAccount &to = m_plan.toAccount;
    m_aside = to.home + QStringLiteral("/.sandscope-moved-from-") + m_plan.from.member
        + QLatin1Char('-')
        + QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    begin(Step::Merge,
        tr("entries go into %1, as the user; differing ones to %2").arg(to.home, m_aside));
    if (injected(Step::Merge))
        return;
    runPython(m_plan.to,
        {QStringLiteral("merge"), path64(m_stage), path64(to.home), path64(m_aside),
            QString::number(to.uid), QString::number(to.gid)},
        to.uid, to.gid, [this](const Result<CommandOutput> &result) {
            const QStringList merged = lineOf(result.value, QStringLiteral("MERGED"));
            if (!succeeded(result, QStringLiteral("MERGED")) || merged.size() != 4) {
                fail(Step::Merge, failureText(result));
                return;
            }
            report({{QStringLiteral("event"), QStringLiteral("step")},
                {QStringLiteral("step"), stepName(Step::Merge)},
                {QStringLiteral("state"), QStringLiteral("done")},
                {QStringLiteral("moved"), merged.at(1).toInt()},
                {QStringLiteral("already_there"), merged.at(2).toInt()},
                {QStringLiteral("set_aside"), merged.at(3).toInt()},
                {QStringLiteral("aside"), merged.at(3).toInt() > 0 ? m_aside : QString()}});
            Q_EMIT stepEnded(Step::Merge, true, merged.mid(1).join(QLatin1Char(' ')));
            stepVerify();
        });
}

void UserMove::stepVerify()
{
    const UserMoveAccount &to = m_plan.toAccount;
    begin(Step::Verify, tr("every entry of the old home is looked for in the new one"));
    if (injected(Step::Verify))
        return;
    runPython(m_plan.to, {QStringLiteral("verify"), path64(to.home), path64(m_aside)}, to.uid,
        to.gid, [this](const Result<CommandOutput> &result) {
            if (!succeeded(result, QStringLiteral("HOMEMANIFEST"))) {
                fail(Step::Verify, failureText(result));
                return;
            }
            const QStringList &lines = result.value.lines;
            const int asideAt = int(lines.indexOf(QStringLiteral("ASIDEMANIFEST")));
            QVector<HomeEntry> home;
            QVector<HomeEntry> aside;
            if (!entriesOf(lines, 0, asideAt, &home)
                || (asideAt >= 0 && !entriesOf(lines, asideAt, -1, &aside))) {
                fail(Step::Verify, tr("the listing of the new home came incomplete"));
                return;
            }
            const QVector<HomeEntry> missing
                = usermove::missingAfterMove(m_plan.entries, home, aside);
            if (!missing.isEmpty()) {
                fail(Step::Verify,
                    tr("%n entry(ies) of the old home are not in the new one, e.g. %1", nullptr,
                        int(missing.size()))
                        .arg(QString::fromUtf8(missing.constFirst().path)));
                return;
            }
            report({{QStringLiteral("event"), QStringLiteral("step")},
                {QStringLiteral("step"), stepName(Step::Verify)},
                {QStringLiteral("state"), QStringLiteral("done")},
                {QStringLiteral("entries"), int(m_plan.entries.size())}});
            Q_EMIT stepEnded(Step::Verify, true, QString());
            unstage([this] { stepRemove(); });
        });
}

void UserMove::stepRemove()
{
    const UserMoveAccount &from = m_plan.fromAccount;
    begin(Step::Remove,
        tr("the account %1 and its home %2 are removed from %3")
            .arg(from.name, from.home, m_plan.from.member));
    if (injected(Step::Remove))
        return;
    runPython(m_plan.from, {QStringLiteral("remove"), from.name, path64(from.home)}, 0, 0,
        [this](const Result<CommandOutput> &result) {
            if (!succeeded(result, QStringLiteral("REMOVED"))) {
                fail(Step::Remove, failureText(result));
                return;
            }
            report({{QStringLiteral("event"), QStringLiteral("step")},
                {QStringLiteral("step"), stepName(Step::Remove)},
                {QStringLiteral("state"), QStringLiteral("done")}});
            Q_EMIT stepEnded(Step::Remove, true, QString());
            const QString text = tr("%1's home moved from %2 to %3 (%n entry(ies))", nullptr,
                int(m_plan.entries.size()))
                                     .arg(m_plan.userId, m_plan.from.member, m_plan.to.member);
            report({{QStringLiteral("event"), QStringLiteral("end")}, {QStringLiteral("ok"), true},
                {QStringLiteral("what"), text}});
            m_report.close();
            Q_EMIT finished(true, text);
        });
}

} // namespace sandscope
