#include "runpage.h"

#include "runs/artifactscanner.h"
#include "runs/artifactspanel.h"
#include "runs/attachmentlist.h"
#include "runs/promptattachments.h"
#include "runs/rundelegate.h"
#include "runs/rundetailpane.h"
#include "runs/runsummarybar.h"
#include "ui_runpage.h"

#include <QAction>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QHeaderView>
#include <QJsonObject>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QStyle>

#include <algorithm>
#include <utility>

namespace sandscope {

namespace {

using Kind = RunModel::NodeKind;

// Enough to coalesce a burst of events into one relayout/scroll, short enough to feel live.
constexpr int viewUpdateMs = 30;
constexpr int summaryUpdateMs = 250;
constexpr int searchDelayMs = 150;

QModelIndex lastDescendant(const QAbstractItemModel *model, QModelIndex index)
{
    while (model->rowCount(index) > 0)
        index = model->index(model->rowCount(index) - 1, 0, index);
    return index;
}

// Pre-order neighbours; an invalid index stands for "before the first / after the last".
QModelIndex nextInOrder(const QAbstractItemModel *model, QModelIndex index)
{
    if (!index.isValid())
        return model->index(0, 0);
    if (model->rowCount(index) > 0)
        return model->index(0, 0, index);
    while (index.isValid()) {
        const QModelIndex sibling = index.sibling(index.row() + 1, 0);
        if (sibling.isValid())
            return sibling;
        index = index.parent();
    }
    return {};
}

QModelIndex previousInOrder(const QAbstractItemModel *model, const QModelIndex &index)
{
    if (!index.isValid())
        return model->rowCount() > 0 ? lastDescendant(model, QModelIndex()) : QModelIndex();
    if (index.row() > 0)
        return lastDescendant(model, index.sibling(index.row() - 1, 0));
    return index.parent();
}

} // namespace

RunPage::RunPage(QWidget *parent)
    : QWidget(parent)
    , m_ui(std::make_unique<Ui::RunPage>())
    , m_model(new RunModel(this))
    , m_proxy(new RunFilterProxy(this))
    , m_parser(new RunParser(this))
    , m_feed(new RecordingFeed(m_parser, nullptr, this))
    , m_batcher(new RunEventBatcher(m_model, this))
{
    m_ui->setupUi(this);
    setObjectName(QStringLiteral("runPage"));
    m_ui->loadPanel->hide();
    m_ui->noticeLabel->hide();
    m_proxy->setSourceModel(m_model);
    connect(m_parser, &RunParser::eventsReady, this, &RunPage::enqueueEvents);
    connect(m_ui->stopButton, &QPushButton::clicked, this, &RunPage::stopRun);
    connect(m_ui->resumeButton, &QPushButton::clicked, this,
        [this] { sendFollowUp(m_ui->followUpEdit->text()); });
    connect(m_ui->followUpEdit, &QLineEdit::returnPressed, this,
        [this] { sendFollowUp(m_ui->followUpEdit->text()); });
    connect(m_ui->newChatButton, &QPushButton::clicked, this, [this] {
        if (const LiveRunRequest *request = liveRequest())
            Q_EMIT newChatRequested(*request);
    });
    connect(m_feed, &RecordingFeed::recordingFailed, this, [this](const QString &message) {
        showNotice(tr("The run is no longer being recorded: %1").arg(message), true);
    });

    for (QTimer *timer : {&m_viewTimer, &m_summaryTimer, &m_detailTimer, &m_searchTimer})
        timer->setSingleShot(true);
    connect(m_batcher, &RunEventBatcher::batchApplied, this, &RunPage::onBatchApplied);
    m_viewTimer.setInterval(viewUpdateMs);
    m_summaryTimer.setInterval(summaryUpdateMs);
    m_detailTimer.setInterval(summaryUpdateMs);
    m_searchTimer.setInterval(searchDelayMs);
    connect(&m_viewTimer, &QTimer::timeout, this, &RunPage::applyPendingViewWork);
    connect(&m_summaryTimer, &QTimer::timeout, this, &RunPage::updateSummary);
    connect(&m_detailTimer, &QTimer::timeout, m_ui->detailPane, &RunDetailPane::refresh);
    connect(&m_searchTimer, &QTimer::timeout, this,
        [this] { m_proxy->setSearchText(m_ui->searchEdit->text()); });

    connect(m_model, &RunModel::summaryChanged, this, [this] {
        if (!m_summaryTimer.isActive())
            m_summaryTimer.start();
    });
    connect(m_model, &RunModel::dataChanged, this, &RunPage::onSourceDataChanged);

    connect(m_ui->searchEdit, &QLineEdit::textChanged, this, [this] { m_searchTimer.start(); });
    connect(m_ui->searchEdit, &QLineEdit::returnPressed, this, [this] {
        m_searchTimer.stop();
        m_proxy->setSearchText(m_ui->searchEdit->text());
        m_ui->runTree->setFocus();
    });
    m_ui->searchEdit->installEventFilter(this);
    connect(m_ui->errorsOnlyButton, &QToolButton::toggled, m_proxy, &RunFilterProxy::setErrorsOnly);
    connect(m_proxy, &RunFilterProxy::filterChanged, this, [this] {
        // Matches are only useful when they can be seen.
        if (m_proxy->isFiltering())
            m_ui->runTree->expandAll();
    });

    m_ui->errorsOnlyButton->setIcon(RunDelegate::icon(QStringLiteral("error")));
    m_ui->followButton->setIcon(RunDelegate::icon(QStringLiteral("follow")));
    m_ui->nextErrorButton->setIcon(style()->standardIcon(QStyle::SP_ArrowDown));
    m_ui->previousErrorButton->setIcon(style()->standardIcon(QStyle::SP_ArrowUp));
    m_ui->searchEdit->addAction(
        RunDelegate::icon(QStringLiteral("search")), QLineEdit::LeadingPosition);
    connect(m_ui->nextErrorButton, &QToolButton::clicked, this, &RunPage::nextError);
    connect(m_ui->previousErrorButton, &QToolButton::clicked, this, &RunPage::previousError);
    connect(m_ui->expandAllButton, &QToolButton::clicked, this, &RunPage::expandAll);
    connect(m_ui->collapseAllButton, &QToolButton::clicked, this, &RunPage::collapseAll);
    connect(m_ui->followButton, &QToolButton::toggled, this, &RunPage::setFollowing);
    connect(m_ui->cancelLoadButton, &QPushButton::clicked, this, &RunPage::cancelLoading);

    connect(m_ui->attachButton, &QToolButton::clicked, m_ui->attachmentList,
        &AttachmentList::chooseFiles);
    m_ui->attachmentList->takeDropsFrom(m_ui->followUpEdit);
    connect(
        m_ui->attachmentList, &AttachmentList::pathsChanged, this, &RunPage::updateAttachmentPanel);
    updateAttachmentPanel();

    connect(m_ui->artifactsPanel, &ArtifactsPanel::listed, this, &RunPage::artifactsListed);
    connect(m_ui->artifactsPanel, &ArtifactsPanel::openRequested, this,
        [this](const QString &path) { Q_EMIT openFileRequested(userId(), path); });
    connect(m_ui->artifactsPanel, &ArtifactsPanel::countChanged, this, [this](int count) {
        m_ui->bottomTabs->setTabText(
            m_ui->bottomTabs->indexOf(m_ui->artifactsTab), tr("Artifacts (%1)").arg(count));
    });
    m_ui->detailPane->setFileLinkResolver(
        [this](const QModelIndex &index) { return linkedFilePath(index); });
    connect(m_ui->detailPane, &RunDetailPane::openFileRequested, this,
        [this](const QString &path) { Q_EMIT openFileRequested(userId(), path); });

    setupTree();
    setupActions();
    m_ui->splitter->setStretchFactor(0, 3);
    m_ui->splitter->setStretchFactor(1, 2);
    m_ui->splitter->setSizes({600, 400});
    updateSummary();
}

RunPage::~RunPage()
{
    // The children below die after m_ui: whatever they still report on their way out (an
    // aborted request) must not reach this page's widgets.
    for (QObject *child :
        {static_cast<QObject *>(m_upload), static_cast<QObject *>(m_controller)}) {
        if (child)
            QObject::disconnect(child, nullptr, this, nullptr);
    }
}

void RunPage::setupTree()
{
    QTreeView *tree = m_ui->runTree;
    tree->setModel(m_proxy);
    tree->setItemDelegate(new RunDelegate(tree));
    tree->setSelectionBehavior(QAbstractItemView::SelectRows);
    tree->setSelectionMode(QAbstractItemView::SingleSelection);
    tree->setEditTriggers(QAbstractItemView::NoEditTriggers);
    tree->setIconSize(QSize(16, 16));
    tree->installEventFilter(this);

    QHeaderView *header = tree->header();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(RunModel::SummaryColumn, QHeaderView::Stretch);
    const QFontMetrics metrics(tree->font());
    const auto widthFor = [&metrics](const char *sample) {
        return metrics.horizontalAdvance(QLatin1String(sample)) + 28;
    };
    header->resizeSection(RunModel::StatusColumn, widthFor("interrupted"));
    header->resizeSection(RunModel::DurationColumn, widthFor("12 min 59 s"));
    header->resizeSection(RunModel::TokensColumn, widthFor("123,456 in · 12,345 out"));
    header->resizeSection(RunModel::CostColumn, widthFor("$0.000000"));
    for (int column = RunModel::StatusColumn; column < RunModel::ColumnCount; ++column)
        header->setSectionResizeMode(column, QHeaderView::Interactive);

    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, &RunPage::onRowsInserted);
    connect(tree->selectionModel(), &QItemSelectionModel::currentChanged, this,
        [this](const QModelIndex &current) { onCurrentChanged(current); });
    QScrollBar *bar = tree->verticalScrollBar();
    connect(bar, &QScrollBar::valueChanged, this, &RunPage::onScrollValueChanged);
    connect(bar, &QScrollBar::rangeChanged, this, [this] {
        if (m_following)
            scheduleFollowScroll();
    });
    tree->expand(m_proxy->index(0, 0));
}

