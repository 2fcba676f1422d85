#include "cleanuppage.h"

#include "cleanup/cleanupmodel.h"
#include "fleet/fleetcleanupreview.h"
#include "fleet/fleetfanout.h"
#include "messagebar.h"
#include "server/openterminalclient.h"
#include "util/format.h"

#include <QCheckBox>
#include <QColor>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QSpinBox>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace sandscope {

// The filter proxy that also marks the items that are new since the compared plan.
class CleanupMarkingProxy : public CleanupFilterProxy {
public:
    using CleanupFilterProxy::CleanupFilterProxy;

    void setAddedKeys(const QSet<QString> &keys) { m_added = keys; }

    QVariant data(const QModelIndex &index, int role) const override
    {
        if (role == CleanupPage::AddedRole || role == Qt::BackgroundRole
            || (role == Qt::ToolTipRole && index.column() == 0)) {
            const auto *model = static_cast<const CleanupModel *>(sourceModel());
            const CleanupItem *item = model->itemAt(mapToSource(index));
            const bool added = item && m_added.contains(item->key());
            if (role == CleanupPage::AddedRole)
                return added;
            if (added && role == Qt::BackgroundRole)
                return QColor(255, 236, 179);
            if (added)
                return CleanupPage::tr("New since the compared plan: %1").arg(item->path);
        }
        return CleanupFilterProxy::data(index, role);
    }

private:
    QSet<QString> m_added;
};

namespace {

QString itemCountText(qsizetype count)
{
    return CleanupPage::tr("%n item(s)", nullptr, int(count));
}

QString defaultPrompt(QWidget *parent, const QString &question, const QString &)
{
    bool ok = false;
    const QString text = QInputDialog::getText(
        parent, CleanupPage::tr("Confirm Deletion"), question, QLineEdit::Normal, QString(), &ok);
    return ok ? text : QString();
}

bool writeFile(const QString &fileName, const QByteArray &bytes, QString *error)
{
    QSaveFile file(fileName);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        if (error)
            *error = file.errorString();
        return false;
    }
    return true;
}

} // namespace

CleanupPage::CleanupPage(QWidget *parent)
    : QWidget(parent)
    , m_prompter(defaultPrompt)
    , m_model(new CleanupModel(this))
    , m_proxy(new CleanupMarkingProxy(this))
{
    setObjectName(QStringLiteral("cleanupPage"));
    m_itemTimer.setSingleShot(true);
    m_itemTimer.setInterval(50);
    connect(&m_itemTimer, &QTimer::timeout, this, &CleanupPage::flushPendingItems);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(CleanupModel::SortRole);
    buildUi();
    updateTotals();
    updateButtons();
}

CleanupPage::~CleanupPage() = default;

