#pragma once
// The time axis above the timeline's lanes (TimelineView): tick labels, then the turns' names
// over their bands, with the run's wall-clock start and its number of calls and duration in
// the left corner; a click on a turn's name selects the turn.

#include <QString>
#include <QWidget>

namespace sandscope {

class TimelineView;

class TimelineAxis : public QWidget {
public:
    // Ticks are about this far apart.
    static constexpr double tickSpacingPx = 96;

    explicit TimelineAxis(TimelineView *view);

    // The step between ticks at this scale: 1, 2 or 5 times a power of ten below 30 s, whole
    // minutes, hours and days beyond.
    static double tickStepMs(double msPerPx);
    // "1.5 s", "250 ms", "2:30": the label of an offset from the run's start, for ticks
    // stepMs apart.
    static QString tickLabel(double offsetMs, double stepMs);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;

private:
    void paint(QPainter *painter, const QRect &rect) const;

    TimelineView *m_view;
};

} // namespace sandscope
