#pragma once
// Starts REAL servers for integration tests: a pinned open-terminal release (single- or
// multi-user, on a free loopback port with a random key) and our scripted Anthropic model
// server for the claude CLI. Both are stopped and cleaned up by their destructors.

#include "server/connection.h"

#include <QHash>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QUrl>

#include <memory>

namespace sandscope::test {

class RealServer {
public:
    enum class Mode { SingleUser, MultiUser };

    RealServer(QString version, Mode mode);
    ~RealServer();
    RealServer(const RealServer &) = delete;
    RealServer &operator=(const RealServer &) = delete;

    // Multi-user mode, before start(): replaces the random account prefix. An empty prefix
    // is the server's default, under which ids such as "root" name existing accounts; the
    // accounts such a server creates are NOT removed afterwards, so use only ids that map
    // onto existing accounts with it.
    void setAccountPrefix(const QString &prefix) { m_prefix = prefix; }
    // Before start(): the server runs as `program arguments… <open-terminal> run …`, e.g. in a
    // mount namespace of its own (`unshare -m …`). The wrapper must exec the server in place
    // (same process id), so that stop() reaches it.
    void setLaunchWrapper(const QStringList &wrapper) { m_wrapper = wrapper; }
    // Before start(): the API key instead of a random one (a fleet's members share one).
    void setApiKey(const QString &key) { m_apiKey = key; }
    // Starts the server and waits until GET /health answers (at most 30 s). On failure
    // `error` gets the reason including the server log.
    bool start(QString *error);
    // start() for several servers at once: every one is launched before any is waited for,
    // so their start-ups (a Python interpreter importing the server, each) overlap instead of
    // adding up. On failure `error` names the server and every server is stopped.
    static bool startAll(const QList<RealServer *> &servers, QString *error);
    // SIGTERM (then SIGKILL) and ends whatever the server left running.
    void stop();
    // stop() for several servers at once: each gets its SIGTERM before any is waited for, so
    // their shutdowns (1 to 2 s each, measured on both pinned versions) overlap.
    static void stopAll(const QList<RealServer *> &servers);
    // Same port and key; the server's in-memory process records are lost, but commands it
    // started keep running, as they do when a real server restarts.
    bool restart(QString *error = nullptr);
    bool isRunning() const;
    qint64 processId() const; // 0 when not running

    QString version() const { return m_version; }
    Mode mode() const { return m_mode; }
    QUrl url() const;
    QString apiKey() const { return m_apiKey; }
    // Account prefix in multi-user mode ("sstabcd_"), empty in single-user mode.
    QString prefix() const { return m_prefix; }
    // Working directory of the server: the single-user home.
    QString homeDirectory() const { return m_home.path(); }
    QString logDirectory() const { return m_logs.path(); }
    // Captured stdout/stderr of every run so far, with the API key redacted.
    QString serverLog() const;
    ServerConnection connection() const;

    // A value from sandbox/versions.env, e.g. pinnedVersion("OPEN_TERMINAL_VERSION").
    static QString pinnedVersion(const char *key);
    // Both pinned open-terminal versions, the newest first.
    static QStringList pinnedVersions();
    // ${SANDSCOPE_CACHE:-$HOME/.cache/sandscope}/ot-<version>/bin/open-terminal
    static QString executable(const QString &version);
    // Multi-user mode needs root (accounts are created) and sudo (commands run through it).
    static bool canRunMultiUser(QString *why = nullptr);
    // Removes (as root) every account and group whose name starts with prefix, with what they
    // left in the shared temp places; the server account leaves their groups first.
    static void removeAccountsWithPrefix(const QString &prefix);

private:
    bool prepareStart(QString *error);
    void stopServerOnly();
    bool launch(QString *error);
    bool waitForHealth(QString *error);
    void endLeftoverProcesses();
    void removeAccounts();

    QString m_version;
    Mode m_mode;
    QString m_apiKey;
    QString m_prefix;
    QStringList m_wrapper;
    quint16 m_port = 0;
    QTemporaryDir m_home;
    QTemporaryDir m_logs; // OPEN_TERMINAL_LOG_DIR
    QTemporaryDir m_config; // XDG_CONFIG_HOME, so no config.toml of the machine applies
    QString m_outputFile;
    std::unique_ptr<QProcess> m_process;
};

// tests/model_server/scripted_model_server.py: a stdlib-only Anthropic Messages API whose
// answers are scripted by the prompt ("CMD: ...", "WRITE: ...", "THINK", ...).
class ScriptedModelServer {
public:
    // extraArguments e.g. {"--fail-status", "529"} or {"--break-stream"}.
    explicit ScriptedModelServer(QStringList extraArguments = {});
    ~ScriptedModelServer();
    ScriptedModelServer(const ScriptedModelServer &) = delete;
    ScriptedModelServer &operator=(const ScriptedModelServer &) = delete;

    // Waits (at most 15 s) for "LISTENING <port>".
    bool start(QString *error);
    void stop();
    QUrl url() const;
    // One JSON object per line for each request the server received.
    QString requestLog() const;
    QString serverLog() const; // stderr of the server

    // The agent environment that points the claude CLI at a model server: its URL, the key
    // to send, no telemetry or auto-update, and few retries (so API errors end runs quickly).
    static QHash<QString, QString> agentEnvironment(const QUrl &url, const QString &apiKey);
    QHash<QString, QString> agentEnvironment(const QString &apiKey) const
    {
        return agentEnvironment(url(), apiKey);
    }

private:
    QStringList m_arguments;
    QTemporaryDir m_dir;
    quint16 m_port = 0;
    std::unique_ptr<QProcess> m_process;
};

// For a _data() function of a test that must hold on both pinned versions: a "version" column
// with a row per pinned version, named after it.
void addVersionRows();

// Random text of [a-z0-9], e.g. for tokens and user id suffixes.
QString randomToken(int length, bool lettersOnly = false);

// For suites that run the real claude CLI: the pinned multi-user server and a scripted model
// server. Returns false with `error` when one of them failed to start. When the machine cannot
// run them (no root, sudo, useradd or claude) both stay null and it returns true: every test
// then reports the requirement itself (SANDSCOPE_REQUIRE), which fails in CI.
bool startAgentSandbox(std::unique_ptr<RealServer> *server,
    std::unique_ptr<ScriptedModelServer> *model, QString *error,
    const QStringList &modelArguments = {});

// Keeps the session store and the audit log in `directory` and puts QStandardPaths in test
// mode, so a suite never touches the user's own files.
void isolateLocalState(const QString &directory);

} // namespace sandscope::test