void CleanupPage::buildUi()
{
    auto *layout = new QVBoxLayout(this);

    // What to run.
    auto *runRow = new QHBoxLayout;
    m_chatTtl = new QSpinBox(this);
    m_chatTtl->setObjectName(QStringLiteral("chatTtl"));
    m_sessionTtl = new QSpinBox(this);
    m_sessionTtl->setObjectName(QStringLiteral("sessionTtl"));
    const CleanupSettings defaults;
    for (QSpinBox *box : {m_chatTtl, m_sessionTtl}) {
        box->setRange(0, 36500);
        box->setSuffix(tr(" days"));
    }
    m_chatTtl->setValue(defaults.chatTtlDays);
    m_sessionTtl->setValue(defaults.sessionTtlDays);
    m_scriptPath = new QLineEdit(defaults.scriptPath, this);
    m_scriptPath->setObjectName(QStringLiteral("scriptPath"));
    m_scriptPath->setToolTip(tr("The sandbox's cleanup script (the sandbox image installs it)"));
    m_shippedScript = new QCheckBox(tr("Use the copy Sandscope &ships"), this);
    m_shippedScript->setObjectName(QStringLiteral("shippedScript"));
    m_shippedScript->setToolTip(
        tr("Run the cleanup.sh of this Sandscope (sha256 %1) instead of the sandbox's; for a "
           "sandbox without one, such as a local open-terminal")
            .arg(CleanupRunner::shippedScriptSha256().left(12)));
    // run-local.sh asks for it: a local open-terminal has no /opt/cleanup.sh.
    m_shippedScript->setChecked(
        qEnvironmentVariable("SANDSCOPE_CLEANUP_SCRIPT") == QLatin1String("shipped"));
    m_scriptPath->setEnabled(!m_shippedScript->isChecked());
    connect(m_shippedScript, &QCheckBox::toggled, m_scriptPath,
        [this](bool shipped) { m_scriptPath->setEnabled(!shipped); });
    m_runButton = new QPushButton(tr("&Dry Run"), this);
    m_runButton->setObjectName(QStringLiteral("dryRunButton"));
    m_runButton->setToolTip(tr("List what would be deleted; nothing is changed"));
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    m_cancelButton->setObjectName(QStringLiteral("cancelButton"));
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("progress"));
    m_progress->setRange(0, 0);
    m_progress->setMaximumWidth(120);
    m_progress->setVisible(false);
    // Two rows, so that the page fits the window's default width.
    runRow->addWidget(new QLabel(tr("Chat TTL:"), this));
    runRow->addWidget(m_chatTtl);
    runRow->addWidget(new QLabel(tr("Session TTL:"), this));
    runRow->addWidget(m_sessionTtl);
    runRow->addStretch(1);
    runRow->addWidget(m_runButton);
    runRow->addWidget(m_progress);
    runRow->addWidget(m_cancelButton);
    layout->addLayout(runRow);
    auto *scriptRow = new QHBoxLayout;
    scriptRow->addWidget(new QLabel(tr("Script:"), this));
    scriptRow->addWidget(m_scriptPath, 1);
    scriptRow->addWidget(m_shippedScript);
    layout->addLayout(scriptRow);

    // How to narrow the view (and so the reviewed plan).
    auto *filterRow = new QHBoxLayout;
    m_kindFilter = new QComboBox(this);
    m_kindFilter->setObjectName(QStringLiteral("kindFilter"));
    m_kindFilter->addItem(tr("All kinds"), -1);
    m_kindFilter->addItem(tr("Chats"), int(CleanupItem::Kind::Chat));
    m_kindFilter->addItem(tr("Sessions"), int(CleanupItem::Kind::Session));
    m_kindFilter->addItem(tr("Other"), int(CleanupItem::Kind::Other));
    m_userFilter = new QLineEdit(this);
    m_userFilter->setObjectName(QStringLiteral("userFilter"));
    m_userFilter->setPlaceholderText(tr("User…"));
    m_userFilter->setClearButtonEnabled(true);
    m_minimumKib = new QSpinBox(this);
    m_minimumKib->setObjectName(QStringLiteral("minimumSize"));
    m_minimumKib->setRange(0, 100 * 1024 * 1024);
    m_minimumKib->setSuffix(tr(" KiB"));
    m_minimumKib->setPrefix(tr("≥ "));
    m_minimumAge = new QSpinBox(this);
    m_minimumAge->setObjectName(QStringLiteral("minimumAge"));
    m_minimumAge->setRange(0, 36500);
    m_minimumAge->setSuffix(tr(" days"));
    m_minimumAge->setPrefix(tr("≥ "));
    m_deleteOnly = new QCheckBox(tr("Only deletions"), this);
    m_deleteOnly->setObjectName(QStringLiteral("deleteOnly"));
    filterRow->addWidget(new QLabel(tr("Show:"), this));
    filterRow->addWidget(m_kindFilter);
    filterRow->addWidget(m_userFilter, 1);
    filterRow->addWidget(new QLabel(tr("Size:"), this));
    filterRow->addWidget(m_minimumKib);
    filterRow->addWidget(new QLabel(tr("Age:"), this));
    filterRow->addWidget(m_minimumAge);
    filterRow->addWidget(m_deleteOnly);
    layout->addLayout(filterRow);

    m_diffLabel = new QLabel(this);
    m_diffLabel->setObjectName(QStringLiteral("diffLabel"));
    m_diffLabel->setWordWrap(true);
    m_diffLabel->setVisible(false);
    layout->addWidget(m_diffLabel);

    m_tree = new QTreeView(this);
    m_tree->setObjectName(QStringLiteral("planTree"));
    m_tree->setModel(m_proxy);
    // Users are shown expanded (their items are leaves). Those that come while a dry run streams
    // in are expanded as they come: expanding every row again at each batch took 90 ms of a
    // 50 ms batch with 3,000 users (bench_fleetscale), this a few.
    connect(m_proxy, &QAbstractItemModel::rowsInserted, m_tree,
        [this](const QModelIndex &parent, int first, int last) {
            if (parent.isValid())
                return;
            for (int row = first; row <= last; ++row)
                m_tree->expand(m_proxy->index(row, 0));
        });
    m_tree->setSortingEnabled(true);
    m_tree->sortByColumn(CleanupModel::SizeColumn, Qt::DescendingOrder);
    m_tree->setAlternatingRowColors(true);
    m_tree->setUniformRowHeights(true);
    m_tree->header()->setSectionResizeMode(CleanupModel::NameColumn, QHeaderView::Interactive);
    m_tree->header()->resizeSection(CleanupModel::NameColumn, 380);
    // Room for what the cells hold: the reason gets the rest, the outcome (empty until a plan
    // is executed) only what its word needs.
    const QFontMetrics metrics = m_tree->fontMetrics();
    const auto fit = [&](int column, const QString &sample) {
        m_tree->header()->resizeSection(column, metrics.horizontalAdvance(sample) + 24);
    };
    fit(CleanupModel::KindColumn, QStringLiteral("session"));
    fit(CleanupModel::ActionColumn, QStringLiteral("delete"));
    fit(CleanupModel::SizeColumn, QStringLiteral("999.9 MiB"));
    fit(CleanupModel::AgeColumn, QStringLiteral("9999 days"));
    fit(CleanupModel::LastActivityColumn, QStringLiteral("2026-12-31T23:59:59Z"));
    fit(CleanupModel::ReasonColumn,
        QStringLiteral("older than 30 days (chat TTL), no newer files"));
    fit(CleanupModel::OutcomeColumn, QStringLiteral("skipped-changed"));
    // A fleet's Member column: beside the user and path, shown only on a fleet.
    m_tree->header()->moveSection(m_tree->header()->visualIndex(CleanupModel::MemberColumn),
        m_tree->header()->visualIndex(CleanupModel::NameColumn) + 1);
    fit(CleanupModel::MemberColumn, tr("Member"));
    m_tree->setColumnHidden(CleanupModel::MemberColumn, true);
    m_tree->header()->setStretchLastSection(false);
    m_messageBar = new MessageBar(this);
    m_messageBar->setObjectName(QStringLiteral("messageBar"));
    layout->addWidget(m_messageBar);
    layout->addWidget(m_tree, 1);

    m_totalsLabel = new QLabel(this);
    m_totalsLabel->setObjectName(QStringLiteral("totalsLabel"));
    m_statusLabel = new QLabel(this);
    m_statusLabel->setObjectName(QStringLiteral("statusLabel"));
    m_statusLabel->setWordWrap(true);
    m_statusLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_useShippedButton = new QPushButton(tr("Dry Run with the Copy Sandscope S&hips"), this);
    m_useShippedButton->setObjectName(QStringLiteral("useShippedScriptButton"));
    m_useShippedButton->setVisible(false);
    connect(m_useShippedButton, &QPushButton::clicked, this, [this] {
        m_shippedScript->setChecked(true);
        startDryRun();
    });
    // Under the status (a wrapped label keeps its height for its width only in the page's own
    // column), left-aligned.
    auto *offerRow = new QHBoxLayout;
    offerRow->addWidget(m_useShippedButton);
    offerRow->addStretch(1);
    layout->addWidget(m_totalsLabel);
    layout->addWidget(m_statusLabel);
    layout->addLayout(offerRow);

    auto *actionRow = new QHBoxLayout;
    m_saveButton = new QPushButton(tr("&Save Plan…"), this);
    m_saveButton->setObjectName(QStringLiteral("saveButton"));
    m_loadButton = new QPushButton(tr("&Load Plan…"), this);
    m_loadButton->setObjectName(QStringLiteral("loadButton"));
    m_exportButton = new QPushButton(tr("Export &CSV…"), this);
    m_exportButton->setObjectName(QStringLiteral("exportButton"));
    m_compareButton = new QPushButton(tr("Co&mpare Plans…"), this);
    m_compareButton->setObjectName(QStringLiteral("compareButton"));
    m_executeButton = new QPushButton(tr("&Execute Shown Deletions…"), this);
    m_executeButton->setObjectName(QStringLiteral("executeButton"));
    m_executeButton->setToolTip(tr("Deletes the shown items marked delete that are unchanged "
                                   "since the plan was made, after a typed confirmation"));
    m_memberLabel = new QLabel(tr("On member:"), this);
    m_memberChoice = new QComboBox(this);
    m_memberChoice->setObjectName(QStringLiteral("executeMember"));
    m_memberChoice->setToolTip(tr("Each member's plan is executed on that member alone"));
    m_memberChoice->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_memberLabel->setBuddy(m_memberChoice);
    m_memberLabel->setVisible(false);
    m_memberChoice->setVisible(false);
    actionRow->addWidget(m_saveButton);
    actionRow->addWidget(m_loadButton);
    actionRow->addWidget(m_exportButton);
    actionRow->addWidget(m_compareButton);
    actionRow->addStretch(1);
    actionRow->addWidget(m_memberLabel);
    actionRow->addWidget(m_memberChoice);
    actionRow->addWidget(m_executeButton);
    layout->addLayout(actionRow);

    connect(m_runButton, &QPushButton::clicked, this, &CleanupPage::startDryRun);
    connect(m_cancelButton, &QPushButton::clicked, this, &CleanupPage::cancel);
    connect(m_executeButton, &QPushButton::clicked, this, &CleanupPage::executeReviewedPlan);
    connect(m_saveButton, &QPushButton::clicked, this, &CleanupPage::chooseSaveFile);
    connect(m_loadButton, &QPushButton::clicked, this, &CleanupPage::chooseLoadFile);
    connect(m_exportButton, &QPushButton::clicked, this, &CleanupPage::chooseExportFile);
    connect(m_compareButton, &QPushButton::clicked, this, &CleanupPage::chooseCompareFiles);
    connect(m_kindFilter, QOverload<int>::of(&QComboBox::currentIndexChanged), this,
        &CleanupPage::applyFilters);
    connect(m_userFilter, &QLineEdit::textChanged, this, &CleanupPage::applyFilters);
    connect(m_minimumKib, QOverload<int>::of(&QSpinBox::valueChanged), this,
        &CleanupPage::applyFilters);
    connect(m_minimumAge, QOverload<int>::of(&QSpinBox::valueChanged), this,
        &CleanupPage::applyFilters);
    connect(m_deleteOnly, &QCheckBox::toggled, this, &CleanupPage::applyFilters);
}

