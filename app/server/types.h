#pragma once
// Value types returned by the open-terminal client.

#include <QByteArray>
#include <QDateTime>
#include <QHash>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>

namespace sandscope {

struct ServerFeatures {
    bool terminal = false;
    bool notebooks = false;
    bool system = false;
};

// From GET /openapi.json (info.version, paths) and GET /api/config (features).
struct ServerInfo {
    QString version;
    QStringList paths;
    ServerFeatures features;
    bool hasPath(const QString &path) const { return paths.contains(path); }
};

enum class ProcessStatus { Unknown, Running, Done, Killed };

struct ProcessInfo {
    QString id;
    QString command;
    ProcessStatus status = ProcessStatus::Unknown;
    bool hasExitCode = false;
    int exitCode = 0; // negative: killed by that signal
    QString logPath;
};

struct OutputChunk {
    QString type; // "output" (PTY), "stdout" or "stderr" (pipe fallback)
    QString data;
};

// One answer of POST /execute or GET /execute/{id}/status.
struct ProcessSnapshot {
    ProcessInfo info;
    QVector<OutputChunk> output;
    qint64 nextOffset = 0; // counts chunks, not bytes
    bool truncated = false; // newer servers: byte budget hit, read again from nextOffset
};

struct CwdInfo {
    QString cwd;
    QString home; // 0.11.35+ only
    QString rootPath; // 0.11.35+ only
};

struct FileEntry {
    QString name;
    bool isDirectory = false;
    qint64 size = 0;
    QDateTime modified;
    int writable = -1; // -1 unknown (older servers), 0 no, 1 yes
};

struct DirectoryListing {
    QString directory;
    QVector<FileEntry> entries;
};

// GET /files/read: JSON text, or raw bytes (images) with their content type.
struct FileContent {
    QString path;
    bool isText = true;
    QString text;
    qint64 totalLines = 0;
    QByteArray bytes;
    QString contentType;
};

struct RawFile {
    QByteArray bytes;
    QString contentType;
    QString fileName; // from Content-Disposition, if any
};

struct WriteResult {
    QString path;
    qint64 size = 0;
};

struct MoveResult {
    QString source;
    QString destination;
};

struct GrepMatch {
    QString file;
    int line = 0;
    QString content;
};

struct GrepResult {
    QVector<GrepMatch> matches;
    bool truncated = false;
};

struct GlobMatch {
    QString path; // relative to the search path
    bool isDirectory = false;
    qint64 size = 0;
    QDateTime modified;
};

struct GlobResult {
    QVector<GlobMatch> matches;
    bool truncated = false;
};

struct GrepOptions {
    QString path = QStringLiteral(".");
    bool regex = true;
    bool caseInsensitive = false;
    QStringList include;
    bool matchPerLine = true;
    int maxResults = 50;
};

struct GlobOptions {
    QString path = QStringLiteral(".");
    QStringList exclude;
    QString type = QStringLiteral("any"); // any | file | directory
    int maxResults = 50;
};

} // namespace sandscope

Q_DECLARE_METATYPE(sandscope::ProcessStatus)
