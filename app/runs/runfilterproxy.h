#pragma once
// Filters the run tree for the run view: a text search over the one-line summary and the
// node's details (command, path, pattern, output, text, ...) and an "errors only" switch.
// Filtering is recursive: a match keeps all of its ancestors, so the path from the run to a
// hit stays visible. The source order is kept (no sorting).

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
    QString m_searchText;
    QStringList m_words;
    bool m_errorsOnly = false;
};

} // namespace sandscope
