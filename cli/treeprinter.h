#pragma once
// The live text tree of `sandscope run`.

#include "cli/clioutput.h"
#include "runtree/runmodel.h"
#include "runtree/runnodetext.h"
#include "util/terminalsafe.h"

#include <QHash>
#include <QList>
#include <QPersistentModelIndex>
#include <QString>

#include <functional>

namespace sandscope::cli {

// Prints the run tree as it grows: one line per node when it appears, indented by nesting
// (turn, its text and tool calls, a sub-agent's work under its Agent call), and one more line
// for a tool call when its status settles (ok, error, interrupted, denied, background).
class TreePrinter {
public:
    static constexpr int resultSnippetLength = 120;

    TreePrinter(RunModel *model, std::function<void(const QString &)> write)
        : m_model(model)
        , m_write(std::move(write))
    {
        QObject::connect(model, &QAbstractItemModel::rowsInserted, model,
            [this](const QModelIndex &parent, int first, int last) {
                for (int row = first; row <= last; ++row)
                    m_touched.append(QPersistentModelIndex(m_model->index(row, 0, parent)));
            });
        QObject::connect(model, &QAbstractItemModel::dataChanged, model,
            [this](const QModelIndex &topLeft, const QModelIndex &bottomRight) {
                for (int row = topLeft.row(); row <= bottomRight.row(); ++row)
                    m_touched.append(
                        QPersistentModelIndex(m_model->index(row, 0, topLeft.parent())));
            });
    }

    // The model leaves a node that has no status yet blank; a call printed then is running.
    static QString statusName(RunModel::Status status)
    {
        return status == RunModel::Status::None ? runtext::statusText(RunModel::Status::Running)
                                                : runtext::statusText(status);
    }

    // Prints what the last events added or settled.
    void flush()
    {
        const QList<QPersistentModelIndex> touched = m_touched;
        m_touched.clear();
        for (const QPersistentModelIndex &index : touched) {
            if (index.isValid())
                show(index);
        }
    }

private:
    static int depthOf(const QModelIndex &index)
    {
        int depth = 0;
        for (QModelIndex up = index.parent(); up.isValid(); up = up.parent())
            ++depth;
        return depth;
    }

    void show(const QModelIndex &index)
    {
        using Kind = RunModel::NodeKind;
        using Status = RunModel::Status;
        const auto kind = Kind(index.data(RunModel::KindRole).toInt());
        const auto status = Status(index.data(RunModel::StatusRole).toInt());
        const int depth = depthOf(index); // the run is 0, turns 1, their content 2, ...
        if (kind == Kind::Run)
            return;
        const QString indent(2 * qMax(0, depth - 1), QLatin1Char(' '));
        const QString title = TerminalSafe::line(index.data(Qt::DisplayRole).toString());
        const void *node = index.internalPointer();
        const auto printed = m_printed.constFind(node);

        if (kind == Kind::ToolCall) {
            // A placeholder (a result or sub-agent line before its call) waits for the call.
            if (index.data(RunModel::ToolNameRole).toString().isEmpty())
                return;
            if (printed == m_printed.constEnd()) {
                m_printed.insert(node, int(status));
                m_write(indent + QStringLiteral("▸ ") + title + QStringLiteral("  [")
                    + statusName(status) + QStringLiteral("]"));
                if (status == Status::Running)
                    return;
            } else if (*printed == int(status) || status == Status::Running) {
                return;
            }
            m_printed.insert(node, int(status));
            const QString output
                = firstLine(index.data(RunModel::TextRole).toString(), resultSnippetLength);
            m_write(indent + marker(status) + title + QStringLiteral("  [") + statusName(status)
                + QStringLiteral("]")
                + (output.isEmpty() ? QString() : QStringLiteral(" → ") + output));
            return;
        }
        if (kind == Kind::Turn) {
            if (printed == m_printed.constEnd()) {
                m_printed.insert(node, int(status));
                m_write(indent + title);
            } else if (status == Status::Interrupted && *printed != int(status)) {
                m_printed.insert(node, int(status));
                m_write(indent + title + QStringLiteral("  [interrupted: no result]"));
            }
            return;
        }
        if (printed != m_printed.constEnd())
            return;
        m_printed.insert(node, int(status));
        m_write(indent + title);
    }

    static QString marker(RunModel::Status status)
    {
        using Status = RunModel::Status;
        switch (status) {
        case Status::Ok:
            return QStringLiteral("✓ ");
        case Status::Error:
        case Status::Denied:
            return QStringLiteral("✗ ");
        case Status::Interrupted:
            return QStringLiteral("⚠ ");
        default:
            return QStringLiteral("· ");
        }
    }

    RunModel *m_model;
    std::function<void(const QString &)> m_write;
    QList<QPersistentModelIndex> m_touched;
    QHash<const void *, int> m_printed; // node → status last printed
};

} // namespace sandscope::cli
