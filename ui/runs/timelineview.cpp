#include "timelineview.h"

#include "runs/rundelegate.h"
#include "runs/timelineaxis.h"
#include "runs/timelinedelegate.h"
#include "runs/timelinegutter.h"
#include "timeline/timelinemodel.h"
#include "util/format.h"

#include <QApplication>
#include <QDateTime>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace sandscope {

namespace {

using ItemKind = TimelineModel::ItemKind;
using MarkKind = TimelineModel::MarkKind;
using Item = TimelineModel::Item;

constexpr double minMsPerPx = 0.001; // 1 µs per pixel: a 1 ms call is 1,000 pixels wide
constexpr int padPx = 16; // around the run when it is fitted
constexpr double clusterPx = 3; // calls narrower than this merge with their neighbours
constexpr int hoverTolerancePx = 4;
constexpr int liveClockMs = 100;

// Keeps viewport coordinates of far-away times within what QRect and the painter handle.
double clampX(double x)
{
    return std::clamp(x, -1e7, 1e7);
}

int markRank(MarkKind kind)
{
    switch (kind) {
    case MarkKind::Error:
        return 6;
    case MarkKind::Denied:
        return 5;
    case MarkKind::Retry:
        return 4;
    case MarkKind::Prompt:
        return 3;
    case MarkKind::Thinking:
        return 2;
    case MarkKind::Text:
        return 1;
    case MarkKind::None:
        break;
    }
    return 0;
}

} // namespace

TimelineView::TimelineView(QWidget *parent)
    : QAbstractItemView(parent)
    , m_axis(new TimelineAxis(this))
    , m_gutter(new TimelineGutter(this))
{
    setObjectName(QStringLiteral("timelineView"));
    setItemDelegate(new TimelineDelegate(this));
    setSelectionMode(QAbstractItemView::SingleSelection);
    setSelectionBehavior(QAbstractItemView::SelectItems);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    setMouseTracking(true);
    viewport()->setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
    setFocusPolicy(Qt::StrongFocus);

    const QFontMetrics metrics(font());
    m_markRowHeight = std::max(14, metrics.height() + 1);
    m_laneHeight = std::max(18, metrics.height() + 5);
    m_axisHeight = 2 * (metrics.height() + 4) + 2;
    m_gutterWidth = std::max(150, metrics.horizontalAdvance(QLatin1Char('x')) * 24);

    m_refreshTimer.setSingleShot(true);
    m_refreshTimer.setInterval(0);
    connect(&m_refreshTimer, &QTimer::timeout, this, &TimelineView::refresh);
    m_clock.setInterval(liveClockMs);
    connect(&m_clock, &QTimer::timeout, this, [this] {
        if (m_model)
            m_model->setNowMs(QDateTime::currentMSecsSinceEpoch());
    });
}

TimelineView::~TimelineView() = default;

void TimelineView::setModel(QAbstractItemModel *model)
{
    auto *timeline = qobject_cast<TimelineModel *>(model);
    if (model && !timeline) {
        qWarning("TimelineView: the model must be a TimelineModel");
        return;
    }
    if (m_model)
        disconnect(m_model, nullptr, this, nullptr);
    m_model = timeline;
    QAbstractItemView::setModel(model);
    if (m_model) {
        connect(m_model, &TimelineModel::extentChanged, this, &TimelineView::scheduleRefresh);
        connect(m_model, &TimelineModel::lanesChanged, this, &TimelineView::scheduleRefresh);
    }
    m_layoutRevision = ~quint64(0);
    m_hoverItem = -1;
    m_fitting = true;
    refresh();
}

TimelineDelegate *TimelineView::timelineDelegate() const
{
    return qobject_cast<TimelineDelegate *>(itemDelegate());
}

QWidget *TimelineView::axisWidget() const
{
    return m_axis;
}

QWidget *TimelineView::gutterWidget() const
{
    return m_gutter;
}

// Room for the axis and a few rows: the main thread's marks and lanes, a sub-agent or two.
QSize TimelineView::sizeHint() const
{
    const int frame = 2 * frameWidth();
    return QSize(
        m_gutterWidth + 600 + frame, m_axisHeight + m_markRowHeight * 2 + m_laneHeight * 4 + frame);
}

QSize TimelineView::minimumSizeHint() const
{
    const int frame = 2 * frameWidth();
    return QSize(
        m_gutterWidth + 120 + frame, m_axisHeight + m_markRowHeight + m_laneHeight * 2 + frame);
}

double TimelineView::visibleEndMs() const
{
    return m_startMs + viewport()->width() * m_msPerPx;
}

// ---------------------------------------------------------------------------------------
// Layout of the rows: per group (depth first) its marks row, then its lanes.

void TimelineView::ensureLayout() const
{
    if (!m_model) {
        m_rows.clear();
        m_contentHeight = 0;
        return;
    }
    if (m_layoutRevision == m_model->layoutRevision())
        return;
    m_layoutRevision = m_model->layoutRevision();
    m_rows.clear();
    m_firstRowOfGroup.assign(size_t(m_model->groupCount()), -1);
    int y = 0;
    for (const int id : m_model->groupOrder()) {
        const TimelineModel::Group &group = m_model->group(id);
        m_firstRowOfGroup[size_t(id)] = int(m_rows.size());
        m_rows.push_back({id, -1, y, m_markRowHeight});
        y += m_markRowHeight;
        for (int lane = 0; lane < int(group.lanes.size()); ++lane) {
            m_rows.push_back({id, lane, y, m_laneHeight});
            y += m_laneHeight;
        }
    }
    m_contentHeight = y + 4;
}

