#include "probesharedcheck.h"

#include "probing/probecontext.h"
#include "probing/probepair.h"
#include "server/shortcommand.h"
#include "util/shellquote.h"

namespace sandscope {

using probe::Precondition;
using probe::sendSpec;

namespace {

const QString statKey = QStringLiteral("sandscope-shared=");

// The section of B's script that reads `place`'s marker ("tmp", "shm").
QString sectionOf(const QString &place)
{
    return place.section(QLatin1Char('/'), -1);
}

} // namespace

ProbeSharedCheck::ProbeSharedCheck(ProbeContext &probe)
    : m_probe(probe)
{
}

QString ProbeSharedCheck::markerFile(const QString &place, const QString &token)
{
    // Named like the probe's folders, so a leftover is found (tst_probe).
    return place + QStringLiteral("/sandscope-probe-") + token + QStringLiteral("-shared");
}

void ProbeSharedCheck::checkPair(const std::shared_ptr<ProbePair> &pair)
{
    const auto target = m_probe.users.value(pair->target);
    if (!m_probe.wants(CheckId::SharedTmp) || !target) {
        m_probe.steps.next();
        return;
    }
    QString create = QStringLiteral("echo sandscope-umask=$(umask); ");
    for (const QString &place : places()) {
        const QString file = shell::quote(markerFile(place, pair->token));
        m_probe.addCleanup(ProbeCall {pair->a,
            sendSpec("DELETE", QStringLiteral("/files/delete"), {},
                {{QStringLiteral("path"), markerFile(place, pair->token)}}),
            tr("cleanup: A removes its file in %1").arg(place)});
        create += QStringLiteral("printf '%s\\n' %1 > %2 && grep -q %1 %2 && stat -c '%3%a %n' "
                                 "%2; ")
                      .arg(shell::quote(pair->markerContent), file, statKey);
    }
    m_probe.calls.command(pair->a, create,
        tr("setup: A's shell leaves a file in /tmp and /dev/shm with its default umask"),
        [this, pair, target](const Result<CommandOutput> &made, const Evidence &madeEvidence) {
            int created = 0;
            for (const QString &line : made.ok() ? made.value.lines : QStringList())
                created += line.startsWith(statKey) ? 1 : 0;
            const Precondition own = Precondition::expect(created == int(places().size()),
                tr("A could not write and read back its files in /tmp and /dev/shm"));
            QString script;
            for (const QString &place : places())
                script += probe::shellSection(sectionOf(place),
                    QStringLiteral("cat -- ") + shell::quote(markerFile(place, pair->token)));
            // What else of A's lies there for everyone to read (an agent run's files, say).
            script += probe::shellSection(QStringLiteral("others"),
                QStringLiteral("find /tmp /dev/shm -maxdepth 2 -type f -user %1 -perm -o=r ! -name "
                               "%2 2>/dev/null | head -n 20")
                    .arg(shell::quote(target->account.account),
                        shell::quote(QStringLiteral("sandscope-probe-*"))));
            m_probe.calls.command(pair->b, script,
                tr("B's shell reads A's files in /tmp and /dev/shm"),
                [this, pair, own, madeEvidence](
                    const Result<CommandOutput> &result, const Evidence &evidence) {
                    const QHash<QString, probe::ShellOutcome> sections = result.ok()
                        ? probe::parseShellSections(result.value.lines)
                        : QHash<QString, probe::ShellOutcome>();
                    QVector<probe::Judgement> judgements;
                    for (const QString &place : places())
                        judgements << probe::judgeShell(sections.value(sectionOf(place)),
                            probe::ShellAccess::Read, pair->markerContent, own);
                    probe::Judgement judgement = probe::combine(judgements);
                    const QString others
                        = sections.value(QStringLiteral("others")).output.trimmed();
                    if (!others.isEmpty())
                        judgement.explanation += QLatin1Char(' ')
                            + tr("Other files of A's there that everyone may read: %1.")
                                  .arg(QString(others).replace(
                                      QLatin1Char('\n'), QStringLiteral(", ")));
                    m_probe.addResult(CheckId::SharedTmp, pair->actor, pair->target, judgement,
                        {madeEvidence, evidence});
                    m_probe.steps.next();
                });
        });
}

} // namespace sandscope
