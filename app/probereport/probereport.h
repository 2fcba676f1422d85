#pragma once
// Value types of the isolation probe: which checks exist (with their severity and what a
// FAIL means for a deployment), one check's result with the raw evidence behind it, and
// the whole report with JSON/Markdown export and a comparison of two reports.

#include <QDateTime>
#include <QJsonObject>
#include <QMap>
#include <QMetaType>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QVector>

namespace sandscope {

enum class CheckId {
    // Files through the API, B acting on A's home
    FilesList,
    FilesRead,
    FilesWrite,
    FilesMove,
    FilesDelete,
    FilesGrep,
    FilesGlob,
    FilesArchive,
    // Files through the API by way of a symlink B made in its own home (followed as root)
    FilesReadSymlink,
    FilesListSymlink,
    FilesArchiveSymlink,
    FilesViewSymlink, // the raw download (GET /files/view)
    FilesGrepSymlink,
    FilesGlobSymlink,
    FilesWriteSymlink,
    FilesUploadSymlink, // multipart upload onto a link to A's file and into a link to A's folder
    FilesCreateSymlink,
    FilesMoveSymlink,
    FilesDeleteSymlink,
    FilesReadSwap, // B's own file swapped for a link to A's file while the API reads it
    FilesWriteSwap, // ...while the API writes it and then chowns and chmods the path
    FilesHardlink, // B hard-links A's file into its own home (then the API would follow it)
    FilesReadRoot, // server-wide: a root-only file the probe creates (admin channel), by path
    FilesReadRootSymlink, // the same file through a symlink
    // Files through B's shell, on A's home and A's chat folder
    ShellRead,
    ShellList,
    ShellWrite,
    ShellDelete,
    // Processes
    ProcessList,
    ProcessCommandLine,
    ProcessShellList, // ps in B's shell
    ProcessOutput,
    ProcessLog, // A's process log file read through B's shell
    ProcessInput,
    ProcessKill,
    ProcessEnvironApi, // /proc/<pid>/environ of A's process through the file API
    ProcessEnvironShell, // the same through B's shell
    ProcessCwdApi, // A's file through /proc/<pid>/cwd of A's process (file API)
    ProcessCwdShell, // the same through B's shell
    ProcessCmdlineApi, // /proc/<pid>/cmdline of A's process (file API)
    ProcessCmdlineShell, // the same through B's shell
    ServerEnvironApi, // server-wide: the server process's environment through the file API
    // Sessions and terminals
    SessionReuse,
    TerminalLookup, // B asks for A's terminal by its id
    TerminalRead, // B attaches to A's terminal over the WebSocket and reads its output
    TerminalWrite, // B's keystrokes on that socket run in A's shell
    // Account mapping (server-wide)
    AccountTwin,
    AccountCase, // the first id in upper case
    ReservedIds,
    AccountLookalike, // the first id with look-alike letters (Cyrillic, fullwidth)
    AccountPath, // ids with path characters
    AccountName, // the second user's Linux account name as an id
    MissingUserId,
    // Places all users share
    SharedTmp, // B reads what A's shell leaves in /tmp and /dev/shm (default umask)
    // Network (informational)
    NetworkPort,
    // On a fleet, B on another member than A's
    MemberNetwork, // B connects to a port A listens on (all interfaces) at A's member
    MemberApi, // B's shell reaches A's member's API, with the key users can read on B's member
};

enum class Severity { Info, Low, Medium, High, Critical };

// Pass: the check ran and B was denied. Fail: B reached A's resource. Info: an observation
// that is neither. Error: the check could not run or its answer is not conclusive; never
// counted as Pass.
enum class Verdict { Pass, Fail, Info, Error };

struct CheckInfo {
    CheckId id;
    QString key; // stable, used in JSON ("files.read")
    QString title;
    Severity severity;
    QString failMeaning; // what a FAIL means for a deployment
    bool serverWide; // one result for the server rather than one per user pair
    // The server's own documentation declares this shared between users (one process list,
    // one network stack, one temp directory; see docs/server-behaviour.md). Still run and
    // counted; reports mark it.
    bool documented = false;
    // Runs only on a fleet, for A and B on different members (FleetCrossMemberChecks); one
    // server's probe never runs it.
    bool acrossMembers = false;
    QString category() const { return key.section(QLatin1Char('.'), 0, 0); } // "files"
};

// Every check in the order the probe runs and shows them.
const QVector<CheckInfo> &allChecks();
const CheckInfo &checkInfo(CheckId id);
bool checkFromKey(const QString &key, CheckId *id);

QString verdictName(Verdict verdict); // "PASS", "FAIL", "INFO", "ERROR"
bool verdictFromName(const QString &name, Verdict *verdict);
QString severityName(Severity severity); // "info" ... "critical"
bool severityFromName(const QString &name, Severity *severity);

// One request (or command) and what came back. The API key is never part of it: requests
// are recorded without headers other than X-User-Id / X-Session-Id, and every text passes
// through SecretRedactor before it is stored.
struct Evidence {
    QString request; // e.g. "GET /files/read?path=/home/a/m.txt  (X-User-Id: bob)"
    int status = 0; // HTTP status; 0 = no HTTP answer (transport failure, command output)
    QString response; // excerpt of the body or command output
    QString note; // what this step was for ("precondition: A reads its own marker")

