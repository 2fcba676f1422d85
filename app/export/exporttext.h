#pragma once
// Texts both the HTML and the Markdown export show for a run and its nodes.

#include "export/exportedrun.h"

#include <QString>
#include <QStringList>

namespace sandscope::exporttext {

// "Bash: ls -la" for tool calls (the run view's summary column), the title otherwise.
QString heading(const RunNodeRecord &node);
// "ok · 1.2 s · 1,234 in · 56 out · $0.0123": the non-empty ones.
QStringList facts(const RunNodeRecord &node);
// The run's outcome (runfacts::outcomeText); a run exported while a turn was still running
// "running when exported: turn 2, 5 tool calls so far".
QString outcome(const ExportedRun &run);
bool failed(const ExportedRun &run);
// Label/value rows of the summary header.
QList<QPair<QString, QString>> summaryRows(const ExportedRun &run);
// What was redacted, for the export's note.
QString redactionNote(bool redacted);

} // namespace sandscope::exporttext
