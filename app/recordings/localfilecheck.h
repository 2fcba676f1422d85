#pragma once
// Which local files a run is read from: a transcript's sub-agent and meta files only when they
// are regular files inside the session's folder (a symlink that leads elsewhere, a FIFO or a
// device is not read: someone else's file, or a read that never ends); the run file itself
// also through a pipe (`replay <(…)`), never a device, socket or folder.

#include <QString>

namespace sandscope {

class LocalFileCheck {
public:
    // Why the file at path is not read, empty when it is: not a regular file (a pipe too
    // when allowPipe), or, with folder given, a symlink whose target lies outside folder.
    static QString whyNotRead(
        const QString &path, const QString &folder = {}, bool allowPipe = false);
    // Whether path is a named pipe (after symlinks): opening one waits for a writer, and what
    // a look into it reads is gone for the reader after it.
    static bool isNamedPipe(const QString &path);
};

} // namespace sandscope
