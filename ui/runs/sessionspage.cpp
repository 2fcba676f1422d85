#include "sessionspage.h"

#include "fleet/fleetfanout.h"
#include "messagebar.h"
#include "runs/sessionitemdelegate.h"
#include "runs/sparewidthcolumn.h"
#include "server/openterminalclient.h"
#include "sessions/sessionactivity.h"
#include "sessions/sessionfilterproxy.h"
#include "sessions/sessionlistmodel.h"
#include "sessions/sessionsearchmodel.h"
#include "ui_sessionspage.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QHash>
#include <QHeaderView>
#include <QMenu>
#include <QPushButton>
#include <QSet>
#include <QStyle>

namespace sandscope {

namespace {

const QColor errorColour(0xc6, 0x28, 0x28);

// A label's text in the error colour, or in the palette's own.
void showOnLabel(QLabel *label, const QString &text, bool isError)
{
    label->setText(text);
    QPalette palette = label->parentWidget() ? label->parentWidget()->palette() : label->palette();
    if (isError)
        palette.setColor(QPalette::WindowText, errorColour);
    label->setPalette(palette);
}

// Section widths that fit typical contents (and the header), measured once: measuring every
// row on each refresh (ResizeToContents) would cost more and make the columns jump.
void fitColumns(QTreeView *view, const QVector<QPair<int, QString>> &samples)
{
    const QFontMetrics metrics(view->font());
    const int padding = metrics.averageCharWidth() * 2;
    for (const auto &sample : samples) {
        const QString headerText
            = view->model()->headerData(sample.first, Qt::Horizontal).toString();
        view->header()->resizeSection(sample.first,
            std::max(
                metrics.horizontalAdvance(sample.second), metrics.horizontalAdvance(headerText))
                + padding);
    }
}

} // namespace

SessionsPage::SessionsPage(QWidget *parent)
    : QWidget(parent)
    , m_ui(std::make_unique<Ui::SessionsPage>())
    , m_model(new SessionListModel(this))
    , m_activity(new SessionActivity(m_model, this))
    , m_proxy(new SessionFilterProxy(this))
    , m_searchModel(new SessionSearchModel(this))
{
    // A new session's transcript appeared (pushed): list again now, not at the next refresh.
    connect(m_activity, &SessionActivity::sessionCreated, this, [this] {
        if (!isLoading())
            refresh();
    });
    m_ui->setupUi(this);
    setObjectName(QStringLiteral("sessionsPage"));
    m_proxy->setSourceModel(m_model);
    setupViews();
    setupActions();

    m_autoRefresh.setSingleShot(true);
    connect(&m_autoRefresh, &QTimer::timeout, this, [this] {
        if (!isLoading())
            refresh();
    });
    connect(m_ui->filterEdit, &QLineEdit::textChanged, this, [this](const QString &text) {
        m_proxy->setFilterText(text);
        updateStatus();
    });
    // What the window learns of a session's process changes the running count at once.
    connect(m_model, &SessionListModel::knowledgeChanged, this, &SessionsPage::updateStatus);
    connect(m_ui->searchEdit, &QLineEdit::returnPressed, this, &SessionsPage::searchFromWidgets);
    connect(m_ui->searchButton, &QPushButton::clicked, this, &SessionsPage::searchFromWidgets);
    // Rows come and go with refreshes and the filter; the selection may go with them.
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(m_proxy, signal, this, &SessionsPage::updateActions);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &SessionsPage::updateActions);
    connect(m_proxy, &QAbstractItemModel::dataChanged, this, &SessionsPage::updateActions);

    m_ui->resultsPane->hide(); // until the first search
    updateStatus();
    updateActions();
}

SessionsPage::~SessionsPage() = default;

