#include "runpage.h"

#include "export/runjsonformat.h"
#include "runs/artifactscanner.h"
#include "runs/artifactspanel.h"
#include "runs/attachmentlist.h"
#include "runs/livechat.h"
#include "runs/playbackbar.h"
#include "runs/rundelegate.h"
#include "runs/rundetailpane.h"
#include "runs/runpageplayback.h"
#include "runs/runpagesearch.h"
#include "runs/runpagesession.h"
#include "runs/runsummarybar.h"
#include "runs/timelineview.h"
#include "runs/treeorder.h"
#include "timeline/timelinemodel.h"
#include "ui_runpage.h"
#include "util/allocatortuning.h"

#include <QAction>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QPushButton>
#include <QScopedValueRollback>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QStyle>

#include <algorithm>
#include <functional>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <utility>

namespace sandscope {

namespace {

using Kind = RunModel::NodeKind;

// Enough to coalesce a burst of events into one relayout/scroll, short enough to feel live.
constexpr int viewUpdateMs = 30;
constexpr int summaryUpdateMs = 250;
constexpr int searchDelayMs = 150;

} // namespace

RunPage::RunPage(QWidget *parent)
    : QWidget(parent)
    , m_ui(std::make_unique<Ui::RunPage>())
    , m_model(new RunModel(this))
    , m_proxy(new RunFilterProxy(this))
    , m_timeline(new TimelineModel(this))
    , m_batcher(new RunEventBatcher(m_model, this))
{
    m_replay = new RunPagePlayback(this);
    m_ui->setupUi(this);
    setObjectName(QStringLiteral("runPage"));
    m_ui->loadPanel->hide();
    m_ui->noticeLabel->hide();
    m_proxy->setSourceModel(m_model);
    setupLiveChat();

    for (QTimer *timer :
        {&m_viewTimer, &m_summaryTimer, &m_detailTimer, &m_searchTimer, &m_progressTimer})
        timer->setSingleShot(true);
    // Named for diagnostics (bench_runopen names the timer of the longest event).
    m_viewTimer.setObjectName(QStringLiteral("viewTimer"));
    m_catchUpTimer.setObjectName(QStringLiteral("catchUpTimer"));
    m_summaryTimer.setObjectName(QStringLiteral("summaryTimer"));
    m_progressTimer.setObjectName(QStringLiteral("progressTimer"));
    m_detailTimer.setObjectName(QStringLiteral("detailTimer"));
    m_searchTimer.setObjectName(QStringLiteral("searchTimer"));
    // A progress bar repaints at once when its text changes, and the window's other pending
    // paints with it: the tree's layout, inside the reader's slice (65 ms and more while a
    // 1 GB recording loaded). Shown a few times a second, each in a turn of its own.
    m_progressTimer.setInterval(summaryUpdateMs);
    connect(&m_progressTimer, &QTimer::timeout, this,
        [this] { m_ui->loadProgress->setValue(m_loadPermille); });
    connect(m_batcher, &RunEventBatcher::batchApplied, this, &RunPage::onBatchApplied);
    connect(this, &RunPage::loadFinished, this, [this] {
        if (m_pendingReveal.second > 0) // the line was not read when it was asked for
            revealToolCall(m_pendingReveal.first, m_pendingReveal.second);
    });
    connect(m_batcher, &RunEventBatcher::drained, this, [this] {
        if (m_drainingLoad)
            onLoadFinished(m_loadCompletedBeforeDrain);
    });
    m_viewTimer.setInterval(viewUpdateMs);
    m_summaryTimer.setInterval(summaryUpdateMs);
    m_detailTimer.setInterval(summaryUpdateMs);
    m_searchTimer.setInterval(searchDelayMs);
    connect(&m_viewTimer, &QTimer::timeout, this, &RunPage::applyPendingViewWork);
    m_catchUpTimer.setSingleShot(true);
    m_catchUpTimer.setInterval(0);
    connect(&m_catchUpTimer, &QTimer::timeout, this, &RunPage::onViewCaughtUp);
    connect(&m_summaryTimer, &QTimer::timeout, this, &RunPage::updateSummary);
    connect(&m_detailTimer, &QTimer::timeout, m_ui->detailPane, &RunDetailPane::refresh);
    connect(&m_searchTimer, &QTimer::timeout, this,
        [this] { m_search->apply(m_ui->searchEdit->text(), m_proxy->errorsOnly()); });

    connect(m_model, &RunModel::summaryChanged, this, [this] {
        if (!m_summaryTimer.isActive())
            m_summaryTimer.start();
    });
    connect(m_model, &RunModel::dataChanged, this, &RunPage::onSourceDataChanged);
    connect(m_model, &RunModel::modelAboutToBeReset, this, [this] {
        m_currentToolUseId = m_proxy->mapToSource(m_ui->runTree->currentIndex())
                                 .siblingAtColumn(0)
                                 .data(RunModel::ToolUseIdRole)
                                 .toString();
    });
    connect(m_model, &RunModel::modelReset, this, &RunPage::onModelReset);
    m_ui->playbackBar->hide();
    m_ui->playbackButton->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    connect(m_ui->playbackButton, &QToolButton::toggled, this, &RunPage::setPlaybackActive);
    connect(m_ui->playbackBar, &PlaybackBar::liveRequested, this, &RunPage::leavePlayback);

    connect(m_ui->searchEdit, &QLineEdit::textChanged, this, [this] { m_searchTimer.start(); });
    connect(m_ui->searchEdit, &QLineEdit::returnPressed, this, [this] {
        m_searchTimer.stop();
        m_search->apply(m_ui->searchEdit->text(), m_proxy->errorsOnly());
        m_ui->runTree->setFocus();
    });
    m_ui->searchEdit->installEventFilter(this);
    m_search = new RunPageSearch(this);

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
    // The load panel shows reading the run, or preparing playback (never both).
    connect(m_ui->cancelLoadButton, &QPushButton::clicked, this, [this] {
        if (isPreparingPlayback())
            m_replay->cancelPreparing();
        else
            cancelLoading();
    });

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
    setupTimeline();
    setupActions();
    // The detail pane holds a command's output: at the default size it shows more than a
    // couple of lines.
    m_ui->splitter->setStretchFactor(0, 1);
    m_ui->splitter->setStretchFactor(1, 1);
    m_ui->splitter->setSizes({500, 500});
    updateSummary();
}

RunPage::~RunPage()
{
    // The chat dies before the widgets it drives, and whatever its turn or upload still
    // report on their way out (an aborted request) does not reach this page.
    QObject::disconnect(m_chat, nullptr, this, nullptr);
    delete m_chat;
    // The widgets and models are destroyed after this page's members (its timers): what they
    // report on their way out (the tree's scroll range when it is hidden, a current index
    // when the model goes) must not reach the page.
    const QList<QObject *> senders {m_ui->runTree->verticalScrollBar(),
        m_ui->runTree->selectionModel(), m_ui->timelineView->selectionModel(), m_model, m_proxy,
        m_timeline};
    for (QObject *sender : senders)
        QObject::disconnect(sender, nullptr, this, nullptr);
#ifdef __GLIBC__
    // A big run is hundreds of thousands of small blocks; glibc keeps freed ones for reuse
    // and the tab's memory would stay with the process. Given back once the page (and its
    // model, destroyed after this body) is gone.
    QTimer::singleShot(0, QCoreApplication::instance(), [] { malloc_trim(0); });
#endif
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
    header->resizeSection(
        RunModel::TokensColumn, widthFor("12,345 in · 1,234 out · 123,456 cache"));
    header->resizeSection(RunModel::CostColumn, widthFor("$0.000000"));
    header->resizeSection(RunModel::ToolCallsColumn, widthFor("Calls"));
    header->resizeSection(RunModel::ErrorsColumn, widthFor("Errors"));
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

void RunPage::setupTimeline()
{
    m_timeline->setSourceModel(m_model);
    TimelineView *view = m_ui->timelineView;
    view->setModel(m_timeline);
    connect(view->selectionModel(), &QItemSelectionModel::currentChanged, this,
        [this](const QModelIndex &current) { onTimelineCurrentChanged(current); });
    // Fit run and Fit selection beside the tabs, while the timeline is shown.
    auto *corner = new QWidget(m_ui->viewTabs);
    auto *cornerLayout = new QHBoxLayout(corner);
    cornerLayout->setContentsMargins(0, 0, 4, 0);
    cornerLayout->setSpacing(2);
    auto addButton = [&](const QString &name, const QString &text, const QString &tip,
                         void (TimelineView::*slot)()) {
        auto *button = new QToolButton(corner);
        button->setObjectName(name);
        button->setText(text);
        button->setToolTip(tip);
        button->setAutoRaise(true);
        connect(button, &QToolButton::clicked, view, slot);
        cornerLayout->addWidget(button);
    };
    addButton(QStringLiteral("fitRunButton"), tr("Fit run"),
        tr("Show the whole run (Ctrl+Shift+R; 0 in the timeline)"), &TimelineView::fitRun);
    addButton(QStringLiteral("fitSelectionButton"), tr("Fit selection"),
        tr("Zoom to the selected call with its sub-agent's work, or to the selected turn "
           "(Ctrl+Shift+S; F or a double-click in the timeline)"),
        &TimelineView::fitSelection);
    m_ui->viewTabs->setCornerWidget(corner, Qt::TopRightCorner);
    corner->hide();
    connect(m_ui->viewTabs, &QTabWidget::currentChanged, this, [this, corner] {
        const bool timeline = isTimelineShown();
        corner->setVisible(timeline);
        // What is selected stays in view when switching.
        if (timeline && m_ui->timelineView->currentIndex().isValid())
            m_ui->timelineView->scrollTo(m_ui->timelineView->currentIndex());
        else if (!timeline && m_ui->runTree->currentIndex().isValid())
            m_ui->runTree->scrollTo(m_ui->runTree->currentIndex());
    });
    // Page-wide keys; fitting shows the timeline first.
    auto addTimelineAction
        = [this](const QString &name, const QKeySequence &keys, const std::function<void()> &act) {
              auto *action = new QAction(this);
              action->setObjectName(name);
              action->setShortcut(keys);
              action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
              connect(action, &QAction::triggered, this, act);
              QWidget::addAction(action);
          };
    addTimelineAction(
        QStringLiteral("fitRunAction"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R), [this] {
            setTimelineShown(true);
            m_ui->timelineView->fitRun();
        });
    addTimelineAction(QStringLiteral("fitSelectionAction"),
        QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), [this] {
            setTimelineShown(true);
            m_ui->timelineView->fitSelection();
        });
    addTimelineAction(QStringLiteral("switchViewAction"),
        QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L),
        [this] { setTimelineShown(!isTimelineShown()); });
}

