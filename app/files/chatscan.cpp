#include "chatscan.h"

#include "server/adminscript.h"
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

// A home's disk use: du -0 ends each record with NUL (names may hold newlines), -s one total
// per folder, -b apparent bytes (folder entries included), --time the newest modification time
// of anything inside, in seconds. xargs keeps the argument lists within the system's limit.
// sed's `l` prints each NUL-ended record as one unambiguous ASCII line ending in "$" (\\, \t,
// \n, octal for other bytes; LC_ALL=C so that non-ASCII bytes are escaped too), which the
// terminal passes through unchanged; tr ends the lines with newlines instead of NULs.
const QString sizeFolders
    = QStringLiteral("xargs -0 -r du -0 -sb --time --time-style=+%s -- 2>/dev/null");

// A chat's size is its content's: the apparent bytes of everything in it but folders (du's
// total would add each folder entry's 4 KiB, so an empty chat showed 4.00 KiB), with the
// newest modification time of anything in it, the folder included: the same record as du's,
// "<bytes>\t<seconds>\t<path>\0", per chat folder given on stdin (NUL-separated). One find
// for all of them (50,000 chats in one scan) prints NUL-ended entries, each chat's own entry
// (depth 0) first; one awk reads them with RS = NUL (as sandbox/cleanup.sh does), so no name
// is split or bent.
const QString measureChats = QStringLiteral(
    R"sh(xargs -0 -r sh -c 'find "$@" -printf "%d %y %s %T@ %p\0"' sh 2>/dev/null | )sh"
    R"sh(LC_ALL=C awk 'function flush() { if (path != "") printf "%.0f\t%d\t%s%s", s, m, )sh"
    R"sh(path, NUL } BEGIN { NUL = sprintf("%c", 0); RS = NUL } $1 == "0" { flush(); )sh"
    R"sh(path = $0; sub(/^[^ ]* [^ ]* [^ ]* [^ ]* /, "", path); s = 0; m = 0 } )sh"
    R"sh($2 != "d" { s += $3 } { t = int($4); if (t > m) m = t } END { flush() }')sh");

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
                      .arg(measureChats));
}

QString allUsersScript(const QString &homesRoot)
{
    const QString root = shell::quote(homesRoot);
    // The clock first (sessions written within the last 30 s of it run now), the homes, their
    // chats, their transcripts, then each home's disk use (du from the root, so its records
    // are "./<name>" and cannot be taken for a chat's).
    return framed(QStringLiteral(
        "printf 'N\\t%s\\0' \"$(date +%s)\"; "
        "find %1 -mindepth 1 -maxdepth 1 -type d -printf 'U\\t%p\\0'; "
        "find %1 -mindepth 2 -maxdepth 2 -type d -name 'chat-*' -print0 | %3; "
        "find %1 -mindepth 5 -maxdepth 5 -type f -name '*.jsonl' -path '*/.claude/projects/*' "
        "-printf 'S\\t%T@\\t%p\\0' 2>/dev/null; "
        "cd %1 && find . -mindepth 1 -maxdepth 1 -type d -print0 | %2")
                      .arg(root, sizeFolders, measureChats));
}

