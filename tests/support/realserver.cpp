#include "realserver.h"

#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QHostAddress>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QProcessEnvironment>
#include <QRandomGenerator>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTimer>
#include <QtTest>

#include <csignal>
#include <pwd.h>
#include <unistd.h>

namespace sandscope::test {

namespace {

constexpr int healthTimeoutMs = 30000;
constexpr int modelServerStartTimeoutMs = 15000;

quint16 pickFreeLoopbackPort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 0;
    const quint16 port = probe.serverPort();
    probe.close();
    return port;
}

// Runs an administrative command without letting its chatter reach the test output.
int runQuietly(const QString &program, const QStringList &arguments)
{
    QProcess process;
    process.setStandardOutputFile(QProcess::nullDevice());
    process.setStandardErrorFile(QProcess::nullDevice());
    process.start(program, arguments);
    if (!process.waitForStarted(10000))
        return -1;
    process.waitForFinished(30000);
    return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
}

// First field of every line of /etc/passwd or /etc/group that starts with `prefix`.
QStringList namesWithPrefix(const QString &databaseFile, const QString &prefix)
{
    QStringList names;
    QFile file(databaseFile);
    if (prefix.isEmpty() || !file.open(QIODevice::ReadOnly))
        return names;
    const QList<QByteArray> lines = file.readAll().split('\n');
    for (const QByteArray &line : lines) {
        const QString name = QString::fromUtf8(line.left(line.indexOf(':')));
        if (name.startsWith(prefix))
            names.append(name);
    }
    return names;
}

// SIGKILL to every process of these accounts, in one pkill (it takes a list of users).
void killProcessesOf(const QStringList &accounts)
{
    if (!accounts.isEmpty())
        runQuietly(QStringLiteral("pkill"),
            {QStringLiteral("-KILL"), QStringLiteral("-u"), accounts.join(QLatin1Char(','))});
}

void stopProcess(QProcess *process, int graceMs)
{
    if (!process || process->state() == QProcess::NotRunning)
        return;
    process->terminate();
    if (!process->waitForFinished(graceMs)) {
        process->kill();
        process->waitForFinished(5000);
    }
}

QString readWholeFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(file.readAll());
}

} // namespace

QString randomToken(int length, bool lettersOnly)
{
    static const QLatin1String letters("abcdefghijklmnopqrstuvwxyz");
    static const QLatin1String alphanumerics("abcdefghijklmnopqrstuvwxyz0123456789");
    const QLatin1String alphabet = lettersOnly ? letters : alphanumerics;
    QString token;
    token.reserve(length);
    for (int i = 0; i < length; ++i)
        token.append(alphabet.at(int(QRandomGenerator::system()->bounded(alphabet.size()))));
    return token;
}

