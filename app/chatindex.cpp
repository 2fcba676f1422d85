#include "chatindex.h"

#include "openterminalclient.h"
#include "processstream.h"
#include "shellquote.h"

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
    return QStringLiteral(
        "printf '%1\\n'; { %2; } 2>/dev/null | LC_ALL=C sed -z -n 'l 0' | tr '\\000' "
        "'\\n'; printf '%3\\n'")
        .arg(beginMarker, body, endMarker);
}

// One line of `sed -n 'l 0'` without its final "$" back to the bytes it stands for.
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

QVector<ChatScanRecord> Parser::feedLine(const QString &line)
{
    switch (m_state) {
    case State::BeforeBegin:
        if (line.trimmed() == beginMarker)
            m_state = State::Inside;
        return {};
    case State::Ended:
        return {};
    case State::Inside:
        break;
    }
    if (line.trimmed() == endMarker) {
        m_state = State::Ended;
        return {};
    }
    // Every record line ends in "$"; anything else is a stray message on the terminal.
    ChatScanRecord record;
    if (!line.endsWith(QLatin1Char('$'))
        || !parseRecord(unescapeSedLine(QStringView(line).chopped(1)), &record))
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
        [this](const QString &text) { consume(m_lines.feed(text)); });
    connect(m_stream, &ProcessStream::finished, this, [this] {
        const QString rest = m_lines.flush();
        if (!rest.isEmpty())
            consume({rest});
        if (!m_parser.sawEnd()) {
            ApiError error;
            error.kind = ApiError::Kind::BadResponse;
            error.message = tr("The chat scan ended early (is GNU find, du and od installed?)");
            Q_EMIT failed(error);
            return;
        }
        Q_EMIT finished();
    });
    connect(m_stream, &ProcessStream::failed, this, &ChatScan::failed);
    m_stream->start(script);
}

void ChatScan::consume(const QStringList &lines)
{
    if (m_abandoned)
        return;
    QVector<ChatScanRecord> batch;
    for (const QString &line : lines)
        batch += m_parser.feedLine(line);
    if (!batch.isEmpty())
        Q_EMIT records(batch);
}

namespace {

QString formatTime(const QDateTime &time)
{
    return time.isValid() ? QLocale().toString(time.toLocalTime(), QLocale::ShortFormat)
                          : QString();
}

// The previous scan is abandoned (its process killed) before the next one starts.
void replaceScan(QPointer<ChatScan> &current, ChatScan *next)
{
    if (current)
        current->abandon();
    current = next;
}

} // namespace

// ---------------------------------------------------------------------------------------
// ChatIndexModel

ChatIndexModel::ChatIndexModel(OpenTerminalClient *client, QObject *parent)
    : QAbstractTableModel(parent)
    , m_client(client)
{
}

void ChatIndexModel::setIdentity(const Identity &identity)
{
    replaceScan(m_scan, nullptr);
    beginResetModel();
    m_identity = identity;
    m_chats.clear();
    m_state = ScanState::Idle;
    m_error.clear();
    endResetModel();
}

void ChatIndexModel::reload()
{
    // A new scan: the old rows go, the new ones stream in.
    setIdentity(m_identity);
    m_state = ScanState::Loading;
    auto *scan = new ChatScan(m_client, m_identity, this);
    replaceScan(m_scan, scan);
    connect(scan, &ChatScan::records, this, &ChatIndexModel::addRecords);
    connect(scan, &ChatScan::finished, this, [this] {
        m_state = ScanState::Loaded;
        Q_EMIT loaded();
    });
    connect(scan, &ChatScan::failed, this, [this](const ApiError &error) {
        m_state = ScanState::Failed;
        m_error = tr("Could not list the chats: %1").arg(error.toString());
        Q_EMIT failed(error);
    });
    scan->start(chatscan::userScript());
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

int ChatIndexModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ChatIndexModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return QVariant();
    const ChatFolder &chat = m_chats.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case ChatColumn:
            return chat.id;
        case SizeColumn:
            return QLocale().formattedDataSize(chat.size);
        case LastActivityColumn:
            return formatTime(chat.lastActivity);
        default:
            return QVariant();
        }
    case Qt::ToolTipRole:
        return chat.path;
    case SortRole:
        switch (index.column()) {
        case ChatColumn:
            return chat.id;
        case SizeColumn:
            return chat.size;
        case LastActivityColumn:
            return chat.lastActivity;
        default:
            return QVariant();
        }
    case ChatIdRole:
        return chat.id;
    case PathRole:
        return chat.path;
    case SizeRole:
        return chat.size;
    case LastActivityRole:
        return chat.lastActivity;
    default:
        return QVariant();
    }
}

QVariant ChatIndexModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QVariant();
    switch (section) {
    case ChatColumn:
        return tr("Chat");
    case SizeColumn:
        return tr("Size");
    case LastActivityColumn:
        return tr("Last activity");
    default:
        return QVariant();
    }
}

// ---------------------------------------------------------------------------------------
// AdminOverviewModel

AdminOverviewModel::AdminOverviewModel(OpenTerminalClient *client, QObject *parent)
    : QAbstractTableModel(parent)
    , m_client(client)
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
    replaceScan(m_scan, nullptr);
    beginResetModel();
    m_accounts.clear();
    m_rowOfAccount.clear();
    m_error.clear();
    endResetModel();
    m_state = ScanState::Loading;

    // The server's own account: no X-User-Id, so every home is readable.
    auto *scan = new ChatScan(m_client, Identity(), this);
    replaceScan(m_scan, scan);
    connect(scan, &ChatScan::records, this, &AdminOverviewModel::addRecords);
    connect(scan, &ChatScan::finished, this, [this] {
        m_state = ScanState::Loaded;
        Q_EMIT loaded();
    });
    connect(scan, &ChatScan::failed, this, [this](const ApiError &error) {
        if (isServerAccountRefusal(error)) {
            m_state = ScanState::Refused;
            m_error = tr("This server only allows per-user access: in multi-user mode it refuses "
                         "every request without a user id (X-User-Id), so there is no overview "
                         "of all users. Open one user's chats instead.");
            Q_EMIT refused(m_error);
            return;
        }
        m_state = ScanState::Failed;
        m_error = tr("Could not scan the users' chats: %1").arg(error.toString());
        Q_EMIT failed(error);
    });
    scan->start(chatscan::allUsersScript(m_homesRoot));
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

int AdminOverviewModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AdminOverviewModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return QVariant();
    const AccountChats &account = m_accounts.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case AccountColumn:
            return account.account;
        case ChatCountColumn:
            return int(account.chats.size());
        case SizeColumn:
            return QLocale().formattedDataSize(account.totalSize);
        case LastActivityColumn:
            return formatTime(account.lastActivity);
        default:
            return QVariant();
        }
    case Qt::ToolTipRole:
        return account.home;
    case SortRole:
        switch (index.column()) {
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
    case AccountRole:
        return account.account;
    case HomeRole:
        return account.home;
    default:
        return QVariant();
    }
}

QVariant AdminOverviewModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QVariant();
    switch (section) {
    case AccountColumn:
        return tr("User");
    case ChatCountColumn:
        return tr("Chats");
    case SizeColumn:
        return tr("Size");
    case LastActivityColumn:
        return tr("Last activity");
    default:
        return QVariant();
    }
}

} // namespace sandscope