void SessionsPage::setupViews()
{
    QTreeView *sessions = m_ui->sessionsView;
    sessions->setModel(m_proxy);
    sessions->setItemDelegate(new SessionItemDelegate(sessions));
    // The title gets the room a wider window gives (at least titleMinimumCharacters); the model's
    // name is measured on the rows shown (bold when running), as it varies in length.
    auto *titles = new SpareWidthColumn(sessions, SessionListModel::TitleColumn,
        sessions->fontMetrics().averageCharWidth() * titleMinimumCharacters);
    sessions->header()->setSectionResizeMode(
        SessionListModel::ModelColumn, QHeaderView::ResizeToContents);
    sessions->header()->setSortIndicatorShown(true);
    sessions->sortByColumn(SessionListModel::LastActivityColumn, Qt::DescendingOrder);
    // Running rows are bold: the padding fitColumns adds covers the bold texts.
    const QString time = QStringLiteral("2026-12-31 23:59");
    fitColumns(sessions,
        {{SessionListModel::ChatColumn, QStringLiteral("chat-0123ab")},
            {SessionListModel::StartedColumn, time}, {SessionListModel::LastActivityColumn, time},
            {SessionListModel::TurnsColumn, QStringLiteral("999")},
            {SessionListModel::ToolCallsColumn, QStringLiteral("9999")},
            {SessionListModel::SizeColumn, QStringLiteral("999.9 KiB")},
            {SessionListModel::ModelColumn, QStringLiteral("claude-opus-5-5")},
            {SessionListModel::CostColumn, QStringLiteral("$99.9999")},
            {SessionListModel::StateColumn, QStringLiteral("running now")}});
    sessions->setMinimumHeight(sessions->fontMetrics().height() * 8);
    // A fleet's Member column comes and goes with "All users": sized when it comes, and shown
    // beside the Chat column that names the account.
    connect(m_proxy, &QAbstractItemModel::columnsInserted, sessions, [this, sessions, titles] {
        fitColumns(sessions, {{SessionListModel::MemberColumn, m_longestMember}});
        sessions->header()->moveSection(
            sessions->header()->visualIndex(SessionListModel::MemberColumn),
            sessions->header()->visualIndex(SessionListModel::ChatColumn) + 1);
        titles->setMinimumWidth(
            sessions->fontMetrics().averageCharWidth() * titleMinimumCharactersWithMembers);
    });
    connect(m_proxy, &QAbstractItemModel::columnsRemoved, sessions, [sessions, titles] {
        titles->setMinimumWidth(
            sessions->fontMetrics().averageCharWidth() * titleMinimumCharacters);
    });

    QTreeView *results = m_ui->resultsView;
    results->setModel(m_searchModel);
    fitColumns(results,
        {{SessionSearchModel::SessionColumn, QStringLiteral("Refactor the login form")},
            {SessionSearchModel::TurnColumn, QStringLiteral("999")},
            {SessionSearchModel::ToolColumn, QStringLiteral("WebFetch")},
            {SessionSearchModel::RecordColumn, QStringLiteral("attachment (sub-agent)")}});
    results->setMinimumHeight(results->fontMetrics().height() * 5);
    connect(m_searchModel, &QAbstractItemModel::columnsInserted, results, [this, results] {
        fitColumns(results, {{SessionSearchModel::MemberColumn, m_longestMember}});
        results->header()->moveSection(
            results->header()->visualIndex(SessionSearchModel::MemberColumn),
            results->header()->visualIndex(SessionSearchModel::SessionColumn) + 1);
    });

    m_ui->splitter->setStretchFactor(0, 3);
    m_ui->splitter->setStretchFactor(1, 2);
    m_ui->refreshButton->setIcon(style()->standardIcon(QStyle::SP_BrowserReload));

    connect(sessions, &QAbstractItemView::activated, this, [this] { m_openAction->trigger(); });
    connect(sessions, &QWidget::customContextMenuRequested, this, &SessionsPage::showContextMenu);
    connect(sessions->selectionModel(), &QItemSelectionModel::selectionChanged, this,
        &SessionsPage::updateActions);
    connect(results, &QAbstractItemView::activated, this, &SessionsPage::openHitAt);
}