RealServer::RealServer(QString version, Mode mode)
    : m_version(std::move(version))
    , m_mode(mode)
{
    // Mixed case and digits: 48 characters of a 62-letter alphabet.
    static const QLatin1String keyAlphabet(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789");
    for (int i = 0; i < 48; ++i)
        m_apiKey.append(
            keyAlphabet.at(int(QRandomGenerator::system()->bounded(keyAlphabet.size()))));
    if (m_mode == Mode::MultiUser)
        m_prefix = QLatin1String("sst") + randomToken(4, true) + QLatin1Char('_');
    m_outputFile = m_config.filePath(QStringLiteral("server-output.log"));
}

RealServer::~RealServer()
{
    stop();
    if (m_mode == Mode::MultiUser)
        removeAccounts();
}

bool RealServer::prepareStart(QString *error)
{
    if (!m_home.isValid() || !m_logs.isValid() || !m_config.isValid()) {
        if (error)
            *error = QStringLiteral("Cannot create temporary directories for the server");
        return false;
    }
    if (m_port == 0)
        m_port = pickFreeLoopbackPort();
    if (m_port == 0) {
        if (error)
            *error = QStringLiteral("No free loopback port");
        return false;
    }
    return true;
}

bool RealServer::start(QString *error)
{
    if (isRunning())
        return true;
    return prepareStart(error) && launch(error) && waitForHealth(error);
}

bool RealServer::startAll(const QList<RealServer *> &servers, QString *error)
{
    QList<RealServer *> launched;
    QList<quint16> ports;
    bool ok = true;
    for (RealServer *server : servers) {
        if (server->isRunning())
            continue;
        if (!server->prepareStart(error)) {
            ok = false;
            break;
        }
        // None of them listens yet: a port picked twice would go to two of them.
        for (int pick = 0; pick < 10 && ports.contains(server->m_port); ++pick)
            server->m_port = pickFreeLoopbackPort();
        if (server->m_port == 0 || ports.contains(server->m_port)) {
            if (error)
                *error = QStringLiteral("No free loopback port");
            ok = false;
            break;
        }
        if (!server->launch(error)) {
            ok = false;
            break;
        }
        ports.append(server->m_port);
        launched.append(server);
    }
    for (RealServer *server : std::as_const(launched)) {
        if (!ok || !server->waitForHealth(error)) {
            ok = false;
            break;
        }
    }
    if (!ok) {
        for (RealServer *server : servers)
            server->stop();
    }
    return ok;
}

bool RealServer::launch(QString *error)
{
    const QString program = executable(m_version);
    if (!QFileInfo(program).isExecutable()) {
        if (error)
            *error = QStringLiteral("open-terminal %1 is not installed at %2 "
                                    "(run scripts/install-deps.sh)")
                         .arg(m_version, program);
        return false;
    }

    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    const QStringList inherited = env.keys();
    for (const QString &name : inherited) {
        if (name.startsWith(QLatin1String("OPEN_TERMINAL_")))
            env.remove(name);
    }
    // The key goes through the environment only: argv is visible to every local user.
    env.insert(QStringLiteral("OPEN_TERMINAL_API_KEY"), m_apiKey);
    env.insert(QStringLiteral("OPEN_TERMINAL_LOG_DIR"), m_logs.path());
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_config.path());
    env.insert(QStringLiteral("USER"), QStringLiteral("root"));
    if (m_mode == Mode::MultiUser) {
        env.insert(QStringLiteral("OPEN_TERMINAL_MULTI_USER"), QStringLiteral("true"));
        env.insert(QStringLiteral("OPEN_TERMINAL_USER_PREFIX"), m_prefix);
    } else {
        env.insert(QStringLiteral("HOME"), m_home.path());
    }

    m_process = std::make_unique<QProcess>();
    m_process->setProcessEnvironment(env);
    m_process->setWorkingDirectory(m_home.path());
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    m_process->setStandardOutputFile(m_outputFile, QIODevice::Append);
    QStringList arguments {QStringLiteral("run"), QStringLiteral("--host"),
        QStringLiteral("127.0.0.1"), QStringLiteral("--port"), QString::number(m_port)};
    if (m_wrapper.isEmpty())
        m_process->start(program, arguments);
    else
        m_process->start(m_wrapper.first(), m_wrapper.mid(1) + QStringList {program} + arguments);
    if (!m_process->waitForStarted(10000)) {
        if (error)
            *error = QStringLiteral("Cannot start %1: %2").arg(program, m_process->errorString());
        m_process.reset();
        return false;
    }
    return true;
}

