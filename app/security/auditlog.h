#pragma once
// Local audit log of privileged and mutating actions (acting as another user, writes,
// kills, ...): one JSON object per line in the app's data directory (override with
// SANDSCOPE_AUDIT_LOG). Never contains the API key; credentials in targets and results
// (command lines, messages) are masked by CredentialRedactor.

#include <QString>

namespace sandscope {

struct AuditEntry {
    QString profile;
    QString server; // URL without credentials
    QString userId; // acting X-User-Id, empty = server account
    QString action; // e.g. "switch-user", "exec", "kill", "write"
    QString target; // path, command (redacted), process id
    QString result; // "ok" or the error message
};

class AuditLog {
public:
    static QString defaultPath();
    explicit AuditLog(const QString &path = defaultPath());
    bool append(const AuditEntry &entry); // adds the timestamp; false if the file can't be written
    QString path() const { return m_path; }

private:
    QString m_path;
};

} // namespace sandscope
