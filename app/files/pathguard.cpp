#include "pathguard.h"

#include "server/shortcommand.h"
#include "util/shellquote.h"

namespace sandscope {

namespace {

const QString homeMarker = QStringLiteral("SANDSCOPE-HOME\t");
const QString pathMarker = QStringLiteral("SANDSCOPE-PATH\t");
const QString folderMarker = QStringLiteral("SANDSCOPE-FOLDER");
const QString unreadableMarker = QStringLiteral("SANDSCOPE-UNREADABLE\t");
const QString dataMarker = QStringLiteral("SANDSCOPE-DATA");
const QString failedMarker = QStringLiteral("SANDSCOPE-FAILED");
const QString endMarker = QStringLiteral("SANDSCOPE-END");
const QString outsideMarker = QStringLiteral("SANDSCOPE-OUTSIDE\t");

// The innermost symlink the user can see on the way to $1 (the path itself included): its
// name in _sk, what it says in _st; both empty when there is none.
const char linkFunction[] = R"(sandscope_link() {
  _sl=$1; _sk=; _st=
  while [ -n "$_sl" ] && [ "$_sl" != / ] && [ "$_sl" != . ]; do
    if [ -L "$_sl" ]; then _sk=$_sl; _st=$(readlink -- "$_sl"); break; fi
    _sl=$(dirname -- "$_sl")
  done
}
)";

// realpath -m resolves what exists and keeps the rest as written; a folder the user may not
// enter stays unresolved, so a path into another home stays there.
const char resolveFunction[] = R"(sandscope_resolve() {
  r=$(realpath -m -- "$1" 2>/dev/null) || r=
  sandscope_link "$1"
  printf 'SANDSCOPE-PATH\t%s\t%s\t%s\n' "$r" "$_sk" "$_st"
}
)";

