#pragma once
// Who Sandscope is connected to and acting as: the one OpenTerminalClient, the profile it was
// opened from, the acting identity (a fresh X-Session-Id for every identity), what checking the
// server taught, how admin scripts reach root, and the audit log every identity change and
// cross-user read goes to. A profile may name a fleet (fleet/fleetconfig.h): per-user actions
// then go through its router with the one client, and all-users views fan out to its members
// (createFanOut). The main window shows it and its pages follow it; it holds no
// widget, so the use case "open a profile, act as a user" is the same wherever it is shown.

#include "fleet/fleetconfig.h"
#include "security/auditlog.h"
#include "security/profilestore.h"
#include "server/accountnames.h"
#include "server/adminaccess.h"
#include "server/connection.h"
#include "server/servercheck.h"

#include <QObject>
#include <QPointer>

namespace sandscope {

class FleetFanOut;
class MemberLookup;
class OpenTerminalClient;
struct ApiError;

class ServerSession : public QObject {
    Q_OBJECT
public:
    enum class Notice { Information, Warning, Error };
    Q_ENUM(Notice)

    // settingsPath selects the profile store (tests pass a temporary file); the audit log
    // follows AuditLog::defaultPath() (SANDSCOPE_AUDIT_LOG overrides it).
    explicit ServerSession(const QString &settingsPath = {}, QObject *parent = nullptr);
    ~ServerSession() override;

    // Connects with this profile. An empty apiKey means: use the key stored for the profile.
    // A fleet profile connects to its router; a fleet file that cannot be loaded is a notice
    // and no connection.
    void openProfile(const Profile &profile, const QString &apiKey = {});
    // Connects with the profile used last; false when there is none.
    bool openLastProfile();
    // A saved profile's admin command is its own; without a profile, `adminCommand` (e.g. the
    // window's --admin-command) is used.
    void connectToServer(const ServerConnection &connection, const QString &userId,
        const QString &profileName = {}, const QString &adminCommand = {});
    // Changes the acting user (empty = the server account); always audited.
    void switchUser(const QString &userId);
    void setAdminAccess(const AdminAccess &admin);
    // Appends to the audit log as the acting identity; a log that cannot be written is said.
    void audit(const QString &action, const QString &target, const QString &result);

    OpenTerminalClient *client() const { return m_client; }
    bool isConnected() const { return m_connected; }
    bool isChecking() const { return !m_check.isNull(); }
    const ServerReport &report() const { return m_report; }
    // The server as shown to people: its URL without credentials; empty before a connection.
    QString serverUrl() const { return m_report.url; }
    Identity identity() const { return m_identity; }
    QString profileName() const { return m_profileName; }
    // The user the profile connects as; any other identity browses files read-only at first.
    QString ownUserId() const { return m_ownUserId; }
    bool actingAsSelf() const { return m_identity.userId == m_ownUserId; }
    // The account the acting identity runs as, as the last check observed it (may be empty).
    QString actingAccount() const;
    const AdminAccess &adminAccess() const { return m_adminAccess; }
    // The fleet the connection's profile named (its router is serverUrl()); empty otherwise.
    bool isFleet() const { return !m_fleet.members.isEmpty(); }
    const FleetConfig &fleet() const { return m_fleet; }
    QString fleetFile() const { return m_fleetFile; }
    // Where an all-users job runs, owned by `parent`: every member of the fleet (their URLs,
    // the connection's key and timeout, their admin commands), or this server alone with
    // client() and adminAccess().
    FleetFanOut *createFanOut(QObject *parent) const;
    // With a fleet: the member holding the acting user's home, looked up on every member after
    // each check (MemberLookup), in the background.
    enum class MemberState { NoFleet, Finding, Known, NotKnown };
    Q_ENUM(MemberState)
    MemberState actingMemberState() const { return m_memberState; }
    // Known: the member (two after a resize, the router's first); NotKnown: none.
    QStringList actingMembers() const { return m_actingMembers; }
    // NotKnown: why; Known: what else was learnt (another home, members that failed).
    QString actingMemberNote() const { return m_actingMemberNote; }
    // Learned from the checks of this server, whoever was acted as at the time.
    bool serverAccountRefused() const { return m_serverAccountRefused; }
    bool accountRuleKnown() const { return m_accountRuleKnown; }
    AccountRule accountRule() const { return m_accountRule; }
    // "multi-user" or "single-user" once known, with one sentence saying how it was learnt;
    // kept while acting as the server account, which cannot tell.
    QString knownMode() const { return m_knownMode; }
    QString knownModeEvidence() const { return m_knownModeEvidence; }

    ProfileStore *profiles() { return &m_profiles; }
    KeyStore *keys() { return &m_keys; }
    AuditLog *auditLog() { return &m_auditLog; }

Q_SIGNALS:
    // A new connection is about to replace the current one (work on the old one can detach).
    void connectionChanging();
    // The connection, profile and admin access are new and not checked yet.
    void connectionReset();
    // The acting identity changed (and was audited).
    void identityChanged();
    void adminAccessChanged();
    // actingMemberState() and what goes with it changed.
    void actingMemberChanged();
    // Work in progress (reading a key, checking the server), or none.
    void busyChanged(bool busy, const QString &step);
    // After every server check: report() holds what was learnt when ok.
    void checked(bool ok);
    void notice(const QString &text, sandscope::ServerSession::Notice level);

private:
    void connectTo(const ServerConnection &connection, const QString &userId,
        const QString &profileName, const QString &adminCommand, const FleetConfig &fleet,
        const QString &fleetFile);
    void setIdentity(const QString &userId);
    void check();
    void applyReport(const ServerReport &report);
    void checkFailed(const ApiError &error);
    void finishCheck();
    void findActingMember();
    void setActingMember(MemberState state, const QStringList &members, const QString &note);

    ProfileStore m_profiles;
    KeyStore m_keys;
    AuditLog m_auditLog;
    OpenTerminalClient *m_client;
    QPointer<ServerCheck> m_check;
    ServerReport m_report;
    QString m_profileName;
    Identity m_identity;
    bool m_connected = false;
    QString m_knownMode;
    QString m_knownModeEvidence;
    AdminAccess m_adminAccess;
    bool m_serverAccountRefused = false;
    bool m_accountRuleKnown = false;
    AccountRule m_accountRule = AccountRule::FirstEightAlnum;
    QString m_ownUserId;
    FleetConfig m_fleet;
    QString m_fleetFile;
    QPointer<MemberLookup> m_memberLookup;
    MemberState m_memberState = MemberState::NoFleet;
    QStringList m_actingMembers;
    QString m_actingMemberNote;
};

} // namespace sandscope
