#pragma once
// A UsageReport's rows, one per user and day, for the Usage page's table and chart.
// Qt::DisplayRole gives formatted text; Qt::EditRole the plain number (for sorting, charts
// and CSV).

#include "usage/usagereport.h"

#include <QAbstractTableModel>

namespace sandscope {

class UsageModel : public QAbstractTableModel {
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
        ColumnCount
    };

    explicit UsageModel(QObject *parent = nullptr);

    void setReport(const UsageReport &report);
    const UsageReport &report() const { return m_report; }
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