void RunPage::setupActions()
{
    auto addShortcut = [this](const QKeySequence &keys, void (RunPage::*slot)()) {
        auto *action = new QAction(this);
        action->setShortcut(keys);
        action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        connect(action, &QAction::triggered, this, slot);
        addAction(action);
    };
    addShortcut(QKeySequence(Qt::Key_F8), &RunPage::nextError);
    addShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F8), &RunPage::previousError);
    addShortcut(QKeySequence::Find, &RunPage::focusSearch);

    m_openFileAction = new QAction(tr("Open File in Files"), this);
    m_openFileAction->setObjectName(QStringLiteral("openFileAction"));
    m_openFileAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    m_openFileAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_openFileAction->setToolTip(tr("Open the file of this Read/Write/Edit call in the Files "
                                    "tab, as the run's user"));
    m_openFileAction->setEnabled(false);
    connect(m_openFileAction, &QAction::triggered, this, &RunPage::openFileOfCurrentNode);
    addAction(m_openFileAction);
    m_ui->runTree->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_ui->runTree, &QWidget::customContextMenuRequested, this, &RunPage::showTreeMenu);
}

void RunPage::showTreeMenu(const QPoint &position)
{
    const QModelIndex index = m_ui->runTree->indexAt(position);
    if (index.isValid())
        m_ui->runTree->setCurrentIndex(index);
    QMenu menu(this);
    menu.addAction(m_openFileAction);
    menu.addSeparator();
    menu.addAction(tr("Expand All"), this, &RunPage::expandAll);
    menu.addAction(tr("Collapse All"), this, &RunPage::collapseAll);
    menu.exec(m_ui->runTree->viewport()->mapToGlobal(position));
}

