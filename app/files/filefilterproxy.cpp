#include "filefilterproxy.h"

#include "files/remotefilemodel.h"

#include <QDateTime>

namespace sandscope {

namespace {

bool isHiddenName(const QString &name)
{
    return name.startsWith(QLatin1Char('.'));
}

// Case-insensitive, with runs of digits compared by value ("file2" before "file10"). Done
// here rather than with QCollator, whose numeric mode depends on the ICU build and locale.
int naturalCompare(const QString &left, const QString &right)
{
    qsizetype i = 0;
    qsizetype j = 0;
    while (i < left.size() && j < right.size()) {
        const QChar a = left.at(i);
        const QChar b = right.at(j);
        if (a.isDigit() && b.isDigit()) {
            qsizetype endA = i;
            qsizetype endB = j;
            while (endA < left.size() && left.at(endA).isDigit())
                ++endA;
            while (endB < right.size() && right.at(endB).isDigit())
                ++endB;
            // Leading zeros do not count; then the longer number is the larger one.
            qsizetype startA = i;
            qsizetype startB = j;
            while (startA + 1 < endA && left.at(startA) == QLatin1Char('0'))
                ++startA;
            while (startB + 1 < endB && right.at(startB) == QLatin1Char('0'))
                ++startB;
            const qsizetype lengthA = endA - startA;
            const qsizetype lengthB = endB - startB;
            if (lengthA != lengthB)
                return lengthA < lengthB ? -1 : 1;
            const int digits = QStringView(left)
                                   .mid(startA, lengthA)
                                   .compare(QStringView(right).mid(startB, lengthB));
            if (digits != 0)
                return digits;
            i = endA;
            j = endB;
            continue;
        }
        const QChar lowerA = a.toCaseFolded();
        const QChar lowerB = b.toCaseFolded();
        if (lowerA != lowerB)
            return lowerA < lowerB ? -1 : 1;
        ++i;
        ++j;
    }
    if (i < left.size())
        return 1;
    return j < right.size() ? -1 : 0;
}

} // namespace

FileFilterProxy::FileFilterProxy(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setRecursiveFilteringEnabled(true);
    setDynamicSortFilter(true);
}

void FileFilterProxy::setNameFilter(const QString &pattern)
{
    if (pattern == m_nameFilter)
        return;
    m_nameFilter = pattern;
    const bool wildcard = pattern.contains(QLatin1Char('*')) || pattern.contains(QLatin1Char('?'));
    m_namePattern
        = QRegularExpression(wildcard ? QRegularExpression::wildcardToRegularExpression(pattern)
                                      : QRegularExpression::escape(pattern),
            QRegularExpression::CaseInsensitiveOption);
    refilter();
}

void FileFilterProxy::setShowHidden(bool show)
{
    if (show == m_showHidden)
        return;
    m_showHidden = show;
    refilter();
}

void FileFilterProxy::refilter()
{
    // invalidateFilter() is the one call that exists in both Qt 5.15 and 6.4 without
    // deprecation; it re-evaluates every row.
    invalidateFilter();
}

bool FileFilterProxy::insideHiddenFolder(const QModelIndex &sourceParent) const
{
    for (QModelIndex folder = sourceParent; folder.isValid(); folder = folder.parent()) {
        if (folder.data(RemoteFileModel::IsLocationRole).toBool())
            return false;
        if (isHiddenName(folder.data(Qt::EditRole).toString()))
            return true;
    }
    return false;
}

bool FileFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QModelIndex item = sourceModel()->index(sourceRow, 0, sourceParent);
    if (item.data(RemoteFileModel::IsLocationRole).toBool())
        return true;
    const QString name = item.data(Qt::EditRole).toString();
    // Recursive filtering would show a hidden folder for a matching row inside it, so the
    // hidden check looks at the ancestors too.
    if (!m_showHidden && (isHiddenName(name) || insideHiddenFolder(sourceParent)))
        return false;
    return m_nameFilter.isEmpty() || m_namePattern.match(name).hasMatch();
}

bool FileFilterProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const bool leftIsFolder = left.data(RemoteFileModel::IsDirectoryRole).toBool();
    const bool rightIsFolder = right.data(RemoteFileModel::IsDirectoryRole).toBool();
    if (leftIsFolder != rightIsFolder) // folders first, also when sorted descending
        return sortOrder() == Qt::AscendingOrder ? leftIsFolder : rightIsFolder;

    const QString leftName
        = left.siblingAtColumn(RemoteFileModel::NameColumn).data(Qt::EditRole).toString();
    const QString rightName
        = right.siblingAtColumn(RemoteFileModel::NameColumn).data(Qt::EditRole).toString();
    int order = 0;
    switch (left.column()) {
    case RemoteFileModel::SizeColumn: {
        const qint64 a = left.data(RemoteFileModel::SizeRole).toLongLong();
        const qint64 b = right.data(RemoteFileModel::SizeRole).toLongLong();
        order = a < b ? -1 : (a > b ? 1 : 0);
        break;
    }
    case RemoteFileModel::ModifiedColumn: {
        const QDateTime a = left.data(RemoteFileModel::ModifiedRole).toDateTime();
        const QDateTime b = right.data(RemoteFileModel::ModifiedRole).toDateTime();
        order = a < b ? -1 : (b < a ? 1 : 0);
        break;
    }
    case RemoteFileModel::TypeColumn:
        order = QString::compare(left.data(RemoteFileModel::MimeTypeRole).toString(),
            right.data(RemoteFileModel::MimeTypeRole).toString());
        break;
    default:
        break;
    }
    // Ties (and the name column) fall back to the name, so the order is always total.
    if (order == 0)
        order = naturalCompare(leftName, rightName);
    if (order == 0)
        order = QString::compare(leftName, rightName);
    return order < 0;
}

} // namespace sandscope
