#pragma once
// Paints the timeline's items (TimelineView): a call as a bar coloured by its kind of tool
// (errors red, denials in their colour and hatched, interrupted calls grey and hatched, a
// running call fading out at its growing end) with its label when it fits; calls too short to
// tell apart at the current zoom as one cluster in the colour of the worst of them; text,
// thinking, prompts, retries, API errors and denials as thin marks; turns as bands. The view
// calls the typed functions directly (no QVariant per bar); paint() serves any other caller
// from the model's roles. Colours follow the palette (light and dark) and RunDelegate's status
// colours.

#include "runtree/runmodel.h"
#include "timeline/timelinemodel.h"

#include <QAbstractItemDelegate>
#include <QColor>
#include <QStyle>

class QPainter;

namespace sandscope {

class TimelineDelegate : public QAbstractItemDelegate {
    Q_OBJECT

public:
    explicit TimelineDelegate(QObject *parent = nullptr);

    // a and b blended: weightOfB of b.
    static QColor mixed(const QColor &a, const QColor &b, double weightOfB);
    static QColor toolColor(RunModel::ToolKind kind, const QPalette &palette);
    // The fill of a call: its tool's colour, or its status's when that is not "ok".
    static QColor callColor(
        RunModel::ToolKind kind, RunModel::Status status, const QPalette &palette);
    static QColor markColor(TimelineModel::MarkKind kind, const QPalette &palette);
    // How much a status matters when several calls share a pixel: errors win.
    static int severity(RunModel::Status status);

    void paintCall(QPainter *painter, const QRectF &rect, RunModel::ToolKind kind,
        RunModel::Status status, bool open, const QString &label, QStyle::State state,
        const QPalette &palette) const;
    // Several calls in a few pixels; `status` is the worst of them.
    void paintCluster(QPainter *painter, const QRectF &rect, RunModel::ToolKind kind,
        RunModel::Status status, const QPalette &palette) const;
    void paintMark(QPainter *painter, const QRectF &rect, TimelineModel::MarkKind kind,
        QStyle::State state, const QPalette &palette) const;
    // The band of a turn over the whole height; odd turns are tinted.
    void paintTurnBand(QPainter *painter, const QRectF &rect, bool odd, QStyle::State state,
        const QPalette &palette) const;
    // The outline of the selected or hovered item, drawn over everything else.
    void paintFocus(QPainter *painter, const QRectF &rect, bool selected, bool isMark,
        const QPalette &palette) const;

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
        const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;
};

} // namespace sandscope