QString RunPage::linkedFilePath(const QModelIndex &sourceIndex) const
{
    const QString path = sourceIndex.isValid()
        ? sourceIndex.siblingAtColumn(0).data(RunModel::FilePathRole).toString()
        : QString();
    if (path.isEmpty())
        return {};
    if (path.startsWith(QLatin1Char('/')))
        return QDir::cleanPath(path);
    if (path == QLatin1String("~") || path.startsWith(QLatin1String("~/")))
        return m_home.isEmpty() ? QString() : QDir::cleanPath(m_home + path.mid(1));
    // Claude resolves a relative path against its cwd, which the init line names.
    QString base = m_model->runIndex().data(RunModel::TextRole).toString();
    if (!base.startsWith(QLatin1Char('/')))
        base = m_workDirectory;
    if (base.isEmpty())
        return {};
    return QDir::cleanPath(base + QLatin1Char('/') + path);
}

void RunPage::openFileOfCurrentNode()
{
    const QString path = linkedFilePath(m_proxy->mapToSource(m_ui->runTree->currentIndex()));
    if (path.isEmpty()) {
        showNotice(tr("The selected node names no file (Read, Write, Edit or NotebookEdit calls "
                      "do)."));
        return;
    }
    Q_EMIT openFileRequested(userId(), path);
}

bool RunPage::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::KeyPress) {
        const auto *key = static_cast<QKeyEvent *>(event);
        if (watched == m_ui->runTree && key->key() == Qt::Key_Escape
            && key->modifiers() == Qt::NoModifier) {
            setFollowing(false);
            return true;
        }
        if (watched == m_ui->searchEdit) {
            if (key->key() == Qt::Key_Escape && !m_ui->searchEdit->text().isEmpty()) {
                m_ui->searchEdit->clear();
                return true;
            }
            if (key->key() == Qt::Key_Down) {
                m_ui->runTree->setFocus();
                return true;
            }
        }
    }
    return QWidget::eventFilter(watched, event);
}

