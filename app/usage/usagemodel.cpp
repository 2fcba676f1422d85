#include "usagemodel.h"

#include <QLocale>

namespace sandscope {

UsageModel::UsageModel(QObject *parent)
    : MemberColumnTableModel(parent)
{
}

void UsageModel::setReport(const UsageReport &report)
{
    beginResetModel();
    m_report = report;
    endResetModel();
}

void UsageModel::setShowsMembers(bool shows)
{
    showMemberColumn(shows, MemberColumn);
}

double UsageModel::value(const UsageDay &day, int column)
{
    switch (column) {
    case SessionsColumn:
        return double(day.sessions);
    case TurnsColumn:
        return double(day.turns);
    case ToolCallsColumn:
        return double(day.toolCalls);
    case ErrorsColumn:
        return double(day.errors);
    case InputTokensColumn:
        return double(day.inputTokens);
    case OutputTokensColumn:
        return double(day.outputTokens);
    case CacheReadColumn:
        return double(day.cacheReadTokens);
    case CacheCreationColumn:
        return double(day.cacheCreationTokens);
    case CostColumn:
        return day.costUsd;
    default:
        return 0;
    }
}

int UsageModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_report.days.size());
}

int UsageModel::columnCount(const QModelIndex &parent) const
{
    if (parent.isValid())
        return 0;
    return showsMembers() ? ColumnCount : ColumnCount - 1;
}

QVariant UsageModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const UsageDay &day = m_report.days.at(index.row());
    const int column = index.column();
    if (role == Qt::TextAlignmentRole)
        return column >= SessionsColumn && column != MemberColumn
            ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
            : QVariant();
    if (role != Qt::DisplayRole && role != Qt::EditRole)
        return {};
    if (column == UserColumn)
        return day.user;
    if (column == MemberColumn)
        return day.member;
    if (column == DayColumn)
        return role == Qt::EditRole ? QVariant(day.day) : QVariant(day.day.toString(Qt::ISODate));
    const double number = value(day, column);
    if (role == Qt::EditRole)
        return number;
    if (column == CostColumn)
        return QStringLiteral("$%1").arg(number, 0, 'f', 4);
    return QLocale().toString(qint64(number));
}

QVariant UsageModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case UserColumn:
        return tr("User");
    case DayColumn:
        return tr("Day (UTC)");
    case SessionsColumn:
        return tr("Sessions");
    case TurnsColumn:
        return tr("Turns");
    case ToolCallsColumn:
        return tr("Tool calls");
    case ErrorsColumn:
        return tr("Errors");
    case InputTokensColumn:
        return tr("Input");
    case OutputTokensColumn:
        return tr("Output");
    case CacheReadColumn:
        return tr("Cache read");
    case CacheCreationColumn:
        return tr("Cache written");
    case CostColumn:
        return tr("Cost");
    case MemberColumn:
        return showsMembers() ? QVariant(tr("Member")) : QVariant();
    default:
        return {};
    }
}

} // namespace sandscope