// For scans: true (and a record) when $2 really lies outside the home $1.
const char outsideFunction[] = R"(sandscope_outside() {
  _sr=$(realpath -m -- "$2" 2>/dev/null) || _sr=
  case $_sr in "$1"|"$1"/*) return 1 ;; esac
  sandscope_link "$2"
  printf 'SANDSCOPE-OUTSIDE\t%s\t%s\t%s\t%s\t%s\n' "$1" "$_sr" "$_sk" "$_st" "$2"
}
)";

// Reads $r as the user: test -r asks the kernel with the user's own permissions. %1 is the
// command that prints the bytes read from "$r".
const char readPart[] = R"(case "$r" in "$h"|"$h"/*) ;; *) exit 0 ;; esac
if [ -d "$r" ]; then echo SANDSCOPE-FOLDER
elif [ ! -e "$r" ]; then printf 'SANDSCOPE-UNREADABLE\t%s\n' 'No such file or directory'
elif [ ! -r "$r" ]; then printf 'SANDSCOPE-UNREADABLE\t%s\n' 'Permission denied'
else echo SANDSCOPE-DATA; %1 || echo SANDSCOPE-FAILED; echo SANDSCOPE-END; fi
)";

bool inside(const QString &real, const QString &home)
{
    return !real.isEmpty() && (real == home || real.startsWith(home + QLatin1Char('/')));
}

ApiError errorOf(ApiError::Kind kind, const QString &message)
{
    ApiError error;
    error.kind = kind;
    error.message = message;
    return error;
}

} // namespace

const ResolvedPath *PathResolution::firstOutside() const
{
    for (const ResolvedPath &path : paths) {
        if (!path.insideHome)
            return &path;
    }
    return nullptr;
}

QString PathResolution::refusal(const ResolvedPath &path, const QString &userId) const
{
    const QString where = QStringLiteral("its real location %1 is outside the home of %2 (%3)")
                              .arg(path.real.isEmpty() ? QStringLiteral("(unknown)") : path.real,
                                  userId.isEmpty() ? QStringLiteral("the user") : userId, home);
    if (path.link.isEmpty())
        return QStringLiteral("%1: %2; refused").arg(path.path, where);
    return QStringLiteral("%1: %2 is a link to %3, and %4; refused (Sandscope does not follow "
                          "links out of the acting user's home)")
        .arg(path.path, path.link, path.linkTarget, where);
}

namespace pathguard {

QString outsideFunctions()
{
    return QLatin1String(linkFunction) + QLatin1String(outsideFunction);
}

bool outsideRefusal(const QString &line, const QString &userId, QString *message)
{
    if (!line.startsWith(outsideMarker))
        return false;
    // The path is last: a tab in it stays in it. A tab elsewhere shifts the fields, and the
    // message says less, but the scan has refused the path all the same.
    const QStringList fields = line.mid(outsideMarker.size()).split(QLatin1Char('\t'));
    PathResolution resolution;
    ResolvedPath path;
    if (fields.size() >= 5) {
        resolution.home = fields.at(0);
        path.real = fields.at(1);
        path.link = fields.at(2);
        path.linkTarget = fields.at(3);
        path.path = fields.mid(4).join(QLatin1Char('\t'));
    } else {
        path.path = fields.join(QLatin1Char(' '));
    }
    *message = resolution.refusal(path, userId);
    return true;
}

QStringList outsideRefusals(const QString &output, const QString &userId)
{
    QStringList refusals;
    QString message;
    for (QString line : output.split(QLatin1Char('\n'))) {
        if (line.endsWith(QLatin1Char('\r')))
            line.chop(1);
        if (outsideRefusal(line, userId, &message))
            refusals << message;
    }
    return refusals;
}

QString script(const QStringList &paths, Extra extra, qint64 maxBytes)
{
    QString text = QStringLiteral("cd ~ || exit 90\nh=$(pwd -P)\nprintf 'SANDSCOPE-HOME\\t%s\\n' "
                                  "\"$h\"\n")
        + QLatin1String(linkFunction) + QLatin1String(resolveFunction);
    for (const QString &path : paths)
        text += QStringLiteral("sandscope_resolve %1\n").arg(shell::quote(path));
    if (paths.isEmpty() || extra == Extra::None)
        return text;
    text += QStringLiteral("r=$(realpath -m -- %1 2>/dev/null) || exit 0\n")
                .arg(shell::quote(paths.first()));
    if (extra == Extra::ReadFirst)
        // One byte more than asked for tells a longer file from one of exactly maxBytes.
        return text
            + QString::fromLatin1(readPart).arg(maxBytes < 0
                    ? QStringLiteral("base64 -- \"$r\"")
                    : QStringLiteral("head -c %1 -- \"$r\" | base64").arg(maxBytes + 1));
    // A name with a line break splits into records that do not resolve: refused, not missed.
    const QString depth
        = extra == Extra::LinksInFirst ? QStringLiteral("-mindepth 1 -maxdepth 1 ") : QString();
    return text
        + QStringLiteral("case \"$r\" in \"$h\"|\"$h\"/*) ;; *) exit 0 ;; esac\n"
                         "[ -d \"$r\" ] && find \"$r\" %1-type l -print 2>/dev/null | "
                         "while IFS= read -r l; do sandscope_resolve \"$l\"; done\n")
              .arg(depth);
}

bool parse(
    const QStringList &lines, int count, PathResolution *resolution, QString *error, Extra extra)
{
    PathResolution parsed;
    bool homeSeen = false;
    for (const QString &line : lines) {
        if (line.startsWith(homeMarker)) {
            parsed.home = line.mid(homeMarker.size());
            homeSeen = !parsed.home.isEmpty();
        } else if (line.startsWith(pathMarker)) {
            const QStringList fields = line.split(QLatin1Char('\t'));
            // A tab or newline in a name would shift the fields: such a path is not followed.
            if (fields.size() != 4 || !homeSeen) {
                *error = QStringLiteral("could not resolve the path as the user (a name with "
                                        "a tab or line break?)");
                return false;
            }
            ResolvedPath path;
            path.real = fields.at(1);
            path.link = fields.at(2);
            path.linkTarget = fields.at(3);
            path.insideHome = inside(path.real, parsed.home);
            parsed.paths << path;
        }
    }
    const bool complete = extra == Extra::LinksBelowFirst || extra == Extra::LinksInFirst
        ? parsed.paths.size() >= count
        : parsed.paths.size() == count;
    if (!homeSeen || !complete) {
        *error = QStringLiteral("could not resolve the path as the user: %1")
                     .arg(lines.join(QLatin1Char(' ')).left(300));
        return false;
    }
    *resolution = parsed;
    return true;
}

bool readBytes(const QStringList &lines, QByteArray *bytes, QString *error, bool *isFolder)
{
    *isFolder = false;
    const qsizetype start = lines.indexOf(dataMarker);
    for (const QString &line : lines) {
        if (line == folderMarker) {
            *isFolder = true;
            *error = QStringLiteral("it is a folder");
            return false;
        }
        if (line.startsWith(unreadableMarker)) {
            *error = line.mid(unreadableMarker.size());
            return false;
        }
    }
    const qsizetype end = lines.lastIndexOf(endMarker);
    if (start < 0 || end < start || lines.mid(start, end - start).contains(failedMarker)) {
        *error = QStringLiteral("the user's shell could not read it");
        return false;
    }
    QByteArray encoded;
    for (qsizetype i = start + 1; i < end; ++i)
        encoded += lines.at(i).trimmed().toLatin1();
    *bytes = QByteArray::fromBase64(encoded);
    return true;
}

void resolve(OpenTerminalClient *client, const Identity &identity, const QStringList &paths,
    QObject *context, std::function<void(const Result<PathResolution> &)> done, Extra extra)
{
    runShortCommand(client, identity, script(paths, extra), context,
        [paths, done, extra](const Result<CommandOutput> &output) {
            if (!output.ok()) {
                done(Result<PathResolution>::failure(output.error));
                return;
            }
            PathResolution resolution;
            QString why;
            if (!parse(output.value.lines, int(paths.size()), &resolution, &why, extra)) {
                done(Result<PathResolution>::failure(errorOf(ApiError::Kind::BadResponse, why)));
                return;
            }
            // The links found below a folder are named by where they really are.
            for (int i = 0; i < resolution.paths.size(); ++i)
                resolution.paths[i].path
                    = i < paths.size() ? paths.at(i) : resolution.paths[i].link;
            done(Result<PathResolution>::success(resolution));
        });
}

void readAsUser(OpenTerminalClient *client, const Identity &identity, const QString &path,
    QObject *context, std::function<void(const Result<ReadOutcome> &)> done, qint64 maxBytes)
{
    runShortCommand(client, identity, script({path}, Extra::ReadFirst, maxBytes), context,
        [path, done, maxBytes](const Result<CommandOutput> &output) {
            if (!output.ok()) {
                done(Result<ReadOutcome>::failure(output.error));
                return;
            }
            ReadOutcome outcome;
            QString why;
            if (!parse(output.value.lines, 1, &outcome.resolution, &why)) {
                done(Result<ReadOutcome>::failure(errorOf(ApiError::Kind::BadResponse, why)));
                return;
            }
            outcome.resolution.paths[0].path = path;
            if (!outcome.resolution.paths.at(0).insideHome) {
                outcome.refused = true;
                done(Result<ReadOutcome>::success(outcome));
                return;
            }
            if (!readBytes(output.value.lines, &outcome.bytes, &why, &outcome.isFolder)) {
                const bool missing = outcome.isFolder || why.startsWith(QLatin1String("No such"));
                Result<ReadOutcome> failed = Result<ReadOutcome>::failure(missing
                        ? errorOf(ApiError::Kind::NotFound,
                            QStringLiteral("Not found: %1 (%2)").arg(path, why))
                        : errorOf(ApiError::Kind::Forbidden,
                            QStringLiteral("%1: %2 (read with the user's own permissions)")
                                .arg(path, why)));
                failed.value = outcome;
                done(failed);
                return;
            }
            if (maxBytes >= 0 && outcome.bytes.size() > maxBytes) {
                outcome.bytes.truncate(int(maxBytes));
                outcome.truncated = true;
            }
            done(Result<ReadOutcome>::success(outcome));
        });
}

} // namespace pathguard

} // namespace sandscope
