#include "probeterminalsocket.h"

#include "terminal/terminalsession.h"

#include <QElapsedTimer>
#include <QTimer>
#include <QWebSocket>

#include <memory>

namespace sandscope {

namespace ProbeTerminalSocket {

void attempt(const ServerConnection &connection, const Identity &identity,
    const QString &terminalId, const QByteArray &input, const QString &needle, int timeoutMs,
    QObject *context, std::function<void(const probe::TerminalAttempt &)> done)
{
    // Everything of this attempt hangs off `holder`, deleted once `done` ran.
    auto *holder = new QObject(context);
    auto *socket = new QWebSocket(QString(), QWebSocketProtocol::VersionLatest, holder);
    auto *timer = new QTimer(holder);
    auto state = std::make_shared<probe::TerminalAttempt>();
    auto clock = std::make_shared<QElapsedTimer>();
    auto finished = std::make_shared<bool>(false);
    clock->start();
    const auto finish = [=](bool closeFromHere) {
        if (*finished)
            return;
        *finished = true;
        timer->stop();
        state->waitedMs = int(clock->elapsed());
        if (closeFromHere && socket->state() == QAbstractSocket::ConnectedState) {
            QObject::disconnect(socket, nullptr, holder, nullptr);
            socket->close();
        }
        const probe::TerminalAttempt result = *state;
        holder->deleteLater();
        done(result);
    };
    QObject::connect(socket, &QWebSocket::connected, holder, [=] {
        state->connected = true;
        socket->sendTextMessage(QString::fromUtf8(TerminalSession::authFrame(connection.apiKey)));
        // Keys typed before the shell starts still reach it in order (docs/server-behaviour.md).
        socket->sendBinaryMessage(input);
    });
    QObject::connect(
        socket, &QWebSocket::binaryMessageReceived, holder, [=](const QByteArray &bytes) {
            state->output += QString::fromUtf8(bytes);
            if (!needle.isEmpty() && state->output.contains(needle))
                finish(true);
        });
    QObject::connect(socket, &QWebSocket::textMessageReceived, holder,
        [=](const QString &text) { state->output += text; });
    QObject::connect(socket, &QWebSocket::disconnected, holder, [=] {
        if (state->connected) {
            state->closedByServer = true;
            state->closeCode = int(socket->closeCode());
            state->closeReason = socket->closeReason();
        } else {
            state->error = socket->errorString();
        }
        finish(false);
    });
    timer->setSingleShot(true);
    QObject::connect(timer, &QTimer::timeout, holder, [=] { finish(true); });
    timer->start(timeoutMs);
    socket->open(TerminalSession::socketRequest(connection, identity, terminalId));
}

} // namespace ProbeTerminalSocket

} // namespace sandscope
