#pragma once
// The playback bar's scrubber: a horizontal slider over the run's time (or its events) with a
// tick for every turn start and every error, so the moments worth seeing can be found.

#include <QSlider>
#include <QVector>

namespace sandscope {

class PlaybackScrubber : public QSlider {
    Q_OBJECT

public:
    explicit PlaybackScrubber(QWidget *parent = nullptr);

    // Slider values to mark.
    void setTicks(const QVector<int> &turns, const QVector<int> &errors);
    QVector<int> turnTicks() const { return m_turns; }
    QVector<int> errorTicks() const { return m_errors; }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    QVector<int> m_turns;
    QVector<int> m_errors;
};

} // namespace sandscope
