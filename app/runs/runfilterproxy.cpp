#include "runfilterproxy.h"

#include "runs/runnodedetails.h"

namespace sandscope {

RunFilterProxy::RunFilterProxy(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setRecursiveFilteringEnabled(true);
    setDynamicSortFilter(true);
}

bool RunFilterProxy::isErrorIndex(const QModelIndex &index)
{
    if (!index.isValid())
        return false;
    using Kind = RunModel::NodeKind;
    using Status = RunModel::Status;
    const auto kind = Kind(index.data(RunModel::KindRole).toInt());
    // Containers report the outcome of their children; the children are what to look at.
    if (kind == Kind::Run || kind == Kind::Turn)
        return false;
    if (kind == Kind::ApiRetry || kind == Kind::ApiError || kind == Kind::PermissionDenied)
        return true;
    switch (Status(index.data(RunModel::StatusRole).toInt())) {
    case Status::Error:
    case Status::Interrupted:
    case Status::Denied:
    case Status::Retrying:
        return true;
    case Status::None:
    case Status::Running:
    case Status::Ok:
    case Status::Background:
        break;
    }
    return index.data(RunModel::IsErrorRole).toBool();
}

QString RunFilterProxy::searchableText(const QModelIndex &sourceIndex)
{
    const QModelIndex first = sourceIndex.siblingAtColumn(RunModel::SummaryColumn);
    QStringList parts {first.data(Qt::DisplayRole).toString(),
        first.data(RunModel::ToolNameRole).toString(), first.data(RunModel::TextRole).toString()};
    parts += first.data(RunModel::DetailRole).value<RunNodeDetails>().searchTexts();
    return parts.join(QLatin1Char('\n'));
}

QVariant RunFilterProxy::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role == Qt::TextAlignmentRole && orientation == Qt::Horizontal) {
        const bool number = section == RunModel::DurationColumn || section == RunModel::TokensColumn
            || section == RunModel::CostColumn;
        return int((number ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
    }
    return QSortFilterProxyModel::headerData(section, orientation, role);
}

void RunFilterProxy::setSearchText(const QString &text)
{
    const QString simplified = text.simplified();
    if (simplified == m_searchText)
        return;
    m_searchText = simplified;
    m_words = simplified.isEmpty() ? QStringList() : simplified.split(QLatin1Char(' '));
    invalidateFilter();
    Q_EMIT filterChanged();
}

void RunFilterProxy::setErrorsOnly(bool errorsOnly)
{
    if (errorsOnly == m_errorsOnly)
        return;
    m_errorsOnly = errorsOnly;
    invalidateFilter();
    Q_EMIT filterChanged();
}

bool RunFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (!isFiltering())
        return true;
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    if (m_errorsOnly && !isErrorIndex(index))
        return false;
    if (m_words.isEmpty())
        return true;
    const QString text = searchableText(index);
    for (const QString &word : m_words) {
        if (!text.contains(word, Qt::CaseInsensitive))
            return false;
    }
    return true;
}

} // namespace sandscope
