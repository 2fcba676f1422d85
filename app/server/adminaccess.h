#pragma once
// How admin scripts (the cleanup, the all-users overview and session list) reach root inside
// the sandbox. open-terminal 0.11.x runs commands as its own account when a request has no
// X-User-Id; 0.14 and newer refuse that in multi-user mode. The other way is the one the
// sandbox documents for its cleanup: a local command that opens a root shell in it, such as
//   docker compose -f sandbox/docker-compose.yml --env-file sandbox/versions.env
//       --env-file sandbox/.env exec -T -u root sandbox        (one line)
//   docker exec -i -u root CONTAINER
//   kubectl exec -i POD -c CONTAINER --
//   ssh HOST sudo -n
//   sudo -n                                  (Sandscope runs on the sandbox host)
// Sandscope appends `sh -s` and writes the script to its standard input. The prefix is split
// into words the way a shell would split it, but never run through a shell.

#include <QString>
#include <QStringList>
#include <QUrl>

namespace sandscope {

struct AdminAccess {
    enum class Channel {
        ServerAccount, // open-terminal without X-User-Id
        LocalCommand, // the prefix, run here
    };
    Channel channel = Channel::ServerAccount;
    QStringList prefix; // LocalCommand: program and its arguments

    static AdminAccess serverAccount() { return {}; }
    // False with a reason for an empty or malformed prefix (unbalanced quotes, a trailing
    // backslash, NUL).
    static bool fromCommand(const QString &text, AdminAccess *access, QString *error = nullptr);
    // Shell-like word splitting: blanks separate words; '…' keeps everything; "…" keeps all
    // but \" \\ \$ \`; a backslash outside quotes escapes the next character. No expansion.
    static bool splitWords(const QString &text, QStringList *words, QString *error = nullptr);

    bool isLocalCommand() const { return channel == Channel::LocalCommand; }
    // The complete local argv: the prefix, then `sh -s`.
    QStringList argv() const;
    // The argv as one line a person can paste into a shell (each word quoted when needed).
    QString commandLine() const;
    // For the UI and messages: which way an admin action goes.
    QString describe() const;

    // The admin command to suggest for a server at `serverUrl` that runs on `setup`
    // (ServerReport::setup: "kubernetes", "container", "host" or empty when unknown). A
    // server on this machine (a loopback URL) is reached with sudo, in a container or not.
    static QString suggestedCommand(const QUrl &serverUrl, const QString &setup);
    // One sentence for an all-users view (`view`, e.g. "Usage of all users") on a server that
    // refuses its own account: what to do, with the suggested command.
    static QString refusalAdvice(const QString &view, const QUrl &serverUrl, const QString &setup);

    bool operator==(const AdminAccess &other) const
    {
        return channel == other.channel && prefix == other.prefix;
    }
};

} // namespace sandscope
