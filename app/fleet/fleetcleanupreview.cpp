#include "fleetcleanupreview.h"

#include "fleet/fleetfanout.h"

#include <QDir>

#include <utility>

namespace sandscope {

FleetCleanupReview::FleetCleanupReview(QObject *parent)
    : QObject(parent)
{
    m_batchTimer.setSingleShot(true);
    m_batchTimer.setInterval(batchIntervalMs);
    connect(&m_batchTimer, &QTimer::timeout, this, &FleetCleanupReview::flushItems);
}

FleetCleanupReview::~FleetCleanupReview()
{
    // The runners' clients belong to the fan-out: they go first.
    m_runner.reset();
    m_cleanup.reset();
}

bool FleetCleanupReview::isRunning() const
{
    return m_dryRunning || isExecuting();
}

QStringList FleetCleanupReview::plannedMembers() const
{
    QStringList planned;
    for (const QString &member : m_members) {
        if (m_planned.contains(member))
            planned << member;
    }
    return planned;
}

QStringList FleetCleanupReview::executableMembers() const
{
    QStringList executable;
    for (const QString &member : plannedMembers()) {
        if (!m_executed.contains(member)
            && !m_planned.value(member).plan.itemsWith(CleanupItem::Action::Delete).isEmpty())
            executable << member;
    }
    return executable;
}

QStringList FleetCleanupReview::waitingMembers() const
{
    QStringList waiting;
    if (!m_dryRunning)
        return waiting;
    for (const QString &member : m_members) {
        if (!m_ended.contains(member))
            waiting << member;
    }
    return waiting;
}

const MemberCleanupPlan *FleetCleanupReview::memberPlan(const QString &member) const
{
    const auto found = m_planned.constFind(member);
    return found == m_planned.constEnd() ? nullptr : &found.value();
}

QString FleetCleanupReview::memberText(const QString &member) const
{
    const QString text = m_cleanup ? m_cleanup->memberText(member) : QString();
    return text.isEmpty() ? QStringLiteral("member %1").arg(member) : text;
}

bool FleetCleanupReview::startDryRun(FleetFanOut *fanOut, const CleanupSettings &settings)
{
    if (!fanOut || isRunning()) {
        delete fanOut;
        return false;
    }
    m_runner.reset();
    m_cleanup.reset();
    delete m_fanOut;
    m_fanOut = fanOut;
    fanOut->setParent(this);
    m_members = fanOut->memberNames();
    m_planned.clear();
    m_plans.clear();
    m_executed.clear();
    m_ended.clear();
    m_errors.clear();
    m_answered = 0;
    m_executedMember.clear();
    m_pending.clear();
    m_pendingOrder.clear();
    m_batchTimer.stop();
    m_cleanup = std::make_unique<FleetCleanup>(fanOut, settings);
    FleetCleanup *cleanup = m_cleanup.get();
    connect(cleanup, &FleetCleanup::itemReceived, this,
        [this](const QString &member, const CleanupItem &item) {
            QVector<CleanupItem> &pending = m_pending[member];
            if (pending.isEmpty() && !m_pendingOrder.contains(member))
                m_pendingOrder << member;
            pending.append(item);
            if (!m_batchTimer.isActive())
                m_batchTimer.start();
        });
    connect(cleanup, &FleetCleanup::memberPlanned, this, [this](const MemberCleanupPlan &planned) {
        if (planned.scriptExitCode == 0) // otherwise the member fails (memberFinished)
            m_planned.insert(planned.member, planned);
    });
    connect(fanOut, &FleetFanOut::memberFinished, this, [this](const FanOutMemberResult &result) {
        flushItems(); // its items before its end
        ++m_answered;
        m_ended.insert(result.member);
        if (result.ok && m_planned.contains(result.member)) {
            m_plans.insert(result.member, m_planned.value(result.member).plan);
            Q_EMIT memberPlanned(result.member);
            return;
        }
        // No plan to review: what it reported before it failed is not one.
        m_planned.remove(result.member);
        m_errors << result.error;
        Q_EMIT memberFailed(result.member, result.error);
    });
    connect(cleanup, &FleetCleanup::finished, this, [this](int failedMembers) {
        flushItems();
        m_dryRunning = false;
        Q_EMIT dryRunFinished(failedMembers);
    });
    m_dryRunning = true;
    cleanup->startDryRun();
    return true;
}

void FleetCleanupReview::cancel()
{
    if (isExecuting()) {
        m_runner->cancel();
        return;
    }
    if (!m_dryRunning)
        return;
    flushItems();
    m_dryRunning = false;
    m_cleanup->cancel(); // no signal follows: the plans made so far stay
}

void FleetCleanupReview::flushItems()
{
    m_batchTimer.stop();
    const QStringList order = std::exchange(m_pendingOrder, {});
    for (const QString &member : order) {
        const QVector<CleanupItem> items = m_pending.take(member);
        if (!items.isEmpty())
            Q_EMIT itemsReceived(member, items);
    }
}

CleanupPlan FleetCleanupReview::reviewedPlan(
    const QString &member, const QSet<QString> &shownKeys) const
{
    const auto planned = m_planned.constFind(member);
    if (planned == m_planned.constEnd() || m_executed.contains(member))
        return {};
    return planned->plan.filtered([&](const CleanupItem &item) {
        return item.action == CleanupItem::Action::Delete && shownKeys.contains(item.key());
    });
}

bool FleetCleanupReview::startExecute(
    const QString &member, const CleanupPlan &reviewed, const QString &auditProfile)
{
    if (isRunning() || !m_cleanup || reviewed.items().isEmpty() || !m_planned.contains(member)
        || m_executed.contains(member))
        return false;
    // Only lines of this member's own dry run, marked for deletion there, byte for byte: the
    // same path on another member is another entry (key() would take them for one).
    QSet<QByteArray> reviewable;
    for (const CleanupItem &item :
        m_planned.value(member).plan.itemsWith(CleanupItem::Action::Delete))
        reviewable.insert(item.line);
    for (const CleanupItem &item : reviewed.items()) {
        if (item.action != CleanupItem::Action::Delete || !reviewable.contains(item.line))
            return false;
    }
    m_runner = m_cleanup->runnerFor(member);
    if (!m_runner)
        return false;
    m_executedMember = member;
    m_runner->setAuditContext(auditProfile, memberText(member));
    CleanupRunner *runner = m_runner.get();
    connect(runner, &CleanupRunner::finished, this, [this, runner, member](int exitCode) {
        m_plans.insert(member, runner->result());
        m_executed.insert(member);
        Q_EMIT executed(member, exitCode);
    });
    connect(runner, &CleanupRunner::failed, this, [this, runner, member](const QString &message) {
        // Some items may be gone already: what was reported is shown, and the dry run's plan
        // is no longer one to execute.
        if (!runner->result().items().isEmpty())
            m_plans.insert(member, runner->result());
        m_executed.insert(member);
        Q_EMIT executionFailed(member, message);
    });
    runner->startExecute(reviewed);
    return true;
}

bool FleetCleanupReview::savePlans(const QString &folder, QStringList *saved, QString *error) const
{
    if (!QDir().mkpath(folder)) {
        *error = tr("cannot make the folder %1 for the plans").arg(folder);
        return false;
    }
    for (const QString &member : plannedMembers()) {
        if (m_executed.contains(member))
            continue; // its dry run's plan is spent
        QString path;
        if (!FleetCleanup::savePlan(folder, member, m_planned.value(member).plan, &path, error))
            return false;
        saved->append(path);
    }
    return true;
}

} // namespace sandscope
