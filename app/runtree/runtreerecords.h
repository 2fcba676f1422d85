#pragma once
// A run tree's nodes as plain values (RunNodeRecord: exports and comparisons read them) and
// back (an exported run's tree restored into an empty model). Content a big run left on disk
// is read again for the records.

#include "runtree/runlinereader.h"
#include "runtree/runnoderecord.h"
#include "runtree/runtreestate.h"
#include "streamjson/runsummary.h"

namespace sandscope {

class RunTreeRecords {
public:
    static RunNodeRecord record(const RunNode *top, const RunLineReader &lines);
    // Inside a reset the caller began; false when the model is not empty.
    static bool restore(RunTreeState &tree, const RunNodeRecord &run, const RunSummary &summary);
};

} // namespace sandscope
