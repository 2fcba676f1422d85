#pragma once
// The cleanup dry-run viewer: runs sandbox/cleanup.sh (the sandbox's, or the copy Sandscope
// ships; the status says which ran, with its checksum) as root in the sandbox with the TTLs
// given here, shows the plan as a tree user → chats/sessions with totals, filters and sorts
// it, compares it with the previous run (what-if) or with a saved plan, saves/loads/exports
// plans, and executes the reviewed plan after a typed confirmation.
//
// The reviewed plan is what the tree shows: only `delete` items that pass the current filters
// are executed, so narrowing the view narrows what is deleted.
//
// On a fleet the dry run runs on every member at once (FleetCleanupReview, over FleetCleanup):
// each row names its member (the Member column, hidden for one server), a member that fails is
// named in the page's message bar while the others' items stay, and the status says how many
// members answered. A plan is executed on one member, chosen beside the Execute button: only
// that member's shown deletions go to that member, the confirmation and the audit entry name
// it. Save Plan writes one file per member into a folder (DIR/<member>.plan.jsonl).

#include "cleanup/cleanupplan.h"
#include "cleanup/cleanuprunner.h"

#include <QSet>
#include <QTimer>
#include <QWidget>

#include <functional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTreeView;

namespace sandscope {

class CleanupModel;
class FleetCleanupReview;
class FleetFanOut;
class MessageBar;
class CleanupMarkingProxy;
class OpenTerminalClient;

class CleanupPage : public QWidget {
    Q_OBJECT
public:
    // Asks the person to type `expected` after reading `question`; returns what was typed
    // (empty when cancelled). Replaceable so tests can answer.
    using ConfirmationPrompter
        = std::function<QString(QWidget *parent, const QString &question, const QString &expected)>;

    // Data role on item rows of the view: true when the item is new since the compared plan.
    static constexpr int AddedRole = Qt::UserRole + 64;

    explicit CleanupPage(QWidget *parent = nullptr);
    ~CleanupPage() override;

    // nullptr = not connected (running is disabled).
    void setClient(OpenTerminalClient *client);
    void setAuditContext(const QString &profile, const QString &server);
    // The shown plan was made before `why` (another user or server): it stays to look at, but
    // is executed only after a new dry run.
    void requireFreshDryRun(const QString &why);
    // How the script reaches root in the sandbox (named in the status of every run).
    void setAdminAccess(const AdminAccess &admin) { m_adminAccess = admin; }
    // Where a fleet's dry run runs (ServerSession::createFanOut), made anew at each dry run.
    // Not a fleet (or no factory): the one server of setClient with setAdminAccess.
    using FanOutFactory = std::function<FleetFanOut *(QObject *parent)>;
    void setFanOutFactory(FanOutFactory factory, bool isFleet);
    bool isFleet() const { return m_fleet; }
    // A fleet's dry run and plans (null before the first dry run on a fleet).
    const FleetCleanupReview *fleetReview() const { return m_review; }
    // Names the members of a fleet that failed (the others' items are shown).
    MessageBar *messageBar() const { return m_messageBar; }
    QString statusText() const;
    void setConfirmationPrompter(const ConfirmationPrompter &prompter);
    // Empty = the script's default (/home).
    void setHomeRoot(const QString &homeRoot);

    const CleanupPlan &plan() const { return m_plan; }
    // The `delete` items that pass the current filters (one server).
    CleanupPlan reviewedPlan() const;
    // On a fleet: the `delete` items of `member`'s dry run that pass the current filters.
    CleanupPlan reviewedPlan(const QString &member) const;
    // On a fleet: the member whose plan Execute runs (the planned ones are offered).
    QString executeMember() const;
    void setExecuteMember(const QString &member);
    bool isRunning() const;

    bool savePlan(const QString &fileName, QString *error) const;
    // On a fleet: each planned member's plan as `folder`/<member>.plan.jsonl.
    bool savePlans(const QString &folder, QStringList *saved, QString *error) const;
    bool loadPlan(const QString &fileName, QString *error);
    bool exportCsv(const QString &fileName, QString *error) const;
    // Shows the difference from the plan in `before` to the one in `after`.
    bool comparePlans(const QString &beforeFile, const QString &afterFile, QString *error);

public Q_SLOTS:
    void startDryRun();
    // Asks for the typed confirmation, then executes reviewedPlan().
    void executeReviewedPlan();
    void cancel();

Q_SIGNALS:
    // A dry run or execution ended (successfully or not).
    void runFinished();

private:
    void buildUi();
    void applyFilters();
    void showPlan(const CleanupPlan &plan);
    void showDiff(const CleanupPlan &before, const CleanupPlan &after);
    void updateTotals();
    void updateButtons();
    void setStatus(const QString &text, bool error = false);
    void runnerFinished(int exitCode);
    void flushPendingItems();
    void runnerFailed(const QString &message);
    CleanupSettings settings() const;
    QString executedText(int exitCode, const CleanupPlan &result) const;
    // Asks for `expected` to be typed; false (and says so) when it was not.
    bool confirmed(const QString &question, const QString &expected);
    bool hasShownPlan() const;
    // The fleet's side.
    void startFleetDryRun();
    void executeMemberPlan(const QString &member);
    void followReview();
    void showFleetState();
    void updateMemberChoice();
    void fitMemberColumn();

    void chooseSaveFile();
    void chooseLoadFile();
    void chooseExportFile();
    void chooseCompareFiles();

    OpenTerminalClient *m_client = nullptr;
    CleanupRunner *m_runner = nullptr;
    QString m_auditProfile;
    QString m_auditServer;
    ConfirmationPrompter m_prompter;
    QString m_homeRoot;
    AdminAccess m_adminAccess;
    bool m_fleet = false;
    FanOutFactory m_fanOutFactory;
    FleetCleanupReview *m_review = nullptr;
    QString m_fleetState; // the status of the fleet's dry run

    CleanupPlan m_plan;
    QVector<CleanupItem> m_pendingItems; // streamed in, not yet in the model
    QTimer m_itemTimer;
    CleanupPlan m_previousPlan; // the last dry run before the current one
    bool m_executing = false;
    QString m_staleBecause; // why the shown plan cannot be executed before a new dry run
    bool m_cancelled = false;

    CleanupModel *m_model;
    CleanupMarkingProxy *m_proxy;
    QSpinBox *m_chatTtl;
    QSpinBox *m_sessionTtl;
    QLineEdit *m_scriptPath;
    QCheckBox *m_shippedScript;
    QPushButton *m_useShippedButton;
    QPushButton *m_runButton;
    QPushButton *m_cancelButton;
    QProgressBar *m_progress;
    QComboBox *m_kindFilter;
    QLineEdit *m_userFilter;
    QSpinBox *m_minimumKib;
    QSpinBox *m_minimumAge;
    QCheckBox *m_deleteOnly;
    QTreeView *m_tree;
    QLabel *m_totalsLabel;
    QLabel *m_diffLabel;
    QLabel *m_statusLabel;
    QPushButton *m_saveButton;
    QPushButton *m_loadButton;
    QPushButton *m_exportButton;
    QPushButton *m_compareButton;
    QPushButton *m_executeButton;
    QLabel *m_memberLabel;
    QComboBox *m_memberChoice;
    MessageBar *m_messageBar;
};

} // namespace sandscope
