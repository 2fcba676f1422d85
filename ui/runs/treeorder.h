#pragma once
// Pre-order walks over an item model's first column (what "next/previous error" steps
// through): an invalid index stands for "before the first / after the last" node.

#include <QModelIndex>

#include <functional>

class QAbstractItemModel;

namespace sandscope::treeorder {

// The last node below `index` in pre-order (`index` itself when it has no children).
QModelIndex lastDescendant(const QAbstractItemModel *model, QModelIndex index);
// The node after `index`; invalid after the last one. From an invalid index, the first node.
QModelIndex nextInOrder(const QAbstractItemModel *model, QModelIndex index);
// The node before `index`; invalid before the first one. From an invalid index, the last node.
QModelIndex previousInOrder(const QAbstractItemModel *model, const QModelIndex &index);

// The first node after (or before) `start` in pre-order for which `matches` holds, wrapping
// round once; invalid when no node but `start` itself does.
QModelIndex findWrapping(const QAbstractItemModel *model, const QModelIndex &start, bool forward,
    const std::function<bool(const QModelIndex &)> &matches);
// The last node in pre-order whose data for `role` is `value`; invalid when none is.
QModelIndex lastWithData(const QAbstractItemModel *model, int role, const QVariant &value);

} // namespace sandscope::treeorder
