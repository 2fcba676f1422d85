#include "probeprompter.h"

#include <QFileDialog>

namespace sandscope {

QString ProbeDialogPrompter::askSavePath(
    QWidget *parent, const QString &title, const QString &suggestedName, const QString &filter)
{
    return QFileDialog::getSaveFileName(parent, title, suggestedName, filter);
}

QString ProbeDialogPrompter::askOpenPath(
    QWidget *parent, const QString &title, const QString &filter)
{
    return QFileDialog::getOpenFileName(parent, title, QString(), filter);
}

} // namespace sandscope
