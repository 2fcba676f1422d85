#pragma once
// CSV and TSV as a table (RFC 4180 quoting), with the first row as header by default. At most
// maxRows records are parsed, so a huge file opens at once.

#include "previews/previewpage.h"

class QCheckBox;
class QLabel;
class QTableView;

namespace sandscope {

class CsvTableModel;

class PreviewCsv : public PreviewPage {
    Q_OBJECT
public:
    static constexpr int maxRows = 100000;

    explicit PreviewCsv(QWidget *parent = nullptr);

    // separator: ',' or '\t'. isPartial: `text` is the start of a longer file, so a record cut
    // off at its end is dropped.
    void setCsv(const QString &text, QChar separator, bool isPartial);

    QTableView *tableView() const { return m_table; }
    CsvTableModel *model() const { return m_model; }
    QString summary() const;

private:
    void updateSummary();

    QCheckBox *m_headerCheck;
    QLabel *m_summary;
    QTableView *m_table;
    CsvTableModel *m_model;
};

} // namespace sandscope
