#include "exportrundialog.h"

#include "ui_exportrundialog.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QPushButton>

namespace sandscope {

namespace {

struct FormatChoice {
    const char *label;
    const char *hint;
    RunExporter::Format format;
};

const FormatChoice choices[] = {
    {QT_TRANSLATE_NOOP("ExportRunDialog", "HTML page"),
        QT_TRANSLATE_NOOP("ExportRunDialog",
            "One self-contained page that opens offline in any browser: summary, foldable "
            "tree, commands and output, diffs."),
        RunExporter::Format::Html},
    {QT_TRANSLATE_NOOP("ExportRunDialog", "Markdown"),
        QT_TRANSLATE_NOOP("ExportRunDialog", "For pasting into an issue or a chat."),
        RunExporter::Format::Markdown},
    {QT_TRANSLATE_NOOP("ExportRunDialog", "JSON (normalised tree)"),
        QT_TRANSLATE_NOOP(
            "ExportRunDialog", "The tree node by node; Sandscope opens it again like a recording."),
        RunExporter::Format::Json},
};

} // namespace

ExportRunDialog::ExportRunDialog(const QString &directory, const QString &baseName, QWidget *parent)
    : QDialog(parent)
    , m_ui(std::make_unique<Ui::ExportRunDialog>())
{
    m_ui->setupUi(this);
    for (const FormatChoice &choice : choices)
        m_ui->formatCombo->addItem(tr(choice.label), int(choice.format));
    m_ui->pathEdit->setText(QDir(directory).filePath(baseName + QStringLiteral(".html")));
    m_ui->hintLabel->setText(tr(choices[0].hint));
    connect(m_ui->formatCombo, qOverload<int>(&QComboBox::currentIndexChanged), this,
        &ExportRunDialog::onFormatChanged);
    connect(m_ui->browseButton, &QPushButton::clicked, this, &ExportRunDialog::browse);
    connect(m_ui->pathEdit, &QLineEdit::textChanged, this, &ExportRunDialog::updateSaveButton);
    connect(m_ui->buttonBox, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_ui->buttonBox, &QDialogButtonBox::rejected, this, &QDialog::reject);
    m_ui->buttonBox->button(QDialogButtonBox::Save)->setText(tr("&Export"));
    updateSaveButton();
}

ExportRunDialog::~ExportRunDialog() = default;

RunExporter::Format ExportRunDialog::format() const
{
    return RunExporter::Format(m_ui->formatCombo->currentData().toInt());
}

QString ExportRunDialog::path() const
{
    return m_ui->pathEdit->text().trimmed();
}

bool ExportRunDialog::redact() const
{
    return m_ui->redactCheck->isChecked();
}

void ExportRunDialog::onFormatChanged()
{
    const int index = m_ui->formatCombo->currentIndex();
    m_ui->hintLabel->setText(tr(choices[index].hint));
    // The suffix follows the format, the name and folder stay.
    const QFileInfo info(path());
    if (!info.fileName().isEmpty())
        m_ui->pathEdit->setText(info.dir().filePath(
            info.completeBaseName() + QLatin1Char('.') + RunExporter::suffix(format())));
}

void ExportRunDialog::browse()
{
    const QString suffix = RunExporter::suffix(format());
    const QString chosen = QFileDialog::getSaveFileName(this, tr("Export Run"), path(),
        tr("%1 (*.%2);;All files (*)").arg(m_ui->formatCombo->currentText(), suffix));
    if (!chosen.isEmpty())
        m_ui->pathEdit->setText(chosen);
}

void ExportRunDialog::updateSaveButton()
{
    m_ui->buttonBox->button(QDialogButtonBox::Save)->setEnabled(!path().isEmpty());
}

} // namespace sandscope
