#include "timelinemodel.h"

#include "util/format.h"

#include <algorithm>

namespace sandscope {

namespace {

using NodeKind = RunModel::NodeKind;
using Status = RunModel::Status;
using ItemKind = TimelineModel::ItemKind;
using MarkKind = TimelineModel::MarkKind;

// Empty lanes take any call.
constexpr qint64 emptyLaneEnd = std::numeric_limits<qint64>::min();

bool isOpenStatus(Status status)
{
    return status == Status::Running || status == Status::Background
        || status == Status::Interrupted || status == Status::None;
}

QString offsetText(qint64 ms)
{
    return format::duration(std::max<qint64>(0, ms));
}

} // namespace

void TimelineModel::RowIndex::clear()
{
    m_slots.clear();
    m_slots.shrink_to_fit();
    m_count = 0;
}

size_t TimelineModel::RowIndex::slotOf(const void *node) const
{
    // A pointer's low bits are alignment: mixed (splitmix64's finaliser) before masking.
    quint64 x = quint64(quintptr(node));
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    const size_t mask = m_slots.size() - 1;
    size_t at = size_t(x) & mask;
    while (m_slots[at].node && m_slots[at].node != node)
        at = (at + 1) & mask;
    return at;
}

void TimelineModel::RowIndex::reserve(size_t count)
{
    size_t size = 16;
    while (size < 2 * count)
        size *= 2;
    if (size <= m_slots.size())
        return;
    std::vector<Slot> old = std::move(m_slots);
    m_slots.assign(size, Slot());
    for (const Slot &slot : old) {
        if (slot.node)
            m_slots[slotOf(slot.node)] = slot;
    }
}

void TimelineModel::RowIndex::insert(const void *node, int row)
{
    if (2 * (m_count + 1) > m_slots.size())
        reserve(m_count + 1 > 8 ? 2 * (m_count + 1) : 8);
    Slot &slot = m_slots[slotOf(node)];
    if (!slot.node)
        ++m_count;
    slot = {node, row};
}

int TimelineModel::RowIndex::value(const void *node) const
{
    if (m_slots.empty() || !node)
        return -1;
    return m_slots[slotOf(node)].row;
}

bool TimelineModel::isProblem(RunModel::Status status)
{
    return status == Status::Error || status == Status::Denied || status == Status::Interrupted;
}

bool TimelineModel::isLoud(MarkKind kind)
{
    return kind == MarkKind::Error || kind == MarkKind::Denied || kind == MarkKind::Retry;
}

namespace {

// Inserts row into rows (sorted by the items' starts), after those starting at the same time.
void insertByStart(std::vector<int> &rows, int row, const TimelineModel::Items &items)
{
    const qint64 start = items[size_t(row)].startMs;
    if (rows.empty() || items[size_t(rows.back())].startMs <= start) {
        rows.push_back(row);
        return;
    }
    const auto at = std::upper_bound(rows.begin(), rows.end(), start,
        [&items](qint64 value, int other) { return value < items[size_t(other)].startMs; });
    rows.insert(at, row);
}

// Where row is in rows (sorted by start), or end(): found by its start; when it is not there,
// its start may have changed since it was listed, and `anywhere` searches the whole list.
std::vector<int>::iterator findRow(
    std::vector<int> &rows, int row, const TimelineModel::Items &items, bool anywhere)
{
    const qint64 start = items[size_t(row)].startMs;
    auto at = std::lower_bound(rows.begin(), rows.end(), start,
        [&items](int other, qint64 value) { return items[size_t(other)].startMs < value; });
    for (; at != rows.end() && items[size_t(*at)].startMs == start; ++at) {
        if (*at == row)
            return at;
    }
    return anywhere ? std::find(rows.begin(), rows.end(), row) : rows.end();
}

void eraseRow(std::vector<int> &rows, int row, const TimelineModel::Items &items)
{
    const auto at = findRow(rows, row, items, true);
    if (at != rows.end())
        rows.erase(at);
}

} // namespace

TimelineModel::TimelineModel(QObject *parent)
    : QAbstractListModel(parent)
{
}

TimelineModel::~TimelineModel() = default;

void TimelineModel::setSourceModel(RunModel *source)
{
    if (source == m_source)
        return;
    beginResetModel();
    if (m_source)
        disconnect(m_source, nullptr, this, nullptr);
    m_source = source;
    clear();
    if (m_source) {
        connectSource();
        rebuild();
    }
    endResetModel();
    Q_EMIT lanesChanged();
    Q_EMIT extentChanged();
}

void TimelineModel::connectSource()
{
    RunModel *source = m_source;
    connect(source, &QAbstractItemModel::rowsInserted, this, &TimelineModel::onRowsInserted);
    connect(source, &QAbstractItemModel::dataChanged, this, &TimelineModel::onDataChanged);
    connect(source, &QAbstractItemModel::modelAboutToBeReset, this, &TimelineModel::onAboutToReset);
    connect(source, &QAbstractItemModel::modelReset, this, &TimelineModel::onReset);
    // RunModel only appends rows; anything else rebuilds the timeline after the change.
    for (auto about :
        {&QAbstractItemModel::rowsAboutToBeRemoved, &QAbstractItemModel::columnsAboutToBeRemoved})
        connect(source, about, this, &TimelineModel::onAboutToReset);
    for (auto done : {&QAbstractItemModel::rowsRemoved, &QAbstractItemModel::columnsRemoved})
        connect(source, done, this, &TimelineModel::onReset);
    connect(source, &QAbstractItemModel::rowsAboutToBeMoved, this, &TimelineModel::onAboutToReset);
    connect(source, &QAbstractItemModel::rowsMoved, this, &TimelineModel::onReset);
    connect(
        source, &QAbstractItemModel::layoutAboutToBeChanged, this, &TimelineModel::onAboutToReset);
    connect(source, &QAbstractItemModel::layoutChanged, this, &TimelineModel::onReset);
    connect(source, &QObject::destroyed, this, [this] {
        beginResetModel();
        clear();
        endResetModel();
    });
}

void TimelineModel::clear()
{
    if (!m_items.empty()) {
        m_lastIndexed = size_t(m_callCount) + m_turns.size();
        m_lastGroups = m_groups.size();
    }
    m_items.clear();
    m_groups.clear();
    m_turns.clear();
    m_turnSpans.clear();
    m_rowOf.clear();
    m_originMs = -1;
    m_latestMs = -1;
    m_openCount = 0;
    m_callCount = 0;
    m_turnsInOrder = true;
    m_groups.emplace_back(); // the main thread
    ++m_layoutRevision;
}

void TimelineModel::onAboutToReset()
{
    if (m_resetting)
        return;
    m_resetting = true;
    beginResetModel();
    clear();
}

void TimelineModel::onReset()
{
    if (!m_resetting) // a change without its "about to" signal
        onAboutToReset();
    rebuild();
    m_resetting = false;
    endResetModel();
    Q_EMIT lanesChanged();
    Q_EMIT extentChanged();
}

// Depth-first in row order, without recursion (a hostile file may nest deeply).
void TimelineModel::rebuild()
{
    // A reset usually shows about as much as before (timed playback moves back and forth).
    clear();
    if (!m_source)
        return;
    m_rowOf.reserve(m_lastIndexed);
    m_groups.reserve(m_lastGroups);
    const RunModel *source = m_source;
    struct Pending {
        QModelIndex parent;
        int parentItem;
        int nextRow;
        int rows;
    };
    std::vector<Pending> stack;
    stack.push_back({QModelIndex(), -1, 0, source->rowCount()});
    while (!stack.empty()) {
        Pending &top = stack.back();
        if (top.nextRow >= top.rows) {
            stack.pop_back();
            continue;
        }
        const QModelIndex child = source->index(top.nextRow++, 0, top.parent);
        const int parentItem = top.parentItem;
        const int before = int(m_items.size());
        Item item;
        const bool added = prepareNode(child, parentItem, &item);
        if (added)
            commitNode(item);
        const int rows = source->rowCount(child);
        if (rows > 0)
            stack.push_back({child, added ? before : parentItem, 0, rows});
    }
}

int TimelineModel::parentItemOf(const QModelIndex &sourceParent) const
{
    return sourceParent.isValid() ? m_rowOf.value(sourceParent.internalPointer()) : -1;
}

void TimelineModel::onRowsInserted(const QModelIndex &parent, int first, int last)
{
    if (m_resetting || !m_source)
        return;
    const int parentItem = parentItemOf(parent);
    const quint64 revision = m_layoutRevision;
    const qint64 origin = m_originMs;
    const qint64 latest = m_latestMs;
    for (int row = first; row <= last; ++row) {
        const QModelIndex child = m_source->index(row, 0, parent);
        Item item;
        if (!prepareNode(child, parentItem, &item))
            continue;
        const int at = int(m_items.size());
        beginInsertRows(QModelIndex(), at, at);
        commitNode(item);
        endInsertRows();
    }
    if (revision != m_layoutRevision)
        Q_EMIT lanesChanged();
    if (origin != m_originMs || latest != m_latestMs)
        Q_EMIT extentChanged();
}

bool TimelineModel::prepareNode(const QModelIndex &source, int parentItem, Item *out)
{
    const RunModel::Timing timing = m_source->timing(source);
    const NodeKind kind = timing.kind;
    Item &item = *out;
    switch (kind) {
    case NodeKind::Turn:
        item.kind = ItemKind::Turn;
        break;
    case NodeKind::ToolCall:
        item.kind = ItemKind::Call;
        break;
    case NodeKind::AssistantText:
        item.kind = ItemKind::Mark;
        item.mark = MarkKind::Text;
        break;
    case NodeKind::Thinking:
        item.kind = ItemKind::Mark;
        item.mark = MarkKind::Thinking;
        break;
    case NodeKind::UserText:
        item.kind = ItemKind::Mark;
        item.mark = MarkKind::Prompt;
        break;
    case NodeKind::ApiRetry:
        item.kind = ItemKind::Mark;
        item.mark = MarkKind::Retry;
        break;
    case NodeKind::ApiError:
        item.kind = ItemKind::Mark;
        item.mark = MarkKind::Error;
        break;
    case NodeKind::PermissionDenied:
        // A denied call is marked on its own bar.
        if (parentItem >= 0 && m_items[size_t(parentItem)].kind == ItemKind::Call)
            return false;
        item.kind = ItemKind::Mark;
        item.mark = MarkKind::Denied;
        break;
    default:
        return false;
    }
    if (item.kind == ItemKind::Turn) {
        item.turn = int(m_turns.size()); // its position once added
        item.group = 0;
    } else {
        if (parentItem < 0) // only turns hang from the run itself
            return false;
        const Item &parent = m_items[size_t(parentItem)];
        if (parent.kind == ItemKind::Mark)
            return false;
        item.turn = parent.turn;
        item.group = groupFor(parentItem);
    }
    item.source = source;
    readFields(item, timing);
    return true;
}

void TimelineModel::commitNode(const Item &item)
{
    const int row = int(m_items.size());
    if (item.kind == ItemKind::Turn) {
        m_turns.push_back(row);
        m_turnSpans.emplace_back();
    }
    m_items.push_back(item);
    // Marks never change and have no children: they are found in their group instead
    // (indexForSource), which keeps this index to a third of the items.
    if (item.kind != ItemKind::Mark)
        m_rowOf.insert(item.source.internalPointer(), row);
    if (m_items.back().open())
        ++m_openCount;
    if (item.kind == ItemKind::Call)
        ++m_callCount;
    if (m_items.back().startMs >= 0)
        place(row);
}

// The group of the items nested in parentItem: the main thread under a turn, a sub-agent's own
// group under a call (created with its first item).
int TimelineModel::groupFor(int parentItem)
{
    Item &parent = m_items[size_t(parentItem)];
    if (parent.kind == ItemKind::Turn)
        return 0;
    if (parent.childGroup < 0) {
        Group group;
        group.call = parentItem;
        group.parent = parent.group;
        group.depth = m_groups[size_t(parent.group)].depth + 1;
        parent.childGroup = int(m_groups.size());
        m_groups[size_t(parent.group)].children.push_back(parent.childGroup);
        m_groups.push_back(std::move(group));
        bumpLayout();
    }
    return parent.childGroup;
}

void TimelineModel::readFields(Item &item, const RunModel::Timing &timing) const
{
    item.status = timing.status;
    if (item.kind == ItemKind::Call)
        item.toolKind = timing.toolKind;
    item.startMs = timing.startedMs;
    if (item.kind == ItemKind::Mark) {
        item.endMs = item.startMs;
        return;
    }
    const bool known = timing.durationMs >= 0 && item.startMs >= 0;
    if (item.kind == ItemKind::Turn) {
        item.endMs = known ? item.startMs + timing.durationMs : -1;
        return;
    }
    // A background agent's call returned at launch, but its work goes on; a running or
    // interrupted call has no end of its own.
    if (isOpenStatus(item.status))
        item.endMs = -1;
    else
        item.endMs = known ? item.startMs + timing.durationMs : std::max<qint64>(0, item.startMs);
}

void TimelineModel::onDataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight)
{
    if (m_resetting || !m_source || !topLeft.isValid())
        return;
    // Tokens, cost and the counts are read when asked for; the bars do not show them (status
    // and times are in the columns before).
    if (topLeft.column() >= RunModel::TokensColumn)
        return;
    const QModelIndex parent = topLeft.parent();
    const quint64 revision = m_layoutRevision;
    const qint64 origin = m_originMs;
    const qint64 latest = m_latestMs;
    for (int sourceRow = topLeft.row(); sourceRow <= bottomRight.row(); ++sourceRow) {
        const QModelIndex source = sourceRow == topLeft.row()
            ? topLeft.siblingAtColumn(0)
            : m_source->index(sourceRow, 0, parent);
        const int row = m_rowOf.value(source.internalPointer());
        if (row < 0)
            continue;
        Item &item = m_items[size_t(row)];
        const Item before = item;
        readFields(item, m_source->timing(source));
        if (before.open() != item.open())
            m_openCount += item.open() ? 1 : -1;
        if (before.startMs != item.startMs || before.endMs != item.endMs
            || before.status != item.status || before.toolKind != item.toolKind) {
            if (item.placed && before.startMs != item.startMs) {
                // Starts are set once; should one move, the call is placed anew.
                if (item.kind == ItemKind::Call)
                    unplaceCall(row);
                else if (item.kind == ItemKind::Mark)
                    removeMark(row);
                m_items[size_t(row)].placed = false;
            }
            Item &now = m_items[size_t(row)];
            if (!now.placed && now.startMs >= 0) {
                place(row);
            } else if (now.placed && now.kind == ItemKind::Call && before.endMs != now.endMs) {
                Group &group = m_groups[size_t(now.group)];
                std::vector<int> &lane = group.lanes[size_t(now.lane)];
                const bool last = lane.back() == row;
                if (last) {
                    setLaneEnd(group, now.lane, now.open() ? openLaneEnd : now.endMs);
                } else {
                    // A later end (a repeated result) reaching into the next call: placed anew.
                    const auto at = std::find(lane.begin(), lane.end(), row);
                    const int next = *(at + 1);
                    if (now.open() || now.endMs > m_items[size_t(next)].startMs) {
                        unplaceCall(row);
                        place(row);
                    }
                }
                noteTime(now.endMs);
                noteInTurn(now);
            } else if (now.placed) {
                noteTime(now.endMs);
                noteInTurn(now);
            }
            if (now.placed && now.kind == ItemKind::Call
                && isProblem(before.status) != isProblem(now.status))
                setProblem(row, isProblem(now.status));
            const QModelIndex changed = index(row, 0);
            Q_EMIT dataChanged(changed, changed);
        }
    }
    if (revision != m_layoutRevision)
        Q_EMIT lanesChanged();
    if (origin != m_originMs || latest != m_latestMs)
        Q_EMIT extentChanged();
}

