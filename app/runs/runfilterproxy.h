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
// (RunModel::foldedSearchText; dropped when the node changes, all of them when the search is
// cleared), and its verdict for the current filter too (RunModel::filterMemo).

#include "runs/runmodel.h"

#include <QAbstractProxyModel>
#include <QHash>
#include <QString>
#include <QVector>

namespace sandscope {

class RunFilterProxy : public QAbstractProxyModel {
    Q_OBJECT

public:
    explicit RunFilterProxy(QObject *parent = nullptr);

    QString searchText() const { return m_searchText; }
    bool errorsOnly() const { return m_errorsOnly; }
    bool isFiltering() const { return !m_searchText.isEmpty() || m_errorsOnly; }

    // What "next error" (F8) stops at and "errors only" keeps: failed or interrupted tool
    // calls, API retries and errors, permission denials, error results, corrupt lines.
    static bool isErrorIndex(const QModelIndex &index);
    // The text a search looks at for one node: summary, tool name, text and
    // RunNodeDetails::searchTexts().
    static QString searchableText(const QModelIndex &sourceIndex);
    // Nodes that match on their own (not the ancestors kept for them), over the whole run,
    // collapsed or not; 0 when not filtering.
    int matchCount() const { return isFiltering() ? m_matchCount : 0; }

    // A RunModel (anything else is shown as an empty tree).
    void setSourceModel(QAbstractItemModel *sourceModel) override;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    QModelIndex sibling(int row, int column, const QModelIndex &index) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    bool hasChildren(const QModelIndex &parent = {}) const override;
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

    bool matchesItself(const QModelIndex &sourceIndex) const;
    bool evaluate(const QModelIndex &sourceIndex) const;
    void filterChangedNow();
    void rebuild();
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
    QList<QByteArray> m_words; // case-folded, UTF-8
    bool m_errorsOnly = false;
    quint32 m_generation = 0; // of the filter, for RunModel::filterMemo
    QHash<const void *, Shown> m_shown; // while filtering
    int m_matchCount = 0;
    bool m_resetting = false; // between the source's modelAboutToBeReset and modelReset
};

} // namespace sandscope
