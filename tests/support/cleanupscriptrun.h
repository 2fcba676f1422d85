#pragma once
// Running sandbox/cleanup.sh against fabricated home trees, shared by tst_cleanup_script and
// tst_cleanup_hardening: raw-byte filesystem helpers (names need not be UTF-8), snapshots of a
// tree to prove what changed, and one run of the script with its JSON lines parsed.

#include <QCryptographicHash>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sandscope::test::cleanupscript {

inline QString scriptPath()
{
    return QFileInfo(QStringLiteral(SANDSCOPE_VERSIONS_FILE)).absolutePath()
        + QStringLiteral("/cleanup.sh");
}

inline bool isRoot()
{
    return ::geteuid() == 0;
}

// ---- raw filesystem helpers ----------------------------------------------------------------

inline bool makeDirs(const QByteArray &path)
{
    for (qsizetype slash = path.indexOf('/', 1); slash != -1; slash = path.indexOf('/', slash + 1))
        ::mkdir(path.left(slash).constData(), 0755);
    return ::mkdir(path.constData(), 0755) == 0 || errno == EEXIST;
}

inline bool writeFile(const QByteArray &path, const QByteArray &content, bool append = false)
{
    makeDirs(path.left(path.lastIndexOf('/')));
    const int fd
        = ::open(path.constData(), O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);
    if (fd < 0)
        return false;
    const bool ok = ::write(fd, content.constData(), size_t(content.size())) == content.size();
    ::close(fd);
    return ok;
}

inline bool makeSymlink(const QByteArray &target, const QByteArray &link)
{
    makeDirs(link.left(link.lastIndexOf('/')));
    return ::symlink(target.constData(), link.constData()) == 0;
}

inline QList<QByteArray> childrenOf(const QByteArray &dir)
{
    QList<QByteArray> children;
    if (DIR *d = ::opendir(dir.constData())) {
        while (const dirent *entry = ::readdir(d)) {
            const QByteArray name(entry->d_name);
            if (name != "." && name != "..")
                children.append(dir + '/' + name);
        }
        ::closedir(d);
    }
    return children;
}

inline bool isRealDir(const QByteArray &path)
{
    struct stat st { };
    return ::lstat(path.constData(), &st) == 0 && S_ISDIR(st.st_mode);
}

inline bool exists(const QByteArray &path)
{
    struct stat st { };
    return ::lstat(path.constData(), &st) == 0;
}

// rm -rf without following symlinks; QTemporaryDir cannot remove names that are not UTF-8.
inline void removeTree(const QByteArray &path)
{
    if (isRealDir(path)) {
        ::chmod(path.constData(), 0700);
        for (const QByteArray &child : childrenOf(path))
            removeTree(child);
        ::rmdir(path.constData());
    } else {
        ::unlink(path.constData());
    }
}

// Sets the modification time of path and everything below it, never following symlinks.
inline void setTreeTime(const QByteArray &path, qint64 epoch)
{
    if (isRealDir(path)) {
        for (const QByteArray &child : childrenOf(path))
            setTreeTime(child, epoch);
    }
    const timespec times[2] = {{time_t(epoch), 0}, {time_t(epoch), 0}};
    ::utimensat(AT_FDCWD, path.constData(), times, AT_SYMLINK_NOFOLLOW);
}

// Apparent size of path and everything below it (lstat sizes, symlinks not followed).
inline qint64 treeBytes(const QByteArray &path)
{
    struct stat st { };
    if (::lstat(path.constData(), &st) != 0)
        return 0;
    qint64 total = st.st_size;
    if (S_ISDIR(st.st_mode)) {
        for (const QByteArray &child : childrenOf(path))
            total += treeBytes(child);
    }
    return total;
}

// The identity the script gives an entry: device:inode:hex of the path bytes (lstat).
inline QString identityOf(const QByteArray &path)
{
    struct stat st { };
    ::lstat(path.constData(), &st);
    return QString::number(quint64(st.st_dev)) + QLatin1Char(':')
        + QString::number(quint64(st.st_ino)) + QLatin1Char(':')
        + QString::fromLatin1(path.toHex());
}

QByteArray fileSha256(const QByteArray &path)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    const int fd = ::open(path.constData(), O_RDONLY | O_NOFOLLOW);
    if (fd < 0)
        return "unreadable";
    char buffer[65536];
    ssize_t n;
    while ((n = ::read(fd, buffer, sizeof buffer)) > 0)
        hash.addData(QByteArray::fromRawData(buffer, int(n)));
    ::close(fd);
    return hash.result().toHex();
}

// Path -> type, mode, owner, size, mtime (ns), content hash or link target, for a whole tree.
using Snapshot = QMap<QByteArray, QByteArray>;

