#pragma once
// Keeps Sandscope from carrying a file across users. open-terminal's file API runs as root and
// follows symlinks (docs/server-behaviour.md): a link in B's home to A's file reads, lists,
// archives and overwrites A's file. So before Sandscope acts on a path as a user, the path is
// resolved AS THAT USER, in the user's own shell (`realpath -m` from the home, with the
// innermost symlink on the way and its target), and a path whose real location lies outside
// the user's home is refused, naming the link and its target. Reading a file goes through the
// user's shell as well (readAsUser), so the kernel checks the user's own permissions where the
// file API would not, and the check and the read happen in one command.

#include "server/apierror.h"
#include "server/connection.h"

#include <QObject>
#include <QStringList>
#include <QVector>

#include <functional>

namespace sandscope {

class OpenTerminalClient;

struct ResolvedPath {
    QString path; // as asked
    QString real; // where it really is, resolved as the user
    QString link; // the innermost symlink on the way (the path itself included), if any
    QString linkTarget; // what that link says
    bool insideHome = false;
};

struct PathResolution {
    QString home; // the user's home, symlinks resolved
    QVector<ResolvedPath> paths;
    // The first path outside the home, or null.
    const ResolvedPath *firstOutside() const;
    // "peek is a link to /home/a/s.txt: its real location /home/a/s.txt is outside the home
    // of bob (/home/b), so Sandscope does not follow it"
    QString refusal(const ResolvedPath &path, const QString &userId) const;
};

namespace pathguard {

enum class Extra {
    None,
    ReadFirst, // then read the first path with the user's own permissions
    LinksBelowFirst, // then resolve every symlink below the first path (a folder to archive)
    LinksInFirst, // then resolve the symlinks directly in the first path (a folder listed)
};
// For a scan that must not follow links out of a home, in the scan's own command (no request
// per file): shell functions after which `sandscope_outside HOME PATH` (HOME as `pwd -P`
// prints it) succeeds and prints a record when PATH's real location, resolved by the shell's
// user, lies outside HOME, and fails silently otherwise. realpath runs only when it is called,
// so a scan calls it for the paths with a symlink on the way (`[ -L … ]`, a builtin).
QString outsideFunctions();
// The refusal, naming the link and its target, of a record sandscope_outside printed; false
// for any other line.
bool outsideRefusal(const QString &line, const QString &userId, QString *message);
// The refusals of every such record in a scan's output (lines ending in CR LF too).
QStringList outsideRefusals(const QString &output, const QString &userId = {});

// The shell script that resolves `paths` (relative ones from the home) and prints one record
// each, then does `extra` (ReadFirst: at most `maxBytes` bytes plus one when not negative).
QString script(const QStringList &paths, Extra extra, qint64 maxBytes = -1);
// False (with `error`) when the output is not the script's. With LinksBelowFirst or
// LinksInFirst more records
// than `count` are expected (the links found, after the paths).
bool parse(const QStringList &lines, int count, PathResolution *resolution, QString *error,
    Extra extra = Extra::None);
// The bytes the script read for the first path; false (with `error`: the reason the user's
// shell gave, or that the path is a folder with `isFolder`) when it read nothing.
bool readBytes(const QStringList &lines, QByteArray *bytes, QString *error, bool *isFolder);

// Resolves `paths` as `identity` (with LinksBelowFirst, also the links below the first one:
// the server's archive follows them as root). `done` runs once, unless `context` is gone.
void resolve(OpenTerminalClient *client, const Identity &identity, const QStringList &paths,
    QObject *context, std::function<void(const Result<PathResolution> &)> done,
    Extra extra = Extra::None);

struct ReadOutcome {
    PathResolution resolution;
    QByteArray bytes;
    bool refused = false; // outside the home: nothing was read
    bool isFolder = false;
    bool truncated = false; // the file is longer than the maxBytes read
};
// Resolves `path` as `identity` and, when it stays inside the home, reads it as the user.
// Errors: the user's shell could not read it (Forbidden with its reason), NotFound (also for
// a folder, with isFolder set). With `maxBytes` not negative, at most that many bytes are
// read (`truncated` when the file has more).
void readAsUser(OpenTerminalClient *client, const Identity &identity, const QString &path,
    QObject *context, std::function<void(const Result<ReadOutcome> &)> done, qint64 maxBytes = -1);

} // namespace pathguard

} // namespace sandscope