bool RunPage::openFile(const QString &path, QString *errorMessage)
{
    QString why;
    if (m_reader || m_model->rowCount(m_model->runIndex()) > 0) {
        why = tr("this page already shows a run; open %1 in a new page").arg(path);
        if (errorMessage)
            *errorMessage = why;
        return false;
    }
    auto *reader = new RecordingReader(this);
    if (!reader->open(path, &why)) {
        delete reader;
        showNotice(why, true);
        if (errorMessage)
            *errorMessage = why;
        return false;
    }
    m_reader = reader;
    m_filePath = path;
    m_ui->artifactsPanel->setUnavailable(
        tr("Artifacts are listed for live runs: a recording does not say which files changed."));
    connect(reader, &RecordingReader::eventsReady, this, &RunPage::enqueueEvents);
    connect(reader, &RecordingReader::progress, this, [this](qint64 done, qint64 total) {
        m_ui->loadProgress->setValue(total > 0 ? int(done * 1000 / total) : 1000);
    });
    connect(reader, &RecordingReader::finished, this, &RunPage::onLoadFinished);
    m_ui->loadLabel->setText(tr("Reading %1…").arg(QFileInfo(path).fileName()));
    m_ui->loadProgress->setValue(0);
    m_ui->loadPanel->show();
    reader->start(m_parser);
    return true;
}

bool RunPage::isLoading() const
{
    return m_reader && m_reader->isRunning();
}

void RunPage::cancelLoading()
{
    if (m_reader && m_reader->isRunning())
        m_reader->cancel();
}

void RunPage::enqueueEvents(const RunEventBatch &events)
{
    m_batcher->enqueue(events);
}

void RunPage::flushEvents()
{
    m_batcher->flush();
}

void RunPage::onBatchApplied()
{
    if (m_ui->runTree->isVisible())
        m_ui->runTree->doItemsLayout(); // now, so its cost is measured with the batch
    m_viewTimer.stop();
    applyPendingViewWork();
}

void RunPage::onLoadFinished(bool completed)
{
    flushEvents();
    RecordingReader *reader = m_reader;
    m_ui->loadPanel->hide();
    QStringList notes;
    if (completed) {
        m_model->markRunEnded(reader->lastArrivalMs());
    } else if (!reader->readError().isEmpty()) {
        notes.append(reader->readError());
    } else {
        notes.append(tr("Loading cancelled: showing the first %1 of %2 KB.")
                         .arg(reader->bytesRead() / 1024)
                         .arg(reader->totalBytes() / 1024));
    }
    const QStringList problems = reader->problems();
    if (!problems.isEmpty()) {
        notes.append(tr("%n damaged recording line(s) skipped: %1", nullptr, int(problems.size()))
                         .arg(problems.mid(0, 3).join(QStringLiteral("; "))));
    }
    if (!notes.isEmpty())
        showNotice(notes.join(QLatin1Char(' ')), !completed || !problems.isEmpty());
    updateSummary();
    Q_EMIT loadFinished(completed);
}

void RunPage::setRecorder(RunRecorder *recorder)
{
    m_feed->setRecorder(recorder);
}

void RunPage::appendLine(const QByteArray &line, qint64 arrivalMs)
{
    m_feed->feedLine(line, arrivalMs);
}

void RunPage::endRun(qint64 arrivalMs)
{
    flushEvents();
    m_model->markRunEnded(arrivalMs);
    updateSummary();
}

QString RunPage::noticeText() const
{
    return m_ui->noticeLabel->isHidden() ? QString() : m_ui->noticeLabel->text();
}

void RunPage::showNotice(const QString &text, bool isError)
{
    m_ui->noticeLabel->setText(text);
    m_ui->noticeLabel->setStyleSheet(isError
            ? QStringLiteral("QLabel { color: %1; }")
                  .arg(RunDelegate::statusColor(RunModel::Status::Error, palette()).name())
            : QString());
    m_ui->noticeLabel->setVisible(!text.isEmpty());
}

void RunPage::onRowsInserted(const QModelIndex &parent, int first, int last)
{
    if (!parent.isValid()) {
        for (int row = first; row <= last; ++row)
            m_pendingExpand.append(m_proxy->index(row, 0));
    } else if (first == 0) {
        // The first child of a run, a turn or a sub-agent's call: open it once; what the
        // user collapses later stays collapsed.
        const auto kind = Kind(parent.data(RunModel::KindRole).toInt());
        if (kind == Kind::Run || kind == Kind::Turn || kind == Kind::ToolCall)
            m_pendingExpand.append(parent);
    }
    if (!m_pendingExpand.isEmpty() && !m_viewTimer.isActive())
        m_viewTimer.start();
}

void RunPage::scheduleFollowScroll()
{
    m_pendingScroll = true;
    if (!m_viewTimer.isActive())
        m_viewTimer.start();
}

