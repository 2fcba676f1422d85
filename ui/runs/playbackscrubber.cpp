#include "playbackscrubber.h"

#include "runs/rundelegate.h"

#include <QPainter>
#include <QStyle>
#include <QStyleOptionSlider>

namespace sandscope {

PlaybackScrubber::PlaybackScrubber(QWidget *parent)
    : QSlider(Qt::Horizontal, parent)
{
    setObjectName(QStringLiteral("playbackScrubber"));
    setMinimumHeight(22);
}

void PlaybackScrubber::setTicks(const QVector<int> &turns, const QVector<int> &errors)
{
    m_turns = turns;
    m_errors = errors;
    update();
}

void PlaybackScrubber::paintEvent(QPaintEvent *event)
{
    QSlider::paintEvent(event);
    if (maximum() <= minimum())
        return;
    QStyleOptionSlider option;
    initStyleOption(&option);
    const QRect groove
        = style()->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderGroove, this);
    const QRect handle
        = style()->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderHandle, this);
    // The handle's centre travels from half its width in to half its width from the end.
    const int span = groove.width() - handle.width();
    const int left = groove.left() + handle.width() / 2;
    QPainter painter(this);
    const auto mark = [&](const QVector<int> &values, const QColor &color, int top, int bottom) {
        painter.setPen(color);
        for (int value : values) {
            const int x = left
                + QStyle::sliderPositionFromValue(minimum(), maximum(), value, std::max(1, span));
            painter.drawLine(x, top, x, bottom);
        }
    };
    mark(m_turns, palette().color(QPalette::Highlight), 0, 4);
    mark(m_errors, RunDelegate::statusColor(RunModel::Status::Error, palette()), height() - 5,
        height() - 1);
}

} // namespace sandscope
