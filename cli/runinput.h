#pragma once
// The runs that verbs read after the fact (replay, export, compare): a local file through
// LoadedRun::fromFile, or a session on the server (--server/--profile, --user, --session SID)
// found by its id among the user's transcripts and read once through TranscriptFollower.

#include "cli/connectionoptions.h"
#include "runs/loadedrun.h"

#include <QString>

namespace sandscope {
class OpenTerminalClient;
}

namespace sandscope::cli {

// The newest transcript of `sessionId` in --user's home. False with the reason (naming the
// server) when the listing failed (*listingFailed true) or the user has no such session.
bool findSessionTranscript(OpenTerminalClient &client, const ConnectionOptions &options,
    const QString &sessionId, QString *path, QString *error, bool *listingFailed = nullptr);

// Reads the whole session (no following). Returns -1 with *run filled, or the exit code
// after printing why (serverErrorExitCode for transport failures, 1 for a missing session).
int loadSessionRun(const ConnectionOptions &options, const QString &sessionId, LoadedRun *run);

// Reads a local file; returns -1, or 1 after printing why. Skipped lines are printed as
// warnings either way.
int loadFileRun(const QString &path, LoadedRun *run);

} // namespace sandscope::cli
