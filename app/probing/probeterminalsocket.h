#pragma once
// One WebSocket attempt on a terminal by its id, as the isolation probe makes it: connect as an
// identity, authenticate with the first frame (TerminalSession::authFrame), type a line, and
// collect the PTY's output until it shows `needle`, the server closes the socket, or the time
// is up; then close from here. What happened is a probe::TerminalAttempt, judged by
// probe::judgeTerminalRead / judgeTerminalWrite.

#include "probing/probejudgement.h"
#include "server/connection.h"

#include <QObject>

#include <functional>

namespace sandscope {

namespace ProbeTerminalSocket {

// `done` runs once, unless `context` is deleted first.
void attempt(const ServerConnection &connection, const Identity &identity,
    const QString &terminalId, const QByteArray &input, const QString &needle, int timeoutMs,
    QObject *context, std::function<void(const probe::TerminalAttempt &)> done);

} // namespace ProbeTerminalSocket

} // namespace sandscope
