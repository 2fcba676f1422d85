#include "cleanuprunner.h"

#include "security/auditlog.h"
#include "server/adminscript.h"
#include "util/shellquote.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QFile>
#include <QUuid>

namespace sandscope {

CleanupRunner::CleanupRunner(OpenTerminalClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
{
}

CleanupRunner::~CleanupRunner()
{
    if (m_script)
        m_script->abandon();
}

void CleanupRunner::setAuditContext(const QString &profile, const QString &server)
{
    m_auditProfile = profile;
    m_auditServer = server;
}

namespace {

// Lines the wrapper prints before the script runs (never JSON, so never an item).
const QLatin1String scriptMarker("SANDSCOPE_CLEANUP_SCRIPT ");
const QLatin1String missingMarker("SANDSCOPE_CLEANUP_SCRIPT_MISSING");

} // namespace

QString CleanupScriptRan::description() const
{
    const QString sum = sha256.left(12);
    if (shipped)
        return QCoreApplication::translate(
            "CleanupRunner", "the copy of cleanup.sh Sandscope %1 ships (sha256 %2)")
            .arg(QStringLiteral(SANDSCOPE_VERSION), sum);
    if (sha256 == CleanupRunner::shippedScriptSha256())
        return QCoreApplication::translate("CleanupRunner",
            "the sandbox's %1 (sha256 %2, the same as the copy Sandscope %3 ships)")
            .arg(path, sum, QStringLiteral(SANDSCOPE_VERSION));
    return QCoreApplication::translate(
        "CleanupRunner", "the sandbox's %1 (sha256 %2, not the copy Sandscope %3 ships)")
        .arg(path, sum, QStringLiteral(SANDSCOPE_VERSION));
}

QByteArray CleanupRunner::shippedScript()
{
    QFile file(QStringLiteral(":/sandscope/cleanup/cleanup.sh"));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QString CleanupRunner::shippedScriptSha256()
{
    static const QString sum = QString::fromLatin1(
        QCryptographicHash::hash(shippedScript(), QCryptographicHash::Sha256).toHex());
    return sum;
}

QString CleanupRunner::scriptMissingMessage(const QString &path)
{
    return tr("The sandbox has no cleanup script at %1 (the sandbox image installs it there; a "
              "local open-terminal has none). Sandscope ships the cleanup.sh of this version "
              "(sha256 %2): run with it (Cleanup's \"Use the copy Sandscope ships\", or "
              "sandscope cleanup --shipped-script), or install it in the sandbox as %1.")
        .arg(path, shippedScriptSha256().left(12));
}

QString CleanupRunner::command(const CleanupSettings &settings, const QString &planPath)
{
    QStringList assignments {
        QStringLiteral("CHAT_TTL_DAYS=") + shell::quote(QString::number(settings.chatTtlDays)),
        QStringLiteral("SESSION_TTL_DAYS=")
            + shell::quote(QString::number(settings.sessionTtlDays)),
        QStringLiteral("CLEANUP_FORMAT=json")};
    if (!settings.homeRoot.isEmpty())
        assignments << QStringLiteral("HOME_ROOT=") + shell::quote(settings.homeRoot);
    if (!planPath.isEmpty())
        assignments << QStringLiteral("CLEANUP_DRY_RUN=false")
                    << QStringLiteral("CLEANUP_PLAN=") + shell::quote(planPath);
    // The server account reads every home only as root: otherwise through passwordless sudo
    // (`env` carries the settings past sudo's environment reset).
    QString text = QStringLiteral("set --; [ \"$(id -u)\" = 0 ] || set -- sudo -n\n");
    QString cleanupFiles = planPath.isEmpty() ? QString() : shell::quote(planPath);
    if (settings.script == CleanupSettings::Script::Shipped) {
        // The shipped copy, byte for byte (base64), into a file only root can read, checked
        // against its SHA-256 before it runs.
        const QString sum = CleanupRunner::shippedScriptSha256();
        text += QStringLiteral("script=$(\"$@\" mktemp /tmp/sandscope-cleanup-XXXXXXXXXX.sh) "
                               "|| exit 2\n\"$@\" sh -c 'base64 -d > \"$1\"' sh \"$script\" "
                               "<<'SANDSCOPE_SCRIPT_END' || exit 2\n");
        const QByteArray encoded = CleanupRunner::shippedScript().toBase64();
        for (qsizetype at = 0; at < encoded.size(); at += 76)
            text += QString::fromLatin1(encoded.mid(at, 76)) + QLatin1Char('\n');
        text += QStringLiteral("SANDSCOPE_SCRIPT_END\n"
                               "[ \"$(\"$@\" sha256sum \"$script\" | cut -c1-64)\" = %1 ] "
                               "|| { echo 'the shipped cleanup script arrived damaged' >&2; "
                               "\"$@\" rm -f -- \"$script\"; exit 2; }\n"
                               "echo '%2shipped %1'\n")
                    .arg(sum, scriptMarker);
        cleanupFiles += QStringLiteral(" \"$script\"");
    } else {
        text += QStringLiteral("script=%1\n"
                               "\"$@\" test -f \"$script\" || { echo \"%2 $script\"; exit 127; }\n"
                               "echo \"%3sandbox $(\"$@\" sha256sum \"$script\" | cut -c1-64) "
                               "$script\"\n")
                    .arg(shell::quote(settings.scriptPath), missingMarker, scriptMarker);
    }
    text += QStringLiteral("\"$@\" env ") + assignments.join(QLatin1Char(' '))
        + QStringLiteral(" bash \"$script\"");
    if (!cleanupFiles.trimmed().isEmpty())
        text += QStringLiteral("; status=$?; \"$@\" rm -f -- ") + cleanupFiles.trimmed()
            + QStringLiteral("; exit $status");
    return text;
}

QString CleanupRunner::refusalMessage(const ApiError &error)
{
    const QString detail = error.detail.isEmpty() ? error.message : error.detail;
    if (error.kind == ApiError::Kind::BadRequest && detail.contains(QLatin1String("X-User-Id"))) {
        return tr("The server refuses requests without X-User-Id (\"%1\"): open-terminal 0.14 "
                  "and newer in multi-user mode allow no access as the server account. Set an "
                  "admin command that opens a root shell in the sandbox (the profile's Admin "
                  "command, or --admin-exec; e.g. docker compose … exec -T -u root sandbox, "
                  "kubectl exec -i POD --, or sudo -n on the sandbox host; see "
                  "sandbox/README.md).")
            .arg(detail);
    }
    if (error.kind == ApiError::Kind::AdminCommandFailed)
        return error.message;
    QString text = error.toString();
    if (!error.detail.isEmpty() && !text.contains(error.detail))
        text += QStringLiteral(": ") + error.detail;
    return text;
}

void CleanupRunner::startDryRun()
{
    m_executing = false;
    m_auditTarget.clear();
    run(command(m_settings));
}

void CleanupRunner::startExecute(const CleanupPlan &reviewedPlan)
{
    m_executing = true;
    m_result = CleanupPlan();
    m_messages.clear();
    m_running = true;
    const QVector<CleanupItem> deletions = reviewedPlan.itemsWith(CleanupItem::Action::Delete);
    m_auditTarget
        = tr(
            "%1 with a plan of %n item(s) to delete, %2 bytes (%3)", nullptr, int(deletions.size()))
              .arg(m_settings.script == CleanupSettings::Script::Shipped
                      ? tr("the shipped cleanup.sh (sha256 %1)").arg(shippedScriptSha256().left(12))
                      : m_settings.scriptPath)
              .arg(reviewedPlan.totalBytes(CleanupItem::Action::Delete))
              .arg(m_admin.describe());
    // The audit entry comes before anything reaches the sandbox: a deletion that cannot be
    // recorded does not start (the outcome follows in a second entry when the script ends).
    if (!audit(tr("starting: nothing deleted yet; the outcome follows in its own entry"))) {
        m_running = false;
        m_executing = false;
        const QString message = tr("Not executed: the audit log %1 cannot be written, and a "
                                   "cleanup is recorded there before it starts. Nothing was "
                                   "deleted.")
                                    .arg(AuditLog().path());
        // Queued: callers connect to failed() and then wait, as for any other outcome.
        QMetaObject::invokeMethod(
            this, [this, message] { Q_EMIT failed(message); }, Qt::QueuedConnection);
        return;
    }
    const QString directory = QStringLiteral("/tmp");
    const QString fileName = QStringLiteral("sandscope-cleanup-plan-")
        + QUuid::createUuid().toString(QUuid::WithoutBraces) + QStringLiteral(".jsonl");
    const QString planPath = directory + QLatin1Char('/') + fileName;
    if (m_admin.isLocalCommand()) {
        // The plan travels inside the script, byte for byte (base64), into a file only root
        // can read; noclobber refuses a file someone placed there first.
        QString script = QStringLiteral("umask 077; set -C; base64 -d > %1 <<'SANDSCOPE_PLAN_END' "
                                        "|| exit 2\n")
                             .arg(shell::quote(planPath));
        const QByteArray encoded = reviewedPlan.toBytes().toBase64();
        for (qsizetype at = 0; at < encoded.size(); at += 76)
            script += QString::fromLatin1(encoded.mid(at, 76)) + QLatin1Char('\n');
        script += QStringLiteral("SANDSCOPE_PLAN_END\nset +C\n") + command(m_settings, planPath);
        run(script);
        return;
    }
    m_upload = m_client->uploadFile(Identity {}, directory, fileName, reviewedPlan.toBytes(), this,
        [this, planPath](const Result<WriteResult> &uploaded) {
            if (!uploaded.ok()) {
                fail(refusalMessage(uploaded.error));
                return;
            }
            run(command(m_settings, planPath));
        });
}

void CleanupRunner::run(const QString &commandText)
{
    if (m_script) {
        m_script->abandon();
        m_script->deleteLater();
    }
    if (!m_executing) {
        m_result = CleanupPlan();
        m_messages.clear();
    }
    m_lines = LineAssembler();
    m_running = true;
    m_scriptRan = CleanupScriptRan();
    m_scriptMissing = false;
    m_script = new AdminScript(m_client, m_admin, this);
    connect(m_script, &AdminScript::output, this, [this](const QString &text) {
        for (const QString &line : m_lines.feed(text))
            handleLine(line);
    });
    connect(m_script, &AdminScript::finished, this, [this](int exitCode) {
        const QString rest = m_lines.flush();
        if (!rest.isEmpty())
            handleLine(rest);
        finish(exitCode);
    });
    connect(m_script, &AdminScript::failed, this,
        [this](const ApiError &error) { fail(refusalMessage(error)); });
    m_script->start(commandText);
}

void CleanupRunner::handleLine(const QString &line)
{
    if (line.trimmed().isEmpty())
        return;
    if (line.startsWith(missingMarker)) {
        m_scriptMissing = true;
        return;
    }
    if (line.startsWith(scriptMarker)) {
        // "<marker>shipped <sha256>" or "<marker>sandbox <sha256> <path>"
        const QString rest = line.mid(scriptMarker.size()).trimmed();
        m_scriptRan.known = true;
        m_scriptRan.shipped = rest.startsWith(QLatin1String("shipped "));
        m_scriptRan.sha256 = rest.section(QLatin1Char(' '), 1, 1);
        m_scriptRan.path = m_scriptRan.shipped ? QString() : rest.section(QLatin1Char(' '), 2);
        Q_EMIT scriptIdentified();
        return;
    }
    if (!line.startsWith(QLatin1Char('{'))) {
        m_messages.append(line);
        Q_EMIT messageReceived(line);
        return;
    }
    const qsizetype before = m_result.items().size();
    if (!m_result.addLine(line.toUtf8())) {
        m_messages.append(line);
        Q_EMIT messageReceived(line);
        return;
    }
    if (m_result.items().size() > before)
        Q_EMIT itemReceived(m_result.items().constLast());
}

void CleanupRunner::finish(int exitCode)
{
    if (m_scriptMissing) {
        fail(scriptMissingMessage(m_settings.scriptPath));
        return;
    }
    m_running = false;
    if (m_executing) {
        const QHash<QString, int> outcomes = m_result.outcomeCounts();
        audit(tr("exit %1: %2 deleted, %3 skipped-changed, %4 refused, %5 failed")
                  .arg(exitCode)
                  .arg(outcomes.value(QStringLiteral("deleted")))
                  .arg(outcomes.value(QStringLiteral("skipped-changed")))
                  .arg(outcomes.value(QStringLiteral("refused")))
                  .arg(outcomes.value(QStringLiteral("failed"))));
    }
    Q_EMIT finished(exitCode);
}

void CleanupRunner::fail(const QString &message)
{
    m_running = false;
    if (m_executing)
        audit(message);
    Q_EMIT failed(message);
}

void CleanupRunner::cancel()
{
    m_upload.abort();
    if (m_script && m_running)
        m_script->cancel();
}

bool CleanupRunner::audit(const QString &result)
{
    AuditLog log;
    return log.append(AuditEntry {m_auditProfile, m_auditServer, QString(),
        QStringLiteral("cleanup-execute"), m_auditTarget, result});
}

} // namespace sandscope
