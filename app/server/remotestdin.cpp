#include "remotestdin.h"

#include "server/shortcommand.h"

#include <QTimer>
#include <QUuid>

namespace sandscope {

namespace {

QString feedFolderVariable(const QString &folder)
{
    // The folder name is ours (a UUID under .sandscope), so it needs no quoting beyond this.
    return QStringLiteral("d=\"$HOME/%1\"; ").arg(folder);
}

// The exit status of a step that found the feed's folder gone: the command ended and its
// wrapper removed the folder (wrap()), so its input is no longer read.
constexpr int readerGoneStatus = 3;

// A step's command around `write`: the first step creates the folder (it may run before the
// wrapper does); later ones never create it again, as a folder made after the wrapper removed
// it would be left behind. A write that fails because the folder went meanwhile says so.
QString feedStep(const QString &folder, bool first, const QString &write)
{
    const QString gone = QString::number(readerGoneStatus);
    return feedFolderVariable(folder)
        + (first ? QStringLiteral("mkdir -p -m 700 \"$d\" || exit 1; ")
                 : QStringLiteral("[ -d \"$d\" ] || exit %1; ").arg(gone))
        + QStringLiteral("{ %1; } || { [ -d \"$d\" ] || exit %2; exit 1; }").arg(write, gone);
}

} // namespace

RemoteStdin::RemoteStdin(OpenTerminalClient *client, const Identity &identity, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_identity(identity)
    , m_folder(
          QStringLiteral(".sandscope/stdin/") + QUuid::createUuid().toString(QUuid::WithoutBraces))
{
}

QString RemoteStdin::withoutInput(const QString &command)
{
    // A newline before the brace: the command may end in a comment.
    return QStringLiteral("{ %1\n} </dev/null").arg(command);
}

QString RemoteStdin::wrap(const QString &command) const
{
    // The feeder writes into a FIFO the command reads, so the command ending ends the run
    // even while the feeder still waits for input (a pipeline would wait for both). Chunk i
    // exists only once complete (renamed into place); `end` comes after the last chunk.
    // The command runs in a subshell so that its own `exit` still reaches the cleanup.
    return feedFolderVariable(m_folder)
        + QStringLiteral(
            "mkdir -p -m 700 \"$d\" && rm -f \"$d/in\" && mkfifo -m 600 \"$d/in\" || exit 125; "
            "( i=0; while :; do "
            "if [ -e \"$d/$i\" ]; then cat -- \"$d/$i\" && rm -f -- \"$d/$i\" || exit 1; "
            "i=$((i+1)); "
            "elif [ -e \"$d/end\" ]; then [ -e \"$d/$i\" ] || exit 0; "
            "else sleep 0.05; fi; done ) >\"$d/in\" 2>/dev/null & feeder=$!; "
            "( %1\n) <\"$d/in\"; status=$?; "
            "kill \"$feeder\" 2>/dev/null; wait \"$feeder\" 2>/dev/null; rm -rf -- \"$d\"; "
            "exit \"$status\"")
              .arg(command);
}

void RemoteStdin::write(const QByteArray &bytes)
{
    if (m_closing || m_stopped)
        return;
    for (qsizetype at = 0; at < bytes.size(); at += chunkBytes) {
        const QByteArray chunk = bytes.mid(at, chunkBytes);
        // Small writes (a typed line) go out as they come; a burst is merged up to a chunk.
        if (!m_queue.isEmpty() && m_queue.last().size() + chunk.size() <= chunkBytes)
            m_queue.last() += chunk;
        else
            m_queue.enqueue(chunk);
        m_queuedBytes += chunk.size();
    }
    Q_EMIT pendingBytesChanged(m_queuedBytes);
    sendNext();
}

void RemoteStdin::close()
{
    if (m_closing || m_stopped)
        return;
    m_closing = true;
    sendNext();
}

qint64 RemoteStdin::pendingBytes() const
{
    return m_queuedBytes;
}

void RemoteStdin::discard()
{
    if (m_readerGone) { // the folder went with the command; discarded() as after a removal
        m_readerGone = false;
        QTimer::singleShot(0, this, [this] { Q_EMIT discarded(); });
        return;
    }
    if (m_stopped)
        return;
    m_stopped = true;
    m_queue.clear();
    m_queuedBytes = 0;
    if (!m_busy) // else once the chunk in flight is done
        runStep(feedFolderVariable(m_folder) + QStringLiteral("rm -rf -- \"$d\""), {});
}

void RemoteStdin::sendNext()
{
    if (m_busy || m_stopped || m_closed)
        return;
    if (!m_queue.isEmpty()) {
        m_inFlight = m_queue.dequeue(); // later writes merge into the queue, never into it
        const QString index = QString::number(m_chunksWritten);
        runStep(feedStep(m_folder, m_chunksWritten == 0,
                    QStringLiteral("printf '%s' '%1' | base64 -d >\"$d/%2.part\" && mv -f -- "
                                   "\"$d/%2.part\" \"$d/%2\"")
                        .arg(QString::fromLatin1(m_inFlight.toBase64()), index)),
            tr("input bytes %1 to %2").arg(m_bytesWritten).arg(m_bytesWritten + m_inFlight.size()));
        return;
    }
    if (m_closing)
        runStep(feedStep(m_folder, m_chunksWritten == 0, QStringLiteral(": >\"$d/end\"")),
            tr("the end of the input"));
}

void RemoteStdin::runStep(const QString &command, const QString &what)
{
    m_busy = true;
    runShortCommand(
        m_client, m_identity, command, this, [this, what](const Result<CommandOutput> &result) {
            m_busy = false;
            if (m_stopped) {
                if (!what.isEmpty()) // the step in flight is done: now remove the folder
                    runStep(feedFolderVariable(m_folder) + QStringLiteral("rm -rf -- \"$d\""), {});
                else
                    Q_EMIT discarded();
                return;
            }
            if (result.ok() && result.value.exitCode == readerGoneStatus) {
                m_stopped = true;
                m_readerGone = true;
                m_queue.clear();
                m_queuedBytes = 0;
                m_inFlight.clear();
                Q_EMIT readerGone();
                Q_EMIT pendingBytesChanged(0);
                return;
            }
            if (!result.ok() || result.value.exitCode != 0) {
                m_stopped = true;
                const QString why = result.ok()
                    ? tr("exit status %1: %2")
                          .arg(result.value.exitCode)
                          .arg(result.value.lines.join(QLatin1Char(' ')).left(300))
                    : result.error.message;
                Q_EMIT failed(tr("Could not pass %1 to the command (%2).").arg(what, why));
                return;
            }
            if (!m_inFlight.isEmpty()) {
                m_bytesWritten += m_inFlight.size();
                m_queuedBytes -= m_inFlight.size();
                m_inFlight.clear();
                ++m_chunksWritten;
                Q_EMIT pendingBytesChanged(m_queuedBytes);
            } else if (m_closing) {
                m_closed = true;
                Q_EMIT closed();
                return;
            }
            sendNext();
        });
}

} // namespace sandscope
