#include "slicedsearch.h"

#include "runs/runtreeview.h"
#include "runtree/runfilterproxy.h"

#include <utility>
#include <vector>

namespace sandscope {

namespace {

// A slice's judging, and the time between insertions: an event loop turn holds a slice, the
// view's layout after an insertion and the paint (bench_runopen: at most 50 ms together).
constexpr int sliceMs = 10;
constexpr int insertEveryMs = 250;
constexpr int progressEveryMs = 100;
// Rows the matches' ancestors open: the view lays out every expanded row again after each
// insertion under the run, ~1 µs a row (a collapsed turn is a tenth of that).
constexpr int expandBudgetRows = 5000;

} // namespace

SlicedSearch::SlicedSearch(RunFilterProxy *proxy, RunTreeView *tree, QObject *parent)
    : QObject(parent)
    , m_proxy(proxy)
    , m_tree(tree)
{
    m_timer.setInterval(0);
    m_timer.setObjectName(QStringLiteral("slicedSearchTimer")); // for diagnostics
    connect(&m_timer, &QTimer::timeout, this, &SlicedSearch::step);
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this,
        [this](const QModelIndex &under, int first, int last) {
            if (!isRunning())
                return;
            if (m_stepping) // once the view knows of them too: see step()
                m_toExpand.push_back({QPersistentModelIndex(under), !under.isValid(), first, last});
            else
                expandRows(under, first, last);
        });
    // Another filter, or a reset, ends the walk; the page applies the next search itself.
    connect(m_proxy, &RunFilterProxy::filterChanged, this, [this] {
        if (m_proxy->filterComplete())
            m_timer.stop();
    });
    connect(m_proxy, &QAbstractItemModel::modelReset, this, [this] { m_timer.stop(); });
}

void SlicedSearch::start(const QString &searchText, bool errorsOnly)
{
    m_expandBudget = expandBudgetRows;
    m_rowsShown = false;
    m_proxy->startFilter(searchText, errorsOnly);
    if (m_proxy->filterComplete()) // nothing to walk
        return;
    m_timer.start();
    m_sinceRows.start();
    m_sinceProgress.start();
}

void SlicedSearch::step()
{
    // The turn after an insertion is the view's layout alone (its timer fires in the same
    // turn as this one).
    if (std::exchange(m_inserted, false))
        return;
    // The first rows as soon as there are any, later ones every insertEveryMs.
    const bool insert = !m_rowsShown || m_sinceRows.elapsed() >= insertEveryMs;
    const int before = m_proxy->rowCount(m_proxy->index(0, 0));
    m_stepping = true;
    const bool done = m_proxy->continueFilter(sliceMs, insert);
    m_stepping = false;
    // Expanded with the view's layout pending, once it has heard of the rows too (this
    // object's connection comes first): rows inserted under the collapsed run leave none
    // pending, and each expand() then laid its row out at once (50 ms for a thousand).
    if (!m_toExpand.empty())
        m_tree->layoutLater();
    for (const Inserted &rows : std::exchange(m_toExpand, {})) {
        if (rows.atTop || rows.under.isValid()) // not removed since
            expandRows(rows.under, rows.first, rows.last);
    }
    if (m_proxy->rowCount(m_proxy->index(0, 0)) > before) {
        m_rowsShown = true;
        m_inserted = true;
        m_sinceRows.start();
    }
    if (done)
        m_timer.stop();
    // The progress a few times a second: the label's new width lays the page out again.
    if (done || m_inserted || m_sinceProgress.elapsed() >= progressEveryMs) {
        m_sinceProgress.start();
        Q_EMIT progressed();
    }
}

void SlicedSearch::expandShown()
{
    m_expandBudget = expandBudgetRows;
    const QModelIndex run = m_proxy->index(0, 0);
    if (run.isValid())
        expandRows(run, 0, m_proxy->rowCount(run) - 1);
}

// Depth first from each new row, while the budget lasts: with the view's layout pending (an
// insertion), expand() only marks the row.
void SlicedSearch::expandRows(const QModelIndex &parent, int first, int last)
{
    if (parent.isValid() && !m_tree->isExpanded(parent))
        m_tree->expand(parent);
    std::vector<QModelIndex> pending;
    for (int row = last; row >= first; --row)
        pending.push_back(m_proxy->index(row, 0, parent));
    while (!pending.empty() && m_expandBudget > 0) {
        const QModelIndex index = pending.back();
        pending.pop_back();
        const int rows = m_proxy->rowCount(index);
        if (rows == 0)
            continue;
        m_tree->expand(index);
        m_expandBudget -= rows;
        for (int row = rows - 1; row >= 0; --row)
            pending.push_back(m_proxy->index(row, 0, index));
    }
}

} // namespace sandscope
