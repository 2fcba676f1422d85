#pragma once
// Sorting and filtering of a RemoteFileModel for views: folders before files in either
// order, names compared the way people read them (case-insensitive, digits as numbers),
// hidden (dot) entries shown only on request, and a name filter that keeps the folders on
// the way to a match (recursive filtering over the rows listed so far). Locations (the
// top-level rows) are always shown.

#include <QRegularExpression>
#include <QSortFilterProxyModel>

namespace sandscope {

class FileFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit FileFilterProxy(QObject *parent = nullptr);

    // Case-insensitive; `*` and `?` are wildcards, text without them matches anywhere in
    // the name. Empty: no name filter.
    void setNameFilter(const QString &pattern);
    QString nameFilter() const { return m_nameFilter; }

    void setShowHidden(bool show);
    bool showHidden() const { return m_showHidden; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    bool insideHiddenFolder(const QModelIndex &sourceParent) const;
    void refilter();

    QString m_nameFilter;
    QRegularExpression m_namePattern;
    bool m_showHidden = false;
};

} // namespace sandscope