void SessionsPage::setupActions()
{
    m_refreshAction = new QAction(tr("&Refresh"), this);
    m_refreshAction->setIcon(style()->standardIcon(QStyle::SP_BrowserReload));
    m_refreshAction->setShortcut(QKeySequence::Refresh);
    // Only while the page has focus: other pages have an F5 of their own.
    m_refreshAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    addAction(m_refreshAction);
    m_ui->refreshButton->setToolTip(tr("List the sessions again (F5)"));
    connect(m_refreshAction, &QAction::triggered, this, &SessionsPage::refresh);
    connect(m_ui->adminCommandButton, &QPushButton::clicked, this,
        &SessionsPage::adminCommandRequested);
    connect(m_ui->refreshButton, &QPushButton::clicked, m_refreshAction, &QAction::trigger);
    // Another scope: the rows of the old one go, the new listing starts at once.
    connect(m_ui->allUsersCheck, &QCheckBox::toggled, this, [this](bool allUsers) {
        // Every user's rows name their account before the chat.
        fitColumns(m_ui->sessionsView,
            {{SessionListModel::ChatColumn,
                allUsers ? QStringLiteral("ot_0123abcd · chat-01")
                         : QStringLiteral("chat-0123ab")}});
        delete m_request;
        m_request = nullptr;
        m_model->clear();
        m_ui->messageBar->dismiss();
        m_listed = false;
        m_error.clear();
        updateActions();
        refresh();
    });

    m_openAction = new QAction(tr("&Open"), this);
    m_resumeAction = new QAction(tr("Res&ume…"), this);
    m_forkAction = new QAction(tr("F&ork…"), this);
    m_openFolderAction = new QAction(tr("Open Folder in &Files"), this);
    const QList<QPair<QAction *, QPushButton *>> buttons {{m_openAction, m_ui->openButton},
        {m_resumeAction, m_ui->resumeButton}, {m_forkAction, m_ui->forkButton},
        {m_openFolderAction, m_ui->openFolderButton}};
    for (const auto &pair : buttons) {
        QAction *action = pair.first;
        QPushButton *button = pair.second;
        connect(button, &QPushButton::clicked, action, &QAction::trigger);
        connect(action, &QAction::changed, button, [action, button] {
            button->setEnabled(action->isEnabled());
            button->setToolTip(action->toolTip());
        });
    }
    m_openAction->setToolTip(tr("Show the session's transcript and follow it while it grows"));

    connect(m_openAction, &QAction::triggered, this, [this] {
        const int row = selectedRow();
        if (row >= 0)
            Q_EMIT openSessionRequested(sourceFor(m_model->session(row)), QString());
    });
    connect(m_resumeAction, &QAction::triggered, this, [this] {
        const int row = selectedRow();
        if (row >= 0 && !m_model->session(row).chatId.isEmpty())
            Q_EMIT resumeRequested(sourceFor(m_model->session(row)), false);
    });
    connect(m_forkAction, &QAction::triggered, this, [this] {
        const int row = selectedRow();
        if (row >= 0 && !m_model->session(row).chatId.isEmpty())
            Q_EMIT resumeRequested(sourceFor(m_model->session(row)), true);
    });
    connect(m_openFolderAction, &QAction::triggered, this, [this] {
        const int row = selectedRow();
        const QString folder = row >= 0 ? folderOf(m_model->session(row)) : QString();
        if (!folder.isEmpty())
            Q_EMIT openFolderRequested(m_identity.userId, folder);
    });
}

QTreeView *SessionsPage::view() const
{
    return m_ui->sessionsView;
}

QTreeView *SessionsPage::searchView() const
{
    return m_ui->resultsView;
}

QLineEdit *SessionsPage::filterEdit() const
{
    return m_ui->filterEdit;
}

MessageBar *SessionsPage::messageBar() const
{
    return m_ui->messageBar;
}

QLineEdit *SessionsPage::searchEdit() const
{
    return m_ui->searchEdit;
}

