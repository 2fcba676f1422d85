#include "terminalsession.h"

#include "server/openterminalclient.h"
#include "server/openterminalprotocol.h"
#include "server/shortcommand.h"
#include "util/shellquote.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkRequest>
#include <QUuid>
#include <QWebSocket>

namespace sandscope {

namespace {

// How long output that may be the start of the key is held before it is shown anyway.
constexpr int holdMs = 30;
// Quiet time after the shell's first output before the window size is sent again.
constexpr int settleMs = 150;
// Size changes closer together than this become one `stty` on the inner PTY.
constexpr int innerResizeMs = 100;

QString encodedSegment(const QString &text)
{
    return QString::fromLatin1(QUrl::toPercentEncoding(text));
}

QString closeCodeText(int code)
{
    switch (code) {
    case 1000:
        return QStringLiteral("normal closure");
    case 1001:
        return QStringLiteral("the server is going away");
    case 1006:
        return QStringLiteral("the connection broke without a close frame");
    case 1011:
        return QStringLiteral("internal server error");
    case 1012:
        return QStringLiteral("the server is restarting");
    default:
        return QStringLiteral("close code %1").arg(code);
    }
}

} // namespace

TerminalSession::TerminalSession(
    OpenTerminalClient *client, const Identity &identity, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_identity(identity)
{
    // A fresh session id per terminal (0.11.34 makes it the terminal's id; 0.14.5 requires the
    // same one on the socket), never the caller's.
    m_identity.sessionId = QStringLiteral("sandscope-terminal-")
        + QUuid::createUuid().toString(QUuid::WithoutBraces);
    if (client)
        m_secret = client->connection().apiKey.toUtf8();
    m_holdTimer.setSingleShot(true);
    m_holdTimer.setInterval(holdMs);
    connect(&m_holdTimer, &QTimer::timeout, this, [this] { flushOutput(true); });
    connect(&m_livenessTimer, &QTimer::timeout, this, &TerminalSession::checkAlive);
    m_settleTimer.setSingleShot(true);
    m_settleTimer.setInterval(settleMs);
    connect(&m_settleTimer, &QTimer::timeout, this, [this] {
        if (m_state != State::Open || m_sizeSettled)
            return;
        m_sizeSettled = true;
        resizeInnerTerminal();
    });
    m_innerResizeTimer.setSingleShot(true);
    m_innerResizeTimer.setInterval(innerResizeMs);
    connect(&m_innerResizeTimer, &QTimer::timeout, this, &TerminalSession::resizeInnerTerminal);
}

TerminalSession::~TerminalSession()
{
    if (isActive())
        close();
}

void TerminalSession::setInitialSize(int columns, int rows)
{
    if (columns > 0 && rows > 0) {
        m_columns = columns;
        m_rows = rows;
    }
}

QString TerminalSession::serverText() const
{
    return m_client
        ? m_client->connection().baseUrl.toString(QUrl::RemoveUserInfo | QUrl::StripTrailingSlash)
        : QString();
}

qint64 TerminalSession::openMilliseconds() const
{
    return m_openedAt.isValid() ? m_openedAt.elapsed() : 0;
}

ApiError TerminalSession::makeError(ApiError::Kind kind, const QString &message) const
{
    ApiError error;
    error.kind = kind;
    error.message = message;
    error.url = serverText();
    return error;
}

void TerminalSession::setState(State state)
{
    if (m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

void TerminalSession::start()
{
    if (m_state != State::Idle)
        return;
    if (!m_client) {
        finishFailed(makeError(ApiError::Kind::Network, tr("Not connected to a server")), false);
        return;
    }
    setState(State::Creating);
    if (m_workingDirectory.isEmpty()) {
        createTerminal();
        return;
    }
    // The terminal starts in its session's working directory.
    m_client->setCwd(m_identity, m_workingDirectory, this, [this](const Result<CwdInfo> &result) {
        if (m_state != State::Creating)
            return;
        if (!result.ok()) {
            ApiError error = result.error;
            error.message = tr("Cannot start the terminal in %1: %2")
                                .arg(m_workingDirectory, result.error.message);
            finishFailed(error, false);
            return;
        }
        createTerminal();
    });
}

void TerminalSession::createTerminal()
{
    protocol::RequestSpec spec;
    spec.method = "POST";
    spec.path = QStringLiteral("/api/terminals");
    spec.idempotent = false;
    m_client->send(m_identity, spec, this, [this](const protocol::HttpResponse &response) {
        if (m_state != State::Creating)
            return;
        if (response.networkError == QNetworkReply::NoError && response.status >= 200
            && response.status < 300) {
            const QJsonObject answer = QJsonDocument::fromJson(response.body).object();
            m_terminalId = answer.value(QLatin1String("id")).toString();
            m_pid = answer.value(QLatin1String("pid")).toVariant().toLongLong();
            if (m_terminalId.isEmpty()) {
                finishFailed(makeError(ApiError::Kind::BadResponse,
                                 tr("Unexpected answer from the server: POST /api/terminals "
                                    "named no terminal id")),
                    false);
                return;
            }
            openSocket();
            return;
        }
        ApiError error = protocol::errorFromResponse(response);
        if (response.status == 404 || response.status == 405) {
            error.message = tr("Interactive terminals are not supported by this server version "
                               "(POST /api/terminals answered %1; they need open-terminal 0.7 "
                               "or newer with OPEN_TERMINAL_ENABLE_TERMINAL on)")
                                .arg(response.status);
        } else if (response.networkError == QNetworkReply::NoError) {
            error.message = tr("The server refused to open a terminal: %1")
                                .arg(error.detail.isEmpty() ? error.message : error.detail);
        }
        finishFailed(error, false);
    });
}

QNetworkRequest TerminalSession::socketRequest(
    const ServerConnection &connection, const Identity &identity, const QString &terminalId)
{
    protocol::RequestSpec spec;
    spec.authenticated = false; // the key goes in the first frame, nowhere else
    spec.path = QStringLiteral("/api/terminals/") + encodedSegment(terminalId);
    QNetworkRequest request = protocol::buildRequest(connection, identity, spec);
    QUrl url = protocol::buildUrl(connection.baseUrl, spec);
    url.setScheme(
        url.scheme() == QLatin1String("https") ? QStringLiteral("wss") : QStringLiteral("ws"));
    url.setUserInfo({});
    request.setUrl(url);
    return request;
}

QByteArray TerminalSession::authFrame(const QString &apiKey)
{
    const QJsonObject auth {
        {QStringLiteral("type"), QStringLiteral("auth")}, {QStringLiteral("token"), apiKey}};
    return QJsonDocument(auth).toJson(QJsonDocument::Compact);
}

void TerminalSession::openSocket()
{
    setState(State::Connecting);
    m_socket = new QWebSocket(QString(), QWebSocketProtocol::VersionLatest, this);
    const QNetworkRequest request = socketRequest(m_client->connection(), m_identity, m_terminalId);
    connect(m_socket, &QWebSocket::connected, this, &TerminalSession::handleConnected);
    connect(m_socket, &QWebSocket::disconnected, this, &TerminalSession::handleDisconnected);
    connect(m_socket, &QWebSocket::binaryMessageReceived, this, &TerminalSession::handleBinary);
    connect(m_socket, &QWebSocket::sslErrors, this, [this](const QList<QSslError> &errors) {
        QStringList texts;
        for (const QSslError &error : errors)
            texts << error.errorString();
        finishFailed(makeError(ApiError::Kind::Tls,
                         tr("TLS error on the terminal connection: %1")
                             .arg(texts.join(QStringLiteral("; ")))),
            false);
    });
    m_socket->open(request);
}

void TerminalSession::handleConnected()
{
    if (m_state != State::Connecting)
        return;
    m_socket->sendTextMessage(
        QString::fromUtf8(authFrame(m_client ? m_client->connection().apiKey : QString())));
    m_openedAt.start();
    setState(State::Open);
    sendResize();
    // Multi-user servers start a login shell (sudo -i), which goes to the home whatever the
    // session's directory is: change there as the first line (a leading space keeps it out of
    // a history that ignores such lines).
    if (!m_workingDirectory.isEmpty())
        m_socket->sendBinaryMessage(
            (QStringLiteral(" cd -- ") + shell::quote(m_workingDirectory) + QLatin1Char('\n'))
                .toUtf8());
    if (!m_pendingInput.isEmpty())
        m_socket->sendBinaryMessage(std::exchange(m_pendingInput, QByteArray()));
    if (m_livenessMs > 0)
        m_livenessTimer.start(m_livenessMs);
    Q_EMIT opened();
}

void TerminalSession::handleBinary(const QByteArray &bytes)
{
    if (m_state != State::Open)
        return;
    if (!m_sizeSettled && m_managesShellSize)
        m_settleTimer.start();
    const QByteArray shown = maskSecret(&m_heldOutput, bytes, m_secret, false);
    if (!shown.isEmpty())
        Q_EMIT output(shown);
    if (!m_heldOutput.isEmpty())
        m_holdTimer.start();
}

void TerminalSession::flushOutput(bool final)
{
    m_holdTimer.stop();
    if (m_heldOutput.isEmpty())
        return;
    const QByteArray shown = maskSecret(&m_heldOutput, {}, m_secret, final);
    if (!shown.isEmpty())
        Q_EMIT output(shown);
}

void TerminalSession::write(const QByteArray &bytes)
{
    if (bytes.isEmpty())
        return;
    if (m_state == State::Open && m_socket)
        m_socket->sendBinaryMessage(bytes);
    else if (m_state == State::Idle || m_state == State::Creating || m_state == State::Connecting)
        m_pendingInput += bytes;
}

void TerminalSession::resize(int columns, int rows)
{
    if (columns <= 0 || rows <= 0 || (columns == m_columns && rows == m_rows))
        return;
    m_columns = columns;
    m_rows = rows;
    if (m_state == State::Open) {
        sendResize();
        if (m_sizeSettled)
            m_innerResizeTimer.start();
    }
}

QString TerminalSession::innerResizeScript(qint64 pid, int columns, int rows)
{
    // The shallowest process below `pid` that runs as this user and has a terminal is the
    // login shell; its terminal is the innermost PTY.
    return QStringLiteral(
        "me=$(id -u); tty=$(ps -e -o pid=,ppid=,uid=,tty= | awk -v root=%1 -v me=\"$me\" '"
        "{ parent[$1] = $2; uid[$1] = $3; tty[$1] = $4; order[NR] = $1 } "
        "END { best = \"\"; bestDepth = 1000; for (i = 1; i <= NR; i++) { p = order[i]; "
        "if (uid[p] != me || tty[p] == \"?\") continue; d = 0; q = p; "
        "while (q != root && q in parent && d < 64) { q = parent[q]; d++ } "
        "if (q == root && d < bestDepth) { best = tty[p]; bestDepth = d } } print best }'); "
        "[ -n \"$tty\" ] && stty -F \"/dev/$tty\" rows %2 cols %3")
        .arg(pid)
        .arg(rows)
        .arg(columns);
}

void TerminalSession::resizeInnerTerminal()
{
    if (m_state != State::Open || !m_client)
        return;
    if (m_pid <= 0 || m_identity.isServerAccount()) {
        Q_EMIT sizeApplied(m_columns, m_rows); // the resize message did it
        return;
    }
    if (m_innerResizeRunning) {
        m_innerResizeAgain = true;
        return;
    }
    m_innerResizeRunning = true;
    Identity user;
    user.userId = m_identity.userId;
    const int columns = m_columns;
    const int rows = m_rows;
    runShortCommand(m_client, user, innerResizeScript(m_pid, columns, rows), this,
        [this, columns, rows](const Result<CommandOutput> &) {
            m_innerResizeRunning = false;
            if (std::exchange(m_innerResizeAgain, false))
                resizeInnerTerminal();
            else if (m_state == State::Open)
                Q_EMIT sizeApplied(columns, rows);
        });
}

void TerminalSession::sendResize()
{
    const QJsonObject message {{QStringLiteral("type"), QStringLiteral("resize")},
        {QStringLiteral("cols"), m_columns}, {QStringLiteral("rows"), m_rows}};
    m_socket->sendTextMessage(
        QString::fromUtf8(QJsonDocument(message).toJson(QJsonDocument::Compact)));
}

void TerminalSession::handleDisconnected()
{
    if (m_closingFromHere || !m_socket)
        return;
    if (m_state == State::Connecting) {
        // A handshake refused by the server (an unknown id is refused before the upgrade).
        const QString why = m_socket->errorString();
        deleteRemote();
        finishFailed(makeError(ApiError::Kind::Network,
                         tr("Could not attach to terminal %1: %2").arg(m_terminalId, why)),
            false);
        return;
    }
    if (m_state != State::Open)
        return;
    const int code = int(m_socket->closeCode());
    const QString reason = m_socket->closeReason();
    flushOutput(true);
    if (code == 4001) {
        finishFailed(makeError(ApiError::Kind::InvalidApiKey,
                         tr("The server did not accept the API key for the terminal")),
            false);
        deleteRemote();
        return;
    }
    if (code == 4004 || code == 4009) {
        finishFailed(makeError(code == 4004 ? ApiError::Kind::NotFound : ApiError::Kind::Conflict,
                         tr("The server refused the terminal %1: %2")
                             .arg(m_terminalId, reason.isEmpty() ? closeCodeText(code) : reason)),
            false);
        return;
    }
    if (code == 1001 || code == 1012) {
        finishFailed(makeError(ApiError::Kind::ConnectionClosed,
                         tr("The connection to %1 was lost (%2); the remote shell has ended")
                             .arg(serverText(), closeCodeText(code))),
            true);
        return;
    }
    // Closed by the server: the shell ended (the terminal is gone), or the server stopped.
    m_livenessTimer.stop();
    const QString closeText = closeCodeText(code);
    protocol::RequestSpec spec;
    spec.path = QStringLiteral("/api/terminals/") + encodedSegment(m_terminalId);
    m_client->send(
        m_identity, spec, this, [this, closeText](const protocol::HttpResponse &response) {
            if (m_state != State::Open)
                return;
            if (response.status == 404) {
                finishEnded();
                return;
            }
            const QString why = response.networkError != QNetworkReply::NoError
                ? protocol::errorFromResponse(response).message
                : tr("the terminal still exists on the server");
            deleteRemote();
            finishFailed(makeError(ApiError::Kind::ConnectionClosed,
                             tr("The connection to %1 was lost (%2; %3); the remote shell "
                                "has ended")
                                 .arg(serverText(), closeText, why)),
                true);
        });
}

void TerminalSession::checkAlive()
{
    if (m_state != State::Open || m_livenessInFlight || !m_client)
        return;
    m_livenessInFlight = true;
    protocol::RequestSpec spec;
    spec.path = QStringLiteral("/api/terminals/") + encodedSegment(m_terminalId);
    m_client->send(m_identity, spec, this, [this](const protocol::HttpResponse &response) {
        m_livenessInFlight = false;
        if (m_state != State::Open)
            return;
        if (response.status == 404) {
            // 0.11.34 keeps the socket open after the shell exited.
            flushOutput(true);
            finishEnded();
            return;
        }
        if (response.networkError == QNetworkReply::ConnectionRefusedError) {
            flushOutput(true);
            finishFailed(makeError(ApiError::Kind::ConnectionRefused,
                             tr("The connection to %1 was lost (the server no longer answers); "
                                "the remote shell has ended")
                                 .arg(serverText())),
                true);
        }
    });
}

void TerminalSession::finishEnded()
{
    m_livenessTimer.stop();
    if (m_socket) {
        m_closingFromHere = true;
        m_socket->abort();
    }
    setState(State::Ended);
    Q_EMIT ended();
}

void TerminalSession::finishFailed(const ApiError &error, bool dropped)
{
    m_livenessTimer.stop();
    m_pendingInput.clear();
    if (m_socket) {
        m_closingFromHere = true;
        m_socket->abort();
    }
    setState(State::Failed);
    Q_EMIT failed(error, dropped);
}

void TerminalSession::deleteRemote()
{
    if (!m_client || m_terminalId.isEmpty())
        return;
    protocol::RequestSpec spec;
    spec.method = "DELETE";
    spec.path = QStringLiteral("/api/terminals/") + encodedSegment(m_terminalId);
    // Not bound to this object: the request finishes even when the session is gone.
    m_client->send(m_identity, spec, nullptr, [](const protocol::HttpResponse &) {});
}

void TerminalSession::close()
{
    if (m_state == State::Closed)
        return;
    const bool wasActive = isActive();
    m_livenessTimer.stop();
    m_holdTimer.stop();
    m_closingFromHere = true;
    if (m_socket && m_socket->state() == QAbstractSocket::ConnectedState)
        m_socket->close(); // the server kills the shell and forgets the terminal
    // The socket may not be open yet (or a close frame may never reach the server): make sure.
    if (wasActive)
        deleteRemote();
    m_state = State::Closed;
}

void TerminalSession::dropConnection()
{
    if (m_socket && m_state == State::Open)
        m_socket->abort();
}

QByteArray TerminalSession::maskSecret(
    QByteArray *pending, const QByteArray &chunk, const QByteArray &secret, bool final)
{
    QByteArray data = *pending + chunk;
    pending->clear();
    if (secret.size() < 4)
        return data;
    QByteArray shown;
    int from = 0;
    for (int hit = data.indexOf(secret, from); hit >= 0; hit = data.indexOf(secret, from)) {
        shown += data.mid(from, hit - from);
        shown += maskText();
        from = hit + secret.size();
    }
    QByteArray rest = data.mid(from);
    if (!final) {
        for (int length = std::min<int>(rest.size(), secret.size() - 1); length > 0; --length) {
            if (rest.endsWith(secret.left(length))) {
                *pending = rest.right(length);
                rest.chop(length);
                break;
            }
        }
    }
    shown += rest;
    return shown;
}

} // namespace sandscope
