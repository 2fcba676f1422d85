#pragma once
// Which Claude Code session belongs to which chat, so a chat can be resumed or forked later:
// SessionStore, a JSON file per machine (shared by the GUI and the CLI), keyed by profile (or
// server URL when there is no profile) and user id, then by chat. Several processes may write
// it at once: every change is a locked read-modify-write with an atomic replace. The sessions
// found on the server are sessiondiscovery's.

#include <QDateTime>
#include <QString>
#include <QVector>

namespace sandscope {

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

} // namespace sandscope
