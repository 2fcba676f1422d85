#pragma once
// The runs that verbs read after the fact (replay, export, compare): a local file through
// LoadedRun::fromFile, or a session on the server (--server/--profile, --user, --session SID)
// found by its id among the user's transcripts and read once through TranscriptFollower.

#include "cli/connectionoptions.h"
#include "runs/loadedrun.h"
#include "streamjson/runevents.h"

#include <QString>

#include <functional>

namespace sandscope {
class OpenTerminalClient;
}

namespace sandscope::cli {

// The newest transcript of `sessionId` in --user's home. False with the reason (naming the
// server) when the listing failed (*listingFailed true) or the user has no such session.
bool findSessionTranscript(OpenTerminalClient &client, const ConnectionOptions &options,
    const QString &sessionId, QString *path, QString *error, bool *listingFailed = nullptr);

// How reading a transcript on the server ended.
struct TranscriptReading {
    bool completed = false; // read to the end (and, when following, settled or stopped)
    QString failure; // why not, naming the server, the key masked
    int linesParsed = 0;
    qint64 bytesRead = 0;
};

// Reads the transcript at `path` as --user through TranscriptFollower, and with `follow` keeps
// reading while it grows until it settles for settleMs; Ctrl+C or SIGTERM stops reading (never
// the run). Each batch of events goes to onEvents as it arrives, each notice (the key masked)
// to onNotice.
TranscriptReading readTranscript(OpenTerminalClient &client, const ConnectionOptions &options,
    const QString &path, bool follow, int settleMs,
    const std::function<void(const RunEventBatch &)> &onEvents,
    const std::function<void(const QString &)> &onNotice);

// Reads the whole session (no following). Returns -1 with *run filled, or the exit code
// after printing why (serverErrorExitCode for transport failures, 1 for a missing session).
int loadSessionRun(const ConnectionOptions &options, const QString &sessionId, LoadedRun *run);

// Reads a local file; returns -1, or 1 after printing why. Skipped lines are printed as
// warnings either way.
int loadFileRun(const QString &path, LoadedRun *run);

} // namespace sandscope::cli
