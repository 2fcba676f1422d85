#include "filetreeview.h"

#include <QDragEnterEvent>
#include <QDragMoveEvent>
#include <QDropEvent>
#include <QMimeData>
#include <QUrl>

namespace sandscope {

FileTreeView::FileTreeView(QWidget *parent)
    : QTreeView(parent)
{
    setAcceptDrops(true);
    viewport()->setAcceptDrops(true);
    setDragDropMode(QAbstractItemView::DropOnly);
    setDropIndicatorShown(true);
}

QStringList FileTreeView::localFiles(const QMimeData *mime)
{
    QStringList paths;
    if (!mime || !mime->hasUrls())
        return paths;
    for (const QUrl &url : mime->urls()) {
        if (!url.isLocalFile())
            return {};
        paths << url.toLocalFile();
    }
    return paths;
}

void FileTreeView::dragEnterEvent(QDragEnterEvent *event)
{
    if (!m_acceptingFiles || localFiles(event->mimeData()).isEmpty()) {
        event->ignore();
        return;
    }
    event->setDropAction(Qt::CopyAction);
    event->accept();
}

void FileTreeView::dragMoveEvent(QDragMoveEvent *event)
{
    if (!m_acceptingFiles || localFiles(event->mimeData()).isEmpty()) {
        event->ignore();
        return;
    }
    event->setDropAction(Qt::CopyAction);
    event->accept();
}

void FileTreeView::dropEvent(QDropEvent *event)
{
    const QStringList paths = localFiles(event->mimeData());
    if (paths.isEmpty()) {
        event->ignore();
        return;
    }
    event->setDropAction(Qt::CopyAction);
    event->accept();
#if QT_VERSION >= QT_VERSION_CHECK(6, 0, 0)
    const QPoint position = event->position().toPoint();
#else
    const QPoint position = event->pos();
#endif
    Q_EMIT filesDropped(paths, indexAt(position));
}

} // namespace sandscope
