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
// "succeeded", "failed (error_max_turns)", "cut short: …".
QString outcome(const RunSummary &summary);
bool failed(const RunSummary &summary);
// Label/value rows of the summary header.
QList<QPair<QString, QString>> summaryRows(const ExportedRun &run);
// What was redacted, for the export's note.
QString redactionNote(bool redacted);

} // namespace sandscope::exporttext
