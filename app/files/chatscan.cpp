#include "chatscan.h"

#include "server/openterminalclient.h"
#include "server/processstream.h"
#include "util/shellquote.h"

#include <QElapsedTimer>

namespace sandscope {

namespace chatscan {

namespace {

const QString beginMarker = QStringLiteral("SANDSCOPE-CHATS-BEGIN");
const QString endMarker = QStringLiteral("SANDSCOPE-CHATS-END");
const QByteArray chatPrefix = QByteArrayLiteral("chat-");

// du: -0 ends each record with NUL (names may hold newlines), -s one total per chat, -b
// apparent bytes, --time the newest modification time of anything inside, in seconds.
// xargs keeps the argument lists within the system's limit for any number of chats.
// sed's `l` prints each NUL-ended record as one unambiguous ASCII line ending in "$" (\\, \t,
// \n, octal for other bytes; LC_ALL=C so that non-ASCII bytes are escaped too), which the
// terminal passes through unchanged; tr ends the lines with newlines instead of NULs.
const QString sizeChats
    = QStringLiteral("xargs -0 -r du -0 -sb --time --time-style=+%s -- 2>/dev/null");

QString framed(const QString &body)
{
    return framedRecords(beginMarker, body, endMarker);
}

QString baseName(const QByteArray &path)
{
    QByteArray trimmed = path;
    while (trimmed.size() > 1 && trimmed.endsWith('/'))
        trimmed.chop(1);
    return QString::fromUtf8(trimmed.mid(trimmed.lastIndexOf('/') + 1));
}

QByteArray parentOf(const QByteArray &path)
{
    QByteArray trimmed = path;
    while (trimmed.size() > 1 && trimmed.endsWith('/'))
        trimmed.chop(1);
    const qsizetype slash = trimmed.lastIndexOf('/');
    return slash <= 0 ? QByteArray("/") : trimmed.left(slash);
}

// "/home/alice//chat-1" (find prints the start point as given) -> "/home/alice/chat-1"
QByteArray withoutDoubleSlashes(QByteArray path)
{
    while (path.contains("//"))
        path.replace("//", "/");
    return path;
}

} // namespace

QString userScript()
{
    return framed(QStringLiteral("find ~/ -mindepth 1 -maxdepth 1 -type d -name 'chat-*' -print0 "
                                 "| %1")
                      .arg(sizeChats));
}

QString allUsersScript(const QString &homesRoot)
{
    const QString root = shell::quote(homesRoot);
    return framed(
        QStringLiteral("find %1 -mindepth 1 -maxdepth 1 -type d -printf 'U\\t%p\\0'; "
                       "find %1 -mindepth 2 -maxdepth 2 -type d -name 'chat-*' -print0 | %2")
            .arg(root, sizeChats));
}

bool parseRecord(const QByteArray &record, ChatScanRecord *parsed)
{
    if (record.startsWith("U\t")) {
        const QByteArray path = withoutDoubleSlashes(record.mid(2));
        if (path.isEmpty())
            return false;
        *parsed = ChatScanRecord();
        parsed->isHome = true;
        parsed->homePath = QString::fromUtf8(path);
        return true;
    }
    const qsizetype firstTab = record.indexOf('\t');
    const qsizetype secondTab = firstTab < 0 ? -1 : record.indexOf('\t', firstTab + 1);
    if (secondTab < 0)
        return false;
    bool sizeOk = false;
    bool timeOk = false;
    const qint64 size = record.left(firstTab).toLongLong(&sizeOk);
    const qint64 seconds = record.mid(firstTab + 1, secondTab - firstTab - 1).toLongLong(&timeOk);
    const QByteArray path = withoutDoubleSlashes(record.mid(secondTab + 1));
    const QString name = baseName(path);
    if (!sizeOk || !timeOk || path.isEmpty() || !name.startsWith(QLatin1String("chat-")))
        return false;
    *parsed = ChatScanRecord();
    parsed->chat.path = QString::fromUtf8(path);
    parsed->chat.id = name.mid(chatPrefix.size());
    parsed->chat.account = baseName(parentOf(path));
    parsed->chat.size = size;
    parsed->chat.lastActivity = QDateTime::fromSecsSinceEpoch(seconds);
    return true;
}

Parser::Parser()
    : m_records(beginMarker, endMarker)
{
}

QVector<ChatScanRecord> Parser::feedLine(const QString &line)
{
    QByteArray bytes;
    ChatScanRecord record;
    if (!m_records.feedLine(line, &bytes) || !parseRecord(bytes, &record))
        return {};
    return {record};
}

} // namespace chatscan

// ---------------------------------------------------------------------------------------
// ChatScan

ChatScan::ChatScan(OpenTerminalClient *client, const Identity &identity, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_identity(identity)
{
    m_sliceTimer.setSingleShot(true);
    m_sliceTimer.setInterval(0);
    connect(&m_sliceTimer, &QTimer::timeout, this, &ChatScan::parseSlice);
}

ChatScan::~ChatScan()
{
    // A scan nobody waits for any more is not left running on the server.
    if (m_stream && m_stream->state() == ProcessStream::State::Running)
        m_stream->kill();
}

bool ChatScan::isRunning() const
{
    return m_stream
        && (m_stream->state() == ProcessStream::State::Starting
            || m_stream->state() == ProcessStream::State::Running);
}

void ChatScan::abandon()
{
    disconnect(this, nullptr, nullptr, nullptr);
    m_abandoned = true;
    m_sliceTimer.stop();
    m_queued.clear();
    m_nextQueued = 0;
    if (!isRunning()) {
        deleteLater();
        return;
    }
    connect(this, &ChatScan::finished, this, &QObject::deleteLater);
    connect(this, &ChatScan::failed, this, &QObject::deleteLater);
    m_stream->kill(); // while still starting: killed as soon as it has started
}

void ChatScan::start(const QString &script)
{
    m_stream = new ProcessStream(m_client, m_identity, this);
    m_stream->setPollIntervals(50, 500);
    connect(m_stream, &ProcessStream::started, this, [this] {
        if (m_abandoned)
            m_stream->kill();
    });
    connect(m_stream, &ProcessStream::output, this,
        [this](const QString &text) { queue(m_lines.feed(text)); });
    connect(m_stream, &ProcessStream::finished, this, [this] {
        const QString rest = m_lines.flush();
        if (!rest.isEmpty())
            queue({rest});
        m_streamEnded = true;
        if (!hasQueuedLines())
            endScan();
    });
    connect(m_stream, &ProcessStream::failed, this, [this](const ApiError &error) {
        m_sliceTimer.stop();
        Q_EMIT failed(error);
    });
    m_stream->start(script);
}

void ChatScan::queue(const QStringList &lines)
{
    if (m_abandoned || lines.isEmpty())
        return;
    m_queued += lines;
    if (!m_sliceTimer.isActive())
        m_sliceTimer.start();
}

void ChatScan::parseSlice()
{
    QElapsedTimer clock;
    clock.start();
    QVector<ChatScanRecord> batch;
    while (hasQueuedLines() && batch.size() < maxRecordsPerSlice
        && !clock.hasExpired(sliceMilliseconds))
        batch += m_parser.feedLine(m_queued.at(m_nextQueued++));
    if (!hasQueuedLines()) {
        m_queued.clear();
        m_nextQueued = 0;
    } else if (m_nextQueued > m_queued.size() / 2) {
        m_queued.erase(m_queued.begin(), m_queued.begin() + m_nextQueued);
        m_nextQueued = 0;
    }
    if (!batch.isEmpty())
        Q_EMIT records(batch);
    if (m_abandoned) // by a receiver of the batch
        return;
    if (hasQueuedLines())
        m_sliceTimer.start();
    else if (m_streamEnded)
        endScan();
}

void ChatScan::endScan()
{
    if (!m_parser.sawEnd()) {
        ApiError error;
        error.kind = ApiError::Kind::BadResponse;
        error.message = tr("The chat scan ended early (are GNU find, du and sed installed?)");
        Q_EMIT failed(error);
        return;
    }
    Q_EMIT finished();
}

} // namespace sandscope
