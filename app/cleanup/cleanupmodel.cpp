#include "cleanupmodel.h"

#include "util/format.h"

#include <QDateTime>
#include <QLocale>

#include <algorithm>

namespace sandscope {

namespace {
// internalId of user rows; item rows carry their user's row + 1.
constexpr quintptr userRowId = 0;
} // namespace

CleanupModel::CleanupModel(QObject *parent)
    : QAbstractItemModel(parent)
{
}

void CleanupModel::clear()
{
    beginResetModel();
    m_users.clear();
    m_userRows.clear();
    endResetModel();
}

void CleanupModel::setPlan(const CleanupPlan &plan)
{
    beginResetModel();
    m_users.clear();
    m_userRows.clear();
    for (const CleanupItem &item : plan.items()) {
        auto row = m_userRows.constFind(groupKey(QString(), item.user));
        if (row == m_userRows.constEnd()) {
            row = m_userRows.insert(groupKey(QString(), item.user), int(m_users.size()));
            m_users.append(UserGroup {QString(), item.user, {}, 0, 0});
        }
        UserGroup &group = m_users[*row];
        group.items.append(item);
        group.bytes += item.bytes;
        if (item.action == CleanupItem::Action::Delete)
            group.deleteBytes += item.bytes;
    }
    endResetModel();
}

void CleanupModel::addItem(const CleanupItem &item)
{
    addItems({item});
}

void CleanupModel::setMemberPlan(const QString &member, const CleanupPlan &plan)
{
    removeMember(member);
    addItems(plan.items(), member);
}

void CleanupModel::removeMember(const QString &member)
{
    // A reset: item rows carry their user's row, which the removal would shift under them.
    if (std::none_of(m_users.cbegin(), m_users.cend(),
            [&](const UserGroup &group) { return group.member == member; }))
        return;
    beginResetModel();
    m_users.erase(std::remove_if(m_users.begin(), m_users.end(),
                      [&](const UserGroup &group) { return group.member == member; }),
        m_users.end());
    rebuildRows();
    endResetModel();
}

void CleanupModel::rebuildRows()
{
    m_userRows.clear();
    for (int row = 0; row < m_users.size(); ++row)
        m_userRows.insert(groupKey(m_users.at(row).member, m_users.at(row).user), row);
}

QString CleanupModel::memberAt(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != this)
        return {};
    const quintptr id = index.internalId();
    return m_users.at(id == userRowId ? index.row() : int(id - 1)).member;
}

void CleanupModel::addItems(const QVector<CleanupItem> &items, const QString &member)
{
    int firstChanged = int(m_users.size());
    int lastChanged = -1;
    for (qsizetype start = 0; start < items.size();) {
        // A run of items of one user: one insertion.
        const QString &user = items.at(start).user;
        qsizetype end = start + 1;
        while (end < items.size() && items.at(end).user == user)
            ++end;
        int userRow = m_userRows.value(groupKey(member, user), -1);
        if (userRow < 0) {
            userRow = int(m_users.size());
            beginInsertRows({}, userRow, userRow);
            m_users.append(UserGroup {member, user, {}, 0, 0});
            m_userRows.insert(groupKey(member, user), userRow);
            endInsertRows();
        }
        UserGroup &group = m_users[userRow];
        const int first = int(group.items.size());
        beginInsertRows(index(userRow, 0), first, first + int(end - start) - 1);
        for (qsizetype i = start; i < end; ++i) {
            const CleanupItem &item = items.at(i);
            group.items.append(item);
            group.bytes += item.bytes;
            if (item.action == CleanupItem::Action::Delete)
                group.deleteBytes += item.bytes;
        }
        endInsertRows();
        firstChanged = std::min(firstChanged, userRow);
        lastChanged = std::max(lastChanged, userRow);
        start = end;
    }
    // The totals of the user rows changed too.
    if (lastChanged >= 0)
        Q_EMIT dataChanged(index(firstChanged, 0), index(lastChanged, ColumnCount - 1));
}