bool RealServer::waitForHealth(QString *error)
{
    QNetworkAccessManager network;
    QUrl healthUrl = url();
    healthUrl.setPath(QStringLiteral("/health"));
    QElapsedTimer elapsed;
    elapsed.start();
    while (elapsed.elapsed() < healthTimeoutMs) {
        if (m_process->state() == QProcess::NotRunning) {
            if (error)
                *error = QStringLiteral("open-terminal %1 exited during start-up (code %2):\n%3")
                             .arg(m_version)
                             .arg(m_process->exitCode())
                             .arg(serverLog());
            return false;
        }
        QNetworkRequest request(healthUrl);
        request.setTransferTimeout(2000);
        QNetworkReply *reply = network.get(request);
        QEventLoop loop;
        QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        loop.exec();
        const bool healthy = reply->error() == QNetworkReply::NoError
            && reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 200;
        reply->deleteLater();
        if (healthy)
            return true;
        QTimer::singleShot(200, &loop, &QEventLoop::quit);
        loop.exec();
    }
    if (error)
        *error = QStringLiteral("open-terminal %1 did not answer /health within %2 s:\n%3")
                     .arg(m_version)
                     .arg(healthTimeoutMs / 1000)
                     .arg(serverLog());
    stop();
    return false;
}

void RealServer::stop()
{
    stopServerOnly();
    endLeftoverProcesses();
}

void RealServer::stopAll(const QList<RealServer *> &servers)
{
    for (RealServer *server : servers) {
        if (server->isRunning())
            server->m_process->terminate();
    }
    for (RealServer *server : servers)
        server->stop();
}

void RealServer::stopServerOnly()
{
    stopProcess(m_process.get(), 5000);
    m_process.reset();
}

bool RealServer::restart(QString *error)
{
    // Commands outlive a real server restart (they keep writing their logs), so they are
    // left running here; stop() and the destructor end them.
    stopServerOnly();
    return start(error);
}

bool RealServer::isRunning() const
{
    return m_process && m_process->state() != QProcess::NotRunning;
}

qint64 RealServer::processId() const
{
    return isRunning() ? m_process->processId() : 0;
}

QUrl RealServer::url() const
{
    QUrl result;
    result.setScheme(QStringLiteral("http"));
    result.setHost(QStringLiteral("127.0.0.1"));
    result.setPort(m_port);
    return result;
}

QString RealServer::serverLog() const
{
    QString log = readWholeFile(m_outputFile);
    if (!m_apiKey.isEmpty())
        log.replace(m_apiKey, QLatin1String("[redacted]"));
    return log;
}

ServerConnection RealServer::connection() const
{
    ServerConnection connection;
    connection.baseUrl = url();
    connection.apiKey = m_apiKey;
    return connection;
}

// Everything the server started inherits its environment, key included, until sudo resets
// it; so the key identifies our server's children without touching anything else.
void RealServer::endLeftoverProcesses()
{
    {
        // This server's own log folder marks its processes: the key may be shared (a fleet's
        // members have one).
        const QByteArray marker = "OPEN_TERMINAL_LOG_DIR=" + m_logs.path().toUtf8();
        const QStringList pids = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
        const qint64 self = qint64(::getpid());
        for (const QString &entry : pids) {
            bool isPid = false;
            const qint64 pid = entry.toLongLong(&isPid);
            if (!isPid || pid == self)
                continue;
            QFile environ(QLatin1String("/proc/") + entry + QLatin1String("/environ"));
            if (!environ.open(QIODevice::ReadOnly))
                continue;
            const QList<QByteArray> variables = environ.readAll().split('\0');
            if (variables.contains(marker))
                ::kill(pid_t(pid), SIGKILL);
        }
    }
    if (m_mode == Mode::MultiUser)
        killProcessesOf(namesWithPrefix(QStringLiteral("/etc/passwd"), m_prefix));
}

void RealServer::removeAccounts()
{
    removeAccountsWithPrefix(m_prefix);
}