QComboBox *SessionsPage::toolCombo() const
{
    return m_ui->toolCombo;
}

QString SessionsPage::statusText() const
{
    return m_ui->statusLabel->text();
}

QString SessionsPage::searchStatusText() const
{
    return m_ui->resultsLabel->text();
}

void SessionsPage::setConnection(OpenTerminalClient *client, const Identity &identity)
{
    const QUrl serverUrl = client ? client->connection().baseUrl : QUrl();
    if (client == m_client && serverUrl == m_serverUrl && identity.userId == m_identity.userId) {
        m_identity = identity;
        return;
    }
    // Nothing of the old user's or server's answers may land here.
    m_activity->stop();
    delete m_request;
    m_request = nullptr;
    delete m_searchRequest;
    m_searchRequest = nullptr;
    m_client = client;
    m_serverUrl = serverUrl;
    m_identity = identity;
    m_error.clear();
    m_sinceListing.invalidate();
    m_listed = false;
    m_autoRefresh.stop();
    m_model->clear();
    m_searchModel->clear();
    m_ui->messageBar->dismiss();
    m_ui->resultsPane->hide();
    m_ui->resultsLabel->clear();
    m_ui->searchButton->setEnabled(client != nullptr);
    updateStatus();
    updateActions();
    if (client && isVisible())
        refresh();
}

void SessionsPage::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (!m_client || isLoading())
        return;
    const int interval = refreshDelayMs();
    if (!m_sinceListing.isValid() || m_sinceListing.elapsed() >= interval)
        refresh();
    else
        m_autoRefresh.start(int(interval - m_sinceListing.elapsed()));
}

void SessionsPage::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    m_autoRefresh.stop(); // nobody looks; showing again refreshes when it is due
}

void SessionsPage::refresh()
{
    m_autoRefresh.stop();
    if (!m_client) {
        updateStatus();
        return;
    }
    delete m_request; // an older answer must not overwrite a newer one
    m_request = nullptr;
    m_error.clear();
    m_needsAdminCommand = false;
    m_ui->adminCommandButton->hide();
    // A fleet's members have admin commands of their own (the fleet file's admin_exec).
    if (isAllUsers() && !m_fleet && !m_adminAccess.isLocalCommand() && !m_adminAdvice.isEmpty()) {
        m_model->clear();
        m_error = m_adminAdvice; // nothing is asked of a server that would refuse
        m_needsAdminCommand = true;
        updateStatus();
        updateActions();
        m_ui->adminCommandButton->show();
        return;
    }
    m_request = new QObject(this);
    if (isAllUsers()) {
        listAllUsers();
        return;
    }
    m_model->setShowsMembers(false);
    updateStatus();
    sessiondiscovery::discover(m_client, m_identity, m_request,
        [this](bool ok, const sessiondiscovery::Listing &listing, const QString &error) {
            m_request->deleteLater();
            m_request = nullptr;
            m_sinceListing.start();
            if (ok) {
                m_listed = true;
                m_model->setListing(listing);
                m_refused = listing.refused;
                updateSearchTitles();
                // The acting user's own sessions: their writes are pushed from here on.
                m_activity->watch(m_client, m_identity);
            } else {
                m_error = error; // the rows of the last listing stay
            }
            updateStatus();
            updateActions();
            scheduleAutoRefresh();
            Q_EMIT listingFinished(ok);
        });
}

