#include "runcomparisonmodel.h"

#include "util/terminalsafe.h"

namespace sandscope {

namespace {

QString marker(RunComparison::State state)
{
    switch (state) {
    case RunComparison::State::Same:
        return QStringLiteral("=");
    case RunComparison::State::Changed:
        return QStringLiteral("~");
    case RunComparison::State::Added:
        return QStringLiteral("+");
    case RunComparison::State::Removed:
        return QStringLiteral("-");
    }
    return {};
}

} // namespace

RunComparisonModel::RunComparisonModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void RunComparisonModel::setComparison(const RunComparison &comparison)
{
    beginResetModel();
    m_comparison = comparison;
    rebuild();
    endResetModel();
}

void RunComparisonModel::setDifferencesOnly(bool only)
{
    if (only == m_differencesOnly)
        return;
    beginResetModel();
    m_differencesOnly = only;
    rebuild();
    endResetModel();
}

void RunComparisonModel::rebuild()
{
    m_visible.clear();
    const QVector<RunComparison::Row> &rows = m_comparison.rows();
    for (int i = 0; i < rows.size(); ++i) {
        if (!m_differencesOnly || rows.at(i).state != RunComparison::State::Same)
            m_visible.append(i);
    }
}

const RunComparison::Row &RunComparisonModel::rowAt(int row) const
{
    return m_comparison.rows().at(m_visible.at(row));
}

int RunComparisonModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_visible.size());
}

int RunComparisonModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunComparisonModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const RunComparison::Row &row = rowAt(index.row());
    switch (role) {
    case StateRole:
        return int(row.state);
    case LeftCallRole:
        return row.left;
    case RightCallRole:
        return row.right;
    case FieldsRole:
        return row.fields;
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
        break;
    default:
        return {};
    }
    const bool tip = role == Qt::ToolTipRole;
    switch (index.column()) {
    case StateColumn:
        return tip ? RunComparison::stateName(row.state) : marker(row.state);
    // A call's summary (a command, a path) cannot reorder or hide itself (issue 27).
    case LeftColumn:
        return row.left < 0 ? QString()
                            : TerminalSafe::name(m_comparison.left().calls.at(row.left).label());
    case RightColumn:
        return row.right < 0 ? QString()
                             : TerminalSafe::name(m_comparison.right().calls.at(row.right).label());
    case DiffersColumn:
        return RunComparison::fieldNames(row.fields).join(QStringLiteral(", "));
    }
    return {};
}

QVariant RunComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case StateColumn:
        return QString();
    case LeftColumn:
        return tr("Left (A)");
    case RightColumn:
        return tr("Right (B)");
    case DiffersColumn:
        return tr("Differs in");
    }
    return {};
}

} // namespace sandscope