void RunPage::applyPendingViewWork()
{
    QTreeView *tree = m_ui->runTree;
    for (const QPersistentModelIndex &index : std::as_const(m_pendingExpand)) {
        if (!index.isValid())
            continue;
        if (Kind(index.data(RunModel::KindRole).toInt()) == Kind::Turn) {
            // While following, earlier turns fold away when a new one starts (only those
            // opened here, never one the user opened); the tree stays short and quick.
            if (m_following) {
                for (const QPersistentModelIndex &earlier : std::as_const(m_autoExpandedTurns))
                    tree->collapse(earlier);
                m_autoExpandedTurns.clear();
            }
            m_autoExpandedTurns.append(index);
        }
        tree->expand(index);
    }
    m_pendingExpand.clear();
    if (m_following) {
        m_autoScrolling = true;
        tree->scrollToBottom();
        m_autoScrolling = false;
    }
    m_pendingScroll = false;
}

void RunPage::onScrollValueChanged(int value)
{
    if (m_autoScrolling)
        return;
    // The user scrolled: away from the bottom stops following, back at the bottom resumes.
    setFollowing(value >= m_ui->runTree->verticalScrollBar()->maximum());
}

void RunPage::setFollowing(bool following)
{
    if (following == m_following) {
        m_ui->followButton->setChecked(following);
        return;
    }
    m_following = following;
    m_ui->followButton->setChecked(following);
    if (following)
        scheduleFollowScroll();
    Q_EMIT followingChanged(following);
}

void RunPage::onCurrentChanged(const QModelIndex &current)
{
    const QModelIndex source = m_proxy->mapToSource(current);
    m_ui->detailPane->showIndex(source);
    m_openFileAction->setEnabled(!linkedFilePath(source).isEmpty());
}

void RunPage::onSourceDataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight)
{
    const QModelIndex shown = m_ui->detailPane->shownIndex();
    if (!shown.isValid() || shown.parent() != topLeft.parent())
        return;
    if (shown.row() >= topLeft.row() && shown.row() <= bottomRight.row()
        && !m_detailTimer.isActive())
        m_detailTimer.start();
}

void RunPage::updateSummary()
{
    QElapsedTimer cost;
    cost.start();
    // A live chat's run is over between turns too (a follow-up may add another turn).
    const bool ended = isLive() ? !isRunActive() || m_model->runEnded() : m_model->runEnded();
    m_ui->summaryBar->setSummary(m_model->summary(), ended);
    // The summary walks every tool call: on huge runs, refresh it less often.
    m_summaryTimer.setInterval(int(std::clamp<qint64>(
        cost.elapsed() * 10, summaryUpdateMs, RunEventBatcher::maxIntervalMs * 2)));
}

void RunPage::expandAll()
{
    m_ui->runTree->expandAll();
}

void RunPage::collapseAll()
{
    // Down to the turns: the run stays open, or nothing would be left to see.
    QTreeView *tree = m_ui->runTree;
    tree->collapseAll();
    tree->expand(m_proxy->index(0, 0));
}

void RunPage::focusSearch()
{
    m_ui->searchEdit->setFocus(Qt::ShortcutFocusReason);
    m_ui->searchEdit->selectAll();
}

void RunPage::nextError()
{
    goToError(true);
}

void RunPage::previousError()
{
    goToError(false);
}

void RunPage::goToError(bool forward)
{
    QTreeView *tree = m_ui->runTree;
    const QModelIndex start = tree->currentIndex().siblingAtColumn(0);
    QModelIndex index = start;
    bool wrapped = false;
    while (true) {
        index = forward ? nextInOrder(m_proxy, index) : previousInOrder(m_proxy, index);
        if (!index.isValid()) {
            if (wrapped)
                break;
            wrapped = true;
            continue;
        }
        if (index == start)
            break;
        if (RunFilterProxy::isErrorIndex(index)) {
            for (QModelIndex parent = index.parent(); parent.isValid(); parent = parent.parent())
                tree->expand(parent);
            setFollowing(false);
            tree->setCurrentIndex(index);
            tree->scrollTo(index, QAbstractItemView::PositionAtCenter);
            return;
        }
    }
    if (!start.isValid() || !RunFilterProxy::isErrorIndex(start))
        showNotice(tr("No errors in this run."));
}

QTreeView *RunPage::treeView() const
{
    return m_ui->runTree;
}

RunDetailPane *RunPage::detailPane() const
{
    return m_ui->detailPane;
}

RunSummaryBar *RunPage::summaryBar() const
{
    return m_ui->summaryBar;
}

QLineEdit *RunPage::searchEdit() const
{
    return m_ui->searchEdit;
}

QToolButton *RunPage::followButton() const
{
    return m_ui->followButton;
}

QToolButton *RunPage::errorsOnlyButton() const
{
    return m_ui->errorsOnlyButton;
}