void SessionsPage::listAllUsers()
{
    m_activity->stop(); // pushed writes are the acting user's only
    FleetFanOut *fanOut = createFanOut(m_request);
    noteMemberNames(fanOut);
    m_model->setShowsMembers(fanOut->isFleet());
    m_membersAsked = int(fanOut->targets().size());
    m_membersAnswered = 0;
    updateStatus();
    // Each member's rows go in batch by batch as its script lists them. Until the member has
    // ended, its rows of the last listing that were not listed again yet stay (a refresh does
    // not empty the table to fill it again); a member that ended well then keeps only what it
    // listed, one that failed keeps them all.
    auto listed = std::make_shared<QHash<QString, QVector<DiscoveredSession>>>();
    auto listedPaths = std::make_shared<QHash<QString, QSet<QString>>>();
    auto refused = std::make_shared<QStringList>();
    auto errors = std::make_shared<QStringList>();
    sessiondiscovery::discoverAllUsers(
        fanOut, m_homesRoot,
        [this, listed, listedPaths](
            const QString &member, const QVector<DiscoveredSession> &batch) {
            QVector<DiscoveredSession> &sessions = (*listed)[member];
            QSet<QString> &paths = (*listedPaths)[member];
            for (const DiscoveredSession &session : batch) {
                if (!paths.contains(session.path)) {
                    paths.insert(session.path);
                    sessions.append(session);
                }
            }
            // Added at the cost of the batch; the member's rows of the last listing stay
            // until it ends (then setMemberSessions drops those that vanished).
            m_listed = true;
            m_model->addMemberSessions(member, batch);
            updateActions();
        },
        [this, listed, refused, errors](const FanOutMemberResult &result,
            const QVector<DiscoveredSession> &, const QStringList &refusedHere) {
            ++m_membersAnswered;
            if (result.ok) {
                m_listed = true;
                m_model->setMemberSessions(result.member, listed->value(result.member));
                *refused += refusedHere;
                m_refused = *refused;
                updateSearchTitles();
            } else {
                errors->append(result.error);
            }
            updateStatus();
            updateActions();
        });
    const bool fleet = fanOut->isFleet();
    connect(fanOut, &FleetFanOut::finished, m_request, [this, errors, fleet](int failed) {
        m_request->deleteLater();
        m_request = nullptr;
        m_sinceListing.start();
        // One server, or every member, failed: the listing failed. Some members: they are
        // named and the others are shown.
        if (failed > 0 && (!fleet || failed == m_membersAsked))
            m_error = errors->join(QStringLiteral("; "));
        showMemberErrors(fleet ? *errors : QStringList());
        updateStatus();
        updateActions();
        scheduleAutoRefresh();
        Q_EMIT listingFinished(failed == 0);
    });
}

FleetFanOut *SessionsPage::createFanOut(QObject *parent) const
{
    if (m_fanOutFactory)
        return m_fanOutFactory(parent);
    return new FleetFanOut(m_client, m_adminAccess, parent);
}

void SessionsPage::noteMemberNames(const FleetFanOut *fanOut)
{
    const QString before = m_longestMember;
    for (const QString &name : fanOut->memberNames()) {
        if (name.size() > m_longestMember.size())
            m_longestMember = name;
    }
    if (m_longestMember == before)
        return;
    if (m_model->showsMembers())
        fitColumns(m_ui->sessionsView, {{SessionListModel::MemberColumn, m_longestMember}});
    if (m_searchModel->showsMembers())
        fitColumns(m_ui->resultsView, {{SessionSearchModel::MemberColumn, m_longestMember}});
}

void SessionsPage::setFanOutFactory(FanOutFactory factory, bool isFleet)
{
    m_fanOutFactory = std::move(factory);
    m_fleet = isFleet && m_fanOutFactory;
    m_model->setShowsMembers(m_fleet && isAllUsers());
    m_searchModel->setShowsMembers(m_fleet && isAllUsers());
}

void SessionsPage::showMemberErrors(const QStringList &errors)
{
    if (errors.isEmpty()) {
        m_ui->messageBar->dismiss();
        return;
    }
    m_ui->messageBar->showMessage(
        tr("Not every member answered; the sessions of the others are shown.\n%1")
            .arg(errors.join(QLatin1Char('\n'))),
        MessageBar::Level::Warning);
}

void SessionsPage::setAdminAdvice(const QString &advice)
{
    m_adminAdvice = advice;
}

