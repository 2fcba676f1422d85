#include "runsession.h"

#include <QDateTime>

namespace sandscope {

LiveRun::LiveRun(OpenTerminalClient *client, LiveRunRequest request, QObject *parent)
    : QObject(parent)
    , m_request(std::move(request))
    , m_launcher(client, m_request.identity)
{
    m_launcher.setEnvFileName(m_request.envFileName);
    for (auto it = m_request.environment.cbegin(); it != m_request.environment.cend(); ++it) {
        if (isSecretName(it.key()))
            m_redactor.addSecret(it.value());
    }
    m_holdTimer.setSingleShot(true);
    connect(&m_holdTimer, &QTimer::timeout, this, [this] { pump(false); });
    connect(&m_launcher, &RunLauncher::lineReceived, this, [this] { pump(false); });
    connect(&m_launcher, &RunLauncher::lineRepaired, this, [this] { pump(false); });
    connect(&m_launcher, &RunLauncher::notice, this,
        [this](const QString &message) { Q_EMIT notice(redact(message)); });
    connect(&m_launcher, &RunLauncher::started, this, [this](const RunHandle &handle) {
        m_launched = true;
        audit(QStringLiteral("run"), QStringLiteral("ok"));
        Q_EMIT started(handle);
        if (m_stopRequested)
            m_launcher.stop(m_stopGraceMs);
    });
    connect(&m_launcher, &RunLauncher::finished, this, [this](int exitCode) {
        pump(true);
        m_active = false;
        Q_EMIT finished(exitCode);
    });
    connect(&m_launcher, &RunLauncher::interrupted, this, [this](const QString &message) {
        pump(true);
        m_active = false;
        Q_EMIT interrupted(redact(message));
    });
    connect(&m_launcher, &RunLauncher::failed, this, [this](const QString &message) {
        pump(true);
        m_active = false;
        if (!m_launched)
            audit(QStringLiteral("run"), redact(message));
        Q_EMIT failed(redact(message));
    });
}

LiveRun::~LiveRun()
{
    // The run goes on in the sandbox; its tee file and session remain.
    if (m_active)
        m_launcher.detach();
}

bool LiveRun::isSecretName(const QString &name)
{
    const QString upper = name.toUpper();
    for (const char *word :
        {"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "AUTH", "CREDENTIAL"}) {
        if (upper.contains(QLatin1String(word)))
            return true;
    }
    return false;
}

bool LiveRun::parseEnvironment(
    const QString &text, QHash<QString, QString> *environment, QString *why)
{
    const QStringList lines = text.split(QLatin1Char('\n'));
    for (qsizetype index = 0; index < lines.size(); ++index) {
        QString assignment = lines.at(index).trimmed();
        if (assignment.isEmpty() || assignment.startsWith(QLatin1Char('#')))
            continue;
        if (assignment.startsWith(QLatin1String("export ")))
            assignment = assignment.mid(7).trimmed();
        const qsizetype equals = assignment.indexOf(QLatin1Char('='));
        const QString name = equals > 0 ? assignment.left(equals) : QString();
        if (!claudecommand::isValidEnvName(name)) {
            *why = tr("line %1: expected NAME=VALUE").arg(index + 1);
            return false;
        }
        QString value = assignment.mid(equals + 1);
        if (value.size() >= 2
            && ((value.startsWith(QLatin1Char('"')) && value.endsWith(QLatin1Char('"')))
                || (value.startsWith(QLatin1Char('\'')) && value.endsWith(QLatin1Char('\'')))))
            value = value.mid(1, value.size() - 2);
        environment->insert(name, value);
    }
    return true;
}

QString LiveRun::environmentText(const QHash<QString, QString> &environment)
{
    QStringList names = environment.keys();
    names.sort();
    QString text;
    for (const QString &name : std::as_const(names))
        text += name + QLatin1Char('=') + environment.value(name) + QLatin1Char('\n');
    return text;
}

void LiveRun::start()
{
    if (m_active || m_launched)
        return;
    m_active = true;
    m_launcher.launch(m_request.chatId, m_request.prompt, m_request.options, m_request.environment);
}

void LiveRun::attach(const RunHandle &handle)
{
    if (m_active || m_launched)
        return;
    m_active = true;
    m_launched = true;
    m_launcher.reattach(handle, 0);
}

void LiveRun::stop(int graceMs)
{
    audit(QStringLiteral("stop-run"), QStringLiteral("requested"));
    m_stopRequested = true;
    m_stopGraceMs = graceMs;
    if (m_launched)
        m_launcher.stop(graceMs);
}

void LiveRun::kill()
{
    audit(QStringLiteral("kill-run"), QStringLiteral("requested"));
    m_stopRequested = true;
    if (m_launched)
        m_launcher.kill();
}

void LiveRun::rememberSession(const QString &sessionId)
{
    if (sessionId.isEmpty() || sessionId == m_sessionId)
        return;
    m_sessionId = sessionId;
    SessionRecord session;
    session.chatId = m_request.chatId;
    session.sessionId = sessionId;
    session.lastActivity = QDateTime::currentDateTimeUtc();
    session.runId = m_launcher.handle().runId;
    if (m_request.options.forkSession && sessionId != m_request.options.resumeSessionId)
        session.forkedFrom = m_request.options.resumeSessionId;
    QString error;
    if (!SessionStore().record(m_request.scope, session, &error))
        Q_EMIT notice(tr("The session was not recorded: %1").arg(error));
}

void LiveRun::audit(const QString &action, const QString &result)
{
    // The target names the chat, the run once it has an id, and a resumed session.
    QString target = QStringLiteral("chat ") + m_request.chatId;
    const QString runId = m_launcher.handle().runId;
    if (!runId.isEmpty())
        target += QStringLiteral(" run ") + runId;
    if (!m_request.options.resumeSessionId.isEmpty())
        target += (m_request.options.forkSession ? QStringLiteral(" fork of ")
                                                 : QStringLiteral(" resuming "))
            + m_request.options.resumeSessionId;
    const AuditEntry entry {m_request.scope.profile, m_request.scope.server,
        m_request.identity.userId, action, target, result};
    if (!m_auditLog.append(entry))
        Q_EMIT notice(tr("The audit log %1 cannot be written.").arg(m_auditLog.path()));
}

void LiveRun::pump(bool force)
{
    const QStringList &lines = m_launcher.lines();
    while (m_nextLine <= lines.size()) {
        const QString &line = lines.at(m_nextLine - 1);
        if (!force && line.contains(QChar(0xFFFD))) {
            if (!m_heldFor.isValid())
                m_heldFor.start();
            if (m_heldFor.elapsed() < repairHoldMs) {
                m_holdTimer.start(200);
                return;
            }
        }
        m_heldFor.invalidate();
        ++m_nextLine;
        Q_EMIT lineReady(redact(line).toUtf8(), QDateTime::currentMSecsSinceEpoch());
    }
}

} // namespace sandscope
