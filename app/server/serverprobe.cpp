#include "serverprobe.h"

#include "server/lineassembler.h"
#include "server/processstream.h"

#include <QPointer>
#include <QTimer>

#include <memory>

namespace sandscope {

namespace {

// Markers keep the answer recognisable among anything else the account's shell or sudo
// might print (login banners, warnings).
const QString accountMarker = QStringLiteral("sandscope-account=");
const QString homeMarker = QStringLiteral("sandscope-home=");
const QString whoAmICommand = QStringLiteral(
    "printf 'sandscope-account=%s\\nsandscope-home=%s\\n' \"$(id -un)\" \"$HOME\"");

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

ApiError probeError(ApiError::Kind kind, const QString &message)
{
    ApiError error;
    error.kind = kind;
    error.message = message;
    return error;
}

} // namespace

bool forEachListingRecord(const QString &output, const QString &homeMarker,
    const QString &recordMarker, int minimumFields, QString *home,
    const std::function<void(const QStringList &fields)> &record)
{
    home->clear();
    const QString recordPrefix = recordMarker + QLatin1Char('\t');
    const QStringList lines = output.split(QLatin1Char('\n'));
    for (QString line : lines) {
        if (line.endsWith(QLatin1Char('\r')))
            line.chop(1);
        if (line.startsWith(homeMarker)) {
            *home = line.mid(homeMarker.size());
        } else if (line.startsWith(recordPrefix)) {
            const QStringList fields = line.split(QLatin1Char('\t'));
            if (fields.size() >= minimumFields)
                record(fields);
        }
    }
    return !home->isEmpty();
}

void parseTimeAndSize(const QString &field, QDateTime *modified, qint64 *size)
{
    // Milliseconds: a resume and a fork within one second must still order correctly.
    const QStringList numbers = field.split(QLatin1Char(' '));
    bool timeOk = false;
    const double seconds = numbers.value(0).toDouble(&timeOk);
    *modified = timeOk ? QDateTime::fromMSecsSinceEpoch(qint64(seconds * 1000.0 + 0.5), Qt::UTC)
                       : QDateTime();
    *size = numbers.value(1).toLongLong();
}

void runShortCommand(OpenTerminalClient *client, const Identity &identity, const QString &command,
    QObject *context, std::function<void(const Result<CommandOutput> &)> done, int timeoutMs)
{
    auto *stream = new ProcessStream(client, identity, context);
    stream->useShortCommandCadence();
    auto *timer = new QTimer(stream);
    timer->setSingleShot(true);
    auto assembler = std::make_shared<LineAssembler>();
    auto lines = std::make_shared<QStringList>();
    // Delivers exactly once, then lets the stream go (it may be inside its own signal).
    auto deliver = [stream, done](const Result<CommandOutput> &result) {
        QObject::disconnect(stream, nullptr, nullptr, nullptr);
        stream->detach();
        stream->deleteLater();
        done(result);
    };
    QObject::connect(stream, &ProcessStream::output, stream,
        [assembler, lines](const QString &text) { lines->append(assembler->feed(text)); });
    QObject::connect(stream, &ProcessStream::finished, stream,
        [assembler, lines, deliver](int exitCode, ProcessStatus) {
            QString rest = assembler->flush();
            if (rest.endsWith(QLatin1Char('\r')))
                rest.chop(1);
            if (!rest.isEmpty())
                lines->append(rest);
            CommandOutput output;
            output.lines = *lines;
            output.exitCode = exitCode;
            deliver(Result<CommandOutput>::success(output));
        });
    QObject::connect(stream, &ProcessStream::failed, stream,
        [deliver](const ApiError &error) { deliver(Result<CommandOutput>::failure(error)); });
    QObject::connect(timer, &QTimer::timeout, stream, [stream, command, timeoutMs, deliver] {
        stream->kill();
        deliver(Result<CommandOutput>::failure(probeError(ApiError::Kind::Timeout,
            QStringLiteral("\"%1\" did not finish within %2 s")
                .arg(command)
                .arg(timeoutMs / 1000))));
    });
    timer->start(timeoutMs);
    stream->start(command);
}

ServerProbe::ServerProbe(OpenTerminalClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
{
}

void ServerProbe::run(const QString &userId)
{
    if (m_running)
        return;
    m_running = true;
    m_report = ServerReport();
    m_report.url = m_client->connection().baseUrl.adjusted(QUrl::RemoveUserInfo).toString();
    m_report.userId = userId;

    QString why;
    if (!userId.isEmpty() && !validateUserId(userId, &why)) {
        fail(probeError(ApiError::Kind::Validation,
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

void ServerProbe::checkKey()
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
            probeUserAccount();
            return;
        }
        probeServerAccount();
    });
}

void ServerProbe::probeServerAccount()
{
    Q_EMIT progress(tr("Finding the server's own account"));
    runShortCommand(
        m_client, Identity(), whoAmICommand, this, [this](const Result<CommandOutput> &result) {
            if (!result.ok()) {
                fail(result.error);
                return;
            }
            m_report.serverAccount = markedValue(result.value.lines, accountMarker);
            if (m_report.serverAccount.isEmpty()) {
                fail(probeError(ApiError::Kind::BadResponse,
                    tr("The server did not report its account name.")));
                return;
            }
            m_report.multiUserEvidence = tr("Not tested: give a user id to see whether the server "
                                            "switches accounts per user.");
            probeUserAccount();
        });
}

void ServerProbe::probeUserAccount()
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
            m_report.home = markedValue(result.value.lines, homeMarker);
            if (m_report.observedAccount.isEmpty()) {
                fail(probeError(ApiError::Kind::BadResponse,
                    tr("The server did not report the account of user id \"%1\".")
                        .arg(m_report.userId)));
                return;
            }
            learnAccountRule();
            succeed();
        });
}

void ServerProbe::learnAccountRule()
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

void ServerProbe::succeed()
{
    m_running = false;
    Q_EMIT finished(m_report);
}

void ServerProbe::fail(const ApiError &error)
{
    m_running = false;
    Q_EMIT failed(error);
}

} // namespace sandscope
