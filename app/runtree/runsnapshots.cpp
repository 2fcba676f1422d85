#include "runsnapshots.h"

#include "runtree/runnode.h"

#include <QHash>
#include <QThreadPool>

#include <unordered_set>
#include <vector>

namespace sandscope {

// The tree flattened in pre-order, pointers kept as positions in that order.
class RunSnapshot {
public:
    // nodes[0] is the invisible root. A node unchanged since the previous snapshot (the same
    // stamp) is that snapshot's copy.
    std::vector<std::shared_ptr<const RunNode>> nodes;
    std::vector<int> parents; // position of each node's parent (-1 for the root)
    int run = -1;
    int turn = -1;
    std::vector<int> turns;
    std::vector<int> openTools;
    // The slot tables: their keys in slot order, and each slot's node (its position).
    std::vector<QString> toolKeys;
    std::vector<int> tools;
    std::vector<QString> messageKeys;
    std::vector<std::pair<TokenUsage, int>> messages;
    std::vector<QString> taskKeys;
    std::vector<int> tasks;
    size_t firstOpenTurn = 0;
    size_t endedTurns = 0;
    qint64 turnDurationSum = 0;
    bool turnDurationKnown = false;
    int turnCount = 0;
    double lastTotalCost = 0;
    bool runEnded = false;
    RunSummaryBuilder summary;
};

// What replaceWith() drops: the whole tree a page built before playback took the builder's.
// Nothing refers to it any more (the reset invalidated every index), so a pool thread frees
// it. (Playback jumps drop nothing: they put rows aside, Node::parked, because freeing on a
// pool thread made the UI thread's allocations wait for the allocator's lock.)
struct RunSnapshots::Garbage {
    std::vector<std::unique_ptr<RunNode>> nodes;
    SlotTable<QString, RunNode *> toolsById;
    SlotTable<QString, RunTreeState::MessageAccount> messages;
    SlotTable<QString, RunNode *> tasksById;
};

qint64 RunSnapshots::bytes(const Snapshot &snapshot, const Snapshot *previous)
{
    // Node copies not shared with `previous` (with their control block and allocation), the
    // slot tables' arrays, and about 96 bytes a hash entry of the summary's tables with its
    // allocation (bench_playback compares the estimate with resident memory); strings are
    // shared with the model and not counted.
    std::unordered_set<const RunNode *> shared;
    if (previous) {
        shared.reserve(previous->nodes.size());
        for (const auto &node : previous->nodes)
            shared.insert(node.get());
    }
    qint64 copies = 0;
    for (const auto &node : snapshot.nodes)
        copies += shared.count(node.get()) ? 0 : 1;
    const qint64 tableBytes = qint64(snapshot.toolKeys.size() + snapshot.taskKeys.size())
            * qint64(sizeof(QString) + sizeof(int))
        + qint64(snapshot.messageKeys.size())
            * qint64(sizeof(QString) + sizeof(std::pair<TokenUsage, int>));
    return copies * qint64(sizeof(RunNode) + 64)
        + qint64(snapshot.nodes.size() * (sizeof(std::shared_ptr<const RunNode>) + sizeof(int)))
        + tableBytes + snapshot.summary.entryCount() * 96;
}

qint64 RunSnapshots::nodeCount(const Snapshot &snapshot)
{
    return qint64(snapshot.nodes.size());
}

std::shared_ptr<const RunSnapshots::Snapshot> RunSnapshots::save(
    const RunTreeState &tree, const Snapshot *previous)
{
    auto snapshot = std::make_shared<Snapshot>();
    QHash<const RunNode *, int> positions;
    positions.reserve(int(tree.nodeCount + 1));
    snapshot->nodes.reserve(size_t(tree.nodeCount + 1));
    snapshot->parents.reserve(size_t(tree.nodeCount + 1));
    // The previous snapshot's children of each node, to find a node's earlier copy: its rows
    // are the first rows of the same node now.
    std::vector<int> firstChild;
    std::vector<int> childPositions;
    if (previous) {
        const size_t count = previous->nodes.size();
        std::vector<int> counts(count + 1, 0);
        for (size_t i = 1; i < count; ++i)
            ++counts[size_t(previous->parents[i]) + 1];
        for (size_t i = 1; i <= count; ++i)
            counts[i] += counts[i - 1];
        firstChild = counts; // children of p: childPositions[firstChild[p] .. firstChild[p + 1])
        childPositions.resize(count);
        for (size_t i = 1; i < count; ++i)
            childPositions[size_t(counts[size_t(previous->parents[i])]++)] = int(i);
    }
    std::vector<std::pair<const RunNode *, int>> pending {{tree.root.get(), previous ? 0 : -1}};
    while (!pending.empty()) {
        const auto [node, earlier] = pending.back();
        pending.pop_back();
        positions.insert(node, int(snapshot->nodes.size()));
        snapshot->parents.push_back(node->parent ? positions.value(node->parent) : -1);
        if (earlier >= 0 && previous->nodes[size_t(earlier)]->stamp == node->stamp) {
            snapshot->nodes.push_back(previous->nodes[size_t(earlier)]);
        } else {
            auto copy = std::make_shared<RunNode>(*node);
            copy->foldedSearch = QByteArray(); // a cache; rebuilt on use
            copy->foldedSearchValid = false;
            copy->filterGeneration = 0;
            snapshot->nodes.push_back(std::move(copy));
        }
        const int earlierChildren
            = earlier >= 0 ? firstChild[size_t(earlier) + 1] - firstChild[size_t(earlier)] : 0;
        for (int row = int(node->children.size()) - 1; row >= 0; --row) {
            const int match = row < earlierChildren
                ? childPositions[size_t(firstChild[size_t(earlier)] + row)]
                : -1;
            pending.emplace_back(node->children[size_t(row)].get(), match);
        }
    }
    const auto at = [&positions](const RunNode *node) {
        return node ? positions.value(node) : -1;
    };
    snapshot->run = at(tree.run);
    snapshot->turn = at(tree.turn);
    for (const RunNode *turn : tree.turns)
        snapshot->turns.push_back(at(turn));
    for (const RunNode *tool : tree.openTools)
        snapshot->openTools.push_back(at(tool));
    snapshot->toolKeys = tree.toolsById.keys();
    snapshot->tools.reserve(size_t(tree.toolsById.size()));
    for (int slot = 0; slot < tree.toolsById.size(); ++slot)
        snapshot->tools.push_back(at(tree.toolsById.valueAt(slot)));
    snapshot->messageKeys = tree.messages.keys();
    snapshot->messages.reserve(size_t(tree.messages.size()));
    for (int slot = 0; slot < tree.messages.size(); ++slot) {
        const RunTreeState::MessageAccount &account = tree.messages.valueAt(slot);
        snapshot->messages.emplace_back(account.counted, at(account.owner));
    }
    snapshot->taskKeys = tree.tasksById.keys();
    snapshot->tasks.reserve(size_t(tree.tasksById.size()));
    for (int slot = 0; slot < tree.tasksById.size(); ++slot)
        snapshot->tasks.push_back(at(tree.tasksById.valueAt(slot)));
    snapshot->firstOpenTurn = tree.firstOpenTurn;
    snapshot->endedTurns = tree.endedTurns;
    snapshot->turnDurationSum = tree.turnDurationSum;
    snapshot->turnDurationKnown = tree.turnDurationKnown;
    snapshot->turnCount = tree.turnCount;
    snapshot->lastTotalCost = tree.lastTotalCost;
    snapshot->runEnded = tree.runEnded;
    snapshot->summary = tree.summary;
    return snapshot;
}

void RunSnapshots::releaseInBackground(std::shared_ptr<Garbage> garbage)
{
    auto dropped = std::move(garbage);
    QThreadPool::globalInstance()->start([dropped]() mutable { dropped.reset(); });
}

void RunSnapshots::putBack(RunTreeState &tree, const Snapshot *snapshot)
{
    tree.openTools.clear();
    tree.turns.clear();
    if (!snapshot) {
        if (!tree.run) { // given away by replaceWith()
            tree.makeEmpty();
        } else { // the run node again as it starts, with everything under it put aside
            tree.run->park(0);
            makeEmptyRun(tree.run, tree.root.get());
        }
        // Empty, but the keys stay known for the events played again.
        tree.toolsById.restore({}, [](int) { return nullptr; });
        tree.messages.restore({}, [](int) { return RunTreeState::MessageAccount(); });
        tree.tasksById.restore({}, [](int) { return nullptr; });
        tree.turn = nullptr;
        tree.nodeCount = 1;
        tree.firstOpenTurn = 0;
        tree.endedTurns = 0;
        tree.turnDurationSum = 0;
        tree.turnDurationKnown = false;
        tree.turnCount = 0;
        tree.lastTotalCost = 0;
        tree.runEnded = false;
        tree.summary = RunSummaryBuilder();
        return;
    }
    // The tree is put back over the one shown: both come from the same events, so the
    // snapshot's children of a node are the first ones the model has (rows are only ever
    // appended). Nodes with the snapshot's stamp are kept as they are; others take its fields;
    // rows beyond the snapshot's go, missing ones are added.
    const size_t count = snapshot->nodes.size();
    std::vector<RunNode *> nodes(count);
    std::vector<int> childCounts(count, 0);
    nodes[0] = tree.root.get();
    for (size_t i = 1; i < count; ++i) {
        const RunNode &saved = *snapshot->nodes[i];
        const int parentPosition = snapshot->parents[i];
        RunNode *parent = nodes[size_t(parentPosition)];
        const size_t row = size_t(childCounts[size_t(parentPosition)]++);
        if (row < parent->children.size()) {
            RunNode *node = parent->children[row].get();
            if (node->stamp != saved.stamp) {
                *node = saved;
                node->parent = parent;
                node->row = int(row);
            }
            nodes[i] = node;
        } else {
            std::unique_ptr<RunNode> node;
            if (!parent->parked.empty()) { // put aside by an earlier jump back
                node = std::move(parent->parked.back());
                parent->parked.pop_back();
                if (node->stamp != saved.stamp)
                    *node = saved;
            } else {
                node = std::make_unique<RunNode>(saved);
            }
            node->parent = parent;
            node->row = int(row);
            nodes[i] = node.get();
            parent->children.push_back(std::move(node));
        }
    }
    for (size_t i = 0; i < count; ++i)
        nodes[i]->park(size_t(childCounts[i]));
    const auto node = [&nodes](int position) {
        return position >= 0 ? nodes[size_t(position)] : nullptr;
    };
    tree.run = node(snapshot->run);
    tree.turn = node(snapshot->turn);
    for (int turn : snapshot->turns)
        tree.turns.push_back(node(turn));
    for (int tool : snapshot->openTools)
        tree.openTools.insert(node(tool));
    tree.toolsById.restore(
        snapshot->toolKeys, [&](int slot) { return node(snapshot->tools[size_t(slot)]); });
    tree.messages.restore(snapshot->messageKeys, [&](int slot) {
        const auto &[counted, owner] = snapshot->messages[size_t(slot)];
        return RunTreeState::MessageAccount {counted, node(owner)};
    });
    tree.tasksById.restore(
        snapshot->taskKeys, [&](int slot) { return node(snapshot->tasks[size_t(slot)]); });
    tree.nodeCount = qint64(snapshot->nodes.size()) - 1;
    tree.firstOpenTurn = snapshot->firstOpenTurn;
    tree.endedTurns = snapshot->endedTurns;
    tree.turnDurationSum = snapshot->turnDurationSum;
    tree.turnDurationKnown = snapshot->turnDurationKnown;
    tree.turnCount = snapshot->turnCount;
    tree.lastTotalCost = snapshot->lastTotalCost;
    tree.runEnded = snapshot->runEnded;
    tree.summary = snapshot->summary;
}

std::shared_ptr<RunSnapshots::Garbage> RunSnapshots::takeOver(
    RunTreeState &tree, RunTreeState &other)
{
    auto garbage = std::make_shared<Garbage>();
    garbage->nodes.push_back(std::move(tree.root));
    garbage->toolsById = std::exchange(tree.toolsById, std::move(other.toolsById));
    garbage->messages = std::exchange(tree.messages, std::move(other.messages));
    garbage->tasksById = std::exchange(tree.tasksById, std::move(other.tasksById));
    tree.root = std::move(other.root);
    tree.run = std::exchange(other.run, nullptr);
    tree.turn = std::exchange(other.turn, nullptr);
    tree.turns = std::move(other.turns);
    tree.firstOpenTurn = other.firstOpenTurn;
    tree.endedTurns = other.endedTurns;
    tree.turnDurationSum = other.turnDurationSum;
    tree.turnDurationKnown = other.turnDurationKnown;
    tree.turnCount = other.turnCount;
    tree.openTools = std::move(other.openTools);
    tree.lastTotalCost = other.lastTotalCost;
    tree.runEnded = other.runEnded;
    tree.summary = std::move(other.summary);
    tree.restored = other.restored;
    tree.restoredSummary = other.restoredSummary;
    tree.nodeCount = other.nodeCount;
    return garbage;
}

} // namespace sandscope
