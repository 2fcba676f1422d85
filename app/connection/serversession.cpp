#include "serversession.h"

#include "connection/memberlookup.h"
#include "fleet/fleetfanout.h"
#include "server/apierror.h"
#include "server/openterminalclient.h"

#include <QUuid>

namespace sandscope {

ServerSession::ServerSession(const QString &settingsPath, QObject *parent)
    : QObject(parent)
    , m_profiles(settingsPath)
    , m_client(new OpenTerminalClient(ServerConnection {}, this))
    , m_adminAccess(AdminAccess::serverAccount())
{
}

ServerSession::~ServerSession() = default;

bool ServerSession::openLastProfile()
{
    const QString last = m_profiles.lastUsed();
    if (last.isEmpty() || !m_profiles.contains(last))
        return false;
    openProfile(m_profiles.profile(last));
    Q_EMIT notice(
        tr("Opened the profile used last, %1. File › Connect… chooses another.").arg(last),
        Notice::Information);
    return true;
}

void ServerSession::openProfile(const Profile &profile, const QString &apiKey)
{
    if (!profile.name.isEmpty() && m_profiles.contains(profile.name))
        m_profiles.setLastUsed(profile.name);
    QString why;
    FleetConfig fleet;
    QUrl serverUrl = profile.serverUrl;
    if (profile.isFleet()) {
        // Read now, not remembered from when the profile was saved: the file is the truth.
        if (!FleetConfig::load(profile.fleetFile, &fleet, &why)) {
            Q_EMIT notice(tr("Cannot connect to the fleet of %1: %2").arg(profile.fleetFile, why),
                Notice::Error);
            return;
        }
        serverUrl = fleet.router;
    }
    if (!validateServerUrl(serverUrl.toString(), &why)) {
        Q_EMIT notice(tr("Cannot connect: %1").arg(why), Notice::Error);
        return;
    }
    if (!profile.defaultUserId.isEmpty() && !validateUserId(profile.defaultUserId, &why)) {
        Q_EMIT notice(
            tr("Cannot act as \"%1\": %2").arg(profile.defaultUserId, why), Notice::Error);
        return;
    }
    ServerConnection connection;
    connection.baseUrl = serverUrl;
    connection.timeoutMs = profile.timeoutMs;
    if (!apiKey.isEmpty() || profile.name.isEmpty()) {
        connection.apiKey = apiKey;
        connectTo(connection, profile.defaultUserId, profile.name, profile.adminCommand, fleet,
            profile.fleetFile);
        return;
    }
    Q_EMIT busyChanged(true, tr("Reading the stored API key…"));
    QPointer<ServerSession> self(this);
    m_keys.readKey(profile.name,
        [self, profile, connection, fleet](
            const QString &key, KeyStorage, const QString &error) mutable {
            if (!self)
                return;
            Q_EMIT self->busyChanged(false, {});
            if (key.isEmpty() && !error.isEmpty())
                Q_EMIT self->notice(
                    tr("The stored API key could not be read: %1").arg(error), Notice::Warning);
            connection.apiKey = key;
            self->connectTo(connection, profile.defaultUserId, profile.name, profile.adminCommand,
                fleet, profile.fleetFile);
        });
}

void ServerSession::connectToServer(const ServerConnection &connection, const QString &userId,
    const QString &profileName, const QString &unsavedAdminCommand)
{
    const Profile saved = profileName.isEmpty() ? Profile {} : m_profiles.profile(profileName);
    connectTo(connection, userId, profileName,
        profileName.isEmpty() ? unsavedAdminCommand : saved.adminCommand, FleetConfig {}, {});
}

void ServerSession::connectTo(const ServerConnection &connection, const QString &userId,
    const QString &profileName, const QString &adminCommand, const FleetConfig &fleet,
    const QString &fleetFile)
{
    Q_EMIT connectionChanging();
    m_fleet = fleet;
    m_fleetFile = fleetFile;
    m_client->setConnection(connection);
    m_profileName = profileName;
    m_connected = false;
    m_report = ServerReport {};
    m_report.url = connection.baseUrl.toString(QUrl::RemoveUserInfo | QUrl::StripTrailingSlash);
    m_knownMode.clear();
    m_knownModeEvidence.clear();
    m_serverAccountRefused = false;
    m_accountRuleKnown = false;
    m_ownUserId = userId;
    AdminAccess admin;
    if (adminCommand.trimmed().isEmpty() || !AdminAccess::fromCommand(adminCommand, &admin))
        admin = AdminAccess::serverAccount();
    m_adminAccess = admin;
    Q_EMIT connectionReset();
    Q_EMIT adminAccessChanged();
    setIdentity(userId);
    check();
}

FleetFanOut *ServerSession::createFanOut(QObject *parent) const
{
    if (isFleet())
        return new FleetFanOut(m_fleet, m_client->connection(), parent);
    return new FleetFanOut(m_client, m_adminAccess, parent);
}

void ServerSession::switchUser(const QString &userId)
{
    if (userId == m_identity.userId)
        return;
    QString why;
    if (!userId.isEmpty() && !validateUserId(userId, &why)) {
        Q_EMIT notice(tr("Cannot act as \"%1\": %2").arg(userId, why), Notice::Error);
        return;
    }
    setIdentity(userId);
    if (m_connected)
        check();
}

void ServerSession::setAdminAccess(const AdminAccess &admin)
{
    m_adminAccess = admin;
    Q_EMIT adminAccessChanged();
}

void ServerSession::setIdentity(const QString &userId)
{
    delete m_memberLookup; // about the previous user
    setActingMember(isFleet() ? MemberState::Finding : MemberState::NoFleet, {}, {});
    // A fresh session per identity: X-Session-Id must never carry over between users.
    m_identity = Identity {userId, QUuid::createUuid().toString(QUuid::WithoutBraces)};
    Q_EMIT identityChanged();
    // After the pages followed, so that a log that cannot be written is the message shown.
    audit(QStringLiteral("switch-user"),
        userId.isEmpty() ? QStringLiteral("(server account)") : userId, QStringLiteral("ok"));
}

QString ServerSession::actingAccount() const
{
    return m_identity.isServerAccount() ? m_report.serverAccount : m_report.observedAccount;
}

void ServerSession::check()
{
    finishCheck();
    m_check = new ServerCheck(m_client, this);
    connect(m_check, &ServerCheck::progress, this,
        [this](const QString &step) { Q_EMIT busyChanged(true, step); });
    connect(m_check, &ServerCheck::finished, this, &ServerSession::applyReport);
    connect(m_check, &ServerCheck::failed, this, &ServerSession::checkFailed);
    Q_EMIT busyChanged(true, tr("Connecting to %1…").arg(m_report.url));
    m_check->run(m_identity.userId);
}

void ServerSession::finishCheck()
{
    if (!m_check)
        return;
    m_check->disconnect(this);
    m_check->deleteLater();
    m_check = nullptr;
}

void ServerSession::applyReport(const ServerReport &report)
{
    finishCheck();
    Q_EMIT busyChanged(false, {});
    m_report = report;
    m_connected = true;
    if (report.serverAccountRefused)
        m_serverAccountRefused = true; // a fact about this server, whoever is acted as now
    if (report.ruleKnown) {
        m_accountRuleKnown = true;
        m_accountRule = report.rule;
    }
    if (!report.userId.isEmpty()) {
        m_knownMode = report.multiUser ? tr("multi-user") : tr("single-user");
        m_knownModeEvidence = report.multiUserEvidence;
    } else if (m_serverAccountRefused) {
        m_knownMode = tr("multi-user");
        m_knownModeEvidence = tr("The server refuses requests without a user id, which only "
                                 "multi-user servers do.");
    }
    if (!report.keyAccepted)
        Q_EMIT notice(tr("The server did not accept the API key; commands and files will be "
                         "refused."),
            Notice::Warning);
    Q_EMIT checked(true);
    findActingMember();
}

void ServerSession::findActingMember()
{
    delete m_memberLookup;
    if (!isFleet())
        return;
    if (m_identity.isServerAccount()) {
        setActingMember(MemberState::NotKnown, {},
            tr("The server account is no user: the router sends requests without a user id to "
               "whichever member it picks for them."));
        return;
    }
    setActingMember(MemberState::Finding, {}, {});
    m_memberLookup = new MemberLookup(createFanOut(nullptr), this);
    connect(m_memberLookup, &MemberLookup::found, this, [this](const QString &member) {
        if (m_memberState == MemberState::Finding)
            setActingMember(MemberState::Known, {member},
                tr("Still asking the other members whether they hold a home too."));
    });
    connect(m_memberLookup, &MemberLookup::finished, this,
        [this, lookup = m_memberLookup.data()](const MemberLookupResult &result) {
            m_memberLookup.clear(); // done: a slot of actingMemberChanged may start another
            lookup->deleteLater();
            QString note;
            if (result.members.size() > 1)
                note = tr("Homes on %1: the router sends the user to the first; fleet move "
                          "settles it.")
                           .arg(result.members.join(tr(" and ")));
            if (!result.errors.isEmpty())
                note += (note.isEmpty() ? QString() : QStringLiteral("\n"))
                    + tr("Not every member answered:\n%1")
                          .arg(result.errors.join(QLatin1Char('\n')));
            if (result.members.isEmpty())
                setActingMember(MemberState::NotKnown, {}, result.reason);
            else
                setActingMember(MemberState::Known, result.members, note);
        });
    m_memberLookup->start(actingAccount(), m_identity.userId);
}

void ServerSession::setActingMember(
    MemberState state, const QStringList &members, const QString &note)
{
    if (state == m_memberState && members == m_actingMembers && note == m_actingMemberNote)
        return;
    m_memberState = state;
    m_actingMembers = members;
    m_actingMemberNote = note;
    Q_EMIT actingMemberChanged();
}

void ServerSession::checkFailed(const ApiError &error)
{
    finishCheck();
    Q_EMIT busyChanged(false, {});
    if (m_connected) {
        // The server still answers; only learning about this user failed.
        Q_EMIT notice(
            tr("Could not check the account of %1: %2")
                .arg(m_identity.isServerAccount() ? tr("the server account") : m_identity.userId,
                    error.toString()),
            Notice::Error);
    } else {
        Q_EMIT notice(
            tr("Could not connect to %1: %2").arg(m_report.url, error.toString()), Notice::Error);
    }
    Q_EMIT checked(false);
    if (isFleet() && m_memberState == MemberState::Finding)
        setActingMember(MemberState::NotKnown, {},
            tr("The check of the acting user failed: %1").arg(error.toString()));
}

void ServerSession::audit(const QString &action, const QString &target, const QString &result)
{
    AuditEntry entry;
    entry.profile = m_profileName;
    entry.server = m_report.url;
    entry.userId = m_identity.userId;
    entry.action = action;
    entry.target = target;
    entry.result = result;
    if (!m_auditLog.append(entry))
        Q_EMIT notice(
            tr("The audit log %1 cannot be written.").arg(m_auditLog.path()), Notice::Warning);
}

} // namespace sandscope