void TimelineModel::place(int row)
{
    Item &item = m_items[size_t(row)];
    item.placed = true;
    noteTime(item.startMs);
    noteTime(item.endMs);
    switch (item.kind) {
    case ItemKind::Turn: {
        const size_t at = size_t(item.turn);
        if (at > 0 && m_items[size_t(m_turns[at - 1])].startMs > item.startMs)
            m_turnsInOrder = false;
        if (at + 1 < m_turns.size() && m_items[size_t(m_turns[at + 1])].placed
            && m_items[size_t(m_turns[at + 1])].startMs < item.startMs)
            m_turnsInOrder = false;
        break;
    }
    case ItemKind::Mark:
        insertMark(row);
        noteInTurn(item);
        break;
    case ItemKind::Call: {
        Group &group = m_groups[size_t(item.group)];
        int lane = firstFreeLane(group, item.startMs);
        if (lane < 0) {
            lane = int(group.lanes.size());
            group.lanes.emplace_back();
            group.problems.emplace_back();
            bumpLayout();
        }
        item.lane = lane;
        group.lanes[size_t(lane)].push_back(row);
        setLaneEnd(group, lane, item.open() ? openLaneEnd : item.endMs);
        if (isProblem(item.status))
            setProblem(row, true);
        noteInTurn(item);
        break;
    }
    }
}

