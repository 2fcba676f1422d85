#include "adminoverviewpage.h"

#include "files/adminoverviewmodel.h"
#include "messagebar.h"
#include "server/accountnames.h"
#include "server/openterminalclient.h"
#include "ui_adminoverviewpage.h"

#include <QHeaderView>
#include <QLocale>
#include <QSortFilterProxyModel>

namespace sandscope {

AdminOverviewPage::AdminOverviewPage(QWidget *parent)
    : QWidget(parent)
    , m_ui(std::make_unique<Ui::AdminOverviewPage>())
    , m_proxy(new QSortFilterProxyModel(this))
{
    m_ui->setupUi(this);
    setObjectName(QStringLiteral("adminOverviewPage"));
    QFont title = m_ui->titleLabel->font();
    title.setBold(true);
    title.setPointSizeF(title.pointSizeF() * 1.15);
    m_ui->titleLabel->setFont(title);
    m_ui->hintLabel->setEnabled(false);
    m_ui->reloadButton->setIcon(style()->standardIcon(QStyle::SP_BrowserReload));

    m_proxy->setSortRole(AdminOverviewModel::SortRole);
    m_proxy->setSortCaseSensitivity(Qt::CaseInsensitive);
    m_ui->accountsView->setModel(m_proxy);
    m_ui->accountsView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_ui->accountsView->sortByColumn(AdminOverviewModel::AccountColumn, Qt::AscendingOrder);
    m_ui->accountsView->header()->setStretchLastSection(false);
    m_ui->chatsView->header()->setStretchLastSection(true);
    m_ui->chatsView->sortByColumn(2, Qt::DescendingOrder);
    m_ui->splitter->setStretchFactor(0, 3);
    m_ui->splitter->setStretchFactor(1, 2);

    connect(m_ui->reloadButton, &QPushButton::clicked, this, &AdminOverviewPage::reload);
    connect(m_ui->adminCommandButton, &QPushButton::clicked, this,
        &AdminOverviewPage::adminCommandRequested);
    connect(m_ui->serverAccountButton, &QPushButton::clicked, this,
        [this] { Q_EMIT actAsUserRequested(QString()); });
    connect(
        m_ui->accountsView, &QTreeView::doubleClicked, this, &AdminOverviewPage::browseAccountAt);
    connect(m_ui->accountsView->selectionModel(), &QItemSelectionModel::currentChanged, this,
        [this](const QModelIndex &current) { showChatsOf(current); });
    // Per-column sizing is lost whenever the model resets; applied again each time.
    connect(m_proxy, &QAbstractItemModel::modelReset, this, [this] {
        QHeaderView *header = m_ui->accountsView->header();
        if (header->count() != AdminOverviewModel::ColumnCount)
            return;
        header->setSectionResizeMode(AdminOverviewModel::AccountColumn, QHeaderView::Stretch);
        for (int column : {AdminOverviewModel::ChatCountColumn, AdminOverviewModel::SizeColumn,
                 AdminOverviewModel::LastActivityColumn, AdminOverviewModel::MemberColumn})
            header->setSectionResizeMode(column, QHeaderView::ResizeToContents);
        // A fleet's member beside the account it holds.
        header->moveSection(header->visualIndex(AdminOverviewModel::MemberColumn),
            header->visualIndex(AdminOverviewModel::AccountColumn) + 1);
    });
    connect(m_proxy, &QAbstractItemModel::dataChanged, this,
        [this] { showChatsOf(m_ui->accountsView->currentIndex()); });
    setClient(nullptr);
}

AdminOverviewPage::~AdminOverviewPage() = default;

QTreeView *AdminOverviewPage::accountsView() const
{
    return m_ui->accountsView;
}

QTreeWidget *AdminOverviewPage::chatsView() const
{
    return m_ui->chatsView;
}

MessageBar *AdminOverviewPage::messageBar() const
{
    return m_ui->messageBar;
}

QString AdminOverviewPage::stateText() const
{
    return m_ui->stateLabel->text();
}

void AdminOverviewPage::setClient(OpenTerminalClient *client)
{
    if (m_model && client == m_client)
        return;
    delete m_model; // bound to the previous client
    m_client = client;
    m_scanned = false;
    m_model = new AdminOverviewModel(client, this);
    m_model->setAdminAccess(m_adminAccess);
    m_model->setFanOut(m_fanOut);
    if (!m_homesRoot.isEmpty())
        m_model->setHomesRoot(m_homesRoot);
    m_proxy->setSourceModel(m_model);
    m_ui->accountsView->setColumnHidden(AdminOverviewModel::MemberColumn, !m_model->isFleet());
    // A fleet's member that fails is named; the others' homes stay listed.
    connect(m_model, &AdminOverviewModel::memberFailed, this, [this](const QString &message) {
        m_memberErrors.append(message);
        m_ui->messageBar->showMessage(
            tr("Not every member answered; the homes of the others are shown.\n%1")
                .arg(m_memberErrors.join(QLatin1Char('\n'))),
            MessageBar::Level::Warning);
    });
    connect(m_model, &AdminOverviewModel::loaded, this, &AdminOverviewPage::updateState);
    connect(m_model, &AdminOverviewModel::failed, this, &AdminOverviewPage::updateState);
    connect(m_model, &AdminOverviewModel::refused, this, &AdminOverviewPage::updateState);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &AdminOverviewPage::updateState);
    m_ui->chatsView->clear();
    m_ui->messageBar->dismiss();
    updateState();
    if (client && isVisible())
        reload();
}

