#pragma once
// Tints the rows of the Compare tab: changed calls amber, calls only in A red, calls only in
// B green (files touched by one side only likewise). Colours adapt to light and dark palettes.

#include "compare/runcomparison.h"

#include <QStyledItemDelegate>

#include <functional>

namespace sandscope {

class CompareDelegate : public QStyledItemDelegate {
    Q_OBJECT

public:
    // `stateOf` tells a row's state (Same paints nothing).
    CompareDelegate(
        std::function<RunComparison::State(const QModelIndex &)> stateOf, QObject *parent);

    static QColor tint(RunComparison::State state, const QPalette &palette);

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override;

private:
    std::function<RunComparison::State(const QModelIndex &)> m_stateOf;
};

} // namespace sandscope