void TimelineModel::unplaceCall(int row)
{
    setProblem(row, false);
    Item &item = m_items[size_t(row)];
    Group &group = m_groups[size_t(item.group)];
    std::vector<int> &lane = group.lanes[size_t(item.lane)];
    lane.erase(std::find(lane.begin(), lane.end(), row));
    const int lastRow = lane.empty() ? -1 : lane.back();
    setLaneEnd(group, item.lane,
        lastRow < 0                           ? emptyLaneEnd
            : m_items[size_t(lastRow)].open() ? openLaneEnd
                                              : m_items[size_t(lastRow)].endMs);
    item.lane = -1;
    item.placed = false;
}

void TimelineModel::insertMark(int row)
{
    Group &group = m_groups[size_t(m_items[size_t(row)].group)];
    insertByStart(group.marks, row, m_items);
    if (isLoud(m_items[size_t(row)].mark))
        insertByStart(group.loudMarks, row, m_items);
}

void TimelineModel::removeMark(int row)
{
    Group &group = m_groups[size_t(m_items[size_t(row)].group)];
    eraseRow(group.marks, row, m_items);
    eraseRow(group.loudMarks, row, m_items);
}

// Lists or unlists a placed call among its lane's problems.
void TimelineModel::setProblem(int row, bool problem)
{
    const Item &item = m_items[size_t(row)];
    std::vector<int> &problems = m_groups[size_t(item.group)].problems[size_t(item.lane)];
    const bool listed
        = !problems.empty() && findRow(problems, row, m_items, !problem) != problems.end();
    if (problem && !listed)
        insertByStart(problems, row, m_items);
    else if (!problem && listed)
        eraseRow(problems, row, m_items);
}

