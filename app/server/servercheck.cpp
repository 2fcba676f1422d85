#include "servercheck.h"

#include "server/lineassembler.h"
#include "server/processstream.h"
#include "server/shortcommand.h"

#include <QPointer>
#include <QTimer>

#include <memory>

namespace sandscope {

namespace {

// Markers keep the answer recognisable among anything else the account's shell or sudo
// might print (login banners, warnings).
const QString accountMarker = QStringLiteral("sandscope-account=");
const QString accountHomeMarker = QStringLiteral("sandscope-home=");
const QString setupMarker = QStringLiteral("sandscope-setup=");
const QString whoAmICommand = QStringLiteral(
    "printf 'sandscope-account=%s\\nsandscope-home=%s\\nsandscope-setup=%s\\n' \"$(id -un)\" "
    "\"$HOME\" \"$(if [ -d /var/run/secrets/kubernetes.io ]; then echo kubernetes; "
    "elif [ -f /.dockerenv ] || [ -f /run/.containerenv ]; then echo container; "
    "else echo host; fi)\"");

QString markedValue(const QStringList &lines, const QString &marker)
{
    for (const QString &line : lines) {
        const qsizetype at = line.indexOf(marker);
        if (at >= 0)
            return line.mid(at + marker.size()).trimmed();
    }
    return QString();
}

// Newer multi-user servers answer 400 "X-User-Id is required in multi-user mode" to requests
// that would run as the server's own account.
bool refusesServerAccount(const ApiError &error)
{
    return error.kind == ApiError::Kind::BadRequest
        && (error.detail.contains(QLatin1String("X-User-Id"))
            || error.message.contains(QLatin1String("X-User-Id")));
}

ApiError checkError(ApiError::Kind kind, const QString &message)
{
    ApiError error;
    error.kind = kind;
    error.message = message;
    return error;
}

} // namespace

ServerCheck::ServerCheck(OpenTerminalClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
{
}

void ServerCheck::run(const QString &userId)
{
    if (m_running)
        return;
    m_running = true;
    m_report = ServerReport();
    m_report.url = m_client->connection().baseUrl.adjusted(QUrl::RemoveUserInfo).toString();
    m_report.userId = userId;

    QString why;
    if (!userId.isEmpty() && !validateUserId(userId, &why)) {
        fail(checkError(ApiError::Kind::Validation,
            QStringLiteral("Invalid user id \"%1\": %2").arg(userId, why)));
        return;
    }

    Q_EMIT progress(tr("Reading the server version and features"));
    m_client->serverInfo(this, [this](const Result<ServerInfo> &result) {
        if (!result.ok()) {
            fail(result.error);
            return;
        }
        m_report.info = result.value;
        checkKey();
    });
}

void ServerCheck::checkKey()
{
    Q_EMIT progress(tr("Checking the API key"));
    m_client->cwd(Identity(), this, [this](const Result<CwdInfo> &result) {
        if (!result.ok() && !refusesServerAccount(result.error)) {
            fail(result.error);
            return;
        }
        // A refusal for the missing X-User-Id comes after the key check: the key is fine.
        m_report.keyAccepted = true;
        m_report.serverAccountRefused = !result.ok();
        if (m_report.serverAccountRefused) {
            m_report.multiUser = true;
            m_report.multiUserKnown = true;
            m_report.multiUserEvidence
                = tr("The server refuses requests without X-User-Id (\"%1\"): it runs in "
                     "multi-user mode.")
                      .arg(result.error.detail.isEmpty() ? result.error.message
                                                         : result.error.detail);
            checkUserAccount();
            return;
        }
        checkServerAccount();
    });
}

void ServerCheck::checkServerAccount()
{
    Q_EMIT progress(tr("Finding the server's own account"));
    runShortCommand(
        m_client, Identity(), whoAmICommand, this, [this](const Result<CommandOutput> &result) {
            if (!result.ok()) {
                fail(result.error);
                return;
            }
            m_report.serverAccount = markedValue(result.value.lines, accountMarker);
            m_report.setup = markedValue(result.value.lines, setupMarker);
            if (m_report.serverAccount.isEmpty()) {
                fail(checkError(ApiError::Kind::BadResponse,
                    tr("The server did not report its account name.")));
                return;
            }
            m_report.multiUserEvidence = tr("Not tested: give a user id to see whether the server "
                                            "switches accounts per user.");
            checkUserAccount();
        });
}

void ServerCheck::checkUserAccount()
{
    if (m_report.userId.isEmpty()) {
        succeed();
        return;
    }
    Q_EMIT progress(tr("Finding the account of user id \"%1\"").arg(m_report.userId));
    Identity identity;
    identity.userId = m_report.userId;
    runShortCommand(
        m_client, identity, whoAmICommand, this, [this](const Result<CommandOutput> &result) {
            if (!result.ok()) {
                fail(result.error);
                return;
            }
            m_report.observedAccount = markedValue(result.value.lines, accountMarker);
            m_report.home = markedValue(result.value.lines, accountHomeMarker);
            m_report.setup = markedValue(result.value.lines, setupMarker);
            if (m_report.observedAccount.isEmpty()) {
                fail(checkError(ApiError::Kind::BadResponse,
                    tr("The server did not report the account of user id \"%1\".")
                        .arg(m_report.userId)));
                return;
            }
            learnAccountRule();
            succeed();
        });
}

void ServerCheck::learnAccountRule()
{
    ServerReport &r = m_report;
    r.predictedLegacyAccount = predictAccountName(r.userId, AccountRule::FirstEightAlnum);
    r.predictedHashedAccount = predictAccountName(r.userId, AccountRule::SlugWithHash);
    if (!r.serverAccountRefused) {
        r.multiUserKnown = true;
        r.multiUser = r.observedAccount != r.serverAccount;
        if (r.multiUser) {
            r.multiUserEvidence
                = tr("With X-User-Id \"%1\" commands ran as \"%2\", without it as \"%3\": "
                     "the server switches accounts per user (multi-user mode).")
                      .arg(r.userId, r.observedAccount, r.serverAccount);
        } else {
            r.multiUserEvidence
                = tr("With X-User-Id \"%1\" commands still ran as the server's own account "
                     "\"%2\": the server ignores the user id (single-user mode).")
                      .arg(r.userId, r.serverAccount);
            return;
        }
    }
    // The prefix (OPEN_TERMINAL_USER_PREFIX) is not published: learn it with the rule.
    r.ruleKnown = explainAccountName(r.userId, r.observedAccount, QString(), &r.rule, &r.prefix);
    if (r.ruleKnown) { // predictions that also know the server's prefix
        r.predictedLegacyAccount
            = predictAccountName(r.userId, AccountRule::FirstEightAlnum, r.prefix);
        r.predictedHashedAccount
            = predictAccountName(r.userId, AccountRule::SlugWithHash, r.prefix);
    }
}

void ServerCheck::succeed()
{
    m_running = false;
    Q_EMIT finished(m_report);
}

void ServerCheck::fail(const ApiError &error)
{
    m_running = false;
    Q_EMIT failed(error);
}

} // namespace sandscope
