#include "livepage.h"

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
    connect(m_ui->filterEdit, &QLineEdit::textChanged, m_proxy,
        [this](const QString &text) { m_proxy->setFilterFixedString(text); });
    connect(m_watcher.get(), &LiveAgentWatcher::agentsChanged, m_model, &LiveAgentModel::apply);
    // The model outlives the watcher while the page goes (its view still asks it then).
    m_model->setClock([watcher = QPointer<LiveAgentWatcher>(m_watcher.get())] {
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

void LivePage::startWatching()
{
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
    updateState();
}

void LivePage::updateState()
{
    const bool advised = !m_adminAdvice.isEmpty() && !m_admin.isLocalCommand();
    m_ui->adminCommandButton->setVisible(advised);
    m_ui->watchButton->setEnabled(m_client && !advised);
    const QSignalBlocker blocker(m_ui->watchButton);
    m_ui->watchButton->setChecked(isWatching());
    QString state;
    if (!m_client)
        state = tr("not connected");
    else if (advised)
        state = m_adminAdvice;
    else {
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