int TimelineView::rowAtY(int viewportY) const
{
    ensureLayout();
    const int y = viewportY + verticalScrollBar()->value();
    const auto at = std::upper_bound(
        m_rows.begin(), m_rows.end(), y, [](int value, const Row &row) { return value < row.y; });
    if (at == m_rows.begin())
        return -1;
    const Row &row = *(at - 1);
    return y < row.y + row.height ? int(at - m_rows.begin()) - 1 : -1;
}

int TimelineView::rowOfItem(int item) const
{
    ensureLayout();
    const Item &entry = m_model->item(item);
    if (!entry.placed || entry.kind == ItemKind::Turn || entry.group < 0
        || size_t(entry.group) >= m_firstRowOfGroup.size())
        return -1;
    const int first = m_firstRowOfGroup[size_t(entry.group)];
    if (first < 0)
        return -1;
    return entry.kind == ItemKind::Mark ? first : first + 1 + entry.lane;
}

// ---------------------------------------------------------------------------------------
// Geometry of items

QRectF TimelineView::itemRect(int item) const
{
    if (!m_model || item < 0 || item >= m_model->itemCount())
        return {};
    const Item &entry = m_model->item(item);
    if (!entry.placed)
        return {};
    if (entry.kind == ItemKind::Turn) {
        const double x0 = clampX(xForTime(turnStart(item)));
        const double x1 = clampX(xForTime(double(m_model->endMs(item))));
        return QRectF(x0, 0, std::max(1.0, x1 - x0), viewport()->height());
    }
    const int rowIndex = rowOfItem(item);
    if (rowIndex < 0)
        return {};
    const Row &row = m_rows[size_t(rowIndex)];
    const double y = row.y - verticalScrollBar()->value();
    const double x0 = clampX(xForTime(double(entry.startMs)));
    if (entry.kind == ItemKind::Mark) {
        const double width = markRank(entry.mark) >= 5 ? 3 : 2;
        return QRectF(x0 - width / 2, y + 3, width, row.height - 6);
    }
    const double x1 = clampX(xForTime(double(m_model->endMs(item))));
    return QRectF(x0, y + 2, std::max(2.0, x1 - x0), row.height - 4);
}

QRect TimelineView::visualRect(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != m_model)
        return {};
    return itemRect(index.row()).toAlignedRect();
}

// The item of a row nearest to a time (calls: the one spanning it, else the closer neighbour).
int TimelineView::nearestInRow(int rowIndex, double ms) const
{
    const Row &row = m_rows[size_t(rowIndex)];
    const TimelineModel::Group &group = m_model->group(row.group);
    const std::vector<int> &items = row.lane < 0 ? group.marks : group.lanes[size_t(row.lane)];
    if (items.empty())
        return -1;
    auto at = row.lane < 0
        ? std::lower_bound(items.begin(), items.end(), ms,
            [this](int item, double value) { return double(m_model->item(item).startMs) < value; })
        : std::lower_bound(items.begin(), items.end(), ms,
            [this](int item, double value) { return double(m_model->endMs(item)) < value; });
    int best = -1;
    double bestDistance = 0;
    for (auto candidate = at == items.begin() ? at : at - 1;
         candidate != items.end() && candidate <= at; ++candidate) {
        const Item &item = m_model->item(*candidate);
        const double start = double(item.startMs);
        const double end = double(m_model->endMs(*candidate));
        const double distance = ms < start ? start - ms : ms > end ? ms - end : 0;
        if (best < 0 || distance < bestDistance) {
            best = *candidate;
            bestDistance = distance;
        }
    }
    return best;
}

double TimelineView::turnStart(int turn) const
{
    return double(m_model->startMs(turn));
}

std::pair<size_t, size_t> TimelineView::turnsBetween(double t0, double t1) const
{
    const std::vector<int> &turns = m_model->turnRows();
    if (!m_model->turnsInOrder())
        return {0, turns.size()};
    // Sorted by start: the turns starting after t1 are out of view, and of those starting
    // before t0 only the last ones can reach into it.
    const auto byStart = [this](int turn, double value) {
        return double(m_model->item(turn).startMs) < value;
    };
    const size_t last
        = size_t(std::upper_bound(turns.begin(), turns.end(), t1, [this](double value, int turn) {
              return value < double(m_model->item(turn).startMs);
          }) - turns.begin());
    size_t first
        = size_t(std::lower_bound(turns.begin(), turns.end(), t0, byStart) - turns.begin());
    while (first > 0 && double(m_model->endMs(turns[first - 1])) >= t0)
        --first;
    return {first, std::max(first, last)};
}

int TimelineView::turnAt(double x) const
{
    if (!m_model)
        return -1;
    const double ms = timeAtX(x);
    const std::vector<int> &turns = m_model->turnRows();
    const auto [first, last] = turnsBetween(ms, ms);
    int found = -1;
    for (size_t at = first; at < last; ++at) {
        const int turn = turns[at];
        if (m_model->item(turn).placed && ms >= turnStart(turn)
            && ms <= double(m_model->endMs(turn)))
            found = turn; // the latest that covers it
    }
    return found;
}