void TimelineModel::noteTime(qint64 ms)
{
    if (ms < 0)
        return;
    if (m_originMs < 0 || ms < m_originMs)
        m_originMs = ms;
    m_latestMs = std::max(m_latestMs, ms);
}

// A turn's band covers its items, whatever its own times say.
void TimelineModel::noteInTurn(const Item &item)
{
    if (item.turn < 0 || item.kind == ItemKind::Turn || item.startMs < 0)
        return;
    TurnSpan &turn = m_turnSpans[size_t(item.turn)];
    const qint64 end = item.open() ? item.startMs : std::max(item.startMs, item.endMs);
    turn.childMinMs = turn.childMinMs < 0 ? item.startMs : std::min(turn.childMinMs, item.startMs);
    turn.childMaxMs = std::max(turn.childMaxMs, end);
}

void TimelineModel::bumpLayout()
{
    ++m_layoutRevision;
}

// The leftmost lane whose last call ended by startMs, or -1.
int TimelineModel::firstFreeLane(const Group &group, qint64 startMs) const
{
    if (group.laneCapacity == 0 || group.laneTree[1] > startMs)
        return -1;
    size_t node = 1;
    while (node < size_t(group.laneCapacity))
        node = group.laneTree[2 * node] <= startMs ? 2 * node : 2 * node + 1;
    const int lane = int(node) - group.laneCapacity;
    return lane < int(group.lanes.size()) ? lane : -1;
}

