// A CPU limit per fleet member for bench_fleetscale: a cgroup of the cpu controller per member,
// each with the same quota, as each pod of a cluster has its CPU limit. A member's server and
// every admin script run in its namespace go into its cgroup, so members sharing this machine no
// longer take each other's cores. Needs root and a writable cpu controller (cgroup v1, or v2
// where this process's cgroup may delegate it); available() says why not otherwise.
#pragma once

#include <QDir>
#include <QFile>
#include <QString>
#include <QStringList>

#include <unistd.h>
#include <utility>

namespace sandscope::bench {

class MemberCpuBudget {
public:
    // One cgroup per name, each limited to `millicores` thousandths of a core.
    bool create(const QStringList &names, int millicores, QString *why)
    {
        if (!findParent(why))
            return false;
        m_root = m_parent + QStringLiteral("/sandscope-bench-%1").arg(::getpid());
        if (!QDir().mkpath(m_root)) {
            *why = QStringLiteral("cannot make %1").arg(m_root);
            return false;
        }
        // In v2 a cgroup's children get the controller only from its subtree_control.
        if (!m_v1
            && (!write(m_parent + QStringLiteral("/cgroup.subtree_control"), "+cpu", why)
                || !write(m_root + QStringLiteral("/cgroup.subtree_control"), "+cpu", why)))
            return false;
        constexpr int period = 100000; // µs, the kernel's default
        const QByteArray quota = QByteArray::number(qint64(period) * millicores / 1000);
        for (const QString &name : names) {
            const QString group = m_root + QLatin1Char('/') + name;
            const bool limited = QDir().mkpath(group)
                && (m_v1 ? write(group + QStringLiteral("/cpu.cfs_period_us"),
                               QByteArray::number(period), why)
                            && write(group + QStringLiteral("/cpu.cfs_quota_us"), quota, why)
                         : write(group + QStringLiteral("/cpu.max"),
                             quota + ' ' + QByteArray::number(period), why));
            if (!limited) {
                if (why->isEmpty())
                    *why = QStringLiteral("cannot make %1").arg(group);
                return false;
            }
            m_groups.append(group);
        }
        return true;
    }
    ~MemberCpuBudget()
    {
        for (const QString &group : std::as_const(m_groups)) {
            leave(group);
            QDir().rmdir(group);
        }
        if (!m_root.isEmpty())
            QDir().rmdir(m_root);
    }

    // The file a process writes its pid to to join member `index`'s cgroup (its children
    // follow it).
    QString procsFile(int index) const
    {
        return m_groups.at(index) + QStringLiteral("/cgroup.procs");
    }

    // Moves every process of `pids` into member `index`'s cgroup.
    bool enter(int index, const QList<qint64> &pids, QString *why) const
    {
        for (qint64 pid : pids) {
            if (!write(procsFile(index), QByteArray::number(pid), why))
                return false;
        }
        return true;
    }

    // How long the quota has held the members' processes back, in all (the evidence that the
    // budget applies): cpu.stat's throttled_time (v1, ns) or throttled_usec (v2).
    qint64 throttledMs() const
    {
        qint64 total = 0;
        for (const QString &group : m_groups) {
            QFile stat(group + QStringLiteral("/cpu.stat"));
            if (!stat.open(QIODevice::ReadOnly))
                continue;
            for (const QByteArray &line : stat.readAll().split('\n')) {
                const QList<QByteArray> field = line.split(' ');
                if (field.value(0) == "throttled_time")
                    total += field.value(1).toLongLong() / 1000000;
                else if (field.value(0) == "throttled_usec")
                    total += field.value(1).toLongLong() / 1000;
            }
        }
        return total;
    }

    // Moves whatever is in the members' cgroups back to this process's own.
    void leaveAll() const
    {
        for (const QString &group : m_groups)
            leave(group);
    }

private:
    // The cgroup this process is in, under the cpu controller's mount.
    bool findParent(QString *why)
    {
        QFile own(QStringLiteral("/proc/self/cgroup"));
        if (!own.open(QIODevice::ReadOnly)) {
            *why = QStringLiteral("/proc/self/cgroup cannot be read");
            return false;
        }
        QString v2Path;
        for (const QByteArray &line : own.readAll().split('\n')) {
            const QList<QByteArray> fields = line.split(':'); // id:controllers:path
            if (fields.size() < 3)
                continue;
            const QString path = QString::fromUtf8(fields.mid(2).join(':'));
            if (fields.at(1).split(',').contains("cpu")
                && QFile::exists(QStringLiteral("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"))) {
                m_v1 = true;
                m_parent = QStringLiteral("/sys/fs/cgroup/cpu") + path;
                return true;
            }
            if (fields.at(0) == "0" && fields.at(1).isEmpty())
                v2Path = path;
        }
        QFile controllers(QStringLiteral("/sys/fs/cgroup/cgroup.controllers"));
        if (!v2Path.isNull() && controllers.open(QIODevice::ReadOnly)
            && controllers.readAll().simplified().split(' ').contains("cpu")) {
            m_parent = QStringLiteral("/sys/fs/cgroup") + v2Path;
            return true;
        }
        *why = QStringLiteral("no cpu controller of cgroups is mounted here");
        return false;
    }

    void leave(const QString &group) const
    {
        QFile procs(group + QStringLiteral("/cgroup.procs"));
        if (!procs.open(QIODevice::ReadOnly))
            return;
        QString ignored;
        for (const QByteArray &pid : procs.readAll().split('\n')) {
            if (!pid.isEmpty())
                write(m_parent + QStringLiteral("/cgroup.procs"), pid, &ignored);
        }
    }

    static bool write(const QString &path, const QByteArray &value, QString *why)
    {
        QFile file(path);
        if (file.open(QIODevice::WriteOnly) && file.write(value) == value.size() && file.flush())
            return true;
        *why = QStringLiteral("cannot write %1 to %2: %3")
                   .arg(QString::fromUtf8(value), path, file.errorString());
        return false;
    }

    bool m_v1 = false;
    QString m_parent; // this process's cgroup
    QString m_root; // ours, holding one per member
    QStringList m_groups;
};

} // namespace sandscope::bench
