#pragma once
// Which Claude Code session belongs to which chat, so a chat can be resumed or forked later.
//
// Locally: SessionStore, a JSON file per machine (shared by the GUI and the CLI), keyed by
// profile (or server URL when there is no profile) and user id, then by chat. Several
// processes may write it at once: every change is a locked read-modify-write with an atomic
// replace.
//
// On the server: the CLI keeps its transcripts in ~/.claude/projects/<escaped cwd>/<session>.jsonl
// (docs/stream-json.md, "Transcripts on disk"). sessiondiscovery lists them for the chat working
// directories (~/chat-<chat>) with one command, and sessiondiscovery::discover runs it as a
// user. A chat's directory is located with the CLI's escaping rule; because that rule maps
// chats such as "a_b" and "a-b" onto the same directory, each transcript's recorded cwd
// decides which chat it belongs to.

#include "server/connection.h"

#include <QDateTime>
#include <QObject>
#include <QString>
#include <QVector>

#include <functional>

namespace sandscope {

class OpenTerminalClient;
struct ApiError;

// Whose sessions: a profile's (when profile is set) or a server's, as one user id.
struct SessionScope {
    QString profile;
    QString server; // URL without credentials; identifies the scope when profile is empty
    QString userId;
};

struct SessionRecord {
    QString chatId;
    QString sessionId;
    QDateTime lastActivity; // UTC
    QString runId; // the run that last used the session, if known
    QString forkedFrom; // the session this one was forked from, if any
};

class SessionStore {
public:
    // SANDSCOPE_SESSION_STORE, else <generic data location>/sandscope/sessions.json.
    static QString defaultPath();
    // At most this many sessions are kept per chat (the most recently active ones).
    static constexpr int maxSessionsPerChat = 50;

    explicit SessionStore(const QString &path = defaultPath());
    QString path() const { return m_path; }

    // Adds the session or, when the chat already has it, updates its activity, run id and
    // origin. Returns false with a reason when the file cannot be read or written.
    bool record(const SessionScope &scope, const SessionRecord &session, QString *error = nullptr);
    // The chat's sessions, most recently active first (all chats when chatId is empty).
    QVector<SessionRecord> sessions(const SessionScope &scope, const QString &chatId = {}) const;
    // The chat's most recently active session; an empty record when there is none.
    SessionRecord latest(const SessionScope &scope, const QString &chatId) const;

private:
    QString m_path;
};

// One transcript file found on the server.
struct DiscoveredSession {
    QString chatId; // empty when its cwd is not a chat directory
    QString sessionId; // the file name without .jsonl
    QString cwd; // the first cwd recorded in the file; empty when none was found
    QString path; // absolute path of the transcript
    QString projectDirectory; // name of its directory under ~/.claude/projects
    QDateTime lastActivity; // modification time, UTC
    qint64 size = 0;
};

namespace sessiondiscovery {

// The CLI's directory name for a working directory: every UTF-16 code unit outside
// [A-Za-z0-9] becomes '-'; a name longer than 200 characters is cut to 200 and gets '-' and
// the base-36 absolute value of the Java string hash of the original path appended.
QString projectDirectoryName(const QString &cwd);

// The working directory RunLauncher gives a chat: <home>/chat-<chat>.
QString chatWorkDirectory(const QString &home, const QString &chatId);

// One POSIX sh command that prints SANDSCOPE-HOME=<home> and, per transcript under
// ~/.claude/projects/*/, one tab-separated SANDSCOPE-TRANSCRIPT line with its modification
// time, size, path and the first "cwd" field found in it.
QString script();

struct Listing {
    QString home;
    QVector<DiscoveredSession> transcripts; // every transcript found, chatId still empty
};
// Parses the script's terminal output (CR LF and noise lines are tolerated). False when the
// output lacks the home line.
bool parse(const QString &output, Listing *listing);

// The transcripts of one chat (its directory by the escaping rule, and its cwd when the file
// records one), or of every chat when chatId is empty; most recently active first, with
// chatId filled in.
QVector<DiscoveredSession> chatSessions(const Listing &listing, const QString &chatId = {});

using Callback = std::function<void(bool ok, const Listing &listing, const QString &error)>;
// Runs script() as `identity`; `done` runs once, never from inside discover(), and not at all
// when `context` is destroyed first.
void discover(
    OpenTerminalClient *client, const Identity &identity, QObject *context, Callback done);

} // namespace sessiondiscovery

} // namespace sandscope
