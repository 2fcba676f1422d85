#include "playbackbar.h"

#include "playback/runplayback.h"
#include "runs/playbackscrubber.h"
#include "ui_playbackbar.h"
#include "util/format.h"

#include <QComboBox>
#include <QDateTime>
#include <QLocale>
#include <QSignalBlocker>
#include <QStyle>

#include <limits>

namespace sandscope {

PlaybackBar::PlaybackBar(QWidget *parent)
    : QFrame(parent)
    , m_ui(std::make_unique<Ui::PlaybackBar>())
{
    m_ui->setupUi(this);
    setObjectName(QStringLiteral("playbackBar"));
    for (const int speed : {1, 2, 10, 100})
        m_ui->speedCombo->addItem(QStringLiteral("%1×").arg(speed), speed);
    m_ui->stepCombo->addItem(tr("tool call"), int(RunPlayback::Step::ToolCall));
    m_ui->stepCombo->addItem(tr("error"), int(RunPlayback::Step::Error));
    m_ui->stepCombo->addItem(tr("turn"), int(RunPlayback::Step::Turn));
    m_ui->playButton->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    m_ui->previousStepButton->setIcon(style()->standardIcon(QStyle::SP_MediaSkipBackward));
    m_ui->nextStepButton->setIcon(style()->standardIcon(QStyle::SP_MediaSkipForward));
    m_ui->scrubber->setTracking(true);
    connect(m_ui->playButton, &QToolButton::clicked, this, &PlaybackBar::togglePlaying);
    connect(m_ui->nextStepButton, &QToolButton::clicked, this, &PlaybackBar::stepForward);
    connect(m_ui->previousStepButton, &QToolButton::clicked, this, &PlaybackBar::stepBackward);
    connect(m_ui->speedCombo, qOverload<int>(&QComboBox::currentIndexChanged), this, [this] {
        if (m_playback)
            m_playback->setSpeed(m_ui->speedCombo->currentData().toDouble());
    });
    connect(m_ui->scrubber, &QSlider::valueChanged, this, &PlaybackBar::onScrubbed);
    connect(m_ui->liveButton, &QPushButton::clicked, this, &PlaybackBar::liveRequested);
}

PlaybackBar::~PlaybackBar() = default;

void PlaybackBar::setPlayback(RunPlayback *playback, bool live)
{
    if (m_playback)
        disconnect(m_playback, nullptr, this, nullptr);
    m_playback = playback;
    m_rangeEvents = -1;
    m_ui->liveButton->setVisible(live);
    if (!playback)
        return;
    playback->setSpeed(m_ui->speedCombo->currentData().toDouble());
    connect(playback, &RunPlayback::positionChanged, this, &PlaybackBar::updatePosition);
    connect(playback, &RunPlayback::playingChanged, this, &PlaybackBar::updatePlaying);
    QString clock = tr("Times from: %1").arg(LoadedRun::clockText(playback->clock()));
    clock += playback->usesEventOrder()
        ? tr(" · plays %1 events a second at 1×").arg(RunPlayback::orderEventsPerSecond)
        : tr(" · pauses over %1 s are shortened to %1 s").arg(RunPlayback::idleGapMs / 1000);
    m_ui->clockLabel->setText(clock);
    updatePlaying(playback->isPlaying());
    updatePosition();
}

void PlaybackBar::updateRange()
{
    const qint64 span = std::max<qint64>(0, m_playback->endTime() - m_playback->startTime());
    // A slider holds an int; a run of weeks in milliseconds does not fit.
    m_scale = std::max<qint64>(1, span / (std::numeric_limits<int>::max() / 2) + 1);
    const QSignalBlocker blocker(m_ui->scrubber);
    m_ui->scrubber->setRange(0, int(span / m_scale));
    m_ui->scrubber->setPageStep(std::max(1, m_ui->scrubber->maximum() / 20));
    QVector<int> turns;
    QVector<int> errors;
    const auto ticks = [this](RunPlayback::Step step, QVector<int> *values) {
        for (int position : m_playback->targets(step))
            values->append(sliderValue(m_playback->timeAt(position)));
    };
    ticks(RunPlayback::Step::Turn, &turns);
    ticks(RunPlayback::Step::Error, &errors);
    m_ui->scrubber->setTicks(turns, errors);
    m_rangeEvents = m_playback->eventCount();
}

int PlaybackBar::sliderValue(qint64 time) const
{
    return int((time - m_playback->startTime()) / m_scale);
}

qint64 PlaybackBar::timeOfSlider(int value) const
{
    return m_playback->startTime() + qint64(value) * m_scale;
}

void PlaybackBar::updatePosition()
{
    if (!m_playback)
        return;
    if (m_rangeEvents != m_playback->eventCount())
        updateRange();
    const int position = m_playback->position();
    {
        const QSignalBlocker blocker(m_ui->scrubber);
        m_ui->scrubber->setValue(position == 0 ? 0 : sliderValue(m_playback->currentTime()));
    }
    const QLocale locale;
    const QString events
        = tr("event %1 of %2")
              .arg(locale.toString(position), locale.toString(m_playback->eventCount()));
    if (m_playback->usesEventOrder()) {
        m_ui->timeLabel->setText(events);
        return;
    }
    const qint64 now = m_playback->currentTime();
    const QDateTime wall = QDateTime::fromMSecsSinceEpoch(now);
    m_ui->timeLabel->setText(
        tr("%1 · %2 of %3 · %4")
            .arg(locale.toString(wall, QStringLiteral("yyyy-MM-dd HH:mm:ss")),
                format::duration(now - m_playback->startTime()),
                format::duration(m_playback->endTime() - m_playback->startTime()), events));
}

void PlaybackBar::updatePlaying(bool playing)
{
    m_ui->playButton->setText(playing ? tr("Pause") : tr("Play"));
    m_ui->playButton->setIcon(
        style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
}

void PlaybackBar::onScrubbed(int value)
{
    if (!m_playback)
        return;
    m_playback->pause();
    if (value <= m_ui->scrubber->minimum())
        m_playback->jumpToPosition(0);
    else
        m_playback->jumpToTime(timeOfSlider(value));
}

void PlaybackBar::togglePlaying()
{
    if (m_playback)
        m_playback->setPlaying(!m_playback->isPlaying());
}

void PlaybackBar::stepForward()
{
    if (m_playback)
        m_playback->step(RunPlayback::Step(m_ui->stepCombo->currentData().toInt()), true);
}

void PlaybackBar::stepBackward()
{
    if (m_playback)
        m_playback->step(RunPlayback::Step(m_ui->stepCombo->currentData().toInt()), false);
}

QToolButton *PlaybackBar::playButton() const
{
    return m_ui->playButton;
}

QComboBox *PlaybackBar::speedCombo() const
{
    return m_ui->speedCombo;
}

QComboBox *PlaybackBar::stepCombo() const
{
    return m_ui->stepCombo;
}

QToolButton *PlaybackBar::previousStepButton() const
{
    return m_ui->previousStepButton;
}

QToolButton *PlaybackBar::nextStepButton() const
{
    return m_ui->nextStepButton;
}

PlaybackScrubber *PlaybackBar::scrubber() const
{
    return m_ui->scrubber;
}

QPushButton *PlaybackBar::liveButton() const
{
    return m_ui->liveButton;
}

QString PlaybackBar::timeText() const
{
    return m_ui->timeLabel->text();
}

QString PlaybackBar::clockText() const
{
    return m_ui->clockLabel->text();
}

} // namespace sandscope