// A bar selected in the timeline selects its node in the tree (opening its ancestors).
void RunPage::onTimelineCurrentChanged(const QModelIndex &current)
{
    if (m_syncingSelection || !current.isValid())
        return;
    const QScopedValueRollback<bool> guard(m_syncingSelection, true);
    const QModelIndex source = m_timeline->sourceIndex(current);
    const QModelIndex shown = m_proxy->mapFromSource(source);
    if (!shown.isValid()) {
        // Hidden by the search or "errors only": its details are shown all the same.
        m_ui->detailPane->showIndex(source);
        return;
    }
    setFollowing(false);
    QTreeView *tree = m_ui->runTree;
    tree->setCurrentIndex(shown);
    tree->scrollTo(shown);
}

void RunPage::setupActions()
{
    auto addShortcut = [this](const QKeySequence &keys, auto slot) {
        auto *action = new QAction(this);
        action->setShortcut(keys);
        action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        connect(action, &QAction::triggered, this, slot);
        addAction(action);
    };
    addShortcut(QKeySequence(Qt::Key_F8), &RunPage::nextError);
    addShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F8), &RunPage::previousError);
    addShortcut(QKeySequence::Find, &RunPage::focusSearch);
    addShortcut(
        QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P), [this] { m_ui->playbackButton->toggle(); });

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
    const QString home = sessionSource() ? sessionSource()->home() : m_chat->home();
    if (path == QLatin1String("~") || path.startsWith(QLatin1String("~/")))
        return home.isEmpty() ? QString() : QDir::cleanPath(home + path.mid(1));
    // Claude resolves a relative path against its cwd, which the init line names.
    QString base = m_model->runIndex().data(RunModel::TextRole).toString();
    if (!base.startsWith(QLatin1Char('/')))
        base = m_chat->workDirectory();
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
    if (watched == m_ui->searchEdit
        && (event->type() == QEvent::FocusIn || event->type() == QEvent::FocusOut))
        m_search->fieldFocusChanged(event->type() == QEvent::FocusIn);
    if (event->type() == QEvent::KeyPress) {
        const auto *key = static_cast<QKeyEvent *>(event);
        if (watched == m_ui->runTree && key->key() == Qt::Key_Escape
            && key->modifiers() == Qt::NoModifier) {
            setFollowing(false);
            return true;
        }
        if (watched == m_ui->runTree && m_replay->playback() && key->key() == Qt::Key_Space
            && key->modifiers() == Qt::NoModifier) {
            m_ui->playbackBar->togglePlaying();
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
    if (RunJsonFormat::looksLikeExport(path))
        return openExport(path, errorMessage);
    auto *reader = new RecordingLoader(this);
    if (!reader->open(path, &why)) {
        delete reader;
        showNotice(why, true);
        if (errorMessage)
            *errorMessage = why;
        return false;
    }
    m_reader = reader;
    m_filePath = path;
    // A big file's lines are read again from it when a node's JSON is shown, not kept: they
    // were most of a 100 MB recording's memory.
    if (QFileInfo(path).size() >= m_keepLinesBelowBytes) {
        reader->setKeepLines(false);
        m_model->setLineSource(reader->lineSource());
        m_model->setReadBackSearchBudget(QFileInfo(path).size() / 32);
    }
    m_ui->artifactsPanel->setUnavailable(
        tr("Artifacts are listed for live runs: a recording does not say which files changed."));
    connect(reader, &RecordingLoader::eventsReady, this, &RunPage::enqueueEvents);
    connect(reader, &RecordingLoader::progress, this, &RunPage::showLoadProgress);
    connect(reader, &RecordingLoader::finished, this, &RunPage::onLoadFinished);
    connect(m_batcher, &RunEventBatcher::backlogDrained, reader, &RecordingLoader::resume);
    m_batcher->setSpentBatchSink(
        [reader = QPointer<RecordingLoader>(reader)](RunEventBatch &&events) {
            if (reader)
                reader->giveBack(std::move(events));
        });
    m_ui->loadLabel->setText(tr("Reading %1…").arg(QFileInfo(path).fileName()));
    m_ui->loadProgress->setValue(0);
    m_ui->loadPanel->show();
    reader->start();
    return true;
}

void RunPage::setSlicedSearchAboveNodes(qint64 nodes)
{
    m_search->setSlicedAboveNodes(nodes);
}

bool RunPage::openSession(
    OpenTerminalClient *client, const SessionSource &source, QString *errorMessage)
{
    if (refuseSecondRun(errorMessage))
        return false;
    m_sessionView = new RunPageSession(this, client, source);
    m_sessionView->start();
    return true;
}

const SessionSource *RunPage::sessionSource() const
{
    return m_sessionView ? &m_sessionView->source() : nullptr;
}

TranscriptFollower *RunPage::sessionFollower() const
{
    return m_sessionView ? m_sessionView->follower() : nullptr;
}

void RunPage::revealToolCall(const QString &toolUseId, qint64 line)
{
    if (toolUseId.isEmpty() && line <= 0)
        return;
    flushEvents();
    QModelIndex source = m_model->indexForToolUseId(toolUseId);
    if (!source.isValid() && line > 0)
        source = treeorder::lastWithData(m_model, RunModel::LineNumberRole, line);
    const QModelIndex index = source.isValid() ? m_proxy->mapFromSource(source) : QModelIndex();
    // A call may come later (a followed session grows); a line's node is there once it is read.
    m_pendingReveal = {toolUseId, isLoading() ? line : 0};
    if (index.isValid()) {
        m_pendingReveal = {};
        selectNode(index);
    }
}

bool RunPage::isLoading() const
{
    return (m_reader && (m_reader->isRunning() || m_drainingLoad))
        || (sessionFollower() && sessionFollower()->state() == TranscriptFollower::State::Reading);
}

void RunPage::showLoadProgress(qint64 done, qint64 total)
{
    m_loadPermille = total > 0 ? int(done * 1000 / total) : 1000;
    if (!m_progressTimer.isActive())
        m_progressTimer.start();
}

void RunPage::cancelLoading()
{
    if (m_reader && m_reader->isRunning())
        m_reader->cancel();
    if (m_drainingLoad)
        flushEvents(); // everything is parsed already: show it now (drained() ends the load)
    if (TranscriptFollower *follower = sessionFollower())
        follower->stop();
}

void RunPage::enqueueEvents(const RunEventBatch &events)
{
    if (!m_replay->addEvents(events))
        m_batcher->enqueue(events);
    // A file is read faster than the tree grows: its reader waits while the backlog (memory)
    // is full, until RunEventBatcher::backlogDrained (connected in openFile).
    if (m_reader && m_reader->isRunning() && m_batcher->backlogFull())
        m_reader->pause();
}

void RunPage::flushEvents()
{
    m_batcher->flush();
    if (m_catchUpTimer.isActive()) {
        m_catchUpTimer.stop();
        onViewCaughtUp();
    }
}

void RunPage::onBatchApplied()
{
    if (m_proxy->isFiltering())
        m_search->updateMatchCount(); // new nodes may match
    if ((!m_pendingReveal.first.isEmpty()
            && m_model->indexForToolUseId(m_pendingReveal.first).isValid())
        || (m_pendingReveal.second > 0 && !isLoading()))
        QTimer::singleShot(
            0, this, [this] { revealToolCall(m_pendingReveal.first, m_pendingReveal.second); });
    // Expansions now: while the batch's rows wait for their layout, expanding or folding a row
    // only marks it (after the layout each one searches and shifts the laid-out rows). The
    // layout itself gets an event loop turn of its own (the view's delayed layout), as it
    // costs in proportion to the rows shown: in the batch's turn it doubled the longest
    // freeze while a 100 MB recording loaded (bench_runopen). Following scrolls after it.
    m_viewTimer.stop();
    applyPendingExpansions();
    m_sinceBatch.start();
    m_catchUpTimer.start();
}

// The turn after a batch's, after the tree's layout: its cost counts toward the batch's.
void RunPage::onViewCaughtUp()
{
    m_viewTimer.stop();
    applyPendingViewWork();
    m_batcher->setFollowUpCostMs(m_sinceBatch.elapsed());
}

bool RunPage::openExport(const QString &path, QString *errorMessage)
{
    ExportedRun exported;
    QString why;
    if (!RunJsonFormat::readFile(path, &exported, &why)) {
        showNotice(why, true);
        if (errorMessage)
            *errorMessage = why;
        return false;
    }
    m_filePath = path;
    m_skipped = exported.skipped;
    m_ui->artifactsPanel->setUnavailable(
        tr("Artifacts are listed for live runs: an export does not say which files changed."));
    m_model->restore(exported.run, exported.summary);
    QStringList notes {
        tr("A Sandscope export%1.").arg(exported.redacted ? tr(", secrets redacted") : QString())};
    if (!m_skipped.isEmpty())
        notes.append(tr("%n item(s) were not exported: %1", nullptr, int(m_skipped.size()))
                         .arg(m_skipped.mid(0, 3).join(QStringLiteral("; "))));
    showNotice(notes.join(QLatin1Char(' ')), !m_skipped.isEmpty());
    updateSummary();
    // After the caller connected the page, like a file read in slices.
    QMetaObject::invokeMethod(
        this, [this] { Q_EMIT loadFinished(true); }, Qt::QueuedConnection);
    return true;
}

void RunPage::onLoadFinished(bool completed)
{
    // Parsing can outrun the tree: the rest goes in budgeted slices, so the window stays
    // responsive to the end, and the load finishes when the tree has everything.
    if (m_batcher->hasPending()) {
        m_loadCompletedBeforeDrain = completed;
        m_drainingLoad = true;
        m_ui->loadLabel->setText(
            tr("Building the tree of %1…").arg(QFileInfo(m_filePath).fileName()));
        m_batcher->drain();
        return;
    }
    m_drainingLoad = false;
    m_batcher->setSpentBatchSink({}); // the reader's worker has ended
    RecordingLoader *reader = m_reader;
    m_ui->loadPanel->hide();
    QStringList notes;
    m_loadCompleted = completed;
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
    m_skipped = problems;
    if (!problems.isEmpty()) {
        notes.append(tr("%n damaged recording line(s) skipped: %1", nullptr, int(problems.size()))
                         .arg(problems.mid(0, 3).join(QStringLiteral("; "))));
    }
    if (!notes.isEmpty())
        showNotice(notes.join(QLatin1Char(' ')), !completed || !problems.isEmpty());
    updateSummary();
    // The parsed events are gone, the nodes stay: the pages between them go back, in a turn
    // of their own (about 10 ms at 1 GB; in this one it made the load's longest freeze).
    QTimer::singleShot(0, this, [] { releaseFreedMemory(); });
    Q_EMIT loadFinished(completed);
}

void RunPage::endRun(qint64 arrivalMs)
{
    flushEvents();
    if (m_replay->addEnd(arrivalMs))
        return;
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
    applyPendingExpansions();
    if (m_following) {
        m_autoScrolling = true;
        m_ui->runTree->scrollToBottom();
        m_autoScrolling = false;
    }
    m_pendingScroll = false;
}

void RunPage::applyPendingExpansions()
{
    QTreeView *tree = m_ui->runTree;
    for (const QPersistentModelIndex &index : std::as_const(m_pendingExpand)) {
        if (!index.isValid())
            continue;
        const auto kind = Kind(index.data(RunModel::KindRole).toInt());
        if (kind == Kind::Turn) {
            // While following, earlier turns fold away when a new one starts, with the calls
            // opened in them (only those opened here, never one the user opened): the tree
            // stays short and quick. Each row kept open is a persistent index that every
            // layout of the tree looks up for each row it lays out; a 1 GB recording's
            // 22,000 opened calls made that lookup a sixth of the main thread while it loaded
            // (bench_runopen).
            if (m_following) {
                for (const QPersistentModelIndex &earlier : std::as_const(m_autoExpandedCalls))
                    tree->collapse(earlier);
                for (const QPersistentModelIndex &earlier : std::as_const(m_autoExpandedTurns))
                    tree->collapse(earlier);
                m_autoExpandedCalls.clear();
                m_autoExpandedTurns.clear();
            }
            m_autoExpandedTurns.append(index);
        } else if (kind == Kind::ToolCall) {
            m_autoExpandedCalls.append(index);
        }
        tree->expand(index);
    }
    m_pendingExpand.clear();
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
    if (m_syncingSelection)
        return;
    // The timeline selects the node's bar (or its nearest ancestor's: a result selects its
    // turn) and brings it into view.
    const QScopedValueRollback<bool> guard(m_syncingSelection, true);
    TimelineView *view = m_ui->timelineView;
    const QModelIndex item = m_timeline->indexForSource(source);
    if (!item.isValid()) {
        view->selectionModel()->clear();
        return;
    }
    view->selectionModel()->setCurrentIndex(item, QItemSelectionModel::ClearAndSelect);
    if (view->isVisible())
        view->scrollTo(item);
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
    const bool ended = isLive() && !m_replay->playback() ? !isRunActive() || m_model->runEnded()
                                                         : m_model->runEnded();
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
    const QModelIndex start = m_ui->runTree->currentIndex().siblingAtColumn(0);
    const QModelIndex index
        = treeorder::findWrapping(m_proxy, start, forward, &RunFilterProxy::isErrorIndex);
    if (index.isValid())
        selectNode(index);
    else if (!start.isValid() || !RunFilterProxy::isErrorIndex(start))
        showNotice(tr("No errors in this run."));
}

// Shows the node (a proxy index) selected in the middle of the tree, and stays there.
void RunPage::selectNode(const QModelIndex &index)
{
    setFollowing(false);
    for (QModelIndex parent = index.parent(); parent.isValid(); parent = parent.parent())
        m_ui->runTree->expand(parent);
    m_ui->runTree->setCurrentIndex(index);
    m_ui->runTree->scrollTo(index, QAbstractItemView::PositionAtCenter);
}

// ---------------------------------------------------------------------------------------
// Playback (RunPagePlayback)

void RunPage::setPlaybackActive(bool active)
{
    if (active && !m_replay->playback())
        enterPlayback();
    else if (!active && m_replay->isPreparing())
        m_replay->cancelPreparing();
    else if (!active && m_replay->playback())
        leavePlayback();
}

bool RunPage::isPreparingPlayback() const
{
    return m_replay->isPreparing();
}

bool RunPage::enterPlayback(QString *errorMessage)
{
    return m_replay->enter(errorMessage);
}

void RunPage::leavePlayback()
{
    m_replay->leave();
}

RunPlayback *RunPage::playback() const
{
    return m_replay->playback();
}

// After a playback jump the tree starts folded: open the run and its last turn, as following
// would, and keep the call that was current when it is still there.
void RunPage::onModelReset()
{
    QTreeView *tree = m_ui->runTree;
    const QModelIndex run = m_proxy->index(0, 0);
    tree->expand(run);
    const int turns = m_proxy->rowCount(run);
    if (turns > 0)
        tree->expand(m_proxy->index(turns - 1, 0, run));
    const QModelIndex current = m_currentToolUseId.isEmpty()
        ? QModelIndex()
        : m_proxy->mapFromSource(m_model->indexForToolUseId(m_currentToolUseId));
    if (current.isValid()) {
        for (QModelIndex up = current.parent(); up.isValid(); up = up.parent())
            tree->expand(up);
        tree->setCurrentIndex(current);
        tree->scrollTo(current);
    }
    onCurrentChanged(tree->currentIndex());
    updateSummary();
    if (m_following)
        scheduleFollowScroll();
}

PlaybackBar *RunPage::playbackBar() const
{
    return m_ui->playbackBar;
}

QToolButton *RunPage::playbackButton() const
{
    return m_ui->playbackButton;
}

QTreeView *RunPage::treeView() const
{
    return m_ui->runTree;
}

TimelineView *RunPage::timelineView() const
{
    return m_ui->timelineView;
}

bool RunPage::isTimelineShown() const
{
    return m_ui->viewTabs->currentWidget() == m_ui->timelineTab;
}

void RunPage::setTimelineShown(bool shown)
{
    m_ui->viewTabs->setCurrentWidget(shown ? m_ui->timelineTab : m_ui->treeTab);
    if (shown)
        m_ui->timelineView->setFocus(Qt::ShortcutFocusReason);
    else
        m_ui->runTree->setFocus(Qt::ShortcutFocusReason);
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
// Live chats: LiveChat drives them; the page shows what they report.

void RunPage::setupLiveChat()
{
    LiveChatWidgets widgets;
    widgets.stopButton = m_ui->stopButton;
    widgets.followUpEdit = m_ui->followUpEdit;
    widgets.sendButton = m_ui->resumeButton;
    widgets.attachButton = m_ui->attachButton;
    widgets.newChatButton = m_ui->newChatButton;
    widgets.attachmentList = m_ui->attachmentList;
    widgets.attachmentPanel = m_ui->attachmentPanel;
    widgets.uploadProgress = m_ui->uploadProgress;
    widgets.uploadLabel = m_ui->uploadLabel;
    m_chat = new LiveChat(widgets, this);
    connect(m_chat, &LiveChat::eventsReady, this, &RunPage::enqueueEvents);
    connect(m_chat, &LiveChat::noticeRequested, this, &RunPage::showNotice);
    connect(m_chat, &LiveChat::turnEndedInView, this, [this](bool hasResult) {
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        flushEvents();
        // A turn without a result line was cut short: its open calls become interrupted. A
        // turn with a result stays open for follow-ups.
        if (!hasResult)
            endRun(now);
        else
            updateSummary();
    });
    connect(m_chat, &LiveChat::turnRunningChanged, this, [this](bool running) {
        if (running)
            m_ui->artifactsPanel->watch(m_chat->client(), liveRequest()->identity,
                m_chat->workDirectory(), m_chat->artifactsReference());
        m_ui->artifactsPanel->setTurnRunning(running); // when it ends, lists them once more
        m_ui->timelineView->setLiveClock(running); // running calls grow with the clock
    });
    connect(m_chat, &LiveChat::liveTurnStarted, this, &RunPage::liveTurnStarted);
    connect(m_chat, &LiveChat::liveTurnFinished, this, &RunPage::liveTurnFinished);
    connect(m_chat, &LiveChat::newChatRequested, this, &RunPage::newChatRequested);
    connect(m_chat, &LiveChat::attachmentUploadFailed, this, &RunPage::attachmentUploadFailed);
}

bool RunPage::startLiveRun(
    OpenTerminalClient *client, const LiveRunRequest &request, QString *errorMessage)
{
    return !refuseSecondRun(errorMessage) && m_chat->start(client, request, errorMessage);
}

bool RunPage::attachLiveRun(OpenTerminalClient *client, const LiveRunRequest &request,
    const RunHandle &handle, QString *errorMessage)
{
    return !refuseSecondRun(errorMessage) && m_chat->attach(client, request, handle, errorMessage);
}

bool RunPage::refuseSecondRun(QString *errorMessage)
{
    if (!isLive() && !m_reader && !sessionFollower() && !m_chat->hasPendingTurn()
        && m_model->rowCount(m_model->runIndex()) == 0)
        return false;
    if (errorMessage)
        *errorMessage = tr("this page already shows a run; start the new run in a new page");
    return true;
}

bool RunPage::sendFollowUp(const QString &prompt)
{
    return m_chat->sendFollowUp(prompt);
}

void RunPage::stopRun()
{
    m_chat->stop();
}

bool RunPage::isLive() const
{
    return m_chat->isLive();
}

bool RunPage::isRunActive() const
{
    return m_chat->isActive();
}

QString RunPage::sessionId() const
{
    return m_chat->sessionId();
}

QString RunPage::recordingPath() const
{
    return m_chat->recordingPath();
}

void RunPage::setRecordingDirectory(const QString &directory)
{
    m_chat->setRecordingDirectory(directory);
}

void RunPage::setStopGraceMs(int ms)
{
    m_chat->setStopGraceMs(ms);
}

const LiveRunRequest *RunPage::liveRequest() const
{
    return m_chat->request();
}

QString RunPage::userId() const
{
    return sessionSource() ? sessionSource()->identity.userId : m_chat->userId();
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
    return m_chat->isUploading();
}

void RunPage::setFileAccess(
    FileOperations::Acting acting, const QString &profileName, const QString &serverText)
{
    m_chat->setFileAccess(acting, profileName, serverText);
}

FileOperations *RunPage::fileOperations() const
{
    return m_chat->fileOperations();
}

ArtifactsPanel *RunPage::artifactsPanel() const
{
    return m_ui->artifactsPanel;
}

void RunPage::refreshArtifacts()
{
    m_ui->artifactsPanel->refresh();
}

} // namespace sandscope