void RealServer::removeAccountsWithPrefix(const QString &prefix)
{
    if (prefix.isEmpty() || ::geteuid() != 0)
        return;
    const QStringList accounts = namesWithPrefix(QStringLiteral("/etc/passwd"), prefix);
    killProcessesOf(accounts);
    // The server account (root) joined each user's group; leave them first or the groups
    // stay behind because they still have members.
    const QStringList groups = namesWithPrefix(QStringLiteral("/etc/group"), prefix);
    for (const QString &group : groups)
        runQuietly(
            QStringLiteral("gpasswd"), {QStringLiteral("-d"), QStringLiteral("root"), group});
    // What the accounts left in the shared temp places would pass to the next account given
    // their uid (claude keeps /tmp/claude-<uid>). One walk for all of them: a walk of /tmp takes
    // about 0.15 s here, and a fleet suite's server leaves dozens of accounts.
    QStringList uidTests;
    for (const QString &account : accounts) {
        const struct passwd *entry = ::getpwnam(account.toLocal8Bit().constData());
        if (!entry)
            continue;
        if (!uidTests.isEmpty())
            uidTests << QStringLiteral("-o");
        uidTests << QStringLiteral("-uid") << QString::number(entry->pw_uid);
    }
    if (!uidTests.isEmpty())
        runQuietly(QStringLiteral("find"),
            QStringList {QStringLiteral("/tmp"), QStringLiteral("/var/tmp"),
                QStringLiteral("/dev/shm"), QStringLiteral("-xdev"), QStringLiteral("-depth"),
                QStringLiteral("(")}
                + uidTests + QStringList {QStringLiteral(")"), QStringLiteral("-delete")});
    for (const QString &account : accounts)
        runQuietly(
            QStringLiteral("userdel"), {QStringLiteral("-r"), QStringLiteral("-f"), account});
    const QStringList remainingGroups = namesWithPrefix(QStringLiteral("/etc/group"), prefix);
    for (const QString &group : remainingGroups)
        runQuietly(QStringLiteral("groupdel"), {group});
}

QString RealServer::pinnedVersion(const char *key)
{
    QFile file(QStringLiteral(SANDSCOPE_VERSIONS_FILE));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const QByteArray wanted = QByteArray(key) + '=';
    while (!file.atEnd()) {
        const QByteArray line = file.readLine().trimmed();
        if (line.startsWith(wanted))
            return QString::fromUtf8(line.mid(wanted.size()));
    }
    return {};
}

QStringList RealServer::pinnedVersions()
{
    return {pinnedVersion("OPEN_TERMINAL_VERSION"), pinnedVersion("OPEN_TERMINAL_LEGACY_VERSION")};
}

void addVersionRows()
{
    QTest::addColumn<QString>("version");
    for (const QString &version : RealServer::pinnedVersions())
        QTest::newRow(qPrintable(version)) << version;
}

QString RealServer::executable(const QString &version)
{
    QString cache = qEnvironmentVariable("SANDSCOPE_CACHE");
    if (cache.isEmpty())
        cache = QDir::homePath() + QLatin1String("/.cache/sandscope");
    return cache + QLatin1String("/ot-") + version + QLatin1String("/bin/open-terminal");
}

bool RealServer::canRunMultiUser(QString *why)
{
    QString reason;
    if (::geteuid() != 0)
        reason = QStringLiteral("multi-user open-terminal needs root (it creates accounts)");
    else if (QStandardPaths::findExecutable(QStringLiteral("sudo")).isEmpty())
        reason = QStringLiteral("multi-user open-terminal needs sudo, which is not installed");
    else if (QStandardPaths::findExecutable(QStringLiteral("useradd")).isEmpty())
        reason = QStringLiteral("multi-user open-terminal needs useradd, which is not installed");
    if (why)
        *why = reason;
    return reason.isEmpty();
}

ScriptedModelServer::ScriptedModelServer(QStringList extraArguments)
    : m_arguments(std::move(extraArguments))
{
}

ScriptedModelServer::~ScriptedModelServer()
{
    stop();
}

