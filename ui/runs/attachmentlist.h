#pragma once
// The local files attached to the next prompt (New Run dialog and the follow-up row of a run
// page): chosen with a file dialog or dropped on the list or on the prompt editor it serves,
// removed with Delete. Only the paths are kept; the upload happens when the turn starts
// (AttachmentUpload).

#include <QListWidget>
#include <QStringList>

namespace sandscope {

class AttachmentList : public QListWidget {
    Q_OBJECT
public:
    explicit AttachmentList(QWidget *parent = nullptr);

    QStringList localPaths() const;
    // Local files only; folders and paths already listed are skipped.
    void addLocalPaths(const QStringList &paths);
    void clearPaths();
    // Local file drops on `editor` become attachments instead of text.
    void takeDropsFrom(QWidget *editor);

public Q_SLOTS:
    void chooseFiles();
    void removeSelected();

Q_SIGNALS:
    void pathsChanged();

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dragMoveEvent(QDragMoveEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;
};

} // namespace sandscope