void TimelineModel::setLaneEnd(Group &group, int lane, qint64 endMs)
{
    if (lane >= group.laneCapacity) {
        int capacity = std::max(4, group.laneCapacity);
        while (capacity <= lane)
            capacity *= 2;
        std::vector<qint64> tree(size_t(2 * capacity), openLaneEnd);
        for (int old = 0; old < group.laneCapacity; ++old)
            tree[size_t(capacity + old)] = group.laneTree[size_t(group.laneCapacity + old)];
        for (int node = capacity - 1; node >= 1; --node)
            tree[size_t(node)] = std::min(tree[size_t(2 * node)], tree[size_t(2 * node + 1)]);
        group.laneTree = std::move(tree);
        group.laneCapacity = capacity;
    }
    size_t node = size_t(group.laneCapacity + lane);
    group.laneTree[node] = endMs;
    for (node /= 2; node >= 1; node /= 2)
        group.laneTree[node] = std::min(group.laneTree[2 * node], group.laneTree[2 * node + 1]);
}

qint64 TimelineModel::openEndMs() const
{
    return std::max(m_latestMs, m_nowMs);
}

qint64 TimelineModel::extentEndMs() const
{
    return m_openCount > 0 ? openEndMs() : m_latestMs;
}

void TimelineModel::setNowMs(qint64 nowMs)
{
    if (nowMs == m_nowMs)
        return;
    const qint64 before = extentEndMs();
    m_nowMs = nowMs;
    if (extentEndMs() != before)
        Q_EMIT extentChanged();
}

