#include "fileitemdelegate.h"

#include "files/remotefilemodel.h"

#include <QApplication>
#include <QCoreApplication>
#include <QPainter>

namespace sandscope {

FileItemDelegate::FileItemDelegate(QObject *parent)
    : QStyledItemDelegate(parent)
{
}

QString FileItemDelegate::stateText(const QModelIndex &index)
{
    if (index.column() != RemoteFileModel::NameColumn)
        return QString();
    switch (RemoteFileModel::LoadState(index.data(RemoteFileModel::LoadStateRole).toInt())) {
    case RemoteFileModel::LoadState::Loading:
        return QCoreApplication::translate("sandscope::FilesPage", "loading\u2026");
    case RemoteFileModel::LoadState::Failed:
        return index.data(RemoteFileModel::ErrorRole).toString();
    default:
        return QString();
    }
}

void FileItemDelegate::paint(
    QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyleOptionViewItem item(option);
    initStyleOption(&item, index);
    const QString suffix = stateText(index);
    const QWidget *widget = option.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &item, painter, widget);
    if (suffix.isEmpty())
        return;
    const QRect textRect = style->subElementRect(QStyle::SE_ItemViewItemText, &item, widget);
    const QFontMetrics metrics(item.font);
    const int nameWidth = metrics.horizontalAdvance(item.text) + metrics.averageCharWidth() * 2;
    const QRect suffixRect = textRect.adjusted(nameWidth, 0, 0, 0);
    if (suffixRect.width() < metrics.averageCharWidth() * 4)
        return;
    const bool failed = index.data(RemoteFileModel::LoadStateRole).toInt()
        == int(RemoteFileModel::LoadState::Failed);
    painter->save();
    QFont font = item.font;
    font.setItalic(true);
    painter->setFont(font);
    const bool selected = option.state & QStyle::State_Selected;
    QColor colour = selected ? option.palette.color(QPalette::HighlightedText)
                             : option.palette.color(QPalette::Disabled, QPalette::Text);
    if (failed && !selected)
        colour = QColor(0xc6, 0x28, 0x28);
    painter->setPen(colour);
    painter->drawText(suffixRect, Qt::AlignLeft | Qt::AlignVCenter,
        QFontMetrics(font).elidedText(suffix, Qt::ElideRight, suffixRect.width()));
    painter->restore();
}

void FileItemDelegate::initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const
{
    QStyledItemDelegate::initStyleOption(option, index);
    if (index.column() == RemoteFileModel::SizeColumn) {
        option->displayAlignment = Qt::AlignRight | Qt::AlignVCenter;
        return;
    }
    if (index.column() == RemoteFileModel::TypeColumn) {
        // "PNG image" reads better than "image/png"; the MIME name stays in the tooltip.
        const QMimeType type = m_mimeDatabase.mimeTypeForName(option->text);
        if (type.isValid() && !type.comment().isEmpty())
            option->text = type.comment();
        return;
    }
    if (index.column() != RemoteFileModel::NameColumn)
        return;
    option->features |= QStyleOptionViewItem::HasDecoration;
    option->icon = iconFor(index, option->widget);
    if (option->decorationSize.width() < 16)
        option->decorationSize = QSize(16, 16);
}

QIcon FileItemDelegate::iconFor(const QModelIndex &index, const QWidget *widget) const
{
    const QStyle *style = widget ? widget->style() : QApplication::style();
    if (index.data(RemoteFileModel::IsDirectoryRole).toBool()) {
        const auto state
            = RemoteFileModel::LoadState(index.data(RemoteFileModel::LoadStateRole).toInt());
        if (state == RemoteFileModel::LoadState::Failed)
            return style->standardIcon(QStyle::SP_MessageBoxWarning);
        if (index.data(RemoteFileModel::IsLocationRole).toBool())
            return QIcon::fromTheme(
                QStringLiteral("user-home"), style->standardIcon(QStyle::SP_DirHomeIcon));
        return QIcon::fromTheme(QStringLiteral("folder"), style->standardIcon(QStyle::SP_DirIcon));
    }
    const QString mimeName = index.data(RemoteFileModel::MimeTypeRole).toString();
    auto cached = m_icons.constFind(mimeName);
    if (cached != m_icons.constEnd())
        return *cached;
    const QMimeType type = m_mimeDatabase.mimeTypeForName(mimeName);
    QIcon icon = QIcon::fromTheme(type.iconName(),
        QIcon::fromTheme(type.genericIconName(), style->standardIcon(QStyle::SP_FileIcon)));
    m_icons.insert(mimeName, icon);
    return icon;
}

} // namespace sandscope
