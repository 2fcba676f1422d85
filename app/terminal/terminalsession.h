#pragma once
// One interactive terminal on an open-terminal server, as one user: the transport behind the
// Terminal tab and `sandscope shell`. It speaks the server's terminal protocol:
//   1. (with a working directory) POST /files/cwd under the terminal's own X-Session-Id (which
//      checks the directory; multi-user login shells ignore it, so `cd` is also the first line);
//   2. POST /api/terminals -> {id, created_at, pid}: the server spawns the user's login shell
//      on a PTY (80x24) in that session's directory or the home;
//   3. a WebSocket to /api/terminals/{id} carrying the same X-User-Id and X-Session-Id, whose
//      first frame is the text {"type":"auth","token":KEY};
//   4. then binary frames both ways are the PTY's bytes, and text frames from here are control
//      messages ({"type":"resize","cols":C,"rows":R});
//   5. closing the socket makes the server kill the shell and forget the terminal.
// Neither pinned server reports the shell's exit status, and 0.11.34 keeps the socket open
// after the shell has exited, so a liveness check (GET /api/terminals/{id}, 404 = ended) runs
// while the terminal is open. Every terminal gets a fresh X-Session-Id: 0.11.34 uses that
// header as the terminal's id, so two terminals sharing one would replace each other.
// A multi-user shell runs as `script -qc "sudo -i -u ACCOUNT"`, and script and sudo each put
// it on a PTY of their own. The server starts script without a controlling terminal, so the
// resize message changes only the outer PTY and no SIGWINCH reaches script: the shell would
// keep 80x24 for ever (measured on both versions). So, acting as a user, every size (the first
// once the shell's output has settled, then each change) is also set on the shell's own PTY
// with `stty -F` through /execute as that user, which is what signals SIGWINCH to the program
// in front (vim, top, less redraw).
// The API key travels only in the auth frame, and is masked wherever it appears in the output.

#include "server/apierror.h"
#include "server/connection.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QNetworkRequest>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>

class QWebSocket;

namespace sandscope {

class OpenTerminalClient;

class TerminalSession : public QObject {
    Q_OBJECT
public:
    enum class State {
        Idle,
        Creating, // setting the directory, POST /api/terminals
        Connecting, // WebSocket handshake
        Open, // authenticated: input is sent, output arrives
        Ended, // the remote shell ended (exit, Ctrl+D)
        Failed, // could not open, or the connection was lost
        Closed, // closed from here
    };
    Q_ENUM(State)

    static constexpr int defaultLivenessMs = 1000;

    // `identity.sessionId` is ignored: each terminal gets its own (see above).
    TerminalSession(
        OpenTerminalClient *client, const Identity &identity, QObject *parent = nullptr);
    ~TerminalSession() override; // closes the remote terminal when still open

    // Before start(): the first window size (sent right after authenticating) and the
    // directory the shell starts in (empty: the session's default, the user's home).
    void setInitialSize(int columns, int rows);
    void setWorkingDirectory(const QString &directory) { m_workingDirectory = directory; }
    void setLivenessInterval(int milliseconds) { m_livenessMs = milliseconds; }
    // Off: the window size is never set on a multi-user shell's own PTY (no `stty -F` request),
    // for terminals no one looks at (FollowChannel).
    void setManagesShellSize(bool manages) { m_managesShellSize = manages; }

    void start();
    // Keystrokes or pasted bytes; held until the terminal is open, dropped after it ended.
    void write(const QByteArray &bytes);
    // Sent at once when open, else remembered for the start.
    void resize(int columns, int rows);
    // Ends the remote terminal (closing the socket kills the shell there). No signal follows.
    void close();
    // Drops the connection without a close frame, as a failing network does (the server then
    // ends the shell); what follows is what a real drop brings. For tests of reconnecting.
    void dropConnection();

    State state() const { return m_state; }
    bool isActive() const
    {
        return m_state == State::Creating || m_state == State::Connecting || m_state == State::Open;
    }
    QString terminalId() const { return m_terminalId; }
    Identity identity() const { return m_identity; }
    QString serverText() const; // the base URL without credentials
    int columns() const { return m_columns; }
    int rows() const { return m_rows; }
    // Milliseconds since the terminal opened (0 before).
    qint64 openMilliseconds() const;
    // No pinned server reports the shell's exit status; kept for servers that will.
    bool hasExitStatus() const { return m_hasExitStatus; }
    int exitStatus() const { return m_exitStatus; }

    // Masks `secret` in `pending` + `chunk`, streaming: returns what can be shown now and keeps
    // in `pending` a tail that may be the beginning of the secret (flush with final = true).
    static QByteArray maskSecret(
        QByteArray *pending, const QByteArray &chunk, const QByteArray &secret, bool final);
    static QByteArray maskText() { return QByteArrayLiteral("******"); }
    // The script that sets the window size on the PTY of the user's shell below the terminal's
    // process `pid` (run as that user).
    static QString innerResizeScript(qint64 pid, int columns, int rows);
    // The WebSocket handshake for terminal `terminalId` as `identity` (no key in it), and the
    // first frame that authenticates it.
    static QNetworkRequest socketRequest(
        const ServerConnection &connection, const Identity &identity, const QString &terminalId);
    static QByteArray authFrame(const QString &apiKey);

Q_SIGNALS:
    void stateChanged(sandscope::TerminalSession::State state);
    void opened();
    void output(const QByteArray &bytes);
    // The window size reached the shell's PTY (for users: after the `stty -F` above).
    void sizeApplied(int columns, int rows);
    // The remote shell ended; exitStatus() when hasExitStatus().
    void ended();
    // Could not open the terminal, or the connection was lost (`dropped`: it had been open).
    void failed(const sandscope::ApiError &error, bool dropped);

private:
    void createTerminal();
    void openSocket();
    void handleConnected();
    void handleDisconnected();
    void handleBinary(const QByteArray &bytes);
    void checkAlive();
    void finishEnded();
    void finishFailed(const ApiError &error, bool dropped);
    void deleteRemote();
    void setState(State state);
    void flushOutput(bool final);
    void sendResize();
    void resizeInnerTerminal();
    ApiError makeError(ApiError::Kind kind, const QString &message) const;

    QPointer<OpenTerminalClient> m_client;
    Identity m_identity;
    QString m_workingDirectory;
    int m_columns = 80;
    int m_rows = 24;
    int m_livenessMs = defaultLivenessMs;
    State m_state = State::Idle;
    QString m_terminalId;
    QWebSocket *m_socket = nullptr;
    QByteArray m_pendingInput;
    QByteArray m_heldOutput;
    QByteArray m_secret;
    QTimer m_holdTimer;
    QTimer m_livenessTimer;
    QTimer m_settleTimer; // applies the size once the shell's first output has settled
    QTimer m_innerResizeTimer; // coalesces size changes for the inner PTY
    bool m_sizeSettled = false;
    bool m_managesShellSize = true;
    bool m_innerResizeRunning = false;
    bool m_innerResizeAgain = false;
    qint64 m_pid = 0; // the terminal's process on the server (script, in multi-user mode)
    bool m_livenessInFlight = false;
    bool m_closingFromHere = false;
    QElapsedTimer m_openedAt;
    bool m_hasExitStatus = false;
    int m_exitStatus = 0;
};

} // namespace sandscope
