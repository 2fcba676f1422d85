#pragma once
// The item delegate of the files page's tree (RemoteFileModel through FileFilterProxy).

#include <QHash>
#include <QIcon>
#include <QMimeDatabase>
#include <QStyledItemDelegate>

namespace sandscope {

// Icons by MIME type, the folder's load state shown after its name ("loading…" or why it
// could not be listed, in the error colour), and a warning icon on a refused folder.
class FileItemDelegate : public QStyledItemDelegate {
public:
    explicit FileItemDelegate(QObject *parent);

    // What is shown after the name: the folder's load state, empty when there is none.
    static QString stateText(const QModelIndex &index);

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
        const QModelIndex &index) const override;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override;

private:
    QIcon iconFor(const QModelIndex &index, const QWidget *widget) const;

    QMimeDatabase m_mimeDatabase;
    mutable QHash<QString, QIcon> m_icons;
};

} // namespace sandscope