bool ScriptedModelServer::start(QString *error)
{
    if (m_process)
        return true;
    QStringList arguments {QStringLiteral(SANDSCOPE_MODEL_SERVER), QStringLiteral("--port"),
        QStringLiteral("0"), QStringLiteral("--request-log"),
        m_dir.filePath(QStringLiteral("requests.jsonl"))};
    arguments += m_arguments;

    m_process = std::make_unique<QProcess>();
    m_process->setStandardErrorFile(m_dir.filePath(QStringLiteral("stderr.log")));
    m_process->start(QStringLiteral("python3"), arguments);
    if (!m_process->waitForStarted(10000)) {
        if (error)
            *error = QStringLiteral("Cannot start python3: %1").arg(m_process->errorString());
        m_process.reset();
        return false;
    }

    QElapsedTimer elapsed;
    elapsed.start();
    QByteArray seen;
    while (elapsed.elapsed() < modelServerStartTimeoutMs) {
        if (!m_process->canReadLine() && !m_process->waitForReadyRead(500)) {
            if (m_process->state() == QProcess::NotRunning)
                break;
            continue;
        }
        while (m_process->canReadLine()) {
            const QByteArray line = m_process->readLine().trimmed();
            seen += line + '\n';
            if (line.startsWith("LISTENING ")) {
                m_port = quint16(line.mid(10).toUInt());
                if (m_port != 0)
                    return true;
            }
        }
    }
    if (error)
        *error = QStringLiteral("The scripted model server did not report LISTENING:\n%1%2")
                     .arg(QString::fromUtf8(seen), serverLog());
    stop();
    return false;
}

void ScriptedModelServer::stop()
{
    stopProcess(m_process.get(), 3000);
    m_process.reset();
}

QUrl ScriptedModelServer::url() const
{
    QUrl result;
    result.setScheme(QStringLiteral("http"));
    result.setHost(QStringLiteral("127.0.0.1"));
    result.setPort(m_port);
    return result;
}

QString ScriptedModelServer::requestLog() const
{
    return readWholeFile(m_dir.filePath(QStringLiteral("requests.jsonl")));
}

QString ScriptedModelServer::serverLog() const
{
    return readWholeFile(m_dir.filePath(QStringLiteral("stderr.log")));
}

QHash<QString, QString> ScriptedModelServer::agentEnvironment(
    const QUrl &url, const QString &apiKey)
{
    return {{QStringLiteral("ANTHROPIC_API_KEY"), apiKey},
        {QStringLiteral("ANTHROPIC_BASE_URL"), url.toString()},
        {QStringLiteral("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"), QStringLiteral("1")},
        {QStringLiteral("DISABLE_AUTOUPDATER"), QStringLiteral("1")},
        {QStringLiteral("CLAUDE_CODE_MAX_RETRIES"), QStringLiteral("2")}};
}

bool startAgentSandbox(std::unique_ptr<RealServer> *server,
    std::unique_ptr<ScriptedModelServer> *model, QString *error, const QStringList &modelArguments)
{
    if (!RealServer::canRunMultiUser()
        || QStandardPaths::findExecutable(QStringLiteral("claude")).isEmpty())
        return true;
    // The suites CTest runs once per pinned version say which (SANDSCOPE_OT_VERSION).
    const QString version = qEnvironmentVariable("SANDSCOPE_OT_VERSION");
    *server = std::make_unique<RealServer>(
        version.isEmpty() ? RealServer::pinnedVersion("OPEN_TERMINAL_VERSION") : version,
        RealServer::Mode::MultiUser);
    *model = std::make_unique<ScriptedModelServer>(modelArguments);
    if ((*server)->start(error) && (*model)->start(error))
        return true;
    model->reset();
    server->reset();
    return false;
}

void isolateLocalState(const QString &directory)
{
    qputenv("SANDSCOPE_SESSION_STORE",
        QDir(directory).filePath(QStringLiteral("sessions.json")).toUtf8());
    qputenv(
        "SANDSCOPE_AUDIT_LOG", QDir(directory).filePath(QStringLiteral("audit.jsonl")).toUtf8());
    QStandardPaths::setTestModeEnabled(true);
}

} // namespace sandscope::test
