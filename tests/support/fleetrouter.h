#pragma once
// The REAL nginx as a fleet's router, with the shipped sandbox/k8s/router/router.conf copied
// verbatim into a folder of its own; only the two files it includes are written here: the
// members (`server 127.0.0.1:PORT max_fails=0;`, as sandbox/k8s/router/router-members.conf has
// them) and the listen line (a free loopback port). Runs in the foreground (no daemon, no
// pid file outside its folder) and is stopped by the destructor.

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QThread>
#include <QUrl>

#include <memory>

namespace sandscope::test {

class FleetRouter {
public:
    static QString shippedConfig()
    {
        return QFileInfo(QStringLiteral(SANDSCOPE_VERSIONS_FILE)).absolutePath()
            + QStringLiteral("/k8s/router/router.conf");
    }
    static QString nginx()
    {
        return QStandardPaths::findExecutable(QStringLiteral("nginx"),
            {QStringLiteral("/usr/sbin"), QStringLiteral("/usr/local/sbin")});
    }

    ~FleetRouter() { stop(); }

    // Starts nginx routing to `members` (loopback ports) and waits until it listens.
    bool start(const QList<quint16> &members, QString *error)
    {
        if (nginx().isEmpty()) {
            *error = QStringLiteral("nginx is not installed (scripts/install-deps.sh)");
            return false;
        }
        QTcpServer probe;
        probe.listen(QHostAddress::LocalHost, 0);
        m_port = probe.serverPort();
        probe.close();
        QDir(m_dir.path()).mkpath(QStringLiteral("logs"));
        if (!QFile::copy(shippedConfig(), m_dir.filePath(QStringLiteral("router.conf")))
            || !write(QStringLiteral("router-listen.conf"),
                QStringLiteral("listen 127.0.0.1:%1;\n").arg(m_port))
            || !setMembers(members)
            || !write(QStringLiteral("nginx.conf"),
                QStringLiteral("daemon off;\nworker_processes 1;\npid %1/nginx.pid;\n"
                               "error_log %1/logs/error.log info;\nevents {}\nhttp {\n"
                               "    access_log off;\n    client_body_temp_path %1/body;\n"
                               "    proxy_temp_path %1/proxy;\n    include router.conf;\n}\n")
                    .arg(m_dir.path()))) {
            *error = QStringLiteral("cannot write the router's files in %1").arg(m_dir.path());
            return false;
        }
        m_process = std::make_unique<QProcess>();
        m_process->setProcessChannelMode(QProcess::MergedChannels);
        m_process->start(nginx(),
            {QStringLiteral("-p"), m_dir.path(), QStringLiteral("-c"),
                m_dir.filePath(QStringLiteral("nginx.conf")), QStringLiteral("-e"),
                m_dir.filePath(QStringLiteral("logs/error.log"))});
        for (int i = 0; i < 100; ++i) {
            QTcpSocket socket;
            socket.connectToHost(QHostAddress::LocalHost, m_port);
            if (socket.waitForConnected(100))
                return true;
            if (m_process->state() == QProcess::NotRunning)
                break;
            QThread::msleep(50);
        }
        *error = QStringLiteral("nginx did not start: %1 %2")
                     .arg(QString::fromUtf8(m_process->readAll()), log());
        return false;
    }
    // The member list again, then nginx reloads it (as after a resize).
    bool setMembers(const QList<quint16> &members)
    {
        QString lines;
        for (const quint16 port : members)
            lines += QStringLiteral("server 127.0.0.1:%1 max_fails=0;\n").arg(port);
        return write(QStringLiteral("router-members.conf"), lines);
    }
    bool reload()
    {
        const int status = QProcess::execute(nginx(),
            {QStringLiteral("-p"), m_dir.path(), QStringLiteral("-c"),
                m_dir.filePath(QStringLiteral("nginx.conf")), QStringLiteral("-s"),
                QStringLiteral("reload")});
        QThread::msleep(500); // the new workers take over
        return status == 0;
    }
    void stop()
    {
        if (m_process && m_process->state() != QProcess::NotRunning) {
            m_process->terminate();
            if (!m_process->waitForFinished(5000))
                m_process->kill();
            m_process->waitForFinished(5000);
        }
        m_process.reset();
    }
    QUrl url() const { return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_port)); }
    QString configInUse() const { return m_dir.filePath(QStringLiteral("router.conf")); }
    QString log() const
    {
        QFile file(m_dir.filePath(QStringLiteral("logs/error.log")));
        return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll().right(2000))
                                              : QString();
    }

private:
    bool write(const QString &name, const QString &text)
    {
        QFile file(m_dir.filePath(name));
        return file.open(QIODevice::WriteOnly | QIODevice::Truncate)
            && file.write(text.toUtf8()) >= 0;
    }

    QTemporaryDir m_dir;
    quint16 m_port = 0;
    std::unique_ptr<QProcess> m_process;
};

} // namespace sandscope::test
