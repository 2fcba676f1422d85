#include "dialogprompter.h"

#include "monospacefont.h"

#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QInputDialog>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace sandscope {

bool DialogPrompter::confirm(
    QWidget *parent, const QString &title, const QString &question, const QString &acceptText)
{
    QMessageBox box(QMessageBox::Question, title, question, QMessageBox::NoButton, parent);
    QPushButton *accept = box.addButton(acceptText, QMessageBox::AcceptRole);
    QPushButton *cancel = box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(cancel);
    box.exec();
    return box.clickedButton() == accept;
}

QString DialogPrompter::askName(
    QWidget *parent, const QString &title, const QString &label, const QString &initial)
{
    bool ok = false;
    const QString text
        = QInputDialog::getText(parent, title, label, QLineEdit::Normal, initial, &ok);
    return ok ? text.trimmed() : QString();
}

bool DialogPrompter::editText(QWidget *parent, const QString &title, QString *text)
{
    QDialog dialog(parent);
    dialog.setWindowTitle(title);
    auto *layout = new QVBoxLayout(&dialog);
    auto *editor = new QPlainTextEdit(&dialog);
    editor->setFont(monospaceFont());
    editor->setLineWrapMode(QPlainTextEdit::NoWrap);
    editor->setPlainText(*text);
    auto *buttons
        = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, &dialog);
    layout->addWidget(editor);
    layout->addWidget(buttons);
    QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    dialog.resize(820, 600);
    if (dialog.exec() != QDialog::Accepted)
        return false;
    *text = editor->toPlainText();
    return true;
}

QStringList DialogPrompter::askUploadFiles(QWidget *parent)
{
    return QFileDialog::getOpenFileNames(
        parent, QCoreApplication::translate("sandscope::FilesPage", "Upload Files"));
}

QString DialogPrompter::askSavePath(QWidget *parent, const QString &suggestedName)
{
    return QFileDialog::getSaveFileName(parent,
        QCoreApplication::translate("sandscope::FilesPage", "Save As"),
        QDir::home().filePath(suggestedName));
}

} // namespace sandscope
