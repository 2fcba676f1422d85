#pragma once
// The shape of a run tree that a transcript and the stream-json of the same run must share:
// every tool call as "name id parent=<spawning call id> ok|error", in id order.

#include "runs/runmodel.h"

#include <QStringList>

#include <algorithm>
#include <functional>

namespace sandscope::test {

inline QStringList toolCallShape(const RunModel &model)
{
    QStringList calls;
    std::function<void(const QModelIndex &, const QString &)> walk = [&](const QModelIndex &parent,
                                                                         const QString &spawner) {
        for (int row = 0; row < model.rowCount(parent); ++row) {
            const QModelIndex index = model.index(row, 0, parent);
            QString inner = spawner;
            if (index.data(RunModel::KindRole).toInt() == int(RunModel::NodeKind::ToolCall)) {
                const QString id = index.data(RunModel::ToolUseIdRole).toString();
                calls.append(
                    QStringLiteral("%1 %2 parent=%3 %4")
                        .arg(index.data(RunModel::ToolNameRole).toString(), id, spawner,
                            index.data(RunModel::IsErrorRole).toBool() ? QStringLiteral("error")
                                                                       : QStringLiteral("ok")));
                inner = id;
            }
            walk(index, inner);
        }
    };
    walk(QModelIndex(), QString());
    std::sort(calls.begin(), calls.end());
    return calls;
}

} // namespace sandscope::test
