#include "touchedfilesmodel.h"

#include "util/terminalsafe.h"

namespace sandscope {

TouchedFilesModel::TouchedFilesModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void TouchedFilesModel::setFiles(const QVector<RunComparison::FileTouch> &files)
{
    beginResetModel();
    m_files = files;
    endResetModel();
}

int TouchedFilesModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_files.size());
}

int TouchedFilesModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TouchedFilesModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const RunComparison::FileTouch &file = m_files.at(index.row());
    if (role == SidesRole)
        return (file.leftTools.isEmpty() ? 0 : 1) | (file.rightTools.isEmpty() ? 0 : 2);
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case PathColumn:
        return TerminalSafe::name(file.path); // a path cannot reorder or hide itself (issue 27)
    case LeftColumn:
        return file.leftTools.isEmpty() ? QStringLiteral("—")
                                        : file.leftTools.join(QStringLiteral(", "));
    case RightColumn:
        return file.rightTools.isEmpty() ? QStringLiteral("—")
                                         : file.rightTools.join(QStringLiteral(", "));
    }
    return {};
}

QVariant TouchedFilesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case PathColumn:
        return tr("File");
    case LeftColumn:
        return tr("Left (A)");
    case RightColumn:
        return tr("Right (B)");
    }
    return {};
}

} // namespace sandscope
