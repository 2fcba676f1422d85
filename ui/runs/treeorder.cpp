#include "treeorder.h"

#include <QAbstractItemModel>

namespace sandscope::treeorder {

QModelIndex lastDescendant(const QAbstractItemModel *model, QModelIndex index)
{
    while (model->rowCount(index) > 0)
        index = model->index(model->rowCount(index) - 1, 0, index);
    return index;
}

QModelIndex nextInOrder(const QAbstractItemModel *model, QModelIndex index)
{
    if (!index.isValid())
        return model->index(0, 0);
    if (model->rowCount(index) > 0)
        return model->index(0, 0, index);
    while (index.isValid()) {
        const QModelIndex sibling = index.sibling(index.row() + 1, 0);
        if (sibling.isValid())
            return sibling;
        index = index.parent();
    }
    return {};
}

QModelIndex previousInOrder(const QAbstractItemModel *model, const QModelIndex &index)
{
    if (!index.isValid())
        return model->rowCount() > 0 ? lastDescendant(model, QModelIndex()) : QModelIndex();
    if (index.row() > 0)
        return lastDescendant(model, index.sibling(index.row() - 1, 0));
    return index.parent();
}

QModelIndex findWrapping(const QAbstractItemModel *model, const QModelIndex &start, bool forward,
    const std::function<bool(const QModelIndex &)> &matches)
{
    QModelIndex index = start;
    bool wrapped = false;
    while (true) {
        index = forward ? nextInOrder(model, index) : previousInOrder(model, index);
        if (!index.isValid()) {
            if (wrapped)
                return {};
            wrapped = true;
            continue;
        }
        if (index == start)
            return {};
        if (matches(index))
            return index;
    }
}

QModelIndex lastWithData(const QAbstractItemModel *model, int role, const QVariant &value)
{
    for (QModelIndex index = previousInOrder(model, {}); index.isValid();
         index = previousInOrder(model, index)) {
        if (index.data(role) == value)
            return index;
    }
    return {};
}

} // namespace sandscope::treeorder