void CleanupPage::setClient(OpenTerminalClient *client)
{
    if (client != m_client && isRunning())
        cancel();
    m_client = client;
    updateButtons();
}

void CleanupPage::setAuditContext(const QString &profile, const QString &server)
{
    m_auditProfile = profile;
    m_auditServer = server;
}

void CleanupPage::setConfirmationPrompter(const ConfirmationPrompter &prompter)
{
    m_prompter = prompter ? prompter : ConfirmationPrompter(defaultPrompt);
}

void CleanupPage::requireFreshDryRun(const QString &why)
{
    if (!hasShownPlan() || isRunning())
        return;
    m_staleBecause = why;
    setStatus(
        tr("The plan shown was made before %1: run the dry run again to execute a plan.").arg(why));
    updateButtons();
}

void CleanupPage::setHomeRoot(const QString &homeRoot)
{
    m_homeRoot = homeRoot;
}

bool CleanupPage::isRunning() const
{
    return (m_runner && m_runner->isRunning()) || (m_review && m_review->isRunning());
}

bool CleanupPage::hasShownPlan() const
{
    return !m_plan.isEmpty() || m_model->userCount() > 0;
}

QString CleanupPage::statusText() const
{
    return m_statusLabel->text();
}

CleanupSettings CleanupPage::settings() const
{
    CleanupSettings result;
    result.chatTtlDays = m_chatTtl->value();
    result.sessionTtlDays = m_sessionTtl->value();
    result.scriptPath = m_scriptPath->text().trimmed();
    if (m_shippedScript->isChecked())
        result.script = CleanupSettings::Script::Shipped;
    result.homeRoot = m_homeRoot;
    return result;
}

