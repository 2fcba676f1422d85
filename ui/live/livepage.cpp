#include "livepage.h"

#include "fleet/fleetfanout.h"
#include "fleet/fleetlivewatcher.h"
#include "live/liveagentdelegate.h"
#include "live/liveagentmodel.h"
#include "live/liveagentproxy.h"
#include "live/liveagentwatcher.h"
#include "messagebar.h"
#include "server/accountnames.h"
#include "server/openterminalclient.h"
#include "ui_livepage.h"
#include "util/terminalsafe.h"

#include <QDateTime>
#include <QHeaderView>
#include <QPointer>

namespace sandscope {

LivePage::LivePage(QWidget *parent)
    : QWidget(parent)
    , m_ui(std::make_unique<Ui::LivePage>())
    , m_watcher(std::make_unique<LiveAgentWatcher>())
    , m_model(new LiveAgentModel(this))
    , m_proxy(new LiveAgentProxy(this))
{
    m_ui->setupUi(this);
    m_proxy->setSourceModel(m_model);
    m_ui->agentsView->setModel(m_proxy);
    m_ui->agentsView->setItemDelegate(new LiveAgentDelegate(m_ui->agentsView));
    m_ui->agentsView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_ui->agentsView->sortByColumn(LiveAgentModel::ActivityColumn, Qt::DescendingOrder);
    QHeaderView *header = m_ui->agentsView->header();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(LiveAgentModel::LastLineColumn, QHeaderView::Stretch);
    for (const int column :
        {LiveAgentModel::UserColumn, LiveAgentModel::ToolColumn, LiveAgentModel::TokensColumn,
            LiveAgentModel::CostColumn, LiveAgentModel::ActivityColumn})
        header->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    header->resizeSection(LiveAgentModel::SessionColumn, 90);
    // A fleet's Member column, beside the user; hidden for one server.
    header->setSectionResizeMode(LiveAgentModel::MemberColumn, QHeaderView::ResizeToContents);
    header->moveSection(header->visualIndex(LiveAgentModel::MemberColumn),
        header->visualIndex(LiveAgentModel::UserColumn) + 1);
    m_ui->agentsView->setColumnHidden(LiveAgentModel::MemberColumn, true);
    connect(m_ui->filterEdit, &QLineEdit::textChanged, m_proxy,
        [this](const QString &text) { m_proxy->setFilterFixedString(text); });
    connect(m_watcher.get(), &LiveAgentWatcher::agentsChanged, m_model, &LiveAgentModel::apply);
    // The model outlives the watcher while the page goes (its view still asks it then).
    // A fleet's rows are on this machine's clock (FleetLiveWatcher moves them onto it).
    m_model->setClock(
        [watcher = QPointer<LiveAgentWatcher>(m_watcher.get()), fleet = m_fleetClock] {
            if (*fleet)
                return (*fleet)->nowMs();
            return watcher ? watcher->serverNowMs() : QDateTime::currentMSecsSinceEpoch();
        });
    connect(m_watcher.get(), &LiveAgentWatcher::stateChanged, this, [this] { updateState(); });
    connect(m_watcher.get(), &LiveAgentWatcher::failed, this, [this](const QString &why) {
        m_ui->messageBar->showMessage(
            tr("The live wall stopped: %1").arg(TerminalSafe::name(why)), MessageBar::Level::Error);
        updateState();
    });
    connect(m_ui->watchButton, &QPushButton::toggled, this, [this](bool on) {
        if (on && !isWatching())
            startWatching();
        else if (!on && isWatching())
            stopWatching();
    });
    connect(m_ui->agentsView, &QTreeView::doubleClicked, this, &LivePage::openSessionAt);
    connect(
        m_ui->adminCommandButton, &QPushButton::clicked, this, &LivePage::adminCommandRequested);
    updateState();
}

LivePage::~LivePage() = default;

QTreeView *LivePage::agentsView() const
{
    return m_ui->agentsView;
}

MessageBar *LivePage::messageBar() const
{
    return m_ui->messageBar;
}

QString LivePage::stateText() const
{
    return m_ui->stateLabel->text();
}

bool LivePage::isWatching() const
{
    if (m_fleetWatcher)
        return m_fleetWatcher->watching() > 0;
    const auto state = m_watcher->state();
    return state == LiveAgentWatcher::State::Starting || state == LiveAgentWatcher::State::Watching;
}

void LivePage::setClient(OpenTerminalClient *client)
{
    if (client == m_client)
        return;
    stopWatching();
    m_model->clear();
    m_client = client;
    updateState();
}

void LivePage::setAdminAccess(const AdminAccess &admin, const QString &accountPrefix)
{
    m_prefix = accountPrefix;
    if (admin == m_admin)
        return;
    stopWatching();
    m_admin = admin;
    updateState();
}

void LivePage::setAdminAdvice(const QString &advice)
{
    if (advice == m_adminAdvice)
        return;
    m_adminAdvice = advice;
    updateState();
}

void LivePage::setFanOutFactory(FanOutFactory factory, bool isFleet)
{
    const bool fleet = isFleet && factory;
    m_fanOutFactory = std::move(factory);
    if (fleet != m_fleet)
        stopWatching();
    m_fleet = fleet;
    m_ui->agentsView->setColumnHidden(LiveAgentModel::MemberColumn, !m_fleet);
    updateState();
}

int LivePage::membersWatching() const
{
    if (!m_fleetWatcher || !m_fanOut)
        return 0;
    int count = 0;
    for (int member = 0; member < m_fanOut->targets().size(); ++member) {
        count += m_fleetWatcher->watcher(member)->state() == LiveAgentWatcher::State::Watching ? 1
                                                                                               : 0;
    }
    return count;
}

void LivePage::startFleet()
{
    m_fleetWatcher.reset();
    m_fanOut.reset(m_fanOutFactory(nullptr));
    if (m_audit)
        m_audit(tr("the members %1").arg(m_fanOut->memberNames().join(QStringLiteral(", "))));
    m_model->clear();
    m_fleetWatcher = std::make_unique<FleetLiveWatcher>(m_fanOut.get());
    *m_fleetClock = m_fleetWatcher.get();
    FleetLiveWatcher *watcher = m_fleetWatcher.get();
    connect(watcher, &FleetLiveWatcher::agentsChanged, m_model, &LiveAgentModel::apply);
    connect(watcher, &FleetLiveWatcher::memberWatching, this, [this] { updateState(); });
    // A member that fails is named; the others' agents stay on the wall.
    connect(watcher, &FleetLiveWatcher::memberFailed, this, [this](const QString &message) {
        m_memberErrors.append(TerminalSafe::name(message));
        m_ui->messageBar->showMessage(
            tr("Not every member is watched; the agents of the others are shown.\n%1")
                .arg(m_memberErrors.join(QLatin1Char('\n'))),
            MessageBar::Level::Warning);
        updateState();
    });
    connect(watcher, &FleetLiveWatcher::failed, this, [this](const QString &why) {
        m_ui->messageBar->showMessage(
            tr("The live wall stopped: %1").arg(TerminalSafe::name(why)), MessageBar::Level::Error);
        m_fleetError = why;
        updateState();
    });
    m_memberErrors.clear();
    m_fleetError.clear();
    watcher->start();
    updateState();
}

void LivePage::startWatching()
{
    if (m_client && m_fleet) { // the members have admin commands of their own
        m_ui->messageBar->dismiss();
        startFleet();
        return;
    }
    if (!m_client || (!m_adminAdvice.isEmpty() && !m_admin.isLocalCommand())) {
        updateState();
        return;
    }
    m_ui->messageBar->dismiss();
    if (m_audit)
        m_audit(m_admin.describe());
    m_model->clear();
    m_watcher->start(m_client, m_admin);
    updateState();
}

void LivePage::stopWatching()
{
    m_watcher->stop();
    if (m_fleetWatcher)
        m_fleetWatcher->stop();
    updateState();
}

void LivePage::updateState()
{
    const bool advised = !m_fleet && !m_adminAdvice.isEmpty() && !m_admin.isLocalCommand();
    m_ui->adminCommandButton->setVisible(advised);
    m_ui->watchButton->setEnabled(m_client && !advised);
    const QSignalBlocker blocker(m_ui->watchButton);
    m_ui->watchButton->setChecked(isWatching());
    QString state;
    if (!m_client)
        state = tr("not connected");
    else if (advised)
        state = m_adminAdvice;
    else if (m_fleet) {
        const int members = m_fanOut ? int(m_fanOut->targets().size()) : 0;
        if (isWatching() && membersWatching() == 0)
            state = tr("starting on %n member(s)…", nullptr, members);
        else if (isWatching())
            state = tr("watching %1 of %n member(s)", nullptr, members).arg(membersWatching());
        else if (!m_fleetError.isEmpty())
            state = tr("stopped: %1").arg(m_fleetError);
        else
            state = tr("not watching; Watch starts one process on every member of the fleet");
    } else {
        switch (m_watcher->state()) {
        case LiveAgentWatcher::State::Idle:
            state = tr("not watching; Watch starts one process %1").arg(m_admin.describe());
            break;
        case LiveAgentWatcher::State::Starting:
            state = tr("starting %1…").arg(m_admin.describe());
            break;
        case LiveAgentWatcher::State::Watching:
            state = tr("watching %1").arg(m_admin.describe());
            break;
        case LiveAgentWatcher::State::Failed:
            state = tr("stopped: %1").arg(m_watcher->error());
            break;
        }
    }
    m_ui->stateLabel->setText(TerminalSafe::name(state));
}

bool LivePage::sessionAt(const QModelIndex &viewIndex, SessionSource *source, QString *why) const
{
    const QModelIndex index = m_proxy->mapToSource(viewIndex);
    if (!index.isValid())
        return false;
    const LiveAgentRow &row = m_model->agentAt(index.row());
    if (row.info.transcript.isEmpty()) {
        *why = tr("The transcript of this agent is not known yet.");
        return false;
    }
    const QString userId = userIdForAccount(row.info.account, m_prefix);
    if (userId.isEmpty()) {
        *why = tr("No user id is known to map to the account \u201c%1\u201d, so its session "
                  "cannot be read as that user.")
                   .arg(TerminalSafe::name(row.info.account));
        return false;
    }
    SessionSource found;
    found.identity.userId = userId;
    found.transcriptPath = row.info.transcript;
    found.sessionId = row.info.sessionId;
    found.chatId = row.info.chatId();
    found.cwd = row.info.cwd;
    *source = found;
    return true;
}

void LivePage::openSessionAt(const QModelIndex &viewIndex)
{
    SessionSource source;
    QString why;
    if (sessionAt(viewIndex, &source, &why)) {
        Q_EMIT openSessionRequested(source);
        return;
    }
    if (!why.isEmpty())
        m_ui->messageBar->showMessage(why, MessageBar::Level::Warning);
}

} // namespace sandscope