int TimelineView::itemAt(const QPoint &point) const
{
    if (!m_model)
        return -1;
    const int rowIndex = rowAtY(point.y());
    if (rowIndex >= 0) {
        const int item = nearestInRow(rowIndex, timeAtX(point.x()));
        if (item >= 0) {
            const QRectF rect = itemRect(item);
            if (point.x() >= rect.left() - hoverTolerancePx
                && point.x() <= rect.right() + hoverTolerancePx)
                return item;
        }
    }
    return turnAt(point.x());
}

QModelIndex TimelineView::indexAt(const QPoint &point) const
{
    const int item = itemAt(point);
    return item >= 0 ? m_model->index(item, 0) : QModelIndex();
}

QString TimelineView::toolTipAt(const QPoint &viewportPosition) const
{
    const int item = itemAt(viewportPosition);
    return item >= 0 ? m_model->toolTip(item) : QString();
}

bool TimelineView::isIndexHidden(const QModelIndex &index) const
{
    return !index.isValid() || !m_model || !m_model->item(index.row()).placed;
}

int TimelineView::horizontalOffset() const
{
    return horizontalScrollBar()->value();
}

int TimelineView::verticalOffset() const
{
    return verticalScrollBar()->value();
}

void TimelineView::setSelection(const QRect &rect, QItemSelectionModel::SelectionFlags command)
{
    if (!selectionModel())
        return;
    const QModelIndex index = indexAt(rect.center());
    if (index.isValid())
        selectionModel()->select(index, command);
    else if (command & QItemSelectionModel::Clear)
        selectionModel()->clearSelection();
}

QRegion TimelineView::visualRegionForSelection(const QItemSelection &selection) const
{
    QRegion region;
    for (const QModelIndex &index : selection.indexes())
        region += visualRect(index).adjusted(-3, -3, 3, 3);
    return region;
}

// ---------------------------------------------------------------------------------------
// Zoom and scroll

double TimelineView::fitMsPerPixel() const
{
    if (!m_model || m_model->originMs() < 0)
        return 1;
    const double span = std::max<double>(1, m_model->extentEndMs() - m_model->originMs());
    return span / std::max(40, viewport()->width() - 2 * padPx);
}

void TimelineView::fitRun()
{
    m_fitting = true;
    m_msPerPx = std::max(minMsPerPx, fitMsPerPixel());
    m_startMs = m_model && m_model->originMs() >= 0 ? m_model->originMs() - padPx * m_msPerPx : 0;
    viewChanged();
}

void TimelineView::fitSelection()
{
    const QModelIndex current = currentIndex();
    if (!m_model || !current.isValid() || !m_model->item(current.row()).placed)
        return;
    const auto [start, end] = m_model->timeSpan(current.row());
    const double width = std::max(40, viewport()->width() - 4 * padPx);
    // A mark (an instant) gets a second around it, a call at least a millisecond.
    const double span = end > start                           ? double(end - start)
        : m_model->item(current.row()).kind == ItemKind::Mark ? 1000.0
                                                              : 1.0;
    m_fitting = false;
    m_msPerPx = std::clamp(span / width, minMsPerPx, std::max(minMsPerPx, fitMsPerPixel()));
    m_startMs = (start + end) / 2.0 - viewport()->width() * m_msPerPx / 2;
    viewChanged();
    scrollTo(current);
}

void TimelineView::zoomIn()
{
    zoomAround(viewport()->width() / 2.0, 1.5);
}

void TimelineView::zoomOut()
{
    zoomAround(viewport()->width() / 2.0, 1 / 1.5);
}

void TimelineView::zoomAround(double x, double factor)
{
    if (factor <= 0)
        return;
    const double anchor = timeAtX(x);
    const double fit = std::max(minMsPerPx, fitMsPerPixel());
    const double wanted = std::clamp(m_msPerPx / factor, minMsPerPx, fit);
    m_fitting = wanted >= fit && factor < 1 ? true : false;
    if (m_fitting) {
        fitRun();
        return;
    }
    m_msPerPx = wanted;
    m_startMs = anchor - x * m_msPerPx;
    viewChanged();
}

void TimelineView::panBy(double pixels)
{
    m_fitting = false;
    m_startMs += pixels * m_msPerPx;
    viewChanged();
}

void TimelineView::clampStart()
{
    if (!m_model || m_model->originMs() < 0)
        return;
    const double width = viewport()->width() * m_msPerPx;
    const double low = m_model->originMs() - padPx * m_msPerPx;
    const double high = m_model->extentEndMs() + padPx * m_msPerPx - width;
    m_startMs = high < low ? (low + high) / 2 : std::clamp(m_startMs, low, high);
}

void TimelineView::viewChanged()
{
    clampStart();
    syncScrollBars();
    viewport()->update();
    m_axis->update();
    Q_EMIT visibleSpanChanged();
}