void SessionsPage::setAdminAccess(const AdminAccess &admin, const QString &accountPrefix)
{
    m_adminAccess = admin;
    m_accountPrefix = accountPrefix;
    if (isAllUsers())
        refresh();
}

void SessionsPage::setAllUsers(bool allUsers)
{
    m_ui->allUsersCheck->setChecked(allUsers);
}

bool SessionsPage::isAllUsers() const
{
    return m_ui->allUsersCheck->isChecked();
}

void SessionsPage::scheduleAutoRefresh()
{
    if (m_client && isVisible())
        m_autoRefresh.start(refreshDelayMs());
}

int SessionsPage::refreshDelayMs() const
{
    return m_refreshMs * (m_activity->isPushed() ? pushedRefreshFactor : 1);
}

QString SessionsPage::userText() const
{
    if (isAllUsers() && m_fleet)
        return tr("every user on the fleet's %n member(s)", nullptr, m_membersAsked);
    if (isAllUsers())
        return tr("every user (%1)").arg(m_adminAccess.describe());
    return m_identity.isServerAccount() ? tr("the server account") : m_identity.userId;
}

void SessionsPage::updateStatus()
{
    QString text;
    if (!m_client) {
        text = tr("Not connected.");
    } else if (m_needsAdminCommand) {
        text = m_adminAdvice;
    } else if (!m_error.isEmpty()) {
        text = tr("The sessions of %1 could not be listed: %2").arg(userText(), m_error);
    } else if (!m_listed) {
        text = tr("Loading sessions of %1…").arg(userText());
    } else if (m_model->rowCount() == 0) {
        text = tr("%1 has no Claude Code sessions on the server.").arg(userText());
    } else {
        const int count = m_model->rowCount();
        text = tr("%n session(s) of %1", nullptr, count).arg(userText());
        text += tr(", %1 running").arg(m_model->runningCount());
        if (!m_proxy->filterText().isEmpty())
            text += tr(" (%1 shown)").arg(m_proxy->rowCount());
    }
    if (m_listed && !m_refused.isEmpty())
        text += tr(" · %1 not listed: a link out of the home (details in the tooltip)")
                    .arg(m_refused.size());
    if (isLoading() && isAllUsers() && m_fleet)
        text += tr(" · %1 of %2 members answered…").arg(m_membersAnswered).arg(m_membersAsked);
    else if (isLoading() && m_listed)
        text += tr(" · refreshing…");
    showOnLabel(m_ui->statusLabel, text, !m_error.isEmpty());
    m_ui->statusLabel->setToolTip(m_refused.join(QLatin1Char('\n')));
}

void SessionsPage::searchFromWidgets()
{
    const QString tool
        = m_ui->toolCombo->currentIndex() > 0 ? m_ui->toolCombo->currentText() : QString();
    search(m_ui->searchEdit->text(), tool);
}

void SessionsPage::search(const QString &query, const QString &toolName)
{
    if (query.trimmed().isEmpty())
        return;
    if (m_ui->searchEdit->text() != query)
        m_ui->searchEdit->setText(query);
    m_ui->toolCombo->setCurrentIndex(
        toolName.isEmpty() ? 0 : std::max(0, m_ui->toolCombo->findText(toolName)));
    delete m_searchRequest;
    m_searchRequest = nullptr;
    m_searchModel->clear(); // a new search is a new list
    m_ui->resultsPane->show();
    if (!m_client) {
        setSearchStatus(tr("Not connected."), true);
        return;
    }
    m_searchRequest = new QObject(this);
    const QString quoted = QStringLiteral("\u201c%1\u201d").arg(query);
    setSearchStatus(toolName.isEmpty()
            ? tr("Searching the transcripts of %1 for %2…").arg(userText(), quoted)
            : tr("Searching the %1 calls in the transcripts of %2 for %3…")
                  .arg(toolName, userText(), quoted),
        false);
    sessionsearch::Options options;
    options.toolName = toolName;
    if (isAllUsers()) {
        searchAllUsers(query, options, quoted, toolName);
        return;
    }
    m_searchModel->setShowsMembers(false);
    sessionsearch::search(m_client, m_identity, query, options, m_searchRequest,
        [this, quoted, toolName](
            bool ok, const sessionsearch::Result &result, const QString &error) {
            m_searchRequest->deleteLater();
            m_searchRequest = nullptr;
            if (!ok) {
                setSearchStatus(tr("The search failed: %1").arg(error), true);
                Q_EMIT searchFinished(false);
                return;
            }
            updateSearchTitles();
            m_searchModel->setResult(result.hits, result.truncated);
            setSearchStatus(
                searchSummary(int(result.hits.size()), result.truncated, quoted, toolName), false);
            Q_EMIT searchFinished(true);
        });
}

