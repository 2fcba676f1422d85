#include "fleetcleanup.h"

#include <QDir>

namespace sandscope {

FleetCleanup::FleetCleanup(FleetFanOut *fanOut, const CleanupSettings &settings, QObject *parent)
    : QObject(parent)
    , m_fanOut(fanOut)
    , m_settings(settings)
{
    qRegisterMetaType<MemberCleanupPlan>("sandscope::MemberCleanupPlan");
}

bool FleetCleanup::isRunning() const
{
    return m_fanOut && m_fanOut->isRunning();
}

void FleetCleanup::cancel()
{
    if (m_fanOut)
        m_fanOut->cancel(); // every member's runner goes with its context
}

QString FleetCleanup::planFileName(const QString &member)
{
    return member + QStringLiteral(".plan.jsonl");
}

bool FleetCleanup::savePlan(const QString &folder, const QString &member, const CleanupPlan &plan,
    QString *path, QString *error)
{
    *path = QDir(folder).filePath(planFileName(member));
    return plan.save(*path, error);
}

QString FleetCleanup::memberText(const QString &member) const
{
    if (!m_fanOut)
        return {};
    for (const FanOutTarget &target : m_fanOut->targets()) {
        if (target.member == member)
            return FleetFanOut::memberText(target);
    }
    return {};
}

std::unique_ptr<CleanupRunner> FleetCleanup::runnerFor(const QString &member) const
{
    if (!m_fanOut)
        return nullptr;
    for (const FanOutTarget &target : m_fanOut->targets()) {
        if (target.member != member)
            continue;
        auto runner = std::make_unique<CleanupRunner>(target.client);
        runner->setSettings(m_settings);
        runner->setAdminAccess(target.admin);
        return runner;
    }
    return nullptr;
}

void FleetCleanup::startDryRun()
{
    if (!m_fanOut)
        return;
    disconnect(m_finished);
    disconnect(m_memberFinished);
    m_finished = connect(m_fanOut, &FleetFanOut::finished, this, &FleetCleanup::finished);
    m_memberFinished = connect(
        m_fanOut, &FleetFanOut::memberFinished, this, [this](const FanOutMemberResult &result) {
            if (!result.ok)
                Q_EMIT memberFailed(result.error);
        });
    const CleanupSettings settings = m_settings;
    m_fanOut->run([this, settings](
                      const FanOutTarget &target, QObject *context, const FleetFanOut::Done &done) {
        // The runner lives as long as the member's context: a member given up takes it along
        // (its script is killed).
        auto *runner = new CleanupRunner(target.client, context);
        runner->setSettings(settings);
        runner->setAdminAccess(target.admin);
        const QString member = target.member;
        connect(runner, &CleanupRunner::itemReceived, context,
            [this, member](const CleanupItem &item) { Q_EMIT itemReceived(member, item); });
        connect(runner, &CleanupRunner::finished, context, [this, runner, member, done](int code) {
            MemberCleanupPlan planned;
            planned.member = member;
            planned.plan = runner->result();
            planned.scriptRan = runner->scriptRan();
            planned.messages = runner->messages();
            planned.scriptExitCode = code;
            Q_EMIT memberPlanned(planned);
            // A dry run that did not end well is no plan to review: named as the member's error.
            if (code == 0)
                done(true, QString());
            else
                done(false, tr("its cleanup script exited with status %1").arg(code));
        });
        connect(runner, &CleanupRunner::failed, context,
            [done](const QString &message) { done(false, message); });
        runner->startDryRun();
    });
}

} // namespace sandscope
