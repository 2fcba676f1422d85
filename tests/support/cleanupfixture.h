#pragma once
// The set-up the cleanup tests share (integration/tst_cleanup: the runner, the model and the
// `cleanup` verb; ui/tst_cleanuppage: the page): a REAL multi-user open-terminal, two test
// users "alice…" and "bob…" with their homes under this server's account prefix, the audit log
// in a temporary folder, and shell helpers that age chats and sessions (touch -d as each user)
// and look at what is left. A test class derives from it next to QObject.
//
// Root in the sandbox comes through one of the two admin channels, chosen by
// SANDSCOPE_CLEANUP_CHANNEL: "server-account" (the default: open-terminal 0.11.34, which runs
// requests without X-User-Id as its own account, root here) or "admin-command" (the pinned
// newer open-terminal, which refuses that, and the admin command `sudo -n`: this machine is
// the sandbox host).

#include "realserver.h"
#include "server/adminaccess.h"
#include "server/connection.h"
#include "server/openterminalclient.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <memory>

namespace sandscope::test {

class CleanupFixture {
protected:
    // The repository's sandbox/cleanup.sh.
    static QString scriptPath();

    // Points SANDSCOPE_AUDIT_LOG at m_auditPath, starts the server and finds the homes of
    // m_alice and m_bob. False, with `error`, when the server does not start or a home is not
    // one of this server's test accounts.
    bool startServer(QString *error);
    void stopServer();

    // Output lines of `command` run as `who` (an empty identity: as root, through m_admin);
    // empty (with a warning) when it could not run.
    QStringList shell(const Identity &who, const QString &command);
    bool usesAdminCommand() const { return m_admin.isLocalCommand(); }
    bool exists(const QString &path);
    QString homeOf(const Identity &who);
    // A chat folder `name` in the home of `who`, its files and folders `days` old.
    void makeChat(const Identity &who, const QString &name, int days);
    // Claude Code sessions of `who`: `agedId` (transcript and session folder with a subagent
    // transcript) `days` old, `freshId` (transcript only) new.
    void makeSessions(const Identity &who, const QString &agedId, int days, const QString &freshId);
    // The audit log's entries so far.
    QList<QJsonObject> auditLines() const;

    std::unique_ptr<RealServer> m_server;
    std::unique_ptr<OpenTerminalClient> m_client;
    QTemporaryDir m_local;
    QString m_auditPath;
    AdminAccess m_admin; // how the tests and the runner reach root
    Identity m_alice;
    Identity m_bob;
    QString m_aliceHome;
    QString m_bobHome;
};

} // namespace sandscope::test
