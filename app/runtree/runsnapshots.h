#pragma once
// Playback's checkpoints of a RunModel: its whole state (RunTreeState) saved as a
// value that shares unchanged nodes with the previous one, put back in one model reset, and a
// model's state handed to another (RunModel's snapshot and rebuild functions call these).

#include "runtree/runtreestate.h"

#include <memory>

namespace sandscope {

class RunSnapshot;

class RunSnapshots {
public:
    using Snapshot = RunSnapshot;
    static std::shared_ptr<const Snapshot> save(const RunTreeState &tree, const Snapshot *previous);
    static qint64 bytes(const Snapshot &snapshot, const Snapshot *previous);
    static qint64 nodeCount(const Snapshot &snapshot);
    // The model's state set to the snapshot's (null: an empty run), inside a reset the caller
    // began.
    static void putBack(RunTreeState &tree, const Snapshot *snapshot);

    // What takeOver() drops: the model's tree before it took the other's.
    struct Garbage;
    // Inside a reset the caller began: `tree` takes `other`'s state; returns the old one,
    // to be freed with releaseInBackground() once the reset has ended.
    static std::shared_ptr<Garbage> takeOver(RunTreeState &tree, RunTreeState &other);
    static void releaseInBackground(std::shared_ptr<Garbage> garbage);
};

} // namespace sandscope
