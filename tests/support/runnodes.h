#pragma once
// Finding a run tree's nodes by kind and tool through RunModel's roles, for tests that drive
// real runs and check the tree they built.

#include "runtree/runmodel.h"

#include <QList>
#include <QModelIndex>
#include <QString>

namespace sandscope::test {

// Every node of the model below `parent`, depth first.
inline QList<QModelIndex> allNodes(const QAbstractItemModel *model, const QModelIndex &parent = {})
{
    QList<QModelIndex> nodes;
    for (int row = 0; row < model->rowCount(parent); ++row) {
        const QModelIndex index = model->index(row, 0, parent);
        nodes << index << allNodes(model, index);
    }
    return nodes;
}

inline QList<QModelIndex> toolCalls(const RunModel *model, const QString &toolName = {})
{
    QList<QModelIndex> calls;
    const QList<QModelIndex> nodes = allNodes(model);
    for (const QModelIndex &index : nodes) {
        if (RunModel::NodeKind(index.data(RunModel::KindRole).toInt())
                == RunModel::NodeKind::ToolCall
            && (toolName.isEmpty() || index.data(RunModel::ToolNameRole).toString() == toolName))
            calls << index;
    }
    return calls;
}

inline RunModel::Status statusOf(const QModelIndex &index)
{
    return RunModel::Status(index.data(RunModel::StatusRole).toInt());
}

inline QList<QModelIndex> nodesOfKind(const RunModel *model, RunModel::NodeKind kind)
{
    QList<QModelIndex> found;
    const QList<QModelIndex> nodes = allNodes(model);
    for (const QModelIndex &index : nodes) {
        if (RunModel::NodeKind(index.data(RunModel::KindRole).toInt()) == kind)
            found << index;
    }
    return found;
}

} // namespace sandscope::test
