#include "probereport.h"

#include <QJsonArray>

#include <algorithm>
#include <functional>

namespace sandscope {

namespace {

const QString formatName = QStringLiteral("sandscope-isolation-probe");
constexpr int formatVersion = 1;

CheckInfo pairCheck(
    CheckId id, const char *key, const char *title, Severity severity, const char *failMeaning)
{
    return CheckInfo {
        id, QLatin1String(key), QLatin1String(title), severity, QLatin1String(failMeaning), false};
}

CheckInfo serverCheck(
    CheckId id, const char *key, const char *title, Severity severity, const char *failMeaning)
{
    CheckInfo info = pairCheck(id, key, title, severity, failMeaning);
    info.serverWide = true;
    return info;
}

CheckInfo documented(CheckInfo info)
{
    info.documented = true;
    return info;
}

CheckInfo acrossMembers(CheckInfo info)
{
    info.acrossMembers = true;
    return info;
}

QVector<CheckInfo> buildChecks()
{
    using S = Severity;
    return {
        pairCheck(CheckId::FilesList, "files.list", "B lists A's home (API)", S::Medium,
            "Users see the names and sizes of each other's files."),
        pairCheck(CheckId::FilesRead, "files.read", "B reads A's file (API)", S::Critical,
            "Any user reads every other user's files, including credentials and chats."),
        pairCheck(CheckId::FilesWrite, "files.write", "B writes into A's home (API)", S::Critical,
            "Any user plants files in another user's home (e.g. shell start-up files) and "
            "runs code as them."),
        pairCheck(CheckId::FilesMove, "files.move", "B moves A's file (API)", S::High,
            "Any user renames or hides another user's files."),
        pairCheck(CheckId::FilesDelete, "files.delete", "B deletes A's file (API)", S::High,
            "Any user destroys another user's work."),
        pairCheck(CheckId::FilesGrep, "files.grep", "B greps A's files (API)", S::Critical,
            "Any user searches the contents of everyone's files."),
        pairCheck(CheckId::FilesGlob, "files.glob", "B globs A's files (API)", S::Medium,
            "Users see the names and sizes of each other's files."),
        pairCheck(CheckId::FilesArchive, "files.archive", "B archives A's home (API)", S::Critical,
            "Any user downloads another user's whole home as a ZIP."),
        pairCheck(CheckId::FilesReadSymlink, "files.read.symlink",
            "B reads A's file through a symlink in B's home (API)", S::Critical,
            "Any user reads every other user's files, credentials included, by linking to them."),
        pairCheck(CheckId::FilesListSymlink, "files.list.symlink",
            "B lists A's folder through a symlink in B's home (API)", S::Medium,
            "Any user lists another user's folders by linking to them."),
        pairCheck(CheckId::FilesArchiveSymlink, "files.archive.symlink",
            "B archives A's folder through a symlink in B's home (API)", S::Critical,
            "Any user downloads another user's folders as a ZIP by linking to them."),
        pairCheck(CheckId::FilesViewSymlink, "files.view.symlink",
            "B downloads A's file through a symlink in B's home (API)", S::Critical,
            "Any user downloads every other user's files, credentials included, by linking to "
            "them."),
        pairCheck(CheckId::FilesGrepSymlink, "files.grep.symlink",
            "B greps A's folder through a symlink in B's home (API)", S::Critical,
            "Any user searches the contents of another user's folders by linking to them."),
        pairCheck(CheckId::FilesGlobSymlink, "files.glob.symlink",
            "B globs A's folder through a symlink in B's home (API)", S::Medium,
            "Any user learns the names of another user's files by linking to their folders."),
        pairCheck(CheckId::FilesWriteSymlink, "files.write.symlink",
            "B overwrites A's file through a symlink in B's home (API)", S::Critical,
            "Any user overwrites another user's files (e.g. ~/.bashrc) by linking to them, "
            "and so runs code as that user."),
        pairCheck(CheckId::FilesUploadSymlink, "files.upload.symlink",
            "B uploads onto its link to A's file and into its link to A's folder (API)",
            S::Critical,
            "Any user overwrites another user's files (e.g. ~/.bashrc) or plants new ones in "
            "their folders by uploading through a link, and so runs code as that user."),
        pairCheck(CheckId::FilesCreateSymlink, "files.create.symlink",
            "B creates a file in A's folder through a symlink in B's home (API)", S::Critical,
            "Any user plants files in another user's folders by linking to them."),
        pairCheck(CheckId::FilesMoveSymlink, "files.move.symlink",
            "B moves A's file out through a symlink in B's home (API)", S::High,
            "Any user takes another user's files away (into their own home) by linking to "
            "the folder."),
        pairCheck(CheckId::FilesDeleteSymlink, "files.delete.symlink",
            "B deletes A's file through a symlink in B's home (API)", S::High,
            "Any user destroys another user's files by linking to the folder."),
        pairCheck(CheckId::FilesReadSwap, "files.read.swap",
            "B reads its own file while swapping it for a link to A's file (API, bounded race)",
            S::Critical,
            "Any user reads another user's files by swapping a link in between the server's "
            "check of a path and its use."),
        pairCheck(CheckId::FilesWriteSwap, "files.write.swap",
            "B writes its own file while swapping it for a link to A's file (API, bounded race)",
            S::Critical,
            "Any user takes over another user's files (owner, mode or content) by swapping a "
            "link in between the server's write and its chown and chmod, and can then rewrite "
            "them at will."),
        pairCheck(CheckId::FilesHardlink, "files.hardlink",
            "B's shell hard-links A's file into B's home (ln)", S::Critical,
            "Any user keeps a second name for another user's file in their own home, and reads "
            "or overwrites it there through the file API."),
        serverCheck(CheckId::FilesReadRoot, "files.read.root",
            "A user reads a root-only file outside /home by its path (API)", S::Critical,
            "Any user reads root-only files (e.g. /etc/shadow): the file API reads as root."),
        serverCheck(CheckId::FilesReadRootSymlink, "files.read.root-symlink",
            "A user reads a root-only file through a symlink (API)", S::Critical,
            "Any user reads root-only files (e.g. /etc/shadow): the file API reads as root."),
        pairCheck(CheckId::ShellRead, "shell.read", "B's shell reads A's files (cat)", S::Critical,
            "Commands of one user read every other user's files and chats."),
        pairCheck(CheckId::ShellList, "shell.list", "B's shell lists A's folders (ls)", S::Medium,
            "Commands of one user see the names of another user's files and chats."),
        pairCheck(CheckId::ShellWrite, "shell.write", "B's shell creates files at A's (touch)",
            S::Critical, "Commands of one user plant files in another user's home or chats."),
        pairCheck(CheckId::ShellDelete, "shell.delete", "B's shell deletes A's file (rm)", S::High,
            "Commands of one user destroy another user's files."),
        pairCheck(CheckId::ProcessList, "process.list", "B sees A's process (GET /execute)",
            S::Medium, "Users learn what others are running and when."),
        pairCheck(CheckId::ProcessCommandLine, "process.command",
            "B sees A's command line (GET /execute)", S::High,
            "Command lines of other users leak, with any secret passed on them."),
        documented(pairCheck(CheckId::ProcessShellList, "process.ps",
            "B's shell sees A's command line (ps)", S::Medium,
            "Users share one process table: command lines (and secrets on them) leak through "
            "ps.")),
        pairCheck(CheckId::ProcessOutput, "process.output",
            "B reads A's process output (/execute/{id}/status)", S::Critical,
            "Any user reads another user's command output, e.g. a whole Claude Code run."),
        pairCheck(CheckId::ProcessLog, "process.log", "B's shell reads A's process log",
            S::Critical, "The server's process logs expose every user's command output."),
        pairCheck(CheckId::ProcessInput, "process.input", "B types into A's process", S::Critical,
            "Any user injects input into another user's running programs."),
        pairCheck(CheckId::ProcessKill, "process.kill", "B kills A's process", S::High,
            "Any user stops another user's runs."),
        pairCheck(CheckId::ProcessEnvironApi, "process.environ.api",
            "B reads A's process environment (/proc/<pid>/environ, file API)", S::Critical,
            "Any user reads the environment of another user's processes (the API keys of their "
            "agent runs) through the file API, which reads /proc as root."),
        pairCheck(CheckId::ProcessEnvironShell, "process.environ.shell",
            "B's shell reads A's process environment (/proc/<pid>/environ)", S::Critical,
            "Commands of one user read the environment of another user's processes."),
        pairCheck(CheckId::ProcessCwdApi, "process.cwd.api",
            "B reads A's file through A's process working directory (/proc/<pid>/cwd, file API)",
            S::Critical,
            "Any user reads the files of another user's working folders through the cwd link "
            "of their processes, which the file API follows as root."),
        pairCheck(CheckId::ProcessCwdShell, "process.cwd.shell",
            "B's shell reads A's file through A's process working directory (/proc/<pid>/cwd)",
            S::Critical,
            "Commands of one user read the files of another user's working folders through "
            "the cwd link of their processes."),
        // The same process table as process.ps (the server's README: one process list).
        documented(pairCheck(CheckId::ProcessCmdlineApi, "process.cmdline.api",
            "B reads A's process arguments (/proc/<pid>/cmdline, file API)", S::High,
            "Any user reads the arguments of another user's processes (and any secret passed "
            "on them) through the file API.")),
        documented(pairCheck(CheckId::ProcessCmdlineShell, "process.cmdline.shell",
            "B's shell reads A's process arguments (/proc/<pid>/cmdline)", S::High,
            "Commands of one user read the arguments of another user's processes (and any "
            "secret passed on them).")),
        serverCheck(CheckId::ServerEnvironApi, "process.server-environ",
            "A user reads the server's environment (file API)", S::Critical,
            "Any user reads the server's API key from its process environment and can then act "
            "as every user."),
        pairCheck(CheckId::SessionReuse, "session.reuse", "B uses A's X-Session-Id", S::High,
            "Knowing a session id is enough to see another user's session state."),
        pairCheck(CheckId::TerminalLookup, "terminal.lookup",
            "B looks up A's terminal by its id (GET /api/terminals/{id})", S::High,
            "Knowing a terminal id is enough to see another user's interactive shell, and to "
            "attach to or end it."),
        pairCheck(CheckId::TerminalRead, "terminal.read",
            "B attaches to A's terminal by its id and reads it (WebSocket)", S::Critical,
            "Knowing a terminal id is enough to watch another user's interactive shell: what "
            "they type and what their programs print."),
        pairCheck(CheckId::TerminalWrite, "terminal.write",
            "B types into A's terminal by its id (WebSocket)", S::Critical,
            "Knowing a terminal id is enough to type commands into another user's shell, i.e. "
            "to run code as that user."),
        serverCheck(CheckId::AccountTwin, "account.twin", "Two distinct ids map to one account",
            S::Critical,
            "Different people who share the start of their id share one Linux account and "
            "all its files."),
        serverCheck(CheckId::AccountCase, "account.case",
            "An id and its upper-case variant map to one account", S::Critical,
            "Whoever writes another user's id in capitals gets that user's account and all its "
            "files."),
        serverCheck(CheckId::ReservedIds, "account.reserved",
            "Reserved ids (root, the server's account, user)", S::Critical,
            "Whoever holds the key becomes root or the server's own account by choosing "
            "the user id."),
        serverCheck(CheckId::AccountLookalike, "account.lookalike",
            "Ids that look like the first id (Cyrillic or fullwidth letters) map to its account",
            S::Critical,
            "Whoever registers an id that looks like another user's on a screen gets that "
            "user's account and all its files."),
        serverCheck(CheckId::AccountPath, "account.path",
            "Ids with path characters (../, /home/) map to an existing account", S::Critical,
            "Whoever puts path characters in their id gets another user's account, or root's, "
            "and all its files."),
        serverCheck(CheckId::AccountName, "account.name",
            "Another user's Linux account name used as an id maps to that account", S::Critical,
            "Whoever uses another user's account name as their id gets that account and all its "
            "files."),
        serverCheck(CheckId::MissingUserId, "account.missing-id",
            "Request without X-User-Id reaches A's files", S::High,
            "Whoever holds the key can omit the user id and act as the server account, "
            "which reaches every home."),
        // The server's README: one temp directory for every user (docs/server-behaviour.md).
        documented(pairCheck(CheckId::SharedTmp, "shared.tmp",
            "B reads a file A's shell leaves in /tmp or /dev/shm (default umask)", S::High,
            "Any user reads what another user's commands and agent runs leave in /tmp and "
            "/dev/shm (temporary copies, caches, scripts) under the default umask.")),
        documented(pairCheck(CheckId::NetworkPort, "network.port",
            "B connects to a port A listens on", S::Info,
            "Users share the network: services one user starts on loopback are open to all.")),
        acrossMembers(pairCheck(CheckId::MemberNetwork, "network.member",
            "B on another member connects to a port A listens on", S::Info,
            "The members reach each other: a service one user starts on all interfaces is "
            "open to the users of every member.")),
        acrossMembers(pairCheck(CheckId::MemberApi, "network.member-api",
            "B's shell on another member reaches A's member's API, with a key it can read",
            S::Critical,
            "A user on one member reaches another member's API and can read the key it accepts "
            "(process.server-environ on the user's own member): every user of every member is "
            "within reach.")),
    };
}

QJsonObject evidenceToJson(const Evidence &evidence)
{
    return QJsonObject {{QStringLiteral("request"), evidence.request},
        {QStringLiteral("status"), evidence.status},
        {QStringLiteral("response"), evidence.response}, {QStringLiteral("note"), evidence.note}};
}

Evidence evidenceFromJson(const QJsonObject &json)
{
    Evidence evidence;
    evidence.request = json.value(QLatin1String("request")).toString();
    evidence.status = json.value(QLatin1String("status")).toInt();
    evidence.response = json.value(QLatin1String("response")).toString();
    evidence.note = json.value(QLatin1String("note")).toString();
    return evidence;
}

QString markdownCell(const QString &text)
{
    QString cell = text;
    cell.replace(QLatin1Char('|'), QLatin1String("\\|"));
    cell.replace(QLatin1Char('\n'), QLatin1Char(' '));
    return cell;
}

QString fencedBlock(const QString &text)
{
    // A fence longer than any backtick run inside keeps the block closed.
    int longestRun = 0;
    int run = 0;
    for (const QChar c : text) {
        run = c == QLatin1Char('`') ? run + 1 : 0;
        longestRun = std::max(longestRun, run);
    }
    const QString fence(std::max(3, longestRun + 1), QLatin1Char('`'));
    const QString newline = text.endsWith(QLatin1Char('\n')) ? QString() : QStringLiteral("\n");
    return fence + QLatin1Char('\n') + text + newline + fence + QLatin1Char('\n');
}

// On a fleet: where each user lives and what was not probed, one line each, formatted.
QString fleetLines(const ProbeReport &report, const std::function<QString(const QString &)> &line)
{
    QString text;
    if (!report.userMembers.isEmpty())
        text += line(QStringLiteral("Members: ") + report.usersByMember());
    for (const QString &why : report.notProbed)
        text += line(QStringLiteral("Not probed: ") + why);
    for (const QString &what : report.leftBehind)
        text += line(QStringLiteral("May be left behind: ") + what);
    return text;
}

QStringList subjectsOf(const ProbeReport &report)
{
    QStringList subjects = matrixSubjects(report.users, report.userMembers);
    for (const CheckResult &result : report.results) {
        const QString subject = result.subject();
        if (!subjects.contains(subject))
            subjects << subject;
    }
    return subjects;
}

} // namespace

const QVector<CheckInfo> &allChecks()
{
    static const QVector<CheckInfo> checks = buildChecks();
    return checks;
}

const CheckInfo &checkInfo(CheckId id)
{
    const QVector<CheckInfo> &checks = allChecks();
    const auto found = std::find_if(
        checks.cbegin(), checks.cend(), [id](const CheckInfo &info) { return info.id == id; });
    Q_ASSERT(found != checks.cend());
    return *found;
}

bool checkFromKey(const QString &key, CheckId *id)
{
    for (const CheckInfo &info : allChecks()) {
        if (info.key == key) {
            *id = info.id;
            return true;
        }
    }
    return false;
}

namespace {

// Names by value, in one table per enum, so that names and parsing cannot disagree.
template <typename Enum> struct Named {
    Enum value;
    const char *name;
};

const Named<Verdict> verdictNames[] = {{Verdict::Pass, "PASS"}, {Verdict::Fail, "FAIL"},
    {Verdict::Info, "INFO"}, {Verdict::Error, "ERROR"}};
const Named<Severity> severityNames[] = {{Severity::Info, "info"}, {Severity::Low, "low"},
    {Severity::Medium, "medium"}, {Severity::High, "high"}, {Severity::Critical, "critical"}};

template <typename Enum, size_t N> QString nameOf(const Named<Enum> (&table)[N], Enum value)
{
    for (const Named<Enum> &entry : table) {
        if (entry.value == value)
            return QLatin1String(entry.name);
    }
    return {};
}

template <typename Enum, size_t N>
bool valueOf(const Named<Enum> (&table)[N], const QString &name, Enum *value)
{
    for (const Named<Enum> &entry : table) {
        if (name == QLatin1String(entry.name)) {
            *value = entry.value;
            return true;
        }
    }
    return false;
}

} // namespace

QString verdictName(Verdict verdict)
{
    return nameOf(verdictNames, verdict);
}

bool verdictFromName(const QString &name, Verdict *verdict)
{
    return valueOf(verdictNames, name, verdict);
}

QString severityName(Severity severity)
{
    return nameOf(severityNames, severity);
}

bool severityFromName(const QString &name, Severity *severity)
{
    return valueOf(severityNames, name, severity);
}

QString pairSubject(const QString &target, const QString &actor)
{
    return target + QStringLiteral(" → ") + actor;
}

QString serverSubject()
{
    return QStringLiteral("server");
}

bool isServerSubject(const QString &subject)
{
    return subject == serverSubject() || subject.startsWith(QStringLiteral("server on "));
}

QString memberServerSubject(const QString &member)
{
    return member.isEmpty() ? serverSubject() : QStringLiteral("server on ") + member;
}

QVector<QPair<QString, QString>> userPairs(const QStringList &users)
{
    QVector<QPair<QString, QString>> pairs;
    for (const QString &target : users) {
        for (const QString &actor : users) {
            if (target != actor)
                pairs.append({target, actor});
        }
    }
    return pairs;
}

QStringList matrixSubjects(const QStringList &users)
{
    QStringList subjects;
    for (const auto &pair : userPairs(users))
        subjects << pairSubject(pair.first, pair.second);
    return subjects << serverSubject();
}

QStringList matrixSubjects(const QStringList &users, const QMap<QString, QString> &userMembers)
{
    if (userMembers.isEmpty())
        return matrixSubjects(users);
    QStringList subjects;
    for (const auto &pair : userPairs(users)) {
        if (userMembers.value(pair.first) == userMembers.value(pair.second))
            subjects << pairSubject(pair.first, pair.second);
    }
    QStringList members;
    for (const QString &user : users) {
        const QString member = userMembers.value(user);
        if (!member.isEmpty() && !members.contains(member))
            members << member;
    }
    for (const QString &member : std::as_const(members))
        subjects << memberServerSubject(member);
    return subjects;
}

QString CheckResult::subject() const
{
    return checkInfo(check).serverWide ? memberServerSubject(member) : pairSubject(target, actor);
}

QString ReportDifference::describe() const
{
    const QString from = inBefore ? verdictName(before) : QStringLiteral("(not run)");
    const QString to = inAfter ? verdictName(after) : QStringLiteral("(not run)");
    return checkInfo(check).key + QLatin1Char(' ') + subject + QStringLiteral(": ") + from
        + QStringLiteral(" → ") + to;
}

QString ReportDifference::change() const
{
    const bool failedBefore = inBefore && before == Verdict::Fail;
    const bool failsAfter = inAfter && after == Verdict::Fail;
    if (failedBefore && !failsAfter && inAfter)
        return QStringLiteral("fixed");
    if (failsAfter && !failedBefore)
        return QStringLiteral("introduced");
    return QStringLiteral("changed");
}

QVector<ScorecardRow> ProbeReport::scorecard() const
{
    QVector<ScorecardRow> rows;
    for (const CheckInfo &info : allChecks()) {
        const QString category = info.category();
        auto row = std::find_if(rows.begin(), rows.end(),
            [&](const ScorecardRow &r) { return r.category == category; });
        bool any = false;
        for (const CheckResult &result : results)
            any = any || result.check == info.id;
        if (!any)
            continue;
        if (row == rows.end()) {
            rows.append(ScorecardRow {category});
            row = rows.end() - 1;
        }
        for (const CheckResult &result : results) {
            if (result.check != info.id)
                continue;
            switch (result.verdict) {
            case Verdict::Pass:
                ++row->pass;
                break;
            case Verdict::Fail:
                if (row->fail == 0 || info.severity > row->worstFail)
                    row->worstFail = info.severity;
                ++row->fail;
                break;
            case Verdict::Info:
                ++row->info;
                break;
            case Verdict::Error:
                ++row->error;
                break;
            }
        }
    }
    std::stable_sort(rows.begin(), rows.end(), [](const ScorecardRow &a, const ScorecardRow &b) {
        if ((a.fail > 0) != (b.fail > 0))
            return a.fail > 0;
        return a.fail > 0 && a.worstFail > b.worstFail;
    });
    return rows;
}

const CheckResult *ProbeReport::worstFinding() const
{
    const CheckResult *worst = nullptr;
    const auto rank = [](const CheckResult &result) {
        const CheckInfo &info = checkInfo(result.check);
        // Higher is worse; among equals the earlier check (and result) stays.
        return std::make_pair(info.documented ? 0 : 1, int(info.severity));
    };
    for (const CheckInfo &info : allChecks()) {
        for (const CheckResult &result : results) {
            if (result.check == info.id && result.verdict == Verdict::Fail
                && (!worst || rank(result) > rank(*worst)))
                worst = &result;
        }
    }
    return worst;
}

int ProbeReport::count(Verdict verdict) const
{
    return int(std::count_if(results.cbegin(), results.cend(),
        [verdict](const CheckResult &result) { return result.verdict == verdict; }));
}

QString ProbeReport::usersByMember() const
{
    if (userMembers.isEmpty())
        return users.join(QStringLiteral(", "));
    QStringList members;
    for (const QString &user : users) {
        const QString member = userMembers.value(user);
        if (!members.contains(member))
            members << member;
    }
    QStringList groups;
    for (const QString &member : std::as_const(members)) {
        QStringList on;
        for (const QString &user : users) {
            if (userMembers.value(user) == member)
                on << user;
        }
        groups << QStringLiteral("%1 on %2").arg(on.join(QStringLiteral(", ")), member);
    }
    return groups.join(QStringLiteral("; "));
}

int ProbeReport::exitCode() const
{
    if (count(Verdict::Fail) > 0)
        return 1;
    return count(Verdict::Error) > 0 || !notProbed.isEmpty() ? 2 : 0;
}

const CheckResult *ProbeReport::find(CheckId check, const QString &subject) const
{
    for (const CheckResult &result : results) {
        if (result.check == check && result.subject() == subject)
            return &result;
    }
    return nullptr;
}

QJsonObject ProbeReport::toJson() const
{
    QJsonArray resultArray;
    for (const CheckResult &result : results) {
        const CheckInfo &info = checkInfo(result.check);
        QJsonArray evidenceArray;
        for (const Evidence &evidence : result.evidence)
            evidenceArray.append(evidenceToJson(evidence));
        QJsonObject object {{QStringLiteral("check"), info.key},
            {QStringLiteral("title"), info.title},
            {QStringLiteral("severity"), severityName(info.severity)},
            {QStringLiteral("subject"), result.subject()}, {QStringLiteral("actor"), result.actor},
            {QStringLiteral("target"), result.target},
            {QStringLiteral("verdict"), verdictName(result.verdict)},
            {QStringLiteral("explanation"), result.explanation},
            {QStringLiteral("fail_means"), info.failMeaning},
            {QStringLiteral("documented"), info.documented},
            {QStringLiteral("evidence"), evidenceArray}};
        if (!result.member.isEmpty())
            object.insert(QStringLiteral("member"), result.member);
        resultArray.append(object);
    }
    QJsonArray categories;
    for (const ScorecardRow &row : scorecard())
        categories.append(QJsonObject {{QStringLiteral("category"), row.category},
            {QStringLiteral("pass"), row.pass}, {QStringLiteral("fail"), row.fail},
            {QStringLiteral("info"), row.info}, {QStringLiteral("error"), row.error}});
    QJsonObject card {{QStringLiteral("server_version"), serverVersion},
        {QStringLiteral("categories"), categories}};
    if (const CheckResult *worst = worstFinding()) {
        const CheckInfo &info = checkInfo(worst->check);
        card.insert(QStringLiteral("worst"),
            QJsonObject {{QStringLiteral("check"), info.key},
                {QStringLiteral("subject"), worst->subject()},
                {QStringLiteral("severity"), severityName(info.severity)},
                {QStringLiteral("attacker_gains"), info.failMeaning},
                {QStringLiteral("documented"), info.documented}});
    }
    QJsonObject json {{QStringLiteral("format"), formatName},
        {QStringLiteral("format_version"), formatVersion}, {QStringLiteral("server"), server},
        {QStringLiteral("server_version"), serverVersion},
        {QStringLiteral("users"), QJsonArray::fromStringList(users)},
        {QStringLiteral("started_at"), startedAt.toUTC().toString(Qt::ISODateWithMs)},
        {QStringLiteral("finished_at"), finishedAt.toUTC().toString(Qt::ISODateWithMs)},
        {QStringLiteral("cancelled"), cancelled},
        {QStringLiteral("summary"),
            QJsonObject {{QStringLiteral("pass"), count(Verdict::Pass)},
                {QStringLiteral("fail"), count(Verdict::Fail)},
                {QStringLiteral("info"), count(Verdict::Info)},
                {QStringLiteral("error"), count(Verdict::Error)}}},
        {QStringLiteral("scorecard"), card}, {QStringLiteral("results"), resultArray}};
    if (!userMembers.isEmpty()) {
        QJsonObject members;
        for (auto it = userMembers.cbegin(); it != userMembers.cend(); ++it)
            members.insert(it.key(), it.value());
        json.insert(QStringLiteral("user_members"), members);
    }
    if (!notProbed.isEmpty())
        json.insert(QStringLiteral("not_probed"), QJsonArray::fromStringList(notProbed));
    if (!leftBehind.isEmpty())
        json.insert(QStringLiteral("left_behind"), QJsonArray::fromStringList(leftBehind));
    return json;
}

bool ProbeReport::fromJson(const QJsonObject &json, ProbeReport *report, QString *error)
{
    const auto refuse = [error](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    if (json.value(QLatin1String("format")).toString() != formatName)
        return refuse(QStringLiteral("not an isolation probe report"));
    if (json.value(QLatin1String("format_version")).toInt() != formatVersion)
        return refuse(QStringLiteral("unsupported probe report version %1")
                          .arg(json.value(QLatin1String("format_version")).toInt()));
    ProbeReport parsed;
    parsed.server = json.value(QLatin1String("server")).toString();
    parsed.serverVersion = json.value(QLatin1String("server_version")).toString();
    const QJsonArray users = json.value(QLatin1String("users")).toArray();
    for (const QJsonValue &user : users)
        parsed.users << user.toString();
    parsed.startedAt = QDateTime::fromString(
        json.value(QLatin1String("started_at")).toString(), Qt::ISODateWithMs);
    parsed.finishedAt = QDateTime::fromString(
        json.value(QLatin1String("finished_at")).toString(), Qt::ISODateWithMs);
    parsed.cancelled = json.value(QLatin1String("cancelled")).toBool();
    const QJsonObject members = json.value(QLatin1String("user_members")).toObject();
    for (auto it = members.constBegin(); it != members.constEnd(); ++it)
        parsed.userMembers.insert(it.key(), it.value().toString());
    for (const QJsonValue &line : json.value(QLatin1String("not_probed")).toArray())
        parsed.notProbed << line.toString();
    for (const QJsonValue &line : json.value(QLatin1String("left_behind")).toArray())
        parsed.leftBehind << line.toString();
    const QJsonArray results = json.value(QLatin1String("results")).toArray();
    for (const QJsonValue &value : results) {
        const QJsonObject object = value.toObject();
        CheckResult result;
        const QString key = object.value(QLatin1String("check")).toString();
        if (!checkFromKey(key, &result.check))
            return refuse(QStringLiteral("unknown check \"%1\"").arg(key));
        const QString verdict = object.value(QLatin1String("verdict")).toString();
        if (!verdictFromName(verdict, &result.verdict))
            return refuse(QStringLiteral("unknown verdict \"%1\"").arg(verdict));
        result.actor = object.value(QLatin1String("actor")).toString();
        result.target = object.value(QLatin1String("target")).toString();
        result.explanation = object.value(QLatin1String("explanation")).toString();
        result.member = object.value(QLatin1String("member")).toString();
        const QJsonArray evidence = object.value(QLatin1String("evidence")).toArray();
        for (const QJsonValue &item : evidence)
            result.evidence.append(evidenceFromJson(item.toObject()));
        parsed.results.append(result);
    }
    *report = parsed;
    return true;
}

QString ProbeReport::toMarkdown() const
{
    QString text = QStringLiteral("# Isolation probe: %1\n\n").arg(server);
    text += QStringLiteral("- Server version: %1\n- Users: %2\n- Run: %3 to %4%5\n")
                .arg(serverVersion.isEmpty() ? QStringLiteral("unknown") : serverVersion,
                    users.join(QStringLiteral(", ")), startedAt.toUTC().toString(Qt::ISODate),
                    finishedAt.toUTC().toString(Qt::ISODate),
                    cancelled ? QStringLiteral(" (cancelled)") : QString());
    text += fleetLines(
        *this, [](const QString &line) { return QStringLiteral("- %1\n").arg(line); });
    text += QStringLiteral("- Result: %1 PASS, %2 FAIL, %3 INFO, %4 ERROR\n\n")
                .arg(count(Verdict::Pass))
                .arg(count(Verdict::Fail))
                .arg(count(Verdict::Info))
                .arg(count(Verdict::Error));

    text += QStringLiteral("## Scorecard\n\nopen-terminal %1.")
                .arg(serverVersion.isEmpty() ? QStringLiteral("(version unknown)") : serverVersion);
    if (const CheckResult *worst = worstFinding())
        text
            += QStringLiteral(" Worst finding: **%1** (%2, %3%4): %5")
                   .arg(checkInfo(worst->check).key, worst->subject(),
                       severityName(checkInfo(worst->check).severity),
                       checkInfo(worst->check).documented ? QStringLiteral(", documented behaviour")
                                                          : QString(),
                       checkInfo(worst->check).failMeaning);
    else
        text += QStringLiteral(" No FAIL.");
    text
        += QStringLiteral("\n\n| Category | PASS | FAIL | INFO | ERROR |\n|---|---|---|---|---|\n");
    for (const ScorecardRow &row : scorecard())
        text += QStringLiteral("| %1 | %2 | %3 | %4 | %5 |\n")
                    .arg(row.category)
                    .arg(row.pass)
                    .arg(row.fail)
                    .arg(row.info)
                    .arg(row.error);
    text += QLatin1Char('\n');

    // The matrix: checks × subjects ("A → B" means B acts on A's resources).
    const QStringList subjects = subjectsOf(*this);
    text += QStringLiteral("## Matrix\n\nA column \"A → B\" shows what B can do to A's "
                           "resources.\n\n| Check | Severity |");
    for (const QString &subject : subjects)
        text += QLatin1Char(' ') + markdownCell(subject) + QStringLiteral(" |");
    text += QStringLiteral("\n|---|---|") + QStringLiteral("---|").repeated(subjects.size())
        + QLatin1Char('\n');
    for (const CheckInfo &info : allChecks()) {
        QString row = QStringLiteral("| ") + markdownCell(info.title) + QStringLiteral(" | ")
            + severityName(info.severity) + QStringLiteral(" |");
        bool any = false;
        for (const QString &subject : subjects) {
            const CheckResult *result = find(info.id, subject);
            any = any || result;
            row += QLatin1Char(' ') + (result ? verdictName(result->verdict) : QString())
                + QStringLiteral(" |");
        }
        if (any)
            text += row + QLatin1Char('\n');
    }

    text += QStringLiteral("\n## Details\n");
    for (const CheckResult &result : results) {
        const CheckInfo &info = checkInfo(result.check);
        text += QStringLiteral("\n### %1 — %2 — %3\n\n")
                    .arg(verdictName(result.verdict), info.title, result.subject());
        text += QStringLiteral("%1\n\n").arg(result.explanation);
        if (result.verdict == Verdict::Fail)
            text += QStringLiteral("**Severity %1.** What an attacker gains: %2%3\n\n")
                        .arg(severityName(info.severity), info.failMeaning,
                            info.documented ? QStringLiteral(
                                " (documented behaviour: the server's README declares it)")
                                            : QString());
        for (const Evidence &evidence : result.evidence) {
            text += QStringLiteral("- %1`%2`%3\n")
                        .arg(evidence.note.isEmpty() ? QString()
                                                     : evidence.note + QStringLiteral(": "),
                            evidence.request,
                            evidence.status > 0 ? QStringLiteral(" → HTTP %1").arg(evidence.status)
                                                : QString());
            if (!evidence.response.isEmpty())
                text += QLatin1Char('\n') + fencedBlock(evidence.response);
        }
    }
    return text;
}

QVector<ReportDifference> ProbeReport::compare(const ProbeReport &before, const ProbeReport &after)
{
    QStringList subjects = subjectsOf(before);
    for (const QString &subject : subjectsOf(after)) {
        if (!subjects.contains(subject))
            subjects << subject;
    }
    QVector<ReportDifference> differences;
    for (const CheckInfo &info : allChecks()) {
        for (const QString &subject : subjects) {
            const CheckResult *old = before.find(info.id, subject);
            const CheckResult *now = after.find(info.id, subject);
            if (!old && !now)
                continue;
            if (old && now && old->verdict == now->verdict)
                continue;
            ReportDifference difference;
            difference.check = info.id;
            difference.subject = subject;
            difference.inBefore = old != nullptr;
            difference.inAfter = now != nullptr;
            if (old)
                difference.before = old->verdict;
            if (now)
                difference.after = now->verdict;
            differences.append(difference);
        }
    }
    return differences;
}

QString ProbeReport::toHtml() const
{
    const auto e = [](const QString &text) {
        return text.toHtmlEscaped();
    };
    QString html = QStringLiteral(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Isolation probe: %1</title>"
        "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{border:1px solid #bbb;padding:2px 8px}.FAIL{background:#f8d0d0}"
        ".PASS{background:#d6f0d6}.ERROR{background:#f3e3b5}pre{background:#f4f4f4;"
        "padding:4px;white-space:pre-wrap}</style></head><body>\n<h1>Isolation probe: %1</h1>\n")
                       .arg(e(server));
    html += fleetLines(
        *this, [e](const QString &line) { return QStringLiteral("<p>%1</p>\n").arg(e(line)); });
    html += QStringLiteral("<h2>Scorecard</h2>\n<p>open-terminal %1. ")
                .arg(e(
                    serverVersion.isEmpty() ? QStringLiteral("(version unknown)") : serverVersion));
    if (const CheckResult *worst = worstFinding()) {
        const CheckInfo &info = checkInfo(worst->check);
        html += QStringLiteral("Worst finding: <b>%1</b> (%2, %3%4): %5")
                    .arg(e(info.key), e(worst->subject()), severityName(info.severity),
                        info.documented ? QStringLiteral(", documented behaviour") : QString(),
                        e(info.failMeaning));
    } else {
        html += QStringLiteral("No FAIL.");
    }
    html += QStringLiteral("</p>\n<table><tr><th>Category</th><th>PASS</th><th>FAIL</th>"
                           "<th>INFO</th><th>ERROR</th></tr>\n");
    for (const ScorecardRow &row : scorecard())
        html += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td></tr>\n")
                    .arg(e(row.category))
                    .arg(row.pass)
                    .arg(row.fail)
                    .arg(row.info)
                    .arg(row.error);
    html += QStringLiteral("</table>\n<p>%1 PASS, %2 FAIL, %3 INFO, %4 ERROR; users %5.</p>\n")
                .arg(count(Verdict::Pass))
                .arg(count(Verdict::Fail))
                .arg(count(Verdict::Info))
                .arg(count(Verdict::Error))
                .arg(e(users.join(QStringLiteral(", "))));

    const QStringList subjects = subjectsOf(*this);
    html += QStringLiteral("<h2>Matrix</h2>\n<table><tr><th>Check</th><th>Severity</th>");
    for (const QString &subject : subjects)
        html += QStringLiteral("<th>%1</th>").arg(e(subject));
    html += QStringLiteral("</tr>\n");
    for (const CheckInfo &info : allChecks()) {
        QString row;
        bool any = false;
        for (const QString &subject : subjects) {
            const CheckResult *result = find(info.id, subject);
            any = any || result;
            const QString verdict = result ? verdictName(result->verdict) : QString();
            row += QStringLiteral("<td class=\"%1\">%1</td>").arg(verdict);
        }
        if (any)
            html += QStringLiteral("<tr><td>%1</td><td>%2</td>%3</tr>\n")
                        .arg(e(info.title), severityName(info.severity), row);
    }
    html += QStringLiteral("</table>\n<h2>Details</h2>\n");
    for (const CheckResult &result : results) {
        const CheckInfo &info = checkInfo(result.check);
        html += QStringLiteral("<h3>%1 — %2 — %3</h3>\n<p>%4</p>\n")
                    .arg(verdictName(result.verdict), e(info.title), e(result.subject()),
                        e(result.explanation));
        if (result.verdict == Verdict::Fail)
            html
                += QStringLiteral("<p><b>Severity %1.</b> What an attacker gains: %2%3</p>\n")
                       .arg(severityName(info.severity), e(info.failMeaning),
                           info.documented ? QStringLiteral(" (documented behaviour)") : QString());
        for (const Evidence &evidence : result.evidence)
            html += QStringLiteral("<p>%1<code>%2</code>%3</p>\n<pre>%4</pre>\n")
                        .arg(e(evidence.note.isEmpty() ? QString()
                                                       : evidence.note + QStringLiteral(": ")),
                            e(evidence.request),
                            evidence.status > 0 ? QStringLiteral(" → HTTP %1").arg(evidence.status)
                                                : QString(),
                            e(evidence.response));
    }
    return html + QStringLiteral("</body></html>\n");
}

} // namespace sandscope