void AdminOverviewPage::setIdentity(const Identity &identity)
{
    if (identity.userId == m_identity.userId) {
        m_identity = identity;
        return;
    }
    m_identity = identity;
    m_scanned = false;
    updateState();
    if (isVisible() && canScan())
        reload();
}

void AdminOverviewPage::setAdminAccess(const AdminAccess &admin)
{
    if (admin == m_adminAccess)
        return;
    m_adminAccess = admin;
    if (m_model)
        m_model->setAdminAccess(admin);
    m_scanned = false;
    updateState();
    if (isVisible() && canScan())
        reload();
}

void AdminOverviewPage::setFanOut(FleetFanOut *fanOut)
{
    if (fanOut == m_fanOut)
        return;
    m_fanOut = fanOut;
    if (m_model)
        m_model->setFanOut(fanOut);
    m_ui->accountsView->setColumnHidden(
        AdminOverviewModel::MemberColumn, !(m_model && m_model->isFleet()));
    m_scanned = false;
    updateState();
    if (isVisible() && canScan())
        reload();
}

bool AdminOverviewPage::canScan() const
{
    // A server that refuses its own account needs the admin command; a fleet's members have
    // theirs in the fleet file.
    return m_client
        && ((m_fanOut && m_fanOut->isFleet()) || m_adminAccess.isLocalCommand()
            || (m_identity.isServerAccount() && m_adminAdvice.isEmpty()));
}

void AdminOverviewPage::setAdminAdvice(const QString &advice)
{
    if (advice == m_adminAdvice)
        return;
    m_adminAdvice = advice;
    updateState();
}

void AdminOverviewPage::setHomesRoot(const QString &path)
{
    m_homesRoot = path;
    if (m_model)
        m_model->setHomesRoot(path);
}

void AdminOverviewPage::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (!m_scanned && canScan())
        reload();
}

void AdminOverviewPage::reload()
{
    if (!canScan()) {
        updateState();
        return;
    }
    m_scanned = true;
    m_memberErrors.clear();
    m_ui->messageBar->dismiss();
    m_ui->chatsView->clear();
    m_model->reload();
    updateState();
}

