#pragma once
// Paths on the server as the file browser builds them from what it lists and what the user types.

#include <QDir>
#include <QString>

namespace sandscope::remotepaths {

// The folder that holds `path`; "/" for a top-level item.
inline QString parentPath(const QString &path)
{
    const qsizetype slash = path.lastIndexOf(QLatin1Char('/'));
    if (slash <= 0)
        return QStringLiteral("/");
    return path.left(slash);
}

inline QString joinPath(const QString &folder, const QString &name)
{
    if (folder.endsWith(QLatin1Char('/')))
        return folder + name;
    return folder + QLatin1Char('/') + name;
}

// A typed path without surrounding blanks, "." or ".." parts and doubled slashes; empty stays
// empty.
inline QString normalizedPath(const QString &path)
{
    QString cleaned = QDir::cleanPath(path.trimmed());
    return cleaned.isEmpty() ? QString() : cleaned;
}

// Whether `folder` holds `path` somewhere below it ("/home" and "/" hold "/home/alice"; a path
// does not hold itself). Both normalized.
inline bool isAbove(const QString &folder, const QString &path)
{
    if (folder.isEmpty() || path.isEmpty() || folder == path)
        return false;
    return folder == QLatin1String("/") ? path.startsWith(QLatin1Char('/'))
                                        : path.startsWith(folder + QLatin1Char('/'));
}

} // namespace sandscope::remotepaths
