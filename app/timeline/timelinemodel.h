#pragma once
// The run on a time axis (docs/timeline.md): every tool call of a RunModel as an item with a
// start, an end and a lane, turns as bands, text, thinking, prompts, retries, API errors and
// denials as instant marks. A flat list model (one row per item, in the order the items were
// seen) that TimelineView paints.
//
// Built from the source's rows and kept up to date incrementally: rowsInserted appends items,
// dataChanged updates an item in place (its status, its end, and its lane once its start is
// known); a source reset (or any other structural change, which RunModel does not make) rebuilds
// everything in one pass. Rows are only ever appended, so each item keeps the plain source
// index of its node (RunModel never moves or removes rows) and no persistent index is held.
//
// Lanes: calls are grouped by thread: the main thread's calls in group 0, the calls of a
// sub-agent in a group of their own nested under the group of the Agent call that spawned it.
// Within a group a call goes to the first lane whose calls have all ended by its start (a call
// still running blocks its lane), so calls that overlap in time, such as parallel calls of one
// message, lie in lanes side by side. Items in a lane are sorted by start and do not overlap.
//
// Times: RunModel::StartedAtMsRole and DurationMsRole, i.e. arrival times for live runs and
// recordings, the lines' own timestamps for stream-json files and transcripts. A call that is
// still running (or a background agent's) has no end of its own: it ends at openEndMs(), the
// latest time the run has shown, or the clock set with setNowMs() when that is later, so its bar
// grows while a live run goes on. An interrupted call ends where its turn ended.

#include "runtree/runmodel.h"
#include "util/chunkedvector.h"

#include <QAbstractListModel>
#include <QHash>
#include <QPointer>

#include <limits>
#include <vector>

namespace sandscope {

class TimelineModel : public QAbstractListModel {
    Q_OBJECT

public:
    enum class ItemKind : quint8 {
        Call, // a tool call: a bar
        Mark, // an instant: a thin mark on its thread's mark row
        Turn, // a turn: a band behind everything
    };
    Q_ENUM(ItemKind)

    enum class MarkKind : quint8 {
        None, // not a mark
        Text,
        Thinking,
        Prompt, // a user prompt, or a sub-agent's
        Retry, // an API retry
        Error, // an API error
        Denied, // a permission denial outside a call
    };
    Q_ENUM(MarkKind)

    enum Role {
        SourceIndexRole = Qt::UserRole + 64, // the RunModel node (QModelIndex)
        ItemKindRole, // ItemKind as int
        MarkKindRole, // MarkKind as int
        StatusRole, // RunModel::Status as int
        ToolKindRole, // RunModel::ToolKind as int
        StartMsRole, // qint64; invalid while the start is not known
        EndMsRole, // qint64: the item's end as shown (open items: openEndMs())
        OpenRole, // bool: the item has no end of its own yet (running, background, interrupted)
        GroupRole, // int: the thread (0: the main thread)
        LaneRole, // int: calls' lane in their group; -1 for marks and turns
        TurnRole, // int: 1-based turn number
        DepthRole, // int: sub-agent nesting depth of the item's group
    };

    struct Item {
        QModelIndex source; // column 0
        qint64 startMs = -1; // -1: not known yet; the item is not placed until it is
        qint64 endMs = -1; // its own end; -1 while open
        int group = -1;
        int lane = -1;
        int turn = -1; // its turn's position in turnRows() (turns: their own)
        int childGroup = -1; // calls: the group of their sub-agent's items
        ItemKind kind = ItemKind::Call;
        MarkKind mark = MarkKind::None;
        RunModel::Status status = RunModel::Status::None;
        RunModel::ToolKind toolKind = RunModel::ToolKind::None;
        bool placed = false;
        // No end of its own yet: a running, background or interrupted call, a running turn.
        bool open() const { return endMs < 0 && kind != ItemKind::Mark; }
    };

    using Items = ChunkedVector<Item>;

    struct Group {
        int call = -1; // the item row of the call whose sub-agent this is; -1: the main thread
        int parent = -1;
        int depth = 0;
        std::vector<int> children; // nested groups, in the order they appeared
        std::vector<int> marks; // item rows sorted by start
        std::vector<int> loudMarks; // the errors, denials and retries among them
        std::vector<std::vector<int>> lanes; // item rows per lane, by start, not overlapping
        // Per lane its failed, denied and interrupted calls, by start: a view that merges
        // calls too short to tell apart still shows each of these.
        std::vector<std::vector<int>> problems;
        // Per lane the end of its last call (max() while that call runs), as a min-tree: the
        // first lane free at a time is found in O(log lanes).
        std::vector<qint64> laneTree;
        int laneCapacity = 0;
    };

    static constexpr qint64 openLaneEnd = std::numeric_limits<qint64>::max();
    // Calls a lane lists in Group::problems, marks a group lists in Group::loudMarks.
    static bool isProblem(RunModel::Status status);
    static bool isLoud(MarkKind kind);

    explicit TimelineModel(QObject *parent = nullptr);
    ~TimelineModel() override;