void CleanupPage::applyFilters()
{
    CleanupFilterProxy::Filters filters;
    const int kind = m_kindFilter->currentData().toInt();
    if (kind >= 0)
        filters.kinds << CleanupItem::Kind(kind);
    filters.user = m_userFilter->text().trimmed();
    filters.minimumBytes = qint64(m_minimumKib->value()) * 1024;
    filters.minimumAgeDays = m_minimumAge->value();
    filters.deleteOnly = m_deleteOnly->isChecked();
    if (filters == m_proxy->filters())
        return;
    m_proxy->setFilters(filters);
    m_tree->expandToDepth(0); // users; their items are leaves
    updateTotals();
    updateButtons();
}

CleanupPlan CleanupPage::reviewedPlan() const
{
    QSet<QString> shown;
    for (int userRow = 0; userRow < m_proxy->rowCount(); ++userRow) {
        const QModelIndex user = m_proxy->index(userRow, 0);
        for (int row = 0; row < m_proxy->rowCount(user); ++row) {
            if (const CleanupItem *item
                = m_model->itemAt(m_proxy->mapToSource(m_proxy->index(row, 0, user))))
                shown.insert(item->key());
        }
    }
    return m_plan.filtered([&](const CleanupItem &item) {
        return item.action == CleanupItem::Action::Delete && shown.contains(item.key());
    });
}

void CleanupPage::updateTotals()
{
    qsizetype shownItems = 0;
    qint64 shownBytes = 0;
    qsizetype deleteItems = 0;
    qint64 deleteBytes = 0;
    int users = 0;
    for (int userRow = 0; userRow < m_proxy->rowCount(); ++userRow) {
        const QModelIndex user = m_proxy->index(userRow, 0);
        const int rows = m_proxy->rowCount(user);
        if (rows > 0)
            ++users;
        for (int row = 0; row < rows; ++row) {
            const CleanupItem *item
                = m_model->itemAt(m_proxy->mapToSource(m_proxy->index(row, 0, user)));
            if (!item)
                continue;
            ++shownItems;
            shownBytes += item->bytes;
            if (item->action == CleanupItem::Action::Delete) {
                ++deleteItems;
                deleteBytes += item->bytes;
            }
        }
    }
    m_totalsLabel->setText(
        tr("Shown: %1 of %2 (%3) · to delete: %4 (%5) · whole plan: %6, %7 to delete")
            .arg(itemCountText(shownItems), tr("%n user(s)", nullptr, int(users)),
                format::byteSize(shownBytes), itemCountText(deleteItems),
                format::byteSize(deleteBytes), itemCountText(m_model->itemCount()),
                format::byteSize(m_model->deleteBytes())));
}

void CleanupPage::updateButtons()
{
    const bool running = isRunning();
    const bool hasPlan = !m_plan.isEmpty();
    // Only a plan made by a dry run (or loaded from one) is a plan to execute.
    // On a fleet: a member's plan made by this page's dry run (its own member's).
    const bool executable = m_fleet
        ? !m_executing && m_memberChoice->count() > 0
        : hasPlan && !m_executing && m_plan.summary().mode != QLatin1String("execute")
            && std::any_of(m_plan.items().cbegin(), m_plan.items().cend(),
                [](const CleanupItem &item) { return item.action == CleanupItem::Action::Delete; });
    const bool fleetPlans = m_fleet && m_review && !m_review->plannedMembers().isEmpty();
    m_runButton->setEnabled(m_client && !running);
    m_cancelButton->setEnabled(running);
    m_progress->setVisible(running);
    m_saveButton->setEnabled((m_fleet ? fleetPlans : hasPlan) && !running);
    m_exportButton->setEnabled(hasPlan && !running);
    m_loadButton->setEnabled(!running);
    m_compareButton->setEnabled(!running);
    m_executeButton->setEnabled(m_client && !running && executable && m_staleBecause.isEmpty());
    m_memberChoice->setEnabled(!running);
    m_executeButton->setToolTip(m_staleBecause.isEmpty()
            ? QString()
            : tr("Made before %1: run the dry run again").arg(m_staleBecause));
}

void CleanupPage::setStatus(const QString &text, bool error)
{
    m_statusLabel->setText(text);
    m_statusLabel->setStyleSheet(error ? QStringLiteral("color: #b00020;") : QString());
}

void CleanupPage::showPlan(const CleanupPlan &plan)
{
    m_model->setPlan(plan);
    m_tree->expandToDepth(0);
    updateTotals();
    updateButtons();
}

void CleanupPage::showDiff(const CleanupPlan &before, const CleanupPlan &after)
{
    const CleanupPlanDiff diff = CleanupPlanDiff::between(before, after);
    QSet<QString> added;
    for (const CleanupItem &item : diff.added)
        added.insert(item.key());
    m_proxy->setAddedKeys(added);
    if (diff.isEmpty()) {
        m_diffLabel->setText(tr("Compared with the previous plan: the same items are deleted."));
    } else {
        QStringList removedPaths;
        for (const CleanupItem &item : diff.removed)
            removedPaths << item.path;
        m_diffLabel->setText(
            tr("Compared with the previous plan: +%1 (+%2) to delete (marked), "
               "−%3 (−%4) no longer deleted.")
                .arg(itemCountText(diff.added.size()), format::byteSize(diff.addedBytes),
                    itemCountText(diff.removed.size()), format::byteSize(diff.removedBytes)));
        m_diffLabel->setToolTip(removedPaths.isEmpty()
                ? QString()
                : tr("No longer deleted:\n%1").arg(removedPaths.join(QLatin1Char('\n'))));
    }
    m_diffLabel->setVisible(true);
}

