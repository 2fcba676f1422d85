#pragma once
// The live wall's cells: a call running for a minute or more stands out (bold, the palette's
// link colour), an agent whose transcript cannot be read shows its reason in the warning
// colour, and long texts are elided in the middle so both ends of a path or command show.

#include <QStyledItemDelegate>

namespace sandscope {

class LiveAgentDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    static constexpr qint64 longCallMs = 60000;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override;
};

} // namespace sandscope
