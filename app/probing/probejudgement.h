#pragma once
// The verdicts of the isolation probe as pure functions: recorded answers in, verdict and
// explanation out. Nothing here talks to a server, so every rule is unit-tested from
// recorded responses. The rules are strict: PASS needs a verified precondition (A really
// has the resource) and a clear denial; anything inconclusive is ERROR, never PASS.

#include "probereport/probereport.h"
#include "server/openterminalprotocol.h"

#include <QHash>
#include <QString>
#include <QStringList>
#include <QVector>

namespace sandscope::probe {

struct Judgement {
    Verdict verdict = Verdict::Error;
    QString explanation;
};

// Whether A's own view confirmed what a check needs (the marker file exists, the process
// runs). `why` says what was missing when it did not.
struct Precondition {
    bool met = false;
    QString why;
    static Precondition ok() { return {true, {}}; }
    static Precondition missing(const QString &why) { return {false, why}; }
    static Precondition expect(bool met, const QString &why) { return met ? ok() : missing(why); }
};

// Which part of a 2xx answer can carry A's data. Only that part is searched: the server
// echoes request values (a grep query, a process's command) that contain the marker too.
enum class Disclosure {
    Raw, // the whole body (e.g. a ZIP, whose file names are stored uncompressed)
    Listing, // /files/list entry names
    FileText, // /files/read content
    GrepMatches, // /files/grep matches (file and line)
    GlobMatches, // /files/glob match paths
    ProcessOutput, // /execute/{id}/status output chunks
};

// B asked for something of A's (list, read, grep, glob, archive, process output): FAIL when
// the relevant part of the answer carries `marker`, PASS on a denial (403, "Access denied",
// 404 for something A has) or a well-formed answer without A's data, ERROR otherwise
// (transport failure, 5xx, a body that does not parse, e.g. HTML from a proxy, other
// statuses).
Judgement judgeDisclosure(const protocol::HttpResponse &response, Disclosure kind,
    const QString &marker, const Precondition &precondition);

// What A saw after B's attempt to change A's resources.
enum class Effect {
    NotObserved, // A's resource is unchanged
    Observed, // B's change happened
    Unknown, // A could not check
};

// The entry names of a 2xx /files/list answer (none otherwise).
QStringList listedNames(const protocol::HttpResponse &response);
// Whether the answer is a listing at all.
bool listingOk(const protocol::HttpResponse &response);

// What A's listing after B's attempt shows: B's change happened when `name` is listed
// (`listedWhenChanged`) or no longer listed; Unknown when A got no listing.
Effect listingEffect(
    const protocol::HttpResponse &after, const QString &name, bool listedWhenChanged);

// B tried to change something of A's (write, move, delete, input, kill): FAIL when the
// change happened or the server reported success, PASS on a denial with the change not
// observed, ERROR otherwise.
Judgement judgeMutation(
    const protocol::HttpResponse &response, Effect effect, const Precondition &precondition);

// GET /execute as B: one judgement for "A's process is listed", one for "A's command line
// is visible".
struct ProcessListJudgement {
    Judgement listed;
    Judgement commandLine;
};
ProcessListJudgement judgeProcessList(const protocol::HttpResponse &response,
    const QString &processId, const QString &commandMarker, const Precondition &precondition);

// B sent A's X-Session-Id: FAIL when B sees A's session working directory (anything under
// `targetHome`) or A's process (`processId` in the list).
Judgement judgeSessionReuse(const protocol::HttpResponse &cwdResponse,
    const protocol::HttpResponse &listResponse, const QString &targetHome, const QString &processId,
    const Precondition &precondition);

// One section of a shell script run as B (see shellSection / parseShellSections).
struct ShellOutcome {
    bool ran = false; // the section's start and exit status were both seen
    int exitCode = -1;
    QString output; // stdout and stderr, lines joined with \n
};

// A shell fragment that prints a recognisable section around `command` (its output and
// exit status), so several probes travel in one command. `tag` is [a-z0-9-].
QString shellSection(const QString &tag, const QString &command);
QHash<QString, ShellOutcome> parseShellSections(const QStringList &lines);

enum class ShellAccess {
    Read, // FAIL when the output shows the marker
    Modify, // FAIL when the command succeeded (touch, rm)
};
// PASS needs "Permission denied" (or "Operation not permitted") and a non-zero status.
Judgement judgeShell(const ShellOutcome &outcome, ShellAccess access, const QString &marker,
    const Precondition &precondition);
// `ps` as B: FAIL when A's command marker is in the process table, PASS when ps ran and
// does not show it (e.g. /proc mounted with hidepid).
Judgement judgeProcessTable(
    const ShellOutcome &outcome, const QString &commandMarker, const Precondition &precondition);

// B's WebSocket to a terminal by its id: what happened to it.
struct TerminalAttempt {
    bool connected = false; // the handshake succeeded
    bool closedByServer = false; // the server closed it (not our timeout)
    int closeCode = 0;
    QString closeReason;
    QString error; // why the handshake or the connection failed, if it did
    QString output; // the PTY bytes B received, as text
    int waitedMs = 0;
};

// Whether the server refused the socket: the handshake failed, or it closed the socket with a
// policy code (1008) or one of its own (4000-4999).
bool terminalRefused(const TerminalAttempt &attempt);
// B typed into A's terminal a line that prints `tokenLine` followed by the account it runs
// as: FAIL when the output shows `tokenLine` + A's `account` (B read A's shell), PASS when the
// server refused the socket or B's line ran as another account, ERROR otherwise.
Judgement judgeTerminalRead(const TerminalAttempt &attempt, const QString &tokenLine,
    const QString &account, const Precondition &precondition);
// The same line also created a file in the home of whoever ran it: FAIL when it appeared in
// A's home (`effect`), PASS when the server refused the socket and A's home is unchanged.
Judgement judgeTerminalWrite(
    const TerminalAttempt &attempt, Effect effect, const Precondition &precondition);

// B read its own file while its shell swapped that file for a symlink to A's file and back
// (`responses`, in order): FAIL when an answer carries `marker`; PASS when at least one answer
// was a refusal (denied, or not found while B's file always exists) and none carried A's data;
// ERROR when every answer was B's own file (the race was not won: that proves nothing) or
// unusable. The explanation says how many attempts were made and what each kind of answer was.
Judgement judgeSwapRace(const QVector<protocol::HttpResponse> &responses, const QString &marker,
    const Precondition &precondition);

// Whether the answer is a refusal: denied (403, "Access denied", the kernel's refusal) or not
// found.
bool refused(const protocol::HttpResponse &response);

// A file as its owner's shell sees it: owner, mode and the start of its content.
struct FileState {
    bool known = false; // the owner's shell printed all of it
    QString owner;
    QString mode; // octal, as stat prints it ("600")
    QString content;
    bool operator==(const FileState &o) const
    {
        return known == o.known && owner == o.owner && mode == o.mode && content == o.content;
    }
    QString describe() const; // "owner alice, mode 600, content \"…\""
};
// The command that prints `path`'s state (run as its owner; content "(unreadable)" when the
// owner may no longer read it), and its parser.
QString fileStateCommand(const QString &path);
FileState parseFileState(const QStringList &lines);

// B wrote its own file while its shell swapped that file for a symlink to A's file and back
// (`responses`, in order); `before` and `after` are A's file as A's shell saw it before the
// first attempt and after the last (the first look that differed). FAIL when A's file changed
// (owner, mode or content: the write or the chown and chmod after it followed the link); PASS
// when it did not and at least one attempt was refused (denied, or not found); ERROR when A
// could not look, or every attempt was answered without a refusal and A's file is unchanged
// (the race was not won). The explanation names the attempts and what each kind of answer was.
Judgement judgeWriteSwapRace(const QVector<protocol::HttpResponse> &responses,
    const FileState &before, const FileState &after, const Precondition &precondition);

// Several judgements of one check (e.g. home and chat folder): FAIL if any FAILs, else ERROR
// if any is ERROR, else INFO if any is INFO, else PASS. Explanations are joined.
Judgement combine(const QVector<Judgement> &judgements);

// What a user id became on the server, as far as it could be observed.
struct AccountObservation {
    QString userId;
    int status = 0; // HTTP status of a refusal; 0 when the command ran or nothing answered
    QString error; // refusal or failure text; empty when the command ran
    QString account; // id -un
    int uid = -1; // id -u
    // The server still maps the id to `account`, which no longer exists ("sudo: unknown
    // user"): a probe removed it, and the server keeps its id-to-account cache until it
    // restarts (docs/server-behaviour.md).
    bool accountGone = false;
};

// Two distinct ids: FAIL when both ran as the same account, PASS when the accounts differ.
Judgement judgeAccountTwin(const AccountObservation &first, const AccountObservation &twin);

// A reserved id (root, the server's account, user): FAIL when it runs as root, a system
// account (uid < 1000) or the server's own account; PASS when the server refused it or gave
// it an ordinary account of its own. `ordinaryIdsWork`: a 500 only counts as a refusal when
// ordinary ids are served (newer servers raise on reserved accounts).
Judgement judgeReservedId(
    const AccountObservation &observation, const QString &serverAccount, bool ordinaryIdsWork);

// An id chosen to collide with `owner`'s (a look-alike, one with path characters, another
// user's account name): FAIL when it runs as root, a system account, the server's account
// (judgeReservedId) or `owner`'s account; PASS when it was refused or got an ordinary account
// of its own.
Judgement judgeAccountVariant(const AccountObservation &owner, const AccountObservation &variant,
    const QString &serverAccount, bool ordinaryIdsWork);

// B tried to connect to a port A listens on: always INFO (users share the network
// namespace by design), ERROR when the listener or B's attempt did not run.
Judgement judgeNetwork(
    const ShellOutcome &outcome, const QString &marker, const Precondition &precondition);

// Twin of `userId` under the 0.11.x rule (same first eight alphanumerics, different id).
QString twinUserId(const QString &userId, const QString &suffix);

// Parses "sandscope-account=…", "sandscope-uid=…", "sandscope-home=…" lines.
QString whoAmICommand();
AccountObservation parseWhoAmI(const QString &userId, const QStringList &lines);
QString homeFromWhoAmI(const QStringList &lines);

} // namespace sandscope::probe
