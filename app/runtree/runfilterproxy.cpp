#include "runfilterproxy.h"

#include "runtree/runnodedetails.h"

#include <QElapsedTimer>

#include <algorithm>
#include <atomic>
#include <future>
#include <iterator>
#include <numeric>
#include <system_error>

namespace sandscope {

RunFilterProxy::RunFilterProxy(QObject *parent)
    : QAbstractProxyModel(parent)
{
}

bool RunFilterProxy::isErrorIndex(const QModelIndex &index)
{
    if (!index.isValid())
        return false;
    using Kind = RunModel::NodeKind;
    using Status = RunModel::Status;
    const auto kind = Kind(index.data(RunModel::KindRole).toInt());
    // Containers report the outcome of their children; the children are what to look at.
    if (kind == Kind::Run || kind == Kind::Turn)
        return false;
    if (kind == Kind::ApiRetry || kind == Kind::ApiError || kind == Kind::PermissionDenied)
        return true;
    switch (Status(index.data(RunModel::StatusRole).toInt())) {
    case Status::Error:
    case Status::Interrupted:
    case Status::Denied:
    case Status::Retrying:
        return true;
    case Status::None:
    case Status::Running:
    case Status::Ok:
    case Status::Background:
        break;
    }
    return index.data(RunModel::IsErrorRole).toBool();
}

QString RunFilterProxy::searchableText(const QModelIndex &sourceIndex)
{
    const QModelIndex first = sourceIndex.siblingAtColumn(RunModel::SummaryColumn);
    QStringList parts {first.data(Qt::DisplayRole).toString(),
        first.data(RunModel::ToolNameRole).toString(), first.data(RunModel::TextRole).toString()};
    parts += first.data(RunModel::DetailRole).value<RunNodeDetails>().searchTexts();
    return parts.join(QLatin1Char('\n'));
}

QVariant RunFilterProxy::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role == Qt::TextAlignmentRole && orientation == Qt::Horizontal) {
        const bool number = section == RunModel::DurationColumn || section == RunModel::TokensColumn
            || section == RunModel::CostColumn;
        return int((number ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
    }
    return sourceModel() ? sourceModel()->headerData(section, orientation, role) : QVariant();
}

void RunFilterProxy::setSourceModel(QAbstractItemModel *model)
{
    beginResetModel();
    if (sourceModel())
        disconnect(sourceModel(), nullptr, this, nullptr);
    m_runModel = qobject_cast<RunModel *>(model);
    QAbstractProxyModel::setSourceModel(m_runModel);
    m_shown.clear();
    forgetResults();
    m_toPrepare.clear();
    m_preparing = false;
    m_prepared = false;
    m_pending.reset();
    m_progress.reset();
    m_resetting = false;
    if (m_runModel) {
        // A RunModel only appends rows, changes data and resets (it never removes or moves).
        connect(m_runModel, &QAbstractItemModel::rowsAboutToBeInserted, this,
            [this](const QModelIndex &parent, int first, int last) {
                forgetResults(); // kept results no longer show this run
                if (!isFiltering())
                    beginInsertRows(mapFromSource(parent), first, last);
            });
        connect(m_runModel, &QAbstractItemModel::rowsInserted, this,
            [this](const QModelIndex &parent, int first, int last) {
                if (!isFiltering())
                    endInsertRows();
                else
                    onRowsInserted(parent, first, last);
            });
        connect(m_runModel, &QAbstractItemModel::dataChanged, this, &RunFilterProxy::onDataChanged);
        connect(m_runModel, &QAbstractItemModel::modelAboutToBeReset, this, [this] {
            forgetResults();
            m_toPrepare.clear(); // its indexes go with the reset
            m_pending.reset();
            m_progress.reset();
            m_preparing = false;
            m_prepared = false;
            m_resetting = true;
            beginResetModel();
        });
        connect(m_runModel, &QAbstractItemModel::modelReset, this, [this] {
            m_resetting = false;
            rebuild();
            endResetModel();
        });
        connect(m_runModel, &QAbstractItemModel::headerDataChanged, this,
            &QAbstractItemModel::headerDataChanged);
        connect(m_runModel, &QObject::destroyed, this, [this] {
            beginResetModel();
            m_runModel = nullptr;
            m_shown.clear();
            forgetResults();
            m_toPrepare.clear();
            m_pending.reset();
            m_progress.reset();
            m_preparing = false;
            endResetModel();
        });
        rebuild();
    }
    endResetModel();
}

// Proxy indexes carry the source node (its internal pointer); without a filter their rows are
// the source's.
QModelIndex RunFilterProxy::index(int row, int column, const QModelIndex &parent) const
{
    if (!m_runModel || row < 0 || column < 0 || column >= RunModel::ColumnCount
        || (parent.isValid() && parent.column() != 0))
        return {};
    const QModelIndex sourceParent = mapToSource(parent);
    int sourceRow = row;
    if (isFiltering()) {
        const auto shown = m_shown.constFind(parent.internalPointer());
        if (!shown || row >= shown->rows.size())
            return {};
        sourceRow = shown->rows.at(row);
    }
    const QModelIndex source = m_runModel->index(sourceRow, column, sourceParent);
    return source.isValid() ? createIndex(row, column, source.internalPointer()) : QModelIndex();
}

QModelIndex RunFilterProxy::parent(const QModelIndex &child) const
{
    if (!child.isValid() || !m_runModel)
        return {};
    return mapFromSource(m_runModel->parent(mapToSource(child)));
}

QModelIndex RunFilterProxy::sibling(int row, int column, const QModelIndex &index) const
{
    if (row == index.row() && index.isValid())
        return column >= 0 && column < RunModel::ColumnCount
            ? createIndex(row, column, index.internalPointer())
            : QModelIndex();
    return this->index(row, column, parent(index));
}

int RunFilterProxy::rowCount(const QModelIndex &parent) const
{
    if (!m_runModel || (parent.isValid() && parent.column() != 0))
        return 0;
    if (!isFiltering())
        return m_runModel->rowCount(mapToSource(parent));
    const auto shown = m_shown.constFind(parent.internalPointer());
    return !shown ? 0 : int(shown->rows.size());
}

int RunFilterProxy::columnCount(const QModelIndex &parent) const
{
    return m_runModel && (!parent.isValid() || parent.column() == 0) ? int(RunModel::ColumnCount)
                                                                     : 0;
}

bool RunFilterProxy::hasChildren(const QModelIndex &parent) const
{
    return rowCount(parent) > 0;
}

Qt::ItemFlags RunFilterProxy::flags(const QModelIndex &index) const
{
    if (!isFiltering() || !index.isValid())
        return QAbstractProxyModel::flags(index);
    // A RunModel's flags differ only in ItemNeverHasChildren, decided here by the shown rows:
    // the node itself is not read (a view lays out tens of thousands of matches at once).
    const Qt::ItemFlags flags = Qt::ItemIsSelectable | Qt::ItemIsEnabled;
    const auto shown = m_shown.constFind(index.internalPointer());
    return !shown || shown->rows.isEmpty() ? flags | Qt::ItemNeverHasChildren : flags;
}

QModelIndex RunFilterProxy::mapToSource(const QModelIndex &proxyIndex) const
{
    if (!m_runModel || !proxyIndex.isValid())
        return {};
    return m_runModel->indexForInternalPointer(proxyIndex.internalPointer(), proxyIndex.column());
}

QModelIndex RunFilterProxy::mapFromSource(const QModelIndex &sourceIndex) const
{
    if (!m_runModel || !sourceIndex.isValid() || sourceIndex.model() != m_runModel)
        return {};
    if (!isFiltering())
        return createIndex(sourceIndex.row(), sourceIndex.column(), sourceIndex.internalPointer());
    const auto shown = m_shown.constFind(sourceIndex.internalPointer());
    if (!shown)
        return {};
    return createIndex(shown->row, sourceIndex.column(), sourceIndex.internalPointer());
}

void RunFilterProxy::setSearchText(const QString &text)
{
    const QString simplified = text.simplified();
    if (simplified == m_searchText)
        return;
    const Filter previous = m_filter;
    m_searchText = simplified;
    m_filter.words = filterOf(simplified, false).words;
    filterChangedNow(previous);
}

RunFilterProxy::Filter RunFilterProxy::filterOf(const QString &simplified, bool errorsOnly)
{
    Filter filter;
    filter.errorsOnly = errorsOnly;
    if (!simplified.isEmpty()) {
        for (const QString &word : simplified.toCaseFolded().split(QLatin1Char(' ')))
            filter.words.append(word.toUtf8());
    }
    return filter;
}

quint32 RunFilterProxy::newGeneration()
{
    // Unique over all proxies, so two proxies of one model never read each other's verdicts.
    static std::atomic<quint32> generations {1};
    quint32 generation = ++generations;
    if (generation == 0) // 0 marks "no verdict" on the nodes
        generation = ++generations;
    return generation;
}

bool RunFilterProxy::filterPrepared(const QString &searchText, bool errorsOnly) const
{
    const Filter filter = filterOf(searchText.simplified(), errorsOnly);
    return !m_runModel || filter.words.isEmpty() || filter == m_filter
        || std::any_of(m_remembered.cbegin(), m_remembered.cend(),
            [&filter](const Remembered &kept) { return kept.filter == filter; })
        || (m_pending && m_pending->done && m_pending->filter == filter);
}

bool RunFilterProxy::prepareFilter(const QString &searchText, bool errorsOnly, int budgetMs)
{
    if (filterPrepared(searchText, errorsOnly))
        return true;
    const Filter filter = filterOf(searchText.simplified(), errorsOnly);
    if (!m_pending || !(m_pending->filter == filter)) {
        m_pending.emplace();
        m_pending->filter = filter;
        m_pending->generation = newGeneration();
        // Typing on: the walk of a narrower filter asks only the nodes that matched.
        // (Not from a walk under way: it shows only part of the run.)
        m_pending->narrowing = !m_progress && isFiltering() && filter.narrows(m_filter);
        if (m_pending->narrowing) {
            m_shown.forEach([this](const void *node, const Shown &shown) {
                if (node && shown.matches)
                    m_pending->toJudge.push_back(m_runModel->indexForInternalPointer(node));
            });
            m_pending->total = qint64(m_pending->toJudge.size());
        } else {
            m_pending->toJudge.assign(1, QModelIndex());
            m_pending->total = m_runModel->nodeCount();
        }
        m_visited = 0;
    }
    Pending &pending = *m_pending;
    QElapsedTimer clock;
    clock.start();
    int visited = 0;
    while (!pending.toJudge.empty()) {
        if (++visited % 256 == 0 && clock.elapsed() >= budgetMs)
            return false;
        const QModelIndex index = pending.toJudge.back();
        pending.toJudge.pop_back();
        ++m_visited;
        if (index.isValid() && m_runModel->filterMemo(index, pending.generation) < 0)
            m_runModel->setFilterMemo(index, pending.generation, evaluate(index, filter));
        if (pending.narrowing)
            continue;
        for (int row = m_runModel->rowCount(index) - 1; row >= 0; --row)
            pending.toJudge.push_back(m_runModel->index(row, 0, index));
    }
    pending.done = true;
    return true;
}

int RunFilterProxy::preparedPercent() const
{
    const qint64 total = m_pending ? m_pending->total : (m_runModel ? m_runModel->nodeCount() : 0);
    return int(std::min<qint64>(99, m_visited * 100 / std::max<qint64>(1, total)));
}

bool RunFilterProxy::prepareSearchTexts(int budgetMs)
{
    if (!m_runModel || m_prepared)
        return true;
    if (!m_preparing) {
        m_toPrepare.assign(1, QModelIndex());
        m_preparing = true;
        m_visited = 0;
    }
    QElapsedTimer clock;
    clock.start();
    int visited = 0;
    while (!m_toPrepare.empty()) {
        if (++visited % 256 == 0 && clock.elapsed() >= budgetMs)
            return false;
        const QModelIndex index = m_toPrepare.back();
        m_toPrepare.pop_back();
        ++m_visited;
        if (index.isValid())
            m_runModel->foldedSearchText(index);
        for (int row = m_runModel->rowCount(index) - 1; row >= 0; --row)
            m_toPrepare.push_back(m_runModel->index(row, 0, index));
    }
    m_preparing = false;
    m_prepared = true; // nodes added later get theirs on use
    return true;
}

void RunFilterProxy::releaseSearchTexts()
{
    m_toPrepare.clear();
    m_preparing = false;
    m_prepared = false;
    if (m_runModel && m_filter.words.isEmpty())
        m_runModel->dropSearchTexts();
}

void RunFilterProxy::setErrorsOnly(bool errorsOnly)
{
    if (errorsOnly == m_filter.errorsOnly)
        return;
    const Filter previous = m_filter;
    m_filter.errorsOnly = errorsOnly;
    filterChangedNow(previous);
}

bool RunFilterProxy::Filter::narrows(const Filter &wider) const
{
    if (wider.errorsOnly && !errorsOnly)
        return false;
    // Each of the wider filter's words must be inside one of these: a text with all of
    // these words has all of those.
    return std::all_of(wider.words.cbegin(), wider.words.cend(), [this](const QByteArray &w) {
        return std::any_of(words.cbegin(), words.cend(),
            [&w](const QByteArray &word) { return word.contains(w); });
    });
}

// One layoutChanged: the persistent indexes (the view's current and selected rows, and one
// per expanded row) move to their node's new row, or go when it is hidden.
// Typing on only narrows: the walk covers the nodes shown so far and tests only those that
// matched. Deleting a keystroke goes back to a result kept while the run did not change.
void RunFilterProxy::filterChangedNow(const Filter &previous)
{
    const quint32 previousGeneration = m_generation;
    // The verdicts prepareFilter() worked out for this filter, if it did.
    const bool prepared = m_pending && m_pending->done && m_pending->filter == m_filter;
    m_generation = prepared ? m_pending->generation : newGeneration();
    m_pending.reset();
    // A walk under way leaves part of a result: neither kept nor narrowed from.
    const bool previousComplete = !m_progress;
    m_progress.reset();
    const bool walkNext = std::exchange(m_walkNext, false);
    if (!m_resetting) {
        Q_EMIT layoutAboutToBeChanged();
        const QModelIndexList before = persistentIndexList();
        QVector<QModelIndex> sources;
        sources.reserve(before.size());
        for (const QModelIndex &index : before)
            sources.append(mapToSource(index));
        Remembered kept;
        const auto found = std::find_if(m_remembered.begin(), m_remembered.end(),
            [this](const Remembered &result) { return result.filter == m_filter; });
        const bool reuse = found != m_remembered.end() && m_filter.isFiltering();
        if (reuse) {
            kept = *found;
            m_remembered.erase(found);
        }
        const PointerHash<Shown> shownBefore = m_shown;
        if (previous.isFiltering() && previousComplete) {
            m_remembered.prepend({previous, previousGeneration, shownBefore, m_matchCount});
            qsizetype fitting = 0;
            for (qint64 nodes = 0; fitting < std::min<qsizetype>(4, m_remembered.size());
                 ++fitting) {
                nodes += m_remembered.at(fitting).shown.size();
                if (nodes > m_rememberedNodesLimit)
                    break;
            }
            while (m_remembered.size() > fitting)
                m_remembered.removeLast();
        }
        if (reuse) {
            m_shown = kept.shown; // the nodes' verdicts of that filter are still right
            m_matchCount = kept.matchCount;
            m_generation = kept.generation;
        } else if (walkNext && m_filter.isFiltering()) {
            beginWalk();
        } else {
            const bool narrower
                = previousComplete && previous.isFiltering() && m_filter.narrows(previous);
            rebuild(narrower ? &shownBefore : nullptr);
        }
        QModelIndexList after;
        after.reserve(before.size());
        for (const QModelIndex &source : std::as_const(sources))
            after.append(mapFromSource(source));
        changePersistentIndexList(before, after);
        Q_EMIT layoutChanged();
    }
    Q_EMIT filterChanged();
}

bool RunFilterProxy::evaluate(const QModelIndex &index, const Filter &filter) const
{
    if (filter.errorsOnly && !isErrorIndex(index))
        return false;
    return filter.words.isEmpty() || m_runModel->matchesWords(index, filter.words);
}

bool RunFilterProxy::matchesItself(const QModelIndex &index) const
{
    const int known = m_runModel->filterMemo(index, m_generation);
    if (known >= 0)
        return known == 1;
    const bool matches = evaluate(index, m_filter);
    m_runModel->setFilterMemo(index, m_generation, matches);
    return matches;
}

// The shown nodes of the current filter, in one walk of the run: a node is shown when it
// matches or has a shown child. The run's turns are split between this thread and one more
// (bench_runsearch: the walk over 100,000 nodes is bound by reading them from memory).
void RunFilterProxy::rebuild(const PointerHash<Shown> *within)
{
    const int shownBefore = int(m_shown.size());
    m_shown.clear();
    m_matchCount = 0;
    if (!m_runModel || !isFiltering())
        return;
    const QModelIndex run = m_runModel->runIndex();
    if (!run.isValid()) {
        m_shown.insert(nullptr, Shown {});
        return;
    }
    Shown runBefore;
    if (within)
        runBefore = within->value(run.internalPointer());
    QVector<int> turns = runBefore.rows;
    if (!within) {
        turns.resize(m_runModel->RunModel::rowCount(run));
        std::iota(turns.begin(), turns.end(), 0);
    }
    const bool runMatches = (!within || runBefore.matches) && matchesItself(run);
    int half = int(turns.size()) / 2;
    std::future<Walk> later;
    if (half > 0) {
        try {
            later = std::async(
                std::launch::async, [this, run, within, rows = turns.mid(turns.size() - half)] {
                    return walk(run, rows, within);
                });
        } catch (const std::system_error &) { // no thread to be had: all of it here
            half = 0;
        }
    }
    Walk first = walk(run, turns.mid(0, turns.size() - half), within);
    Walk second = half > 0 ? later.get() : Walk();

    m_shown.reserve(within ? int(within->size())
                           : std::max(shownBefore,
                               int(first.below.size() + second.below.size() + first.children.size()
                                   + second.children.size())
                                   + 2));
    for (Walk *part : {&first, &second}) {
        for (auto &[node, shown] : part->below)
            m_shown.insert(node, std::move(shown));
        m_matchCount += part->matchCount;
    }
    for (auto &[node, shown] : first.children)
        m_shown.insert(node, std::move(shown));
    for (auto &[node, shown] : second.children) {
        shown.row += int(first.rows.size()); // after the first half's
        m_shown.insert(node, std::move(shown));
    }
    QVector<int> runRows = std::move(first.rows);
    runRows += second.rows;
    if (!runMatches && runRows.isEmpty()) {
        m_shown.insert(nullptr, Shown {});
        return;
    }
    m_matchCount += runMatches ? 1 : 0;
    m_shown.insert(run.internalPointer(), Shown {0, runMatches, std::move(runRows)});
    m_shown.insert(nullptr, Shown {0, false, {run.row()}});
}

// The shown nodes among `rows` of `parent` and below them. Iterative: a hostile file can nest
// sub-agents deeper than the stack would allow. Reads the model and writes only the nodes'
// filter memos, so two walks of separate subtrees can run at once.
RunFilterProxy::Walk RunFilterProxy::walk(
    const QModelIndex &parent, const QVector<int> &rows, const PointerHash<Shown> *within) const
{
    struct Frame {
        QModelIndex source;
        QVector<int> candidates; // the rows to look at, with `within`
        int next = 0;
        int rows = 0;
        bool matches = false;
        QVector<int> shownRows;
    };
    Walk result;
    std::vector<Frame> stack(1); // the parent's: every row it is given is a candidate
    stack.back().source = parent;
    stack.back().candidates = rows;
    stack.back().rows = int(rows.size());
    const auto keep = [&](const QModelIndex &node, Shown shown) {
        (stack.size() == 1 ? result.children : result.below)
            .emplace_back(node.internalPointer(), std::move(shown));
    };
    while (true) {
        Frame &top = stack.back();
        if (top.next < top.rows) {
            const bool isStart = stack.size() == 1;
            const int row = within || isStart ? top.candidates.at(top.next) : top.next;
            ++top.next;
            // (RunModel's own, not virtual: 100,000 calls)
            const QModelIndex child = m_runModel->RunModel::index(row, 0, top.source);
            Shown before;
            if (within)
                before = within->value(child.internalPointer());
            const int childRows
                = within ? int(before.rows.size()) : m_runModel->RunModel::rowCount(child);
            const bool matches = (!within || before.matches) && matchesItself(child);
            if (childRows == 0) { // most nodes are leaves: no frame for them
                if (matches) {
                    ++result.matchCount;
                    keep(child, Shown {int(top.shownRows.size()), true, {}});
                    top.shownRows.append(row);
                }
                continue;
            }
            Frame frame;
            frame.source = child;
            frame.candidates = std::move(before.rows);
            frame.rows = childRows;
            frame.matches = matches;
            stack.push_back(std::move(frame));
            continue;
        }
        Frame done = std::move(stack.back());
        stack.pop_back();
        if (stack.empty()) {
            result.rows = std::move(done.shownRows);
            return result;
        }
        if (!done.matches && done.shownRows.isEmpty())
            continue;
        result.matchCount += done.matches ? 1 : 0;
        QVector<int> &siblings = stack.back().shownRows;
        const int sourceRow = done.source.row();
        keep(done.source, Shown {int(siblings.size()), done.matches, std::move(done.shownRows)});
        siblings.append(sourceRow);
    }
}

void RunFilterProxy::onRowsInserted(const QModelIndex &sourceParent, int first, int last)
{
    for (int row = first; row <= last; ++row) {
        const QModelIndex source = m_runModel->index(row, 0, sourceParent);
        if (!awaitsWalk(source))
            update(source);
    }
}

void RunFilterProxy::onDataChanged(
    const QModelIndex &topLeft, const QModelIndex &bottomRight, const QVector<int> &roles)
{
    forgetResults();
    if (!isFiltering()) {
        Q_EMIT dataChanged(mapFromSource(topLeft), mapFromSource(bottomRight), roles);
        return;
    }
    const QModelIndex parent = topLeft.parent();
    for (int row = topLeft.row(); row <= bottomRight.row(); ++row) {
        const QModelIndex source = m_runModel->index(row, 0, parent);
        if (awaitsWalk(source))
            continue;
        update(source);
        if (const QModelIndex shown = mapFromSource(source); shown.isValid())
            Q_EMIT dataChanged(shown.siblingAtColumn(topLeft.column()),
                shown.siblingAtColumn(bottomRight.column()), roles);
    }
}

// A new or changed node: shown when it matches (its ancestors too) or has shown children.
void RunFilterProxy::update(const QModelIndex &source)
{
    const bool matches = matchesItself(source);
    const auto shown = m_shown.find(source.internalPointer());
    if (!shown) {
        if (matches)
            show(source, true);
        return;
    }
    if (shown->matches != matches) {
        m_matchCount += matches ? 1 : -1;
        shown->matches = matches;
    }
    if (!matches && shown->rows.isEmpty())
        hide(source);
}

// Loops, not recursion, up the ancestors: a hostile file can nest sub-agents deeper than the
// stack would allow.
void RunFilterProxy::show(const QModelIndex &source, bool matches)
{
    std::vector<QModelIndex> hidden {source}; // the node, then its hidden ancestors
    for (QModelIndex parent = source.parent();
         parent.isValid() && !m_shown.contains(parent.internalPointer()); parent = parent.parent())
        hidden.push_back(parent);
    for (size_t i = hidden.size(); i-- > 0;) { // outermost first
        const QModelIndex &node = hidden[i];
        const bool nodeMatches = i == 0 && matches;
        const QModelIndex sourceParent = node.parent();
        const void *parentKey = sourceParent.internalPointer();
        const QVector<int> before = m_shown.value(parentKey).rows;
        const int row
            = int(std::lower_bound(before.begin(), before.end(), node.row()) - before.begin());
        beginInsertRows(mapFromSource(sourceParent), row, row);
        // (No reference into m_shown is held across an insert: it may rehash.)
        m_shown.insert(node.internalPointer(), Shown {row, nodeMatches, {}});
        m_shown[parentKey].rows.insert(row, node.row());
        m_matchCount += nodeMatches ? 1 : 0;
        for (int later = row; later < before.size(); ++later)
            ++m_shown[m_runModel->index(before.at(later), 0, sourceParent).internalPointer()].row;
        endInsertRows();
    }
}

void RunFilterProxy::hide(const QModelIndex &source)
{
    for (QModelIndex node = source; node.isValid();) {
        const QModelIndex sourceParent = node.parent();
        const void *parentKey = sourceParent.internalPointer();
        const int row = m_shown.value(node.internalPointer()).row;
        beginRemoveRows(mapFromSource(sourceParent), row, row);
        m_shown.remove(node.internalPointer());
        QVector<int> &siblings = m_shown[parentKey].rows;
        siblings.remove(row);
        const QVector<int> after = siblings.mid(row);
        for (const int sourceRow : after)
            --m_shown[m_runModel->index(sourceRow, 0, sourceParent).internalPointer()].row;
        endRemoveRows();
        const Shown &parent = m_shown[parentKey];
        // The parent goes too when it was shown only for this node.
        node = sourceParent.isValid() && !parent.matches && parent.rows.isEmpty() ? sourceParent
                                                                                  : QModelIndex();
    }
}

void RunFilterProxy::startFilter(const QString &searchText, bool errorsOnly)
{
    const QString simplified = searchText.simplified();
    const Filter filter = filterOf(simplified, errorsOnly);
    if (filter == m_filter && simplified == m_searchText)
        return;
    const Filter previous = m_filter;
    m_searchText = simplified;
    m_filter = filter;
    m_walkNext = true;
    filterChangedNow(previous);
}

int RunFilterProxy::filterPercent() const
{
    if (!m_progress)
        return 100;
    const int turns = m_runModel->RunModel::rowCount(m_runModel->runIndex());
    return int(std::min<qint64>(99, qint64(m_progress->judged) * 100 / std::max(1, turns)));
}

bool RunFilterProxy::continueFilter(int budgetMs, bool insertRows)
{
    if (!m_progress)
        return true;
    // The shown nodes' table built ahead of its growth a slice at a time (384 KB: 1-4 ms of
    // first touches at worst), so that the insertion that grows it only moves entries.
    m_shown.prepareGrowth(16384);
    judgeTurns(budgetMs);
    const int turns = m_runModel->RunModel::rowCount(m_runModel->runIndex());
    if (insertRows || m_progress->judged >= turns)
        showJudgedTurns();
    if (m_progress->shown < m_runModel->RunModel::rowCount(m_runModel->runIndex()))
        return false;
    finishWalk();
    return true;
}

// Inside filterChangedNow()'s layout change: the run is shown (its own verdict now), its turns
// come with continueFilter().
void RunFilterProxy::beginWalk()
{
    m_shown.clear();
    m_matchCount = 0;
    const QModelIndex run = m_runModel ? m_runModel->runIndex() : QModelIndex();
    if (!run.isValid()) {
        rebuild();
        return;
    }
    const bool runMatches = matchesItself(run);
    m_matchCount = runMatches ? 1 : 0;
    m_shown.insert(run.internalPointer(), Shown {0, runMatches, {}});
    m_shown.insert(nullptr, Shown {0, false, {run.row()}});
    m_progress.emplace();
}

// The verdicts of the turns after those judged, depth first, for about budgetMs: reading a
// node's lines is most of a big run's search, and it happens here, not in the walk.
void RunFilterProxy::judgeTurns(int budgetMs)
{
    Progress &progress = *m_progress;
    const QModelIndex run = m_runModel->runIndex();
    const int turns = m_runModel->RunModel::rowCount(run);
    const int from = progress.judged;
    QElapsedTimer clock;
    clock.start();
    // The clock read every 64 nodes; a budget of 0 judges a node a call (tests take steps).
    const int every = budgetMs > 0 ? 64 : 1;
    int visited = 0;
    while (progress.judged < turns) {
        if (progress.toJudge.empty())
            progress.toJudge.push_back(m_runModel->index(progress.judged, 0, run));
        while (!progress.toJudge.empty()) {
            if (visited > 0 && visited % every == 0 && clock.elapsed() >= budgetMs)
                break;
            ++visited;
            const QModelIndex index = progress.toJudge.back();
            progress.toJudge.pop_back();
            matchesItself(index);
            for (int row = m_runModel->RunModel::rowCount(index) - 1; row >= 0; --row)
                progress.toJudge.push_back(m_runModel->index(row, 0, index));
        }
        if (!progress.toJudge.empty())
            break;
        ++progress.judged;
    }
    if (progress.judged == from)
        return;
    // The turns judged now walked at once, while their nodes are in the cache: the insertion
    // only moves them.
    QVector<int> rows(progress.judged - from);
    std::iota(rows.begin(), rows.end(), from);
    Walk part = walk(run, rows, nullptr);
    Walk &ready = progress.ready;
    for (auto &[node, shown] : part.children) {
        shown.row += int(ready.rows.size());
        ready.children.emplace_back(node, std::move(shown));
    }
    std::move(part.below.begin(), part.below.end(), std::back_inserter(ready.below));
    ready.rows += part.rows;
    ready.matchCount += part.matchCount;
}

// The judged turns' shown nodes (a walk over verdicts; nodes added since are judged in it),
// appended under the run in one insertion.
void RunFilterProxy::showJudgedTurns()
{
    Progress &progress = *m_progress;
    if (progress.judged <= progress.shown)
        return;
    const QModelIndex run = m_runModel->runIndex();
    Walk part = std::exchange(progress.ready, Walk());
    if (std::exchange(progress.stale, false)) {
        QVector<int> rows(progress.judged - progress.shown);
        std::iota(rows.begin(), rows.end(), progress.shown);
        part = walk(run, rows, nullptr);
    }
    progress.shown = progress.judged;
    if (part.rows.isEmpty())
        return;
    // A live change may have hidden the run meanwhile (shown only for its rows).
    if (!m_shown.contains(run.internalPointer()))
        show(run, false);
    const int first = int(m_shown.value(run.internalPointer()).rows.size());
    beginInsertRows(mapFromSource(run), first, first + int(part.rows.size()) - 1);
    for (auto &[node, shown] : part.below)
        m_shown.insert(node, std::move(shown));
    for (auto &[node, shown] : part.children) {
        shown.row += first;
        m_shown.insert(node, std::move(shown));
    }
    m_shown[run.internalPointer()].rows += part.rows;
    m_matchCount += part.matchCount;
    endInsertRows();
}

// Complete: the run stays only when it matches or shows a row, as rebuild() keeps it.
void RunFilterProxy::finishWalk()
{
    m_progress.reset();
    m_shown.dropPreparedGrowth();
    const QModelIndex run = m_runModel->runIndex();
    const auto shown = m_shown.constFind(run.internalPointer());
    if (!shown || shown->matches || !shown->rows.isEmpty())
        return;
    beginRemoveRows(QModelIndex(), 0, 0);
    m_shown.remove(run.internalPointer());
    m_shown[nullptr].rows.clear();
    endRemoveRows();
}

bool RunFilterProxy::awaitsWalk(const QModelIndex &source)
{
    if (!m_progress)
        return false;
    const QModelIndex run = m_runModel->runIndex();
    QModelIndex turn = source;
    while (turn.isValid() && turn.parent() != run)
        turn = turn.parent();
    if (!turn.isValid() || turn.row() < m_progress->shown)
        return false;
    if (turn.row() < m_progress->judged) // walked already: again, as it is now
        m_progress->stale = true;
    return true;
}

} // namespace sandscope
