#pragma once
// Finds out what a server is and what it does for a given user: version, features and
// paths from discovery, whether it runs in multi-user mode, and the account a user id gets
// (predicted under both naming rules and observed with `id -un`), plus the user's home.

#include "server/accountnames.h"
#include "server/apierror.h"
#include "server/connection.h"
#include "server/openterminalclient.h"
#include "server/types.h"

#include <QDateTime>
#include <QObject>
#include <QStringList>

#include <functional>

namespace sandscope {

struct ServerReport {
    QString url;
    ServerInfo info;
    bool keyAccepted = false;
    QString serverAccount; // whoami without X-User-Id
    // Only when a user id was given:
    QString userId;
    QString predictedLegacyAccount; // 0.11.x rule
    QString predictedHashedAccount; // newer rule
    QString observedAccount;
    QString home;
    QString prefix; // account prefix inferred from the observation, if any
    bool multiUser = false; // the user's account differs from the server's
    bool multiUserKnown = false; // false: no user id given and the server did not tell
    QString multiUserEvidence; // one sentence explaining how multiUser was decided
    // Newer multi-user servers answer 400 to any request without X-User-Id; serverAccount
    // then stays empty.
    bool serverAccountRefused = false;
    bool ruleKnown = false;
    AccountRule rule = AccountRule::FirstEightAlnum;
};

class ServerProbe : public QObject {
    Q_OBJECT
public:
    explicit ServerProbe(OpenTerminalClient *client, QObject *parent = nullptr);
    // userId may be empty (server-level facts only). Emits finished or failed once.
    void run(const QString &userId);

Q_SIGNALS:
    void finished(const sandscope::ServerReport &report);
    void failed(const sandscope::ApiError &error);
    void progress(const QString &step);

private:
    void checkKey();
    void probeServerAccount();
    void probeUserAccount();
    void learnAccountRule();
    void succeed();
    void fail(const ApiError &error);

    OpenTerminalClient *m_client;
    ServerReport m_report;
    bool m_running = false;
};

struct CommandOutput {
    QStringList lines; // complete lines, CR stripped
    int exitCode = 0; // negative: killed by that signal
};

// Runs a short command to completion and returns its output text (used by the probe and
// the CLI); output is collected through ProcessStream. Fails with Kind::Timeout after
// timeoutMs. `done` runs once, unless `context` is destroyed first.
void runShortCommand(OpenTerminalClient *client, const Identity &identity, const QString &command,
    QObject *context, std::function<void(const Result<CommandOutput> &)> done,
    int timeoutMs = 60000);

// Reads a listing script's output (CR LF and noise lines tolerated): the text after
// `homeMarker` becomes *home, and every line "<recordMarker>\t…" with at least
// `minimumFields` tab-separated fields (the marker included) goes to `record`. False when
// there is no non-empty home line.
bool forEachListingRecord(const QString &output, const QString &homeMarker,
    const QString &recordMarker, int minimumFields, QString *home,
    const std::function<void(const QStringList &fields)> &record);
// "<seconds>[.fraction] <size>" as `stat -c '%.3Y %s'` prints it; time invalid when unreadable.
void parseTimeAndSize(const QString &field, QDateTime *modified, qint64 *size);

// Runs a script that lists something (runs, session transcripts) as `identity` and parses its
// output with `parse`. `done` gets ok=false and a message naming `what` when the command
// fails, exits non-zero or prints something `parse` rejects.
template <typename Listing>
void runListingScript(OpenTerminalClient *client, const Identity &identity, const QString &script,
    const QString &what, bool (*parse)(const QString &, Listing *), QObject *context,
    std::function<void(bool ok, const Listing &listing, const QString &error)> done)
{
    runShortCommand(client, identity, script, context,
        [what, parse, done](const Result<CommandOutput> &result) {
            Listing listing;
            if (!result.ok()) {
                done(false, listing, result.error.toString());
                return;
            }
            const QString output = result.value.lines.join(QLatin1Char('\n'));
            if (result.value.exitCode != 0 || !parse(output, &listing)) {
                done(false, listing,
                    QStringLiteral("listing %1 failed (exit status %2): %3")
                        .arg(what)
                        .arg(result.value.exitCode)
                        .arg(output.trimmed().left(500)));
                return;
            }
            done(true, listing, QString());
        });
}
} // namespace sandscope

Q_DECLARE_METATYPE(sandscope::ServerReport)
