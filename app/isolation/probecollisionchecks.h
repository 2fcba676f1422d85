#pragma once
// The isolation probe's account collisions: ids a hostile user would choose to land in someone
// else's account. AccountLookalike: the first id with a Cyrillic look-alike letter at its start
// and at its end, and in fullwidth letters (all look like the id on a screen); AccountPath: ids
// with path characters ("../" + the id, "/home/" + the id, "../../root"); AccountName: the
// second user's Linux account name as an id. Each id only runs `id` (whoami), and the evidence
// names the account each one maps to. FAIL when one lands in the owner's account, root, a
// system account or the server's; PASS when each is refused or gets an ordinary account of its
// own. The server creates an account for every new id: the probe lists the accounts (in the
// first user's shell) before any probed id runs (twin, case, reserved and these) and after, and
// with the admin channel removes the new ones such an id ran as (never a chosen user's);
// without it they are named in the explanation.

#include "probing/probecalls.h"
#include "probing/probejudgement.h"

#include <QCoreApplication>
#include <QStringList>

#include <memory>

namespace sandscope {

struct ProbeContext;

class ProbeCollisionChecks {
    Q_DECLARE_TR_FUNCTIONS(ProbeCollisionChecks)
public:
    explicit ProbeCollisionChecks(ProbeContext &probe);

    // Steps of ProbeSteps; each calls next(). snapshot() lists the accounts before any probed
    // id runs (after the users' own are observed), check() runs the collision ids last.
    void snapshot();
    void check();

    // Look-alikes of `id`: a Cyrillic letter in place of its first and of its last Latin letter
    // that has one, and the whole id in fullwidth forms. Empty entries are left out.
    static QStringList lookalikeIds(const QString &id);
    static QStringList pathIds(const QString &id);
    // The accounts in `after` but not in `before` that one of `observed` ran as.
    static QStringList createdAccounts(
        const QStringList &before, const QStringList &after, const QStringList &observed);
    // The admin script that removes `accounts` (processes, group memberships, home, group).
    static QString removalScript(const QStringList &accounts);

private:
    struct Variant {
        CheckId check;
        QString id;
        QString owner; // the account it must not land in
        QString ownerId;
    };
    void observe(const std::shared_ptr<QVector<Variant>> &variants, int index);
    void finish(const std::shared_ptr<QVector<Variant>> &variants);

    ProbeContext &m_probe;
    QStringList m_before; // accounts before the first probed id ran; empty: unknown
    Evidence m_beforeEvidence;
    QVector<probe::AccountObservation> m_observed;
    QVector<Evidence> m_evidence;
};

} // namespace sandscope