void TimelineView::syncScrollBars()
{
    m_syncingBars = true;
    ensureLayout();
    QScrollBar *vertical = verticalScrollBar();
    vertical->setRange(0, std::max(0, m_contentHeight - viewport()->height()));
    vertical->setPageStep(viewport()->height());
    vertical->setSingleStep(m_laneHeight);

    QScrollBar *horizontal = horizontalScrollBar();
    if (m_model && m_model->originMs() >= 0) {
        const double low = m_model->originMs() - padPx * m_msPerPx;
        const double contentPx
            = (m_model->extentEndMs() - m_model->originMs()) / m_msPerPx + 2 * padPx;
        m_hScale = contentPx > 1e9 ? 1e9 / contentPx : 1;
        const double page = viewport()->width();
        horizontal->setRange(0, int(std::max(0.0, (contentPx - page) * m_hScale)));
        horizontal->setPageStep(std::max(1, int(page * m_hScale)));
        horizontal->setSingleStep(std::max(1, int(40 * m_hScale)));
        horizontal->setValue(int(std::lround((m_startMs - low) / m_msPerPx * m_hScale)));
    } else {
        horizontal->setRange(0, 0);
    }
    m_syncingBars = false;
}

void TimelineView::scrollContentsBy(int dx, int dy)
{
    if (!m_syncingBars && dx != 0 && m_model && m_model->originMs() >= 0) {
        const double low = m_model->originMs() - padPx * m_msPerPx;
        m_startMs = low + horizontalScrollBar()->value() / m_hScale * m_msPerPx;
        m_fitting = false;
        clampStart();
        m_axis->update();
        Q_EMIT visibleSpanChanged();
    }
    if (dy != 0)
        m_gutter->update();
    viewport()->update();
}

void TimelineView::scrollTo(const QModelIndex &index, ScrollHint hint)
{
    if (!m_model || !index.isValid() || index.model() != m_model)
        return;
    const int item = index.row();
    const Item &entry = m_model->item(item);
    if (!entry.placed)
        return;
    // Vertically: its row into view.
    const int rowIndex = rowOfItem(item);
    if (rowIndex >= 0) {
        const Row &row = m_rows[size_t(rowIndex)];
        QScrollBar *bar = verticalScrollBar();
        const int top = bar->value();
        const int height = viewport()->height();
        if (hint == PositionAtCenter)
            bar->setValue(row.y - (height - row.height) / 2);
        else if (hint == PositionAtTop || row.y < top)
            bar->setValue(row.y - (entry.kind == ItemKind::Mark ? 0 : m_markRowHeight));
        else if (hint == PositionAtBottom || row.y + row.height > top + height)
            bar->setValue(row.y + row.height - height);
    }
    // Horizontally: kept as it is when the item's start is in view, else centred on it.
    const double start = double(entry.startMs);
    const double end = double(m_model->endMs(item));
    const double visibleStart = m_startMs;
    const double visibleEnd = visibleEndMs();
    const bool shown = start >= visibleStart && start <= visibleEnd;
    if (!shown || hint == PositionAtCenter) {
        const double middle = end - start < visibleEnd - visibleStart ? (start + end) / 2 : start;
        m_fitting = false;
        m_startMs = middle - (visibleEnd - visibleStart) / 2;
        viewChanged();
    }
}

QModelIndex TimelineView::moveCursor(CursorAction cursorAction, Qt::KeyboardModifiers)
{
    if (!m_model || m_model->itemCount() == 0)
        return {};
    ensureLayout();
    const QModelIndex current = currentIndex();
    auto firstCall = [this]() -> QModelIndex {
        for (const Row &row : m_rows) {
            const TimelineModel::Group &group = m_model->group(row.group);
            const std::vector<int> &items
                = row.lane < 0 ? group.marks : group.lanes[size_t(row.lane)];
            if (!items.empty())
                return m_model->index(items.front(), 0);
        }
        return {};
    };
    if (!current.isValid())
        return firstCall();
    const int item = current.row();
    const Item &entry = m_model->item(item);
    if (entry.kind == ItemKind::Turn) {
        const std::vector<int> &turns = m_model->turnRows();
        const auto at = std::find(turns.begin(), turns.end(), item);
        if (cursorAction == MoveRight || cursorAction == MoveNext)
            return at + 1 != turns.end() ? m_model->index(*(at + 1), 0) : current;
        if (cursorAction == MoveLeft || cursorAction == MovePrevious)
            return at != turns.begin() ? m_model->index(*(at - 1), 0) : current;
        return firstCall();
    }
    const int rowIndex = rowOfItem(item);
    if (rowIndex < 0)
        return current;
    const Row &row = m_rows[size_t(rowIndex)];
    const TimelineModel::Group &group = m_model->group(row.group);
    const std::vector<int> &items = row.lane < 0 ? group.marks : group.lanes[size_t(row.lane)];
    const auto at = std::find(items.begin(), items.end(), item);
    switch (cursorAction) {
    case MoveRight:
    case MoveNext:
        return at != items.end() && at + 1 != items.end() ? m_model->index(*(at + 1), 0) : current;
    case MoveLeft:
    case MovePrevious:
        return at != items.begin() && at != items.end() ? m_model->index(*(at - 1), 0) : current;
    case MoveHome:
        return m_model->index(items.front(), 0);
    case MoveEnd:
        return m_model->index(items.back(), 0);
    case MoveUp:
    case MoveDown:
    case MovePageUp:
    case MovePageDown: {
        const int step = cursorAction == MoveUp || cursorAction == MovePageUp ? -1 : 1;
        for (int other = rowIndex + step; other >= 0 && other < int(m_rows.size()); other += step) {
            const int found = nearestInRow(other, double(entry.startMs));
            if (found >= 0)
                return m_model->index(found, 0);
        }
        return current;
    }
    }
    return current;
}

