#pragma once
// Table model over a parsed CSV/TSV file. The first row may serve as the header; short rows
// show empty cells. Columns without a header row are numbered from 1.

#include "previews/csvparser.h"

#include <QAbstractTableModel>

namespace sandscope {

class CsvTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    explicit CsvTableModel(QObject *parent = nullptr);

    void setTable(CsvTable table);
    const CsvTable &table() const { return m_table; }

    void setFirstRowIsHeader(bool header);
    bool firstRowIsHeader() const { return m_firstRowIsHeader; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    int firstDataRow() const { return m_firstRowIsHeader && !m_table.rows.isEmpty() ? 1 : 0; }

    CsvTable m_table;
    bool m_firstRowIsHeader = true;
};

} // namespace sandscope