qint64 TimelineModel::startMs(int row) const
{
    const Item &item = m_items[size_t(row)];
    if (item.kind != ItemKind::Turn || item.startMs < 0)
        return item.startMs;
    const qint64 first = m_turnSpans[size_t(item.turn)].childMinMs;
    return first >= 0 ? std::min(item.startMs, first) : item.startMs;
}

qint64 TimelineModel::endMs(int row) const
{
    const Item &item = m_items[size_t(row)];
    if (item.startMs < 0)
        return -1;
    switch (item.kind) {
    case ItemKind::Mark:
        return item.startMs;
    case ItemKind::Turn: {
        const TurnSpan &span = m_turnSpans[size_t(item.turn)];
        qint64 end = item.open() ? openEndMs() : std::max(item.endMs, span.childMaxMs);
        // The reported duration is the CLI's clock: the band stops where the next turn starts,
        // unless its own items go on.
        if (size_t(item.turn) + 1 < m_turns.size()) {
            const Item &next = m_items[size_t(m_turns[size_t(item.turn) + 1])];
            if (next.startMs >= 0)
                end = std::min(end, std::max(next.startMs, span.childMaxMs));
        }
        return std::max(end, item.startMs);
    }
    case ItemKind::Call:
        break;
    }
    if (!item.open())
        return item.endMs;
    if (item.status == Status::Interrupted && item.turn >= 0) {
        const Item &turn = m_items[size_t(m_turns[size_t(item.turn)])];
        if (!turn.open())
            return std::max(
                item.startMs, std::max(turn.endMs, m_turnSpans[size_t(item.turn)].childMaxMs));
    }
    return std::max(item.startMs, openEndMs());
}

