#pragma once
// `sandscope replay FILE [--summary] [--json]`: reads a stream-json capture or a Sandscope
// run recording and prints the run as an outline, or only its summary (RunSummary; with
// --json one {"type":"sandscope_summary", ...} object). Exit code 0 when the run succeeded,
// 1 when it failed or ended without a result (or the file cannot be read), 2 usage error.

#include <QString>
#include <QStringList>

namespace sandscope::cli {

extern const QString replayVerb;

int runReplay(const QStringList &arguments);

// The line of the top-level help that describes the verb.
QString replayVerbSummary();

} // namespace sandscope::cli