// ---------------------------------------------------------------------------------------
// Model updates: coalesced into one refresh per event loop pass.

void TimelineView::scheduleRefresh()
{
    if (!m_refreshTimer.isActive())
        m_refreshTimer.start();
}

void TimelineView::refresh()
{
    if (m_fitting) {
        m_msPerPx = std::max(minMsPerPx, fitMsPerPixel());
        m_startMs
            = m_model && m_model->originMs() >= 0 ? m_model->originMs() - padPx * m_msPerPx : 0;
    }
    clampStart();
    syncScrollBars();
    viewport()->update();
    m_axis->update();
    m_gutter->update();
}

void TimelineView::dataChanged(const QModelIndex &, const QModelIndex &, const QVector<int> &)
{
    scheduleRefresh();
}

void TimelineView::rowsInserted(const QModelIndex &parent, int start, int end)
{
    QAbstractItemView::rowsInserted(parent, start, end);
    scheduleRefresh();
}

void TimelineView::reset()
{
    QAbstractItemView::reset();
    m_hoverItem = -1;
    m_layoutRevision = ~quint64(0);
    scheduleRefresh();
}

void TimelineView::updateGeometries()
{
    setViewportMargins(m_gutterWidth, m_axisHeight, 0, 0);
    const QRect area = viewport()->geometry();
    m_axis->setGeometry(area.left() - m_gutterWidth, area.top() - m_axisHeight,
        area.width() + m_gutterWidth, m_axisHeight);
    m_gutter->setGeometry(area.left() - m_gutterWidth, area.top(), m_gutterWidth, area.height());
    syncScrollBars();
    QAbstractItemView::updateGeometries();
}

void TimelineView::resizeEvent(QResizeEvent *event)
{
    QAbstractItemView::resizeEvent(event);
    updateGeometries();
    refresh();
}

void TimelineView::currentChanged(const QModelIndex &current, const QModelIndex &previous)
{
    QAbstractItemView::currentChanged(current, previous);
    viewport()->update();
    m_axis->update();
}

void TimelineView::selectionChanged(
    const QItemSelection &selected, const QItemSelection &deselected)
{
    QAbstractItemView::selectionChanged(selected, deselected);
    viewport()->update();
    m_axis->update();
}

void TimelineView::setLiveClock(bool on)
{
    if (on && m_model)
        m_model->setNowMs(QDateTime::currentMSecsSinceEpoch());
    if (on)
        m_clock.start();
    else
        m_clock.stop();
}

// ---------------------------------------------------------------------------------------
// Input

void TimelineView::wheelEvent(QWheelEvent *event)
{
    const QPoint delta = event->angleDelta();
    const Qt::KeyboardModifiers modifiers = event->modifiers();
#if QT_VERSION >= QT_VERSION_CHECK(5, 14, 0)
    const QPointF position = viewport()->mapFromGlobal(event->globalPosition().toPoint());
#else
    const QPointF position = viewport()->mapFromGlobal(event->globalPos());
#endif
    if (modifiers & Qt::AltModifier) {
        // Some platforms turn Alt+wheel into a horizontal wheel.
        const int steps = delta.y() != 0 ? delta.y() : delta.x();
        QScrollBar *bar = verticalScrollBar();
        bar->setValue(bar->value() - steps / 120 * m_laneHeight * 2);
    } else if (modifiers & Qt::ShiftModifier) {
        const int steps = delta.y() != 0 ? delta.y() : delta.x();
        panBy(-steps / 120.0 * viewport()->width() / 8);
    } else if (std::abs(delta.x()) > std::abs(delta.y())) {
        panBy(-delta.x() / 120.0 * viewport()->width() / 8);
    } else if (delta.y() != 0) {
        zoomAround(position.x(), std::pow(2.0, delta.y() / 120.0 / 4));
    }
    event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton && event->button() != Qt::MiddleButton) {
        event->ignore();
        return;
    }
    setFocus(Qt::MouseFocusReason);
    m_pressPosition = event->pos();
    m_pressStartMs = m_startMs;
    m_pressScrollY = verticalScrollBar()->value();
    m_dragging = false;
    event->accept();
}

void TimelineView::mouseMoveEvent(QMouseEvent *event)
{
    if (event->buttons() & (Qt::LeftButton | Qt::MiddleButton)) {
        const QPoint moved = event->pos() - m_pressPosition;
        if (!m_dragging && moved.manhattanLength() >= QApplication::startDragDistance()) {
            m_dragging = true;
            viewport()->setCursor(Qt::ClosedHandCursor);
        }
        if (m_dragging) {
            m_fitting = false;
            m_startMs = m_pressStartMs - moved.x() * m_msPerPx;
            verticalScrollBar()->setValue(m_pressScrollY - moved.y());
            viewChanged();
        }
        event->accept();
        return;
    }
    const int hovered = itemAt(event->pos());
    if (hovered != m_hoverItem) {
        m_hoverItem = hovered;
        viewport()->update();
    }
}

