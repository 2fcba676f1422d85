#include "timelinegutter.h"

#include "runs/timelinedelegate.h"
#include "runs/timelineview.h"

#include <QPainter>
#include <QScrollBar>
#include <QWheelEvent>

#include <algorithm>

namespace sandscope {

TimelineGutter::TimelineGutter(TimelineView *view)
    : QWidget(view)
    , m_view(view)
{
    setObjectName(QStringLiteral("timelineGutter"));
}

void TimelineGutter::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    paint(&painter, rect());
}

void TimelineGutter::wheelEvent(QWheelEvent *event)
{
    // Over the names the wheel scrolls the rows.
    QScrollBar *bar = m_view->verticalScrollBar();
    bar->setValue(bar->value() - event->angleDelta().y() / 120 * m_view->m_laneHeight * 2);
    event->accept();
}

void TimelineGutter::paint(QPainter *painter, const QRect &rect) const
{
    const TimelineView &view = *m_view;
    const QPalette palette = view.palette();
    const QColor background = palette.color(QPalette::Window);
    const QColor text = palette.color(QPalette::WindowText);
    painter->fillRect(rect, background);
    painter->fillRect(QRect(rect.right(), rect.top(), 1, rect.height()),
        TimelineDelegate::mixed(background, text, 0.25));
    if (!view.m_model)
        return;
    view.ensureLayout();
    const int top = view.verticalScrollBar()->value();
    const QFontMetrics metrics = painter->fontMetrics();
    const QColor separator = TimelineDelegate::mixed(background, text, 0.16);
    for (size_t r = 0; r < view.m_rows.size(); ++r) {
        const TimelineView::Row &row = view.m_rows[r];
        const int y = row.y - top;
        if (y > rect.height())
            break;
        if (y + row.height < 0 || row.lane >= 0)
            continue;
        if (r > 0)
            painter->fillRect(QRect(0, y, rect.width(), 1), separator);
        const TimelineModel::Group &group = view.m_model->group(row.group);
        const int indent = 6 + 12 * std::min(group.depth, 8);
        QString name;
        if (group.call < 0) {
            name = TimelineView::tr("Main thread");
        } else {
            name = QStringLiteral("\u21b3 ") + view.m_model->label(group.call);
        }
        painter->setPen(text);
        const QRect textRect(indent, y, rect.width() - indent - 4, row.height);
        painter->drawText(textRect, Qt::AlignLeft | Qt::AlignVCenter,
            metrics.elidedText(name, Qt::ElideRight, textRect.width()));
    }
}

} // namespace sandscope
