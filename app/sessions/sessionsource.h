#pragma once
// A Claude Code session found on the server (any session, also one Open WebUI started), as
// the Sessions page hands it to a run tab to read and follow, or to New Run to continue.

#include "server/connection.h"

#include <QDateTime>
#include <QString>

namespace sandscope {

struct SessionSource {
    Identity identity; // who reads it: the sandbox user whose home holds it
    QString transcriptPath; // absolute, on the server
    QString sessionId;
    QString chatId; // empty when its working directory is not a chat folder
    QString cwd; // its working directory, when known
    QDateTime started; // its first record's time, when known
    // <home> of <home>/.claude/projects/<dir>/<session>.jsonl
    QString home() const;
};

} // namespace sandscope