int CleanupModel::itemCount() const
{
    int count = 0;
    for (const UserGroup &group : m_users)
        count += int(group.items.size());
    return count;
}

qint64 CleanupModel::totalBytes() const
{
    qint64 total = 0;
    for (const UserGroup &group : m_users)
        total += group.bytes;
    return total;
}

qint64 CleanupModel::deleteBytes() const
{
    qint64 total = 0;
    for (const UserGroup &group : m_users)
        total += group.deleteBytes;
    return total;
}

const CleanupItem *CleanupModel::itemAt(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != this || index.internalId() == userRowId)
        return nullptr;
    return &m_users.at(int(index.internalId() - 1)).items.at(index.row());
}

QModelIndex CleanupModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    if (!parent.isValid())
        return createIndex(row, column, userRowId);
    return createIndex(row, column, quintptr(parent.row()) + 1);
}

QModelIndex CleanupModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == userRowId)
        return {};
    return createIndex(int(child.internalId() - 1), 0, userRowId);
}

int CleanupModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return int(m_users.size());
    if (parent.column() != 0 || parent.internalId() != userRowId)
        return 0;
    return int(m_users.at(parent.row()).items.size());
}

int CleanupModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant CleanupModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    if (index.internalId() == userRowId)
        return userData(m_users.at(index.row()), index.column(), role);
    if (role == MemberRole
        || (index.column() == MemberColumn
            && (role == Qt::DisplayRole || role == SortRole || role == Qt::ToolTipRole)))
        return memberAt(index);
    return cleanupItemData(*itemAt(index), index.column(), role);
}

QVariant CleanupModel::userData(const UserGroup &group, int column, int role) const
{
    switch (role) {
    case IsUserRole:
        return true;
    case UserRole:
        return group.user;
    case BytesRole:
        return group.bytes;
    case DeleteBytesRole:
        return group.deleteBytes;
    case ItemCountRole:
        return int(group.items.size());
    case MemberRole:
        return group.member;
    case Qt::TextAlignmentRole:
        if (column == SizeColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case SortRole:
        if (column == SizeColumn)
            return group.bytes;
        if (column == NameColumn)
            return group.user;
        if (column == MemberColumn)
            return group.member;
        return {};
    case Qt::DisplayRole:
        if (column == NameColumn)
            return group.user;
        if (column == MemberColumn)
            return group.member;
        if (column == SizeColumn)
            return format::byteSize(group.bytes);
        if (column == ReasonColumn)
            return tr("%n item(s), %1 to delete", nullptr, int(group.items.size()))
                .arg(format::byteSize(group.deleteBytes));
        return {};
    default:
        return {};
    }
}

QVariant CleanupModel::cleanupItemData(const CleanupItem &item, int column, int role) const
{
    switch (role) {
    case IsUserRole:
        return false;
    case UserRole:
        return item.user;
    case KindRole:
        return int(item.kind);
    case BytesRole:
        return item.bytes;
    case DeleteBytesRole:
        return item.action == CleanupItem::Action::Delete ? item.bytes : qint64(0);
    case AgeDaysRole:
        return item.ageDays;
    case Qt::TextAlignmentRole:
        if (column == SizeColumn || column == AgeColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ToolTipRole:
        // The Reason cell explains itself in full; the others name the item.
        if (column == ReasonColumn)
            return item.message.isEmpty() ? item.reason
                                          : item.reason + QLatin1Char('\n') + item.message;
        return item.message.isEmpty() ? item.path : item.path + QLatin1Char('\n') + item.message;
    case SortRole:
        switch (column) {
        case SizeColumn:
            return item.bytes;
        case AgeColumn:
            return item.ageDays;
        case LastActivityColumn:
            return item.lastActivityEpoch;
        default:
            return cleanupItemData(item, column, Qt::DisplayRole);
        }
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn:
            return item.path;
        case KindColumn:
            return CleanupItem::kindName(item.kind);
        case ActionColumn:
            return CleanupItem::actionName(item.action);
        case SizeColumn:
            return format::byteSize(item.bytes);
        case AgeColumn:
            return tr("%n day(s)", nullptr, int(item.ageDays));
        case LastActivityColumn:
            return item.lastActivity;
        case ReasonColumn:
            return item.reason;
        case OutcomeColumn:
            return item.outcome;
        default:
            return {};
        }
    default:
        return {};
    }
}

QVariant CleanupModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractItemModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn:
        return tr("User / path");
    case KindColumn:
        return tr("Kind");
    case ActionColumn:
        return tr("Action");
    case SizeColumn:
        return tr("Size");
    case AgeColumn:
        return tr("Age");
    case LastActivityColumn:
        return tr("Last activity");
    case ReasonColumn:
        return tr("Reason");
    case OutcomeColumn:
        return tr("Outcome");
    case MemberColumn:
        return tr("Member");
    default:
        return {};
    }
}

