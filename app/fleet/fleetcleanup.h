#pragma once
// Cleanup on a fleet: one reviewed plan per member. The dry run runs the cleanup script on
// every member at once (FleetFanOut, each through its own admin command), hands over each
// item as the script reports it and each member's plan as that member finishes; a member that fails
// is named while the others' plans are shown. Executing is per member: the plan a member's dry run
// made is executed on that member only (FleetCleanup::runnerFor), so a plan is never applied where
// it was not reviewed.

#include "cleanup/cleanupplan.h"
#include "cleanup/cleanuprunner.h"
#include "fleet/fleetfanout.h"

#include <QObject>
#include <QPointer>
#include <QStringList>

#include <memory>

namespace sandscope {

// One member's dry run.
struct MemberCleanupPlan {
    QString member;
    CleanupPlan plan;
    CleanupScriptRan scriptRan;
    QStringList messages; // the script's lines that are not JSON
    int scriptExitCode = -1;
};

class FleetCleanup : public QObject {
    Q_OBJECT
public:
    // `fanOut` is not owned and outlives the cleanup.
    FleetCleanup(FleetFanOut *fanOut, const CleanupSettings &settings, QObject *parent = nullptr);

    void startDryRun();
    void cancel();
    bool isRunning() const;

    // A runner for executing a reviewed plan on `member` (with its client and admin command),
    // or null when the fleet has no such member. Owned by the caller.
    std::unique_ptr<CleanupRunner> runnerFor(const QString &member) const;

    // The name a member's plan is saved under: "<member>.plan.jsonl".
    static QString planFileName(const QString &member);
    // Saves `plan` as `folder`/planFileName(`member`); its path in `path`, or false with `error`.
    static bool savePlan(const QString &folder, const QString &member, const CleanupPlan &plan,
        QString *path, QString *error);
    // "member NAME (URL)": where a member's plan runs, as reports and audit entries name it
    // (empty when the fleet has no such member).
    QString memberText(const QString &member) const;

Q_SIGNALS:
    // An item of a member's dry run as the script reports it (the plan grows while it runs).
    void itemReceived(const QString &member, const sandscope::CleanupItem &item);
    void memberPlanned(const sandscope::MemberCleanupPlan &plan);
    void memberFailed(const QString &message);
    void finished(int failedMembers);

private:
    QPointer<FleetFanOut> m_fanOut;
    CleanupSettings m_settings;
    QMetaObject::Connection m_finished;
    QMetaObject::Connection m_memberFinished;
};

} // namespace sandscope

Q_DECLARE_METATYPE(sandscope::MemberCleanupPlan)
