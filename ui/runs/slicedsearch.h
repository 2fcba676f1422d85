#pragma once
// A big run's search, applied a slice at a time (RunFilterProxy::startFilter): a 1 GB
// recording's search read its file for seconds before anything was shown, and expanding
// every match laid out ~150,000 rows in one event loop turn (bench_runopen). Here each turn
// judges the run's turns for a few milliseconds; the shown ones are appended under the run
// at most every few turns (each insertion makes the view lay out its expanded rows again),
// the first at once; the match count and the progress grow as they come. The matches'
// ancestors are expanded up to a budget of rows, so that the view's layout stays bounded;
// beyond it the shown turns stay collapsed (Expand All opens them). A new search, or a reset
// of the run, drops the one under way.

#include <QElapsedTimer>
#include <QModelIndex>
#include <QObject>
#include <QPersistentModelIndex>
#include <QTimer>

#include <vector>

namespace sandscope {

class RunFilterProxy;
class RunTreeView;

class SlicedSearch : public QObject {
    Q_OBJECT

public:
    SlicedSearch(RunFilterProxy *proxy, RunTreeView *tree, QObject *parent = nullptr);

    void start(const QString &searchText, bool errorsOnly);
    bool isRunning() const { return m_timer.isActive(); }
    // The shown rows under the run expanded, within the budget (a result applied at once).
    void expandShown();

Q_SIGNALS:
    // After every slice, and once complete (isRunning() false).
    void progressed();

private:
    void step();
    void expandRows(const QModelIndex &parent, int first, int last);

    RunFilterProxy *m_proxy;
    RunTreeView *m_tree;
    QTimer m_timer;
    QElapsedTimer m_sinceRows; // since rows were last inserted
    QElapsedTimer m_sinceProgress; // since progressed()
    bool m_rowsShown = false;
    bool m_inserted = false; // by the last step
    int m_expandBudget = 0; // rows still to be opened by expanding
    bool m_stepping = false; // inside step()'s continueFilter()
    struct Inserted {
        QPersistentModelIndex under;
        bool atTop = false; // under the invisible root
        int first = 0;
        int last = 0;
    };
    std::vector<Inserted> m_toExpand; // rows inserted by the step, to expand after it
};

} // namespace sandscope
