#include "backgroundtask.h"

#include <QProgressDialog>
#include <QThread>

#include <memory>

namespace sandscope {

void BackgroundTask::start(
    QWidget *parent, const QString &label, const QString &objectName, Work work, Done done)
{
    auto cancelled = std::make_shared<std::atomic_bool>(false);
    QThread *worker = QThread::create([work = std::move(work), cancelled] { work(*cancelled); });
    auto *progress = new QProgressDialog(label, QProgressDialog::tr("Cancel"), 0, 0, parent);
    progress->setObjectName(objectName);
    progress->setWindowModality(Qt::WindowModal);
    progress->setMinimumDuration(400);
    QObject::connect(
        progress, &QProgressDialog::canceled, parent, [cancelled] { *cancelled = true; });
    QObject::connect(worker, &QThread::finished, worker, &QObject::deleteLater);
    QObject::connect(
        worker, &QThread::finished, parent, [progress, cancelled, done = std::move(done)] {
            progress->deleteLater();
            done(*cancelled);
        });
    worker->start();
}

} // namespace sandscope