    void setSourceModel(RunModel *source);
    RunModel *sourceModel() const { return m_source; }

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

    // Direct access for the view, which paints from these without QVariants.
    const Item &item(int row) const { return m_items[size_t(row)]; }
    int itemCount() const { return int(m_items.size()); }
    int callCount() const { return m_callCount; }
    const Group &group(int id) const { return m_groups[size_t(id)]; }
    int groupCount() const { return int(m_groups.size()); }
    // The groups depth-first (a sub-agent's right after the group of its call), the main
    // thread first.
    std::vector<int> groupOrder() const;
    // Rows of the turn items, in order.
    const std::vector<int> &turnRows() const { return m_turns; }
    // Whether the turns start in their order (arrival times only grow): a view may then find
    // the turns in view by binary search.
    bool turnsInOrder() const { return m_turnsInOrder; }
    // Changes whenever a group or a lane is added: the view's layout of rows is stale then.
    quint64 layoutRevision() const { return m_layoutRevision; }

    // The item's start as shown (a turn's band begins with its earliest item) and its end: its
    // own, its turn's for an interrupted call, else openEndMs().
    qint64 startMs(int row) const;
    qint64 endMs(int row) const;
    // Where the run starts and ends on the axis; -1 before anything is placed.
    qint64 originMs() const { return m_originMs; }
    qint64 extentEndMs() const;
    // Where open items end: the latest time seen, or the clock when that is later.
    qint64 openEndMs() const;
    bool hasOpenItems() const { return m_openCount > 0; }
    // A live run's wall clock (ms since the epoch, the arrival clock); -1: none (files).
    void setNowMs(qint64 nowMs);
    qint64 nowMs() const { return m_nowMs; }

    // The item of a RunModel node, or of its nearest ancestor that has one (a result leaf gives
    // its turn); invalid when there is none.
    QModelIndex indexForSource(const QModelIndex &sourceIndex) const;
    QModelIndex sourceIndex(const QModelIndex &index) const;
    // The label of an item ("Bash: echo hi", "Turn 2 · model", a mark's summary).
    QString label(int row) const;
    // Name, time, duration, status and tokens, one per line.
    QString toolTip(int row) const;
    // The span of an item and of everything nested in it (a call with its sub-agent, a turn
    // with its items), for "fit selection".
    std::pair<qint64, qint64> timeSpan(int row) const;

Q_SIGNALS:
    // The run's extent on the axis changed (new items, a later end, the clock).
    void extentChanged();
    // A group or lane was added (layoutRevision() changed).
    void lanesChanged();

private:
    // Source node (its internal pointer) -> item row, by open addressing in one array: no
    // allocation per entry (at 400,000 items a node-based hash spends a rebuild in malloc).
    class RowIndex {
    public:
        void clear();
        void reserve(size_t count);
        void insert(const void *node, int row);
        int value(const void *node) const; // -1: none

    private:
        struct Slot {
            const void *node = nullptr;
            int row = -1;
        };
        size_t slotOf(const void *node) const;
        std::vector<Slot> m_slots; // a power of two, at most half full
        size_t m_count = 0;
    };

    void connectSource();
    void rebuild();
    void clear();
    void onRowsInserted(const QModelIndex &parent, int first, int last);
    void onDataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight);
    void onAboutToReset();
    void onReset();

    // The item of a node (false when the node is not shown on the timeline), then adding it
    // (no row signals).
    bool prepareNode(const QModelIndex &source, int parentItem, Item *item);
    void commitNode(const Item &item);
    int parentItemOf(const QModelIndex &sourceParent) const;
    int markOf(const QModelIndex &node, int parentRow) const;
    int groupFor(int parentItem);
    void readFields(Item &item, const RunModel::Timing &timing) const;
    void place(int row);
    void unplaceCall(int row);
    void insertMark(int row);
    void removeMark(int row);
    void setProblem(int row, bool problem);
    void noteTime(qint64 ms);
    void noteInTurn(const Item &item);
    int firstFreeLane(const Group &group, qint64 startMs) const;
    void setLaneEnd(Group &group, int lane, qint64 endMs);
    void bumpLayout();

    QPointer<RunModel> m_source;
    // In blocks, not one array: a 1 GB run's 250,000 items arrive one at a time while it loads
    // (see ChunkedVector).
    Items m_items;
    std::vector<Group> m_groups;
    std::vector<int> m_turns;
    struct TurnSpan {
        qint64 childMinMs = -1; // the earliest start and latest end of the turn's items
        qint64 childMaxMs = -1;
    };
    std::vector<TurnSpan> m_turnSpans; // per turn, as m_turns
    RowIndex m_rowOf;
    qint64 m_originMs = -1;
    qint64 m_latestMs = -1;
    qint64 m_nowMs = -1;
    int m_openCount = 0;
    int m_callCount = 0;
    bool m_turnsInOrder = true;
    // Before the last clear: what a rebuild reserves.
    size_t m_lastIndexed = 0;
    size_t m_lastGroups = 0;
    quint64 m_layoutRevision = 0;
    bool m_resetting = false;
};

} // namespace sandscope