QList<QWidget *> RunPage::runControls() const
{
    return {m_ui->stopButton, m_ui->followUpEdit, m_ui->resumeButton, m_ui->newChatButton};
}

// ---------------------------------------------------------------------------------------
// Live chats

bool RunPage::startLiveRun(
    OpenTerminalClient *client, const LiveRunRequest &request, QString *errorMessage)
{
    if (refuseSecondRun(errorMessage))
        return false;
    QString why;
    if (!claudecommand::isValidChatId(request.chatId, &why))
        why = tr("chat \"%1\" refused: %2").arg(request.chatId, why);
    else if (request.prompt.trimmed().isEmpty())
        why = tr("the prompt is empty");
    else if (const QString problem = claudecommand::validate(request.options); !problem.isEmpty())
        why = problem;
    if (!why.isEmpty()) {
        if (errorMessage)
            *errorMessage = why;
        return false;
    }
    m_client = client;
    openLiveRecording(request);
    beginTurn(request);
    return true;
}

bool RunPage::attachLiveRun(OpenTerminalClient *client, const LiveRunRequest &request,
    const RunHandle &handle, QString *errorMessage)
{
    if (refuseSecondRun(errorMessage))
        return false;
    QString why;
    if (!handle.isValid(&why)) {
        if (errorMessage)
            *errorMessage = why;
        return false;
    }
    m_client = client;
    openLiveRecording(request);
    startTurn(request, &handle);
    return true;
}

bool RunPage::refuseSecondRun(QString *errorMessage)
{
    if (!isLive() && !m_reader && !m_uploadingTurn && !m_unstartedFirstTurn
        && m_model->rowCount(m_model->runIndex()) == 0)
        return false;
    if (errorMessage)
        *errorMessage = tr("this page already shows a run; start the new run in a new page");
    return true;
}

void RunPage::openLiveRecording(const LiveRunRequest &request)
{
    ensureController();
    const QString directory
        = m_recordingDirectory.isEmpty() ? RunRecorder::defaultDirectory() : m_recordingDirectory;
    QDir().mkpath(directory);
    const QJsonObject metadata {{QStringLiteral("source"), QStringLiteral("sandscope gui")},
        {QStringLiteral("server"), request.scope.server},
        {QStringLiteral("user_id"), request.identity.userId},
        {QStringLiteral("chat_id"), request.chatId},
        {QStringLiteral("resume_session_id"), request.options.resumeSessionId}};
    QString error;
    if (!m_controller->openRecording(
            RunRecorder::newRecordingPath(directory, request.chatId), metadata, &error))
        showNotice(tr("The run is not recorded: %1").arg(error), true);
}

void RunPage::ensureController()
{
    if (m_controller)
        return;
    m_controller = new RunController(m_client, this);
    connect(m_controller, &RunController::eventsReady, this, &RunPage::enqueueEvents);
    connect(m_controller, &RunController::sessionKnown, this, &RunPage::updateRunControls);
    connect(m_controller, &RunController::recordingFailed, this, [this](const QString &message) {
        showNotice(tr("The run is no longer being recorded: %1").arg(message), true);
    });
    connect(m_controller, &RunController::notice, this,
        [this](const QString &text) { showNotice(text); });
    connect(m_controller, &RunController::turnStarted, this, [this](const RunHandle &handle) {
        const RunPaths paths = handle.paths();
        m_home = handle.home;
        m_workDirectory = paths.workDirectory;
        if (m_artifactsReference.isEmpty())
            m_artifactsReference = paths.promptFile; // written right before claude started
        m_ui->artifactsPanel->watch(
            m_client, liveRequest()->identity, m_workDirectory, m_artifactsReference);
        m_ui->artifactsPanel->setTurnRunning(true);
    });
    connect(m_controller, &RunController::turnEnded, this, &RunPage::onTurnEnded);
}

bool RunPage::sendFollowUp(const QString &prompt)
{
    if (isUploading())
        return false;
    if (!isLive() && m_unstartedFirstTurn) {
        // The first turn's upload failed: try again, with a new prompt if one was typed.
        LiveRunRequest request = *m_unstartedFirstTurn;
        if (!prompt.trimmed().isEmpty())
            request.prompt = prompt;
        m_unstartedFirstTurn.reset();
        beginTurn(request);
        return true;
    }
    if (!m_controller || !m_controller->canFollowUp() || prompt.trimmed().isEmpty())
        return false;
    beginTurn(m_controller->followUpRequest(prompt));
    return true;
}

