#include "timelineaxis.h"

#include "runs/rundelegate.h"
#include "runs/timelinedelegate.h"
#include "runs/timelineview.h"
#include "util/format.h"

#include <QDateTime>
#include <QItemSelectionModel>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace sandscope {

TimelineAxis::TimelineAxis(TimelineView *view)
    : QWidget(view)
    , m_view(view)
{
    setObjectName(QStringLiteral("timelineAxis"));
    setToolTip(TimelineView::tr(
        "Wheel: zoom around the pointer · Shift+wheel or drag: pan · Alt+wheel: scroll the "
        "rows · double-click: fit an item · F: fit the selection · 0: fit the run · click a "
        "turn's name to select it"));
}

void TimelineAxis::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    paint(&painter, rect());
}

void TimelineAxis::mousePressEvent(QMouseEvent *event)
{
    const double x = event->pos().x() - m_view->m_gutterWidth;
    const int turn = m_view->turnAt(x);
    if (turn >= 0 && m_view->selectionModel()) {
        m_view->selectionModel()->setCurrentIndex(
            m_view->model()->index(turn, 0), QItemSelectionModel::ClearAndSelect);
    }
}

void TimelineAxis::wheelEvent(QWheelEvent *event)
{
    m_view->wheelEvent(event);
}

double TimelineAxis::tickStepMs(double msPerPx)
{
    const double wanted = tickSpacingPx * msPerPx;
    static const double longSteps[] = {60e3, 120e3, 300e3, 600e3, 900e3, 1800e3, 3600e3, 7200e3,
        10800e3, 21600e3, 43200e3, 86400e3};
    if (wanted > 30e3) {
        for (const double step : longSteps) {
            if (step >= wanted)
                return step;
        }
        return std::ceil(wanted / 86400e3) * 86400e3;
    }
    const double magnitude = std::pow(10.0, std::floor(std::log10(std::max(wanted, 1e-6))));
    for (const double factor : {1.0, 2.0, 5.0, 10.0}) {
        if (factor * magnitude >= wanted)
            return factor * magnitude;
    }
    return 10 * magnitude;
}

QString TimelineAxis::tickLabel(double offsetMs, double stepMs)
{
    const double ms = std::round(offsetMs / std::max(stepMs, 1e-6)) * stepMs;
    if (std::abs(ms) < stepMs / 2)
        return QStringLiteral("0");
    const bool negative = ms < 0;
    const double value = std::abs(ms);
    QString text;
    if (stepMs >= 60e3) {
        const qint64 minutes = qint64(std::llround(value / 60e3));
        text = minutes >= 60 ? QStringLiteral("%1 h %2 min")
                                   .arg(minutes / 60)
                                   .arg(minutes % 60, 2, 10, QLatin1Char('0'))
                             : QStringLiteral("%1 min").arg(minutes);
        if (minutes % 60 == 0 && minutes >= 60)
            text = QStringLiteral("%1 h").arg(minutes / 60);
    } else if (value < 1000 && stepMs < 1000) {
        const int decimals = stepMs >= 1 ? 0 : int(std::ceil(-std::log10(stepMs) - 1e-9));
        text = QStringLiteral("%1 ms").arg(value, 0, 'f', decimals);
    } else if (value < 60e3) {
        const int decimals = stepMs >= 1000 ? 0 : int(std::ceil(3 - std::log10(stepMs) - 1e-9));
        text = QStringLiteral("%1 s").arg(value / 1000, 0, 'f', decimals);
    } else {
        // m:ss (h:mm:ss past an hour), with the fraction the step needs
        const int decimals = stepMs >= 1000 ? 0 : int(std::ceil(3 - std::log10(stepMs) - 1e-9));
        const qint64 wholeSeconds = qint64(value / 1000);
        const double seconds = value / 1000 - double(wholeSeconds - wholeSeconds % 60);
        const qint64 minutes = wholeSeconds / 60;
        const QString secondsText = QStringLiteral("%1").arg(
            seconds, decimals > 0 ? decimals + 3 : 2, 'f', decimals, QLatin1Char('0'));
        text = minutes >= 60 ? QStringLiteral("%1:%2:%3")
                                   .arg(minutes / 60)
                                   .arg(minutes % 60, 2, 10, QLatin1Char('0'))
                                   .arg(secondsText)
                             : QStringLiteral("%1:%2").arg(minutes).arg(secondsText);
    }
    return negative ? QStringLiteral("-") + text : text;
}