void SessionsPage::searchAllUsers(const QString &query, const sessionsearch::Options &options,
    const QString &quoted, const QString &toolName)
{
    FleetFanOut *fanOut = createFanOut(m_searchRequest);
    noteMemberNames(fanOut);
    m_searchModel->setShowsMembers(fanOut->isFleet());
    updateSearchTitles();
    // Each member's hits are appended as it answers, after those already shown.
    auto errors = std::make_shared<QStringList>();
    sessionsearch::searchAllUsers(fanOut, m_homesRoot, query, options,
        [this, errors](const FanOutMemberResult &member, const sessionsearch::Result &result) {
            if (member.ok)
                m_searchModel->appendHits(result.hits, result.truncated);
            else
                errors->append(member.error);
        });
    const bool fleet = fanOut->isFleet();
    const int asked = int(fanOut->targets().size());
    connect(fanOut, &FleetFanOut::finished, m_searchRequest,
        [this, errors, fleet, asked, quoted, toolName](int failed) {
            m_searchRequest->deleteLater();
            m_searchRequest = nullptr;
            if (failed > 0 && (!fleet || failed == asked)) {
                setSearchStatus(
                    tr("The search failed: %1").arg(errors->join(QStringLiteral("; "))), true);
                Q_EMIT searchFinished(false);
                return;
            }
            QString text = searchSummary(
                m_searchModel->rowCount(), m_searchModel->isTruncated(), quoted, toolName);
            if (failed > 0)
                text += tr(" · not searched: %1").arg(errors->join(QStringLiteral("; ")));
            setSearchStatus(text, failed > 0);
            Q_EMIT searchFinished(failed == 0);
        });
}

QString SessionsPage::searchSummary(
    int count, bool truncated, const QString &quoted, const QString &toolName) const
{
    if (count == 0 && toolName.isEmpty())
        return tr("No hits for %1").arg(quoted);
    if (count == 0)
        return tr("No hits for %1 in %2 calls").arg(quoted, toolName);
    if (truncated)
        return tr("More than %1 hits (first %1 shown)").arg(count);
    return tr("%n hit(s)", nullptr, count);
}

void SessionsPage::setSearchStatus(const QString &text, bool isError)
{
    showOnLabel(m_ui->resultsLabel, text, isError);
}

void SessionsPage::updateSearchTitles()
{
    QHash<QString, QString> titles;
    for (const DiscoveredSession &session : m_model->sessions()) {
        if (!session.title.isEmpty())
            titles.insert(session.sessionId, session.title);
    }
    m_searchModel->setTitles(titles);
}

int SessionsPage::selectedRow() const
{
    const QModelIndexList rows = m_ui->sessionsView->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return -1;
    return m_proxy->mapToSource(rows.first()).row();
}

QString SessionsPage::folderOf(const DiscoveredSession &session) const
{
    if (!session.cwd.isEmpty())
        return session.cwd;
    if (!session.chatId.isEmpty() && !m_model->home().isEmpty())
        return sessiondiscovery::chatWorkDirectory(m_model->home(), session.chatId);
    return {};
}