std::vector<int> TimelineModel::groupOrder() const
{
    std::vector<int> order;
    order.reserve(m_groups.size());
    std::vector<int> pending {0};
    while (!pending.empty()) {
        const int id = pending.back();
        pending.pop_back();
        order.push_back(id);
        const std::vector<int> &children = m_groups[size_t(id)].children;
        for (auto it = children.rbegin(); it != children.rend(); ++it)
            pending.push_back(*it);
    }
    return order;
}

QModelIndex TimelineModel::indexForSource(const QModelIndex &sourceIndex) const
{
    const QModelIndex node = sourceIndex.siblingAtColumn(0);
    for (QModelIndex at = node; at.isValid(); at = at.parent()) {
        const int row = m_rowOf.value(at.internalPointer());
        if (row < 0)
            continue;
        if (at != node) {
            const int mark = markOf(node, row);
            if (mark >= 0)
                return index(mark, 0);
        }
        return index(row, 0);
    }
    return {};
}

// The mark of a node whose parent is the item parentRow, or -1.
int TimelineModel::markOf(const QModelIndex &node, int parentRow) const
{
    const Item &parent = m_items[size_t(parentRow)];
    if (!m_source || node.parent().internalPointer() != parent.source.internalPointer())
        return -1;
    const int groupId = parent.kind == ItemKind::Turn ? 0 : parent.childGroup;
    if (groupId < 0)
        return -1;
    const qint64 start = m_source->timing(node).startedMs;
    const std::vector<int> &marks = m_groups[size_t(groupId)].marks;
    auto at = std::lower_bound(marks.begin(), marks.end(), start,
        [this](int mark, qint64 value) { return m_items[size_t(mark)].startMs < value; });
    for (; at != marks.end() && m_items[size_t(*at)].startMs == start; ++at) {
        if (m_items[size_t(*at)].source.internalPointer() == node.internalPointer())
            return *at;
    }
    return -1;
}

QModelIndex TimelineModel::sourceIndex(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != this || size_t(index.row()) >= m_items.size())
        return {};
    return m_items[size_t(index.row())].source;
}

std::pair<qint64, qint64> TimelineModel::timeSpan(int row) const
{
    const Item &item = m_items[size_t(row)];
    qint64 start = startMs(row);
    qint64 end = endMs(row);
    std::vector<int> groups;
    if (item.childGroup >= 0)
        groups.push_back(item.childGroup);
    while (!groups.empty()) {
        const Group &group = m_groups[size_t(groups.back())];
        groups.pop_back();
        for (const std::vector<int> &lane : group.lanes) {
            if (lane.empty())
                continue;
            start = std::min(start, m_items[size_t(lane.front())].startMs);
            end = std::max(end, endMs(lane.back()));
        }
        if (!group.marks.empty()) {
            start = std::min(start, m_items[size_t(group.marks.front())].startMs);
            end = std::max(end, m_items[size_t(group.marks.back())].startMs);
        }
        groups.insert(groups.end(), group.children.begin(), group.children.end());
    }
    return {start, std::max(start, end)};
}

QString TimelineModel::label(int row) const
{
    const Item &item = m_items[size_t(row)];
    return item.source.data(Qt::DisplayRole).toString();
}

