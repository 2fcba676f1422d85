#include "chatscan.h"

#include "server/openterminalclient.h"
#include "server/processstream.h"
#include "util/shellquote.h"

#include <QElapsedTimer>
#include <QLocale>

#include <algorithm>

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

} // namespace

QString framedRecords(const QString &begin, const QString &body, const QString &end)
{
    return QStringLiteral(
        "printf '%1\\n'; { %2; } 2>/dev/null | LC_ALL=C sed -z -n 'l 0' | tr '\\000' "
        "'\\n'; printf '%3\\n'")
        .arg(begin, body, end);
}

QByteArray unescapeSedLine(QStringView line)
{
    QByteArray bytes;
    bytes.reserve(line.size());
    for (qsizetype i = 0; i < line.size(); ++i) {
        const char16_t c = line.at(i).unicode();
        if (c != u'\\' || i + 1 == line.size()) {
            bytes.append(char(c));
            continue;
        }
        const char16_t next = line.at(++i).unicode();
        switch (next) {
        case u'a':
            bytes.append('\a');
            break;
        case u'b':
            bytes.append('\b');
            break;
        case u'f':
            bytes.append('\f');
            break;
        case u'n':
            bytes.append('\n');
            break;
        case u'r':
            bytes.append('\r');
            break;
        case u't':
            bytes.append('\t');
            break;
        case u'v':
            bytes.append('\v');
            break;
        default:
            if (next >= u'0' && next <= u'7' && i + 2 < line.size()) {
                const int value = (next - u'0') * 64 + (line.at(i + 1).unicode() - u'0') * 8
                    + (line.at(i + 2).unicode() - u'0');
                bytes.append(char(value));
                i += 2;
            } else {
                bytes.append(char(next)); // "\\"
            }
        }
    }
    return bytes;
}

namespace {

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

FramedRecordReader::FramedRecordReader(QString begin, QString end)
    : m_begin(std::move(begin))
    , m_end(std::move(end))
{
}

bool FramedRecordReader::feedLine(const QString &line, QByteArray *record)
{
    switch (m_state) {
    case State::BeforeBegin:
        if (line.trimmed() == m_begin)
            m_state = State::Inside;
        return false;
    case State::Ended:
        return false;
    case State::Inside:
        break;
    }
    if (line.trimmed() == m_end) {
        m_state = State::Ended;
        return false;
    }
    // Every record line ends in "$"; anything else is a stray message on the terminal.
    if (!line.endsWith(QLatin1Char('$')))
        return false;
    *record = unescapeSedLine(QStringView(line).chopped(1));
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

namespace {

QString formatTime(const QDateTime &time)
{
    return time.isValid() ? QLocale().toString(time.toLocalTime(), QLocale::ShortFormat)
                          : QString();
}

} // namespace

// ---------------------------------------------------------------------------------------
// ChatScanTableModel

ChatScanTableModel::ChatScanTableModel(
    OpenTerminalClient *client, QStringList headers, int sizeColumn, QObject *parent)
    : QAbstractTableModel(parent)
    , m_client(client)
    , m_headers(std::move(headers))
    , m_sizeColumn(sizeColumn)
{
}

void ChatScanTableModel::stopScan()
{
    if (m_scan)
        m_scan->abandon();
    m_scan = nullptr;
}

void ChatScanTableModel::startScan(const Identity &identity, const QString &script)
{
    stopScan();
    setScanState(ScanState::Loading);
    auto *scan = new ChatScan(m_client, identity, this);
    m_scan = scan;
    connect(scan, &ChatScan::records, this, &ChatScanTableModel::addRecords);
    connect(scan, &ChatScan::finished, this, [this] {
        setScanState(ScanState::Loaded);
        Q_EMIT loaded();
    });
    connect(scan, &ChatScan::failed, this, &ChatScanTableModel::scanFailed);
    scan->start(script);
}

void ChatScanTableModel::setScanState(ScanState state, const QString &error)
{
    m_state = state;
    m_error = error;
}

void ChatScanTableModel::scanFailed(const ApiError &error)
{
    setScanState(ScanState::Failed, failureText(error));
    Q_EMIT failed(error);
}

int ChatScanTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_headers.size());
}

QVariant ChatScanTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return QVariant();
    if (role == sortRole)
        return cellValue(index.row(), index.column());
    if (role != Qt::DisplayRole)
        return rowValue(index.row(), role);
    const QVariant value = cellValue(index.row(), index.column());
    if (index.column() == m_sizeColumn)
        return QLocale().formattedDataSize(value.toLongLong());
    if (value.userType() == QMetaType::QDateTime)
        return formatTime(value.toDateTime());
    return value;
}

QVariant ChatScanTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0
        || section >= m_headers.size())
        return QVariant();
    return m_headers.at(section);
}

// ---------------------------------------------------------------------------------------
// ChatIndexModel

ChatIndexModel::ChatIndexModel(OpenTerminalClient *client, QObject *parent)
    : ChatScanTableModel(client, {tr("Chat"), tr("Size"), tr("Last activity")}, SizeColumn, parent)
{
}

void ChatIndexModel::setIdentity(const Identity &identity)
{
    stopScan();
    beginResetModel();
    m_identity = identity;
    m_chats.clear();
    setScanState(ScanState::Idle);
    endResetModel();
}

void ChatIndexModel::reload()
{
    // A new scan: the old rows go, the new ones stream in.
    setIdentity(m_identity);
    startScan(m_identity, chatscan::userScript());
}

QString ChatIndexModel::failureText(const ApiError &error) const
{
    return tr("Could not list the chats: %1").arg(error.toString());
}

