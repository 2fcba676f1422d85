#pragma once
// A UsageReport's rows, one per user and day, for the Usage page's table and chart.
// Qt::DisplayRole gives formatted text; Qt::EditRole the plain number (for sorting, charts
// and CSV). A fleet's rows are per member (a user with homes on two members has a row on
// each, never summed): the Member column names it.

#include "usage/usagereport.h"
#include "util/membercolumnmodel.h"

namespace sandscope {

class UsageModel : public MemberColumnTableModel {
    Q_OBJECT

public:
    enum Column {
        UserColumn,
        DayColumn,
        SessionsColumn,
        TurnsColumn,
        ToolCallsColumn,
        ErrorsColumn,
        InputTokensColumn,
        OutputTokensColumn,
        CacheReadColumn,
        CacheCreationColumn,
        CostColumn,
        MemberColumn, // only while showsMembers(): columnCount() is ColumnCount - 1 otherwise
        ColumnCount
    };

    explicit UsageModel(QObject *parent = nullptr);

    void setReport(const UsageReport &report);
    const UsageReport &report() const { return m_report; }
    // The Member column (a fleet): inserted or removed as a column, the rows kept.
    void setShowsMembers(bool shows);
    // A day's figure of one column as a number (cost in dollars).
    static double value(const UsageDay &day, int column);

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    UsageReport m_report;
};

} // namespace sandscope