void CleanupPage::setFanOutFactory(FanOutFactory factory, bool isFleet)
{
    m_fanOutFactory = std::move(factory);
    const bool fleet = isFleet && m_fanOutFactory;
    if (fleet == m_fleet)
        return;
    if (isRunning())
        cancel();
    if (m_review) { // the plans of another fleet (or of this one before)
        m_review->deleteLater();
        m_review = nullptr;
    }
    m_fleet = fleet;
    // What was shown was the other kind's: one server's plan, or the members'.
    m_plan = CleanupPlan();
    m_previousPlan = CleanupPlan();
    m_model->clear();
    m_proxy->setAddedKeys({});
    m_diffLabel->setVisible(false);
    m_messageBar->dismiss();
    m_memberChoice->clear();
    m_tree->setColumnHidden(CleanupModel::MemberColumn, !fleet);
    updateMemberChoice();
    m_saveButton->setText(fleet ? tr("&Save Plans…") : tr("&Save Plan…"));
    m_saveButton->setToolTip(
        fleet ? tr("Saves each member's plan as <member>.plan.jsonl in a folder") : QString());
    m_executeButton->setText(
        fleet ? tr("&Execute Member's Shown Deletions…") : tr("&Execute Shown Deletions…"));
    setStatus(QString());
    updateTotals();
    updateButtons();
}

void CleanupPage::startDryRun()
{
    if (!m_client || isRunning())
        return;
    if (m_fleet) {
        startFleetDryRun();
        return;
    }
    if (m_runner)
        m_runner->deleteLater();
    m_runner = new CleanupRunner(m_client, this);
    m_runner->setSettings(settings());
    m_runner->setAdminAccess(m_adminAccess);
    m_useShippedButton->setVisible(false);
    m_executing = false;
    m_cancelled = false;
    m_pendingItems.clear();
    m_staleBecause.clear();
    m_model->clear();
    connect(m_runner, &CleanupRunner::itemReceived, this, [this](const CleanupItem &item) {
        // Items come by the thousand: the view gets them in batches.
        m_pendingItems.append(item);
        if (!m_itemTimer.isActive())
            m_itemTimer.start();
    });
    connect(m_runner, &CleanupRunner::finished, this, &CleanupPage::runnerFinished);
    connect(m_runner, &CleanupRunner::failed, this, &CleanupPage::runnerFailed);
    m_runner->startDryRun();
    setStatus(tr("Dry run %1…").arg(m_adminAccess.describe()));
    updateButtons();
}

void CleanupPage::executeReviewedPlan()
{
    if (!m_client || isRunning())
        return;
    if (m_fleet) {
        executeMemberPlan(executeMember());
        return;
    }
    const CleanupPlan reviewed = reviewedPlan();
    const qsizetype count = reviewed.items().size();
    if (count == 0) {
        setStatus(tr("No shown item is marked for deletion; nothing to execute."), true);
        return;
    }
    const QString bytes = format::byteSize(reviewed.totalBytes(CleanupItem::Action::Delete));
    const QString expected = QStringLiteral("delete ") + itemCountText(count);
    const QString question
        = tr("This permanently deletes %1 (%2) on the server, as shown in the tree. Items "
             "changed since the plan was made are skipped.\n\nType \"%3\" to confirm:")
              .arg(itemCountText(count), bytes, expected);
    if (!confirmed(question, expected))
        return;
    if (m_runner)
        m_runner->deleteLater();
    m_runner = new CleanupRunner(m_client, this);
    m_runner->setSettings(settings());
    m_runner->setAdminAccess(m_adminAccess);
    m_runner->setAuditContext(m_auditProfile, m_auditServer);
    m_executing = true;
    m_cancelled = false;
    m_proxy->setAddedKeys({});
    m_diffLabel->setVisible(false);
    connect(m_runner, &CleanupRunner::finished, this, &CleanupPage::runnerFinished);
    connect(m_runner, &CleanupRunner::failed, this, &CleanupPage::runnerFailed);
    m_runner->startExecute(reviewed);
    setStatus(tr("Executing the reviewed plan (%1, %2) %3…")
                  .arg(itemCountText(count), bytes, m_adminAccess.describe()));
    updateButtons();
}

void CleanupPage::cancel()
{
    if (!isRunning())
        return;
    m_cancelled = true;
    if (m_review && m_review->isRunning()) {
        const bool executing = m_review->isExecuting();
        m_review->cancel();
        if (!executing) { // no signal follows a cancelled dry run
            m_fleetState = tr("Dry run cancelled; the plans of the members that answered are "
                              "shown.");
            showFleetState();
            updateMemberChoice();
            updateButtons();
            Q_EMIT runFinished();
        }
        return;
    }
    m_runner->cancel();
}

void CleanupPage::flushPendingItems()
{
    m_itemTimer.stop();
    if (m_pendingItems.isEmpty())
        return;
    m_model->addItems(m_pendingItems); // new users come expanded (buildUi)
    m_pendingItems.clear();
    setStatus(tr("Dry run… %1 found").arg(itemCountText(m_model->itemCount())));
}

