#pragma once
// What the files page asks the user (names, confirmations, local files), behind an interface
// so that tests can answer without modal dialogs. DialogPrompter asks with dialogs.

#include <QString>
#include <QStringList>

class QWidget;

namespace sandscope {

// Everything the page asks the user. The default implementation shows dialogs.
class FilesPrompter {
public:
    virtual ~FilesPrompter() = default;
    // A yes/no question; true = the user chose `acceptText`.
    virtual bool confirm(
        QWidget *parent, const QString &title, const QString &question, const QString &acceptText)
        = 0;
    // A name (or path); empty = cancelled.
    virtual QString askName(
        QWidget *parent, const QString &title, const QString &label, const QString &initial)
        = 0;
    // Edits `text` in place; false = cancelled.
    virtual bool editText(QWidget *parent, const QString &title, QString *text) = 0;
    // Local files to upload; empty = cancelled.
    virtual QStringList askUploadFiles(QWidget *parent) = 0;
    // Where to save a download; empty = cancelled.
    virtual QString askSavePath(QWidget *parent, const QString &suggestedName) = 0;
};

} // namespace sandscope
