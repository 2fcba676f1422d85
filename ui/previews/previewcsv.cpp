#include "previewcsv.h"

#include "previews/csvtablemodel.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace sandscope {

PreviewCsv::PreviewCsv(QWidget *parent)
    : PreviewPage(parent)
    , m_headerCheck(new QCheckBox(tr("First row is header"), this))
    , m_summary(new QLabel(this))
    , m_table(new QTableView(this))
    , m_model(new CsvTableModel(this))
{
    m_headerCheck->setChecked(true);
    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(4, 0, 4, 0);
    bar->addWidget(m_summary, 1);
    bar->addWidget(m_headerCheck);
    contentLayout()->addLayout(bar);

    m_table->setModel(m_model);
    m_table->setObjectName(QStringLiteral("csvTable"));
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    // Fixed row heights: per-row size hints would measure every cell of a 100 000-row table.
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(true);
    contentLayout()->addWidget(m_table, 1);

    connect(m_headerCheck, &QCheckBox::toggled, this, [this](bool header) {
        m_model->setFirstRowIsHeader(header);
        updateSummary();
    });
}

void PreviewCsv::setCsv(const QString &text, QChar separator, bool isPartial)
{
    clearMessage();
    QStringView input(text);
    if (isPartial) {
        // The last line of a prefix is usually cut off mid-record.
        const qsizetype lastBreak = input.lastIndexOf(QLatin1Char('\n'));
        if (lastBreak >= 0)
            input = input.left(lastBreak + 1);
    }
    CsvTable table = CsvParser(separator).parse(input, maxRows);
    const int quoteRow = table.unterminatedQuoteRow;
    const bool truncated = table.truncated;
    m_model->setTable(std::move(table));

    // Size columns from the first rows only; measuring all rows would stall on big files.
    const int sampleRows = std::min(m_model->rowCount(), 50);
    const QFontMetrics metrics = m_table->fontMetrics();
    for (int column = 0; column < m_model->columnCount(); ++column) {
        int width = metrics.horizontalAdvance(
                        m_model->headerData(column, Qt::Horizontal, Qt::DisplayRole).toString())
            + 24;
        for (int row = 0; row < sampleRows; ++row) {
            const QString value = m_model->index(row, column).data().toString();
            width = std::max(width, metrics.horizontalAdvance(value.left(60)) + 16);
        }
        m_table->setColumnWidth(column, std::min(width, 400));
    }
    updateSummary();

    if (quoteRow >= 0) {
        const QString where = tr("A quoted field in record %L1 is never closed").arg(quoteRow + 1);
        setMessage(isPartial ? where + tr(" in the loaded part; Load all to see the rest.")
                             : where + tr("; the rest of the file is shown in that field."),
            Severity::Warning);
    } else if (truncated) {
        setMessage(tr("Showing the first %L1 records.").arg(maxRows), Severity::Note);
    }
}

QString PreviewCsv::summary() const
{
    return m_summary->text();
}

void PreviewCsv::updateSummary()
{
    m_summary->setText(
        tr("%L1 rows × %L2 columns").arg(m_model->rowCount()).arg(m_model->columnCount()));
}

} // namespace sandscope