void TimelineView::mouseReleaseEvent(QMouseEvent *event)
{
    if (m_dragging) {
        m_dragging = false;
        viewport()->unsetCursor();
    } else if (event->button() == Qt::LeftButton && selectionModel()) {
        const QModelIndex index = indexAt(event->pos());
        if (index.isValid())
            selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect);
    }
    event->accept();
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent *event)
{
    const QModelIndex index = indexAt(event->pos());
    if (index.isValid() && selectionModel()) {
        selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect);
        fitSelection();
    }
    event->accept();
}

void TimelineView::keyPressEvent(QKeyEvent *event)
{
    if (event->modifiers() & ~(Qt::ShiftModifier | Qt::KeypadModifier)) {
        QAbstractItemView::keyPressEvent(event);
        return;
    }
    const double width = viewport()->width();
    switch (event->key()) {
    case Qt::Key_W:
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomIn();
        break;
    case Qt::Key_S:
    case Qt::Key_Minus:
        zoomOut();
        break;
    case Qt::Key_A:
        panBy(-width / 5);
        break;
    case Qt::Key_D:
        panBy(width / 5);
        break;
    case Qt::Key_F:
        fitSelection();
        break;
    case Qt::Key_0:
        fitRun();
        break;
    default:
        QAbstractItemView::keyPressEvent(event);
        return;
    }
    event->accept();
}

bool TimelineView::viewportEvent(QEvent *event)
{
    switch (event->type()) {
    case QEvent::ToolTip: {
        const auto *help = static_cast<QHelpEvent *>(event);
        const int item = itemAt(help->pos());
        if (item < 0) {
            QToolTip::hideText();
            event->ignore();
            return true;
        }
        QToolTip::showText(help->globalPos(), m_model->toolTip(item), viewport(),
            itemRect(item).toAlignedRect().intersected(viewport()->rect()));
        return true;
    }
    case QEvent::Leave:
        if (m_hoverItem >= 0) {
            m_hoverItem = -1;
            viewport()->update();
        }
        break;
    default:
        break;
    }
    return QAbstractItemView::viewportEvent(event);
}

// ---------------------------------------------------------------------------------------
// Painting

QString TimelineView::tickLabel(double offsetMs, double stepMs)
{
    return TimelineAxis::tickLabel(offsetMs, stepMs);
}

void TimelineView::paintEvent(QPaintEvent *event)
{
    QPainter painter(viewport());
    const QPalette palette = this->palette();
    const QRect area = viewport()->rect();
    painter.fillRect(event->rect(), palette.color(QPalette::Base));
    if (!m_model || m_model->originMs() < 0) {
        painter.setPen(TimelineDelegate::mixed(
            palette.color(QPalette::Text), palette.color(QPalette::Base), 0.5));
        painter.drawText(area, Qt::AlignCenter,
            m_model && m_model->itemCount() > 0 ? tr("No times in this run yet")
                                                : tr("No tool calls yet"));
        return;
    }
    ensureLayout();
    TimelineDelegate *delegate = timelineDelegate();
    const double t0 = timeAtX(-2);
    const double t1 = timeAtX(area.width() + 2);
    const QModelIndex current = currentIndex();

    // Turns as bands behind everything. Turns narrower than a few pixels cannot be told apart:
    // a run of them is painted as one band (a column of one pixel costs a fill per line).
    bool merging = false;
    QRectF merged;
    auto flushMerged = [&] {
        if (!merging)
            return;
        merging = false;
        if (delegate)
            delegate->paintTurnBand(&painter, merged, false, QStyle::State_None, palette);
    };
    const auto [firstTurn, lastTurn] = turnsBetween(t0, t1);
    for (size_t at = firstTurn; at < lastTurn; ++at) {
        const int turn = m_model->turnRows()[at];
        const int turnNumber = int(at) + 1;
        const Item &item = m_model->item(turn);
        if (!item.placed)
            continue;
        const QRectF rect = itemRect(turn);
        if (rect.right() < 0 || rect.left() > area.width())
            continue;
        const QStyle::State state = current.isValid() && current.row() == turn
            ? QStyle::State_Selected
            : QStyle::State_None;
        if (delegate && rect.width() < 3 && state == QStyle::State_None) {
            if (merging && rect.left() <= merged.right() + 1) {
                merged.setRight(std::max(merged.right(), rect.right()));
            } else {
                flushMerged();
                merging = true;
                merged = rect;
            }
            continue;
        }
        flushMerged();
        if (delegate) {
            delegate->paintTurnBand(&painter, rect, turnNumber % 2 == 0, state, palette);
        } else {
            QStyleOptionViewItem option;
            option.initFrom(this);
            option.rect = rect.toAlignedRect();
            option.state |= state;
            itemDelegate()->paint(&painter, option, m_model->index(turn, 0));
        }
    }
    flushMerged();

    // The axis's ticks as faint lines.
    const double step = TimelineAxis::tickStepMs(m_msPerPx);
    const double origin = double(m_model->originMs());
    const QColor grid = TimelineDelegate::mixed(
        palette.color(QPalette::Base), palette.color(QPalette::Text), 0.07);
    for (double tick = origin + std::ceil((t0 - origin) / step) * step; tick <= t1; tick += step)
        painter.fillRect(QRect(int(std::floor(xForTime(tick))), 0, 1, area.height()), grid);

    paintRows(&painter, area, t0, t1);

    // A live run's "now".
    if (m_clock.isActive() && m_model->hasOpenItems()) {
        const double x = xForTime(double(m_model->openEndMs()));
        if (x >= 0 && x <= area.width()) {
            QPen pen(palette.color(QPalette::Highlight), 1, Qt::DashLine);
            painter.setPen(pen);
            painter.drawLine(QPointF(x, 0), QPointF(x, area.height()));
        }
    }

    // The hovered and the current item on top.
    if (delegate) {
        if (m_hoverItem >= 0 && m_hoverItem < m_model->itemCount()
            && m_model->item(m_hoverItem).kind != ItemKind::Turn
            && (!current.isValid() || current.row() != m_hoverItem))
            delegate->paintFocus(&painter, itemRect(m_hoverItem), false,
                m_model->item(m_hoverItem).kind == ItemKind::Mark, palette);
        if (current.isValid() && m_model->item(current.row()).kind != ItemKind::Turn
            && m_model->item(current.row()).placed)
            delegate->paintFocus(&painter, itemRect(current.row()), true,
                m_model->item(current.row()).kind == ItemKind::Mark, palette);
    }
}

