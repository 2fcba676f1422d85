#pragma once
// File › Export…: the format, where to save and whether to redact secrets (checked by
// default). The window does the export (MainWindow::exportCurrentRun) once it is accepted.

#include "export/runexporter.h"

#include <QDialog>

#include <memory>

namespace sandscope {

namespace Ui {
class ExportRunDialog;
}

class ExportRunDialog : public QDialog {
    Q_OBJECT

public:
    // directory: where the file goes first (the last export's); baseName: the file's name
    // without suffix.
    ExportRunDialog(const QString &directory, const QString &baseName, QWidget *parent = nullptr);
    ~ExportRunDialog() override;

    RunExporter::Format format() const;
    QString path() const;
    bool redact() const;

private:
    void onFormatChanged();
    void browse();
    void updateSaveButton();

    std::unique_ptr<Ui::ExportRunDialog> m_ui;
};

} // namespace sandscope
