#include "probeshellchecks.h"

#include "probing/probecontext.h"
#include "probing/probepair.h"
#include "server/shortcommand.h"
#include "util/shellquote.h"

namespace sandscope {

using probe::Precondition;

ProbeShellChecks::ProbeShellChecks(ProbeContext &probe)
    : m_probe(probe)
{
}

void ProbeShellChecks::check(const std::shared_ptr<ProbePair> &pair)
{
    if (!m_probe.wantsAny({CheckId::ShellRead, CheckId::ShellList, CheckId::ShellWrite,
            CheckId::ShellDelete, CheckId::ProcessShellList, CheckId::ProcessLog})) {
        m_probe.steps.next();
        return;
    }
    const QString touchName = QStringLiteral("touched-by-b-") + probe::randomToken(6);
    const auto q = [](const QString &path) {
        return shell::quote(path);
    };
    QString script;
    script += probe::shellSection(
        QStringLiteral("read-home"), QStringLiteral("cat -- ") + q(pair->markerPath));
    script += probe::shellSection(
        QStringLiteral("read-chat"), QStringLiteral("cat -- ") + q(pair->chatMarkerPath));
    script += probe::shellSection(
        QStringLiteral("list-home"), QStringLiteral("ls -a -- ") + q(pair->home));
    script += probe::shellSection(
        QStringLiteral("list-chat"), QStringLiteral("ls -a -- ") + q(pair->chatDir));
    script += probe::shellSection(QStringLiteral("write-home"),
        QStringLiteral("touch -- ") + q(pair->probeDir + QLatin1Char('/') + touchName));
    script += probe::shellSection(QStringLiteral("write-chat"),
        QStringLiteral("touch -- ") + q(pair->chatDir + QLatin1Char('/') + touchName));
    script += probe::shellSection(
        QStringLiteral("delete-home"), QStringLiteral("rm -- ") + q(pair->shellVictim));
    script += probe::shellSection(
        QStringLiteral("delete-chat"), QStringLiteral("rm -- ") + q(pair->chatShellVictim));
    script += probe::shellSection(QStringLiteral("ps"), QStringLiteral("ps -eww -o user:32,args"));
    if (!pair->logPath.isEmpty())
        script += probe::shellSection(
            QStringLiteral("log"), QStringLiteral("cat -- ") + q(pair->logPath));

    m_probe.calls.command(pair->b, script, tr("B's shell tries A's files and processes"),
        [this, pair](const Result<CommandOutput> &result, const Evidence &evidence) {
            const QHash<QString, probe::ShellOutcome> sections = result.ok()
                ? probe::parseShellSections(result.value.lines)
                : QHash<QString, probe::ShellOutcome>();
            const Precondition files = pair->read.met ? pair->victims : pair->read;
            const auto shell
                = [&](CheckId check, const char *home, const char *chat, probe::ShellAccess access,
                      const QString &homeMarker, const QString &chatMarker) {
                      m_probe.addResult(check, pair->actor, pair->target,
                          probe::combine({probe::judgeShell(sections.value(QLatin1String(home)),
                                              access, homeMarker, files),
                              probe::judgeShell(
                                  sections.value(QLatin1String(chat)), access, chatMarker, files)}),
                          {pair->ownFolder, evidence});
                  };
            shell(CheckId::ShellRead, "read-home", "read-chat", probe::ShellAccess::Read,
                pair->markerContent, pair->markerContent);
            shell(CheckId::ShellList, "list-home", "list-chat", probe::ShellAccess::Read,
                pair->probeDirName, pair->markerName);
            shell(CheckId::ShellWrite, "write-home", "write-chat", probe::ShellAccess::Modify, {},
                {});
            shell(CheckId::ShellDelete, "delete-home", "delete-chat", probe::ShellAccess::Modify,
                {}, {});
            const QVector<Evidence> processEvidence
                = pair->processEvidence + QVector<Evidence> {evidence};
            m_probe.addResult(CheckId::ProcessShellList, pair->actor, pair->target,
                probe::judgeProcessTable(
                    sections.value(QStringLiteral("ps")), pair->commandMarker, pair->process),
                processEvidence);
            const Precondition log = pair->logPath.isEmpty()
                ? Precondition::missing(tr("the server did not name a log file for A's process"))
                : pair->process;
            m_probe.addResult(CheckId::ProcessLog, pair->actor, pair->target,
                probe::judgeShell(sections.value(QStringLiteral("log")), probe::ShellAccess::Read,
                    pair->outputMarker, log),
                processEvidence);
            m_probe.steps.next();
        });
}

} // namespace sandscope
