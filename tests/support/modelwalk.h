#pragma once
// Finding rows of a tree model by their names (EditRole, the exact name), for the tests of
// the file models.

#include <QAbstractItemModel>
#include <QStringList>

namespace sandscope::test {

inline QModelIndex childNamed(
    const QAbstractItemModel &model, const QModelIndex &parent, const QString &name)
{
    for (int row = 0; row < model.rowCount(parent); ++row) {
        const QModelIndex child = model.index(row, 0, parent);
        if (child.data(Qt::EditRole).toString() == name)
            return child;
    }
    return QModelIndex();
}

// The names under parent, sorted.
inline QStringList childNames(const QAbstractItemModel &model, const QModelIndex &parent)
{
    QStringList names;
    for (int row = 0; row < model.rowCount(parent); ++row)
        names << model.index(row, 0, parent).data(Qt::EditRole).toString();
    names.sort();
    return names;
}

} // namespace sandscope::test
