#pragma once
// The run's timeline (TimelineModel) on a time axis: each thread of the run (the main thread,
// then every sub-agent nested under it, indented in the gutter) as a row of marks (text,
// thinking, prompts, retries, errors, denials) and the lanes of its calls; turns as bands
// behind them, named on the axis. Painted by TimelineDelegate, only what is in view: the
// visible rows are found by their position, the visible calls of a lane by binary search (a
// lane's calls are sorted and do not overlap), and calls shorter than a few pixels merge into
// one cluster, so a run of 100,000 calls paints as fast fitted to the window as zoomed in.
//
// Navigation as in trace viewers: the wheel zooms around the pointer (Ctrl+wheel too),
// Shift+wheel and a horizontal wheel pan, Alt+wheel (or the wheel over the gutter) scrolls the
// rows, dragging pans both ways; W/S or +/- zoom, A/D pan, F fits the selection, 0 the run, and
// the arrow keys walk from call to call. Until the view is zoomed or panned it keeps the whole
// run in view, also while a live run grows. Hovering an item shows its name, duration, status
// and tokens; double-clicking fits it. Selection goes through the selection model, so a page
// can keep it in step with the run tree.

#include "timeline/timelinemodel.h"

#include <QAbstractItemView>
#include <QTimer>

#include <vector>

namespace sandscope {

class TimelineAxis;
class TimelineDelegate;
class TimelineGutter;

class TimelineView : public QAbstractItemView {
    Q_OBJECT

public:
    explicit TimelineView(QWidget *parent = nullptr);
    ~TimelineView() override;

    // A TimelineModel; other models are refused.
    void setModel(QAbstractItemModel *model) override;
    TimelineModel *timelineModel() const { return m_model; }

    // The span shown, in the model's milliseconds, and the scale.
    double visibleStartMs() const { return m_startMs; }
    double visibleEndMs() const;
    double msPerPixel() const { return m_msPerPx; }
    // Viewport x of a time and back.
    double xForTime(double ms) const { return (ms - m_startMs) / m_msPerPx; }
    double timeAtX(double x) const { return m_startMs + x * m_msPerPx; }
    // Whether the view keeps the whole run in view (until it is zoomed or panned).
    bool isFittingRun() const { return m_fitting; }
    // What hovering at a viewport position shows; empty over nothing.
    QString toolTipAt(const QPoint &viewportPosition) const;
    // "1.5 s", "250 ms", "2:30": the axis label of an offset from the run's start, for ticks
    // stepMs apart.
    static QString tickLabel(double offsetMs, double stepMs);
    QWidget *axisWidget() const;
    QWidget *gutterWidget() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    QRect visualRect(const QModelIndex &index) const override;
    void scrollTo(const QModelIndex &index, ScrollHint hint = EnsureVisible) override;
    QModelIndex indexAt(const QPoint &point) const override;
    void keyboardSearch(const QString &) override { }

public slots:
    void fitRun();
    // Zooms to the current item (a call with its sub-agent's work, a turn) and scrolls to it.
    void fitSelection();
    void zoomIn();
    void zoomOut();
    // Zooms by factor (> 1: in) keeping the time under viewport x where it is.
    void zoomAround(double x, double factor);
    void panBy(double pixels);
    // A live run: open calls grow with the wall clock.
    void setLiveClock(bool on);

Q_SIGNALS:
    void visibleSpanChanged();

protected:
    QModelIndex moveCursor(CursorAction cursorAction, Qt::KeyboardModifiers modifiers) override;
    int horizontalOffset() const override;
    int verticalOffset() const override;
    bool isIndexHidden(const QModelIndex &index) const override;
    void setSelection(const QRect &rect, QItemSelectionModel::SelectionFlags command) override;
    QRegion visualRegionForSelection(const QItemSelection &selection) const override;

    void dataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight,
        const QVector<int> &roles = QVector<int>()) override;
    void rowsInserted(const QModelIndex &parent, int start, int end) override;
    void reset() override;
    void updateGeometries() override;
    void scrollContentsBy(int dx, int dy) override;
    void currentChanged(const QModelIndex &current, const QModelIndex &previous) override;
    void selectionChanged(
        const QItemSelection &selected, const QItemSelection &deselected) override;

    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    bool viewportEvent(QEvent *event) override;

private:
    friend class TimelineAxis;
    friend class TimelineGutter;

    struct Row {
        int group;
        int lane; // -1: the group's marks
        int y; // in content coordinates
        int height;
    };

    void ensureLayout() const;
    int rowAtY(int viewportY) const; // index into m_rows, -1 for none
    int rowOfItem(int item) const;
    int itemAt(const QPoint &point) const;
    int turnAt(double x) const;
    // The positions in TimelineModel::turnRows() of the turns that may be in [t0, t1].
    std::pair<size_t, size_t> turnsBetween(double t0, double t1) const;
    double turnStart(int turn) const;
    int nearestInRow(int rowIndex, double ms) const;
    QRectF itemRect(int item) const;
    void scheduleRefresh();
    void refresh();
    void clampStart();
    void syncScrollBars();
    void viewChanged();
    double fitMsPerPixel() const;
    void paintRows(QPainter *painter, const QRect &area, double t0, double t1) const;
    void paintMarks(QPainter *painter, const TimelineModel::Group &group, double y, int height,
        double t0, double t1) const;
    void paintLane(QPainter *painter, const TimelineModel::Group &group, int lane, double y,
        int height, int width, double t0, double t1) const;
    TimelineDelegate *timelineDelegate() const;

    TimelineModel *m_model = nullptr;
    TimelineAxis *m_axis;
    TimelineGutter *m_gutter;
    double m_startMs = 0;
    double m_msPerPx = 1;
    bool m_fitting = true;
    bool m_syncingBars = false;
    double m_hScale = 1; // horizontal scroll bar units per pixel of content
    int m_hoverItem = -1;
    QPoint m_pressPosition;
    double m_pressStartMs = 0;
    int m_pressScrollY = 0;
    bool m_dragging = false;
    QTimer m_refreshTimer;
    QTimer m_clock;

    mutable std::vector<Row> m_rows;
    mutable std::vector<int> m_firstRowOfGroup;
    mutable quint64 m_layoutRevision = ~quint64(0);
    mutable int m_contentHeight = 0;
    int m_markRowHeight = 16;
    int m_laneHeight = 20;
    int m_gutterWidth = 170;
    int m_axisHeight = 38;
};

} // namespace sandscope
