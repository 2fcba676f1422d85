#pragma once
// Filters the run tree for the run view: a text search over the one-line summary and the
// node's details (command, path, pattern, output, text, ...) and an "errors only" switch.
// Filtering is recursive: a match keeps all of its ancestors, so the path from the run to a
// hit stays visible. The source order is kept (no sorting).
//
// At 100,000 nodes: each node's search text is built once and kept case-folded on the node
// (RunModel::foldedSearchText; dropped when the node changes, all of them when the search is
// cleared), each node's verdict is kept for the current filter (RunModel::filterMemo), and a
// filter change re-maps the proxy at once (invalidate: one layoutChanged) instead of removing
// and inserting rows range by range, which updated every persistent index (a view keeps one
// per expanded row) per range: quadratic. Works on any source model; RunModel's per-node
// state is used when the source is one.

#include "runs/runmodel.h"

#include <QSortFilterProxyModel>
#include <QString>

namespace sandscope {

class RunFilterProxy : public QSortFilterProxyModel {
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
    // Nodes that match on their own (not the ancestors kept for them); 0 when not filtering.
    // Counted over the whole run, collapsed or not; cached until the filter or the run changes.
    int matchCount() const;

    void setSourceModel(QAbstractItemModel *sourceModel) override;

    // Number columns are right-aligned, their headers too.
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

public slots:
    // Case-insensitive; every whitespace-separated word must occur.
    void setSearchText(const QString &text);
    void setErrorsOnly(bool errorsOnly);

Q_SIGNALS:
    void filterChanged();

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    bool matchesItself(const QModelIndex &sourceIndex) const;
    bool evaluate(const QModelIndex &sourceIndex) const;
    int countMatches(const QModelIndex &sourceParent) const;
    void filterChangedNow();

    QString m_searchText;
    QStringList m_words; // case-folded
    bool m_errorsOnly = false;
    RunModel *m_runModel = nullptr; // the source, when it is a RunModel
    quint32 m_generation = 0; // of the filter, for RunModel::filterMemo
    mutable int m_matchCount = -1; // -1: not counted yet
};

} // namespace sandscope