void CleanupPage::runnerFinished(int exitCode)
{
    flushPendingItems();
    const CleanupPlan result = m_runner->result();
    const QString messages = m_runner->messages().join(QLatin1Char('\n'));
    if (m_executing) {
        m_executing = false;
        m_plan = result;
        showPlan(result);
        setStatus(executedText(exitCode, result)
                + (messages.isEmpty() ? QString() : QLatin1Char('\n') + messages),
            result.outcomeCounts().value(QStringLiteral("failed")) > 0);
    } else if (m_cancelled || exitCode != 0) {
        showPlan(m_plan);
        setStatus(m_cancelled
                ? tr("Dry run cancelled; the previous plan is shown.")
                : tr("The cleanup script failed (exit %1). %2").arg(exitCode).arg(messages),
            !m_cancelled);
    } else {
        const bool compare = !m_plan.isEmpty() && m_plan.summary().mode != QLatin1String("execute");
        if (compare) {
            m_previousPlan = m_plan;
            showDiff(m_previousPlan, result);
        } else {
            m_proxy->setAddedKeys({});
            m_diffLabel->setVisible(false);
        }
        m_plan = result;
        if (m_model->itemCount() != result.items().size())
            showPlan(result); // the streamed rows are the plan: no reset when they match
        updateTotals();
        setStatus(tr("Dry run done: %1 (chat TTL %2, session TTL %3). Script: %4.")
                      .arg(itemCountText(result.items().size()),
                          tr("%n day(s)", nullptr, int(result.summary().chatTtlDays)),
                          tr("%n day(s)", nullptr, int(result.summary().sessionTtlDays)),
                          m_runner->scriptRan().description()));
    }
    updateButtons();
    Q_EMIT runFinished();
}

bool CleanupPage::confirmed(const QString &question, const QString &expected)
{
    const QString typed = m_prompter(this, question, expected).trimmed();
    if (typed == expected)
        return true;
    setStatus(typed.isEmpty()
            ? tr("Execution cancelled; nothing was deleted.")
            : tr("The confirmation did not match \"%1\"; nothing was deleted.").arg(expected),
        true);
    return false;
}

QString CleanupPage::executedText(int exitCode, const CleanupPlan &result) const
{
    const QHash<QString, int> outcomes = result.outcomeCounts();
    return tr("Executed (exit %1): %2 deleted, %3 skipped because changed, %4 refused, %5 failed.")
        .arg(exitCode)
        .arg(outcomes.value(QStringLiteral("deleted")))
        .arg(outcomes.value(QStringLiteral("skipped-changed")))
        .arg(outcomes.value(QStringLiteral("refused")))
        .arg(outcomes.value(QStringLiteral("failed")));
}

void CleanupPage::runnerFailed(const QString &message)
{
    flushPendingItems();
    const bool executing = m_executing;
    m_executing = false;
    if (executing && !m_runner->result().items().isEmpty()) {
        // Some items may already be gone: show what was reported.
        m_plan = m_runner->result();
    }
    showPlan(m_plan);
    setStatus(m_cancelled
            ? tr("Cancelled: %1").arg(message)
            : (executing ? tr("Execution failed: %1") : tr("Dry run failed: %1")).arg(message),
        true);
    // The sandbox has no script: offer ours, one click away.
    m_useShippedButton->setVisible(!m_cancelled && m_runner->scriptMissing());
    updateButtons();
    Q_EMIT runFinished();
}

// ---- a fleet: a plan per member -------------------------------------------------------

void CleanupPage::startFleetDryRun()
{
    if (!m_review) {
        m_review = new FleetCleanupReview(this);
        followReview();
    }
    m_useShippedButton->setVisible(false);
    m_executing = false;
    m_cancelled = false;
    m_staleBecause.clear();
    m_plan = CleanupPlan();
    m_proxy->setAddedKeys({});
    m_diffLabel->setVisible(false);
    m_messageBar->dismiss();
    m_model->clear();
    m_memberChoice->clear();
    if (!m_review->startDryRun(m_fanOutFactory(nullptr), settings())) {
        setStatus(tr("The fleet's members are not known; reconnect to the fleet."), true);
        updateButtons();
        return;
    }
    fitMemberColumn();
    m_fleetState.clear();
    showFleetState();
    updateButtons();
}

