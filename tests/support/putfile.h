#pragma once
// Puts a file into a sandbox user's home through the real server, with the user's own rights
// (the integration suites that plant transcripts and other fixtures).

#include "testing.h"

#include <QFileInfo>

namespace sandscope::test {

// Uploads `bytes` to `path` (absolute, under the user's home) as `who`; false, with the
// server's answer logged, when the upload failed.
inline bool putFile(
    OpenTerminalClient *client, const Identity &who, const QString &path, const QByteArray &bytes)
{
    const Result<WriteResult> written = sandscope::await<WriteResult>([&](auto done) {
        return client->uploadFile(
            who, QFileInfo(path).path(), QFileInfo(path).fileName(), bytes, client, done);
    });
    if (!written.ok())
        qWarning() << "upload failed:" << written.error.toString();
    return written.ok();
}

} // namespace sandscope::test