bool parseRecord(const QByteArray &record, ChatScanRecord *parsed, const QString &homesRoot)
{
    if (record.startsWith("U\t")) {
        const QByteArray path = withoutDoubleSlashes(record.mid(2));
        if (path.isEmpty())
            return false;
        *parsed = ChatScanRecord();
        parsed->kind = ChatScanRecord::Kind::Home;
        parsed->homePath = QString::fromUtf8(path);
        return true;
    }
    if (record.startsWith("N\t")) {
        bool ok = false;
        const qint64 seconds = record.mid(2).toLongLong(&ok);
        if (!ok)
            return false;
        *parsed = ChatScanRecord();
        parsed->kind = ChatScanRecord::Kind::Clock;
        parsed->modified = QDateTime::fromSecsSinceEpoch(seconds, Qt::UTC);
        return true;
    }
    if (record.startsWith("S\t")) {
        // S <mtime with fraction> <root>/<account>/.claude/projects/<dir>/<session>.jsonl
        const qsizetype tab = record.indexOf('\t', 2);
        bool ok = false;
        const double seconds = record.mid(2, tab - 2).toDouble(&ok);
        const QByteArray path = withoutDoubleSlashes(record.mid(tab + 1));
        const qsizetype claude = path.lastIndexOf("/.claude/projects/");
        if (tab < 0 || !ok || claude <= 0)
            return false;
        *parsed = ChatScanRecord();
        parsed->kind = ChatScanRecord::Kind::Session;
        parsed->homePath = QString::fromUtf8(path.left(claude));
        parsed->modified = QDateTime::fromMSecsSinceEpoch(qint64(seconds * 1000), Qt::UTC);
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
    if (!sizeOk || !timeOk || path.isEmpty())
        return false;
    if (path.startsWith("./") && !path.mid(2).contains('/')) { // a home's disk use
        *parsed = ChatScanRecord();
        parsed->kind = ChatScanRecord::Kind::HomeUsage;
        QString root = homesRoot;
        while (root.size() > 1 && root.endsWith(QLatin1Char('/')))
            root.chop(1);
        parsed->homePath = root + QLatin1Char('/') + name;
        parsed->bytes = size;
        parsed->modified = QDateTime::fromSecsSinceEpoch(seconds);
        return true;
    }
    if (!name.startsWith(QLatin1String("chat-")))
        return false;
    *parsed = ChatScanRecord();
    parsed->chat.path = QString::fromUtf8(path);
    parsed->chat.id = name.mid(chatPrefix.size());
    parsed->chat.account = baseName(parentOf(path));
    parsed->chat.size = size;
    parsed->chat.lastActivity = QDateTime::fromSecsSinceEpoch(seconds);
    return true;
}

Parser::Parser(QString homesRoot)
    : m_records(beginMarker, endMarker)
    , m_homesRoot(std::move(homesRoot))
{
}

QVector<ChatScanRecord> Parser::feedLine(const QString &line)
{
    QByteArray bytes;
    ChatScanRecord record;
    if (!m_records.feedLine(line, &bytes) || !parseRecord(bytes, &record, m_homesRoot))
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
    if (m_adminScript)
        m_adminScript->abandon();
}

bool ChatScan::isRunning() const
{
    if (m_adminScript)
        return m_adminScript->isRunning();
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
    if (m_adminScript) {
        m_adminScript->abandon();
        deleteLater();
        return;
    }
    connect(this, &ChatScan::finished, this, &QObject::deleteLater);
    connect(this, &ChatScan::failed, this, &QObject::deleteLater);
    m_stream->kill(); // while still starting: killed as soon as it has started
}

void ChatScan::start(const QString &script)
{
    if (m_identity.userId.isEmpty()) {
        // As root in the sandbox, through the admin channel.
        m_adminScript = new AdminScript(m_client, m_admin, this);
        connect(m_adminScript, &AdminScript::output, this,
            [this](const QString &text) { queue(m_lines.feed(text)); });
        connect(m_adminScript, &AdminScript::finished, this, [this] { streamEnded(); });
        connect(m_adminScript, &AdminScript::failed, this, [this](const ApiError &error) {
            m_sliceTimer.stop();
            Q_EMIT failed(error);
        });
        m_adminScript->start(script);
        return;
    }
    m_stream = new ProcessStream(m_client, m_identity, this);
    m_stream->setPollIntervals(50, 500);
    connect(m_stream, &ProcessStream::started, this, [this] {
        if (m_abandoned)
            m_stream->kill();
    });
    connect(m_stream, &ProcessStream::output, this,
        [this](const QString &text) { queue(m_lines.feed(text)); });
    connect(m_stream, &ProcessStream::finished, this, [this] { streamEnded(); });
    connect(m_stream, &ProcessStream::failed, this, [this](const ApiError &error) {
        m_sliceTimer.stop();
        Q_EMIT failed(error);
    });
    m_stream->start(script);
}

void ChatScan::streamEnded()
{
    const QString rest = m_lines.flush();
    if (!rest.isEmpty())
        queue({rest});
    m_streamEnded = true;
    if (!hasQueuedLines())
        endScan();
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
