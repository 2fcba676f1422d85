#pragma once
// Where to connect and as whom.

#include <QString>
#include <QUrl>

namespace sandscope {

struct ServerConnection {
    QUrl baseUrl; // e.g. http://127.0.0.1:8000 (a path prefix behind a proxy is kept)
    QString apiKey; // never logged, never shown
    int timeoutMs = 30000; // per HTTP transfer; long-poll waits are added on top
};

// The acting identity. An empty userId means "the server's own account" (no X-User-Id
// header), which is privileged in multi-user mode. sessionId becomes X-Session-Id and must
// stay constant for everything concerning one process.
struct Identity {
    QString userId;
    QString sessionId;

    bool isServerAccount() const { return userId.isEmpty(); }
    bool operator==(const Identity &o) const
    {
        return userId == o.userId && sessionId == o.sessionId;
    }
};

// Validates a user id before it can reach X-User-Id. Rejects empty ids, control characters,
// whitespace, ids longer than 128 characters, and names of privileged accounts that the
// 0.11.x naming rule maps onto existing accounts (root, user, ...). `why` gets the reason.
bool validateUserId(const QString &userId, QString *why = nullptr);

// Validates a server URL typed by a person: http(s), a host, no credentials (the API key has
// its own field and the keyring), no query or fragment. `why` gets the reason.
bool validateServerUrl(const QString &text, QString *why = nullptr);

} // namespace sandscope