void SessionsPage::updateActions()
{
    const int row = selectedRow();
    const bool selected = row >= 0;
    const bool inChat = selected && !m_model->session(row).chatId.isEmpty();
    // Continuing starts a run: as the acting user only, never from the all-users list.
    const bool canContinue = inChat && !isAllUsers();
    m_openAction->setEnabled(selected);
    m_resumeAction->setEnabled(canContinue);
    m_forkAction->setEnabled(canContinue);
    const QString onlyChats = !selected || canContinue ? QString()
        : isAllUsers()
        ? tr("Sessions of the all-users list are continued as their user: switch to that user "
             "(Ctrl+K) and continue it from their list")
        : tr("Only sessions in a chat folder (~/chat-<id>) can be continued");
    m_resumeAction->setToolTip(
        onlyChats.isEmpty() ? tr("Continue this session with a new prompt") : onlyChats);
    m_forkAction->setToolTip(onlyChats.isEmpty()
            ? tr("Continue a copy of this session with a new prompt; the original stays as it is")
            : onlyChats);
    m_openFolderAction->setEnabled(selected && !folderOf(m_model->session(row)).isEmpty());
    m_openFolderAction->setToolTip(selected
            ? tr("Browse %1 in the Files tab").arg(folderOf(m_model->session(row)))
            : QString());
}

void SessionsPage::showContextMenu(const QPoint &position)
{
    const QModelIndex index = m_ui->sessionsView->indexAt(position);
    if (!index.isValid())
        return;
    m_ui->sessionsView->selectionModel()->select(
        index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    QMenu menu(this);
    menu.addAction(m_openAction);
    menu.addSeparator();
    menu.addAction(m_resumeAction);
    menu.addAction(m_forkAction);
    menu.addSeparator();
    menu.addAction(m_openFolderAction);
    menu.exec(m_ui->sessionsView->viewport()->mapToGlobal(position));
}

void SessionsPage::openHitAt(const QModelIndex &viewIndex)
{
    if (!viewIndex.isValid())
        return;
    const SessionSearchHit &hit = m_searchModel->hit(viewIndex.row());
    const SessionSource source = sourceForHit(hit);
    Q_EMIT openSessionRequested(
        source, hit.toolUseId, hit.path == source.transcriptPath ? hit.line : 0);
}

SessionSource SessionsPage::sourceFor(const DiscoveredSession &session) const
{
    SessionSource source;
    source.identity = m_identity;
    if (isAllUsers() && !session.home.isEmpty()) {
        // Read as the user whose home holds it: the account without the server's prefix.
        QString account = session.home.mid(session.home.lastIndexOf(QLatin1Char('/')) + 1);
        if (!m_accountPrefix.isEmpty() && account.startsWith(m_accountPrefix))
            account = account.mid(m_accountPrefix.size());
        source.identity = Identity {account, QString()};
    }
    source.transcriptPath = session.path;
    source.sessionId = session.sessionId;
    source.chatId = session.chatId;
    source.cwd = session.cwd;
    source.started = session.started;
    return source;
}

SessionSource SessionsPage::sourceForHit(const SessionSearchHit &hit) const
{
    const QString mainPath = mainTranscriptPath(hit.path);
    int row = m_model->rowOfPath(mainPath);
    for (int candidate = 0; row < 0 && candidate < m_model->rowCount(); ++candidate) {
        if (m_model->session(candidate).sessionId == hit.sessionId)
            row = candidate;
    }
    if (row >= 0)
        return sourceFor(m_model->session(row));
    // Not listed (yet): what the hit itself tells.
    SessionSource source;
    source.identity = m_identity;
    source.transcriptPath = mainPath;
    source.sessionId = hit.sessionId;
    return source;
}

QString SessionsPage::mainTranscriptPath(const QString &path)
{
    const QString subagents = QStringLiteral("/subagents/");
    const int at = path.lastIndexOf(subagents);
    return at > 0 ? path.left(at) + QStringLiteral(".jsonl") : path;
}

} // namespace sandscope
