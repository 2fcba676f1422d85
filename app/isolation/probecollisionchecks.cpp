#include "probecollisionchecks.h"

#include "probing/probecontext.h"
#include "server/shortcommand.h"
#include "util/shellquote.h"

#include <QHash>
#include <QRegularExpression>

namespace sandscope {

using probe::AccountObservation;
using probe::Judgement;

namespace {

const QString listAccounts = QStringLiteral("getent passwd | cut -d: -f1");

// Latin letters and the Cyrillic letters drawn the same.
const QHash<QChar, QChar> &cyrillicTwins()
{
    static const QHash<QChar, QChar> twins {{u'a', QChar(0x0430)}, {u'c', QChar(0x0441)},
        {u'e', QChar(0x0435)}, {u'i', QChar(0x0456)}, {u'o', QChar(0x043E)}, {u'p', QChar(0x0440)},
        {u'x', QChar(0x0445)}, {u'y', QChar(0x0443)}};
    return twins;
}

QString withTwinAt(const QString &id, bool last)
{
    for (int n = 0; n < id.size(); ++n) {
        const int i = last ? int(id.size()) - 1 - n : n;
        const auto twin = cyrillicTwins().constFind(id.at(i));
        if (twin != cyrillicTwins().constEnd()) {
            QString variant = id;
            variant[i] = *twin;
            return variant;
        }
    }
    return {};
}

QStringList accountLines(const Result<CommandOutput> &result)
{
    static const QRegularExpression name(QStringLiteral("^[A-Za-z0-9_][A-Za-z0-9_.-]*\\$?$"));
    QStringList names;
    for (const QString &line : result.ok() ? result.value.lines : QStringList()) {
        if (name.match(line.trimmed()).hasMatch())
            names << line.trimmed();
    }
    return names;
}

} // namespace

ProbeCollisionChecks::ProbeCollisionChecks(ProbeContext &probe)
    : m_probe(probe)
{
}

QStringList ProbeCollisionChecks::lookalikeIds(const QString &id)
{
    QStringList ids;
    for (const QString &variant : {withTwinAt(id, false), withTwinAt(id, true)}) {
        if (!variant.isEmpty() && !ids.contains(variant))
            ids << variant;
    }
    QString fullwidth;
    for (const QChar c : id)
        fullwidth += c.unicode() >= 0x21 && c.unicode() <= 0x7e ? QChar(c.unicode() + 0xFEE0) : c;
    ids << fullwidth;
    return ids;
}

QStringList ProbeCollisionChecks::pathIds(const QString &id)
{
    return {
        QStringLiteral("../") + id, QStringLiteral("/home/") + id, QStringLiteral("../../root")};
}

QStringList ProbeCollisionChecks::createdAccounts(
    const QStringList &before, const QStringList &after, const QStringList &observed)
{
    QStringList created;
    for (const QString &account : after) {
        if (!before.contains(account) && observed.contains(account) && !created.contains(account))
            created << account;
    }
    return created;
}

QString ProbeCollisionChecks::removalScript(const QStringList &accounts)
{
    // The server account joins each new account's group: the group goes only without members.
    // What the account left in the shared temp places goes too: the next account given its
    // uid would own it (claude keeps /tmp/claude-<uid> with project paths and session ids).
    QString script;
    for (const QString &account : accounts) {
        const QString name = shell::quote(account);
        script += QStringLiteral(
            "pkill -KILL -u %1; u=$(id -u %1 2>/dev/null) && find /tmp /var/tmp /dev/shm -xdev "
            "-depth -uid \"$u\" -delete 2>/dev/null; "
            "for m in $(getent group %1 | cut -d: -f4 | tr , ' '); do "
            "gpasswd -d \"$m\" %1 >/dev/null; done; userdel -r -f %1 2>/dev/null; "
            "groupdel %1 2>/dev/null; ")
                      .arg(name);
    }
    return script + QStringLiteral("echo sandscope-removed");
}

void ProbeCollisionChecks::check()
{
    const QStringList &users = m_probe.options.users;
    const auto owner = m_probe.users.value(users.value(0));
    const auto other = m_probe.users.value(users.value(1));
    auto variants = std::make_shared<QVector<Variant>>();
    const auto add = [&](CheckId check, const QStringList &ids, const ProbeUser *user) {
        if (!m_probe.wants(check))
            return;
        if (!user || !user->known()) {
            m_probe.addResult(check, QString(), users.value(0),
                {Verdict::Error,
                    tr("Precondition not met: the accounts of the users are unknown.")},
                {});
            return;
        }
        for (const QString &id : ids)
            *variants << Variant {check, id, user->account.account, user->id};
    };
    add(CheckId::AccountLookalike, owner ? lookalikeIds(owner->id) : QStringList(), owner.get());
    add(CheckId::AccountPath, owner ? pathIds(owner->id) : QStringList(), owner.get());
    add(CheckId::AccountName, other ? QStringList {other->account.account} : QStringList(),
        other.get());
    if (variants->isEmpty()) {
        m_probe.steps.next();
        return;
    }
    m_observed.clear();
    m_evidence.clear();
    observe(variants, 0);
}

void ProbeCollisionChecks::snapshot()
{
    m_before.clear();
    m_beforeEvidence = Evidence();
    Identity first;
    first.userId = m_probe.options.users.value(0);
    m_probe.calls.command(first, listAccounts,
        tr("setup: the accounts before the probe's ids run (in the first user's shell)"),
        [this](const Result<CommandOutput> &result, const Evidence &evidence) {
            m_before = accountLines(result);
            m_beforeEvidence = evidence;
            m_probe.steps.next();
        });
}

void ProbeCollisionChecks::observe(const std::shared_ptr<QVector<Variant>> &variants, int index)
{
    if (index == variants->size()) {
        finish(variants);
        return;
    }
    const Variant variant = variants->at(index);
    Identity identity;
    identity.userId = variant.id;
    m_probe.calls.command(identity, probe::whoAmICommand(),
        tr("the id \"%1\": which account does it run as?").arg(variant.id),
        [this, variants, index, variant](
            const Result<CommandOutput> &result, const Evidence &evidence) {
            AccountObservation observation;
            if (result.ok()) {
                observation = probe::parseWhoAmI(variant.id, result.value.lines);
            } else {
                observation.userId = variant.id;
                observation.status = result.error.httpStatus;
                observation.error
                    = result.error.detail.isEmpty() ? result.error.toString() : result.error.detail;
            }
            m_observed << observation;
            m_evidence << evidence;
            observe(variants, index + 1);
        });
}

void ProbeCollisionChecks::finish(const std::shared_ptr<QVector<Variant>> &variants)
{
    Identity first;
    first.userId = m_probe.options.users.value(0);
    m_probe.calls.command(first, listAccounts, tr("the accounts after the probe's ids ran"),
        [this, variants, first](
            const Result<CommandOutput> &listed, const Evidence &afterEvidence) {
            QStringList probed = m_probe.probedAccounts;
            for (const AccountObservation &observation : std::as_const(m_observed))
                probed << observation.account;
            // Never a chosen user's account, and nothing without a list from before.
            for (const auto &user : std::as_const(m_probe.users))
                probed.removeAll(user->account.account);
            const QStringList created = m_before.isEmpty()
                ? QStringList()
                : createdAccounts(m_before, accountLines(listed), probed);
            const auto report = [this, variants, afterEvidence](
                                    const QString &accountsNote, const QVector<Evidence> &removal) {
                bool ordinaryIdsWork = false;
                for (const auto &user : std::as_const(m_probe.users))
                    ordinaryIdsWork = ordinaryIdsWork || user->known();
                for (const CheckId check :
                    {CheckId::AccountLookalike, CheckId::AccountPath, CheckId::AccountName}) {
                    QVector<Judgement> judgements;
                    QVector<Evidence> evidence {m_beforeEvidence};
                    QStringList ids;
                    QString ownerId;
                    for (int i = 0; i < variants->size(); ++i) {
                        const Variant &variant = variants->at(i);
                        if (variant.check != check)
                            continue;
                        AccountObservation owner;
                        owner.userId = variant.ownerId;
                        owner.account = variant.owner;
                        judgements << probe::judgeAccountVariant(
                            owner, m_observed.at(i), m_probe.serverAccount, ordinaryIdsWork);
                        evidence << m_evidence.at(i);
                        ids << variant.id;
                        ownerId = variant.ownerId;
                    }
                    if (judgements.isEmpty())
                        continue;
                    Judgement judgement = probe::combine(judgements);
                    judgement.explanation += QLatin1Char(' ') + accountsNote;
                    m_probe.addResult(check, ids.join(QStringLiteral(", ")), ownerId, judgement,
                        evidence + QVector<Evidence> {afterEvidence} + removal);
                }
                m_probe.steps.next();
            };
            if (m_before.isEmpty()) {
                report(tr("The accounts before the probe could not be listed, so none is "
                          "removed."),
                    {});
                return;
            }
            if (created.isEmpty()) {
                report(tr("No account was created for the probed ids."), {});
                return;
            }
            if (!m_probe.options.hasAdmin) {
                report(tr("The accounts the server created for the probed ids stay: %1 (with the "
                          "admin channel the probe removes them).")
                           .arg(created.join(QStringLiteral(", "))),
                    {});
                return;
            }
            m_probe.calls.adminCommand(m_probe.options.admin, removalScript(created),
                tr("cleanup: root removes the accounts the server created for the probed ids"),
                [this, report, created, first](
                    const Result<CommandOutput> &, const Evidence &removed) {
                    m_probe.calls.command(first, listAccounts, tr("the accounts after the removal"),
                        [report, created, removed](
                            const Result<CommandOutput> &remaining, const Evidence &checked) {
                            const QStringList left
                                = createdAccounts({}, accountLines(remaining), created);
                            report(left.isEmpty()
                                    ? tr("The accounts the server created for the probed ids "
                                         "were removed: %1.")
                                          .arg(created.join(QStringLiteral(", ")))
                                    : tr("The accounts %1 could not be removed.")
                                          .arg(left.join(QStringLiteral(", "))),
                                {removed, checked});
                        });
                });
        });
}

} // namespace sandscope
