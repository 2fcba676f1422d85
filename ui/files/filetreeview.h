#pragma once
// The tree of the files page: a QTreeView that accepts local files dropped onto a folder and
// hands them on as filesDropped; the page decides where they go.

#include <QModelIndex>
#include <QStringList>
#include <QTreeView>

class QMimeData;

namespace sandscope {

class FileTreeView : public QTreeView {
    Q_OBJECT
public:
    explicit FileTreeView(QWidget *parent = nullptr);

    // The local files a drag carries (file URLs only), empty if it carries anything else.
    static QStringList localFiles(const QMimeData *mime);
    // While false (read-only mode) a drag shows that dropping is not possible.
    void setAcceptingFiles(bool accepting) { m_acceptingFiles = accepting; }

Q_SIGNALS:
    // `target` is the (view) index under the drop position, invalid for the empty area.
    void filesDropped(const QStringList &localPaths, const QModelIndex &target);

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dragMoveEvent(QDragMoveEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    bool m_acceptingFiles = true;
};

} // namespace sandscope
