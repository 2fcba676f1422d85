#include "attachmentlist.h"

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeyEvent>
#include <QLocale>
#include <QMimeData>
#include <QStyle>
#include <QUrl>

namespace sandscope {

namespace {

constexpr int pathRole = Qt::UserRole + 1;

QStringList localFilesOf(const QMimeData *mime)
{
    QStringList paths;
    if (!mime || !mime->hasUrls())
        return paths;
    const QList<QUrl> urls = mime->urls();
    for (const QUrl &url : urls) {
        if (url.isLocalFile() && QFileInfo(url.toLocalFile()).isFile())
            paths << url.toLocalFile();
    }
    return paths;
}

} // namespace

AttachmentList::AttachmentList(QWidget *parent)
    : QListWidget(parent)
{
    setObjectName(QStringLiteral("attachmentList"));
    setAcceptDrops(true);
    setDragDropMode(QAbstractItemView::DropOnly);
    setSelectionMode(QAbstractItemView::ExtendedSelection);
    setToolTip(tr("Files attached to the next prompt: uploaded into the chat folder's "
                  "attachments/ when the turn starts. Drop files here; Delete removes one."));
}

QStringList AttachmentList::localPaths() const
{
    QStringList paths;
    for (int row = 0; row < count(); ++row)
        paths << item(row)->data(pathRole).toString();
    return paths;
}

void AttachmentList::addLocalPaths(const QStringList &paths)
{
    bool added = false;
    for (const QString &path : paths) {
        const QFileInfo info(path);
        const QString absolute = info.absoluteFilePath();
        if (!info.isFile() || localPaths().contains(absolute))
            continue;
        auto *entry = new QListWidgetItem(style()->standardIcon(QStyle::SP_FileIcon),
            tr("%1 (%2)").arg(info.fileName(), QLocale().formattedDataSize(info.size())), this);
        entry->setData(pathRole, absolute);
        entry->setToolTip(absolute);
        added = true;
    }
    if (added)
        Q_EMIT pathsChanged();
}

void AttachmentList::clearPaths()
{
    if (count() == 0)
        return;
    clear();
    Q_EMIT pathsChanged();
}

void AttachmentList::removeSelected()
{
    const QList<QListWidgetItem *> chosen = selectedItems();
    if (chosen.isEmpty())
        return;
    qDeleteAll(chosen);
    Q_EMIT pathsChanged();
}

void AttachmentList::chooseFiles()
{
    addLocalPaths(QFileDialog::getOpenFileNames(this, tr("Attach Files to the Prompt")));
}

void AttachmentList::takeDropsFrom(QWidget *editor)
{
    editor->setAcceptDrops(true);
    editor->installEventFilter(this);
    // A QAbstractScrollArea receives its drops on the viewport.
    if (auto *area = qobject_cast<QAbstractScrollArea *>(editor))
        area->viewport()->installEventFilter(this);
}

void AttachmentList::dragEnterEvent(QDragEnterEvent *event)
{
    if (!localFilesOf(event->mimeData()).isEmpty())
        event->acceptProposedAction();
    else
        event->ignore();
}

void AttachmentList::dragMoveEvent(QDragMoveEvent *event)
{
    if (!localFilesOf(event->mimeData()).isEmpty())
        event->acceptProposedAction();
    else
        event->ignore();
}

void AttachmentList::dropEvent(QDropEvent *event)
{
    const QStringList paths = localFilesOf(event->mimeData());
    if (paths.isEmpty()) {
        event->ignore();
        return;
    }
    addLocalPaths(paths);
    event->acceptProposedAction();
}

void AttachmentList::keyPressEvent(QKeyEvent *event)
{
    if (event->matches(QKeySequence::Delete) || event->key() == Qt::Key_Backspace) {
        removeSelected();
        return;
    }
    QListWidget::keyPressEvent(event);
}

bool AttachmentList::eventFilter(QObject *watched, QEvent *event)
{
    switch (event->type()) {
    case QEvent::DragEnter:
    case QEvent::DragMove: {
        auto *drag = static_cast<QDragMoveEvent *>(event);
        if (localFilesOf(drag->mimeData()).isEmpty())
            break;
        drag->acceptProposedAction();
        return true;
    }
    case QEvent::Drop: {
        auto *drop = static_cast<QDropEvent *>(event);
        const QStringList paths = localFilesOf(drop->mimeData());
        if (paths.isEmpty())
            break;
        addLocalPaths(paths);
        drop->acceptProposedAction();
        return true;
    }
    default:
        break;
    }
    return QListWidget::eventFilter(watched, event);
}

} // namespace sandscope
