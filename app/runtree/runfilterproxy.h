#pragma once
// Filters a RunModel's tree for the run view: a text search over the one-line summary and the
// node's details (command, path, pattern, output, text, ...) and an "errors only" switch.
// Filtering is recursive: a match keeps all of its ancestors, so the path from the run to a
// hit stays visible. The source order is kept (no sorting).
//
// Written for 100,000 nodes (bench_runsearch), not on QSortFilterProxyModel, whose recursive
// filtering asks every row's subtree again while it maps each expanded parent:
//   - without a filter it passes the tree through (the rows are the source's; nothing is kept);
//   - a filter change walks the run once, keeps the visible nodes (a match, or a node with a
//     visible child) with their visible children's rows, and re-maps the persistent indexes in
//     one layoutChanged;
//   - new and changed nodes of a live run are filtered as they come: rows are inserted and
//     removed (with the ancestors they bring or leave), never the whole tree again.
// Each node's search text is built once and kept case-folded on the node
// (RunModel::foldedSearchText; dropped when the node changes; prepared ahead and released
// by the run page around the search field's focus), and its verdict for the current filter
// too (RunModel::filterMemo). Typing on narrows from the nodes shown; deleting a keystroke
// goes back to a result kept while the run did not change.

#include "runtree/pointerhash.h"
#include "runtree/runmodel.h"

#include <QAbstractProxyModel>
#include <QString>
#include <QVector>

#include <optional>
#include <utility>
#include <vector>

namespace sandscope {

class RunFilterProxy : public QAbstractProxyModel {
    Q_OBJECT

public:
    explicit RunFilterProxy(QObject *parent = nullptr);

    QString searchText() const { return m_searchText; }
    bool errorsOnly() const { return m_filter.errorsOnly; }
    bool isFiltering() const { return m_filter.isFiltering(); }

    // What "next error" (F8) stops at and "errors only" keeps: failed or interrupted tool
    // calls, API retries and errors, permission denials, error results, corrupt lines.
    static bool isErrorIndex(const QModelIndex &index);
    // The text a search looks at for one node: summary, tool name, text and
    // RunNodeDetails::searchTexts().
    static QString searchableText(const QModelIndex &sourceIndex);
    // Nodes that match on their own (not the ancestors kept for them), over the whole run,
    // collapsed or not; 0 when not filtering.
    int matchCount() const { return isFiltering() ? m_matchCount : 0; }

    // Builds the nodes' search texts ahead of a search (the first keystroke would otherwise
    // build all of them at once), for about budgetMs a call, from where the last call
    // stopped: true once every node has one. The run page calls it while the search field
    // has the focus.
    bool prepareSearchTexts(int budgetMs);
    bool searchTextsPrepared() const { return m_prepared; }
    // Nodes prepareSearchTexts() went through so far (for progress against the run's nodes).
    qint64 searchTextsVisited() const { return m_visited; }
    // Frees the nodes' search texts (they come back on use); the run page calls it when the
    // search field loses the focus with no search in it.
    void releaseSearchTexts();
    // A search of a run whose content stays on disk (RunModel::setLineSource), worked through
    // before it is applied rather than inside one event (a 1 GB recording's first search
    // read its file for seconds): every node's verdict for the filter of searchText and
    // errorsOnly, for about budgetMs a call, from where the last call stopped; true once
    // done, and setSearchText() and setErrorsOnly() with that filter then read the verdicts
    // instead of the file. Typing on judges only the current matches. Another filter starts
    // over; true at once for a filter already shown or kept, and one without words.
    bool prepareFilter(const QString &searchText, bool errorsOnly, int budgetMs);
    // Whether prepareFilter() would be true at once, without judging a node.
    bool filterPrepared(const QString &searchText, bool errorsOnly) const;
    // Results kept for going back to them: the latest four at most, and only as many as show
    // this many nodes in all (each a table entry; a 1 GB run's "b" shows half a million nodes,
    // and four results kept after typing "bash" a letter at a time held 51 MB more than this
    // bound lets them: bench_runopen 1000).
    static constexpr int defaultRememberedNodesLimit = 250000;
    void setRememberedNodesLimit(int nodes) { m_rememberedNodesLimit = nodes; }
    // How far prepareFilter() or prepareSearchTexts() got, in percent of what it goes through.
    int preparedPercent() const;

    // A search of a big run applied a slice at a time (RunPageSearch, for a big run whose
    // content stays on disk): the filter is set at once, with nothing under the run yet;
    // continueFilter() then judges the run's turns in order, for about budgetMs a call, and inserts
    // the shown ones after those shown so far (rows appended under the run, never a layout of the
    // whole tree). Once complete the proxy shows what setSearchText()/setErrorsOnly() would have.
    // Another filter, or a reset of the run, drops the walk where it is.
    void startFilter(const QString &searchText, bool errorsOnly);
    // True once the whole run is walked (and at once when no walk is under way); a budget of
    // 0 judges one node. Without insertRows the turns judged wait for a later call's insertion
    // (each makes a view lay out its expanded rows again), unless they are the last.
    bool continueFilter(int budgetMs, bool insertRows = true);
    bool filterComplete() const { return !m_progress; }
    // How far the walk got, in percent of the run's turns (100 when complete).
    int filterPercent() const;