void ChatIndexModel::addRecords(const QVector<ChatScanRecord> &batch)
{
    QVector<ChatFolder> added;
    for (const ChatScanRecord &record : batch) {
        if (!record.isHome)
            added.append(record.chat);
    }
    if (added.isEmpty())
        return;
    beginInsertRows(QModelIndex(), int(m_chats.size()), int(m_chats.size() + added.size()) - 1);
    m_chats += added;
    endInsertRows();
}

int ChatIndexModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_chats.size());
}

QVariant ChatIndexModel::cellValue(int row, int column) const
{
    const ChatFolder &chat = m_chats.at(row);
    switch (column) {
    case ChatColumn:
        return chat.id;
    case SizeColumn:
        return chat.size;
    case LastActivityColumn:
        return chat.lastActivity;
    default:
        return QVariant();
    }
}

QVariant ChatIndexModel::rowValue(int row, int role) const
{
    const ChatFolder &chat = m_chats.at(row);
    switch (role) {
    case Qt::ToolTipRole:
    case PathRole:
        return chat.path;
    case ChatIdRole:
        return chat.id;
    case SizeRole:
        return chat.size;
    case LastActivityRole:
        return chat.lastActivity;
    default:
        return QVariant();
    }
}

// ---------------------------------------------------------------------------------------
// AdminOverviewModel

AdminOverviewModel::AdminOverviewModel(OpenTerminalClient *client, QObject *parent)
    : ChatScanTableModel(
        client, {tr("User"), tr("Chats"), tr("Size"), tr("Last activity")}, SizeColumn, parent)
{
}

bool AdminOverviewModel::isServerAccountRefusal(const ApiError &error)
{
    return error.kind == ApiError::Kind::BadRequest
        && (error.detail.contains(QLatin1String("X-User-Id"))
            || error.message.contains(QLatin1String("X-User-Id")));
}

void AdminOverviewModel::reload()
{
    stopScan();
    beginResetModel();
    m_accounts.clear();
    m_rowOfAccount.clear();
    endResetModel();
    // The server's own account: no X-User-Id, so every home is readable.
    startScan(Identity(), chatscan::allUsersScript(m_homesRoot));
}

QString AdminOverviewModel::failureText(const ApiError &error) const
{
    return tr("Could not scan the users' chats: %1").arg(error.toString());
}

void AdminOverviewModel::scanFailed(const ApiError &error)
{
    if (!isServerAccountRefusal(error)) {
        ChatScanTableModel::scanFailed(error);
        return;
    }
    setScanState(ScanState::Refused,
        tr("This server only allows per-user access: in multi-user mode it refuses every request "
           "without a user id (X-User-Id), so there is no overview of all users. Open one "
           "user's chats instead."));
    Q_EMIT refused(errorText());
}

int AdminOverviewModel::ensureAccount(const QString &home, QVector<AccountChats> &added)
{
    QString account = home;
    while (account.size() > 1 && account.endsWith(QLatin1Char('/')))
        account.chop(1);
    account = account.mid(account.lastIndexOf(QLatin1Char('/')) + 1);
    const auto known = m_rowOfAccount.constFind(account);
    if (known != m_rowOfAccount.constEnd())
        return *known;
    const int row = int(m_accounts.size() + added.size());
    AccountChats entry;
    entry.account = account;
    entry.home = home;
    added.append(entry);
    m_rowOfAccount.insert(account, row);
    return row;
}

// One batch = at most one insertion (new accounts) and one dataChanged (accounts that got
// chats), however many records it holds.
void AdminOverviewModel::addRecords(const QVector<ChatScanRecord> &batch)
{
    QVector<AccountChats> added;
    const int existing = int(m_accounts.size());
    int firstChanged = existing;
    int lastChanged = -1;
    for (const ChatScanRecord &record : batch) {
        const QString home = record.isHome
            ? record.homePath
            : record.chat.path.left(record.chat.path.lastIndexOf(QLatin1Char('/')));
        const int row = ensureAccount(home, added);
        if (record.isHome)
            continue;
        AccountChats &account = row < existing ? m_accounts[row] : added[row - existing];
        account.chats.append(record.chat);
        account.totalSize += record.chat.size;
        if (!account.lastActivity.isValid() || account.lastActivity < record.chat.lastActivity)
            account.lastActivity = record.chat.lastActivity;
        if (row < existing) {
            firstChanged = std::min(firstChanged, row);
            lastChanged = std::max(lastChanged, row);
        }
    }
    if (!added.isEmpty()) {
        beginInsertRows(QModelIndex(), existing, existing + int(added.size()) - 1);
        m_accounts += added;
        endInsertRows();
    }
    if (lastChanged >= 0)
        Q_EMIT dataChanged(index(firstChanged, 0), index(lastChanged, ColumnCount - 1));
}

int AdminOverviewModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_accounts.size());
}

QVariant AdminOverviewModel::cellValue(int row, int column) const
{
    const AccountChats &account = m_accounts.at(row);
    switch (column) {
    case AccountColumn:
        return account.account;
    case ChatCountColumn:
        return int(account.chats.size());
    case SizeColumn:
        return account.totalSize;
    case LastActivityColumn:
        return account.lastActivity;
    default:
        return QVariant();
    }
}

QVariant AdminOverviewModel::rowValue(int row, int role) const
{
    const AccountChats &account = m_accounts.at(row);
    switch (role) {
    case Qt::ToolTipRole:
    case HomeRole:
        return account.home;
    case AccountRole:
        return account.account;
    default:
        return QVariant();
    }
}

} // namespace sandscope
