#pragma once
// The tools a UsageReport counted: calls, failed calls, total and average time (from each
// call's record to its result's). Qt::EditRole gives plain numbers (milliseconds) for sorting.

#include "usage/usagereport.h"

#include <QAbstractTableModel>

namespace sandscope {

class UsageToolsModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        NameColumn,
        CallsColumn,
        ErrorsColumn,
        TotalTimeColumn,
        AverageTimeColumn,
        ColumnCount
    };

    explicit UsageToolsModel(QObject *parent = nullptr);

    void setTools(const QVector<ToolUsage> &tools);

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    QVector<ToolUsage> m_tools;
};

} // namespace sandscope
