#include "sessionitemdelegate.h"

#include "sessions/sessionlistmodel.h"

namespace sandscope {

void SessionItemDelegate::initStyleOption(
    QStyleOptionViewItem *option, const QModelIndex &index) const
{
    QStyledItemDelegate::initStyleOption(option, index);
    if (index.data(SessionListModel::RunningRole).toBool())
        option->font.setBold(true);
}

} // namespace sandscope
