#pragma once
// Runs sandbox/cleanup.sh (installed as /opt/cleanup.sh) as root in the sandbox, through the
// admin channel (AdminScript): open-terminal's own account (no X-User-Id; `sudo -n` when that
// account is not root), or the local admin command (docker compose exec, kubectl exec, ssh,
// sudo -n). A dry run streams its items as they are found; executing puts the reviewed plan,
// unchanged, in a temporary file (uploaded, or written by the script itself from its base64),
// runs the script with CLEANUP_DRY_RUN=false CLEANUP_PLAN=<file>, reports each item's outcome,
// removes the file. The audit log gets an entry naming the channel before the plan leaves
// (no entry, no execution) and one with the outcome when the script ends.
//
// open-terminal 0.14 and newer refuse requests without X-User-Id in multi-user mode: through
// the server account the runner then fails with a message that asks for an admin command.
//
// Which script runs is the settings' choice and is always reported (scriptRan): the sandbox's
// own (scriptPath; when it is missing the run fails with scriptMissing() and a message that
// offers the shipped copy), or the copy of sandbox/cleanup.sh this build ships as a resource
// (shippedScript()), which travels inside the admin script as base64 into a root-only
// temporary file, is checked against its SHA-256 and removed after the run.

#include "cleanup/cleanupplan.h"
#include "server/adminaccess.h"
#include "server/lineassembler.h"
#include "server/openterminalclient.h"

#include <QObject>
#include <QPointer>

namespace sandscope {

class AdminScript;

struct CleanupSettings {
    enum class Script { Sandbox, Shipped };
    int chatTtlDays = 30;
    int sessionTtlDays = 90;
    Script script = Script::Sandbox;
    QString scriptPath = QStringLiteral("/opt/cleanup.sh"); // the sandbox's script
    QString homeRoot; // empty: the script's default (/home)
};

// The script a run used, as the run reported it.
struct CleanupScriptRan {
    bool known = false;
    bool shipped = false;
    QString path; // the sandbox's script; empty for the shipped copy
    QString sha256;
    // "the sandbox's /opt/cleanup.sh (sha256 0123456789ab…)", "the copy of cleanup.sh
    // Sandscope 0.1.0 ships (sha256 …)"; the sandbox's own says when it is the shipped one.
    QString description() const;
};

class CleanupRunner : public QObject {
    Q_OBJECT
public:
    explicit CleanupRunner(OpenTerminalClient *client, QObject *parent = nullptr);
    ~CleanupRunner() override;

    void setSettings(const CleanupSettings &settings) { m_settings = settings; }
    void setAdminAccess(const AdminAccess &admin) { m_admin = admin; }
    const AdminAccess &adminAccess() const { return m_admin; }
    const CleanupSettings &settings() const { return m_settings; }
    // Names the profile and server in audit log entries.
    void setAuditContext(const QString &profile, const QString &server);

    void startDryRun();
    // Deletes the `delete` items of `reviewedPlan` that are unchanged since it was made. The
    // plan's lines are uploaded exactly as they are.
    void startExecute(const CleanupPlan &reviewedPlan);
    void cancel();
    bool isRunning() const { return m_running; }

    // What the script reported so far (items with outcomes when executing, and the summary).
    const CleanupPlan &result() const { return m_result; }
    // Output lines that are not JSON (the script's messages on stderr, sudo's complaints).
    const QStringList &messages() const { return m_messages; }

    // Which script the run used (known once the script started).
    const CleanupScriptRan &scriptRan() const { return m_scriptRan; }
    // The last run failed because the sandbox has no script at settings().scriptPath.
    bool scriptMissing() const { return m_scriptMissing; }

    // The shell command for a run; `planPath` empty = dry run.
    static QString command(const CleanupSettings &settings, const QString &planPath = {});
    // sandbox/cleanup.sh of this version, embedded in the core, and its SHA-256 (hex).
    static QByteArray shippedScript();
    static QString shippedScriptSha256();
    // Says that the sandbox has no script at `path` and offers the shipped copy.
    static QString scriptMissingMessage(const QString &path);
    // A message for people when the server refuses to run anything as its own account.
    static QString refusalMessage(const ApiError &error);

Q_SIGNALS:
    void itemReceived(const sandscope::CleanupItem &item);
    // The script started: which one (scriptRan()).
    void scriptIdentified();
    void messageReceived(const QString &line);
    // The script ran to its end; its exit status (0 done, 2 invalid settings or plan, 3 needs
    // root, 4 some planned item was skipped, refused or failed).
    void finished(int exitCode);
    void failed(const QString &message);

private:
    void run(const QString &command);
    void handleLine(const QString &line);
    void finish(int exitCode);
    void fail(const QString &message);
    bool audit(const QString &result); // false if the audit log cannot be written

    OpenTerminalClient *m_client;
    CleanupSettings m_settings;
    QString m_auditProfile;
    QString m_auditServer;
    AdminAccess m_admin;
    QPointer<AdminScript> m_script;
    CallHandle m_upload;
    LineAssembler m_lines;
    CleanupPlan m_result;
    QStringList m_messages;
    bool m_running = false;
    bool m_executing = false;
    QString m_auditTarget;
    CleanupScriptRan m_scriptRan;
    bool m_scriptMissing = false;
};

} // namespace sandscope
