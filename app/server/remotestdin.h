#pragma once
// A remote command's standard input, fed from local bytes without the server's terminal.
//
// Commands run in a pseudo-terminal (docs/open-terminal.md): input typed into it is
// echoed, read line by line with a 4 KiB line limit, and control bytes act (Ctrl-C, Ctrl-D),
// and a command that reads stdin waits forever because the terminal never ends. So a command
// gets either no input at all (withoutInput: /dev/null, like `docker exec` without -i) or
// input fed through files: each chunk is written as the acting user by a short command of its
// own (base64 in the command text, so every byte arrives as it was) into a fresh folder under
// the user's home, renamed into place when complete, and a small feeder in front of the
// command cats the chunks in order and ends the input when the end marker says all came.

#include "server/connection.h"

#include <QByteArray>
#include <QObject>
#include <QQueue>
#include <QString>

namespace sandscope {

class OpenTerminalClient;

class RemoteStdin : public QObject {
    Q_OBJECT
public:
    // Raw bytes per chunk: its base64 stays well below the kernel's 128 KiB limit for one
    // argument (the server passes the command to `bash -c` as one).
    static constexpr int chunkBytes = 48 * 1024;

    RemoteStdin(OpenTerminalClient *client, const Identity &identity, QObject *parent = nullptr);

    // `command` with its standard input from /dev/null.
    static QString withoutInput(const QString &command);
    // `command` reading its standard input from this feed; run it as the same identity.
    QString wrap(const QString &command) const;
    // The feed's folder, relative to the user's home.
    QString folder() const { return m_folder; }

    // Queues bytes; chunks are written one at a time, in order.
    void write(const QByteArray &bytes);
    // The end of the input: written after every queued chunk.
    void close();
    // Bytes queued or in flight: the caller stops reading while this is high.
    qint64 pendingBytes() const;
    // Every chunk and the end marker are written (the command removes the folder itself).
    bool isClosed() const { return m_closed; }
    // Stops writing and removes the feed's folder (after the command ended, or on a stop);
    // discarded() follows.
    void discard();

Q_SIGNALS:
    // Every chunk and the end marker are written.
    void closed();
    // A chunk could not be written; nothing more is sent.
    void failed(const QString &message);
    // The command ended before taking all of its input (its folder is gone, as a pipe's
    // reader can be): nothing more is sent, and nothing failed.
    void readerGone();
    void pendingBytesChanged(qint64 pending);
    void discarded();

private:
    void sendNext();
    void runStep(const QString &command, const QString &what);

    OpenTerminalClient *m_client;
    Identity m_identity;
    QString m_folder;
    QQueue<QByteArray> m_queue;
    QByteArray m_inFlight;
    qint64 m_bytesWritten = 0;
    qint64 m_queuedBytes = 0;
    int m_chunksWritten = 0;
    bool m_busy = false;
    bool m_closing = false;
    bool m_closed = false;
    bool m_stopped = false;
    bool m_readerGone = false; // a step found the folder gone (readerGone())
};

} // namespace sandscope