QString TimelineModel::toolTip(int row) const
{
    const Item &item = m_items[size_t(row)];
    const QModelIndex &source = item.source;
    QStringList lines;
    QString title = label(row);
    if (title.size() > 160)
        title = title.left(159) + QChar(0x2026);
    lines.append(title);
    QStringList when;
    if (item.startMs >= 0) {
        const qint64 end = endMs(row);
        if (item.kind != ItemKind::Mark) {
            const QVariant duration = source.data(RunModel::DurationMsRole);
            if (!item.open())
                when.append(tr("took %1").arg(format::duration(
                    duration.isValid() ? duration.toLongLong() : end - item.startMs)));
            else if (item.status == Status::Interrupted)
                when.append(tr("interrupted after %1").arg(format::duration(end - item.startMs)));
            else
                when.append(tr("running for %1").arg(format::duration(end - item.startMs)));
        }
        when.append(tr("at %1 into the run").arg(offsetText(item.startMs - m_originMs)));
    } else {
        when.append(tr("start not known"));
    }
    lines.append(when.join(QStringLiteral(" · ")));
    const QString status = source.siblingAtColumn(RunModel::StatusColumn).data().toString();
    if (!status.isEmpty())
        lines.append(tr("Status: %1").arg(status));
    const QString tokens = source.siblingAtColumn(RunModel::TokensColumn).data().toString();
    if (item.kind != ItemKind::Mark || !tokens.isEmpty())
        lines.append(tr("Tokens: %1").arg(tokens.isEmpty() ? tr("none of its own") : tokens));
    if (item.childGroup >= 0) {
        int calls = 0;
        std::vector<int> groups {item.childGroup};
        while (!groups.empty()) {
            const Group &group = m_groups[size_t(groups.back())];
            groups.pop_back();
            for (const std::vector<int> &lane : group.lanes)
                calls += int(lane.size());
            groups.insert(groups.end(), group.children.begin(), group.children.end());
        }
        lines.append(tr("Sub-agent: %n call(s)", nullptr, int(calls)));
    }
    return lines.join(QLatin1Char('\n'));
}

int TimelineModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_items.size());
}

QVariant TimelineModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int row = index.row();
    const Item &item = m_items[size_t(row)];
    switch (role) {
    case Qt::DisplayRole:
        return label(row);
    case Qt::ToolTipRole:
        return toolTip(row);
    case SourceIndexRole:
        return QVariant::fromValue(item.source);
    case ItemKindRole:
        return int(item.kind);
    case MarkKindRole:
        return int(item.mark);
    case StatusRole:
        return int(item.status);
    case ToolKindRole:
        return int(item.toolKind);
    case StartMsRole: {
        const qint64 start = startMs(row);
        return start >= 0 ? QVariant(start) : QVariant();
    }
    case EndMsRole: {
        const qint64 end = endMs(row);
        return end >= 0 ? QVariant(end) : QVariant();
    }
    case OpenRole:
        return item.open();
    case GroupRole:
        return item.group;
    case LaneRole:
        return item.lane;
    case TurnRole:
        return item.turn + 1;
    case DepthRole:
        return m_groups[size_t(item.group)].depth;
    default:
        return {};
    }
}

QHash<int, QByteArray> TimelineModel::roleNames() const
{
    QHash<int, QByteArray> names = QAbstractListModel::roleNames();
    names.insert(SourceIndexRole, "sourceIndex");
    names.insert(ItemKindRole, "itemKind");
    names.insert(MarkKindRole, "markKind");
    names.insert(StatusRole, "status");
    names.insert(ToolKindRole, "toolKind");
    names.insert(StartMsRole, "startMs");
    names.insert(EndMsRole, "endMs");
    names.insert(OpenRole, "open");
    names.insert(GroupRole, "group");
    names.insert(LaneRole, "lane");
    names.insert(TurnRole, "turn");
    names.insert(DepthRole, "depth");
    return names;
}

} // namespace sandscope