void CleanupPage::followReview()
{
    connect(m_review, &FleetCleanupReview::itemsReceived, this,
        [this](const QString &member, const QVector<CleanupItem> &items) {
            m_model->addItems(items, member); // new users come expanded (buildUi)
            showFleetState();
        });
    connect(m_review, &FleetCleanupReview::memberPlanned, this, [this](const QString &) {
        updateMemberChoice();
        showFleetState();
        updateTotals();
        updateButtons();
    });
    connect(m_review, &FleetCleanupReview::memberFailed, this,
        [this](const QString &member, const QString &) {
            m_model->removeMember(member); // what it reported is no plan to review
            m_tree->expandToDepth(0);
            m_messageBar->showMessage(
                tr("Not every member made a plan; the plans of the others are shown.\n%1")
                    .arg(m_review->memberErrors().join(QLatin1Char('\n'))),
                MessageBar::Level::Warning);
            showFleetState();
            updateTotals();
        });
    connect(m_review, &FleetCleanupReview::dryRunFinished, this, [this](int failedMembers) {
        const QStringList planned = m_review->plannedMembers();
        const int asked = int(m_review->members().size());
        const MemberCleanupPlan *first
            = planned.isEmpty() ? nullptr : m_review->memberPlan(planned.constFirst());
        m_fleetState = tr("Dry run done: plans of %1 of %n member(s), ", nullptr, asked)
                           .arg(asked - failedMembers)
            + tr("%1 (chat TTL %2, session TTL %3).")
                  .arg(itemCountText(m_model->itemCount()),
                      tr("%n day(s)", nullptr,
                          first ? int(first->plan.summary().chatTtlDays) : settings().chatTtlDays),
                      tr("%n day(s)", nullptr,
                          first ? int(first->plan.summary().sessionTtlDays)
                                : settings().sessionTtlDays))
            + (first ? tr(" Script: %1.").arg(first->scriptRan.description()) : QString());
        showFleetState();
        updateMemberChoice();
        updateTotals();
        updateButtons();
        Q_EMIT runFinished();
    });
    connect(
        m_review, &FleetCleanupReview::executed, this, [this](const QString &member, int exitCode) {
            m_executing = false;
            const CleanupPlan result = m_review->plan(member);
            m_model->setMemberPlan(member, result);
            m_tree->expandToDepth(0);
            const QString messages
                = m_review->executionRunner()->messages().join(QLatin1Char('\n'));
            setStatus(m_review->memberText(member) + QStringLiteral(": ")
                    + executedText(exitCode, result)
                    + (messages.isEmpty() ? QString() : QLatin1Char('\n') + messages),
                result.outcomeCounts().value(QStringLiteral("failed")) > 0);
            updateMemberChoice();
            updateTotals();
            updateButtons();
            Q_EMIT runFinished();
        });
    connect(m_review, &FleetCleanupReview::executionFailed, this,
        [this](const QString &member, const QString &message) {
            m_executing = false;
            m_model->setMemberPlan(member, m_review->plan(member));
            m_tree->expandToDepth(0);
            setStatus(
                tr("Execution on %1 failed: %2").arg(m_review->memberText(member), message), true);
            updateMemberChoice();
            updateTotals();
            updateButtons();
            Q_EMIT runFinished();
        });
}

void CleanupPage::showFleetState()
{
    if (!m_review || m_executing)
        return;
    if (!m_review->isRunning()) {
        setStatus(m_fleetState);
        return;
    }
    // "k of n members": who answered, who is still asked.
    const int asked = int(m_review->members().size());
    QString text = tr("Dry run on %n member(s)… ", nullptr, asked)
        + tr("%1 of %2 members answered, %3 found.")
              .arg(m_review->membersAnswered())
              .arg(asked)
              .arg(itemCountText(m_model->itemCount()));
    const QStringList waiting = m_review->waitingMembers();
    if (!waiting.isEmpty() && m_review->membersAnswered() > 0)
        text += QLatin1Char(' ') + tr("Waiting for %1.").arg(waiting.join(QStringLiteral(", ")));
    setStatus(text);
}

void CleanupPage::updateMemberChoice()
{
    // The members whose plan can be executed: planned by this page's dry run, not yet executed.
    const QString current = m_memberChoice->currentText();
    const QStringList members = m_review ? m_review->executableMembers() : QStringList();
    m_memberChoice->clear();
    m_memberChoice->addItems(members);
    if (members.contains(current))
        m_memberChoice->setCurrentText(current);
    // No empty choice: after a dry run the label says there is nothing to execute.
    const bool offered = !members.isEmpty();
    m_memberChoice->setVisible(m_fleet && offered);
    m_memberLabel->setVisible(m_fleet && (offered || (m_review && !m_review->isRunning())));
    m_memberLabel->setText(offered ? tr("On member:") : tr("No member's plan has deletions"));
}

void CleanupPage::fitMemberColumn()
{
    QString longest = tr("Member");
    for (const QString &member : m_review->members()) {
        if (member.size() > longest.size())
            longest = member;
    }
    m_tree->header()->resizeSection(
        CleanupModel::MemberColumn, m_tree->fontMetrics().horizontalAdvance(longest) + 24);
}

QString CleanupPage::executeMember() const
{
    return m_fleet ? m_memberChoice->currentText() : QString();
}

void CleanupPage::setExecuteMember(const QString &member)
{
    m_memberChoice->setCurrentText(member);
}

CleanupPlan CleanupPage::reviewedPlan(const QString &member) const
{
    if (!m_review)
        return {};
    // The keys of the member's items the view shows.
    QSet<QString> shown;
    for (int userRow = 0; userRow < m_proxy->rowCount(); ++userRow) {
        const QModelIndex user = m_proxy->index(userRow, 0);
        if (m_model->memberAt(m_proxy->mapToSource(user)) != member)
            continue;
        for (int row = 0; row < m_proxy->rowCount(user); ++row) {
            if (const CleanupItem *item
                = m_model->itemAt(m_proxy->mapToSource(m_proxy->index(row, 0, user))))
                shown.insert(item->key());
        }
    }
    return m_review->reviewedPlan(member, shown);
}

