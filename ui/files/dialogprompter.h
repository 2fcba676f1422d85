#pragma once
// The files page's questions as modal dialogs (the FilesPrompter the page uses by default).

#include "files/filesprompter.h"

namespace sandscope {

class DialogPrompter : public FilesPrompter {
public:
    bool confirm(QWidget *parent, const QString &title, const QString &question,
        const QString &acceptText) override;
    QString askName(QWidget *parent, const QString &title, const QString &label,
        const QString &initial) override;
    bool editText(QWidget *parent, const QString &title, QString *text) override;
    QStringList askUploadFiles(QWidget *parent) override;
    QString askSavePath(QWidget *parent, const QString &suggestedName) override;
};

} // namespace sandscope