void RunPage::beginTurn(const LiveRunRequest &request)
{
    const QStringList files = m_ui->attachmentList->localPaths();
    if (files.isEmpty()) {
        if (isLive())
            m_ui->followUpEdit->clear();
        startTurn(request);
        return;
    }
    ensureFileOperations(request.identity);
    m_uploadingTurn = std::make_unique<LiveRunRequest>(request);
    auto *upload = new AttachmentUpload(m_client, m_fileOperations, this);
    m_upload = upload;
    connect(upload, &AttachmentUpload::progress, this,
        [this](int uploaded, int total, const QString &current) {
            m_ui->uploadProgress->setRange(0, total);
            m_ui->uploadProgress->setValue(uploaded);
            m_ui->uploadLabel->setStyleSheet(QString());
            m_ui->uploadLabel->setText(current.isEmpty()
                    ? tr("Uploaded %1 of %2 attachment(s)").arg(uploaded).arg(total)
                    : tr("Uploading %1 (%2 of %3)…").arg(current).arg(uploaded + 1).arg(total));
        });
    connect(upload, &AttachmentUpload::finished, this, &RunPage::onUploadFinished);
    connect(upload, &AttachmentUpload::failed, this, &RunPage::onUploadFailed);
    showNotice(tr("Uploading %n attachment(s) into chat %1 before the turn starts…", nullptr,
        int(files.size()))
                   .arg(request.chatId));
    upload->start(m_home, request.chatId, files);
    updateAttachmentPanel();
    updateRunControls();
}

void RunPage::onUploadFinished(const QStringList &relativePaths)
{
    if (m_upload)
        m_upload->deleteLater();
    LiveRunRequest request = *std::exchange(m_uploadingTurn, nullptr);
    request.prompt = promptattachments::promptWithReferences(request.prompt, relativePaths);
    m_ui->attachmentList->clearPaths();
    if (isLive())
        m_ui->followUpEdit->clear();
    updateAttachmentPanel();
    startTurn(request);
}

void RunPage::onUploadFailed(const QString &message)
{
    if (m_upload)
        m_upload->deleteLater();
    std::unique_ptr<LiveRunRequest> request = std::exchange(m_uploadingTurn, nullptr);
    // Nothing typed is lost: the follow-up text and the attachments stay; a first turn is
    // kept whole and Send tries it again.
    if (!isLive())
        m_unstartedFirstTurn = std::move(request);
    const QString text = isLive()
        ? tr("The attachments were not uploaded, so the turn did not start: %1").arg(message)
        : tr("The attachments were not uploaded, so the run did not start: %1. Fix or remove "
             "them and press Send to try again (the prompt is kept).")
              .arg(message);
    showNotice(text, true);
    m_ui->uploadLabel->setText(message);
    m_ui->uploadLabel->setStyleSheet(
        QStringLiteral("QLabel { color: %1; }")
            .arg(RunDelegate::statusColor(RunModel::Status::Error, palette()).name()));
    updateAttachmentPanel();
    updateRunControls();
    Q_EMIT attachmentUploadFailed(message);
}

void RunPage::updateAttachmentPanel()
{
    const bool uploading = isUploading();
    const bool hasFiles = m_ui->attachmentList->count() > 0;
    m_ui->attachmentPanel->setVisible(hasFiles || uploading);
    m_ui->uploadProgress->setVisible(uploading);
    m_ui->attachmentList->setEnabled(!uploading);
    if (!hasFiles && !uploading)
        m_ui->uploadLabel->clear();
    else if (!uploading && m_ui->uploadLabel->styleSheet().isEmpty())
        m_ui->uploadLabel->setText(tr("%n file(s) will be uploaded and named in the next prompt.",
            nullptr, m_ui->attachmentList->count()));
}

void RunPage::addAttachments(const QStringList &localPaths)
{
    m_ui->attachmentList->addLocalPaths(localPaths);
}

QStringList RunPage::attachments() const
{
    return m_ui->attachmentList->localPaths();
}

AttachmentList *RunPage::attachmentList() const
{
    return m_ui->attachmentList;
}

bool RunPage::isUploading() const
{
    return m_upload && m_upload->isRunning();
}

void RunPage::setFileAccess(
    FileOperations::Acting acting, const QString &profileName, const QString &serverText)
{
    m_fileActing = acting;
    m_auditProfile = profileName;
    m_auditServer = serverText;
    if (m_fileOperations) {
        m_fileOperations->setIdentity(m_fileOperations->identity(), acting);
        m_fileOperations->setAuditContext(profileName, serverText);
    }
}

void RunPage::ensureFileOperations(const Identity &identity)
{
    if (m_fileOperations)
        return;
    m_fileOperations = new FileOperations(m_client, this);
    m_fileOperations->setIdentity(identity, m_fileActing);
    m_fileOperations->setAuditContext(m_auditProfile, m_auditServer);
}

