#pragma once
// The aligned tool calls of a RunComparison as a table: one row per aligned pair (same,
// changed) or lone call (added, removed), the left and the right call side by side and the
// fields that differ. The Compare tab shows it; a delegate colours rows by StateRole.

#include "compare/runcomparison.h"

#include <QAbstractTableModel>

namespace sandscope {

class RunComparisonModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { StateColumn, LeftColumn, RightColumn, DiffersColumn, ColumnCount };
    enum Role {
        StateRole = Qt::UserRole + 1, // RunComparison::State as int
        LeftCallRole, // index into comparison().left().calls, -1 when none
        RightCallRole,
        FieldsRole, // RunComparison::Field flags
    };

    explicit RunComparisonModel(QObject *parent = nullptr);

    void setComparison(const RunComparison &comparison);
    const RunComparison &comparison() const { return m_comparison; }
    // Hides the rows whose calls are the same on both sides.
    void setDifferencesOnly(bool only);
    bool differencesOnly() const { return m_differencesOnly; }
    // The comparison's row behind a model row.
    const RunComparison::Row &rowAt(int row) const;

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    void rebuild();

    RunComparison m_comparison;
    QVector<int> m_visible; // indexes into m_comparison.rows()
    bool m_differencesOnly = false;
};

} // namespace sandscope