void AdminOverviewPage::updateState()
{
    const bool connected = m_client != nullptr;
    // A fleet's members are scanned through their own admin commands, whoever is acted as.
    const bool fleet = m_fanOut && m_fanOut->isFleet();
    const bool asServer = fleet || m_identity.isServerAccount() || m_adminAccess.isLocalCommand();
    const bool needsAdminCommand
        = connected && !fleet && !m_adminAccess.isLocalCommand() && !m_adminAdvice.isEmpty();
    m_ui->reloadButton->setEnabled(canScan());
    m_ui->serverAccountButton->setVisible(connected && !asServer && !needsAdminCommand);
    m_ui->adminCommandButton->setVisible(needsAdminCommand);
    m_ui->titleLabel->setText(fleet ? tr("Users on the fleet") : tr("Users on this server"));
    QString state;
    if (!connected) {
        state = tr("not connected");
    } else if (needsAdminCommand) {
        state = tr("needs the admin command");
        m_ui->messageBar->showMessage(m_adminAdvice, MessageBar::Level::Warning);
    } else if (!asServer) {
        state = tr("acting as %1").arg(m_identity.userId);
        m_ui->messageBar->showMessage(
            tr("The overview scans every home as the server account (no X-User-Id), and you are "
               "acting as \u201c%1\u201d. Switch to the server account to scan.")
                .arg(m_identity.userId),
            MessageBar::Level::Information);
    } else {
        const int users = m_model->rowCount();
        switch (m_model->state()) {
        case ScanState::Idle:
            state = tr("not scanned yet");
            break;
        case ScanState::Loading:
            state = tr("scanning\u2026 %n user(s) so far", "", users);
            break;
        case ScanState::Loaded:
            state = tr("%n user(s)", "", users);
            break;
        case ScanState::Failed:
            state = tr("scan failed");
            m_ui->messageBar->showMessage(m_model->errorText(), MessageBar::Level::Error);
            break;
        case ScanState::Refused:
            state = tr("refused by the server");
            m_ui->messageBar->showMessage(m_model->errorText(), MessageBar::Level::Warning);
            break;
        }
    }
    if (connected && fleet)
        state += QStringLiteral(" \u00b7 ")
            + tr("%n member(s), each through its admin command", "",
                int(m_fanOut->targets().size()));
    else if (connected && asServer)
        state += QStringLiteral(" \u00b7 ") + m_adminAccess.describe();
    m_ui->stateLabel->setText(state.isEmpty() ? QString() : QStringLiteral("\u2014 ") + state);
}

void AdminOverviewPage::showChatsOf(const QModelIndex &viewIndex)
{
    m_ui->chatsView->clear();
    if (!viewIndex.isValid() || !m_model)
        return;
    const int row = m_proxy->mapToSource(viewIndex).row();
    if (row < 0 || row >= m_model->accounts().size())
        return;
    m_ui->chatsView->setSortingEnabled(false);
    for (const ChatFolder &chat : m_model->accounts().at(row).chats) {
        auto *item = new QTreeWidgetItem(m_ui->chatsView);
        item->setText(0, chat.id);
        item->setText(1, QLocale().formattedDataSize(chat.size));
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
        item->setText(2, QLocale().toString(chat.lastActivity.toLocalTime(), QLocale::ShortFormat));
        item->setText(3, chat.path);
    }
    m_ui->chatsView->setSortingEnabled(true);
    for (int column = 0; column < 3; ++column)
        m_ui->chatsView->resizeColumnToContents(column);
}

QString AdminOverviewPage::userIdForAccount(const QString &account, const QString &knownPrefix)
{
    return sandscope::userIdForAccount(account, knownPrefix);
}

void AdminOverviewPage::browseAccountAt(const QModelIndex &viewIndex)
{
    if (!viewIndex.isValid())
        return;
    const QString account = m_proxy->index(viewIndex.row(), AdminOverviewModel::AccountColumn)
                                .data(AdminOverviewModel::AccountRole)
                                .toString();
    const QString userId = userIdForAccount(account, m_prefix);
    if (userId.isEmpty()) {
        m_ui->messageBar->showMessage(
            tr("No user id is known to map to the account \u201c%1\u201d, so its files cannot be "
               "browsed as that user.")
                .arg(account),
            MessageBar::Level::Warning);
        return;
    }
    Q_EMIT actAsUserRequested(userId);
}

} // namespace sandscope
