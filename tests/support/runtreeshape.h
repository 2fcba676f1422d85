#pragma once
// The shape of a run tree that a transcript and the stream-json of the same run must share:
// every tool call as "name id parent=<spawning call id> ok|error", in id order. And where two
// run trees differ at all (playback against a fresh model).

#include "runtree/runmodel.h"

#include <QStringList>
#include <QVariant>

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

// Every role of every column of every node, and the row counts, compared one by one.
inline QString firstDifference(const QAbstractItemModel &actual, const QAbstractItemModel &expected)
{
    QList<int> roles = expected.roleNames().keys();
    roles.removeAll(RunModel::DetailRole); // a struct without ==; its parts have roles
    std::sort(roles.begin(), roles.end());
    std::function<QString(const QModelIndex &, const QModelIndex &, const QString &)> walk
        = [&](const QModelIndex &a, const QModelIndex &e, const QString &path) -> QString {
        if (actual.rowCount(a) != expected.rowCount(e))
            return QStringLiteral("%1: %2 rows, expected %3")
                .arg(path)
                .arg(actual.rowCount(a))
                .arg(expected.rowCount(e));
        if (actual.columnCount(a) != expected.columnCount(e))
            return path + QStringLiteral(": column count");
        for (int row = 0; row < expected.rowCount(e); ++row) {
            const QString here = path + QLatin1Char('/') + QString::number(row);
            for (int column = 0; column < expected.columnCount(e); ++column) {
                const QModelIndex ai = actual.index(row, column, a);
                const QModelIndex ei = expected.index(row, column, e);
                for (int role : roles) {
                    if (ai.data(role) != ei.data(role))
                        return QStringLiteral("%1 column %2 role %3: \"%4\", expected \"%5\"")
                            .arg(here)
                            .arg(column)
                            .arg(QString::fromLatin1(expected.roleNames().value(role)),
                                ai.data(role).toString(), ei.data(role).toString());
                }
            }
            const QString inner = walk(actual.index(row, 0, a), expected.index(row, 0, e), here);
            if (!inner.isEmpty())
                return inner;
        }
        return {};
    };
    return walk(QModelIndex(), QModelIndex(), QString());
}

} // namespace sandscope::test
