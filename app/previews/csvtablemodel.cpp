#include "csvtablemodel.h"

namespace sandscope {

namespace {
constexpr int maxCellChars = 500;
} // namespace

CsvTableModel::CsvTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void CsvTableModel::setTable(CsvTable table)
{
    beginResetModel();
    m_table = std::move(table);
    endResetModel();
}

void CsvTableModel::setFirstRowIsHeader(bool header)
{
    if (header == m_firstRowIsHeader)
        return;
    beginResetModel();
    m_firstRowIsHeader = header;
    endResetModel();
}

int CsvTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_table.rows.size()) - firstDataRow();
}

int CsvTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_table.columnCount;
}

QVariant CsvTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole && role != Qt::EditRole)
        return {};
    const QStringList &row = m_table.rows.at(index.row() + firstDataRow());
    if (index.column() >= row.size())
        return QString();
    const QString &cell = row.at(index.column());
    if (role == Qt::DisplayRole && cell.size() > maxCellChars)
        return QString(cell.left(maxCellChars) + QStringLiteral("…"));
    return cell;
}

QVariant CsvTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Vertical)
        return section + 1;
    if (firstDataRow() == 1) {
        const QStringList &header = m_table.rows.constFirst();
        if (section < header.size() && !header.at(section).isEmpty())
            return header.at(section);
    }
    return QString::number(section + 1);
}

} // namespace sandscope
