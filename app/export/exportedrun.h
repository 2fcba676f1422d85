#pragma once
// A run as it is exported: its tree (RunModel::record()), its summary, where it came from and
// what could not be read. The writers render it; RunJsonFormat reads an exported JSON file
// back into it (docs/export.md).

#include "runtree/runnoderecord.h"
#include "streamjson/runsummary.h"

#include <QString>
#include <QStringList>

namespace sandscope {

struct ExportedRun {
    QString source; // the file or "user/session" the run was read from; empty for a live run
    RunSummary summary;
    RunNodeRecord run; // the run node; its children are the turns
    QStringList skipped; // what was not exported: damaged lines, missing sub-agents, ...
    bool redacted = false;
    // false: a run exported while a turn was still running (RunModel::isRunning); a live run
    // whose turns all ended counts as ended (JSON: run_ended)
    bool runEnded = true;
};

} // namespace sandscope
