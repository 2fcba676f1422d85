#pragma once
// The items of a cleanup run as a tree: one row per user (with totals) and below it that
// user's chats, sessions and reported items. Items can be added while the run streams in.
// On a fleet each member's plan is its own: a user row belongs to one member (a user whose home
// is on two members has a row on each), and every row names its member in the Member column
// (empty for one server, whose views hide the column).
// CleanupFilterProxy narrows it by kind, user, minimum size and age, and sorts numerically.

#include "cleanup/cleanupplan.h"

#include <QAbstractItemModel>
#include <QHash>
#include <QSortFilterProxyModel>
#include <QVector>

namespace sandscope {

class CleanupModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        KindColumn,
        ActionColumn,
        SizeColumn,
        AgeColumn,
        LastActivityColumn,
        ReasonColumn,
        OutcomeColumn,
        MemberColumn, // a fleet's: whose plan the row is part of
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1, // numbers for size/age/time, text otherwise
        IsUserRole, // true on a user row
        UserRole, // the user of the row
        KindRole, // int(CleanupItem::Kind) on item rows
        BytesRole, // item bytes; on a user row the bytes of all of its items
        DeleteBytesRole, // bytes of `delete` items (0 or the item's bytes on item rows)
        AgeDaysRole,
        ItemCountRole, // items of a user row
        MemberRole, // the member of the row (empty for one server)
    };

    explicit CleanupModel(QObject *parent = nullptr);

    void clear();
    // Replaces everything (one reset).
    void setPlan(const CleanupPlan &plan);
    void addItem(const CleanupItem &item);
    // Appends items (of `member` on a fleet) as they stream in: one insertion per user and run
    // of items, one dataChanged for the users' totals, whatever the batch holds.
    void addItems(const QVector<CleanupItem> &items, const QString &member = QString());
    // Replaces the rows of `member` with `plan` (the other members' rows stay).
    void setMemberPlan(const QString &member, const CleanupPlan &plan);
    // Removes the rows of `member`.
    void removeMember(const QString &member);

    int userCount() const { return int(m_users.size()); }
    int itemCount() const;
    qint64 totalBytes() const;
    qint64 deleteBytes() const;
    // The item at a source index of an item row; nullptr for user rows.
    const CleanupItem *itemAt(const QModelIndex &index) const;
    // The member of a source index (user or item row); empty for one server.
    QString memberAt(const QModelIndex &index) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(
        int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct UserGroup {
        QString member;
        QString user;
        QVector<CleanupItem> items;
        qint64 bytes = 0;
        qint64 deleteBytes = 0;
    };
    QVariant userData(const UserGroup &group, int column, int role) const;
    QVariant cleanupItemData(const CleanupItem &item, int column, int role) const;

    QVector<UserGroup> m_users;
    static QString groupKey(const QString &member, const QString &user)
    {
        return member + QLatin1Char('\n') + user;
    }
    void rebuildRows();

    QHash<QString, int> m_userRows; // groupKey -> row
};

// Filters and sorts a CleanupModel (100,000 items at the scale of a deployment): items are read
// directly, not through QVariant roles, and the filter is re-applied only when it changed.
class CleanupFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    struct Filters {
        QVector<CleanupItem::Kind> kinds; // empty = every kind
        QString user; // case-insensitive part of the user name; empty = every user
        qint64 minimumBytes = 0;
        qint64 minimumAgeDays = 0;
        bool deleteOnly = false; // only items that would be deleted

        bool operator==(const Filters &other) const
        {
            return kinds == other.kinds && user == other.user && minimumBytes == other.minimumBytes
                && minimumAgeDays == other.minimumAgeDays && deleteOnly == other.deleteOnly;
        }
    };

    explicit CleanupFilterProxy(QObject *parent = nullptr);

    // All filters at once: the rows are filtered once.
    void setFilters(const Filters &filters);
    const Filters &filters() const { return m_filters; }
    void setKinds(const QVector<CleanupItem::Kind> &kinds);
    void setUserFilter(const QString &text);
    void setMinimumBytes(qint64 bytes);
    void setMinimumAgeDays(qint64 days);
    void setDeleteOnly(bool deleteOnly);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    Filters m_filters;
};

} // namespace sandscope
