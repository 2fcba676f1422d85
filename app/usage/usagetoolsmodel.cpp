#include "usagetoolsmodel.h"

#include "util/format.h"

#include <QLocale>

namespace sandscope {

UsageToolsModel::UsageToolsModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void UsageToolsModel::setTools(const QVector<ToolUsage> &tools)
{
    beginResetModel();
    m_tools = tools;
    endResetModel();
}

int UsageToolsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_tools.size());
}

int UsageToolsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant UsageToolsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ToolUsage &tool = m_tools.at(index.row());
    const int column = index.column();
    if (role == Qt::TextAlignmentRole)
        return column == NameColumn ? QVariant() : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    if (role != Qt::DisplayRole && role != Qt::EditRole)
        return {};
    const qint64 average = tool.timedCalls > 0 ? tool.totalMs / tool.timedCalls : -1;
    switch (column) {
    case NameColumn:
        return tool.name;
    case CallsColumn:
        return role == Qt::EditRole ? QVariant(tool.calls)
                                    : QVariant(QLocale().toString(tool.calls));
    case ErrorsColumn:
        return role == Qt::EditRole ? QVariant(tool.errors)
                                    : QVariant(QLocale().toString(tool.errors));
    case TotalTimeColumn:
        return role == Qt::EditRole ? QVariant(tool.totalMs)
                                    : QVariant(format::duration(tool.totalMs));
    case AverageTimeColumn:
        if (role == Qt::EditRole)
            return average;
        return average >= 0 ? format::duration(average) : QString();
    default:
        return {};
    }
}

QVariant UsageToolsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn:
        return tr("Tool");
    case CallsColumn:
        return tr("Calls");
    case ErrorsColumn:
        return tr("Failed");
    case TotalTimeColumn:
        return tr("Total time");
    case AverageTimeColumn:
        return tr("Average");
    default:
        return {};
    }
}

} // namespace sandscope