inline void snapshotInto(const QByteArray &path, bool withDirMtimes, Snapshot &into)
{
    struct stat st { };
    if (::lstat(path.constData(), &st) != 0) {
        into.insert(path, "vanished");
        return;
    }
    QByteArray description = QByteArray::number(uint(st.st_mode), 8) + ' '
        + QByteArray::number(uint(st.st_uid)) + ' ' + QByteArray::number(qint64(st.st_size));
    const QByteArray mtime = QByteArray::number(qint64(st.st_mtim.tv_sec)) + '.'
        + QByteArray::number(qint64(st.st_mtim.tv_nsec));
    if (S_ISLNK(st.st_mode)) {
        char target[4096];
        const ssize_t n = ::readlink(path.constData(), target, sizeof target);
        description += " link " + mtime + " -> " + QByteArray(target, int(qMax<ssize_t>(n, 0)));
    } else if (S_ISREG(st.st_mode)) {
        description += " file " + mtime + ' ' + fileSha256(path);
    } else if (S_ISDIR(st.st_mode)) {
        description += " dir";
        if (withDirMtimes)
            description += ' ' + mtime;
        for (const QByteArray &child : childrenOf(path))
            snapshotInto(child, withDirMtimes, into);
    }
    into.insert(path, description);
}

inline Snapshot snapshot(const QByteArray &root, bool withDirMtimes = true)
{
    Snapshot result;
    snapshotInto(root, withDirMtimes, result);
    return result;
}

inline QByteArray describeDifference(const Snapshot &expected, const Snapshot &actual)
{
    QByteArray text;
    for (auto it = expected.cbegin(); it != expected.cend(); ++it) {
        if (!actual.contains(it.key()))
            text += "missing: " + it.key() + '\n';
        else if (actual.value(it.key()) != it.value())
            text += "changed: " + it.key() + " (" + it.value() + " -> " + actual.value(it.key())
                + ")\n";
    }
    for (auto it = actual.cbegin(); it != actual.cend(); ++it) {
        if (!expected.contains(it.key()))
            text += "new: " + it.key() + '\n';
    }
    return text;
}

// ---- running the script ------------------------------------------------------------------

struct Run {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    QList<QJsonObject> items;
    QJsonObject summary;
    QList<QByteArray> badLines; // stdout lines that are not one JSON object each

    QJsonObject itemFor(const QString &path) const
    {
        for (const QJsonObject &item : items) {
            if (item.value(QLatin1String("path")).toString() == path)
                return item;
        }
        return {};
    }
    QStringList pathsWith(const QString &key, const QString &value) const
    {
        QStringList paths;
        for (const QJsonObject &item : items) {
            if (item.value(key).toString() == value)
                paths.append(item.value(QLatin1String("path")).toString());
        }
        return paths;
    }
};

using Settings = QMap<QString, QString>;

// Runs `bash cleanup.sh` (optionally through a wrapper such as setpriv) with only the given
// cleanup settings in its environment.
inline Run runCleanup(const Settings &settings, const QString &workDir,
    const QStringList &wrapper = {}, const QString &script = scriptPath())
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char *name : {"CHAT_TTL_DAYS", "SESSION_TTL_DAYS", "CLEANUP_DRY_RUN", "HOME_ROOT",
             "CLEANUP_FORMAT", "CLEANUP_PLAN", "CLEANUP_SUDO_REEXEC"})
        env.remove(QLatin1String(name));
    for (auto it = settings.cbegin(); it != settings.cend(); ++it)
        env.insert(it.key(), it.value());

    QProcess process;
    process.setProcessEnvironment(env);
    process.setWorkingDirectory(workDir);
    QStringList arguments = wrapper;
    arguments << QStringLiteral("bash") << script;
    process.start(arguments.takeFirst(), arguments);
    process.closeWriteChannel();
    Run run;
    if (!process.waitForFinished(120000)) {
        process.kill();
        process.waitForFinished();
        run.err = "timed out";
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    if (settings.value(QStringLiteral("CLEANUP_FORMAT")) != QLatin1String("json"))
        return run;
    for (const QByteArray &line : run.out.split('\n')) {
        if (line.isEmpty())
            continue;
        QJsonParseError error {};
        const QJsonDocument document = QJsonDocument::fromJson(line, &error);
        if (error.error != QJsonParseError::NoError || !document.isObject()) {
            run.badLines.append(line);
            continue;
        }
        const QJsonObject object = document.object();
        if (object.value(QLatin1String("summary")).toBool())
            run.summary = object;
        else if (run.summary.isEmpty())
            run.items.append(object);
        else
            run.badLines.append("item after the summary: " + line);
    }
    return run;
}

inline QByteArray diagnostics(const Run &run)
{
    return "exit " + QByteArray::number(run.exitCode) + "\nstderr: " + run.err
        + "\nstdout: " + run.out.left(4000);
}

} // namespace sandscope::test::cleanupscript
