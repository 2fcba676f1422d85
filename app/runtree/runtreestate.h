#pragma once
// The run tree and its bookkeeping as RunModel builds it from events: the nodes, the turns,
// the open calls and the tables that find a node by id, the summary's counts. RunModel shows
// it; RunSnapshots saves and puts it back; RunTreeRecords restores an export into it.

#include "runtree/runnode.h"
#include "runtree/slottable.h"
#include "streamjson/runsummary.h"

#include <QSet>
#include <QString>

#include <memory>
#include <vector>

namespace sandscope {

struct RunTreeState {
    std::unique_ptr<RunNode> root; // invisible; its only child is the run node
    RunNode *run = nullptr;
    RunNode *turn = nullptr; // where lines without a parent_tool_use_id go
    std::vector<RunNode *> turns;
    size_t firstOpenTurn = 0; // the oldest turn still waiting for its result line
    size_t endedTurns = 0; // turns with ended set
    qint64 turnDurationSum = 0; // the ended turns' reported durations
    bool turnDurationKnown = false; // any ended turn reported one
    int turnCount = 0;
    // Slot tables, so that a playback jump puts them back without hashing every key again.
    SlotTable<QString, RunNode *> toolsById;
    QSet<RunNode *> openTools;
    struct MessageAccount {
        TokenUsage counted;
        RunNode *owner = nullptr;
    };
    SlotTable<QString, MessageAccount> messages;
    SlotTable<QString, RunNode *> tasksById;
    double lastTotalCost = 0;
    bool runEnded = false;
    RunSummaryBuilder summary;
    bool restored = false;
    RunSummary restoredSummary;
    qint64 nodeCount = 1; // the run node

    // The invisible root with a running run node as its only child: a tree before any event.
    void makeEmpty()
    {
        root = std::make_unique<RunNode>();
        auto node = std::make_unique<RunNode>();
        makeEmptyRun(node.get(), root.get());
        run = node.get();
        root->children.push_back(std::move(node));
    }
};

} // namespace sandscope
