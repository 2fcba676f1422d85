#pragma once
// Filters and sorts a SessionListModel for the Sessions page: a row stays when the filter text
// occurs (ignoring case) in its title, chat or working directory, model or session id; columns
// sort on the model's raw values (dates, sizes, costs) rather than on their display texts.

#include <QSortFilterProxyModel>
#include <QString>

namespace sandscope {

class SessionFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit SessionFilterProxy(QObject *parent = nullptr);

    void setFilterText(const QString &text);
    QString filterText() const { return m_filterText; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    QString m_filterText;
};

} // namespace sandscope
