#pragma once
// The window's cleanup on a fleet (the Cleanup page; `cleanup --fleet` is its command line):
// one dry run on every member at once through FleetCleanup, each member's items handed over in
// batches as its script reports them, and a plan per member to review. Executing is per member:
// only the shown `delete` items of that member's own dry run go to that member's runner
// (FleetCleanup::runnerFor), so a plan is never applied where it was not reviewed; the report
// and the audit entry name the member ("member NAME (URL)", as the command line does).
//
// The widget shows what this holds and says which member to execute; it decides nothing.

#include "cleanup/cleanupplan.h"
#include "cleanup/cleanuprunner.h"
#include "fleet/fleetcleanup.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QStringList>
#include <QTimer>

#include <memory>

namespace sandscope {

class FleetFanOut;

class FleetCleanupReview : public QObject {
    Q_OBJECT
public:
    // How long items are gathered before they are handed over (itemsReceived).
    static constexpr int batchIntervalMs = 50;

    explicit FleetCleanupReview(QObject *parent = nullptr);
    ~FleetCleanupReview() override;

    // Starts the dry run on every member of `fanOut` (taken over; the previous one goes, with
    // the plans it made). Refused (false) while a dry run or an execution runs.
    bool startDryRun(FleetFanOut *fanOut, const CleanupSettings &settings);
    // Stops the dry run (the members' plans made so far stay) or the execution.
    void cancel();
    bool isRunning() const;
    bool isExecuting() const { return m_runner && m_runner->isRunning(); }

    // Every member asked, in the fleet file's order; those whose dry run ended well (plans to
    // review and execute), those still working, and the errors of those that failed.
    const QStringList &members() const { return m_members; }
    QStringList plannedMembers() const;
    // The planned members with something to delete whose plan was not executed yet.
    QStringList executableMembers() const;
    QStringList waitingMembers() const;
    int membersAnswered() const { return m_answered; }
    const QStringList &memberErrors() const { return m_errors; }
    // A member's plan: its dry run's, or after an execution the items with their outcomes.
    CleanupPlan plan(const QString &member) const { return m_plans.value(member); }
    const MemberCleanupPlan *memberPlan(const QString &member) const;
    // "member NAME (URL)".
    QString memberText(const QString &member) const;

    // What executing `member` deletes: the `delete` items of its dry run whose keys are in
    // `shownKeys` (the rows of that member the view shows). Empty for a member without a plan
    // to execute (not planned, failed, or already executed).
    CleanupPlan reviewedPlan(const QString &member, const QSet<QString> &shownKeys) const;
    // Executes `reviewed` (made by reviewedPlan) on `member` alone; the audit entry names the
    // member under `auditProfile`. False when it cannot start (another run, no such plan).
    bool startExecute(
        const QString &member, const CleanupPlan &reviewed, const QString &auditProfile);
    // The member being executed, or the last one executed.
    QString executedMember() const { return m_executedMember; }
    const CleanupRunner *executionRunner() const { return m_runner.get(); }

    // Every planned member's plan as `folder`/<member>.plan.jsonl (cleanup --save-plan DIR);
    // the paths written in `saved`. False at the first that cannot be written, with `error`.
    bool savePlans(const QString &folder, QStringList *saved, QString *error) const;

Q_SIGNALS:
    // A batch of a member's items, as its script reported them (at most every batchIntervalMs).
    void itemsReceived(const QString &member, const QVector<sandscope::CleanupItem> &items);
    // A member's dry run ended well (its plan is plan(member)), or failed (`message` names it).
    void memberPlanned(const QString &member);
    void memberFailed(const QString &member, const QString &message);
    void dryRunFinished(int failedMembers);
    // The execution on `member` ended (its plan now holds the outcomes), or failed.
    void executed(const QString &member, int exitCode);
    void executionFailed(const QString &member, const QString &message);

private:
    void flushItems();

    QPointer<FleetFanOut> m_fanOut;
    std::unique_ptr<FleetCleanup> m_cleanup;
    std::unique_ptr<CleanupRunner> m_runner;
    QStringList m_members;
    QHash<QString, MemberCleanupPlan> m_planned; // the members whose dry run ended well
    QHash<QString, CleanupPlan> m_plans;
    QSet<QString> m_executed;
    QSet<QString> m_ended; // planned or failed
    QStringList m_errors;
    int m_answered = 0;
    bool m_dryRunning = false;
    QString m_executedMember;
    QStringList m_pendingOrder; // members with items waiting, in arrival order
    QHash<QString, QVector<CleanupItem>> m_pending;
    QTimer m_batchTimer;
};

} // namespace sandscope
