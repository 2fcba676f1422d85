#pragma once
// How every surface states a run's figures (docs/stream-json.md, "Figures"): the outcome and
// the labelled rows of a RunSummary, in the same words in the summary bar, `replay`, the
// exports and Compare. The values themselves are RunSummary's; nothing here counts.

#include "streamjson/runsummary.h"

#include <QList>
#include <QPair>
#include <QString>

namespace sandscope::runfacts {

enum class Outcome {
    Running, // the last turn is still open and the run has not ended
    Succeeded, // the last turn ended without an error
    Failed, // the last turn's result had is_error (a transcript: it ended on an API error)
    Interrupted, // the run ended with its last turn open (no result line, no cost-state)
};

// `running`: the run is still live (not ended): an open last turn is running, not interrupted.
Outcome outcomeOf(const RunSummary &summary, bool running = false);
// "succeeded", "failed (error_max_turns)", "interrupted: the last turn did not finish", ...
QString outcomeText(const RunSummary &summary, bool running = false);
// A live run's progress: "turn 2, 5 tool calls so far".
QString progressText(const RunSummary &summary);

// The labels, the same everywhere (README and docs/stream-json.md use them too).
QString turnsLabel(); // "Turns": prompts that started work (the tree's Turn nodes)
QString roundTripsLabel(); // "Round trips": API calls, claude's num_turns
QString claudeDurationLabel(); // "Claude's duration": the results' duration_ms
// The round trips as every surface states them: the count, or "not recorded" with
// notRecordedReason() when the run has no result line (a transcript).
QString notRecordedText(); // "not recorded"
QString roundTripsNotRecordedReason(const RunSummary &summary);
QString roundTripsText(const RunSummary &summary); // "3", or "not recorded (…reason)"

// The summary as labelled rows: Outcome (with the progress while running), Session, Turns,
// Round trips, Tool calls, Errors, Tokens, Cache, Cost, Duration and,
// where it differs, Claude's duration.
QList<QPair<QString, QString>> rows(const RunSummary &summary, bool running = false);

} // namespace sandscope::runfacts
