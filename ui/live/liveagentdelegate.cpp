#include "liveagentdelegate.h"

#include "live/liveagentmodel.h"

namespace sandscope {

void LiveAgentDelegate::initStyleOption(
    QStyleOptionViewItem *option, const QModelIndex &index) const
{
    QStyledItemDelegate::initStyleOption(option, index);
    switch (index.column()) {
    case LiveAgentModel::ToolColumn:
        if (index.data(LiveAgentModel::ToolElapsedRole).toLongLong() >= longCallMs) {
            option->font.setBold(true);
            option->palette.setColor(QPalette::Text, option->palette.color(QPalette::Link));
        }
        break;
    case LiveAgentModel::LastLineColumn:
    case LiveAgentModel::ChatColumn:
        option->textElideMode = Qt::ElideMiddle;
        if (index.column() == LiveAgentModel::LastLineColumn
            && !index.data(LiveAgentModel::ProblemRole).toString().isEmpty())
            option->palette.setColor(QPalette::Text, QColor(0xb3, 0x5c, 0x00));
        break;
    default:
        break;
    }
}

} // namespace sandscope