void TimelineView::paintRows(QPainter *painter, const QRect &area, double t0, double t1) const
{
    const QPalette palette = this->palette();
    const int top = verticalScrollBar()->value();
    const int first = std::max(0, rowAtY(0));
    const QColor separator = TimelineDelegate::mixed(
        palette.color(QPalette::Base), palette.color(QPalette::Text), 0.16);
    const QColor markRowFill = TimelineDelegate::mixed(
        palette.color(QPalette::Base), palette.color(QPalette::Text), 0.025);
    const QColor lifetime = TimelineDelegate::mixed(palette.color(QPalette::Base),
        TimelineDelegate::toolColor(RunModel::ToolKind::Agent, palette), 0.08);

    for (size_t r = size_t(first); r < m_rows.size(); ++r) {
        const Row &row = m_rows[r];
        const double y = row.y - top;
        if (y > area.height())
            break;
        if (y + row.height < 0)
            continue;
        const TimelineModel::Group &group = m_model->group(row.group);
        if (row.lane < 0) {
            painter->fillRect(QRect(0, int(y), area.width(), row.height), markRowFill);
            if (r > 0)
                painter->fillRect(QRect(0, int(y), area.width(), 1), separator);
        }
        // A sub-agent's rows are tinted while its Agent call runs: its lifetime, lined up with
        // the call's bar.
        if (group.call >= 0 && m_model->item(group.call).placed) {
            const double x0 = clampX(xForTime(double(m_model->item(group.call).startMs)));
            const double x1 = clampX(xForTime(double(m_model->endMs(group.call))));
            if (x1 >= 0 && x0 <= area.width())
                painter->fillRect(
                    QRect(int(x0), int(y) + (row.lane < 0 && r > 0 ? 1 : 0),
                        std::max(1, int(x1 - x0)), row.height - (row.lane < 0 && r > 0 ? 1 : 0)),
                    lifetime);
        }
        if (row.lane < 0) {
            paintMarks(painter, group, y, row.height, t0, t1);
            continue;
        }
        paintLane(painter, group, row.lane, y, row.height, area.width(), t0, t1);
    }
}

// Marks: one per pixel column (the first of it; later ones in the column are skipped by
// binary search), then the loud ones (errors, denials, retries) over them, each seen.
void TimelineView::paintMarks(QPainter *painter, const TimelineModel::Group &group, double y,
    int height, double t0, double t1) const
{
    const QPalette palette = this->palette();
    TimelineDelegate *delegate = timelineDelegate();
    const double slack = 3 * m_msPerPx;
    const auto byStart = [this](int item, double value) {
        return double(m_model->item(item).startMs) < value;
    };
    auto paintOne = [&](int row) {
        const Item &item = m_model->item(row);
        const double x = xForTime(double(item.startMs));
        const double width = TimelineModel::isLoud(item.mark) ? 3 : 2;
        const QRectF rect(x - width / 2, y + 3, width, height - 6);
        if (delegate) {
            delegate->paintMark(painter, rect, item.mark, QStyle::State_None, palette);
        } else {
            QStyleOptionViewItem option;
            option.initFrom(this);
            option.rect = rect.toAlignedRect();
            itemDelegate()->paint(painter, option, m_model->index(row, 0));
        }
        return x;
    };
    const std::vector<int> &marks = group.marks;
    auto at = std::lower_bound(marks.begin(), marks.end(), t0 - slack, byStart);
    while (at != marks.end() && double(m_model->item(*at).startMs) <= t1 + slack) {
        const double x = paintOne(*at);
        // The next mark at least a pixel further.
        at = std::lower_bound(at + 1, marks.end(), timeAtX(std::floor(x) + 1), byStart);
    }
    const std::vector<int> &loud = group.loudMarks;
    int lastColumn = std::numeric_limits<int>::min();
    int lastRank = 0;
    for (auto it = std::lower_bound(loud.begin(), loud.end(), t0 - slack, byStart);
         it != loud.end() && double(m_model->item(*it).startMs) <= t1 + slack; ++it) {
        const Item &item = m_model->item(*it);
        const int column = int(std::floor(xForTime(double(item.startMs))));
        const int rank = markRank(item.mark);
        if (column == lastColumn && rank <= lastRank)
            continue;
        lastColumn = column;
        lastRank = rank;
        paintOne(*it);
    }
}

