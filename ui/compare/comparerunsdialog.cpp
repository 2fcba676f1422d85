#include "comparerunsdialog.h"

#include "runs/runpage.h"
#include "ui_comparerunsdialog.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QPushButton>

namespace sandscope {

namespace {

// Item data: a run tab's position in m_runs (int), or a file path (QString).
constexpr int fileRole = Qt::UserRole + 1;

} // namespace

CompareRunsDialog::CompareRunsDialog(const QVector<OpenRun> &runs, QWidget *parent)
    : QDialog(parent)
    , m_ui(std::make_unique<Ui::CompareRunsDialog>())
    , m_runs(runs)
{
    m_ui->setupUi(this);
    for (QComboBox *combo : {m_ui->leftCombo, m_ui->rightCombo}) {
        for (int i = 0; i < m_runs.size(); ++i)
            combo->addItem(m_runs.at(i).title, i);
        connect(combo, qOverload<int>(&QComboBox::currentIndexChanged), this,
            &CompareRunsDialog::updateOk);
    }
    // Two different runs preselected when there are two: the tab before and the one in front.
    if (m_runs.size() >= 2) {
        m_ui->leftCombo->setCurrentIndex(int(m_runs.size()) - 2);
        m_ui->rightCombo->setCurrentIndex(int(m_runs.size()) - 1);
    }
    connect(m_ui->leftFileButton, &QPushButton::clicked, this, [this] { chooseFile(true); });
    connect(m_ui->rightFileButton, &QPushButton::clicked, this, [this] { chooseFile(false); });
    updateOk();
}

CompareRunsDialog::~CompareRunsDialog() = default;

CompareRunsDialog::Choice CompareRunsDialog::choiceOf(const QComboBox *combo) const
{
    Choice choice;
    if (combo->currentIndex() < 0)
        return choice;
    choice.title = combo->currentText();
    const QString path = combo->currentData(fileRole).toString();
    if (!path.isEmpty()) {
        choice.filePath = path;
        return choice;
    }
    const int run = combo->currentData().toInt();
    if (run >= 0 && run < m_runs.size())
        choice.page = m_runs.at(run).page;
    return choice;
}

CompareRunsDialog::Choice CompareRunsDialog::left() const
{
    return choiceOf(m_ui->leftCombo);
}

CompareRunsDialog::Choice CompareRunsDialog::right() const
{
    return choiceOf(m_ui->rightCombo);
}

void CompareRunsDialog::addFile(const QString &path, bool left)
{
    for (QComboBox *combo : {m_ui->leftCombo, m_ui->rightCombo}) {
        if (combo->findData(path, fileRole) < 0) {
            combo->addItem(QFileInfo(path).fileName(), -1);
            combo->setItemData(combo->count() - 1, path, fileRole);
            combo->setItemData(combo->count() - 1, path, Qt::ToolTipRole);
        }
    }
    QComboBox *target = left ? m_ui->leftCombo : m_ui->rightCombo;
    target->setCurrentIndex(target->findData(path, fileRole));
    updateOk();
}

void CompareRunsDialog::chooseFile(bool left)
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Choose a Run to Compare"),
        QString(),
        tr("Run recordings, captures and transcripts (*.jsonl *.ndjson *.json);;All files (*)"));
    if (!path.isEmpty())
        addFile(path, left);
}

void CompareRunsDialog::updateOk()
{
    const Choice a = left();
    const Choice b = right();
    const bool same = a.isValid() && b.isValid() && a.page == b.page && a.filePath == b.filePath;
    m_ui->statusLabel->setText(!a.isValid() || !b.isValid()
            ? tr("Open a run tab or choose a file for each side.")
            : same ? tr("Both sides are the same run: there will be no difference.")
                   : QString());
    m_ui->buttonBox->button(QDialogButtonBox::Ok)->setEnabled(a.isValid() && b.isValid());
}

} // namespace sandscope
