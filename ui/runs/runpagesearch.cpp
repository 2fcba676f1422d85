#include "runs/runpagesearch.h"

#include "runs/runpage.h"
#include "runs/slicedsearch.h"
#include "runtree/runfilterproxy.h"
#include "runtree/runmodel.h"
#include "ui_runpage.h"
#include "util/allocatortuning.h"

#include <QLabel>
#include <QTreeView>

namespace sandscope {

RunPageSearch::RunPageSearch(RunPage *page)
    : QObject(page)
    , m_page(page)
{
    m_prepareTimer.setInterval(0);
    m_prepareTimer.setObjectName(QStringLiteral("searchPrepareTimer")); // for diagnostics
    connect(&m_prepareTimer, &QTimer::timeout, this, &RunPageSearch::prepareSlice);
    connect(page->m_ui->errorsOnlyButton, &QToolButton::toggled, this, [this](bool on) {
        apply(m_deferred ? m_deferred->first : m_page->m_proxy->searchText(), on);
    });
    m_sliced = new SlicedSearch(page->m_proxy, page->m_ui->runTree, this);
    connect(m_sliced, &SlicedSearch::progressed, this, &RunPageSearch::searched);
    connect(page->m_proxy, &RunFilterProxy::filterChanged, this, [this] {
        // Matches are only useful when they can be seen (a big run's within a budget).
        if (m_page->m_proxy->isFiltering() && m_page->m_model->lineSource())
            m_sliced->expandShown();
        else if (m_page->m_proxy->isFiltering())
            m_page->m_ui->runTree->expandAll();
        searched();
    });
    page->m_ui->searchCountLabel->hide();
}

void RunPageSearch::prepareSlice()
{
    RunFilterProxy *proxy = m_page->m_proxy;
    const bool ready = m_deferred ? proxy->prepareFilter(m_deferred->first, m_deferred->second, 8)
                                  : proxy->prepareSearchTexts(8);
    if (!ready) {
        if (m_deferred)
            updateMatchCount(); // the progress
        return;
    }
    m_prepareTimer.stop();
    if (const auto deferred = std::exchange(m_deferred, std::nullopt))
        apply(deferred->first, deferred->second);
}

// A big run's search reads and parses lines between the nodes kept: those pages go back once
// it is complete, after the view's turn.
void RunPageSearch::searched()
{
    updateMatchCount();
    if (m_page->m_model->lineSource() && m_page->m_proxy->filterComplete())
        QTimer::singleShot(0, this, [] { releaseFreedMemory(); });
}

void RunPageSearch::fieldFocusChanged(bool focused)
{
    // Not a big run's texts: they would be most of its memory (its searches read its file).
    if (focused && !m_page->m_model->lineSource())
        m_prepareTimer.start();
    if (!focused && !m_deferred) {
        m_prepareTimer.stop();
        if (m_page->m_proxy->searchText().isEmpty())
            m_page->m_proxy->releaseSearchTexts();
    }
}

// The view keeps a persistent index per expanded row, and the proxy re-maps every one of them
// when the filter changes (RunFilterProxy): at 100,000 expanded rows dropping them first and
// expanding again is several times cheaper. A filter expands everything it keeps anyway;
// without one the tree folds back to the turns, with the current node still shown.
void RunPageSearch::apply(const QString &searchText, bool errorsOnly)
{
    RunFilterProxy *proxy = m_page->m_proxy;
    m_deferred.reset();
    if (searchText.simplified() == proxy->searchText() && errorsOnly == proxy->errorsOnly()) {
        updateMatchCount();
        return;
    }
    // Judged ahead: inside the filter the reading was one freeze (bench_runopen 100: 0.6 s).
    const bool readsItsFile = !searchText.simplified().isEmpty() && m_page->m_model->lineSource()
        && !proxy->filterPrepared(searchText, errorsOnly);
    if (readsItsFile && m_page->m_model->nodeCount() <= m_slicedAboveNodes) {
        m_deferred = std::make_pair(searchText, errorsOnly);
        m_prepareTimer.start();
        updateMatchCount();
        return;
    }
    QTreeView *tree = m_page->m_ui->runTree;
    // Kept in the source, which the filter does not touch: a node the filter hides is
    // current again when it comes back.
    const QModelIndex current = proxy->mapToSource(tree->currentIndex());
    if (current.isValid())
        m_currentBefore = current;
    tree->collapseAll();
    // Its matches shown as they come (applied at once it was one freeze: bench_runopen, 2.7 s
    // at 1 GB).
    if (readsItsFile) {
        m_sliced->start(searchText, errorsOnly);
        return;
    }
    proxy->setSearchText(searchText);
    proxy->setErrorsOnly(errorsOnly);
    if (proxy->isFiltering())
        return;
    const QModelIndex run = proxy->index(0, 0);
    tree->expand(run);
    for (int row = 0; row < proxy->rowCount(run); ++row)
        tree->expand(proxy->index(row, 0, run));
    const QModelIndex shown = proxy->mapFromSource(m_currentBefore);
    if (!shown.isValid())
        return;
    if (!tree->currentIndex().isValid())
        tree->setCurrentIndex(shown);
    if (shown.parent().isValid())
        tree->scrollTo(shown); // opens its ancestors
}

void RunPageSearch::updateMatchCount()
{
    QLabel *label = m_page->m_ui->searchCountLabel;
    RunFilterProxy *proxy = m_page->m_proxy;
    if (m_deferred) {
        label->setText(tr("Reading the run's texts… %1%").arg(proxy->preparedPercent()));
        label->show();
        return;
    }
    label->setVisible(proxy->isFiltering());
    if (!proxy->isFiltering())
        return;
    const int count = proxy->matchCount();
    if (!proxy->filterComplete()) {
        label->setText(tr("%Ln match(es) so far, searching… %1%", nullptr, int(count))
                           .arg(proxy->filterPercent()));
        return;
    }
    label->setText(count == 0 ? tr("no matches") : tr("%Ln match(es)", nullptr, int(count)));
}

} // namespace sandscope
