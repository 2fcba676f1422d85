#include "runfilterproxy.h"

#include "runs/runnodedetails.h"

#include <QVector>

#include <atomic>

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

void RunFilterProxy::setSourceModel(QAbstractItemModel *model)
{
    if (sourceModel())
        disconnect(sourceModel(), nullptr, this, nullptr);
    m_runModel = qobject_cast<RunModel *>(model);
    m_matchCount = -1;
    QSortFilterProxyModel::setSourceModel(model);
    if (!model)
        return;
    // New or changed nodes change the count (RunModel forgets a changed node's verdict).
    const auto recount = [this] {
        m_matchCount = -1;
    };
    connect(model, &QAbstractItemModel::rowsInserted, this, recount);
    connect(model, &QAbstractItemModel::modelReset, this, recount);
    connect(model, &QAbstractItemModel::dataChanged, this, recount);
}

void RunFilterProxy::setSearchText(const QString &text)
{
    const QString simplified = text.simplified();
    if (simplified == m_searchText)
        return;
    m_searchText = simplified;
    m_words
        = simplified.isEmpty() ? QStringList() : simplified.toCaseFolded().split(QLatin1Char(' '));
    if (m_words.isEmpty() && m_runModel)
        m_runModel->dropSearchTexts(); // the memory goes back when nobody searches
    filterChangedNow();
}

void RunFilterProxy::setErrorsOnly(bool errorsOnly)
{
    if (errorsOnly == m_errorsOnly)
        return;
    m_errorsOnly = errorsOnly;
    filterChangedNow();
}

void RunFilterProxy::filterChangedNow()
{
    m_matchCount = -1;
    // Unique over all proxies, so two proxies of one model never read each other's verdicts.
    static std::atomic<quint32> generations {1};
    m_generation = ++generations;
    if (m_generation == 0) // 0 marks "no verdict" on the nodes
        m_generation = ++generations;
    // invalidate(), not invalidateFilter(): one layoutChanged for the whole tree. Filtering
    // range by range updates every persistent index per range (a view keeps one per
    // expanded row): quadratic, ~30 s at 100,000 expanded nodes.
    invalidate();
    Q_EMIT filterChanged();
}

bool RunFilterProxy::evaluate(const QModelIndex &index) const
{
    if (m_errorsOnly && !isErrorIndex(index))
        return false;
    if (m_words.isEmpty())
        return true;
    const QString folded = m_runModel ? QString() : searchableText(index).toCaseFolded();
    const QString &text = m_runModel ? m_runModel->foldedSearchText(index) : folded;
    for (const QString &word : m_words) {
        if (!text.contains(word))
            return false;
    }
    return true;
}

bool RunFilterProxy::matchesItself(const QModelIndex &index) const
{
    if (!m_runModel)
        return evaluate(index);
    const int known = m_runModel->filterMemo(index, m_generation);
    if (known >= 0)
        return known == 1;
    const bool matches = evaluate(index);
    m_runModel->setFilterMemo(index, m_generation, matches);
    return matches;
}

// Iterative: a hostile file can nest sub-agents deeper than the stack would allow.
int RunFilterProxy::countMatches(const QModelIndex &sourceParent) const
{
    const QAbstractItemModel *model = sourceModel();
    int count = 0;
    QVector<QModelIndex> pending {sourceParent};
    while (!pending.isEmpty()) {
        const QModelIndex parent = pending.takeLast();
        const int rows = model->rowCount(parent);
        for (int row = 0; row < rows; ++row) {
            const QModelIndex index = model->index(row, 0, parent);
            count += matchesItself(index) ? 1 : 0;
            pending.append(index);
        }
    }
    return count;
}

int RunFilterProxy::matchCount() const
{
    if (!isFiltering() || !sourceModel())
        return 0;
    if (m_matchCount < 0)
        m_matchCount = countMatches(QModelIndex());
    return m_matchCount;
}

bool RunFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (!isFiltering())
        return true;
    return matchesItself(sourceModel()->index(sourceRow, 0, sourceParent));
}

} // namespace sandscope
