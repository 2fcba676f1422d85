#include "liveagentproxy.h"

#include "live/liveagentmodel.h"

namespace sandscope {

LiveAgentProxy::LiveAgentProxy(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(LiveAgentModel::SortRole);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    setFilterKeyColumn(-1);
    setDynamicSortFilter(true);
}

void LiveAgentProxy::setSourceModel(QAbstractItemModel *model)
{
    QSortFilterProxyModel::setSourceModel(model);
    if (sortColumn() < 0)
        sort(LiveAgentModel::ActivityColumn, Qt::DescendingOrder);
    else
        sort(sortColumn(), sortOrder());
}

} // namespace sandscope
