#pragma once
// The item selected in the file browser's tree, read from its RemoteFileModel index once so that
// navigation, preview and file actions ask the same questions of it.

#include "files/remotefilemodel.h"

#include <QFileInfo>
#include <QModelIndex>
#include <QString>

namespace sandscope {

struct FileSelection {
    QModelIndex source; // in the RemoteFileModel; invalid when nothing is selected
    QString path;
    QString name;
    bool isDirectory = false;
    bool isLocation = false; // a top-level folder (the home or an added location)
    qint64 size = 0;
    QString mimeType;

    bool isValid() const { return source.isValid(); }

    static FileSelection of(const QModelIndex &source)
    {
        FileSelection item;
        item.source = source;
        if (!source.isValid())
            return item;
        item.path = source.data(RemoteFileModel::PathRole).toString();
        item.name = source.data(Qt::EditRole).toString();
        item.isDirectory = source.data(RemoteFileModel::IsDirectoryRole).toBool();
        item.isLocation = source.data(RemoteFileModel::IsLocationRole).toBool();
        item.size = source.data(RemoteFileModel::SizeRole).toLongLong();
        item.mimeType = source.data(RemoteFileModel::MimeTypeRole).toString();
        if (item.isLocation)
            item.name = QFileInfo(item.path).fileName();
        return item;
    }
};

} // namespace sandscope
