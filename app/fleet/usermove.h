#pragma once
// Moves one user's home from one fleet member to another, after a resize sent the user to a
// member that does not hold their home (issue 29): a reviewed plan like the cleanup's. The
// dry run (plan()) changes nothing anywhere and says what would move; execute() then:
//   1. account    the user's account on the new member: the server creates it, as it does
//                 for Open WebUI, on a request as the user through that member's own URL
//   2. archive    the old home as a gzip'd tar, made as the user, copied here with its sha256
//   3. transfer   into a root-only staging folder beside the new member's homes, in pieces
//   4. unpack     checked against the sha256, unpacked as root into the staging folder, then
//                 all of it the new account's
//   5. merge      as the user: each entry moved into the new home; what the new home already
//                 has stays, and a differing entry of the old home goes to
//                 ~/.sandscope-moved-from-<member>-<time>/ instead: nothing of either is lost
//   6. verify     every entry of the old home (type, mode, size, sha256, link target) is in the
//                 new home or in that folder
//   7. remove     only then the old account and its home on the old member
// The report (JSON lines) says each step before it runs and how it ended. A step that fails
// ends the move: the old home is untouched until step 7, the staging folder is removed, and
// the report says which step failed and what is where. The root-side steps are
// app/fleet/fleetroot.py, run through each member's admin command; whatever reads or writes
// inside a home runs as its user.

#include "server/adminaccess.h"
#include "server/apierror.h"
#include "server/shortcommand.h"

#include <QFile>
#include <QHash>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QVector>

#include <functional>

namespace sandscope {

class OpenTerminalClient;

struct UserMoveSide {
    QString member; // its name in the fleet
    OpenTerminalClient *client = nullptr; // the member's own URL (not the router)
    AdminAccess admin;
};

// One entry of a home, as fleetroot.py's manifest says it (owners left out).
struct HomeEntry {
    QChar type; // f file, d folder, l link, o other
    QString mode; // octal
    qint64 size = 0;
    QString content; // a file's sha256, a link's target (base64); "-" otherwise
    QByteArray path; // relative to the home, raw bytes
    bool operator==(const HomeEntry &o) const
    {
        return type == o.type && mode == o.mode && size == o.size && content == o.content
            && path == o.path;
    }
};

struct UserMoveAccount {
    bool exists = false;
    QString name;
    int uid = -1;
    int gid = -1;
    QString home;
    bool homeExists = false;
    QString homeProblem; // e.g. "owned by uid 0": not moved
    int processes = 0; // running now
};

struct UserMovePlan {
    QString userId;
    UserMoveSide from;
    UserMoveSide to;
    UserMoveAccount fromAccount;
    UserMoveAccount toAccount; // may not exist yet: created by step 1
    QVector<HomeEntry> entries; // of the old home
    qint64 bytes = 0; // its files' sizes
    int files = 0;
    int conflicts = 0; // entries the new home has already, differing
    QStringList blockers; // why it cannot be executed now (empty: it can)
    QStringList warnings;
    bool ok() const { return blockers.isEmpty(); }
};

class UserMove : public QObject {
    Q_OBJECT
public:
    enum class Step { Plan, Account, Archive, Transfer, Unpack, Merge, Verify, Remove };
    Q_ENUM(Step)
    static QString stepName(Step step);

    // `fromAccount`: the user's account on the old member; `toAccountCandidates`: the names
    // the new member may give it, looked up without creating it. Empty: each member's
    // accounts that the user id explains (accountnames.h) and, for the old member, whose
    // home it holds.
    UserMove(UserMoveSide from, UserMoveSide to, QString userId, QString fromAccount = {},
        QStringList toAccountCandidates = {}, QObject *parent = nullptr);
    ~UserMove() override;

    void plan(); // then planned()
    // The plan again, then every step; the report (JSON lines, appended) is written before
    // each step runs. Then finished().
    void execute(const QString &reportPath);
    const UserMovePlan &currentPlan() const { return m_plan; }

    // For tests: called before each step; returning false makes the step fail there.
    void setFailureInjection(std::function<bool(Step)> fail) { m_inject = std::move(fail); }
    // The pieces the archive is sent in (base64 bytes per admin script).
    void setPieceBytes(int bytes) { m_pieceBytes = bytes; }

Q_SIGNALS:
    void planned(const sandscope::UserMovePlan &plan);
    void stepStarted(sandscope::UserMove::Step step, const QString &what);
    void stepEnded(sandscope::UserMove::Step step, bool ok, const QString &what);
    // ok: the home moved and the old one is gone. Otherwise `why` names the failed step, and
    // what is where.
    void finished(bool ok, const QString &why);

private:
    using Done = std::function<void(const Result<CommandOutput> &)>;
    void runPython(
        const UserMoveSide &side, const QStringList &arguments, int asUid, int asGid, Done done);
    void runShell(const UserMoveSide &side, const QString &script, Done done);
    void lookUpAccounts(std::function<void()> then);
    void findAccounts(std::function<void()> then);
    void inspectFrom(std::function<void()> then);
    void lookUpTo(int index, std::function<void()> then);
    void readManifests(std::function<void()> then);
    void finishPlan();

    void begin(Step step, const QString &what);
    bool injected(Step step);
    void fail(Step step, const QString &why);
    void report(const QJsonObject &entry);
    void stepAccount();
    void stepArchive();
    void stepTransfer(int from);
    void stepUnpack();
    void stepMerge();
    void stepVerify();
    void stepRemove();
    void unstage(std::function<void()> then);

    UserMovePlan m_plan;
    QString m_fromAccountName;
    QStringList m_toCandidates;
    QVector<HomeEntry> m_toEntries;
    bool m_executing = false;
    std::function<bool(Step)> m_inject;
    int m_pieceBytes = 4 << 20;
    QFile m_report;
    QString m_token;
    QByteArray m_archive; // base64 lines of the archive, as received
    QString m_archiveSha;
    qint64 m_archiveBytes = 0;
    QString m_stage; // the staging folder on the new member, once made
    QString m_aside; // the folder differing entries go to, inside the new home
    Step m_step = Step::Plan;
};

namespace usermove {
// fleetroot.py's manifest lines ("M type mode size content path64"); false on a line that is
// not one.
bool parseEntry(const QString &line, HomeEntry *entry);
// Entries of `moved` that are neither in `home` nor, with the same path, in `aside`.
QVector<HomeEntry> missingAfterMove(const QVector<HomeEntry> &moved, const QVector<HomeEntry> &home,
    const QVector<HomeEntry> &aside);
} // namespace usermove

} // namespace sandscope

Q_DECLARE_METATYPE(sandscope::UserMovePlan)