    // A RunModel (anything else is shown as an empty tree).
    void setSourceModel(QAbstractItemModel *sourceModel) override;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    QModelIndex sibling(int row, int column, const QModelIndex &index) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    bool hasChildren(const QModelIndex &parent = {}) const override;
    // While filtering, a shown node without shown children says it never has any, so that
    // expanding every match (RunPage) skips the leaves; rows that start to match later still
    // come in under it, and then it says so no longer.
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QModelIndex mapToSource(const QModelIndex &proxyIndex) const override;
    QModelIndex mapFromSource(const QModelIndex &sourceIndex) const override;
    // Number columns are right-aligned, their headers too.
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

public slots:
    // Case-insensitive; every whitespace-separated word must occur.
    void setSearchText(const QString &text);
    void setErrorsOnly(bool errorsOnly);

Q_SIGNALS:
    void filterChanged();

private:
    // A node shown while filtering (keyed by the source node, RunModel's internal pointer;
    // nullptr: the invisible root).
    struct Shown {
        int row = 0; // its row in the proxy
        bool matches = false; // on its own, not only for a descendant
        QVector<int> rows; // the source rows of its shown children, ascending
    };

    // What a filter keeps: every word (case-folded, UTF-8), errors only or not.
    struct Filter {
        QList<QByteArray> words;
        bool errorsOnly = false;
        bool isFiltering() const { return !words.isEmpty() || errorsOnly; }
        bool operator==(const Filter &other) const
        {
            return words == other.words && errorsOnly == other.errorsOnly;
        }
        // Whether everything this filter keeps on its own, `wider` keeps too (a word typed
        // on, another word added, errors only turned on).
        bool narrows(const Filter &wider) const;
    };
    // A filter's result kept for going back to it (a deleted keystroke) while the run does
    // not change.
    struct Remembered {
        Filter filter;
        quint32 generation = 0;
        PointerHash<Shown> shown;
        int matchCount = 0;
    };

    static Filter filterOf(const QString &simplified, bool errorsOnly);
    static quint32 newGeneration();
    bool matchesItself(const QModelIndex &sourceIndex) const;
    bool evaluate(const QModelIndex &sourceIndex, const Filter &filter) const;
    void filterChangedNow(const Filter &previous);
    // Walks the run, or only the nodes `within` shows (a narrower filter shows no others).
    void rebuild(const PointerHash<Shown> *within = nullptr);
    struct Walk {
        std::vector<std::pair<const void *, Shown>> children; // the shown among the rows walked
        std::vector<std::pair<const void *, Shown>> below; // the shown under those
        QVector<int> rows; // the source rows of `children`
        int matchCount = 0;
    };
    Walk walk(const QModelIndex &parent, const QVector<int> &rows,
        const PointerHash<Shown> *within) const;
    void forgetResults() { m_remembered.clear(); }
    // startFilter(): the run shown with no rows yet; continueFilter()'s steps.
    void beginWalk();
    void judgeTurns(int budgetMs);
    void showJudgedTurns();
    void finishWalk();
    // Whether the node is in a turn the walk has not shown yet (live changes leave it to it).
    bool awaitsWalk(const QModelIndex &sourceIndex);
    // Live changes while filtering.
    void onRowsInserted(const QModelIndex &sourceParent, int first, int last);
    void onDataChanged(
        const QModelIndex &topLeft, const QModelIndex &bottomRight, const QVector<int> &roles);
    void update(const QModelIndex &sourceIndex);
    // Shows the node (and its hidden ancestors), as a row with no shown children yet.
    void show(const QModelIndex &sourceIndex, bool matches);
    // Hides a shown node without shown children, then its ancestors left without a reason.
    void hide(const QModelIndex &sourceIndex);

    RunModel *m_runModel = nullptr;
    QString m_searchText;
    Filter m_filter;
    QList<Remembered> m_remembered; // the latest first
    int m_rememberedNodesLimit = defaultRememberedNodesLimit;
    quint32 m_generation = 0; // of the filter, for RunModel::filterMemo
    PointerHash<Shown> m_shown; // while filtering
    int m_matchCount = 0;
    bool m_resetting = false; // between the source's modelAboutToBeReset and modelReset
    // prepareSearchTexts(): the nodes still to visit (RunModel's indexes stay valid until a
    // reset: rows are only appended), and whether it went through them all.
    std::vector<QModelIndex> m_toPrepare;
    bool m_preparing = false;
    bool m_prepared = false;
    qint64 m_visited = 0;
    // prepareFilter(): the filter, the generation its verdicts are kept under, and the nodes
    // still to judge.
    struct Pending {
        // User-provided: clang (used by the fuzz preset) does not treat a nested struct with
        // member initialisers as default-constructible inside its enclosing class, so
        // std::optional::emplace() would not compile.
        Pending() { }
        Filter filter;
        quint32 generation = 0;
        std::vector<QModelIndex> toJudge;
        bool narrowing = false; // only the nodes in toJudge, not their children
        qint64 total = 0; // to judge in all, for the progress
        bool done = false;
    };
    std::optional<Pending> m_pending;
    // startFilter()'s walk: the run's turns before `shown` are shown, those before `judged`
    // have their verdicts and are walked into `ready` (unless a live change made it stale),
    // and toJudge holds what is left of turn `judged`.
    struct Progress {
        Progress() { } // user-provided, as Pending's (clang, emplace())
        int shown = 0;
        int judged = 0;
        std::vector<QModelIndex> toJudge;
        Walk ready;
        bool stale = false;
    };
    std::optional<Progress> m_progress;
    bool m_walkNext = false; // filterChangedNow() starts a walk instead of rebuilding
};

} // namespace sandscope
