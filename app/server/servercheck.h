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
    // Where the server runs, seen from its commands: "kubernetes" (a service account is
    // mounted), "container" (/.dockerenv or /run/.containerenv), "host", or empty (unknown).
    QString setup;
    bool ruleKnown = false;
    AccountRule rule = AccountRule::FirstEightAlnum;
};

class ServerCheck : public QObject {
    Q_OBJECT
public:
    explicit ServerCheck(OpenTerminalClient *client, QObject *parent = nullptr);
    // userId may be empty (server-level facts only). Emits finished or failed once.
    void run(const QString &userId);

Q_SIGNALS:
    void finished(const sandscope::ServerReport &report);
    void failed(const sandscope::ApiError &error);
    void progress(const QString &step);

private:
    void checkKey();
    void checkServerAccount();
    void checkUserAccount();
    void learnAccountRule();
    void succeed();
    void fail(const ApiError &error);

    OpenTerminalClient *m_client;
    ServerReport m_report;
    bool m_running = false;
};

} // namespace sandscope

Q_DECLARE_METATYPE(sandscope::ServerReport)
