#pragma once
// The names of the timeline's rows (TimelineView), left of its lanes: each thread's name on
// its marks row, indented by its nesting. The wheel over the names scrolls the rows.

#include <QWidget>

namespace sandscope {

class TimelineView;

class TimelineGutter : public QWidget {
public:
    explicit TimelineGutter(TimelineView *view);

protected:
    void paintEvent(QPaintEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;

private:
    void paint(QPainter *painter, const QRect &rect) const;

    TimelineView *m_view;
};

} // namespace sandscope
