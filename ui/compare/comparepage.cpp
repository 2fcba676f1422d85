#include "comparepage.h"

#include "compare/comparedelegate.h"
#include "compare/runcomparisonmodel.h"
#include "compare/touchedfilesmodel.h"
#include "monospacefont.h"
#include "streamjson/runfacts.h"
#include "ui_comparepage.h"
#include "util/format.h"

#include <QHash>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QJsonDocument>
#include <QLocale>
#include <QTextBlock>

#include <algorithm>
#include <cmath>

namespace sandscope {

namespace {

// The call as the pair view shows it: its tool, status, input (indented JSON) and output.
QString callText(const ComparedCall *call)
{
    if (!call)
        return QObject::tr("(no call on this side)");
    const QJsonDocument input = QJsonDocument::fromJson(call->input.toUtf8());
    const QString status = !call->answered ? QObject::tr("no result")
        : call->isError                    ? QObject::tr("error")
                                           : QObject::tr("ok");
    return QObject::tr("%1 (%2)\n\nInput:\n%3\nOutput:\n%4\n")
        .arg(call->toolName, status,
            input.isNull() ? call->input + QLatin1Char('\n')
                           : QString::fromUtf8(input.toJson(QJsonDocument::Indented)),
            call->output);
}

// Highlights the lines of `edit` that are not in the longest common subsequence of both
// texts' lines; returns how many.
int highlight(QPlainTextEdit *edit, const QVector<int> &lines, const QVector<int> &otherLines,
    bool left, const QColor &colour)
{
    QVector<bool> common(lines.size(), false);
    const auto pairs = left ? RunComparison::commonSubsequence(lines, otherLines, 4000)
                            : RunComparison::commonSubsequence(otherLines, lines, 4000);
    for (const auto &[i, j] : pairs)
        common[left ? i : j] = true;
    QList<QTextEdit::ExtraSelection> selections;
    int count = 0;
    for (int line = 0; line < lines.size(); ++line) {
        if (common.at(line))
            continue;
        QTextEdit::ExtraSelection selection;
        selection.format.setBackground(colour);
        selection.format.setProperty(QTextFormat::FullWidthSelection, true);
        selection.cursor = QTextCursor(edit->document()->findBlockByNumber(line));
        selections << selection;
        ++count;
    }
    edit->setExtraSelections(selections);
    return count;
}

} // namespace

ComparePage::ComparePage(QWidget *parent)
    : QWidget(parent)
    , m_ui(std::make_unique<Ui::ComparePage>())
    , m_model(new RunComparisonModel(this))
    , m_files(new TouchedFilesModel(this))
{
    m_ui->setupUi(this);
    m_ui->callsView->setModel(m_model);
    m_ui->callsView->setItemDelegate(new CompareDelegate(
        [](const QModelIndex &index) {
            return RunComparison::State(index.data(RunComparisonModel::StateRole).toInt());
        },
        this));
    m_ui->filesView->setModel(m_files);
    m_ui->filesView->setItemDelegate(new CompareDelegate(
        [](const QModelIndex &index) {
            switch (index.data(TouchedFilesModel::SidesRole).toInt()) {
            case 1:
                return RunComparison::State::Removed;
            case 2:
                return RunComparison::State::Added;
            default:
                return RunComparison::State::Same;
            }
        },
        this));
    for (QPlainTextEdit *edit : {m_ui->leftText, m_ui->rightText})
        edit->setFont(monospaceFont());
    m_ui->deltasTable->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_ui->deltasTable->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_ui->mainSplitter->setStretchFactor(0, 1);
    m_ui->mainSplitter->setStretchFactor(1, 1);
    connect(m_ui->differencesOnlyBox, &QCheckBox::toggled, this, [this](bool only) {
        m_model->setDifferencesOnly(only);
        selectRow(0);
    });
    connect(m_ui->callsView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this](const QModelIndex &current) { showPair(current.isValid() ? current.row() : -1); });
}

ComparePage::~ComparePage() = default;

