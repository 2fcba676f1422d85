#pragma once
// The run page's playback controls (RunPlayback): play/pause, speed, steps to the previous or
// next tool call, error or turn, a scrubber over the run's time with turn and error ticks, the
// moment shown and where the times come from. "Live" (live runs and sessions) asks the page to
// leave playback and follow the run again.

#include <QFrame>

#include <memory>

class QComboBox;
class QLabel;
class QPushButton;
class QToolButton;

namespace sandscope {

class PlaybackScrubber;
class RunPlayback;

namespace Ui {
class PlaybackBar;
}

class PlaybackBar : public QFrame {
    Q_OBJECT

public:
    explicit PlaybackBar(QWidget *parent = nullptr);
    ~PlaybackBar() override;

    // Drives `playback` (null: nothing); `live`: the run may still grow, "Live" is offered.
    void setPlayback(RunPlayback *playback, bool live);
    RunPlayback *playback() const { return m_playback; }

    QToolButton *playButton() const;
    QComboBox *speedCombo() const;
    QComboBox *stepCombo() const;
    QToolButton *previousStepButton() const;
    QToolButton *nextStepButton() const;
    PlaybackScrubber *scrubber() const;
    QPushButton *liveButton() const;
    QString timeText() const;
    QString clockText() const;

    // The scrubber's value for an axis time, and back (the axis is long for long runs).
    int sliderValue(qint64 time) const;
    qint64 timeOfSlider(int value) const;

public slots:
    void togglePlaying();
    void stepForward();
    void stepBackward();

Q_SIGNALS:
    void liveRequested();

private:
    void updatePosition();
    void updateRange();
    void updatePlaying(bool playing);
    void onScrubbed(int value);

    std::unique_ptr<Ui::PlaybackBar> m_ui;
    RunPlayback *m_playback = nullptr;
    qint64 m_scale = 1; // axis units per slider step
    int m_rangeEvents = -1; // the event count the range and ticks were made for
};

} // namespace sandscope