    bool operator==(const Evidence &o) const
    {
        return request == o.request && status == o.status && response == o.response
            && note == o.note;
    }
};

struct CheckResult {
    CheckId check = CheckId::FilesList;
    QString actor; // the user id acting (B); empty for server-wide checks
    QString target; // the user id whose resources are probed (A)
    Verdict verdict = Verdict::Error;
    QString explanation; // one or two sentences for people
    QVector<Evidence> evidence;
    // On a fleet: the member the check ran on (both users of a pair live there); empty for
    // one server.
    QString member;

    // The matrix column: "A→B" for a pair, "server" for server-wide checks ("server on M" on
    // a fleet's member M).
    QString subject() const;
    bool operator==(const CheckResult &o) const
    {
        return check == o.check && actor == o.actor && target == o.target && verdict == o.verdict
            && explanation == o.explanation && evidence == o.evidence && member == o.member;
    }
};

QString pairSubject(const QString &target, const QString &actor); // "A → B"
QString serverSubject(); // "server"
QString memberServerSubject(const QString &member); // "server on M", or "server" without M
bool isServerSubject(const QString &subject); // "server" or "server on M"
// Ordered (target A, actor B) pairs of distinct users, in matrix column order.
QVector<QPair<QString, QString>> userPairs(const QStringList &users);
// The matrix columns for these users: every pair, then "server".
QStringList matrixSubjects(const QStringList &users);
// On a fleet (users -> member): only the pairs living on one member (the others are not
// probed against each other), then "server on M" for each member.
QStringList matrixSubjects(const QStringList &users, const QMap<QString, QString> &userMembers);

struct ReportDifference {
    CheckId check;
    QString subject;
    bool inBefore = false;
    bool inAfter = false;
    Verdict before = Verdict::Error;
    Verdict after = Verdict::Error;
    QString describe() const; // "process.list A→B: FAIL → PASS"
    // "fixed" (a FAIL that no longer fails), "introduced" (a FAIL that did not fail before, or
    // was not run), else "changed".
    QString change() const;
};

// One line of a report's scorecard: a category of checks and its verdicts.
struct ScorecardRow {
    QString category; // the first part of the check keys: "files", "process", ...
    int pass = 0;
    int fail = 0;
    int info = 0;
    int error = 0;
    Severity worstFail = Severity::Info; // of its FAILs, when it has any
};

struct ProbeReport {
    QString server; // URL without credentials
    QString serverVersion;
    QStringList users;
    QDateTime startedAt;
    QDateTime finishedAt;
    bool cancelled = false;
    QVector<CheckResult> results;
    // On a fleet: the member each user lives on (users -> member), and what of the users was
    // not probed, and why (a user alone on its member has no one there to probe against).
    QMap<QString, QString> userMembers;
    QStringList notProbed;
    // What the probe made and could not remove (a fresh id's account), one line each. It does
    // not change what the results prove, so not the exit status either; it is always shown.
    QStringList leftBehind;

    int count(Verdict verdict) const;
    // "a, b" on one server; on a fleet "a, b on member-a; c on member-b".
    QString usersByMember() const;
    // 1 when anything FAILs (a proven gap outweighs checks that could not run), else 2 when
    // anything is ERROR or something was not probed (the clean result is not proven), else 0.
    int exitCode() const;
    const CheckResult *find(CheckId check, const QString &subject) const;
    // Per category, categories with a FAIL first (the most severe first), then in check order.
    QVector<ScorecardRow> scorecard() const;
    // The FAIL to read first: not documented behaviour before documented, then the most
    // severe, then the first in check order; null without FAILs.
    const CheckResult *worstFinding() const;

    QJsonObject toJson() const;
    // False (with a reason) on a document that is not a probe report.
    static bool fromJson(const QJsonObject &json, ProbeReport *report, QString *error = nullptr);
    QString toMarkdown() const;
    // One self-contained page (no scripts, nothing loaded), every text escaped.
    QString toHtml() const;

    // Cells whose verdict changed, appeared or disappeared, in the order of allChecks().
    static QVector<ReportDifference> compare(const ProbeReport &before, const ProbeReport &after);
};

} // namespace sandscope

Q_DECLARE_METATYPE(sandscope::CheckResult)
Q_DECLARE_METATYPE(sandscope::ProbeReport)
