#pragma once
// Paints the run tree: an icon per tool or node kind, the tool name in bold before its
// one-line summary, errors/retries/denials/interruptions in their colours, the status as a
// pill and the numbers right-aligned. Colours adapt to light and dark palettes.

#include "runtree/runmodel.h"

#include <QColor>
#include <QIcon>
#include <QStyledItemDelegate>

namespace sandscope {

class RunDelegate : public QStyledItemDelegate {
    Q_OBJECT

public:
    explicit RunDelegate(QObject *parent = nullptr);

    // The icon of a node (from its kind, tool kind and status); shared with the detail pane.
    static QIcon iconFor(const QModelIndex &index);
    static QIcon icon(const QString &name); // resources/icons/run/<name>.svg
    static QString statusLabel(RunModel::Status status);
    // Foreground and background of a status pill on the given palette.
    static QColor statusColor(RunModel::Status status, const QPalette &palette);
    static QColor statusFill(RunModel::Status status, const QPalette &palette);
    static bool isDark(const QPalette &palette);

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
        const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override;

private:
    void paintSummary(
        QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const;
    void paintStatus(
        QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const;
};

} // namespace sandscope