// A lane: its calls from the first that ends in view to the last that starts in it. Calls
// narrower than clusterPx merge into a cluster, and the calls ending within the cluster's last
// pixel are skipped by binary search, so a fitted lane of 100,000 calls costs a few thousand
// steps; its failed, denied and interrupted calls are then painted over it, each seen.
void TimelineView::paintLane(QPainter *painter, const TimelineModel::Group &group, int laneIndex,
    double y, int height, int width, double t0, double t1) const
{
    const QPalette palette = this->palette();
    TimelineDelegate *delegate = timelineDelegate();
    const std::vector<int> &lane = group.lanes[size_t(laneIndex)];
    // A closed call's end is its own (no call into the model).
    const auto byEnd = [this](int row, double value) {
        const Item &item = m_model->item(row);
        return double(item.open() ? m_model->endMs(row) : item.endMs) < value;
    };
    auto at = std::lower_bound(lane.begin(), lane.end(), t0, byEnd);
    const double barTop = y + 2;
    const double barHeight = height - 4;
    bool clusterOpen = false;
    double clusterLeft = 0;
    double clusterRight = 0;
    RunModel::Status clusterStatus = RunModel::Status::Ok;
    RunModel::ToolKind clusterKind = RunModel::ToolKind::None;
    auto flush = [&] {
        if (!clusterOpen)
            return;
        clusterOpen = false;
        const QRectF rect(
            clusterLeft, barTop, std::max(2.0, clusterRight - clusterLeft), barHeight);
        if (delegate)
            delegate->paintCluster(painter, rect, clusterKind, clusterStatus, palette);
        else
            painter->fillRect(rect, palette.color(QPalette::Mid));
    };
    while (at != lane.end()) {
        const int row = *at;
        const Item &item = m_model->item(row);
        const double start = double(item.startMs);
        if (start > t1)
            break;
        const double x0 = xForTime(start);
        const double x1 = xForTime(double(m_model->endMs(row)));
        if (x1 - x0 < clusterPx) {
            if (clusterOpen && x0 <= clusterRight + 1) {
                clusterRight = std::max(clusterRight, x1);
                if (TimelineDelegate::severity(item.status)
                    > TimelineDelegate::severity(clusterStatus)) {
                    clusterStatus = item.status;
                    clusterKind = item.toolKind;
                }
            } else {
                flush();
                clusterOpen = true;
                clusterLeft = x0;
                clusterRight = std::max(x1, x0 + 1);
                clusterStatus = item.status;
                clusterKind = item.toolKind;
            }
            // The calls that end within this pixel merge into the cluster unseen.
            const double pixelEnd = timeAtX(std::floor(clusterRight) + 1);
            const auto next = std::lower_bound(at + 1, lane.end(), pixelEnd, byEnd);
            if (next - at > 1)
                clusterRight
                    = std::max(clusterRight, xForTime(double(m_model->endMs(*(next - 1)))));
            at = next;
            continue;
        }
        flush();
        // Clipped near the viewport, so the label starts where the bar is seen.
        const double left = std::max(x0, -4.0);
        const double right = std::min(x1, width + 4.0);
        const QRectF rect(left, barTop, right - left, barHeight);
        if (delegate) {
            delegate->paintCall(painter, rect, item.toolKind, item.status, item.open(),
                rect.width() > 40 ? m_model->label(row) : QString(), QStyle::State_None, palette);
        } else {
            QStyleOptionViewItem option;
            option.initFrom(this);
            option.rect = rect.toAlignedRect();
            itemDelegate()->paint(painter, option, m_model->index(row, 0));
        }
        ++at;
    }
    flush();

    // Problems hidden in clusters: one mark per pixel column.
    const std::vector<int> &problems = group.problems[size_t(laneIndex)];
    auto problem = std::lower_bound(problems.begin(), problems.end(), t0,
        [this](int item, double value) { return double(m_model->item(item).startMs) < value; });
    // A problem starting before t0 may reach into view.
    if (problem != problems.begin())
        --problem;
    double lastRight = -1e9;
    for (; problem != problems.end(); ++problem) {
        const Item &item = m_model->item(*problem);
        if (double(item.startMs) > t1)
            break;
        const double x0 = xForTime(double(item.startMs));
        const double x1 = xForTime(double(m_model->endMs(*problem)));
        if (x1 - x0 >= clusterPx || x1 < 0 || x0 < lastRight)
            continue; // wide enough to be painted as a bar, out of view, or shown already
        const QRectF rect(x0, barTop, std::max(2.0, x1 - x0), barHeight);
        if (delegate)
            delegate->paintCluster(painter, rect, item.toolKind, item.status, palette);
        lastRight = rect.right();
    }
}

} // namespace sandscope