// ---------------------------------------------------------------------------------------

CleanupFilterProxy::CleanupFilterProxy(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(CleanupModel::SortRole);
    // A user row is shown when one of its items passes.
    setRecursiveFilteringEnabled(true);
}

void CleanupFilterProxy::setFilters(const Filters &filters)
{
    if (filters == m_filters)
        return;
    m_filters = filters;
    invalidateFilter();
}

void CleanupFilterProxy::setKinds(const QVector<CleanupItem::Kind> &kinds)
{
    Filters changed = m_filters;
    changed.kinds = kinds;
    setFilters(changed);
}

void CleanupFilterProxy::setUserFilter(const QString &text)
{
    Filters changed = m_filters;
    changed.user = text;
    setFilters(changed);
}

void CleanupFilterProxy::setMinimumBytes(qint64 bytes)
{
    Filters changed = m_filters;
    changed.minimumBytes = bytes;
    setFilters(changed);
}

void CleanupFilterProxy::setMinimumAgeDays(qint64 days)
{
    Filters changed = m_filters;
    changed.minimumAgeDays = days;
    setFilters(changed);
}

void CleanupFilterProxy::setDeleteOnly(bool deleteOnly)
{
    Filters changed = m_filters;
    changed.deleteOnly = deleteOnly;
    setFilters(changed);
}

bool CleanupFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (!sourceParent.isValid())
        return false; // a user row: decided by its items (recursive filtering)
    const auto *model = static_cast<const CleanupModel *>(sourceModel());
    const CleanupItem *item = model->itemAt(model->index(sourceRow, 0, sourceParent));
    if (!item)
        return false;
    const Filters &f = m_filters;
    if (!f.kinds.isEmpty() && !f.kinds.contains(item->kind))
        return false;
    if (!f.user.isEmpty() && !item->user.contains(f.user, Qt::CaseInsensitive))
        return false;
    if (item->bytes < f.minimumBytes || item->ageDays < f.minimumAgeDays)
        return false;
    if (f.deleteOnly && item->action != CleanupItem::Action::Delete && item->bytes != 0)
        return false;
    return true;
}

bool CleanupFilterProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const auto *model = static_cast<const CleanupModel *>(sourceModel());
    const CleanupItem *a = model->itemAt(left);
    const CleanupItem *b = model->itemAt(right);
    const int column = left.column();
    if (a && b) {
        switch (column) {
        case CleanupModel::SizeColumn:
            return a->bytes < b->bytes;
        case CleanupModel::AgeColumn:
            return a->ageDays < b->ageDays;
        case CleanupModel::LastActivityColumn:
            return a->lastActivityEpoch < b->lastActivityEpoch;
        case CleanupModel::NameColumn:
            return a->path < b->path;
        default:
            break;
        }
    }
    return QSortFilterProxyModel::lessThan(left, right);
}

} // namespace sandscope
