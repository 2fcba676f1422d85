#pragma once
// Paints the Sessions page's rows: a session running now is bold, so it stands out however the
// table is sorted (the core model only says so through RunningRole; fonts are a GUI type).

#include <QStyledItemDelegate>

namespace sandscope {

class SessionItemDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override;
};

} // namespace sandscope