void CleanupPage::executeMemberPlan(const QString &member)
{
    if (!m_review || member.isEmpty() || !m_staleBecause.isEmpty())
        return;
    const CleanupPlan reviewed = reviewedPlan(member);
    const QVector<CleanupItem> &items = reviewed.items();
    const QString where = m_review->memberText(member);
    if (items.isEmpty()) {
        setStatus(
            tr("No shown item of %1 is marked for deletion; nothing to execute.").arg(where), true);
        return;
    }
    const QString bytes = format::byteSize(reviewed.totalBytes(CleanupItem::Action::Delete));
    const QString expected
        = QStringLiteral("delete %1 on %2").arg(itemCountText(items.size()), member);
    // What will be deleted, by name (the first ones), and where.
    constexpr int listed = 8;
    QStringList paths;
    for (qsizetype i = 0; i < items.size() && i < listed; ++i)
        paths << QStringLiteral("  ") + items.at(i).path;
    if (items.size() > listed)
        paths << tr("  … and %1 more").arg(items.size() - listed);
    const QString question
        = tr("This permanently deletes %1 (%2) on %3 alone, as shown in the tree for that "
             "member:\n%4\nItems changed since its plan was made are skipped; no other member "
             "is touched.\n\nType \"%5\" to confirm:")
              .arg(itemCountText(items.size()), bytes, where, paths.join(QLatin1Char('\n')),
                  expected);
    if (!confirmed(question, expected))
        return;
    m_cancelled = false;
    m_executing = true;
    if (!m_review->startExecute(member, reviewed, m_auditProfile)) {
        m_executing = false;
        setStatus(tr("The plan of %1 cannot be executed; run the dry run again.").arg(where), true);
        return;
    }
    setStatus(tr("Executing the reviewed plan of %1 (%2, %3)…")
                  .arg(where, itemCountText(items.size()), bytes));
    updateButtons();
}

bool CleanupPage::savePlans(const QString &folder, QStringList *saved, QString *error) const
{
    if (!m_review) {
        *error = tr("no dry run on the fleet yet");
        return false;
    }
    return m_review->savePlans(folder, saved, error);
}

bool CleanupPage::savePlan(const QString &fileName, QString *error) const
{
    return m_plan.save(fileName, error);
}

bool CleanupPage::loadPlan(const QString &fileName, QString *error)
{
    CleanupPlan loaded;
    if (!CleanupPlan::load(fileName, &loaded, error))
        return false;
    m_plan = loaded;
    m_staleBecause.clear();
    m_proxy->setAddedKeys({});
    m_diffLabel->setVisible(false);
    showPlan(m_plan);
    if (loaded.problems().isEmpty())
        setStatus(tr("Loaded %1 from %2.").arg(itemCountText(loaded.items().size()), fileName));
    else
        setStatus(tr("Loaded %1 from %2; %n line(s) not understood.", nullptr,
                      int(loaded.problems().size()))
                      .arg(itemCountText(loaded.items().size()), fileName),
            true);
    return true;
}

bool CleanupPage::exportCsv(const QString &fileName, QString *error) const
{
    return writeFile(fileName, m_plan.toCsv().toUtf8(), error);
}

bool CleanupPage::comparePlans(const QString &beforeFile, const QString &afterFile, QString *error)
{
    CleanupPlan before;
    CleanupPlan after;
    if (!CleanupPlan::load(beforeFile, &before, error)
        || !CleanupPlan::load(afterFile, &after, error))
        return false;
    showDiff(before, after);
    m_plan = after;
    showPlan(after);
    setStatus(tr("Showing %1 compared with %2.").arg(afterFile, beforeFile));
    return true;
}

void CleanupPage::chooseSaveFile()
{
    if (m_fleet) {
        const QString folder = QFileDialog::getExistingDirectory(
            this, tr("Save Each Member's Plan in a Folder"), QString());
        if (folder.isEmpty())
            return;
        QStringList saved;
        QString error;
        if (!savePlans(folder, &saved, &error))
            setStatus(tr("Could not save the plans: %1").arg(error), true);
        else
            setStatus(tr("Saved %n plan(s): %1", nullptr, int(saved.size()))
                          .arg(saved.join(QStringLiteral(", "))));
        return;
    }
    const QString fileName = QFileDialog::getSaveFileName(
        this, tr("Save Cleanup Plan"), QString(), tr("Cleanup plans (*.jsonl)"));
    QString error;
    if (!fileName.isEmpty() && !savePlan(fileName, &error))
        setStatus(tr("Could not save %1: %2").arg(fileName, error), true);
}

void CleanupPage::chooseLoadFile()
{
    const QString fileName = QFileDialog::getOpenFileName(
        this, tr("Load Cleanup Plan"), QString(), tr("Cleanup plans (*.jsonl);;All files (*)"));
    QString error;
    if (!fileName.isEmpty() && !loadPlan(fileName, &error))
        setStatus(tr("Could not load %1: %2").arg(fileName, error), true);
}

void CleanupPage::chooseExportFile()
{
    const QString fileName = QFileDialog::getSaveFileName(
        this, tr("Export Cleanup Plan"), QString(), tr("CSV files (*.csv)"));
    QString error;
    if (!fileName.isEmpty() && !exportCsv(fileName, &error))
        setStatus(tr("Could not export %1: %2").arg(fileName, error), true);
}

void CleanupPage::chooseCompareFiles()
{
    const QString filter = tr("Cleanup plans (*.jsonl);;All files (*)");
    const QString before
        = QFileDialog::getOpenFileName(this, tr("Earlier Cleanup Plan"), QString(), filter);
    if (before.isEmpty())
        return;
    const QString after
        = QFileDialog::getOpenFileName(this, tr("Later Cleanup Plan"), QString(), filter);
    QString error;
    if (!after.isEmpty() && !comparePlans(before, after, &error))
        setStatus(tr("Could not compare the plans: %1").arg(error), true);
}

} // namespace sandscope