void TimelineAxis::paint(QPainter *painter, const QRect &rect) const
{
    const TimelineView &view = *m_view;
    const QPalette palette = view.palette();
    const QColor background = palette.color(QPalette::Window);
    const QColor text = palette.color(QPalette::WindowText);
    const QColor faint = TimelineDelegate::mixed(text, background, 0.45);
    painter->fillRect(rect, background);
    painter->fillRect(QRect(rect.left(), rect.bottom(), rect.width(), 1),
        TimelineDelegate::mixed(background, text, 0.25));
    const QFontMetrics metrics = painter->fontMetrics();
    const int lineHeight = metrics.height() + 4;
    if (!view.m_model || view.m_model->originMs() < 0)
        return;
    const double origin = double(view.m_model->originMs());

    // The corner: the wall-clock time the run started (for times that are clock times).
    const QRect corner(rect.left(), rect.top(), view.m_gutterWidth, rect.height());
    if (origin > 1e11) {
        painter->setPen(faint);
        const QDateTime started = QDateTime::fromMSecsSinceEpoch(qint64(origin));
        painter->drawText(corner.adjusted(6, 0, -6, -lineHeight), Qt::AlignLeft | Qt::AlignVCenter,
            started.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")));
    }
    // ...and how many calls over how long.
    const int calls = view.m_model->callCount();
    const QString count = TimelineView::tr("%Ln call(s)", nullptr, calls);
    const QString summary = count + QStringLiteral(" · ")
        + format::duration(view.m_model->extentEndMs() - view.m_model->originMs());
    painter->drawText(corner.adjusted(6, lineHeight, -6, 0), Qt::AlignLeft | Qt::AlignVCenter,
        metrics.elidedText(summary, Qt::ElideRight, corner.width() - 12));

    painter->save();
    painter->setClipRect(
        QRect(view.m_gutterWidth, rect.top(), rect.width() - view.m_gutterWidth, rect.height()));
    painter->translate(view.m_gutterWidth, 0);
    const double width = rect.width() - view.m_gutterWidth;
    const double t0 = view.timeAtX(0);
    const double t1 = view.timeAtX(width);
    const double step = tickStepMs(view.m_msPerPx);
    painter->setPen(text);
    for (double tick = origin + std::floor((t0 - origin) / step) * step; tick <= t1 + step;
         tick += step) {
        const double x = std::floor(view.xForTime(tick));
        painter->fillRect(QRectF(x, lineHeight - 5, 1, 5), faint);
        painter->drawText(QRectF(x + 3, 0, tickSpacingPx * 2, lineHeight - 2),
            Qt::AlignLeft | Qt::AlignVCenter, tickLabel(tick - origin, step));
    }

    // The turns' names over their bands.
    const QModelIndex current = view.currentIndex();
    const auto [firstTurn, lastTurn] = view.turnsBetween(t0, t1);
    for (size_t at = firstTurn; at < lastTurn; ++at) {
        const int turn = view.m_model->turnRows()[at];
        const int number = int(at) + 1;
        if (!view.m_model->item(turn).placed)
            continue;
        const QRectF band = view.itemRect(turn);
        const double left = std::max(0.0, band.left());
        const double right = std::min(width, band.right());
        if (right - left < 6)
            continue;
        const QRectF label(left, lineHeight, right - left, lineHeight);
        const bool selected = current.isValid() && current.row() == turn;
        if (selected)
            painter->fillRect(label,
                TimelineDelegate::mixed(background, palette.color(QPalette::Highlight), 0.25));
        painter->fillRect(QRectF(band.left(), lineHeight, 1, lineHeight), faint);
        // "Turn 12 · error", "Turn 12" or "12", whichever fits (no eliding per turn: a run
        // has thousands).
        const RunModel::Status status = view.m_model->item(turn).status;
        const double room = label.width() - 8;
        QString name = TimelineView::tr("Turn %1").arg(number);
        if (status == RunModel::Status::Error || status == RunModel::Status::Interrupted) {
            const QString withStatus
                = name + QStringLiteral(" · ") + RunDelegate::statusLabel(status);
            if (metrics.horizontalAdvance(withStatus) <= room)
                name = withStatus;
        }
        if (metrics.horizontalAdvance(name) > room)
            name = QString::number(number);
        if (metrics.horizontalAdvance(name) > room)
            continue;
        painter->setPen(status == RunModel::Status::Error
                ? RunDelegate::statusColor(RunModel::Status::Error, palette)
                : text);
        painter->drawText(label.adjusted(4, 0, -4, 0), Qt::AlignLeft | Qt::AlignVCenter, name);
    }
    painter->restore();
}

} // namespace sandscope
