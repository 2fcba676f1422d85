#pragma once
// The base of the all-users tables that show a fleet's Member column: only on a fleet, and
// inserted or removed as a column with the rows kept, so a view keeps its selection and
// sorting when a connection turns out to be a fleet or not.

#include <QAbstractTableModel>

namespace sandscope {

class MemberColumnTableModel : public QAbstractTableModel {
public:
    bool showsMembers() const { return m_showsMembers; }

protected:
    explicit MemberColumnTableModel(QObject *parent = nullptr)
        : QAbstractTableModel(parent)
    {
    }

    // `column`: where the subclass puts the Member column while it is shown.
    void showMemberColumn(bool shows, int column)
    {
        if (shows == m_showsMembers)
            return;
        if (shows) {
            beginInsertColumns({}, column, column);
            m_showsMembers = true;
            endInsertColumns();
        } else {
            beginRemoveColumns({}, column, column);
            m_showsMembers = false;
            endRemoveColumns();
        }
    }

private:
    bool m_showsMembers = false;
};

} // namespace sandscope