const RunComparison &ComparePage::comparison() const
{
    return m_model->comparison();
}

void ComparePage::setComparison(const RunComparison &comparison)
{
    m_model->setComparison(comparison);
    m_files->setFiles(comparison.files());
    const ComparedRun &a = comparison.left();
    const ComparedRun &b = comparison.right();
    QString title
        = tr("<b>A</b> %1 (%2) &nbsp;↔&nbsp; <b>B</b> %3 (%4)")
              .arg(a.source.toHtmlEscaped(), tr("%n call(s)", nullptr, int(a.calls.size())),
                  b.source.toHtmlEscaped(), tr("%n call(s)", nullptr, int(b.calls.size())));
    for (const auto &[name, run] : {std::pair {QStringLiteral("A"), &a}, {QStringLiteral("B"), &b}})
        if (!run->skipped.isEmpty())
            title += QStringLiteral("<br>")
                + tr("%1: %n line(s) skipped (%2)", nullptr, int(run->skipped.size()))
                      .arg(name, run->skipped.constFirst().toHtmlEscaped());
    m_ui->titleLabel->setText(title);
    m_ui->countsLabel->setText(
        tr("<b>%1</b> — %2 same, %3 changed, %4 only in A, %5 only in B%6")
            .arg(comparison.same() ? tr("The runs match") : tr("The runs differ"))
            .arg(comparison.count(RunComparison::State::Same))
            .arg(comparison.count(RunComparison::State::Changed))
            .arg(comparison.count(RunComparison::State::Removed))
            .arg(comparison.count(RunComparison::State::Added))
            .arg(comparison.usedFallback()
                    ? tr(" (too different for an exact alignment: a greedy one is shown)")
                    : QString()));
    fillDeltas();
    QHeaderView *header = m_ui->callsView->header();
    header->setSectionResizeMode(RunComparisonModel::StateColumn, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(RunComparisonModel::LeftColumn, QHeaderView::Stretch);
    header->setSectionResizeMode(RunComparisonModel::RightColumn, QHeaderView::Stretch);
    header->setSectionResizeMode(RunComparisonModel::DiffersColumn, QHeaderView::ResizeToContents);
    header->setStretchLastSection(false);
    m_ui->filesView->header()->setSectionResizeMode(
        TouchedFilesModel::PathColumn, QHeaderView::Stretch);
    m_ui->filesView->header()->setStretchLastSection(false);
    // The first difference is what one wants to see first.
    int first = 0;
    for (int row = 0; row < m_model->rowCount(); ++row) {
        if (m_model->rowAt(row).state != RunComparison::State::Same) {
            first = row;
            break;
        }
    }
    selectRow(first);
}

void ComparePage::fillDeltas()
{
    const QVector<RunComparison::Delta> &deltas = comparison().deltas();
    QTableWidget *table = m_ui->deltasTable;
    table->clear();
    table->setColumnCount(int(deltas.size()));
    table->setRowCount(3);
    table->setVerticalHeaderLabels({tr("A"), tr("B"), tr("B − A")});
    const QLocale locale;
    const auto text = [&locale](const RunComparison::Delta &delta, double value) -> QString {
        const QString sign = value < 0 ? QStringLiteral("-") : QString();
        if (delta.key == QLatin1String("cost_usd"))
            return sign + QStringLiteral("$%1").arg(std::abs(value), 0, 'f', 4);
        if (delta.key == QLatin1String("duration_ms"))
            return sign + format::duration(qint64(std::abs(value)));
        return locale.toString(qint64(value));
    };
    for (int column = 0; column < deltas.size(); ++column) {
        const RunComparison::Delta &delta = deltas.at(column);
        table->setHorizontalHeaderItem(column, new QTableWidgetItem(delta.name));
        const QString a = !delta.leftRecorded ? QStringLiteral("—")
            : delta.isText                    ? delta.leftText
                                              : text(delta, delta.left);
        const QString b = !delta.rightRecorded ? QStringLiteral("—")
            : delta.isText                     ? delta.rightText
                                               : text(delta, delta.right);
        QString change;
        if (!delta.leftRecorded || !delta.rightRecorded)
            change = QStringLiteral("—");
        else if (delta.isText)
            change = delta.differs() ? tr("differs") : tr("same");
        else if (!delta.differs())
            change = QStringLiteral("0");
        else
            change = (delta.right > delta.left ? QStringLiteral("+") : QString())
                + text(delta, delta.right - delta.left);
        const QStringList values {a, b, change};
        for (int row = 0; row < 3; ++row) {
            auto *item = new QTableWidgetItem(values.at(row));
            item->setTextAlignment(Qt::AlignCenter);
            // A figure a side does not record: the dash says "not recorded", and why.
            const bool leftUnknown = !delta.leftRecorded && row != 1;
            const bool rightUnknown = !delta.rightRecorded && row != 0;
            if (leftUnknown || rightUnknown)
                item->setToolTip(runfacts::notRecordedText() + QStringLiteral(": ")
                    + runfacts::roundTripsNotRecordedReason(
                        leftUnknown ? comparison().left().summary : comparison().right().summary));
            if (row == 2 && delta.differs())
                item->setBackground(
                    CompareDelegate::tint(RunComparison::State::Changed, palette()));
            table->setItem(row, column, item);
        }
    }
    // As tall as its rows, the calls getting the rest; in a short window it scrolls down to
    // one row rather than make the window taller (a fixed height did).
    const int frame = table->horizontalHeader()->sizeHint().height() + 2 * table->frameWidth();
    int height = frame;
    for (int row = 0; row < table->rowCount(); ++row)
        height += table->verticalHeader()->sectionSize(row);
    table->setMaximumHeight(height);
    table->setMinimumHeight(std::min(height, frame + table->verticalHeader()->sectionSize(0)));
}

void ComparePage::selectRow(int row)
{
    if (row < 0 || row >= m_model->rowCount()) {
        showPair(-1);
        return;
    }
    const QModelIndex index = m_model->index(row, 0);
    m_ui->callsView->selectionModel()->setCurrentIndex(
        index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_ui->callsView->scrollTo(index);
    showPair(row);
}

void ComparePage::showPair(int row)
{
    if (row < 0 || row >= m_model->rowCount()) {
        m_ui->leftText->clear();
        m_ui->rightText->clear();
        return;
    }
    const RunComparison::Row &pair = m_model->rowAt(row);
    const RunComparison &comparison = m_model->comparison();
    const ComparedCall *left = pair.left < 0 ? nullptr : &comparison.left().calls.at(pair.left);
    const ComparedCall *right = pair.right < 0 ? nullptr : &comparison.right().calls.at(pair.right);
    m_ui->leftText->setPlainText(callText(left));
    m_ui->rightText->setPlainText(callText(right));
    // Lines as numbers, so the alignment compares ints.
    QHash<QString, int> ids;
    const auto linesOf = [&ids](const QPlainTextEdit *edit) {
        QVector<int> lines;
        for (QTextBlock block = edit->document()->begin(); block.isValid(); block = block.next())
            lines << ids.insert(block.text(), ids.value(block.text(), int(ids.size()))).value();
        return lines;
    };
    const QVector<int> a = linesOf(m_ui->leftText);
    const QVector<int> b = linesOf(m_ui->rightText);
    highlight(m_ui->leftText, a, b, true,
        CompareDelegate::tint(RunComparison::State::Removed, palette()));
    highlight(m_ui->rightText, b, a, false,
        CompareDelegate::tint(RunComparison::State::Added, palette()));
}

QString ComparePage::leftText() const
{
    return m_ui->leftText->toPlainText();
}

QString ComparePage::rightText() const
{
    return m_ui->rightText->toPlainText();
}

int ComparePage::highlightedLines(bool left) const
{
    return int((left ? m_ui->leftText : m_ui->rightText)->extraSelections().size());
}

} // namespace sandscope
