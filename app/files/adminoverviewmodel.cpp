#include "adminoverviewmodel.h"

#include "fleet/fleetfanout.h"

#include <algorithm>

namespace sandscope {

AdminOverviewModel::AdminOverviewModel(OpenTerminalClient *client, QObject *parent)
    : ChatScanTableModel(client,
        {tr("User"), tr("Chats"), tr("Chats size"), tr("Last activity"), tr("Sessions"),
            tr("Running"), tr("Disk"), tr("Member")},
        {SizeColumn, DiskColumn}, parent)
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
    m_serverNow.clear();
    // As root (no user): every home is readable.
    if (m_fanOut)
        startScans(m_fanOut, chatscan::allUsersScript(m_homesRoot), m_homesRoot);
    else
        startScan(Identity(), chatscan::allUsersScript(m_homesRoot), m_admin, m_homesRoot);
}

bool AdminOverviewModel::isFleet() const
{
    return m_fanOut && m_fanOut->isFleet();
}

int AdminOverviewModel::rowOfAccount(const QString &account, const QString &member) const
{
    return m_rowOfAccount.value(member + QLatin1Char('/') + account, -1);
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
           "without a user id (X-User-Id). Set the profile's admin command (e.g. docker compose "
           "… exec -T -u root sandbox, kubectl exec -i POD --, or sudo -n on the sandbox host) "
           "to see all users, or open one user's chats instead."));
    Q_EMIT refused(errorText());
}

int AdminOverviewModel::ensureAccount(
    const QString &home, const QString &member, QVector<AccountChats> &added)
{
    QString account = home;
    while (account.size() > 1 && account.endsWith(QLatin1Char('/')))
        account.chop(1);
    account = account.mid(account.lastIndexOf(QLatin1Char('/')) + 1);
    // Two members may each hold a home of one account (a move not finished): two rows.
    const QString key = member + QLatin1Char('/') + account;
    const auto known = m_rowOfAccount.constFind(key);
    if (known != m_rowOfAccount.constEnd())
        return *known;
    const int row = int(m_accounts.size() + added.size());
    AccountChats entry;
    entry.account = account;
    entry.member = member;
    entry.home = home;
    added.append(entry);
    m_rowOfAccount.insert(key, row);
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
        if (record.kind == ChatScanRecord::Kind::Clock) {
            m_serverNow.insert(record.member, record.modified);
            continue;
        }
        const bool isChat = record.kind == ChatScanRecord::Kind::Chat;
        const QString home = isChat
            ? record.chat.path.left(record.chat.path.lastIndexOf(QLatin1Char('/')))
            : record.homePath;
        const int row = ensureAccount(home, record.member, added);
        AccountChats &account = row < existing ? m_accounts[row] : added[row - existing];
        switch (record.kind) {
        case ChatScanRecord::Kind::Home:
        case ChatScanRecord::Kind::Clock:
            continue;
        case ChatScanRecord::Kind::Session:
            ++account.sessions;
            {
                // Each member's own clock: members need not agree on the time.
                const QDateTime now = m_serverNow.value(record.member);
                if (now.isValid() && record.modified.secsTo(now) < runningSeconds)
                    ++account.runningSessions;
            }
            break;
        case ChatScanRecord::Kind::HomeUsage:
            account.diskBytes = record.bytes;
            break;
        case ChatScanRecord::Kind::Chat:
            account.chats.append(record.chat);
            account.totalSize += record.chat.size;
            if (!account.lastActivity.isValid() || account.lastActivity < record.chat.lastActivity)
                account.lastActivity = record.chat.lastActivity;
            break;
        }
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
    case SessionCountColumn:
        return account.sessions;
    case RunningColumn:
        return account.runningSessions;
    case DiskColumn:
        return account.diskBytes;
    case MemberColumn:
        return account.member;
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
    case MemberRole:
        return account.member;
    default:
        return QVariant();
    }
}

} // namespace sandscope
