#pragma once
// Finds out what a server is and what it does for a given user: version, features and
// paths from discovery, whether it runs in multi-user mode, and the account a user id gets
// (predicted under both naming rules and observed with `id -un`), plus the user's home.

#include "accountnames.h"
#include "apierror.h"
#include "connection.h"
#include "openterminalclient.h"
#include "types.h"

#include <QObject>

namespace sandscope {

struct ServerReport {
    QString url;
    ServerInfo info;
    bool keyAccepted = false;
    QString serverAccount;  // whoami without X-User-Id
    // Only when a user id was given:
    QString userId;
    QString predictedLegacyAccount; // 0.11.x rule
    QString predictedHashedAccount; // newer rule
    QString observedAccount;
    QString home;
    QString prefix;       // account prefix inferred from the observation, if any
    bool multiUser = false; // the user's account differs from the server's
    QString multiUserEvidence; // one sentence explaining how multiUser was decided
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
    OpenTerminalClient *m_client;
};

// Runs a short command to completion and returns its output text (used by the probe and
// the CLI); output is collected through ProcessStream.
} // namespace sandscope