QString RunPage::userId() const
{
    if (const LiveRunRequest *request = liveRequest())
        return request->identity.userId;
    if (m_uploadingTurn)
        return m_uploadingTurn->identity.userId;
    return m_unstartedFirstTurn ? m_unstartedFirstTurn->identity.userId : QString();
}

ArtifactsPanel *RunPage::artifactsPanel() const
{
    return m_ui->artifactsPanel;
}

void RunPage::refreshArtifacts()
{
    m_ui->artifactsPanel->refresh();
}

void RunPage::stopRun()
{
    if (!isRunActive())
        return;
    switch (m_controller->requestStop(m_stopGraceMs)) {
    case RunController::StopStep::Terminating:
        showNotice(
            tr("Stopping the run (SIGTERM, then SIGKILL after %1 s)…").arg(m_stopGraceMs / 1000.0));
        break;
    case RunController::StopStep::Killing:
        showNotice(tr("Killing the run (SIGKILL)…"));
        break;
    case RunController::StopStep::Detached:
    case RunController::StopStep::None:
        break; // the turn's end says what happened
    }
}

bool RunPage::isRunActive() const
{
    return m_controller && m_controller->isActive();
}

QString RunPage::recordingPath() const
{
    return m_controller ? m_controller->recordingPath() : QString();
}

const LiveRunRequest *RunPage::liveRequest() const
{
    return m_controller ? m_controller->request() : nullptr;
}

void RunPage::startTurn(const LiveRunRequest &request, const RunHandle *attachTo)
{
    ensureController();
    const QString &resumed = request.options.resumeSessionId;
    if (attachTo) {
        showNotice(tr("Attached to run %1 of chat %2 as %3 (reading %4)…")
                       .arg(attachTo->runId, request.chatId, request.identity.userId,
                           attachTo->teePath()));
        m_controller->attachTurn(request, *attachTo);
    } else {
        showNotice(resumed.isEmpty()
                ? tr("Running chat %1 as %2…").arg(request.chatId, request.identity.userId)
                : tr("Continuing session %1 of chat %2 as %3…")
                      .arg(resumed, request.chatId, request.identity.userId));
        m_controller->startTurn(request);
    }
    updateRunControls();
    Q_EMIT liveTurnStarted();
}

void RunPage::onTurnEnded(const RunOutcome &outcome)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    flushEvents();
    // A turn without a result line was cut short: its open calls become interrupted. A
    // turn with a result stays open for follow-ups.
    if (!outcome.hasResult)
        endRun(now);
    else
        updateSummary();
    switch (outcome.kind) {
    case RunOutcome::Kind::TransportFailed:
        showNotice(tr("The run failed: %1").arg(outcome.failure), true);
        break;
    case RunOutcome::Kind::Stopped:
        showNotice(outcome.detached
                ? tr("Stopped waiting for the run; it may still be running in the sandbox "
                     "(File → Attach to Run).")
                : tr("The run was stopped before it produced a result."),
            true);
        break;
    case RunOutcome::Kind::NoResult:
        showNotice(
            tr("The run ended without a result (claude exit status %1).").arg(outcome.exitCode),
            true);
        break;
    case RunOutcome::Kind::Ok:
    case RunOutcome::Kind::ErrorResult:
        showNotice(outcome.sessionId.isEmpty()
                ? QString()
                : tr("Session %1 · send a follow-up to continue it.").arg(outcome.sessionId));
        break;
    }
    m_ui->artifactsPanel->setTurnRunning(false); // and lists them once more
    updateRunControls();
    Q_EMIT liveTurnFinished(outcome.ok());
}

void RunPage::updateRunControls()
{
    const bool live = isLive();
    const bool active = isRunActive();
    const bool uploading = isUploading();
    const bool retryFirst = !live && m_unstartedFirstTurn;
    const bool canFollowUp = !uploading && ((live && m_controller->canFollowUp()) || retryFirst);
    m_ui->stopButton->setEnabled(active);
    m_ui->followUpEdit->setEnabled(canFollowUp);
    m_ui->resumeButton->setEnabled(canFollowUp);
    m_ui->attachButton->setEnabled(!uploading && (live || retryFirst));
    m_ui->newChatButton->setEnabled(live);
    for (QWidget *control : runControls())
        control->setToolTip(QString());
    m_ui->stopButton->setToolTip(tr("Stop the running turn (SIGTERM, then SIGKILL)"));
    // A follow-up runs as the run's user, whoever the window acts as now: say so where it is typed.
    if (live)
        m_ui->followUpEdit->setPlaceholderText(
            tr("Follow-up prompt, sent as %1 (resumes the session)").arg(userId()));
    m_ui->resumeButton->setToolTip(
        tr("Resume session %1 with the follow-up prompt")
            .arg(sessionId().isEmpty() ? tr("(not known yet)") : sessionId()));
}

} // namespace sandscope
